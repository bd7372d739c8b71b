//! Constant-bit-rate UDP sources (spec `ip.md` §5.4), as a sans-IO emission schedule: the caller
//! asks for the next emission, sends its packets, and asks again.
//!
//! Emissions sit on a grid `t0 + k·Δ` (exact integer picoseconds, no drift): one packet per slot
//! with `Δ = T = 8P/R` (shaped), the same delayed by `U(0, T)` each (fluctuation), or `n`
//! packets back to back every `n·T` (burst). An on/off schedule keeps the slots whose grid time
//! falls inside an on period. A random on/off schedule (ns-2's `Application/Traffic/Exponential`
//! and `/Pareto`) sends bursts of packets `T` apart, each burst's length and the idle time
//! before it drawn from the source's stream.

use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;

/// When the packets of a CBR source leave its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CbrPattern {
    /// A hardware shaper: packet k exactly at `t0 + k·T`.
    Shaped,
    /// Each packet delayed by an independent `U(0, T)` (seed 004's "fluctuation").
    Fluctuation,
    /// `packets` back to back every `packets · T` (seed 004's burst: 15 every 10 ms).
    Burst { packets: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct CbrConfig {
    /// Bytes on the wire per packet.
    pub packet_bytes: u32,
    pub rate: Rate,
    pub pattern: CbrPattern,
    /// The grid's origin `t0`.
    pub phase: SimDuration,
    pub schedule: CbrSchedule,
}

/// When a source is on: slots whose grid time falls in an on period are sent.
#[derive(Clone, Debug, PartialEq)]
pub enum CbrSchedule {
    Always,
    /// On periods `[start, stop)`, sorted and disjoint.
    Periods(Vec<(SimTime, SimTime)>),
    /// On for `on`, off for `off`, repeating from `start` (seed 001's VBR background: y ms on,
    /// y ms off from t = 2 ms).
    SquareWave {
        start: SimTime,
        on: SimDuration,
        off: SimDuration,
    },
    /// Bursts with random on and off times from `start` until `stop`, as ns-2's
    /// exponential and Pareto on/off sources: a burst is `max(1, round(on / T))` packets `T`
    /// apart, and `T + off` separates a burst's last packet from the next burst's first (the
    /// first packet leaves `T + off` after `start`). The grid origin (`phase`) is not used.
    OnOff {
        law: OnOffLaw,
        on_mean: SimDuration,
        off_mean: SimDuration,
        start: SimTime,
        stop: SimTime,
    },
}

/// The law of an on/off source's on and off times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnOffLaw {
    Exponential,
    /// Pareto with this shape (> 1), scaled to the mean: `mean · (shape − 1) / shape` is the
    /// minimum (ns-2's `Application/Traffic/Pareto`).
    Pareto {
        shape: f64,
    },
}

impl OnOffLaw {
    /// One draw of a duration with mean `mean`, at most `limit`.
    pub fn draw(self, mean: SimDuration, limit: SimDuration, rng: &mut RngStream) -> SimDuration {
        // In (0, 1]: the logarithm and the power stay finite.
        let u = 1.0 - rng.uniform();
        let mean_ps = mean.as_ps() as f64;
        let ps = match self {
            OnOffLaw::Exponential => -mean_ps * u.ln(),
            OnOffLaw::Pareto { shape } => mean_ps * (shape - 1.0) / shape / u.powf(1.0 / shape),
        };
        // A heavy tail can pass any horizon: nothing past `limit` changes what is sent.
        SimDuration::from_ps(ps.min(limit.as_ps() as f64) as u64)
    }
}

/// Counters of a source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CbrStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
}

pub struct CbrSource {
    cfg: CbrConfig,
    /// Picoseconds·bps of one slot: the slot time is `t0 + k · slot_bits · 10^12 / bps`.
    slot_bits: u128,
    packets_per_slot: u32,
    next_slot: u64,
    /// The on period the schedule is in or before (`Periods`).
    period_index: usize,
    /// Packets left in the current burst (`OnOff`).
    burst_left: u64,
    rng: RngStream,
    stats: CbrStats,
}

impl CbrSource {
    pub fn new(mut cfg: CbrConfig, rng: RngStream) -> Self {
        let packets_per_slot = match cfg.pattern {
            CbrPattern::Burst { packets } => packets.max(1),
            CbrPattern::Shaped | CbrPattern::Fluctuation => 1,
        };
        // An on/off source's first burst starts one interval (and an off time) after `start`:
        // slot 1 of a grid from `start`.
        let next_slot = match cfg.schedule {
            CbrSchedule::OnOff { start, .. } => {
                cfg.phase = start.since(SimTime::ZERO);
                1
            }
            _ => 0,
        };
        Self {
            slot_bits: u128::from(cfg.packet_bytes) * 8 * u128::from(packets_per_slot),
            packets_per_slot,
            next_slot,
            period_index: 0,
            burst_left: 0,
            rng,
            stats: CbrStats::default(),
            cfg,
        }
    }

    pub fn config(&self) -> &CbrConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &CbrStats {
        &self.stats
    }

    /// From the next emission on (the one already returned keeps its time), packets leave at
    /// `rate` on a grid starting at that emission's slot, or at `now` if that is later (a
    /// scheduled event).
    pub fn set_rate(&mut self, now: SimTime, rate: Rate) {
        let origin = self.slot_time(self.next_slot).max(now);
        self.cfg.phase = origin.since(SimTime::ZERO);
        self.cfg.rate = rate;
        self.next_slot = 0;
    }

    /// The grid time of slot `k`.
    fn slot_time(&self, k: u64) -> SimTime {
        let ps =
            u128::from(k) * self.slot_bits * 1_000_000_000_000 / u128::from(self.cfg.rate.bps());
        SimTime::ZERO + self.cfg.phase + SimDuration::from_ps(ps as u64)
    }

    /// The first slot whose grid time is at or after `t`.
    fn first_slot_from(&self, t: SimTime) -> u64 {
        let origin = SimTime::ZERO + self.cfg.phase;
        if t <= origin {
            return 0;
        }
        let offset = u128::from(t.since(origin).as_ps()) * u128::from(self.cfg.rate.bps());
        let per_slot = self.slot_bits * 1_000_000_000_000;
        offset.div_ceil(per_slot) as u64
    }

    /// The on period `[start, stop)` containing or following `t`; `None` once the schedule has
    /// ended.
    fn on_period_from(&mut self, t: SimTime) -> Option<(SimTime, SimTime)> {
        match &self.cfg.schedule {
            CbrSchedule::Always => Some((SimTime::ZERO, SimTime::MAX)),
            CbrSchedule::Periods(periods) => {
                while periods
                    .get(self.period_index)
                    .is_some_and(|&(_, stop)| stop <= t)
                {
                    self.period_index += 1;
                }
                periods.get(self.period_index).copied()
            }
            CbrSchedule::OnOff { .. } => unreachable!("on/off sources have their own path"),
            &CbrSchedule::SquareWave { start, on, off } => {
                if t < start {
                    return Some((start, start + on));
                }
                let cycle = (on + off).as_ps();
                let k = t.since(start).as_ps() / cycle;
                let begin = start + SimDuration::from_ps(k * cycle);
                if t < begin + on {
                    Some((begin, begin + on))
                } else {
                    let next = begin + SimDuration::from_ps(cycle);
                    Some((next, next + on))
                }
            }
        }
    }

    /// The next emission: when, and how many packets leave back to back. `None` once the
    /// schedule has ended. Each call consumes the emission it returns.
    pub fn next_emission(&mut self) -> Option<(SimTime, u32)> {
        if let CbrSchedule::OnOff {
            law,
            on_mean,
            off_mean,
            start,
            stop,
        } = self.cfg.schedule
        {
            if self.burst_left == 0 {
                // ns-2's order: the burst's length, then the idle time before it.
                let horizon = stop.since(start);
                let on = law.draw(on_mean, horizon, &mut self.rng);
                let off = law.draw(off_mean, horizon, &mut self.rng);
                let interval = self.slot_time(1).since(self.slot_time(0));
                self.burst_left =
                    ((on.as_ps() as f64 / interval.as_ps().max(1) as f64 + 0.5) as u64).max(1);
                let origin = (self.slot_time(self.next_slot) + off).min(stop);
                self.cfg.phase = origin.since(SimTime::ZERO);
                self.next_slot = 0;
            }
            let t = self.slot_time(self.next_slot);
            if t >= stop {
                return None;
            }
            self.burst_left -= 1;
            return Some(self.emit(t));
        }
        let mut t = self.slot_time(self.next_slot);
        // Skip to the first slot inside an on period (periods shorter than a slot are skipped).
        loop {
            let (start, stop) = self.on_period_from(t)?;
            if t < start {
                self.next_slot = self.first_slot_from(start);
                t = self.slot_time(self.next_slot);
            }
            if t < stop {
                break;
            }
        }
        if self.cfg.pattern == CbrPattern::Fluctuation {
            let interval = self.slot_time(self.next_slot + 1).since(t).as_ps();
            t += SimDuration::from_ps(self.rng.below(interval.max(1)));
        }
        Some(self.emit(t))
    }

    /// Counts the emission of the current slot at `t` and moves to the next slot.
    fn emit(&mut self, t: SimTime) -> (SimTime, u32) {
        self.next_slot += 1;
        let n = self.packets_per_slot;
        self.stats.packets_sent += u64::from(n);
        self.stats.bytes_sent += u64::from(n) * u64::from(self.cfg.packet_bytes);
        (t, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::rng::StreamFactory;

    fn source(pattern: CbrPattern, schedule: CbrSchedule) -> CbrSource {
        CbrSource::new(
            CbrConfig {
                packet_bytes: 500,
                rate: Rate::from_bps(6_000_000).unwrap(),
                pattern,
                phase: SimDuration::ZERO,
                schedule,
            },
            StreamFactory::new(1, 0).stream("cbr"),
        )
    }

    fn emissions(s: &mut CbrSource, until: SimTime) -> Vec<(SimTime, u32)> {
        std::iter::from_fn(|| s.next_emission())
            .take_while(|&(t, _)| t < until)
            .collect()
    }

    #[test]
    fn shaped_packets_sit_on_an_exact_grid() {
        let mut s = source(CbrPattern::Shaped, CbrSchedule::Always);
        let e = emissions(&mut s, SimTime::from_secs(1));
        // T = 4000 bits / 6 Mbps = 666.666… µs: 1500 packets per second, no drift.
        assert_eq!(e.len(), 1500);
        assert_eq!(e[1].0, SimTime::ZERO + SimDuration::from_ps(666_666_666));
        assert_eq!(e[3].0, SimTime::from_millis(2));
        assert_eq!(
            e[1499].0,
            SimTime::ZERO + SimDuration::from_ps(999_333_333_333)
        );
    }

    #[test]
    fn fluctuation_delays_each_packet_within_one_interval_in_order() {
        let mut s = source(CbrPattern::Fluctuation, CbrSchedule::Always);
        let e = emissions(&mut s, SimTime::from_secs(1));
        let period = 666_666_666u64;
        for (k, &(t, n)) in e.iter().enumerate() {
            let grid = (k as u128 * 4000 * 1_000_000_000_000 / 6_000_000) as u64;
            assert!(
                t.as_ps() >= grid && t.as_ps() < grid + period + 1,
                "packet {k}"
            );
            assert_eq!(n, 1);
        }
        assert!(e.windows(2).all(|w| w[0].0 <= w[1].0), "order kept");
        assert!(
            e.iter().any(|&(t, _)| t.as_ps() % period > 1000),
            "actually delayed"
        );
    }

    #[test]
    fn bursts_of_15_every_10_ms_keep_the_rate() {
        let mut s = source(CbrPattern::Burst { packets: 15 }, CbrSchedule::Always);
        let e = emissions(&mut s, SimTime::from_secs(1));
        assert_eq!(e.len(), 100);
        assert!(e.iter().all(|&(_, n)| n == 15));
        assert_eq!(e[1].0, SimTime::from_millis(10));
        // 6 Mbps: 1500 packets of 500 bytes per second.
        assert_eq!(e.iter().map(|&(_, n)| u64::from(n)).sum::<u64>(), 1500);
    }

    #[test]
    fn on_off_schedule_keeps_only_slots_inside_on_periods() {
        let on = vec![
            (SimTime::ZERO, SimTime::from_millis(6)),
            (SimTime::from_millis(14), SimTime::from_millis(20)),
        ];
        let mut s = source(CbrPattern::Shaped, CbrSchedule::Periods(on));
        let e: Vec<(SimTime, u32)> = std::iter::from_fn(|| s.next_emission()).collect();
        // 9 slots in [0, 6 ms) and 9 in [14, 20 ms); then the schedule ends.
        assert_eq!(e.len(), 18);
        assert_eq!(e[8].0, SimTime::ZERO + SimDuration::from_ps(5_333_333_333));
        assert_eq!(e[9].0, SimTime::ZERO + SimDuration::from_ps(14_000_000_000));
        assert!(e.iter().all(|&(t, _)| t < SimTime::from_millis(20)));
    }

    #[test]
    fn square_wave_switches_on_and_off_from_its_start() {
        // On 10 ms, off 10 ms from 2 ms: at 6 Mbps, 15 slots of 666.67 µs per on period.
        let wave = CbrSchedule::SquareWave {
            start: SimTime::from_millis(2),
            on: SimDuration::from_millis(10),
            off: SimDuration::from_millis(10),
        };
        let mut s = source(CbrPattern::Shaped, wave);
        let e = emissions(&mut s, SimTime::from_millis(42));
        assert_eq!(e.len(), 30);
        assert_eq!(e[0].0, SimTime::from_millis(2));
        assert!(e[..15].iter().all(|&(t, _)| t < SimTime::from_millis(12)));
        assert_eq!(e[15].0, SimTime::from_millis(22));
    }

    #[test]
    fn a_new_rate_takes_over_after_the_emission_already_due() {
        // 500-byte packets at 6 Mb/s: one every 666.7 µs; at 3 Mb/s, every 1333.3 µs.
        let mut src = source(CbrPattern::Shaped, CbrSchedule::Always);
        let times: Vec<u64> = (0..3)
            .map(|_| src.next_emission().unwrap().0.as_ps())
            .collect();
        assert_eq!(times, [0, 666_666_666, 1_333_333_333]);
        src.set_rate(
            SimTime::from_ps(1_400_000_000),
            Rate::from_bps(3_000_000).unwrap(),
        );
        let next: Vec<u64> = (0..3)
            .map(|_| src.next_emission().unwrap().0.as_ps())
            .collect();
        // Slot 3 of the old grid (2000 µs) starts the new one.
        assert_eq!(next, [2_000_000_000, 3_333_333_333, 4_666_666_666]);
    }

    /// The bursts of an on/off source: runs of packets exactly `T` apart, separated by gaps of
    /// more than `T`.
    fn bursts(e: &[(SimTime, u32)], interval_ps: u64) -> Vec<usize> {
        let mut lengths = vec![1];
        for w in e.windows(2) {
            let gap = w[1].0.since(w[0].0).as_ps();
            assert!(gap >= interval_ps - 1, "packets at least T apart");
            if gap <= interval_ps + 1 {
                *lengths.last_mut().unwrap() += 1;
            } else {
                lengths.push(1);
            }
        }
        lengths
    }

    #[test]
    fn on_off_sources_send_bursts_whose_mean_lengths_follow_the_law() {
        // 6 Mb/s with 500-byte packets: T = 666.7 µs; on 20 ms is 30 packets on average; off 20
        // ms. Over 200 s the source is on about half the time.
        let (start, stop) = (SimTime::from_secs(1), SimTime::from_secs(201));
        for law in [OnOffLaw::Exponential, OnOffLaw::Pareto { shape: 2.5 }] {
            let schedule = CbrSchedule::OnOff {
                law,
                on_mean: SimDuration::from_millis(20),
                off_mean: SimDuration::from_millis(20),
                start,
                stop,
            };
            let mut s = source(CbrPattern::Shaped, schedule.clone());
            let e: Vec<(SimTime, u32)> = std::iter::from_fn(|| s.next_emission()).collect();
            assert!(
                e[0].0 >= start + SimDuration::from_ps(666_666_666),
                "{law:?}"
            );
            assert!(e.iter().all(|&(t, n)| t < stop && n == 1));
            let lengths = bursts(&e, 666_666_667);
            let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
            assert!((mean - 30.0).abs() < 3.0, "{law:?}: mean burst {mean}");
            // On 20 ms of every 40.7 (the burst, T, the off time): about 49 % of 300 000.
            let share = e.len() as f64 / 300_000.0;
            assert!((share - 0.49).abs() < 0.05, "{law:?}: {share}");
            // The same stream gives the same bursts.
            let mut again = source(CbrPattern::Shaped, schedule);
            let e2: Vec<(SimTime, u32)> = std::iter::from_fn(|| again.next_emission()).collect();
            assert_eq!(e, e2);
        }
        // Pareto's bursts are never shorter than its minimum, 20 ms · 1.5 / 2.5 = 12 ms: 18
        // packets.
        let mut s = source(
            CbrPattern::Shaped,
            CbrSchedule::OnOff {
                law: OnOffLaw::Pareto { shape: 2.5 },
                on_mean: SimDuration::from_millis(20),
                off_mean: SimDuration::from_millis(20),
                start,
                stop,
            },
        );
        let e: Vec<(SimTime, u32)> = std::iter::from_fn(|| s.next_emission()).collect();
        let lengths = bursts(&e, 666_666_667);
        assert!(
            lengths[..lengths.len() - 1].iter().all(|&n| n >= 18),
            "{lengths:?}"
        );
    }
}
