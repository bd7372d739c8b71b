//! Tahoe (spec §4.1): fast retransmit, then slow start from one segment.

use crate::config::TahoeResume;
use crate::marks;
use crate::sender::{CwndAction, SendCause, TcpSender, TraceKind};
use congsim_core::time::SimTime;

pub(super) fn on_dupack(s: &mut TcpSender, now: SimTime) {
    if s.dupacks != s.cfg.dupthresh {
        return;
    }
    // After an ECN response in this window: cwnd = 1 and go back, ssthresh untouched.
    let after_ecn = marks::cut_this_window(s);
    if !after_ecn && !super::ns2_guard_allows(s) {
        return;
    }
    s.recover = s.maxseq();
    s.last_cwnd_action = CwndAction::DupAck;
    if after_ecn {
        s.stats.cwnd_cuts += 1;
    } else {
        s.cut_window();
    }
    s.window.set_segments(1.0);
    s.stats.fast_retransmits += 1;
    s.cancel_rtt_timing();
    match s.cfg.tahoe_resume {
        TahoeResume::GoBackN => {
            //= ns-2 reset_rtx_timer(0,0): restart the timer, t_seqno_ = highest_ack_ + 1
            s.arm_timer(now);
            s.snd_nxt = s.snd_una;
        }
        TahoeResume::Restore => {
            // 4.3BSD-Tahoe: send the missing segment; snd_nxt stays where it was.
            s.cancel_timer();
            s.output(now, s.snd_una, SendCause::FastRetransmit);
        }
    }
    s.record(now, TraceKind::FastRetransmit);
}
