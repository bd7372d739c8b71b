//! DCTCP (RFC 8257): the sender estimates the fraction of its bytes the network marked,
//! `α ← (1 − g)·α + g·M` once per window of data with `g = 1/16` (§3.3), and answers an ECN
//! echo by cutting the window in proportion, `cwnd · (1 − α/2)` (§3.3 step 8), at most once
//! per window as RFC 3168 does (the sender's gate, `crate::marks`). Between cuts the window
//! grows as the profile's own rule grows it, and a loss or a timeout halves it as any
//! RFC 5681 sender (§3.5), so [`Aimd`] answers those.
//!
//! The receiver's half is `CongestionEcho::Dctcp`: ECE on exactly the ACKs of CE packets,
//! with a held delayed ACK sent at once when the CE state changes (§3.2).

use super::aimd::Aimd;
use super::ops::{AckSample, Cause, CongestionEvent, CongestionOps, CutBase};
use crate::window::{CongestionWindow, Cut, WindowSize};

/// RFC 8257 §3.3: the estimation gain, 1/16 (Linux `dctcp_shift_g` = 4).
const G: f64 = 1.0 / 16.0;

#[derive(Clone, Debug)]
pub struct Dctcp {
    /// The estimated fraction of bytes marked, in [0, 1].
    alpha: f64,
    /// The window of data being observed ends when this segment is acknowledged (`SND.NXT`
    /// when it began, as a segment index).
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Self {
            //= RFC 8257 §3.3: DCTCP.Alpha ... initialized to 1 (Linux dctcp_alpha_on_init)
            alpha: 1.0,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
        }
    }
}

impl Dctcp {
    /// The current estimate of the fraction of bytes marked.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionOps for Dctcp {
    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        self.bytes_acked += ack.bytes_acked;
        if ack.ece {
            self.bytes_marked += ack.bytes_acked;
        }
        // RFC 8257 §3.3 step 4 waits for SND.UNA > Window_End; Linux (`!before(snd_una,
        // next_seq)`) and this code end the window when its last segment is acknowledged.
        if ack.delivered_segments >= self.window_end {
            if self.bytes_acked > 0 {
                let marked = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - G) * self.alpha + G * marked;
            }
            self.window_end = ack.delivered_segments + ack.in_flight_segments;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
        ack.window_may_open.then(|| window.grown())
    }

    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        match (event.cause, event.base) {
            (Cause::Ecn, CutBase::Window { rwnd }) => {
                //= RFC 8257 §3.3: cwnd = cwnd × (1 − DCTCP.Alpha / 2)
                window.reduced(window.base_segments(rwnd), 1.0 - self.alpha / 2.0)
            }
            _ => Aimd.on_congestion(window, event),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SenderConfig, Variant};
    use crate::congestion::ops::testing::{ack, event};
    use crate::window::{AfterCut, WindowChange};

    /// Ten segments in flight.
    const IN_FLIGHT: u64 = 10;

    /// A DCTCP sender seen from its controller: segments delivered so far.
    struct Flow {
        dctcp: Dctcp,
        window: CongestionWindow,
        delivered: u64,
    }

    impl Flow {
        fn new() -> Self {
            Self {
                dctcp: Dctcp::default(),
                window: CongestionWindow::new(&Profile::Rfc.sender(Variant::Sack)),
                delivered: 0,
            }
        }

        /// `n` ACKs of a segment each, the first `marked` of them with ECE, ten segments in
        /// flight after each (so a window of data is ten ACKs).
        fn acks(&mut self, n: u64, marked: u64) -> f64 {
            for k in 0..n {
                self.delivered += 1;
                let sample = AckSample {
                    ece: k < marked,
                    delivered_segments: self.delivered,
                    in_flight_segments: IN_FLIGHT,
                    ..ack(0, false)
                };
                self.dctcp.on_ack(&self.window, &sample);
            }
            self.dctcp.alpha()
        }
    }

    #[test]
    fn alpha_moves_by_g_towards_the_fraction_marked_once_per_window() {
        let mut flow = Flow::new();
        // The first ACK ends the first window (nothing was sent before it): M = 0.
        assert_eq!(flow.acks(1, 0), 15.0 / 16.0);
        // A window of 10 with 5 marked: α ← 15/16 · α + 1/16 · 0.5.
        let before = flow.dctcp.alpha();
        let after = flow.acks(10, 5);
        assert!((after - (before * 15.0 / 16.0 + 0.5 / 16.0)).abs() < 1e-12);
        // Only a window's end moves α: nine unmarked ACKs leave it, the tenth decays it.
        assert_eq!(flow.acks(9, 0), after);
        assert!((flow.acks(1, 0) - after * 15.0 / 16.0).abs() < 1e-12);
        for _ in 0..200 {
            flow.acks(10, 0);
        }
        assert!(flow.dctcp.alpha() < 1e-5);
        // Always marked: α tends to 1.
        for _ in 0..400 {
            flow.acks(10, 10);
        }
        assert!(flow.dctcp.alpha() > 1.0 - 1e-9);
    }

    #[test]
    fn an_echo_cuts_by_half_alpha_and_a_loss_halves() {
        let cfg = SenderConfig {
            rwnd: 1000,
            precise_halving: true,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut window = CongestionWindow::new(&cfg);
        window.apply(WindowChange::Cwnd(window.cwnd_for_segments(80.0)));
        let mut dctcp = Dctcp {
            alpha: 0.25,
            ..Dctcp::default()
        };
        let base = CutBase::Window { rwnd: 1000 };
        let cut = dctcp.on_congestion(&window, &event(Cause::Ecn, base));
        assert_eq!(cut.cwnd.segments(1), 70.0, "80 · (1 − 0.25/2)");
        assert_eq!(cut.ssthresh.segments(1), 70.0);
        let cut = dctcp.on_congestion(&window, &event(Cause::Loss, base));
        assert_eq!(cut.cwnd.segments(1), 40.0, "RFC 8257 §3.5: as RFC 5681");
        window.apply(WindowChange::Cut(cut, AfterCut::Reduced));
        // With no marks at all, an echo cuts nothing but the fraction α says.
        dctcp.alpha = 0.0;
        let cut = dctcp.on_congestion(&window, &event(Cause::Ecn, base));
        assert_eq!(cut.cwnd.segments(1), 40.0);
    }

    #[test]
    fn the_window_grows_as_the_profiles_rule_when_it_may() {
        let window = CongestionWindow::new(&Profile::Rfc.sender(Variant::Sack));
        let mut dctcp = Dctcp::default();
        assert_eq!(dctcp.on_ack(&window, &ack(0, true)), Some(window.grown()));
        assert_eq!(dctcp.on_ack(&window, &ack(0, false)), None);
    }
}
