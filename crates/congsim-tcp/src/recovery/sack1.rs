//! ns-2 `Agent/TCP/Sack1` (spec §4.4.1): Fall and Floyd's SACK recovery with a running `pipe`
//! estimate. Entry on the third duplicate ACK (since July 2000 only duplicates that bring new
//! SACK information count), `pipe` starts at `outstanding − 3` (before August 2000:
//! `int(cwnd) − 3`), each ACK takes one from it and a partial ACK two, each send adds one;
//! while `pipe < cwnd` the sender fills the lowest hole no SACK covers and that it has not
//! resent, then sends new data. The ACK covering `recover` ends recovery without growing the
//! window; a timeout forgets the scoreboard and goes back N.

use crate::marks;
use crate::sender::{SendCause, TcpSender, TraceKind};
use congsim_core::time::SimTime;
use congsim_core::wire::SackBlocks;

pub(super) fn on_ack(s: &mut TcpSender, now: SimTime, ack_seg: u64, sack: &SackBlocks) {
    let blocks = sack.ranges(ack_seg);
    if !s.in_fast_recovery {
        let valid = ack_seg >= s.snd_una;
        if ack_seg > s.snd_una {
            s.first_partial_seen = false;
            s.new_ack(now, ack_seg, true);
            s.sack.ignore_dupacks = false;
            s.sack.scoreboard.clear();
        } else if ack_seg == s.snd_una && !s.sack.ignore_dupacks {
            let changed = s.sack.scoreboard.update(s.snd_una, blocks);
            if changed || !s.cfg.sack1_dupack_needs_new_info {
                s.stats.dupacks_rcvd += 1;
                s.dupacks += 1;
                if s.dupacks == s.cfg.dupthresh && s.cfg.fast_retransmit {
                    dupack_action(s, now);
                } else if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
                    super::limited_transmit(s, now);
                }
            }
        }
        if valid && s.dupacks == 0 {
            send_loop(s, now, s.cfg.max_burst);
        }
        return;
    }
    s.sack.pipe -= 1;
    let highest_ack = ack_seg as i64 - 1;
    if highest_ack >= s.recover {
        // Recovery is over; cwnd keeps the halved value (ns-2 calls newack(), not
        // recv_newack_helper(): no opencwnd on this ACK).
        s.recover = 0;
        s.in_fast_recovery = false;
        s.new_ack(now, ack_seg, false);
        s.sack.ignore_dupacks = false;
        s.sack.scoreboard.clear();
    } else if ack_seg > s.snd_una {
        // A partial ACK: the cumulative point moves; the ACK was probably for a
        // retransmission, so a second packet has left the pipe.
        s.stats.partial_acks += 1;
        s.snd_una = ack_seg;
        s.sack.scoreboard.update(s.snd_una, blocks);
        s.sack.pipe -= 1;
        s.restart_or_cancel_timer(now, ack_seg < s.snd_max);
        s.rtt.reset_backoff();
        s.record(now, TraceKind::PartialAck);
    } else if !s.sack.ignore_dupacks {
        let changed = s.sack.scoreboard.update(s.snd_una, blocks);
        if changed && s.dupacks > 0 {
            s.stats.dupacks_rcvd += 1;
            s.dupacks += 1;
        }
    }
    if ack_seg >= s.sack.recovery_entry_una {
        send_loop(s, now, s.cfg.max_burst);
    }
}

/// The third duplicate ACK (ns-2 `Sack1TcpAgent::dupack_action`).
fn dupack_action(s: &mut TcpSender, now: SimTime) {
    // After an ECN response in this window the repair goes ahead without a second cut.
    let after_ecn = marks::cut_this_window(s);
    if !after_ecn && !super::ns2_guard_allows(s) {
        return;
    }
    let dupthresh = i64::from(s.cfg.dupthresh);
    s.sack.pipe = if s.cfg.sack1_pipe_from_cwnd && !after_ecn {
        s.window.cwnd_segments() as i64 - dupthresh
    } else {
        s.maxseq() - s.highest_ack() - dupthresh
    };
    s.sack.recovery_entry_una = s.snd_una;
    s.sack.scoreboard.mark_retransmitted(s.snd_una);
    // The fast retransmission itself is not added to `pipe`.
    super::reno::enter(s, now, !after_ecn);
    s.record(now, TraceKind::FastRetransmit);
}

/// The Sack1 send loop: holes first (during recovery), then new data.
pub(super) fn send_loop(s: &mut TcpSender, now: SimTime, burst: u32) {
    if !s.started {
        return;
    }
    let win = s.window.usable(s.rwnd, 0);
    let mut sent = 0;
    loop {
        let open = if s.in_fast_recovery {
            s.sack.pipe < s.window.cwnd_segments() as i64
        } else {
            s.snd_nxt < s.snd_una + win
        };
        let last_ack = if s.in_fast_recovery {
            s.sack.recovery_entry_una
        } else {
            s.snd_una
        };
        if !open || last_ack >= s.end {
            break;
        }
        let next = match s.sack.scoreboard.next_unsacked_unretransmitted() {
            Some(hole) if s.recover > 0 && hole < s.snd_una + s.rwnd => {
                s.sack.scoreboard.mark_retransmitted(hole);
                Some((hole, SendCause::SackHole))
            }
            Some(_) => None,
            None => {
                let limit = if s.in_fast_recovery { s.rwnd } else { win };
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
        s.sack.pipe += 1;
        sent += 1;
        if burst > 0 && sent == burst {
            break;
        }
    }
}

/// Before the common timeout action: leave recovery, forget the scoreboard (RFC 2018), and
/// ignore duplicate ACKs until a new ACK arrives.
pub(super) fn on_timeout(s: &mut TcpSender) {
    s.dupacks = 0;
    s.in_fast_recovery = false;
    s.sack.ignore_dupacks = true;
    s.recover = s.maxseq();
    s.sack.scoreboard.clear();
}
