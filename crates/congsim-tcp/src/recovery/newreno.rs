//! NewReno (spec §4.3) as ns-2's `Agent/TCP/Newreno` implements it: Reno's fast retransmit,
//! then, while the cumulative ACK stays below `recover`, every new ("partial") ACK retransmits
//! the next hole at once and keeps the sender in fast recovery; only an ACK covering `recover`
//! ends it.

use super::reno::Reno;
use crate::sender_core::{CwndAction, SendCause, SenderCore};
use crate::stats::TraceKind;
use crate::window::WindowChange;
use congsim_core::time::SimTime;

#[derive(Clone, Debug, Default)]
pub(crate) struct NewReno {
    /// Reno's state (ns-2 NewReno handles duplicate ACKs exactly as Reno does).
    pub(crate) reno: Reno,
    /// A partial ACK of the current recovery has been seen (ns-2 `firstpartial_`).
    first_partial_seen: bool,
}

impl NewReno {
    /// A new ACK during fast recovery that does not cover `recover` is handled here entirely
    /// (ns-2 `partialnewack_helper`); the duplicate-ACK count is left as it is (deviation
    /// D13). Returns `false` for any other new ACK.
    pub(crate) fn on_partial_ack(&mut self, s: &mut SenderCore, now: SimTime, ack: u64) -> bool {
        //= ns-2: partial if seqno < recover_ while last_cwnd_action_ == CWND_ACTION_DUPACK
        let highest_ack = ack as i64 - 1;
        if highest_ack >= s.recover || s.last_cwnd_action != CwndAction::DupAck {
            return false;
        }
        s.stats.partial_acks += 1;
        let newly_acked = ack - s.snd_una;
        let dupwnd = &mut self.reno.dupwnd;
        if s.cfg.partial_window_deflation {
            //= ns-2 partialnewack(): deflate the inflation by what was acked, keeping one
            if *dupwnd > newly_acked {
                *dupwnd -= newly_acked - 1;
            } else {
                let excess = newly_acked - *dupwnd;
                let deflated = (s.window().cwnd_segments() - excess as f64).max(1.0);
                s.change_window(WindowChange::Segments(deflated));
                *dupwnd = 1;
            }
        } else {
            // Without deflation the window falls back to the halved cwnd.
            *dupwnd = 0;
        }
        // Slow but steady restarts the timer on every partial ACK; impatient on the first only.
        if !s.cfg.newreno_impatient || !self.first_partial_seen {
            self.first_partial_seen = true;
            s.restart_or_cancel_timer(now, ack < s.snd_max);
        }
        s.snd_una = ack;
        if s.snd_nxt < s.snd_una {
            s.snd_nxt = s.snd_una;
        }
        // The timed segment may be covered: no sample (it might be a retransmission), but the
        // back-off ends, as in ns-2.
        if s.rtt_timing_covered_by(ack) {
            s.cancel_rtt_timing();
            s.rtt.reset_backoff();
        }
        s.record(now, TraceKind::PartialAck);
        s.output(now, s.snd_una, SendCause::PartialAck);
        true
    }

    /// An ACK covering `recover` (or any new ACK outside recovery).
    pub(crate) fn on_full_ack(&mut self, s: &mut SenderCore) {
        if self.reno.dupwnd > 0 {
            self.reno.dupwnd = 0;
            if s.last_cwnd_action == CwndAction::DupAck {
                s.last_cwnd_action = CwndAction::Exited;
            }
        }
        self.first_partial_seen = false;
        s.leave_recovery();
    }

    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        self.reno.on_timeout(s);
    }
}

/// ns-2 NewReno sends after an ACK only outside recovery (no limit beyond `max_burst`) or
/// once the duplicate ACKs reached the threshold (at most `recovery_burst` packets); after the
/// first and second duplicate it sends nothing.
pub(super) fn send_burst(s: &SenderCore) -> Option<u32> {
    if s.dupacks == 0 {
        Some(s.cfg.max_burst)
    } else if s.dupacks >= s.cfg.dupthresh {
        Some(s.cfg.recovery_burst)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use crate::sender_core::CaState;
    use congsim_core::time::SimDuration;

    /// An ns-2 NewReno core in fast recovery: segments 0..10 sent, 4 lost, three duplicates.
    fn recovering(partial_window_deflation: bool) -> (SenderCore, NewReno) {
        let cfg = crate::config::SenderConfig {
            rwnd: 100,
            partial_window_deflation,
            ..Profile::Ns2_2000.sender(Variant::NewReno)
        };
        let mut s = SenderCore::new(cfg.into(), SimDuration::ZERO);
        s.start(None);
        s.change_window(WindowChange::Segments(10.0));
        s.send_window(SimTime::ZERO, 0, 0);
        s.new_ack(SimTime::from_millis(10), 4, false);
        let mut r = NewReno::default();
        for _ in 0..3 {
            s.count_dupack();
            r.reno.on_dupack(&mut s, SimTime::from_millis(20), None);
        }
        assert_eq!(s.ca_state(), CaState::Recovery);
        s.outbox.clear();
        (s, r)
    }

    #[test]
    fn a_partial_ack_resends_the_next_hole_and_deflates_dupwnd() {
        let (mut s, mut r) = recovering(false);
        assert!(r.on_partial_ack(&mut s, SimTime::from_millis(30), 6));
        assert_eq!(
            r.reno.dupwnd, 0,
            "without deflation: back to the cut window"
        );
        let (mut s, mut r) = recovering(true);
        assert_eq!(r.reno.dupwnd, 3);
        // Segment 4 arrives again; 6 is the next hole: the ACK covers 4 and 5 (two segments).
        assert!(r.on_partial_ack(&mut s, SimTime::from_millis(30), 6));
        assert_eq!(r.reno.dupwnd, 2, "3 − (2 − 1)");
        assert_eq!(s.snd_una, 6);
        assert_eq!(s.outbox.len(), 1);
        assert!(s.outbox[0].retransmission && s.outbox[0].header.seq == 6);
        assert_eq!(s.stats.partial_acks, 1);
        assert_eq!(s.ca_state(), CaState::Recovery, "still recovering");
    }

    #[test]
    fn the_ack_covering_recover_is_not_partial_and_ends_recovery() {
        let (mut s, mut r) = recovering(true);
        assert!(!r.on_partial_ack(&mut s, SimTime::from_millis(30), 10));
        r.on_full_ack(&mut s);
        assert_eq!(r.reno.dupwnd, 0);
        assert_eq!(s.last_cwnd_action, CwndAction::Exited);
        assert_eq!(s.ca_state(), CaState::Open);
    }

    #[test]
    fn no_send_after_the_first_two_duplicates_and_a_small_burst_in_recovery() {
        let (mut s, _) = recovering(true);
        assert_eq!(send_burst(&s), Some(s.cfg.recovery_burst));
        s.dupacks = 1;
        assert_eq!(send_burst(&s), None);
        s.dupacks = 0;
        assert_eq!(send_burst(&s), Some(s.cfg.max_burst));
    }
}
