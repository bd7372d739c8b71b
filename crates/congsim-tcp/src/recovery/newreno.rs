//! NewReno (spec §4.3) as ns-2's `Agent/TCP/Newreno` implements it: Reno's fast retransmit,
//! then, while the cumulative ACK stays below `recover`, every new ("partial") ACK retransmits
//! the next hole at once and keeps the sender in fast recovery; only an ACK covering `recover`
//! ends it.

use crate::sender::{CwndAction, SendCause, TcpSender, TraceKind};
use congsim_core::time::SimTime;

/// A new ACK during fast recovery that does not cover `recover` is handled here entirely
/// (ns-2 `partialnewack_helper`); the duplicate-ACK count is left as it is (deviation D13).
/// Returns `false` for any other new ACK.
pub(super) fn on_partial_ack(s: &mut TcpSender, now: SimTime, ack_seg: u64) -> bool {
    //= ns-2: partial if seqno < recover_ while last_cwnd_action_ == CWND_ACTION_DUPACK
    let highest_ack = ack_seg as i64 - 1;
    if highest_ack >= s.recover || s.last_cwnd_action != CwndAction::DupAck {
        return false;
    }
    s.stats.partial_acks += 1;
    let newly_acked = ack_seg - s.snd_una;
    if s.cfg.partial_window_deflation {
        //= ns-2 partialnewack(): deflate the inflation by what was acked, keeping one
        if s.dupwnd > newly_acked {
            s.dupwnd -= newly_acked - 1;
        } else {
            let excess = newly_acked - s.dupwnd;
            s.window
                .set_segments((s.window.cwnd_segments() - excess as f64).max(1.0));
            s.dupwnd = 1;
        }
    } else {
        // Without deflation the window falls back to the halved cwnd.
        s.dupwnd = 0;
    }
    // Slow but steady restarts the timer on every partial ACK; impatient on the first only.
    if !s.cfg.newreno_impatient || !s.first_partial_seen {
        s.first_partial_seen = true;
        s.restart_or_cancel_timer(now, ack_seg < s.snd_max);
    }
    s.snd_una = ack_seg;
    if s.snd_nxt < s.snd_una {
        s.snd_nxt = s.snd_una;
    }
    // The timed segment may be covered: no sample (it might be a retransmission), but the
    // back-off ends, as in ns-2.
    if s.rtt_timing_covered_by(ack_seg) {
        s.cancel_rtt_timing();
        s.rtt.reset_backoff();
    }
    s.record(now, TraceKind::PartialAck);
    s.output(now, s.snd_una, SendCause::PartialAck);
    true
}

/// An ACK covering `recover` (or any new ACK outside recovery).
pub(super) fn on_full_ack(s: &mut TcpSender) {
    if s.dupwnd > 0 {
        s.dupwnd = 0;
        if s.last_cwnd_action == CwndAction::DupAck {
            s.last_cwnd_action = CwndAction::Exited;
        }
    }
    s.first_partial_seen = false;
    s.in_fast_recovery = false;
}

/// ns-2 NewReno sends after an ACK only outside recovery (no limit beyond `max_burst`) or
/// once the duplicate ACKs reached the threshold (at most `recovery_burst` packets); after the
/// first and second duplicate it sends nothing.
pub(super) fn send_burst(s: &TcpSender) -> Option<u32> {
    if s.dupacks == 0 {
        Some(s.cfg.max_burst)
    } else if s.dupacks >= s.cfg.dupthresh {
        Some(s.cfg.recovery_burst)
    } else {
        None
    }
}
