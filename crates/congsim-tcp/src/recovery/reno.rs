//! Reno (spec §4.2): fast retransmit and fast recovery with window inflation, in the ns-2
//! flavour (`dupwnd`, `recover` guard) and the 4.4BSD-Lite flavour (inflated `cwnd`).

use crate::config::{RenoFlavour, Variant};
use crate::marks;
use crate::sender::{CwndAction, SendCause, TcpSender, TraceKind};
use congsim_core::time::SimTime;

pub(super) fn on_dupack(s: &mut TcpSender, now: SimTime) {
    let thresh = s.cfg.dupthresh;
    match s.cfg.reno_flavour {
        RenoFlavour::Ns2 => {
            if s.dupacks == thresh {
                let entered = super::ns2_guard_allows(s);
                let after_ecn = !entered && marks::cut_this_window(s);
                if entered || after_ecn {
                    // After an ECN response in this window: repair without a second cut.
                    enter(s, now, !after_ecn);
                    s.record(now, TraceKind::FastRetransmit);
                }
                // Before ns-2.35 (exitFastRetrans_ off) the window is inflated even when the
                // guard declined the fast retransmit.
                if entered || after_ecn || !s.cfg.exit_fast_retrans {
                    s.dupwnd = u64::from(thresh);
                }
            } else if s.dupacks > thresh
                && (!s.cfg.exit_fast_retrans || s.last_cwnd_action == CwndAction::DupAck)
            {
                s.dupwnd += 1;
            }
        }
        RenoFlavour::Bsd | RenoFlavour::Rfc5681 => {
            if s.dupacks == thresh {
                //= RFC 6582 §3.2 (2): NewReno enters only if the ACK covers more than recover
                let newreno = s.cfg.variant == Variant::NewReno;
                if s.in_fast_recovery
                    || (newreno && s.recovery_point.is_some_and(|point| s.snd_una < point))
                {
                    return;
                }
                if newreno {
                    s.recovery_point = Some(s.snd_max);
                }
                let after_ecn = marks::cut_this_window(s);
                enter(s, now, !after_ecn);
                //= 4.4BSD: snd_cwnd = snd_ssthresh + maxseg * t_dupacks
                s.window.set_ssthresh_plus(u64::from(thresh));
                s.record(now, TraceKind::FastRetransmit);
            } else if s.dupacks > thresh && s.in_fast_recovery {
                s.window.inflate_one();
            }
        }
    }
}

/// Fast retransmit and entry into fast recovery; `cut` halves the window (not when an ECN
/// response already did in this window).
pub(super) fn enter(s: &mut TcpSender, now: SimTime, cut: bool) {
    s.recover = s.maxseq();
    s.last_cwnd_action = CwndAction::DupAck;
    if cut {
        let half = s.cut_window();
        s.window.set_segments(half);
    }
    s.stats.fast_retransmits += 1;
    s.stats.fast_recoveries += 1;
    s.in_fast_recovery = true;
    s.cancel_rtt_timing();
    // Restart the timer without back-off, then resend the first unacknowledged segment.
    s.cancel_timer();
    s.arm_timer(now);
    s.output(now, s.snd_una, SendCause::FastRetransmit);
}

pub(super) fn on_new_ack(s: &mut TcpSender) {
    match s.cfg.reno_flavour {
        RenoFlavour::Ns2 => {
            // Any new ACK, full or partial, ends fast recovery; cwnd already holds the halved
            // window.
            if s.last_cwnd_action == CwndAction::DupAck {
                s.last_cwnd_action = CwndAction::Exited;
            }
            s.dupwnd = 0;
        }
        RenoFlavour::Bsd => {
            //= 4.4BSD-Lite: if (t_dupacks > tcprexmtthresh && snd_cwnd > snd_ssthresh)
            //=                  snd_cwnd = snd_ssthresh
            if s.dupacks > s.cfg.dupthresh && s.window.above_ssthresh() {
                s.window.set_ssthresh_plus(0);
            }
        }
        RenoFlavour::Rfc5681 => {
            //= RFC 5681 §3.2 (6): the next ACK of new data sets cwnd to ssthresh
            if s.in_fast_recovery {
                s.window.set_ssthresh_plus(0);
            }
        }
    }
    s.in_fast_recovery = false;
}

pub(super) fn on_timeout(s: &mut TcpSender) {
    s.dupwnd = 0;
    s.dupacks = 0;
    if s.cfg.ns2_bugfix {
        s.recover = s.maxseq();
    }
    //= RFC 6582 §3.2 (6): after a timeout, recover = HighData
    if s.cfg.reno_flavour == RenoFlavour::Rfc5681 && s.cfg.variant == Variant::NewReno {
        s.recovery_point = Some(s.snd_max);
    }
}
