//! The boundary between the sender and a congestion controller.

use crate::window::CongestionWindow;
use congsim_core::time::SimTime;

/// What a congestion event cuts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutBase {
    /// `min(cwnd, rwnd)`, the receiver window in packets (packet mode) or bytes (byte mode).
    Window { rwnd: u64 },
    /// The FlightSize, in segments (RFC 5681 (4)). It counts the SACKed segments too, and what
    /// was sent against a window inflated in recovery, so it can exceed cwnd: a controller
    /// cuts from `min(FlightSize, cwnd)` (deviation D33).
    Flight { segments: u64 },
}

/// The two decisions a congestion controller makes.
pub trait CongestionOps {
    /// A new ACK that may open the window (not one echoing a mark, nor one during recovery
    /// where the variant freezes the window). `min_rtt_s` is the smallest exact RTT sampled so
    /// far (infinite before the first).
    fn on_ack(&mut self, window: &mut CongestionWindow, now: SimTime, min_rtt_s: f64);

    /// A congestion event (fast retransmit, timeout, ECN response): sets `ssthresh` and
    /// returns the reduced window as [`CongestionWindow::halve`] does (packet mode: the reduced
    /// window in segments; byte mode: the new ssthresh in bytes). The caller sets `cwnd`, never
    /// above its value before the event ([`CongestionWindow::cwnd_after_cut`]); `ssthresh`
    /// is never above the window cut from (two segments aside, the floor every cut keeps).
    fn on_congestion(&mut self, window: &mut CongestionWindow, now: SimTime, base: CutBase) -> f64;

    /// The retransmit timer expired (after `on_congestion` cut for it).
    fn on_timeout(&mut self) {}
}
