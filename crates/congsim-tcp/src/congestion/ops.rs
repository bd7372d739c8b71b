//! The contract between the sender and a congestion controller (spec `tcp.md` §3.8).
//!
//! A controller sees what happens to the connection (an [`AckSample`] per ACK of new data, each
//! segment sent, each [`CongestionEvent`]) and answers with a decision in the window's own
//! unit ([`WindowSize`], [`Cut`]); it never writes sender state. The sender applies the
//! decision in one place (`SenderCore::change_window`), where the rules every controller shares
//! hold: a cut never raises cwnd, and the loss recovery chooses what cwnd becomes after it.
//!
//! When a congestion event happens is the sender's: a loss is what the recovery variant
//! detects, and an ECN echo is answered at most once per window of data (RFC 3168 §6.1.2,
//! ns-2's `ecn()`), as Linux's CWR state and ns-3's `TcpSocketBase` gate it. How far the window
//! is cut is the controller's: halved (AIMD), by β (CUBIC), by α/2 (DCTCP).

use crate::rate::RateSample;
use crate::window::{CongestionWindow, Cut, WindowSize};
use congsim_core::time::{SimDuration, SimTime};

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

/// Why the window is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A fast retransmit: duplicate ACKs or the SACK scoreboard found a loss.
    Loss,
    /// The receiver echoed a congestion mark (ECN-Echo).
    Ecn,
    /// The retransmission timer expired.
    Timeout,
}

/// A congestion event the controller sizes the cut for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongestionEvent {
    pub now: SimTime,
    pub cause: Cause,
    pub base: CutBase,
    /// RFC 6675's pipe as the loss recovery estimated it when it detected the loss (segments
    /// sent, neither SACKed nor presumed lost); `None` for recoveries that keep none.
    pub pipe_segments: Option<u64>,
}

/// One ACK that acknowledges new data, as the controller sees it (in the manner of ns-3's
/// `PktsAcked` and Linux's `rate_sample`). A controller that samples the delivery rate
/// ([`CongestionOps::SAMPLES_DELIVERY_RATE`]) also sees ACKs that only SACK new data
/// (`segments_acked` 0), each with its [`RateSample`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample<'a> {
    pub now: SimTime,
    /// Segments this ACK newly acknowledges cumulatively.
    pub segments_acked: u64,
    /// Payload bytes of those segments.
    pub bytes_acked: u64,
    /// The ACK carries ECN-Echo.
    pub ece: bool,
    /// The round-trip time this ACK measured (one timed segment at a time, Karn's rule), if it
    /// measured one.
    pub rtt: Option<SimDuration>,
    /// The smallest round-trip time measured so far.
    pub min_rtt: Option<SimDuration>,
    /// Segments cumulatively acknowledged since the connection began.
    pub delivered_segments: u64,
    /// Segments sent and not yet cumulatively acknowledged, after this ACK.
    pub in_flight_segments: u64,
    /// The application had supplied no data beyond what was already sent.
    pub app_limited: bool,
    /// The window may open on this ACK: the loss recovery does not hold it (RFC 6675 and
    /// Sack1 during recovery, a partial ACK of RFC 6582) and the ACK echoes no mark the sender
    /// answers (spec §4.6).
    pub window_may_open: bool,
    /// The sender is repairing a loss (fast recovery, or after a timeout until the data
    /// outstanding then is acknowledged).
    pub in_loss_recovery: bool,
    /// The delivery-rate sample of this ACK (controllers that ask for samples only).
    pub rate: Option<&'a RateSample>,
}

/// A segment just handed to the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    pub now: SimTime,
    /// The segment's index (0, 1, 2, … in the order of the data).
    pub segment: u64,
    pub payload_bytes: u32,
    pub retransmission: bool,
}

/// A congestion controller: how the window grows and how far a congestion event cuts it.
pub trait CongestionOps {
    /// The controller reads delivery-rate samples ([`AckSample::rate`]); the sender keeps a
    /// sampler (per-segment send state) only for those that do.
    const SAMPLES_DELIVERY_RATE: bool = false;

    /// The controller draws random numbers: the sender gives it a seed from the flow's own
    /// stream ([`Self::seed`]).
    const DRAWS_RANDOM: bool = false;

    /// On an ACK the controller does exactly the profile's own growth
    /// ([`CongestionWindow::grown`] when [`AckSample::window_may_open`]) and reads nothing
    /// else of the sample: the sender then applies that growth itself without building the
    /// sample (about 60 instructions per ACK; the classic profiles' every ACK). `on_ack` must
    /// still answer the same, which a test checks.
    const STANDARD_GROWTH: bool = false;

    /// The seed of the controller's random draws (controllers with `DRAWS_RANDOM`).
    fn seed(&mut self, _seed: u64) {}

    /// An ACK of new data: the controller updates its estimates and returns the new cwnd, or
    /// `None` to leave it. `window` is the window before this ACK's change.
    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize>;

    /// A congestion event: the new ssthresh and the reduced window. Neither may exceed the
    /// window cut from (two segments aside, the floor every cut keeps); the sender also
    /// never lets a cut raise cwnd.
    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut;

    /// A segment was sent.
    fn on_sent(&mut self, _segment: &SentSegment) {}

    /// The rate a pacing sender (`SenderConfig::pacing`) sends at, asked after each ACK of new
    /// data once an RTT has been measured. The default is Linux's (`tcp_update_pacing_rate`):
    /// twice cwnd per smoothed RTT in slow start, 1.2 times after it.
    fn pacing_rate_bps(
        &self,
        window: &CongestionWindow,
        segment_bytes: u32,
        smoothed_rtt: SimDuration,
    ) -> f64 {
        //= Linux tcp_update_pacing_rate(): sysctl_tcp_pacing_ss_ratio 200,
        //=     sysctl_tcp_pacing_ca_ratio 120
        let ratio = if window.in_slow_start() { 2.0 } else { 1.2 };
        let cwnd_bits = window.cwnd_segments() * f64::from(segment_bytes) * 8.0;
        ratio * cwnd_bits / smoothed_rtt.as_secs_f64()
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// An ACK of one full segment at `now_ms`, the smallest RTT so far 100 ms.
    pub(crate) fn ack(now_ms: u64, window_may_open: bool) -> AckSample<'static> {
        AckSample {
            now: SimTime::from_millis(now_ms),
            segments_acked: 1,
            bytes_acked: 1460,
            ece: false,
            rtt: None,
            min_rtt: Some(SimDuration::from_millis(100)),
            delivered_segments: 1,
            in_flight_segments: 10,
            app_limited: false,
            window_may_open,
            in_loss_recovery: false,
            rate: None,
        }
    }

    pub(crate) fn event(cause: Cause, base: CutBase) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            cause,
            base,
            pipe_segments: None,
        }
    }
}
