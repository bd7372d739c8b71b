//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003), as Linux's `tcp_scalable` and ns-3's `TcpScalable` give it: above
//! ssthresh one segment more per `min(cwnd, 100)` ACKs, so growth per round trip is
//! proportional to the window (constant recovery time whatever the rate); a cut keeps 7/8 of
//! the window. Slow start is the profile's.
//!
//! It is also the developer guide's worked example of a controller: this file and its line in
//! `catalog.rs` are all it took.

use super::ops::{AckSample, CongestionEvent, CongestionOps, CutBase};
use crate::window::{CongestionWindow, Cut, WindowSize};

/// Linux `TCP_SCALABLE_AI_CNT`: at most this many ACKs per added segment.
const AI_COUNT: f64 = 100.0;
/// Linux `TCP_SCALABLE_MD_SCALE` = 3: a cut removes 1/8 of the window.
const DECREASE: f64 = 1.0 / 8.0;

#[derive(Clone, Debug, Default)]
pub struct Scalable;

impl CongestionOps for Scalable {
    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        if !ack.window_may_open {
            return None;
        }
        if window.in_slow_start() {
            return Some(window.grown());
        }
        let cwnd = window.cwnd_segments();
        Some(window.cwnd_for_segments(cwnd + 1.0 / cwnd.min(AI_COUNT)))
    }

    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        let base = match event.base {
            CutBase::Window { rwnd } => window.base_segments(rwnd),
            CutBase::Flight { segments } => (segments as f64).min(window.cwnd_segments()),
        };
        window.reduced(base, 1.0 - DECREASE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SenderConfig, Variant};
    use crate::congestion::Cause;
    use crate::congestion::ops::testing::{ack, event};
    use crate::window::WindowChange;

    #[test]
    fn grows_by_one_per_hundred_acks_above_a_hundred_and_keeps_seven_eighths() {
        let cfg = SenderConfig {
            rwnd: 100_000,
            precise_halving: true,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut window = CongestionWindow::new(&cfg);
        let mut scalable = Scalable;
        let base = CutBase::Window { rwnd: 100_000 };
        window.apply(WindowChange::Cwnd(window.cwnd_for_segments(400.0)));
        let cut = scalable.on_congestion(&window, &event(Cause::Loss, base));
        assert_eq!(cut.cwnd.segments(1), 350.0);
        window.apply(WindowChange::Cut(cut, crate::window::AfterCut::Reduced));
        // A window of 350 ACKs adds 3.5 segments (1 per 100); Reno would add 1.
        for _ in 0..350 {
            let grown = scalable.on_ack(&window, &ack(0, true)).expect("grows");
            window.apply(WindowChange::Cwnd(grown));
        }
        assert!((window.cwnd_segments() - 353.5).abs() < 1e-9);
        assert_eq!(scalable.on_ack(&window, &ack(0, false)), None);
    }
}
