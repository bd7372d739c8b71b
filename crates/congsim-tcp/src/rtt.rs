//! RTT estimation and the retransmission timeout (spec `tcp.md` §3.6).
//!
//! Jacobson/Karels in integer ticks with 3 fractional bits for `srtt` and 2 for `rttvar`,
//! exactly as ns-2 `rtt_update()` and 4.4BSD `tcp_xmit_timer()` compute it.

use crate::config::RtoBounds;
use congsim_core::time::SimDuration;

/// 4.3BSD `tcp_backoff[]`: multiplier per retransmit shift.
const BSD_BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// 8 · srtt, in ticks; 0 = no estimate (first sample re-initialises).
    srtt8: i64,
    /// 4 · rttvar, in ticks.
    rttvar4: i64,
    /// `floor(srtt + 4·rttvar)` in ticks once a sample exists (ns-2 `t_rtxcur_ / tcp_tick_`).
    rto_base_ticks: Option<i64>,
    /// ns-2 `t_backoff_` multiplier (1, 2, 4, …).
    backoff: u32,
    /// BSD `t_rxtshift`.
    shift: usize,
    tick: SimDuration,
    initial_rto: SimDuration,
    bounds: RtoBounds,
    /// `rto()` as of the last change of the estimate or the back-off: senders re-arm their
    /// timer on every ACK, the estimate changes once per round trip.
    rto: SimDuration,
}

impl RttEstimator {
    pub fn new(tick: SimDuration, initial_rto: SimDuration, bounds: RtoBounds) -> Self {
        assert!(!tick.is_zero(), "the TCP tick must be positive");
        let mut estimator = Self {
            srtt8: 0,
            rttvar4: 0,
            rto_base_ticks: None,
            backoff: 1,
            shift: 0,
            tick,
            initial_rto,
            bounds,
            rto: SimDuration::ZERO,
        };
        estimator.rto = estimator.compute_rto();
        estimator
    }

    /// Feeds one RTT sample of `ticks` (≥ 1). The BSD flavour shifts every sample but the one
    /// that (re-)initialises the estimator to origin 0 (`rtt − 1`), as `tcp_xmit_timer` does.
    pub fn sample(&mut self, ticks: i64) {
        let m = ticks.max(1);
        if self.srtt8 == 0 {
            //= tcp.md §3.6: first sample: srtt = m, rttvar = m/2 → RTO = 3m
            self.srtt8 = m << 3;
            self.rttvar4 = m << 1;
        } else {
            let m = match self.bounds {
                RtoBounds::Bsd { .. } => m - 1,
                RtoBounds::Ns2 { .. } => m,
            };
            let mut delta = m - (self.srtt8 >> 3);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        }
        self.rto_base_ticks = Some((self.srtt8 + (self.rttvar4 << 3)) >> 3);
        // A valid sample ends back-off (ns-2 t_backoff_ = 1; BSD t_rxtshift = 0).
        self.backoff = 1;
        self.shift = 0;
        self.rto = self.compute_rto();
    }

    /// Doubles the back-off after a timeout and, once backed off far enough, folds `srtt`
    /// into `rttvar` so that the next sample re-initialises the estimator.
    pub fn back_off(&mut self) {
        let fold = match self.bounds {
            RtoBounds::Ns2 {
                clamp_before_backoff,
                max_rto,
                ..
            } => {
                //= ns-2 rtt_backoff(): if (t_backoff_ < 64 || (rfc2988_ && rtt_timeout() < maxrto_))
                if self.backoff < 64 || (clamp_before_backoff && self.rto() < max_rto) {
                    self.backoff = self.backoff.saturating_mul(2);
                }
                self.backoff > 8
            }
            RtoBounds::Bsd { .. } => {
                // The connection would be dropped after 12 shifts; the simulator keeps going at
                // the last table entry instead.
                self.shift = (self.shift + 1).min(BSD_BACKOFF.len() - 1);
                self.shift > 3
            }
        };
        if fold {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
        self.rto = self.compute_rto();
    }

    /// Ends the back-off without a sample (ns-2 NewReno on a partial ACK covering the timed
    /// segment).
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
        self.shift = 0;
        self.rto = self.compute_rto();
    }

    /// The current back-off multiplier.
    pub fn backoff(&self) -> u32 {
        match self.bounds {
            RtoBounds::Ns2 { .. } => self.backoff,
            RtoBounds::Bsd { .. } => BSD_BACKOFF[self.shift],
        }
    }

    /// Smoothed RTT in seconds (0 before the first sample).
    pub fn srtt_secs(&self) -> f64 {
        self.srtt8 as f64 / 8.0 * self.tick.as_secs_f64()
    }

    /// RTT variance estimate in seconds.
    pub fn rttvar_secs(&self) -> f64 {
        self.rttvar4 as f64 / 4.0 * self.tick.as_secs_f64()
    }

    /// The BSD timer value in ticks: `clamp(rto_base · backoff, t_rttmin, max)`.
    pub fn rto_ticks(&self) -> u32 {
        let (min_ticks, max_ticks) = match self.bounds {
            RtoBounds::Bsd {
                min_ticks,
                max_ticks,
            } => (min_ticks, max_ticks),
            RtoBounds::Ns2 { .. } => (2, u32::MAX),
        };
        let base = self
            .rto_base_ticks
            .unwrap_or_else(|| (self.initial_rto.as_ps() / self.tick.as_ps()).max(1) as i64);
        let value = base.max(0) as u64 * u64::from(self.backoff());
        value.clamp(u64::from(min_ticks), u64::from(max_ticks)) as u32
    }

    /// The RTO to arm an exact-time timer with.
    pub fn rto(&self) -> SimDuration {
        self.rto
    }

    fn compute_rto(&self) -> SimDuration {
        match self.bounds {
            RtoBounds::Bsd { .. } => self.tick.mul(u64::from(self.rto_ticks())),
            RtoBounds::Ns2 {
                min_rto,
                clamp_before_backoff,
                max_rto,
            } => {
                //= ns-2 rtt_timeout()
                let base = match self.rto_base_ticks {
                    Some(t) => self.tick.mul(t.max(0) as u64),
                    None => self.initial_rto,
                };
                let backoff = u64::from(self.backoff);
                let mut timeout = if clamp_before_backoff {
                    base.max(min_rto).mul(backoff)
                } else {
                    base.mul(backoff).max(min_rto)
                };
                timeout = timeout.min(max_rto);
                timeout.max(self.tick.mul(2))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G100: SimDuration = SimDuration::from_millis(100);

    fn ns2_2000() -> RttEstimator {
        RttEstimator::new(
            G100,
            SimDuration::from_secs(6),
            RtoBounds::Ns2 {
                min_rto: SimDuration::ZERO,
                clamp_before_backoff: false,
                max_rto: SimDuration::from_secs(64),
            },
        )
    }

    #[test]
    fn initial_rto_before_any_sample() {
        assert_eq!(ns2_2000().rto(), SimDuration::from_secs(6));
    }

    #[test]
    fn first_sample_gives_three_times_rtt() {
        let mut e = ns2_2000();
        e.sample(2); // 200 ms
        assert_eq!(e.rto(), SimDuration::from_millis(600));
    }

    #[test]
    fn later_samples_follow_the_integer_filter() {
        let mut e = ns2_2000();
        e.sample(2); // srtt8 = 16, rttvar4 = 4
        e.sample(4); // d = 2: srtt8 = 18; |d| - 1 = 1: rttvar4 = 5 → (18 + 40) >> 3 = 7
        assert_eq!(e.rto(), SimDuration::from_millis(700));
        e.sample(1); // d = 1 - 2 = -1: srtt8 = 17; 1 - 1 = 0: rttvar4 = 5 → (17 + 40) >> 3 = 7
        assert_eq!(e.rto(), SimDuration::from_millis(700));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = ns2_2000();
        e.sample(2);
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_millis(1200));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_millis(2400));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.backoff(), 64);
        // Folding srtt into rttvar (back-off > 8) leaves the RTO base alone until the next sample.
        assert_eq!(e.rto(), SimDuration::from_millis(600 * 64));
        // A valid sample resets the back-off.
        e.sample(2);
        assert_eq!(e.backoff(), 1);
    }

    #[test]
    fn rto_never_below_two_ticks() {
        let mut e = ns2_2000();
        e.sample(1); // 3 ticks
        e.sample(1);
        e.sample(1);
        for _ in 0..20 {
            e.sample(1);
        }
        assert!(e.rto() >= SimDuration::from_millis(200));
    }

    #[test]
    fn ns2_2002_clamps_to_one_second_before_backoff() {
        let mut e = RttEstimator::new(
            SimDuration::from_millis(10),
            SimDuration::from_secs(6),
            RtoBounds::Ns2 {
                min_rto: SimDuration::from_secs(1),
                clamp_before_backoff: true,
                max_rto: SimDuration::from_secs(64),
            },
        );
        e.sample(5); // 50 ms → base 150 ms, clamped to 1 s
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_secs(2));
    }

    #[test]
    fn bsd_uses_origin_zero_for_later_samples_and_clamps_in_ticks() {
        let mut e = RttEstimator::new(
            G100,
            SimDuration::from_secs(6),
            RtoBounds::Bsd {
                min_ticks: 2,
                max_ticks: 128,
            },
        );
        assert_eq!(e.rto_ticks(), 60);
        e.sample(1); // srtt8 = 8, rttvar4 = 2 → 1 + 2 = 3 ticks
        assert_eq!(e.rto_ticks(), 3);
        e.sample(1); // m' = 0: d = -1 → srtt8 = 7; |d| - 0 = 1 → rttvar4 = 3 → (7 + 24) >> 3 = 3
        assert_eq!(e.rto_ticks(), 3);
        e.back_off();
        assert_eq!(e.rto_ticks(), 6);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto_ticks(), 128);
    }
}
