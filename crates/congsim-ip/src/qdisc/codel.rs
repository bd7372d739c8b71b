//! CoDel (spec `ip.md` §8): Nichols and Jacobson's Controlled Delay, RFC 8289 as Linux
//! (`include/net/codel_impl.h`) and ns-3.37 (`CoDelQueueDisc`, a port of Linux's) implement
//! it: a FIFO that drops (or ECN-marks) at dequeue once the packets' sojourn has stayed above
//! `target` for an `interval`, then at a rate rising with the square root of the drops.
//!
//! [`CodelVars`] and [`codel_dequeue`] are the control law alone, over any source of packets
//! ([`CodelSource`]): [`Codel`] is one FIFO under it, FQ-CoDel (`fq.rs`) one per flow
//! queue.

use crate::drops::DropReason;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// CoDel's clock, as Linux and ns-3 keep it: nanoseconds shifted right by 10 (`CODEL_SHIFT`),
/// units of 1.024 µs.
fn codel_time(ps: u64) -> u64 {
    (ps / 1000) >> 10
}

/// 1/√count in Q0.16 (`rec_inv_sqrt`) for `count` = 1.
const REC_INV_SQRT_ONE: u16 = u16::MAX;

/// CoDel's parameters (spec §8.1).
#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing sojourn time.
    pub target: SimDuration,
    /// The sliding window over which the sojourn must stay above `target` before a drop; the
    /// control law's base spacing.
    pub interval: SimDuration,
    /// No drop while at most this many bytes remain queued (Linux `mtu`, ns-3 `MinBytes`).
    pub mtu_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn_marking: bool,
    /// Mark every ECN-capable packet whose sojourn exceeds this (Linux `ce_threshold`).
    pub ce_threshold: Option<SimDuration>,
}

#[cfg(test)]
impl CodelParams {
    /// RFC 8289's and Linux's defaults (spec §8.1), for tests.
    pub(super) fn linux_defaults() -> Self {
        Self {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu_bytes: 1514,
            ecn_marking: false,
            ce_threshold: None,
        }
    }
}

/// The parameters in CoDel time.
#[derive(Clone, Copy, Debug)]
pub(super) struct CodelClock {
    target: u64,
    interval: u64,
    mtu_bytes: u64,
    ecn_marking: bool,
    ce_threshold: Option<u64>,
}

impl CodelClock {
    pub(super) fn new(params: &CodelParams) -> Self {
        Self {
            target: codel_time(params.target.as_ps()),
            interval: codel_time(params.interval.as_ps()),
            mtu_bytes: params.mtu_bytes,
            ecn_marking: params.ecn_marking,
            ce_threshold: params.ce_threshold.map(|t| codel_time(t.as_ps())),
        }
    }

    /// `t + interval / √count`, with 1/√count from `rec` (Linux `codel_control_law`).
    fn control_law(&self, t: u64, rec: u16) -> u64 {
        t.wrapping_add((self.interval.wrapping_mul(u64::from(rec) << 16)) >> 32)
    }
}

/// One Newton step towards 1/√count from the previous estimate (Linux `codel_Newton_step`,
/// ns-3 `NewtonStep`, bit for bit: the 32-bit intermediate values included).
fn newton_step(rec: u16, count: u32) -> u16 {
    let inv = u64::from(rec) << 16;
    let inv2 = (inv * inv) >> 32;
    let val = ((3u64 << 32).wrapping_sub(u64::from(count).wrapping_mul(inv2))) >> 2;
    let val = val.wrapping_mul(inv) >> 31;
    (val >> 16) as u16
}

/// The control law's state (Linux `struct codel_vars`).
#[derive(Clone, Debug)]
pub struct CodelVars {
    /// Drops (and marks) since entering the dropping state.
    pub(super) count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
    rec_inv_sqrt: u16,
    /// When the sojourn may first be judged persistently above target (0: it is not above).
    first_above: u64,
    /// When the next drop is due in the dropping state (`None` before the first).
    drop_next: Option<u64>,
    /// The sojourn of the packet last judged (Linux `ldelay`), for the CE threshold.
    last_sojourn: u64,
}

impl Default for CodelVars {
    fn default() -> Self {
        Self {
            count: 0,
            lastcount: 0,
            dropping: false,
            rec_inv_sqrt: REC_INV_SQRT_ONE,
            first_above: 0,
            drop_next: None,
            last_sojourn: 0,
        }
    }
}

/// Where CoDel takes its packets from: one FIFO, or one flow queue of several.
pub(super) trait CodelSource {
    /// The head packet and its enqueue time, removed.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bytes still queued (for FQ-CoDel, in the whole discipline, as Linux counts them).
    fn backlog_bytes(&self) -> u64;
}

/// Counters of a CoDel queue (Linux `tc -s` names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodelStats {
    /// Packets dropped by the control law.
    pub drops: u64,
    /// Packets marked by the control law.
    pub ecn_marks: u64,
    /// Packets marked above `ce_threshold`.
    pub ce_marks: u64,
}

impl CodelVars {
    /// Linux `codel_should_drop`: `pkt` was just removed at `now_c`.
    fn should_drop(
        &mut self,
        clock: &CodelClock,
        pkt: Option<&(Packet, SimTime)>,
        backlog_bytes: u64,
        now_c: u64,
    ) -> bool {
        let Some((_, enqueued)) = pkt else {
            self.first_above = 0;
            return false;
        };
        self.last_sojourn = now_c.saturating_sub(codel_time(enqueued.as_ps()));
        if self.last_sojourn < clock.target || backlog_bytes <= clock.mtu_bytes {
            // Went below: stay below for at least an interval.
            self.first_above = 0;
            return false;
        }
        if self.first_above == 0 {
            self.first_above = now_c + clock.interval;
            return false;
        }
        now_c > self.first_above
    }

    fn reset_count(&mut self) {
        self.count = 1;
        self.rec_inv_sqrt = REC_INV_SQRT_ONE;
    }
}

/// Marks `pkt` if it is ECN-capable (`INET_ECN_set_ce`).
fn mark(pkt: &mut Packet) -> bool {
    if pkt.ecn.ect {
        pkt.ecn.ce = true;
    }
    pkt.ecn.ect
}

/// Linux `codel_dequeue` (spec §8.3): the packet to send at `now` and when it was enqueued,
/// the ones the control law dropped on the way appended to `dropped`.
pub(super) fn codel_dequeue(
    vars: &mut CodelVars,
    clock: &CodelClock,
    stats: &mut CodelStats,
    now: SimTime,
    source: &mut impl CodelSource,
    dropped: &mut Vec<(Packet, DropReason)>,
) -> Option<(Packet, SimTime)> {
    let now_c = codel_time(now.as_ps());
    let mut head = source.pop();
    if head.is_none() {
        vars.dropping = false;
        return None;
    }
    let ok = vars.should_drop(clock, head.as_ref(), source.backlog_bytes(), now_c);
    let mut marked = false;
    let due = |vars: &CodelVars| vars.drop_next.is_some_and(|next| now_c >= next);
    if vars.dropping {
        if !ok {
            vars.dropping = false;
        } else {
            while vars.dropping && due(vars) {
                let next = vars.drop_next.expect("due");
                vars.count = vars.count.wrapping_add(1);
                vars.rec_inv_sqrt = newton_step(vars.rec_inv_sqrt, vars.count);
                let (pkt, _) = head.as_mut().expect("judged packets exist");
                if clock.ecn_marking && mark(pkt) {
                    stats.ecn_marks += 1;
                    marked = true;
                    vars.drop_next = Some(clock.control_law(next, vars.rec_inv_sqrt));
                    break;
                }
                stats.drops += 1;
                dropped.push((head.take().expect("judged").0, DropReason::Early));
                head = source.pop();
                if vars.should_drop(clock, head.as_ref(), source.backlog_bytes(), now_c) {
                    vars.drop_next = Some(clock.control_law(next, vars.rec_inv_sqrt));
                } else {
                    vars.dropping = false;
                }
            }
        }
    } else if ok {
        let (pkt, _) = head.as_mut().expect("judged packets exist");
        if clock.ecn_marking && mark(pkt) {
            stats.ecn_marks += 1;
            marked = true;
        } else {
            stats.drops += 1;
            dropped.push((head.take().expect("judged").0, DropReason::Early));
            head = source.pop();
            vars.should_drop(clock, head.as_ref(), source.backlog_bytes(), now_c);
        }
        vars.dropping = true;
        // Re-entry soon after the last cycle resumes its drop rate (RFC 8289 §5.4).
        let delta = vars.count.wrapping_sub(vars.lastcount);
        let recent = vars
            .drop_next
            .is_some_and(|next| (now_c.wrapping_sub(next) as i64) < (16 * clock.interval) as i64);
        if delta > 1 && recent {
            vars.count = delta;
            vars.rec_inv_sqrt = newton_step(vars.rec_inv_sqrt, vars.count);
        } else {
            vars.reset_count();
        }
        vars.lastcount = vars.count;
        vars.drop_next = Some(clock.control_law(now_c, vars.rec_inv_sqrt));
    }
    let (mut pkt, enqueued) = head?;
    if let Some(threshold) = clock.ce_threshold
        && vars.last_sojourn > threshold
        && !marked
        && mark(&mut pkt)
    {
        stats.ce_marks += 1;
    }
    Some((pkt, enqueued))
}

/// A FIFO under CoDel, with a tail drop at `limit_packets`.
#[derive(Debug)]
pub struct Codel {
    queue: VecDeque<(Packet, SimTime)>,
    queued_bytes: u64,
    limit_packets: u64,
    clock: CodelClock,
    vars: CodelVars,
    stats: CodelStats,
    /// Packets dropped since the link last collected them.
    dropped: Vec<(Packet, DropReason)>,
    /// When the packet last dequeued was enqueued.
    last_enqueued: SimTime,
}

/// The FIFO as CoDel's source.
struct Fifo<'a> {
    queue: &'a mut VecDeque<(Packet, SimTime)>,
    queued_bytes: &'a mut u64,
}

impl CodelSource for Fifo<'_> {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let head = self.queue.pop_front()?;
        *self.queued_bytes -= u64::from(head.0.size_bytes);
        Some(head)
    }
    fn backlog_bytes(&self) -> u64 {
        *self.queued_bytes
    }
}

impl Codel {
    pub fn new(params: &CodelParams, limit_packets: u64) -> Self {
        Self {
            queue: VecDeque::new(),
            queued_bytes: 0,
            limit_packets,
            clock: CodelClock::new(params),
            vars: CodelVars::default(),
            stats: CodelStats::default(),
            dropped: Vec::new(),
            last_enqueued: SimTime::ZERO,
        }
    }

    /// Queues `pkt` unless `limit_packets` wait already (`also_waiting` counts a packet that
    /// left at this same instant as still waiting).
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, also_waiting: u64) -> Result<(), Packet> {
        if self.queue.len() as u64 + also_waiting >= self.limit_packets {
            return Err(pkt);
        }
        self.queued_bytes += u64::from(pkt.size_bytes);
        self.queue.push_back((pkt, now));
        Ok(())
    }

    /// A new tail-drop limit from now on (packets beyond it stay).
    pub fn set_limit_packets(&mut self, limit_packets: u64) {
        self.limit_packets = limit_packets;
    }

    /// New parameters from now on (a scheduled `queue_params` event): the dropping state, the
    /// count and the next drop time carry over (the next drop keeps the time the old interval
    /// gave it).
    pub fn set_params(&mut self, params: &CodelParams, limit_packets: u64) {
        self.clock = CodelClock::new(params);
        self.limit_packets = limit_packets;
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let mut fifo = Fifo {
            queue: &mut self.queue,
            queued_bytes: &mut self.queued_bytes,
        };
        let (vars, clock, stats) = (&mut self.vars, &self.clock, &mut self.stats);
        let (pkt, enqueued) = codel_dequeue(vars, clock, stats, now, &mut fifo, &mut self.dropped)?;
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
    pub fn stats(&self) -> &CodelStats {
        &self.stats
    }
    /// The packets dropped at dequeue since the last call.
    pub fn dropped(&mut self) -> &mut Vec<(Packet, DropReason)> {
        &mut self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::FlowId;
    use congsim_core::ids::NodeId;

    fn params() -> CodelParams {
        CodelParams::linux_defaults()
    }

    fn packet(ect: bool) -> Packet {
        let mut p = Packet::udp(FlowId(0), NodeId(1), 1500, 0);
        p.ecn.ect = ect;
        p
    }

    #[test]
    fn newton_steps_give_linux_gaps() {
        // spec §8.2: rec for count 1..6 and the gaps at interval 100 ms.
        let mut rec = REC_INV_SQRT_ONE;
        let mut recs = vec![rec];
        for count in 2..=6 {
            rec = newton_step(rec, count);
            recs.push(rec);
        }
        assert_eq!(recs, [65535, 32769, 36864, 31968, 28935, 26481]);
        let clock = CodelClock::new(&params());
        assert_eq!(clock.interval, 97_656);
        let gap_ms = |rec| clock.control_law(0, rec) as f64 * 1.024e-3;
        assert!((gap_ms(32769) - 50.001).abs() < 0.01, "{}", gap_ms(32769));
        assert!((gap_ms(26481) - 40.406).abs() < 0.01);
    }

    /// A link of 1500-byte packets every `gap_us` µs into a queue served every 1200 µs
    /// (10 Mbps), from `from` to `to`: returns the drop times (µs).
    fn run(q: &mut Codel, arrivals_per_service: usize, services: u64) -> Vec<u64> {
        let mut drop_times = Vec::new();
        for k in 0..services {
            let now = SimTime::from_ps(k * 1_200_000_000);
            for _ in 0..arrivals_per_service {
                q.enqueue(now, packet(false), 0).expect("under the limit");
            }
            q.dequeue(now);
            for _ in q.dropped().drain(..) {
                drop_times.push(now.as_ps() / 1_000_000);
            }
        }
        drop_times
    }

    #[test]
    fn no_drop_while_the_sojourn_stays_under_target() {
        let mut q = Codel::new(&params(), 1000);
        assert!(run(&mut q, 1, 1000).is_empty());
        assert_eq!(q.stats().drops, 0);
    }

    #[test]
    fn a_standing_queue_is_dropped_an_interval_after_it_exceeds_target_then_faster() {
        // Two arrivals per departure: the queue grows by one packet per 1.2 ms, so the sojourn
        // passes 5 ms after about 5 ms. The first drop comes an interval later; the gaps then
        // shrink as interval/√count (Linux's Newton values).
        let mut q = Codel::new(&params(), 100_000);
        let drops = run(&mut q, 2, 400);
        assert!(drops.len() >= 3, "{drops:?}");
        let first = drops[0];
        assert!(
            (100_000..=112_000).contains(&first),
            "first drop at {first} µs"
        );
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!((98_000..=102_000).contains(&gaps[0]), "{gaps:?}");
        assert!((48_000..=52_000).contains(&gaps[1]), "{gaps:?}");
        assert!(
            gaps[2] > gaps[1],
            "Newton's third estimate is above 1/sqrt(3): {gaps:?}"
        );
    }

    #[test]
    fn marks_ecn_capable_packets_instead_of_dropping() {
        let mut q = Codel::new(
            &CodelParams {
                ecn_marking: true,
                ..params()
            },
            100_000,
        );
        let mut marked = 0;
        for k in 0..400u64 {
            let now = SimTime::from_ps(k * 1_200_000_000);
            for _ in 0..2 {
                q.enqueue(now, packet(true), 0).unwrap();
            }
            if q.dequeue(now).is_some_and(|p| p.ecn.ce) {
                marked += 1;
            }
        }
        assert!(q.dropped().is_empty());
        assert_eq!(q.stats().ecn_marks, marked);
        assert!(marked >= 3);
    }

    #[test]
    fn no_drop_with_at_most_an_mtu_queued() {
        // One packet waiting for 50 ms: its sojourn is far above target, but nothing is behind it.
        let mut q = Codel::new(&params(), 1000);
        for k in 0..10u64 {
            q.enqueue(SimTime::from_millis(50 * k), packet(false), 0)
                .unwrap();
            assert!(q.dequeue(SimTime::from_millis(50 * k + 49)).is_some());
        }
        assert_eq!(q.stats().drops, 0);
    }

    #[test]
    fn tail_drop_at_the_limit() {
        let mut q = Codel::new(&params(), 2);
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_ok());
        assert!(
            q.enqueue(SimTime::ZERO, packet(false), 1).is_err(),
            "one leaving counts"
        );
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_ok());
        assert!(q.enqueue(SimTime::ZERO, packet(false), 0).is_err());
    }

    #[test]
    fn re_entry_soon_after_resumes_the_last_rate() {
        let mut q = Codel::new(&params(), 100_000);
        run(&mut q, 2, 400);
        // Drain (the last packet leaves the dropping state: nothing behind it).
        while q.len_packets() > 0 {
            q.dequeue(SimTime::from_millis(480));
        }
        q.dropped().clear();
        assert!(!q.vars.dropping);
        let last_cycle = q.vars.count - q.vars.lastcount;
        assert!(last_cycle > 1, "{last_cycle}");
        // Overloaded again well within 16 intervals of the last drop_next.
        let mut now_ms = 500;
        while !q.vars.dropping && now_ms < 2000 {
            for _ in 0..2 {
                q.enqueue(SimTime::from_millis(now_ms), packet(false), 0)
                    .unwrap();
            }
            q.dequeue(SimTime::from_millis(now_ms));
            now_ms += 1;
        }
        assert!(q.vars.dropping);
        assert_eq!(q.vars.count, last_cycle, "resumes at count − lastcount");
    }
}
