//! Reno (spec §4.2): fast retransmit and fast recovery with window inflation, in the ns-2
//! flavour (`dupwnd`, `recover` guard) and the 4.4BSD-Lite / RFC 5681 flavours (inflated
//! `cwnd`).

use crate::config::RenoFlavour;
use crate::congestion::Cause;
use crate::sender_core::{CwndAction, SendCause, SenderCore};
use crate::stats::TraceKind;
use crate::window::{AfterCut, WindowChange};
use congsim_core::time::SimTime;

/// What Reno remembers besides the sender core.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reno {
    /// ns-2 Reno `dupwnd_`: packets added to the usable window during fast recovery.
    pub(crate) dupwnd: u64,
}

impl Reno {
    /// A duplicate ACK (counted already). `recovery_point` is RFC 6582's `recover` for NewReno
    /// in the byte-numbered flavours: a fast retransmit only once the ACK passes it.
    pub(crate) fn on_dupack(
        &mut self,
        s: &mut SenderCore,
        now: SimTime,
        recovery_point: Option<&mut Option<u64>>,
    ) {
        let thresh = s.cfg.dupthresh;
        match s.cfg.reno_flavour {
            RenoFlavour::Ns2 => {
                if s.dupacks == thresh {
                    let entered = super::common::ns2_guard_allows(s);
                    let after_ecn = !entered && s.ecn_cut_this_window();
                    if entered || after_ecn {
                        // After an ECN response in this window: repair without a second cut.
                        enter(s, now, !after_ecn);
                        s.record(now, TraceKind::FastRetransmit);
                    }
                    // Before ns-2.35 (exitFastRetrans_ off) the window is inflated even when
                    // the guard declined the fast retransmit.
                    if entered || after_ecn || !s.cfg.exit_fast_retrans {
                        self.dupwnd = u64::from(thresh);
                    }
                } else if s.dupacks > thresh
                    && (!s.cfg.exit_fast_retrans || s.last_cwnd_action == CwndAction::DupAck)
                {
                    self.dupwnd += 1;
                }
            }
            RenoFlavour::Bsd | RenoFlavour::Rfc5681 => {
                if s.dupacks == thresh {
                    //= RFC 6582 §3.2 (2): NewReno enters only if the ACK covers more than recover
                    let before_point = recovery_point
                        .as_deref()
                        .is_some_and(|point| point.is_some_and(|p| s.snd_una < p));
                    if s.in_recovery() || before_point {
                        return;
                    }
                    if let Some(point) = recovery_point {
                        *point = Some(s.snd_max);
                    }
                    let after_ecn = s.ecn_cut_this_window();
                    enter(s, now, !after_ecn);
                    //= 4.4BSD: snd_cwnd = snd_ssthresh + maxseg * t_dupacks
                    if after_ecn {
                        s.change_window(WindowChange::SsthreshPlus(u64::from(thresh)));
                    } else {
                        // The cut left cwnd at ssthresh (never above cwnd before it).
                        s.change_window(WindowChange::AddSegments(u64::from(thresh)));
                    }
                    s.record(now, TraceKind::FastRetransmit);
                } else if s.dupacks > thresh && s.in_recovery() {
                    s.change_window(WindowChange::InflateOne);
                }
            }
        }
    }

    /// A new ACK, before the common processing.
    pub(crate) fn on_new_ack(&mut self, s: &mut SenderCore) {
        match s.cfg.reno_flavour {
            RenoFlavour::Ns2 => {
                // Any new ACK, full or partial, ends fast recovery; cwnd already holds the
                // halved window.
                if s.last_cwnd_action == CwndAction::DupAck {
                    s.last_cwnd_action = CwndAction::Exited;
                }
                self.dupwnd = 0;
            }
            RenoFlavour::Bsd => {
                //= 4.4BSD-Lite: if (t_dupacks > tcprexmtthresh && snd_cwnd > snd_ssthresh)
                //=                  snd_cwnd = snd_ssthresh
                if s.dupacks > s.cfg.dupthresh && s.window().above_ssthresh() {
                    s.change_window(WindowChange::SsthreshPlus(0));
                }
            }
            RenoFlavour::Rfc5681 => {
                //= RFC 5681 §3.2 (6): the next ACK of new data sets cwnd to ssthresh
                if s.in_recovery() {
                    s.change_window(WindowChange::SsthreshPlus(0));
                }
            }
        }
        s.leave_recovery();
    }

    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        self.dupwnd = 0;
        s.dupacks = 0;
        if s.cfg.ns2_bugfix {
            s.recover = s.maxseq();
        }
    }
}

/// Fast retransmit and entry into fast recovery; `cut` cuts the window (not when an ECN
/// response already did in this window). Sack1 enters the same way.
pub(super) fn enter(s: &mut SenderCore, now: SimTime, cut: bool) {
    s.recover = s.maxseq();
    s.last_cwnd_action = CwndAction::DupAck;
    if cut {
        s.cut_window(now, Cause::Loss, AfterCut::Reduced);
    }
    s.stats.fast_retransmits += 1;
    s.stats.fast_recoveries += 1;
    s.enter_recovery();
    s.cancel_rtt_timing();
    // Restart the timer without back-off, then resend the first unacknowledged segment.
    s.cancel_timer();
    s.arm_timer(now);
    s.output(now, s.snd_una, SendCause::FastRetransmit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SeqMode, Variant};
    use crate::sender_core::CaState;
    use congsim_core::time::SimDuration;

    /// A core of `profile` with segments 0..10 sent and 0..4 acknowledged, at cwnd 10.
    fn core(profile: Profile) -> SenderCore {
        let mut cfg = profile.sender(Variant::Reno);
        if cfg.seq_mode == SeqMode::Packets {
            cfg.rwnd = 100;
        }
        let mut s = SenderCore::new(cfg.into(), SimDuration::ZERO);
        s.start(None);
        s.change_window(WindowChange::Segments(10.0));
        s.send_window(SimTime::ZERO, 0, 0);
        s.new_ack(SimTime::from_millis(10), 4, false);
        s
    }

    fn duplicates(reno: &mut Reno, s: &mut SenderCore, n: u32) {
        for _ in 0..n {
            s.count_dupack();
            reno.on_dupack(s, SimTime::from_millis(20), None);
        }
    }

    #[test]
    fn ns2_reno_halves_inflates_dupwnd_and_exits_on_any_new_ack() {
        let mut s = core(Profile::Ns2_2000);
        let mut reno = Reno::default();
        duplicates(&mut reno, &mut s, 3);
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!((s.window().cwnd_segments(), reno.dupwnd), (5.0, 3));
        duplicates(&mut reno, &mut s, 2);
        assert_eq!(reno.dupwnd, 5, "one more per further duplicate");
        reno.on_new_ack(&mut s);
        assert_eq!(reno.dupwnd, 0);
        assert_eq!(s.last_cwnd_action, CwndAction::Exited);
        assert_ne!(s.ca_state(), CaState::Recovery);
    }

    #[test]
    fn rfc5681_inflates_cwnd_itself_and_deflates_to_ssthresh() {
        let mut s = core(Profile::Rfc);
        let mut reno = Reno::default();
        duplicates(&mut reno, &mut s, 3);
        let ssthresh = s.window().ssthresh_segments();
        assert_eq!(
            s.window().cwnd_segments(),
            ssthresh + 3.0,
            "ssthresh + 3 segments"
        );
        duplicates(&mut reno, &mut s, 1);
        assert_eq!(s.window().cwnd_segments(), ssthresh + 4.0);
        assert_eq!(reno.dupwnd, 0, "the byte flavours keep no dupwnd");
        reno.on_new_ack(&mut s);
        assert_eq!(s.window().cwnd_segments(), ssthresh);
    }

    #[test]
    fn a_recovery_point_holds_newreno_back_until_the_ack_passes_it() {
        let mut s = core(Profile::Rfc);
        let mut reno = Reno::default();
        let mut point = Some(s.snd_una + 1);
        for _ in 0..3 {
            s.count_dupack();
            reno.on_dupack(&mut s, SimTime::from_millis(20), Some(&mut point));
        }
        assert_eq!(s.stats.fast_retransmits, 0);
        let mut point = Some(s.snd_una);
        s.dupacks = 2;
        s.count_dupack();
        reno.on_dupack(&mut s, SimTime::from_millis(20), Some(&mut point));
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(point, Some(s.snd_max), "recover = HighData");
    }
}
