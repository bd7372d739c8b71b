//! The profiles' own window rule (spec `tcp.md` §3.3, §3.4): one increment per new ACK, slow
//! start below ssthresh and about one segment per window above it; a congestion event halves.
//! The arithmetic, per sequence model, is [`CongestionWindow`]'s.

use super::ops::{AckSample, CongestionEvent, CongestionOps, CutBase};
use crate::window::{CongestionWindow, Cut, WindowSize};

#[derive(Clone, Debug, Default)]
pub struct Aimd;

impl CongestionOps for Aimd {
    const STANDARD_GROWTH: bool = true;

    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        ack.window_may_open.then(|| window.grown())
    }

    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        match event.base {
            CutBase::Window { rwnd } => window.halved(rwnd),
            CutBase::Flight { segments } => window.halved_flight(segments),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SenderConfig, Variant};
    use crate::congestion::ops::testing::{ack, event};
    use crate::congestion::Cause;
    use crate::window::{AfterCut, WindowChange};

    #[test]
    fn grows_when_the_window_may_open_and_halves() {
        let cfg = SenderConfig {
            rwnd: 1000,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut window = CongestionWindow::new(&cfg);
        let mut aimd = Aimd;
        for _ in 0..40 {
            let grown = window.grown();
            assert_eq!(aimd.on_ack(&window, &ack(0, true)), Some(grown));
            window.apply(WindowChange::Cwnd(grown));
        }
        assert_eq!(aimd.on_ack(&window, &ack(0, false)), None, "held");
        let by_window = Cause::Loss;
        let cut = aimd.on_congestion(&window, &event(by_window, CutBase::Window { rwnd: 1000 }));
        assert_eq!(cut, window.halved(1000));
        let cut = aimd.on_congestion(&window, &event(by_window, CutBase::Flight { segments: 9 }));
        window.apply(WindowChange::Cut(cut, AfterCut::Ssthresh));
        assert_eq!(
            window.ssthresh_segments(),
            4.0,
            "RFC 5681 (4): FlightSize / 2"
        );
    }
}
