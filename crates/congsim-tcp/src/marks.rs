//! The sender's answer to echoed congestion marks (spec §4.6 ECN, §4.7 BCN-TCP): the window
//! shrinks, nothing is retransmitted, and loss recovery (`crate::recovery`) goes on as before,
//! except that a fast retransmit in the window an ECN response already cut does not cut it
//! again (`SenderCore::ecn_cut_this_window`).

use crate::config::{BcnReaction, MarkResponse};
use crate::congestion::{Cause, CutBase};
use crate::sender_core::{CwndAction, SenderCore};
use crate::stats::TraceKind;
use crate::window::{AfterCut, WindowChange};
use congsim_core::time::SimTime;

/// What answering marks remembers between ACKs.
#[derive(Clone, Debug)]
pub(crate) struct MarkResponder {
    /// ns-2 `ecn_backoff_`: an ECN response found the window at one segment.
    ecn_backoff: bool,
    /// BCN once per round trip: the highest packet sent at the last response.
    bcn_recover: i64,
    /// Calhoun's increase: the highest packet sent when the current round trip began, whether
    /// it has seen a mark, and the round trips without one in a row.
    round_trip_end: i64,
    marked_this_round_trip: bool,
    clean_round_trips: u32,
}

impl Default for MarkResponder {
    fn default() -> Self {
        Self {
            ecn_backoff: false,
            bcn_recover: -1,
            round_trip_end: -1,
            marked_this_round_trip: false,
            clean_round_trips: 0,
        }
    }
}

impl MarkResponder {
    /// An ACK echoing a mark arrives (or the network signals congestion directly); runs before
    /// the ACK itself is processed (as in ns-2).
    pub(crate) fn on_echo(&mut self, s: &mut SenderCore, now: SimTime, ack_seg: u64) {
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
                // At a window of one segment the cut cannot shrink it: back the timer off
                // instead (ns-2 `ecn_backoff_`: from the second such response on; deviation D9).
                if s.window().cwnd_segments() <= 1.0 {
                    if self.ecn_backoff {
                        s.rtt.back_off();
                    }
                    self.ecn_backoff = true;
                } else {
                    self.ecn_backoff = false;
                }
                let base = CutBase::Window { rwnd: s.rwnd };
                s.cut(now, Cause::Ecn, base, AfterCut::Reduced);
                s.stats.ecn_responses += 1;
                s.cwr_pending = true;
                s.record(now, TraceKind::EcnResponse);
            }
            MarkResponse::Bcn {
                decrease_factor,
                reaction,
            } => {
                self.marked_this_round_trip = true;
                if reaction != BcnReaction::PerMarkedAck {
                    if highest_ack <= self.bcn_recover {
                        return;
                    }
                    self.bcn_recover = s.maxseq();
                }
                s.stats.cwnd_cuts += 1;
                s.change_window(WindowChange::ScaleDown(decrease_factor));
                s.stats.bcn_responses += 1;
                s.cwr_pending = true;
                s.record(now, TraceKind::BcnResponse);
            }
        }
    }

    /// An ACK for new data arrives: with Calhoun's scheme, a round trip that ends here counts
    /// as clean when no mark came back in it, and the second clean one in a row adds a segment
    /// above ssthresh (where the window's own growth is held, `SenderCore::new_ack`).
    pub(crate) fn on_new_data_acked(&mut self, s: &mut SenderCore, ack_seg: u64) {
        let MarkResponse::Bcn {
            reaction: BcnReaction::Calhoun,
            ..
        } = s.cfg.mark_response
        else {
            return;
        };
        if (ack_seg as i64 - 1) <= self.round_trip_end {
            return;
        }
        self.clean_round_trips = if self.marked_this_round_trip {
            0
        } else {
            self.clean_round_trips + 1
        };
        if self.clean_round_trips == 2 {
            let window = s.window();
            if !window.in_slow_start() {
                let one_more = window.cwnd_for_segments(window.cwnd_segments() + 1.0);
                s.change_window(WindowChange::Cwnd(one_more));
            }
            self.clean_round_trips = 0;
        }
        self.marked_this_round_trip = false;
        self.round_trip_end = s.maxseq();
    }
}
