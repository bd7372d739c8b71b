//! Tahoe (spec §4.1): fast retransmit, then slow start from one segment. Tahoe keeps no state
//! of its own.

use crate::config::TahoeResume;
use crate::congestion::Cause;
use crate::sender_core::{CwndAction, SendCause, SenderCore};
use crate::stats::TraceKind;
use crate::window::{AfterCut, WindowChange};
use congsim_core::time::SimTime;

pub(super) fn on_dupack(s: &mut SenderCore, now: SimTime) {
    if s.dupacks != s.cfg.dupthresh {
        return;
    }
    // After an ECN response in this window: cwnd = 1 and go back, ssthresh untouched.
    let after_ecn = s.ecn_cut_this_window();
    if !after_ecn && !super::common::ns2_guard_allows(s) {
        return;
    }
    s.recover = s.maxseq();
    s.last_cwnd_action = CwndAction::DupAck;
    if after_ecn {
        s.stats.cwnd_cuts += 1;
        s.change_window(WindowChange::Segments(1.0));
    } else {
        s.cut_window(now, Cause::Loss, AfterCut::OneSegment);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use crate::sender_core::CaState;
    use congsim_core::time::SimDuration;

    /// An ns-2 Tahoe core with segments 0..10 sent, 0..4 acknowledged, at cwnd 10.
    fn core() -> SenderCore {
        let cfg = crate::config::SenderConfig {
            rwnd: 100,
            ..Profile::Ns2_2000.sender(Variant::Tahoe)
        };
        let mut s = SenderCore::new(cfg.into(), SimDuration::ZERO);
        s.start(None);
        s.change_window(WindowChange::Segments(10.0));
        s.send_window(SimTime::ZERO, 0, 0);
        s.new_ack(SimTime::from_millis(10), 4, false);
        s
    }

    #[test]
    fn the_third_duplicate_goes_back_to_the_hole_with_one_segment() {
        let mut s = core();
        let now = SimTime::from_millis(20);
        for dupacks in 1..=2 {
            s.count_dupack();
            on_dupack(&mut s, now);
            assert_eq!(s.stats.fast_retransmits, 0, "after {dupacks} duplicates");
        }
        assert_eq!(s.ca_state(), CaState::Disorder);
        s.count_dupack();
        on_dupack(&mut s, now);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.window().cwnd_segments(), 1.0);
        assert_eq!(s.window().ssthresh_segments(), 5.0, "half of cwnd 10");
        assert_eq!(s.snd_nxt, s.snd_una, "ns-2 go-back-N from the hole");
        assert_eq!(s.recover, s.maxseq());
    }

    #[test]
    fn the_ns2_guard_declines_a_second_fast_retransmit_in_the_same_window() {
        let mut s = core();
        s.recover = s.maxseq();
        for _ in 0..3 {
            s.count_dupack();
            on_dupack(&mut s, SimTime::from_millis(20));
        }
        assert_eq!(s.stats.fast_retransmits, 0);
        assert_eq!(s.window().cwnd_segments(), 10.0);
    }
}
