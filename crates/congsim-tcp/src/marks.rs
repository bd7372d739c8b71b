//! The sender's answer to echoed congestion marks (spec §4.6 ECN, §4.7 BCN-TCP): the window
//! shrinks, nothing is retransmitted, and loss recovery (the variants in `recovery`) goes on as
//! before, except that a fast retransmit in the window an ECN response already cut does not cut
//! it again.

use crate::config::MarkResponse;
use crate::sender::{CwndAction, TcpSender, TraceKind};
use congsim_core::time::SimTime;

/// An ACK carrying ECE arrives; runs before the ACK itself is processed (as in ns-2).
pub(crate) fn on_echo(s: &mut TcpSender, now: SimTime, ack_seg: u64) {
    let highest_ack = ack_seg as i64 - 1;
    match s.cfg.mark_response {
        MarkResponse::Off => {}
        MarkResponse::Ecn => {
            //= ns-2 ecn(): if (seqno > recover_ || last_cwnd_action_ == CWND_ACTION_TIMEOUT)
            if highest_ack <= s.recover && s.last_cwnd_action != CwndAction::Timeout {
                return;
            }
            s.recover = s.maxseq();
            s.last_cwnd_action = CwndAction::Ecn;
            // At a window of one segment the cut cannot shrink it: back the timer off instead
            // (ns-2 `ecn_backoff_`: from the second such response on; deviation D9).
            if s.window.cwnd_segments() <= 1.0 {
                if s.ecn_backoff {
                    s.rtt.back_off();
                }
                s.ecn_backoff = true;
            } else {
                s.ecn_backoff = false;
            }
            s.stats.cwnd_cuts += 1;
            s.window.halve_both(s.rwnd);
            s.stats.ecn_responses += 1;
            s.cwr_pending = true;
            s.record(now, TraceKind::EcnResponse);
        }
        MarkResponse::Bcn {
            decrease_factor,
            once_per_rtt,
        } => {
            if once_per_rtt {
                if highest_ack <= s.bcn_recover {
                    return;
                }
                s.bcn_recover = s.maxseq();
            }
            s.stats.cwnd_cuts += 1;
            s.window.scale_down(decrease_factor);
            s.stats.bcn_responses += 1;
            s.cwr_pending = true;
            s.record(now, TraceKind::BcnResponse);
        }
    }
}

/// `true` while the current window of data has already been cut by an ECN response: a fast
/// retransmit then repairs the loss without cutting again, and a timeout sets cwnd to one
/// segment without touching ssthresh (spec §4.6).
pub(crate) fn cut_this_window(s: &TcpSender) -> bool {
    s.last_cwnd_action == CwndAction::Ecn && s.highest_ack() <= s.recover
}
