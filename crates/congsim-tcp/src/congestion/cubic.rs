//! CUBIC (RFC 9438): after a congestion event the window follows the cubic
//! `W_cubic(t) = C·(t − K)³ + W_max` of the time `t` since the congestion-avoidance stage
//! began, plateauing at the window `W_max` where the last loss happened and probing beyond it;
//! a multiplicative decrease of `β_cubic = 0.7`; fast convergence; and a Reno-friendly
//! estimate `W_est` it never falls below (§4.3).
//!
//! As the profiles' own rule, growth counts one segment per new ACK (no byte counting), and
//! slow start is the profile's. The RTT in `W_cubic(t + RTT)` is the smallest exact RTT seen
//! (as Linux's `delay_min`): the profiles' RTT estimators are tick-quantised, too coarse for a
//! time-based window (deviation D27).

use super::ops::{AckSample, Cause, CongestionEvent, CongestionOps, CutBase};
use crate::window::{CongestionWindow, Cut, WindowSize};
use congsim_core::time::SimTime;

/// RFC 9438 §5: `C`, in segments per second cubed.
const C: f64 = 0.4;
/// RFC 9438 §4.6: the multiplicative decrease factor.
const BETA: f64 = 0.7;
/// RFC 9438 §4.3: the Reno-friendly additive increase, `3(1 − β)/(1 + β)` segments per RTT,
/// which gives AIMD(α, β) the throughput of AIMD(1, 0.5).
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// The current congestion-avoidance stage.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: SimTime,
    /// Seconds `W_cubic` takes to return to `W_max`.
    k_s: f64,
    /// `W_max` of this stage, in segments.
    w_max: f64,
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// Window (segments) where the last congestion event happened, lowered by fast
    /// convergence (§4.7).
    w_max: f64,
    /// cwnd (segments) just before the last reduction (`cwnd_prior`).
    cwnd_prior: f64,
    /// The Reno-friendly estimate, segments (§4.3).
    w_est: f64,
    /// `None` until the first ACK of a congestion-avoidance stage.
    epoch: Option<Epoch>,
    /// The last reduction was a retransmission timeout (§4.8: the next stage starts with
    /// `K = 0` and `W_max` = cwnd at its start).
    after_timeout: bool,
}

impl Cubic {
    fn w_cubic(epoch: &Epoch, t_s: f64) -> f64 {
        C * (t_s - epoch.k_s).powi(3) + epoch.w_max
    }

    /// Seconds the current stage's `W_cubic` takes to reach `W_max` (`None` before a stage).
    pub fn k_s(&self) -> Option<f64> {
        self.epoch.map(|e| e.k_s)
    }

    fn begin_epoch(&mut self, now: SimTime, cwnd: f64) -> Epoch {
        let (k_s, w_max) = if self.after_timeout || cwnd >= self.w_max {
            (0.0, cwnd)
        } else {
            //= RFC 9438 (2): K = cubic_root((W_max − cwnd_epoch) / C)
            (((self.w_max - cwnd) / C).cbrt(), self.w_max)
        };
        self.after_timeout = false;
        self.w_est = cwnd;
        let epoch = Epoch {
            start: now,
            k_s,
            w_max,
        };
        self.epoch = Some(epoch);
        epoch
    }
}

impl CongestionOps for Cubic {
    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        if !ack.window_may_open {
            return None;
        }
        if window.in_slow_start() {
            return Some(window.grown());
        }
        let now = ack.now;
        let cwnd = window.cwnd_segments();
        let epoch = match self.epoch {
            Some(epoch) => epoch,
            None => self.begin_epoch(now, cwnd),
        };
        let rtt_s = ack.min_rtt.map_or(0.0, |rtt| rtt.as_secs_f64());
        let t_s = now.since(epoch.start).as_secs_f64();
        //= RFC 9438 §4.3: W_est += α_cubic · segments_acked / cwnd; α_cubic = 1 once
        //=                W_est ≥ cwnd_prior
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        };
        self.w_est += alpha / cwnd;
        let next = if Self::w_cubic(&epoch, t_s) < self.w_est {
            // The Reno-friendly region.
            self.w_est
        } else {
            //= RFC 9438 §4.4-4.5: target = W_cubic(t + RTT) within [cwnd, 1.5 cwnd];
            //=                    cwnd += (target − cwnd) / cwnd
            let target = Self::w_cubic(&epoch, t_s + rtt_s).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd
        };
        Some(window.cwnd_for_segments(next))
    }

    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        let cwnd = window.cwnd_segments();
        //= RFC 9438 §4.7 fast convergence: a loss below the last W_max releases bandwidth
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        //= RFC 9438 §4.6: ssthresh = flight_size · β_cubic; "Some implementations of CUBIC
        //=                currently use cwnd instead of flight_size"
        //= Linux cubictcp_recalc_ssthresh():
        //=     return max((tcp_snd_cwnd(tp) * beta) / BICTCP_BETA_SCALE, 2U);
        // The FlightSize counts every segment not cumulatively acknowledged, the SACKed ones
        // too, so after a recovery it can exceed cwnd by far, and a cut from it would raise
        // cwnd (issue #29). The cut is from the smaller of the two: cwnd, as Linux, and the
        // FlightSize when less is in flight, as the RFC (a window the application or the
        // receiver left unused is not cut from). Deviation D33.
        let base_segments = match event.base {
            CutBase::Window { rwnd } => window.base_segments(rwnd),
            CutBase::Flight { segments } => (segments as f64).min(cwnd),
        };
        //= RFC 9438 §4.8: after a timeout the next stage starts with K = 0
        if event.cause == Cause::Timeout {
            self.after_timeout = true;
        }
        window.reduced(base_segments, BETA)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SenderConfig, Variant};
    use crate::congestion::ops::testing::{ack, event};
    use crate::window::{AfterCut, WindowChange};

    /// The round trip `ops::testing::ack` reports as the smallest.
    const RTT_S: f64 = 0.1;

    fn cfg() -> SenderConfig {
        SenderConfig {
            rwnd: 100_000,
            precise_halving: true,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        }
    }

    /// A window of `cwnd` segments in congestion avoidance, and CUBIC after a loss there.
    fn after_loss_at(cwnd: f64) -> (CongestionWindow, Cubic) {
        let cfg = cfg();
        let mut window = CongestionWindow::new(&cfg);
        set_cwnd(&mut window, cwnd);
        let mut cubic = Cubic::default();
        cut(&mut cubic, &mut window, Cause::Loss, CutBase::Window { rwnd: cfg.rwnd });
        (window, cubic)
    }

    fn set_cwnd(window: &mut CongestionWindow, segments: f64) {
        window.apply(WindowChange::Cwnd(window.cwnd_for_segments(segments)));
    }

    /// A congestion event, its reduced window installed (spec §3.4).
    fn cut(cubic: &mut Cubic, window: &mut CongestionWindow, cause: Cause, base: CutBase) {
        let cut = cubic.on_congestion(window, &event(cause, base));
        window.apply(WindowChange::Cut(cut, AfterCut::Reduced));
    }

    /// An ACK at `now_ms` with a smallest RTT of 100 ms, its decision applied.
    fn on_ack(cubic: &mut Cubic, window: &mut CongestionWindow, now_ms: u64) {
        if let Some(cwnd) = cubic.on_ack(window, &ack(now_ms, true)) {
            window.apply(WindowChange::Cwnd(cwnd));
        }
    }

    /// Delivers one window of ACKs per RTT (each ACK at the start of its RTT) until `until_s`;
    /// returns cwnd at the start of each RTT.
    fn run(window: &mut CongestionWindow, cubic: &mut Cubic, until_s: f64) -> Vec<(f64, f64)> {
        let mut rounds = Vec::new();
        let rtt_ms = (RTT_S * 1000.0) as u64;
        let mut t_ms = 0;
        while (t_ms as f64) < until_s * 1000.0 {
            let cwnd = window.cwnd_segments();
            rounds.push((t_ms as f64 / 1000.0, cwnd));
            for _ in 0..cwnd as u64 {
                on_ack(cubic, window, t_ms);
            }
            t_ms += rtt_ms;
        }
        rounds
    }

    #[test]
    fn a_loss_cuts_to_beta_and_sets_k_from_the_lost_window() {
        let (mut window, mut cubic) = after_loss_at(100.0);
        assert!((window.cwnd_segments() - 70.0).abs() < 1e-9, "β = 0.7");
        assert_eq!(window.ssthresh_segments(), 70.0);
        on_ack(&mut cubic, &mut window, 0);
        // RFC 9438 (2): K = ∛((100 − 70) / 0.4) = ∛75.
        let k = cubic.k_s().expect("an epoch began");
        assert!((k - 75f64.cbrt()).abs() < 1e-12, "K = {k}");
        assert!((k - 4.2172).abs() < 1e-4);
    }

    #[test]
    fn the_window_plateaus_at_w_max_near_k_then_probes_beyond_it() {
        // A large window, where W_cubic outgrows the Reno-friendly estimate.
        let (mut window, mut cubic) = after_loss_at(1000.0);
        let rounds = run(&mut window, &mut cubic, 14.0);
        let at = |t: f64| {
            rounds
                .iter()
                .find(|(s, _)| *s >= t - 1e-9)
                .expect("simulated that long")
                .1
        };
        //= RFC 9438 (2): K = ∛((1000 − 700) / 0.4) = ∛750 ≈ 9.09 s
        let k = 750f64.cbrt();
        // Concave: fast growth at first, slowing as W_max nears.
        let first_second = at(1.0) - at(0.0);
        let second_before_k = at(k) - at(k - 1.0);
        assert!(first_second > 50.0, "{first_second}");
        assert!(second_before_k < 2.0, "{second_before_k}");
        // At K the window is W_max (within the one-RTT look-ahead's growth).
        assert!((at(k) - 1000.0).abs() < 1.5, "cwnd at K: {}", at(k));
        // Convex beyond: growth speeds up again, and follows C·(t−K)³ + W_max.
        assert!(at(k + 3.0) - at(k + 2.0) > at(k + 1.0) - at(k));
        let expected = C * 3f64.powi(3) + 1000.0;
        assert!(
            (at(k + 3.0) - expected).abs() < 3.0,
            "cwnd at K + 3 s: {} vs {expected}",
            at(k + 3.0)
        );
    }

    #[test]
    fn where_w_est_overtakes_w_cubic_the_window_follows_w_est() {
        // W_max 100 at RTT 100 ms: W_est climbs 0.53 segments per RTT to cwnd_prior, then one;
        // by K + 3 s (7.2 s) it is above W_cubic (110.8), and the window follows it.
        let (mut window, mut cubic) = after_loss_at(100.0);
        run(&mut window, &mut cubic, 75f64.cbrt() + 3.0);
        assert!(cubic.w_est > C * 27.0 + 100.0, "W_est {}", cubic.w_est);
        assert!((window.cwnd_segments() - cubic.w_est).abs() < 1e-9);
    }

    #[test]
    fn a_small_window_grows_no_slower_than_the_reno_friendly_estimate() {
        // W_max 10 at RTT 100 ms: W_cubic rises 3 segments in K = 1.96 s, slower than
        // AIMD(0.529, 0.7) would, so CUBIC follows W_est.
        let (mut window, mut cubic) = after_loss_at(10.0);
        let rounds = run(&mut window, &mut cubic, 1.0);
        let (_, last) = rounds.last().copied().expect("rounds");
        // Ten RTTs at α = 0.529 segments each from 7.
        assert!(last >= 7.0 + 9.0 * ALPHA - 0.3, "cwnd after 1 s: {last}");
        assert!(
            last <= 7.0 + 10.0,
            "no faster than Reno's one segment per RTT"
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
        let (mut window, mut cubic) = after_loss_at(100.0);
        // The next loss comes at 80 segments, below W_max 100: W_max = 80 · (1 + 0.7) / 2.
        set_cwnd(&mut window, 80.0);
        cut(&mut cubic, &mut window, Cause::Loss, CutBase::Window { rwnd: 100_000 });
        assert!((cubic.w_max - 68.0).abs() < 1e-9, "W_max {}", cubic.w_max);
        assert!((window.ssthresh_segments() - 56.0).abs() < 1e-9);
    }

    #[test]
    fn a_cut_from_the_flight_size_never_starts_above_cwnd() {
        // The `rfc` profile cuts from the FlightSize, which under SACK still counts what the
        // receiver holds: 300 segments outstanding at cwnd 100 is a cut from 100 (Linux's cwnd,
        // issue #29), 50 outstanding a cut from 50 (RFC 9438's flight_size).
        let cfg = Profile::Rfc.sender(Variant::Sack);
        for (flight, ssthresh) in [(300, 70.0), (100, 70.0), (50, 35.0), (1, 2.0)] {
            let mut window = CongestionWindow::new(&cfg);
            set_cwnd(&mut window, 100.0);
            let mut cubic = Cubic::default();
            let base = CutBase::Flight { segments: flight };
            let cut = cubic.on_congestion(&window, &event(Cause::Loss, base));
            window.apply(WindowChange::Cut(cut, AfterCut::Ssthresh));
            assert_eq!(window.ssthresh_segments(), ssthresh, "flight {flight}");
            assert_eq!(cubic.w_max, 100.0, "W_max is cwnd at the loss");
            assert_eq!(window.cwnd_segments(), ssthresh);
        }
    }

    #[test]
    fn after_a_timeout_the_next_stage_starts_at_its_own_window() {
        let (mut window, mut cubic) = after_loss_at(100.0);
        cut(&mut cubic, &mut window, Cause::Timeout, CutBase::Window { rwnd: 100_000 });
        set_cwnd(&mut window, 70.0);
        on_ack(&mut cubic, &mut window, 0);
        assert_eq!(cubic.k_s(), Some(0.0), "RFC 9438 §4.8: K = 0");
    }

    #[test]
    fn slow_start_is_the_profiles() {
        let cfg = cfg();
        let mut window = CongestionWindow::new(&cfg);
        let mut cubic = Cubic::default();
        for _ in 0..7 {
            on_ack(&mut cubic, &mut window, 0);
        }
        assert_eq!(window.cwnd_segments(), 8.0);
        assert!(cubic.k_s().is_none());
    }
}
