//! A link's scheduled events (issue #30): going down and up, a new rate or delay. They run on
//! the scheduled path only; the simulation turns the FIFO fast path off in a scenario that has
//! them, and ignores the transmission and arrival events a link going down made stale.

use super::{DropReason, Link, Packet, SerializationClock};
use crate::qdisc::Qdisc;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;

impl Link {
    /// The link goes down at `now` (a scheduled event; scheduled path only): the packets
    /// waiting, in transmission and propagating are lost, and so is every later arrival until
    /// [`Self::set_up`]. The lost packets are counted as `drops_link_down` and handed over by
    /// [`Self::take_inside_drops`]. The transmission and arrival events already scheduled
    /// become stale: [`Self::complete_tx`] and [`Self::pop_arrival`] then find nothing.
    pub fn set_down(&mut self, now: SimTime) {
        assert!(!self.is_fast_path(), "link events need the scheduled path");
        self.instruments_mut().down = true;
        let tx = self.tx();
        let mut lost: Vec<Packet> = tx.in_service.take().into_iter().collect();
        tx.in_service_left_queue_at = None;
        while let Some(pkt) = tx.qdisc.dequeue(now) {
            lost.push(pkt);
        }
        // Drops the discipline made on the way (CoDel) were in the queue too.
        if let Some(dropped) = tx.qdisc.dropped_inside() {
            lost.extend(dropped.drain(..).map(|(pkt, _)| pkt));
        }
        for _ in 0..self.tx().enqueued_at.len() {
            self.leave_queue(now);
        }
        lost.extend(self.pipe.drain(..).map(|f| f.packet));
        for pkt in lost {
            self.drop_for(DropReason::LinkDown, pkt.flow);
            self.tx().inside_drops.push(pkt);
        }
    }

    /// The link comes back up.
    pub fn set_up(&mut self) {
        self.instruments_mut().down = false;
    }

    /// `true` while the link is down.
    pub fn is_down(&self) -> bool {
        self.instruments.as_ref().is_some_and(|i| i.down)
    }

    /// From now on transmissions run at `rate` (the one in progress ends as it started).
    pub fn set_rate(&mut self, rate: Rate) {
        assert!(!self.is_fast_path(), "link events need the scheduled path");
        self.clock = SerializationClock::new(rate);
    }

    /// From now on packets propagate for `delay`; one never overtakes another that left
    /// before it (the pipe is first in, first out), so after a shorter delay a packet arrives
    /// no earlier than the one ahead of it.
    pub fn set_delay(&mut self, delay: SimDuration) {
        self.delay = delay;
    }

    /// `true` if a transmission ends at `now`: after [`Self::set_down`], the end events of
    /// the transmissions it cut short find none.
    pub fn transmission_ends_at(&self, now: SimTime) -> bool {
        self.transmitter()
            .is_some_and(|tx| tx.in_service.is_some() && tx.tx_ends_at == now)
    }

    /// `true` if the head of the pipe arrives at `now`: after [`Self::set_down`], the
    /// arrival events of the packets it lost find none.
    pub fn pipe_head_arrives_at(&self, now: SimTime) -> bool {
        self.pipe.front().is_some_and(|f| f.arrive_at == now)
    }

    /// The discipline, to take new parameters from a scheduled event.
    pub fn qdisc_mut(&mut self) -> &mut Qdisc {
        assert!(!self.is_fast_path(), "link events need the scheduled path");
        &mut self.tx().qdisc
    }

    /// A new queue limit from now on (see `Qdisc::set_limit`); `false` for a class-based
    /// queue.
    pub fn set_queue_limit(&mut self, limit: u64) -> bool {
        assert!(!self.is_fast_path(), "link events need the scheduled path");
        self.tx().qdisc.set_limit(limit)
    }
}
