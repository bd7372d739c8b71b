//! The profiles' own window rule (spec `tcp.md` §3.3, §3.4): one increment per new ACK, slow
//! start below ssthresh and about one segment per window above it; a congestion event halves.
//! The arithmetic, per sequence model, is [`CongestionWindow`]'s.

use super::ops::{CongestionOps, CutBase};
use crate::window::CongestionWindow;
use congsim_core::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Aimd;

impl CongestionOps for Aimd {
    fn on_ack(&mut self, window: &mut CongestionWindow, _: SimTime, _: f64) {
        window.grow();
    }

    fn on_congestion(&mut self, window: &mut CongestionWindow, _: SimTime, base: CutBase) -> f64 {
        match base {
            CutBase::Window { rwnd } => window.halve(rwnd),
            CutBase::Flight { segments } => window.halve_flight(segments),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SenderConfig, Variant};

    #[test]
    fn grows_and_halves_as_the_window_arithmetic_does() {
        let cfg = SenderConfig {
            rwnd: 1000,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let (mut by_aimd, mut by_hand) = (CongestionWindow::new(&cfg), CongestionWindow::new(&cfg));
        let mut aimd = Aimd;
        for _ in 0..40 {
            aimd.on_ack(&mut by_aimd, SimTime::ZERO, 0.1);
            by_hand.grow();
        }
        assert_eq!(by_aimd.cwnd_segments(), by_hand.cwnd_segments());
        let half = aimd.on_congestion(&mut by_aimd, SimTime::ZERO, CutBase::Window { rwnd: 1000 });
        assert_eq!(half, by_hand.halve(1000));
        assert_eq!(by_aimd.ssthresh_segments(), by_hand.ssthresh_segments());
        aimd.on_congestion(&mut by_aimd, SimTime::ZERO, CutBase::Flight { segments: 9 });
        assert_eq!(
            by_aimd.ssthresh_segments(),
            4.0,
            "RFC 5681 (4): FlightSize / 2"
        );
    }
}
