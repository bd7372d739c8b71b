//! Traffic sources: CBR emissions and random transfers, each a new TCP connection.

use super::*;

impl Simulation<'_> {
    /// Schedules group `g`'s next arrival, a Poisson gap after `after`, if before its stop.
    pub(super) fn schedule_transfer(&mut self, after: SimTime, g: usize) {
        let spec = &self.scenario.transfers[g];
        let gap = exponential_gap_s(&mut self.groups[g].arrivals, spec.arrivals_per_second);
        let at = after + SimDuration::from_ps((gap * 1e12) as u64);
        if at < Self::at(spec.stop) {
            self.queue.schedule(at, Event::TransferArrival(g as u32));
        }
    }

    /// A transfer of group `g` arrives: a new connection sends one object, then the next
    /// arrival is scheduled.
    pub(super) fn start_transfer(&mut self, now: SimTime, g: usize) {
        let spec = &self.scenario.transfers[g];
        let state = &mut self.groups[g];
        let size = spec.sizes.draw(&mut state.sizes);
        let boot_phase = if spec.random_boot_phase {
            SimDuration::from_ps(state.boot_phases.below(spec.sender.tick.as_ps()))
        } else {
            SimDuration::ZERO
        };
        let f = self
            .connections
            .ids
            .of_transfer(self.connections.transfers.len());
        if spec.sender.timer_mode == TimerMode::Tick {
            match self
                .slow_clocks
                .iter_mut()
                .find(|(p, _)| *p == spec.sender.tick)
            {
                Some((_, members)) => members.push(f),
                None => {
                    // A new clock, in phase with simulated time like every slow clock.
                    let period = spec.sender.tick;
                    self.slow_clocks.push((period, vec![f]));
                    let next = SimTime::ZERO
                        + SimDuration::from_ps((now.as_ps() / period.as_ps() + 1) * period.as_ps());
                    self.queue
                        .schedule(next, Event::SlowTick(self.slow_clocks.len() - 1));
                }
            }
        }
        if spec.receiver.ack_policy == AckPolicy::DelayedBsd {
            if self.fast_tick_flows.is_empty() {
                let next = SimTime::ZERO
                    + SimDuration::from_ps(
                        (now.as_ps() / BSD_FAST_TICK.as_ps() + 1) * BSD_FAST_TICK.as_ps(),
                    );
                self.queue.schedule(next, Event::FastTick);
            }
            self.fast_tick_flows.push(f);
        }
        let mut sender = TcpSender::new(spec.sender.clone(), boot_phase);
        if Controller::draws_random(spec.sender.congestion_control) {
            sender.seed_controller(self.groups[g].controllers.next_u64());
        }
        if self.scenario.tcp_events {
            sender.enable_trace();
        }
        sender.lend_buffer(&mut self.segments);
        sender.start(now, Some(size));
        let receiver = TcpReceiver::new(spec.receiver.clone());
        (self.connections.transfers).push(FlowState::new(
            sender,
            receiver,
            (spec.src, spec.dst),
            now,
        ));
        self.transfer_info
            .push((g as u32, size, self.group_started[g]));
        self.group_started[g] += 1;
        self.flush(now, f, End::Sender);
        self.schedule_transfer(now, g);
    }

    /// Asks CBR source `i` for its next emission and schedules it (if before the end).
    pub(super) fn schedule_cbr(&mut self, i: usize) {
        let end = Self::at(self.scenario.duration);
        let c = &mut self.cbr[i];
        if let Some((at, packets)) = c.source.next_emission()
            && at < end
        {
            c.pending_packets = packets;
            self.queue.schedule(at, Event::CbrEmit(i as u32));
        }
    }

    /// CBR source `i` sends its pending packets back to back, then schedules its next emission.
    pub(super) fn emit_cbr(&mut self, now: SimTime, i: usize) {
        let flow = self.connections.ids.of_cbr(i);
        let c = &mut self.cbr[i];
        let (src, dst, size) = (c.src, c.dst, c.source.config().packet_bytes);
        let first = c.next_seq;
        c.next_seq += u64::from(c.pending_packets);
        for seq in first..c.next_seq {
            self.forward(now, src, Packet::udp(flow, dst, size, seq));
        }
        self.schedule_cbr(i);
    }
}
