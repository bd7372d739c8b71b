//! PIE (spec `ip.md` §10): Pan et al.'s Proportional Integral controller Enhanced, RFC 8033
//! with the RFC's optional derandomization and cap, as Linux (`sch_pie.c`) and ns-3.37
//! (`PieQueueDisc`) implement it: a FIFO that drops (or ECN-marks) arrivals with a probability
//! `p` updated every `update_interval` from the queueing delay.
//!
//! The periodic update is computed when the queue is next touched, not by a timer event: the
//! delay estimate only changes at a dequeue, so the updates due at or before an arrival or a
//! departure, run then in order, give what a timer would have. [`PieVars`] is one queue's
//! controller: [`Pie`] is one FIFO under it, FQ-PIE (`fq.rs`) one per flow queue.

use crate::drops::DropReason;
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// PIE's parameters (spec §10.1).
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// The queueing delay PIE steers towards (`QDELAY_REF`).
    pub target: SimDuration,
    /// Period of the drop-probability update (`T_UPDATE`).
    pub update_interval: SimDuration,
    /// Weight of the delay's distance from target, per second.
    pub alpha: f64,
    /// Weight of the delay's change since the last update, per second.
    pub beta: f64,
    /// Burst allowance: no early drop for this long after the queue was last calm.
    pub max_burst: SimDuration,
    /// Bytes a departure-rate measurement cycle spans (`DQ_THRESHOLD`).
    pub dequeue_threshold_bytes: u64,
    /// Estimate the delay from the departure rate (RFC §5.2) instead of timestamps.
    pub use_departure_rate: bool,
    /// Mark ECN-capable arrivals instead of dropping them while `p` is below
    /// `mark_ecn_threshold`.
    pub ecn_marking: bool,
    pub mark_ecn_threshold: f64,
    /// Space drops by accumulating `p` (RFC §5.4).
    pub use_derandomization: bool,
    /// Limit each increase of `p` to 2 % once it is above 10 % (RFC §5.5).
    pub cap_drop_adjustment: bool,
    /// No early drop while at most two of these are queued (RFC's `MEAN_PKTSIZE`).
    pub mtu_bytes: u64,
}

impl PieParams {
    /// RFC 8033's and Linux's defaults (spec §10.1, the congsim column).
    pub fn rfc_defaults() -> Self {
        Self {
            target: SimDuration::from_millis(15),
            update_interval: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            dequeue_threshold_bytes: 16384,
            use_departure_rate: false,
            ecn_marking: false,
            mark_ecn_threshold: 0.1,
            use_derandomization: true,
            cap_drop_adjustment: true,
            mtu_bytes: 1514,
        }
    }
}

/// Counters of a PIE queue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PieStats {
    /// Arrivals dropped early.
    pub drops: u64,
    /// Arrivals marked instead.
    pub ecn_marks: u64,
}

/// What PIE shares between the queues it controls: its parameters, randomness and counters.
#[derive(Debug)]
pub struct PieShared {
    pub(super) params: PieParams,
    rng: RngStream,
    stats: PieStats,
}

impl PieShared {
    pub(super) fn new(params: PieParams, rng: RngStream) -> Self {
        Self {
            params,
            rng,
            stats: PieStats::default(),
        }
    }
    pub(super) fn stats(&self) -> &PieStats {
        &self.stats
    }
}

/// One queue's controller state (spec §10.2).
#[derive(Clone, Debug)]
pub struct PieVars {
    /// Drop probability.
    p: f64,
    /// Latest delay estimate, seconds.
    qdelay: f64,
    /// The estimate at the previous update, seconds.
    qdelay_old: f64,
    burst: SimDuration,
    /// Derandomization's accumulated probability.
    accu: f64,
    /// When the next update is due.
    next_update: SimTime,
    /// Departure-rate estimator: a measurement cycle is open, its start and bytes so far, and
    /// the averaged time a cycle's bytes take to leave (ps; 0 before the first).
    in_meas: bool,
    meas_start: SimTime,
    dq_count: u64,
    avg_dq_time_ps: f64,
}

impl PieVars {
    pub(super) fn new(params: &PieParams) -> Self {
        Self {
            p: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst: params.max_burst,
            accu: 0.0,
            next_update: SimTime::ZERO + params.update_interval,
            in_meas: false,
            meas_start: SimTime::ZERO,
            dq_count: 0,
            avg_dq_time_ps: 0.0,
        }
    }

    /// The drop probability.
    pub fn probability(&self) -> f64 {
        self.p
    }

    /// The departure-rate mode's delay estimate with `queued_bytes` waiting, seconds.
    fn rate_estimate(&self, params: &PieParams, queued_bytes: u64) -> f64 {
        queued_bytes as f64 * self.avg_dq_time_ps / params.dequeue_threshold_bytes as f64 * 1e-12
    }

    /// Runs the updates due at or before `now` (spec §10.4), `queued_bytes` having waited
    /// since the last event. Updates of a queue at rest (no probability, no delay) change only
    /// the burst allowance, so a long idle spell is skipped in one step.
    pub(super) fn catch_up(&mut self, params: &PieParams, now: SimTime, queued_bytes: u64) {
        let period = params.update_interval;
        while self.next_update <= now {
            let estimate = if params.use_departure_rate {
                self.rate_estimate(params, queued_bytes)
            } else {
                self.qdelay
            };
            if self.p == 0.0 && self.qdelay_old == 0.0 && estimate == 0.0 {
                let due = (now - self.next_update).as_ps() / period.as_ps() + 1;
                self.qdelay = 0.0;
                self.burst = self.burst.saturating_sub(period.mul(due));
                self.next_update += period.mul(due);
                return;
            }
            self.update(params, estimate);
            self.next_update += period;
        }
    }

    /// One update of `p` from the delay `qdelay` (RFC 8033 §4.2, §5.5).
    fn update(&mut self, params: &PieParams, qdelay: f64) {
        self.qdelay = qdelay;
        let target = params.target.as_secs_f64();
        let mut d = params.alpha * (qdelay - target) + params.beta * (qdelay - self.qdelay_old);
        // Auto-tuning: small probabilities move in small steps, decreases too (§10.5).
        d /= match self.p {
            p if p < 1e-6 => 2048.0,
            p if p < 1e-5 => 512.0,
            p if p < 1e-4 => 128.0,
            p if p < 1e-3 => 32.0,
            p if p < 1e-2 => 8.0,
            p if p < 0.1 => 2.0,
            _ => 1.0,
        };
        if params.cap_drop_adjustment && self.p >= 0.1 && d > 0.02 {
            d = 0.02;
        }
        self.p += d;
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.p *= 0.98;
        }
        self.p = self.p.clamp(0.0, 1.0);
        self.qdelay_old = qdelay;
        self.burst = self.burst.saturating_sub(params.update_interval);
    }

    /// RFC 8033 §4.1 with §5.4's derandomization: whether to drop an arrival finding
    /// `queued_bytes` waiting.
    fn drop_early(&mut self, params: &PieParams, rng: &mut RngStream, queued_bytes: u64) -> bool {
        let half_target = params.target.as_secs_f64() / 2.0;
        if (self.qdelay_old < half_target && self.p < 0.2) || queued_bytes <= 2 * params.mtu_bytes {
            return false;
        }
        if params.use_derandomization {
            if self.p == 0.0 {
                self.accu = 0.0;
            }
            self.accu += self.p;
            if self.accu < 0.85 {
                return false;
            }
            if self.accu >= 8.5 {
                return true;
            }
        }
        // Drawn only when the decision reaches it, so that streams stay comparable.
        rng.uniform() < self.p
    }

    /// The arrival `pkt` at `now` finds `queued_bytes` waiting (spec §10.2, after the limit
    /// test): `Err` drops it early; it may be marked instead.
    pub(super) fn admit(
        &mut self,
        shared: &mut PieShared,
        now: SimTime,
        queued_bytes: u64,
        pkt: &mut Packet,
    ) -> Result<(), DropReason> {
        let params = &shared.params;
        self.catch_up(params, now, queued_bytes);
        let half_target = params.target.as_secs_f64() / 2.0;
        if self.p == 0.0 && self.qdelay < half_target && self.qdelay_old < half_target {
            self.burst = params.max_burst;
        }
        if self.burst.is_zero() && self.drop_early(params, &mut shared.rng, queued_bytes) {
            if params.ecn_marking && pkt.ecn.ect && self.p < params.mark_ecn_threshold {
                pkt.ecn.ce = true;
                shared.stats.ecn_marks += 1;
            } else {
                self.accu = 0.0;
                shared.stats.drops += 1;
                return Err(DropReason::Early);
            }
        }
        Ok(())
    }

    /// A packet of `size_bytes` enqueued at `enqueued` left at `now`, `left_bytes` behind it
    /// (spec §10.3).
    pub(super) fn departed(
        &mut self,
        params: &PieParams,
        now: SimTime,
        enqueued: SimTime,
        size_bytes: u64,
        left_bytes: u64,
    ) {
        if !params.use_departure_rate {
            self.qdelay = if left_bytes == 0 {
                0.0
            } else {
                (now - enqueued).as_secs_f64()
            };
            return;
        }
        if self.in_meas {
            self.dq_count += size_bytes;
            if self.dq_count >= params.dequeue_threshold_bytes {
                let dt = (now - self.meas_start).as_ps() as f64;
                self.avg_dq_time_ps = if self.avg_dq_time_ps == 0.0 {
                    dt
                } else {
                    0.25 * dt + 0.75 * self.avg_dq_time_ps
                };
                self.in_meas = false;
            }
        }
        if !self.in_meas && left_bytes >= params.dequeue_threshold_bytes {
            self.in_meas = true;
            self.meas_start = now;
            self.dq_count = 0;
        }
    }
}

/// A FIFO under PIE, with a tail drop at `limit_packets`.
#[derive(Debug)]
pub struct Pie {
    queue: VecDeque<(Packet, SimTime)>,
    queued_bytes: u64,
    limit_packets: u64,
    shared: PieShared,
    vars: PieVars,
    /// When the packet last dequeued was enqueued.
    last_enqueued: SimTime,
}

impl Pie {
    pub fn new(params: PieParams, limit_packets: u64, rng: RngStream) -> Self {
        let vars = PieVars::new(&params);
        Self {
            queue: VecDeque::new(),
            queued_bytes: 0,
            limit_packets,
            shared: PieShared::new(params, rng),
            vars,
            last_enqueued: SimTime::ZERO,
        }
    }

    /// Offers `pkt` arriving at `now` (`also_waiting` counts a packet that left at this same
    /// instant as still waiting, for the limit).
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        also_waiting: u64,
    ) -> Result<(), (Packet, DropReason)> {
        if self.queue.len() as u64 + also_waiting >= self.limit_packets {
            self.vars.accu = 0.0;
            return Err((pkt, DropReason::Overflow));
        }
        if let Err(reason) = self
            .vars
            .admit(&mut self.shared, now, self.queued_bytes, &mut pkt)
        {
            return Err((pkt, reason));
        }
        self.queued_bytes += u64::from(pkt.size_bytes);
        self.queue.push_back((pkt, now));
        Ok(())
    }

    /// A new tail-drop limit from now on (packets beyond it stay).
    pub fn set_limit_packets(&mut self, limit_packets: u64) {
        self.limit_packets = limit_packets;
    }

    /// New parameters from now on (a scheduled `queue_params` event): the drop probability,
    /// the delay estimate and the burst allowance left carry over.
    pub fn set_params(&mut self, params: PieParams, limit_packets: u64) {
        self.shared.params = params;
        self.limit_packets = limit_packets;
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let params = &self.shared.params;
        self.vars.catch_up(params, now, self.queued_bytes);
        let (pkt, enqueued) = self.queue.pop_front()?;
        let size = u64::from(pkt.size_bytes);
        self.queued_bytes -= size;
        self.vars
            .departed(params, now, enqueued, size, self.queued_bytes);
        self.last_enqueued = enqueued;
        Some(pkt)
    }

    /// When the packet last dequeued was enqueued.
    pub fn last_enqueued(&self) -> SimTime {
        self.last_enqueued
    }
    pub fn len_packets(&self) -> u64 {
        self.queue.len() as u64
    }
    pub fn len_bytes(&self) -> u64 {
        self.queued_bytes
    }
    pub fn stats(&self) -> &PieStats {
        self.shared.stats()
    }
    /// The controller, for tests and traces.
    pub fn vars(&self) -> &PieVars {
        &self.vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::FlowId;
    use congsim_core::ids::NodeId;
    use congsim_core::rng::StreamFactory;

    fn packet(ect: bool) -> Packet {
        let mut p = Packet::udp(FlowId(0), NodeId(1), 1500, 0);
        p.ecn.ect = ect;
        p
    }

    fn pie(params: PieParams) -> Pie {
        Pie::new(params, 100_000, StreamFactory::new(1, 0).stream("pie"))
    }

    /// Two 1500-byte arrivals per 1.2 ms service (a 10 Mb/s link at twice its rate) for
    /// `services` services: the drop times (µs) and the final queue.
    fn overload(q: &mut Pie, services: u64, ect: bool) -> Vec<u64> {
        let mut drops = Vec::new();
        for k in 0..services {
            let now = SimTime::from_ps(k * 1_200_000_000);
            for _ in 0..2 {
                if q.enqueue(now, packet(ect), 0).is_err() {
                    drops.push(now.as_ps() / 1_000_000);
                }
            }
            q.dequeue(now);
        }
        drops
    }

    #[test]
    fn one_update_follows_rfc_8033() {
        // qdelay 30 ms against 15 ms from 0: d = 0.125·0.015 + 1.25·0.030 = 0.039375, divided
        // by 2048 at p = 0; then from p = 0.5 at 20 ms after 30 ms the cap does not apply to
        // a decrease: d = 0.125·0.005 − 1.25·0.010 = −0.011875.
        let params = PieParams::rfc_defaults();
        let mut v = PieVars::new(&params);
        v.update(&params, 0.030);
        assert!((v.p - 0.039375 / 2048.0).abs() < 1e-15, "{}", v.p);
        assert_eq!(v.burst, SimDuration::from_millis(135));
        v.p = 0.5;
        v.update(&params, 0.020);
        assert!((v.p - (0.5 - 0.011875)).abs() < 1e-12, "{}", v.p);
        // An increase above 10 % is capped at 2 %.
        v.update(&params, 0.500);
        assert!((v.p - (0.5 - 0.011875 + 0.02)).abs() < 1e-12, "{}", v.p);
        // Both delays zero: the step, then a 2 % decay.
        let mut idle = PieVars::new(&params);
        idle.p = 0.5;
        idle.qdelay_old = 0.0;
        idle.update(&params, 0.0);
        assert!((idle.p - (0.5 - 0.125 * 0.015) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn updates_run_every_interval_whenever_the_queue_is_next_touched() {
        // The same history touched every update or once: the same probability.
        let params = PieParams::rfc_defaults();
        let mut eager = PieVars::new(&params);
        let mut lazy = eager.clone();
        eager.qdelay = 0.040;
        lazy.qdelay = 0.040;
        for k in 1..=20u64 {
            eager.catch_up(&params, SimTime::from_millis(15 * k), 0);
        }
        lazy.catch_up(&params, SimTime::from_millis(300), 0);
        assert_eq!(eager.p, lazy.p);
        assert!(lazy.p > 0.0);
        assert_eq!(lazy.next_update, SimTime::from_millis(315));
        // A queue at rest skips a long idle spell in one step, with the same result.
        let mut rest = PieVars::new(&params);
        rest.catch_up(&params, SimTime::from_secs(100), 0);
        assert!(rest.burst.is_zero());
        assert_eq!(rest.next_update, SimTime::from_millis(100_005));
    }

    #[test]
    fn no_drop_during_the_burst_allowance_then_the_queue_is_held_near_target() {
        let mut q = pie(PieParams::rfc_defaults());
        let drops = overload(&mut q, 5000, false);
        // The queue grows at 1.2 ms per 1.2 ms: it passes target/2 at about 9 ms and the
        // allowance (150 ms) then runs out before any drop.
        assert!(drops[0] >= 150_000, "first drop at {} µs", drops[0]);
        // After the transient, the delay of the packets leaving stays near 15 ms.
        assert!(
            q.len_packets() < 40,
            "{} packets (15 ms is 12.5)",
            q.len_packets()
        );
        assert!(q.vars().probability() > 0.3, "{}", q.vars().probability());
        assert_eq!(q.stats().drops, drops.len() as u64);
    }

    #[test]
    fn marks_ecn_capable_arrivals_while_p_is_low() {
        let mut q = pie(PieParams {
            ecn_marking: true,
            ..PieParams::rfc_defaults()
        });
        let drops = overload(&mut q, 5000, true);
        assert!(q.stats().ecn_marks > 0);
        // Marking cannot hold a 2x overload: p passes 10 % and drops start.
        assert!(!drops.is_empty());
    }

    #[test]
    fn no_early_drop_with_two_packets_or_fewer_queued() {
        let mut params = PieParams::rfc_defaults();
        params.max_burst = SimDuration::ZERO;
        let mut v = PieVars::new(&params);
        v.p = 1.0;
        v.qdelay_old = 1.0;
        let mut rng = StreamFactory::new(1, 0).stream("pie");
        assert!(!v.drop_early(&params, &mut rng, 3000));
        assert!(v.drop_early(&params, &mut rng, 3029));
    }

    #[test]
    fn the_departure_rate_estimate_tracks_the_link() {
        // 10 Mb/s: 16384 bytes take 13.1 ms to leave; 30 packets queued are 36 ms of delay.
        let params = PieParams {
            use_departure_rate: true,
            ..PieParams::rfc_defaults()
        };
        let mut q = Pie::new(params.clone(), 1000, StreamFactory::new(1, 0).stream("pie"));
        for _ in 0..60 {
            q.enqueue(SimTime::ZERO, packet(false), 0).unwrap();
        }
        for k in 1..=30u64 {
            q.dequeue(SimTime::from_ps(k * 1_200_000_000));
        }
        let estimate = q.vars.rate_estimate(&params, q.len_bytes());
        assert!((estimate - 0.036).abs() < 0.002, "{estimate}");
    }

    #[test]
    fn tail_drop_at_the_limit() {
        let mut q = Pie::new(
            PieParams::rfc_defaults(),
            2,
            StreamFactory::new(1, 0).stream("pie"),
        );
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_ok());
        assert_eq!(
            q.enqueue(SimTime::ZERO, packet(false), 1).unwrap_err().1,
            DropReason::Overflow
        );
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_ok());
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_err());
    }
}
