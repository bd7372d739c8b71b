//! NewReno as RFC 6582 specifies it (byte-numbered profiles): RFC 5681 fast retransmit with
//! `recover`, window inflation per duplicate ACK, and on each partial ACK a retransmission of
//! the next hole with the window deflated by what was acknowledged (plus one segment back).
//! Only an ACK covering `recover` ends recovery, with `cwnd = ssthresh` (the RFC's option 2).

use crate::sender::{CwndAction, SendCause, TcpSender, TraceKind};
use congsim_core::time::SimTime;

/// A new ACK during fast recovery that does not cover `recover`: handled here entirely.
/// Returns `false` for any other new ACK.
pub(super) fn on_partial_ack(s: &mut TcpSender, now: SimTime, ack_seg: u64) -> bool {
    if !s.in_fast_recovery || s.recovery_point.is_none_or(|point| ack_seg >= point) {
        return false;
    }
    s.stats.partial_acks += 1;
    s.window.deflate_partial(ack_seg - s.snd_una);
    // RFC 6582 §4.1: the impatient variant restarts the timer on the first partial ACK only.
    if !s.cfg.newreno_impatient || !s.first_partial_seen {
        s.first_partial_seen = true;
        s.restart_or_cancel_timer(now, ack_seg < s.snd_max);
    }
    s.snd_una = ack_seg;
    s.snd_nxt = s.snd_nxt.max(s.snd_una);
    s.limited_transmit_outstanding = 0;
    if s.rtt_timing_covered_by(ack_seg) {
        // The timed segment may have been retransmitted (Karn).
        s.cancel_rtt_timing();
    }
    s.record(now, TraceKind::PartialAck);
    s.output(now, s.snd_una, SendCause::PartialAck);
    true
}

/// Any other new ACK; in recovery it is the full ACK (RFC 6582 option 2, deviation D10).
pub(super) fn on_full_ack(s: &mut TcpSender) {
    if s.in_fast_recovery {
        s.window.set_ssthresh_plus(0);
        s.last_cwnd_action = CwndAction::Exited;
    }
    s.first_partial_seen = false;
    s.in_fast_recovery = false;
}
