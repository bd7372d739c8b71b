//! Random Early Detection (spec `ip.md` §2): Floyd and Jacobson 1993 as ns-2's `Queue/RED`
//! implements it: an average queue with idle-time correction, a drop (or ECN mark) probability
//! rising between two thresholds, count-based spacing of the drops, the gentle region, byte mode.
//!
//! Decisions depend only on the arrival: the waiting queue it finds, the time, and how long the
//! link has been idle. So RED serves both link paths: the FIFO fast path asks [`Red::decide`]
//! with the queue it keeps itself; the scheduled path uses RED's own queue.

use crate::drops::DropReason;
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// RED parameters, resolved (no "automatic" values left).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds in packets (multiplied by `mean_packet_bytes` in byte-queue mode).
    pub min_th: f64,
    pub max_th: f64,
    /// EWMA weight of the average.
    pub w_q: f64,
    /// Probability at `max_th`.
    pub max_p: f64,
    /// Hard limit in packets (`limit · mean_packet_bytes` bytes in byte-queue mode): at most
    /// this many wait.
    pub limit_packets: u64,
    /// ns-2 `mean_pktsize_`.
    pub mean_packet_bytes: u64,
    /// ns-2 `wait_`: gaps between drops uniform on 1/pb … 2/pb packets instead of 1 … 1/pb.
    pub wait: bool,
    /// Seed 003's rule instead of `wait`'s (spec §2.5 `R_OVER_PB`): after each drop or mark
    /// (and on entering the region) draw `R ~ U(0, 1)`; the next packet marked is the first
    /// whose count reaches `floor(R / pb)`, `pb` taken at each arrival.
    pub r_over_pb: bool,
    /// ns-2 `gentle_`: probability rises from `max_p` to 1 between `max_th` and `2·max_th`.
    pub gentle: bool,
    /// ns-2 `bytes_`: the probability is scaled by the packet's size.
    pub bytes: bool,
    /// ns-2 `queue_in_bytes_`: average and thresholds in bytes.
    pub queue_in_bytes: bool,
    /// ns-2 `setbit_`: mark ECN-capable packets instead of dropping them early.
    pub mark: bool,
    /// With `mark`, also mark (not drop) ECN-capable packets while the average is above the
    /// top threshold: the 1993 paper's "mark every packet" for a marking gateway (spec §2.7
    /// OPTION `mark_above_maxth`). The hard limit still drops.
    pub mark_above_max_th: bool,
    /// Packets per second the link sends at `mean_packet_bytes` (ns-2 `ptc`), for the idle
    /// correction.
    pub packets_per_second: f64,
    /// ns-2's details: no early drop into a queue of one packet or less, and `count` restarts
    /// at 1 on the first arrival above `min_th` (off: the 1993 paper's counting).
    pub ns2_quirks: bool,
}

impl RedParams {
    /// ns-2's automatic `q_weight_ = −1`: `1 − exp(−1 / (10 · RTT · ptc))` with
    /// `RTT = max(0.1 s, 3 · (delay + 1/ptc))`.
    pub fn automatic_w_q(packets_per_second: f64, link_delay: SimDuration) -> f64 {
        let rtt = (3.0 * (link_delay.as_secs_f64() + 1.0 / packets_per_second)).max(0.1);
        1.0 - (-1.0 / (10.0 * rtt * packets_per_second)).exp()
    }

    /// ns-2.35's automatic `thresh_ = 0`: `max(5, packets in 5 ms / 2)`... as the code has it:
    /// `max(5, target_delay · ptc / 2)` with a target delay of 5 ms.
    pub fn automatic_min_th(packets_per_second: f64) -> f64 {
        (0.005 * packets_per_second / 2.0).max(5.0)
    }
}

/// RED's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub marks: u64,
}

#[derive(Debug)]
pub struct Red {
    params: RedParams,
    /// Thresholds and limit in the average's unit (packets or bytes).
    min_th: f64,
    max_th: f64,
    limit: u64,
    avg: f64,
    count: i64,
    count_bytes: u64,
    /// ns-2 `old`: the previous arrival found the average above `min_th`.
    above: bool,
    /// The `R` of the seed 003 rule, drawn after each drop or mark.
    r_draw: Option<f64>,
    rng: RngStream,
    stats: RedStats,
    /// The scheduled path's own queue.
    queue: VecDeque<Packet>,
    queued_bytes: u64,
    /// Scheduled path: when the transmitter found the queue empty.
    idle_since: Option<SimTime>,
}

impl Red {
    /// A new hard limit in packets from now on (`limit_packets`; in byte mode times the mean
    /// packet size).
    pub fn set_limit_packets(&mut self, limit_packets: u64) {
        self.params.limit_packets = limit_packets;
        self.limit = hard_limit(&self.params);
    }

    /// New parameters from now on (a scheduled `queue_params` event): the average, the count
    /// since the last drop and the idle time carry over. The unit of the average must stay
    /// (`queue_in_bytes`, `mean_packet_bytes`; the scenario refuses a change).
    pub fn set_params(&mut self, params: RedParams) {
        debug_assert_eq!(params.queue_in_bytes, self.params.queue_in_bytes);
        debug_assert_eq!(params.mean_packet_bytes, self.params.mean_packet_bytes);
        (self.min_th, self.max_th) = thresholds(&params);
        self.limit = hard_limit(&params);
        self.params = params;
    }

    pub fn new(params: RedParams, rng: RngStream) -> Self {
        let (min_th, max_th) = thresholds(&params);
        let limit = hard_limit(&params);
        Self {
            min_th,
            max_th,
            limit,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            above: false,
            r_draw: None,
            rng,
            stats: RedStats::default(),
            queue: VecDeque::new(),
            queued_bytes: 0,
            // ns-2 starts idle at time 0.
            idle_since: Some(SimTime::ZERO),
            params,
        }
    }

    pub fn params(&self) -> &RedParams {
        &self.params
    }
    pub fn stats(&self) -> &RedStats {
        &self.stats
    }
    /// The average queue (packets, or bytes in byte-queue mode).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The decision for `pkt` arriving at `at` to find `queued_packets` (`queued_bytes`) waiting
    /// on a link idle since `idle_since` (if it is idle). `Ok` admits it, possibly marked.
    pub fn decide(
        &mut self,
        at: SimTime,
        queued_packets: u64,
        queued_bytes: u64,
        idle_since: Option<SimTime>,
        pkt: &mut Packet,
    ) -> Result<(), DropReason> {
        let p = &self.params;
        let q = if p.queue_in_bytes {
            queued_bytes
        } else {
            queued_packets
        };
        // Average with idle-time correction: avg · (1 − w)^(m+1) + w · q.
        let m = idle_since.map_or(0, |t| {
            (p.packets_per_second * at.since(t).as_secs_f64()) as u64
        });
        let keep = 1.0 - p.w_q;
        let mut avg = self.avg;
        //= ns-2 estimator(): repeated multiplication (bit-equal to ns-2, unlike powi)
        for _ in 0..m {
            avg *= keep;
            if avg == 0.0 {
                break;
            }
        }
        self.avg = avg * keep + p.w_q * q as f64;
        let size = u64::from(pkt.size_bytes);
        self.count += 1;
        self.count_bytes += size;

        let mut verdict = Ok(());
        let top = if p.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        };
        let busy_enough = !p.ns2_quirks || q > 1;
        if self.avg >= self.min_th && busy_enough {
            if self.avg >= top {
                if p.mark && p.mark_above_max_th && pkt.ecn.ect {
                    pkt.ecn.ce = true;
                    self.stats.marks += 1;
                    self.count = 0;
                    self.count_bytes = 0;
                } else {
                    verdict = Err(DropReason::Forced);
                }
            } else if !self.above && p.ns2_quirks {
                // First arrival after crossing min_th (ns-2): start counting afresh.
                self.above = true;
                self.count = 1;
                self.count_bytes = size;
            } else {
                self.above = true;
                let pb = self.base_probability();
                let hit = if p.r_over_pb {
                    let r = *self.r_draw.get_or_insert_with(|| self.rng.uniform());
                    self.count as f64 >= (r / pb).floor()
                } else {
                    let pa = self.spacing(pb, size);
                    self.rng.uniform() <= pa
                };
                if hit {
                    self.r_draw = None;
                    self.count = 0;
                    self.count_bytes = 0;
                    if p.mark && pkt.ecn.ect {
                        pkt.ecn.ce = true;
                        self.stats.marks += 1;
                    } else {
                        verdict = Err(DropReason::Early);
                    }
                }
            }
        } else {
            self.above = false;
            if !p.ns2_quirks {
                // The paper: count is −1 below min_th, so the first arrival above counts 0.
                self.count = -1;
            }
        }
        if q >= self.limit {
            verdict = Err(DropReason::Overflow);
        }
        match verdict {
            Err(DropReason::Early) => self.stats.early_drops += 1,
            Err(reason) => {
                // A forced drop (the arrival itself, ns-2's default victim) restarts the count.
                self.count = 0;
                self.count_bytes = 0;
                match reason {
                    DropReason::Overflow => self.stats.overflow_drops += 1,
                    _ => self.stats.forced_drops += 1,
                }
            }
            Ok(()) => {}
        }
        verdict
    }

    /// Spec §2.4: linear between the thresholds, then (gentle) from `max_p` to 1 at `2·max_th`.
    fn base_probability(&self) -> f64 {
        let p = &self.params;
        let pb = if self.avg >= self.max_th {
            //= ns-2 calculate_p_new(): v_c · avg + v_d, v_c = (1 − max_p)/th_max, v_d = 2·max_p − 1
            (1.0 - p.max_p) / self.max_th * self.avg + (2.0 * p.max_p - 1.0)
        } else {
            //= ns-2: (v_a · avg + v_b) · max_p, v_a = 1/(th_max − th_min), v_b = −th_min · v_a
            let v_a = 1.0 / (self.max_th - self.min_th);
            (v_a * self.avg - self.min_th * v_a) * p.max_p
        };
        pb.min(1.0)
    }

    /// Spec §2.5 (ns-2 `modify_p`): the probability given the arrivals since the last drop.
    fn spacing(&self, pb: f64, size: u64) -> f64 {
        let p = &self.params;
        let count = if p.bytes {
            (self.count_bytes / p.mean_packet_bytes) as f64
        } else {
            self.count as f64
        };
        let cp = count * pb;
        let mut pa = if p.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        };
        if p.bytes && pa < 1.0 {
            pa = pa * size as f64 / p.mean_packet_bytes as f64;
        }
        pa.min(1.0)
    }

    // ---- the scheduled path's own queue --------------------------------------------------

    /// Scheduled path: decides and queues `pkt` arriving at `now`; `also_waiting` (packets,
    /// bytes) is counted as queued besides the queue.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        also_waiting: (u64, u64),
    ) -> Result<(), (Packet, DropReason)> {
        let queued = self.queue.len() as u64 + also_waiting.0;
        let bytes = self.queued_bytes + also_waiting.1;
        let idle = if queued == 0 { self.idle_since } else { None };
        match self.decide(now, queued, bytes, idle, &mut pkt) {
            Ok(()) => {
                self.idle_since = None;
                self.queued_bytes += u64::from(pkt.size_bytes);
                self.queue.push_back(pkt);
                Ok(())
            }
            Err(reason) => Err((pkt, reason)),
        }
    }

    /// Scheduled path: the transmitter is free at `now`; an empty queue starts an idle period.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let pkt = self.queue.pop_front();
        match &pkt {
            Some(p) => self.queued_bytes -= u64::from(p.size_bytes),
            None => self.idle_since = Some(now),
        }
        pkt
    }

    pub fn len_packets(&self) -> u64 {
        self.queue.len() as u64
    }

    pub fn len_bytes(&self) -> u64 {
        self.queued_bytes
    }
}

/// The hard limit in the average's unit: packets, or bytes in byte-queue mode.
/// The thresholds in the average's unit (packets, or bytes with `queue_in_bytes`).
fn thresholds(params: &RedParams) -> (f64, f64) {
    let unit = if params.queue_in_bytes {
        params.mean_packet_bytes as f64
    } else {
        1.0
    };
    (params.min_th * unit, params.max_th * unit)
}

fn hard_limit(params: &RedParams) -> u64 {
    if params.queue_in_bytes {
        params.limit_packets * params.mean_packet_bytes
    } else {
        params.limit_packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::rng::StreamFactory;
    use congsim_core::wire::TcpHeader;
    use congsim_core::{FlowId, NodeId};

    fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.002,
            max_p: 0.1,
            limit_packets: 50,
            mean_packet_bytes: 500,
            wait: true,
            r_over_pb: false,
            gentle: false,
            bytes: false,
            queue_in_bytes: false,
            mark: false,
            mark_above_max_th: false,
            packets_per_second: 2500.0,
            ns2_quirks: true,
        }
    }

    fn red(p: RedParams) -> Red {
        Red::new(p, StreamFactory::new(1, 0).stream("red"))
    }

    fn packet(ect: bool) -> Packet {
        let mut p = Packet::tcp_segment(FlowId(0), NodeId(1), 500, TcpHeader::data(0, 460));
        p.ecn.ect = ect;
        p
    }

    /// Arrivals between drops over 20 000 arrivals that all find 10 packets queued.
    fn drop_gaps(r: &mut Red) -> Vec<u64> {
        let (mut gaps, mut since) = (Vec::new(), 0u64);
        for _ in 0..20_000 {
            since += 1;
            if r.decide(SimTime::ZERO, 10, 0, None, &mut packet(false))
                .is_err()
            {
                gaps.push(since);
                since = 0;
            }
        }
        gaps
    }

    #[test]
    fn average_follows_the_ewma_and_decays_over_idle_time() {
        let mut r = red(params());
        let t = SimTime::from_secs(1);
        for _ in 0..100 {
            let _ = r.decide(t, 3, 0, None, &mut packet(false));
        }
        let expected = 3.0 * (1.0 - 0.998f64.powi(100));
        assert!((r.average() - expected).abs() < 1e-12);
        // 10 ms idle at 2500 packets/s: m = 25, so avg · 0.998^26 + w · 0.
        let before = r.average();
        let idle = t + SimDuration::from_millis(10);
        let _ = r.decide(idle, 0, 0, Some(t), &mut packet(false));
        assert!((r.average() - before * 0.998f64.powi(26)).abs() < 1e-12);
    }

    /// With w_q = 1 the average is the queue itself, so pb is constant and the spacing rule
    /// alone decides: gaps uniform on [1/pb, 2/pb] with `wait`, on [1, 1/pb] without.
    #[test]
    fn drops_are_spaced_by_the_count_rule() {
        for wait in [true, false] {
            let mut r = red(RedParams {
                w_q: 1.0,
                wait,
                ..params()
            });
            // q = 10: pb = 0.1 · (10 − 5)/(15 − 5) = 0.05.
            let gaps = drop_gaps(&mut r);
            let (lo, hi) = if wait { (20, 40) } else { (1, 20) };
            // The first drop follows the first crossing of min_th (count restarts at 1).
            assert!(
                gaps[1..].iter().all(|g| (lo..=hi).contains(g)),
                "{wait}: {gaps:?}"
            );
            let mean = gaps[1..].iter().sum::<u64>() as f64 / (gaps.len() - 1) as f64;
            let expected = if wait { 30.0 } else { 10.5 };
            assert!(
                (mean - expected).abs() < 1.5,
                "wait = {wait}: mean gap {mean}"
            );
            assert_eq!(r.stats().early_drops, gaps.len() as u64);
        }
    }

    #[test]
    fn thresholds_gentle_region_and_hard_limit() {
        let decide = |p: RedParams, q: u64| {
            let mut r = red(RedParams { w_q: 1.0, ..p });
            // Two arrivals: the first crosses min_th, the second is judged.
            let _ = r.decide(SimTime::ZERO, q, 0, None, &mut packet(false));
            (
                r.base_probability(),
                r.decide(SimTime::ZERO, q, 0, None, &mut packet(false)),
            )
        };
        assert_eq!(decide(params(), 15).1, Err(DropReason::Forced));
        let gentle = RedParams {
            gentle: true,
            ..params()
        };
        // Gentle: between max_th and 2·max_th the probability rises from max_p to 1.
        let (pb, _) = decide(gentle.clone(), 20);
        assert!((pb - (0.1 + 0.9 * 5.0 / 15.0)).abs() < 1e-12);
        assert_eq!(decide(gentle, 30).1, Err(DropReason::Forced));
        // The hard limit overrides everything.
        assert_eq!(decide(params(), 50).1, Err(DropReason::Overflow));
        // ns-2 never drops early into a queue of one packet.
        let mut r = red(RedParams {
            w_q: 1.0,
            ..params()
        });
        r.avg = 100.0;
        assert_eq!(
            r.decide(SimTime::ZERO, 1, 0, None, &mut packet(false)),
            Ok(())
        );
    }

    #[test]
    fn marking_red_sets_ce_on_ect_packets_and_drops_the_others() {
        let mut r = red(RedParams {
            w_q: 1.0,
            wait: false,
            max_p: 1.0,
            mark: true,
            ..params()
        });
        let _ = r.decide(SimTime::ZERO, 14, 0, None, &mut packet(true));
        // pb = 0.9, count 1: pa = 0.9 / (1 − 0.9) ≥ 1: certain.
        let mut ect = packet(true);
        assert_eq!(r.decide(SimTime::ZERO, 14, 0, None, &mut ect), Ok(()));
        assert!(ect.ecn.ce);
        // A packet that is not ECN-capable is dropped where an ECT one is marked.
        assert_eq!(
            r.decide(SimTime::ZERO, 14, 0, None, &mut packet(false)),
            Err(DropReason::Early)
        );
        assert_eq!((r.stats().marks, r.stats().early_drops), (1, 1));
        // Forced drops are never marks.
        assert_eq!(
            r.decide(SimTime::ZERO, 15, 0, None, &mut packet(true)),
            Err(DropReason::Forced)
        );
    }

    #[test]
    fn automatic_parameters_follow_ns2() {
        // 10 Mbps, 500-byte packets: ptc = 2500/s; delay 10 ms: RTT = max(0.1, 3 · 0.0104).
        let w = RedParams::automatic_w_q(2500.0, SimDuration::from_millis(10));
        assert!((w - (1.0 - (-1.0f64 / (10.0 * 0.1 * 2500.0)).exp())).abs() < 1e-15);
        assert_eq!(RedParams::automatic_min_th(2500.0), 6.25);
        assert_eq!(RedParams::automatic_min_th(1000.0), 5.0);
    }

    #[test]
    fn a_marking_gateway_can_mark_above_max_th_too() {
        let mut r = red(RedParams {
            w_q: 1.0,
            mark: true,
            mark_above_max_th: true,
            ..params()
        });
        let mut ect = packet(true);
        assert_eq!(r.decide(SimTime::ZERO, 20, 0, None, &mut ect), Ok(()));
        assert!(ect.ecn.ce);
        assert_eq!(
            r.decide(SimTime::ZERO, 20, 0, None, &mut packet(false)),
            Err(DropReason::Forced)
        );
        assert_eq!(
            r.decide(SimTime::ZERO, 50, 0, None, &mut packet(true)),
            Err(DropReason::Overflow),
            "the buffer limit still drops"
        );
    }

    /// Seed 003's rule: with pb fixed, the gap after each drop is max(1, floor(R / pb)) arrivals
    /// for a uniform R: nearly uniform on 1 … 1/pb, like the 1993 paper's formulation.
    #[test]
    fn seed003_r_over_pb_spacing() {
        let mut r = red(RedParams {
            w_q: 1.0,
            r_over_pb: true,
            ..params()
        });
        let gaps = drop_gaps(&mut r);
        // pb = 0.05: floor(R / pb) is uniform on 0 … 19, so gaps lie in 1 … 19 with mean
        // (2 + 2 + 3 + … + 19) / 20 = 9.55 (the first gap follows the crossing of min_th).
        assert!(gaps[1..].iter().all(|g| (1..=19).contains(g)), "{gaps:?}");
        let mean = gaps[1..].iter().sum::<u64>() as f64 / (gaps.len() - 1) as f64;
        assert!((mean - 9.55).abs() < 0.5, "{mean}");
    }
}
