//! What several recovery variants share: Limited Transmit and ns-2's one-fast-retransmit-per-
//! window guard.

use crate::config::SeqMode;
use crate::sender_core::{SendCause, SenderCore};
use congsim_core::time::SimTime;

/// Limited Transmit (spec §4.5): one new segment per duplicate ACK if the receiver window
/// allows and the data outstanding afterwards stays within `cwnd + dupacks` segments (ns-2
/// `send_one()`) or `cwnd + 2 · SMSS` (RFC 3042, byte mode). cwnd itself does not change.
pub(super) fn limited_transmit(s: &mut SenderCore, now: SimTime) {
    //= ns-2: t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ <= highest_ack_ + cwnd_ + dupacks_
    let seg = s.snd_nxt;
    let allowance = match s.cfg.seq_mode {
        SeqMode::Packets => f64::from(s.dupacks),
        SeqMode::Bytes => 2.0,
    };
    let outstanding_after = (seg + 1 - s.snd_una) as f64;
    let within_cwnd = outstanding_after <= s.window().cwnd_segments() + allowance;
    if s.started && seg < s.end && s.rwnd_allows(seg) && within_cwnd {
        s.output(now, seg, SendCause::Window);
        s.snd_nxt += 1;
        s.stats.limited_transmit_sends += 1;
        s.limited_transmit_outstanding += 1;
    }
}

/// ns-2 `bugFix_` guard: a fast retransmit is allowed only once the window that triggered
/// the last one (or a timeout) is fully ACKed: `highest_ack > recover`.
pub(super) fn ns2_guard_allows(s: &SenderCore) -> bool {
    !s.cfg.ns2_bugfix
        || s.highest_ack() > s.recover
        || (s.cfg.ns2_bugfix_ss && s.highest_ack() == 0)
}
