//! ns-2 `Agent/TCP/Sack1` (spec §4.4.1): Fall and Floyd's SACK recovery with a running `pipe`
//! estimate. Entry on the third duplicate ACK (since July 2000 only duplicates that bring new
//! SACK information count), `pipe` starts at `outstanding − 3` (before August 2000:
//! `int(cwnd) − 3`), each ACK takes one from it and a partial ACK two, each send adds one;
//! while `pipe < cwnd` the sender fills the lowest hole no SACK covers and that it has not
//! resent, then sends new data. The ACK covering `recover` ends recovery without growing the
//! window; a timeout forgets the scoreboard and goes back N.

use super::scoreboard::Scoreboard;
use crate::sender_core::{SendCause, SenderCore};
use crate::stats::TraceKind;
use congsim_core::time::SimTime;
use congsim_core::wire::SackBlocks;

#[derive(Clone, Debug, Default)]
pub(crate) struct Sack1 {
    /// What the receiver holds and what this recovery resent.
    scoreboard: Scoreboard,
    /// Segments believed in flight during recovery (ns-2 `pipe_`).
    pipe: i64,
    /// ns-2 `timeout_`: after a timeout, duplicate ACKs are ignored until a new ACK.
    ignore_dupacks: bool,
    /// First unacknowledged segment when recovery began (ns-2 keeps `last_ack_` there while
    /// partial ACKs move `highest_ack_`).
    recovery_entry_una: u64,
}

impl Sack1 {
    pub(crate) fn pipe(&self) -> i64 {
        self.pipe
    }

    pub(crate) fn on_ack(
        &mut self,
        s: &mut SenderCore,
        now: SimTime,
        ack_seg: u64,
        sack: &SackBlocks,
    ) {
        let blocks = sack.ranges(ack_seg);
        if !s.in_recovery() {
            let valid = ack_seg >= s.snd_una;
            if ack_seg > s.snd_una {
                s.new_ack(now, ack_seg, true);
                self.ignore_dupacks = false;
                self.scoreboard.clear();
            } else if ack_seg == s.snd_una && !self.ignore_dupacks {
                let changed = self.scoreboard.update(s.snd_una, blocks);
                if changed || !s.cfg.sack1_dupack_needs_new_info {
                    s.count_dupack();
                    if s.dupacks == s.cfg.dupthresh && s.cfg.fast_retransmit {
                        self.dupack_action(s, now);
                    } else if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
                        super::common::limited_transmit(s, now);
                    }
                }
            }
            if valid && s.dupacks == 0 {
                self.send_loop(s, now, s.cfg.max_burst);
            }
            return;
        }
        self.pipe -= 1;
        let highest_ack = ack_seg as i64 - 1;
        if highest_ack >= s.recover {
            // Recovery is over; cwnd keeps the cut value (ns-2 calls newack(), not
            // recv_newack_helper(): no opencwnd on this ACK).
            s.recover = 0;
            s.leave_recovery();
            s.new_ack(now, ack_seg, false);
            self.ignore_dupacks = false;
            self.scoreboard.clear();
        } else if ack_seg > s.snd_una {
            // A partial ACK: the cumulative point moves; the ACK was probably for a
            // retransmission, so a second packet has left the pipe.
            s.stats.partial_acks += 1;
            s.snd_una = ack_seg;
            self.scoreboard.update(s.snd_una, blocks);
            self.pipe -= 1;
            s.restart_or_cancel_timer(now, ack_seg < s.snd_max);
            s.rtt.reset_backoff();
            s.record(now, TraceKind::PartialAck);
        } else if !self.ignore_dupacks {
            let changed = self.scoreboard.update(s.snd_una, blocks);
            if changed && s.dupacks > 0 {
                s.count_dupack();
            }
        }
        if ack_seg >= self.recovery_entry_una {
            self.send_loop(s, now, s.cfg.max_burst);
        }
    }

    /// The third duplicate ACK (ns-2 `Sack1TcpAgent::dupack_action`).
    fn dupack_action(&mut self, s: &mut SenderCore, now: SimTime) {
        // After an ECN response in this window the repair goes ahead without a second cut.
        let after_ecn = s.ecn_cut_this_window();
        if !after_ecn && !super::common::ns2_guard_allows(s) {
            return;
        }
        let dupthresh = i64::from(s.cfg.dupthresh);
        self.pipe = if s.cfg.sack1_pipe_from_cwnd && !after_ecn {
            s.window().cwnd_segments() as i64 - dupthresh
        } else {
            s.maxseq() - s.highest_ack() - dupthresh
        };
        self.recovery_entry_una = s.snd_una;
        self.scoreboard.mark_retransmitted(s.snd_una);
        // The fast retransmission itself is not added to `pipe`.
        super::reno::enter(s, now, !after_ecn);
        s.record(now, TraceKind::FastRetransmit);
    }

    /// The Sack1 send loop: holes first (during recovery), then new data.
    pub(crate) fn send_loop(&mut self, s: &mut SenderCore, now: SimTime, burst: u32) {
        if !s.started {
            return;
        }
        let win = s.window().usable(s.rwnd, 0);
        let mut sent = 0;
        loop {
            let open = if s.in_recovery() {
                self.pipe < s.window().cwnd_segments() as i64
            } else {
                s.snd_nxt < s.snd_una + win
            };
            let last_ack = if s.in_recovery() {
                self.recovery_entry_una
            } else {
                s.snd_una
            };
            if !open || last_ack >= s.end || s.pacing_holds(now) {
                break;
            }
            let next = match self.scoreboard.next_unsacked_unretransmitted() {
                Some(hole) if s.recover > 0 && hole < s.snd_una + s.rwnd => {
                    self.scoreboard.mark_retransmitted(hole);
                    Some((hole, SendCause::SackHole))
                }
                Some(_) => None,
                None => {
                    let limit = if s.in_recovery() { s.rwnd } else { win };
                    (s.snd_nxt < s.snd_una + limit && s.snd_nxt < s.end)
                        .then_some((s.snd_nxt, SendCause::Window))
                }
            };
            let Some((seg, cause)) = next else {
                break;
            };
            s.output(now, seg, cause);
            if s.snd_nxt <= seg {
                s.snd_nxt = seg + 1;
            }
            self.pipe += 1;
            sent += 1;
            if burst > 0 && sent == burst {
                break;
            }
        }
    }

    /// Before the common timeout action: leave recovery, forget the scoreboard (RFC 2018),
    /// and ignore duplicate ACKs until a new ACK arrives.
    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        s.dupacks = 0;
        s.leave_recovery();
        self.ignore_dupacks = true;
        s.recover = s.maxseq();
        self.scoreboard.clear();
    }
}
