//! Loss recovery: what a variant does on duplicate ACKs, on a new ACK and on a timeout
//! (spec `tcp.md` §4). Window arithmetic is in `window`; the common timeout action and the
//! send loop are in `sender`. NewReno and SACK join as further modules and [`Variant`] arms.

mod newreno;
mod reno;
mod rfc6582;
mod rfc6675;
mod sack1;
pub(crate) mod scoreboard;
mod tahoe;

use crate::config::{RenoFlavour, SackSender, SeqMode, Variant};
use crate::sender::{SendCause, TcpSender};
use congsim_core::time::SimTime;
use congsim_core::wire::SackBlocks;

/// What a SACK sender remembers besides the common sender state.
#[derive(Clone, Debug, Default)]
pub(crate) struct SackState {
    /// What the receiver holds and what this recovery resent.
    pub(crate) scoreboard: scoreboard::Scoreboard,
    /// Segments believed in flight during recovery (ns-2 Sack1 `pipe_`; RFC 6675 `SetPipe()`
    /// plus the segments sent since).
    pub(crate) pipe: i64,
    /// ns-2 Sack1 `timeout_`: after a timeout, duplicate ACKs are ignored until a new ACK.
    pub(crate) ignore_dupacks: bool,
    /// First unacknowledged segment when recovery began (ns-2 Sack1 keeps `last_ack_` there
    /// while partial ACKs move `highest_ack_`).
    pub(crate) recovery_entry_una: u64,
    /// RFC 6675 `HighRxt`, as one past the highest segment retransmitted in this recovery.
    pub(crate) high_rxt_end: u64,
    /// RFC 6675 `RescueRxt`, as one past the segment it names.
    pub(crate) rescue_rxt_end: u64,
}

/// SACK variants process every ACK themselves (the scoreboard and `pipe` change what a
/// duplicate, a partial and a new ACK mean).
/// `duplicate` is the classic duplicate-ACK test of the sequence model (spec §1).
pub(crate) fn on_sack_ack(
    s: &mut TcpSender,
    now: SimTime,
    ack_seg: u64,
    sack: &SackBlocks,
    duplicate: bool,
) {
    match s.cfg.sack_sender {
        SackSender::Ns2Sack1 => sack1::on_ack(s, now, ack_seg, sack),
        SackSender::Rfc6675 | SackSender::Rfc3517 => {
            rfc6675::on_ack(s, now, ack_seg, sack, duplicate)
        }
    }
}

/// The send loop of a SACK variant (holes before new data during recovery).
pub(crate) fn sack_send(s: &mut TcpSender, now: SimTime, burst: u32) {
    match s.cfg.sack_sender {
        SackSender::Ns2Sack1 => sack1::send_loop(s, now, burst),
        SackSender::Rfc6675 | SackSender::Rfc3517 => rfc6675::send_loop(s, now, burst),
    }
}

/// A duplicate ACK was counted (`sender.dupacks` already incremented).
pub(crate) fn on_dupack(s: &mut TcpSender, now: SimTime) {
    if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
        limited_transmit(s, now);
    }
    if !s.cfg.fast_retransmit {
        return;
    }
    match s.cfg.variant {
        Variant::Tahoe => tahoe::on_dupack(s, now),
        // ns-2 NewReno handles duplicate ACKs exactly as Reno does.
        Variant::Reno | Variant::NewReno => reno::on_dupack(s, now),
        Variant::Sack => unreachable!("SACK variants handle their own ACKs"),
    }
}

/// A new ACK arrived. Returns `true` if the variant handled it completely (a NewReno partial
/// ACK), `false` for the common new-ACK processing.
pub(crate) fn on_partial_ack(s: &mut TcpSender, now: SimTime, ack_seg: u64) -> bool {
    match s.cfg.variant {
        Variant::NewReno if s.cfg.reno_flavour == RenoFlavour::Ns2 => {
            newreno::on_partial_ack(s, now, ack_seg)
        }
        Variant::NewReno => rfc6582::on_partial_ack(s, now, ack_seg),
        Variant::Tahoe | Variant::Reno | Variant::Sack => false,
    }
}

/// The burst limit of the send loop after a valid ACK (0: unlimited), or `None` to run no send
/// loop at all.
pub(crate) fn send_burst_after_ack(s: &TcpSender) -> Option<u32> {
    match s.cfg.variant {
        Variant::NewReno if s.cfg.reno_flavour == RenoFlavour::Ns2 => newreno::send_burst(s),
        Variant::NewReno => Some(s.cfg.max_burst),
        Variant::Tahoe | Variant::Reno | Variant::Sack => Some(s.cfg.max_burst),
    }
}

/// A new ACK arrived, before the common new-ACK processing.
pub(crate) fn on_new_ack(s: &mut TcpSender) {
    match s.cfg.variant {
        Variant::Reno => reno::on_new_ack(s),
        Variant::NewReno if s.cfg.reno_flavour == RenoFlavour::Ns2 => newreno::on_full_ack(s),
        Variant::NewReno => rfc6582::on_full_ack(s),
        Variant::Tahoe | Variant::Sack => {}
    }
}

/// The retransmit timer expired, before the common timeout action.
pub(crate) fn on_timeout(s: &mut TcpSender) {
    match s.cfg.variant {
        Variant::Reno | Variant::NewReno => reno::on_timeout(s),
        Variant::Sack => match s.cfg.sack_sender {
            SackSender::Ns2Sack1 => sack1::on_timeout(s),
            SackSender::Rfc6675 | SackSender::Rfc3517 => rfc6675::on_timeout(s),
        },
        Variant::Tahoe => {}
    }
}

/// Limited Transmit (spec §4.5): one new segment per duplicate ACK if the receiver window
/// allows and the data outstanding afterwards stays within `cwnd + dupacks` segments (ns-2
/// `send_one()`) or `cwnd + 2 · SMSS` (RFC 3042, byte mode). cwnd itself does not change.
pub(super) fn limited_transmit(s: &mut TcpSender, now: SimTime) {
    //= ns-2: t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ <= highest_ack_ + cwnd_ + dupacks_
    let seg = s.snd_nxt;
    let allowance = match s.cfg.seq_mode {
        SeqMode::Packets => f64::from(s.dupacks),
        SeqMode::Bytes => 2.0,
    };
    let outstanding_after = (seg + 1 - s.snd_una) as f64;
    let within_cwnd = outstanding_after <= s.window.cwnd_segments() + allowance;
    if s.started && seg < s.end && s.rwnd_allows(seg) && within_cwnd {
        s.output(now, seg, SendCause::Window);
        s.snd_nxt += 1;
        s.stats.limited_transmit_sends += 1;
        s.limited_transmit_outstanding += 1;
    }
}

/// ns-2 `bugFix_` guard: a fast retransmit is allowed only once the window that triggered
/// the last one (or a timeout) is fully ACKed: `highest_ack > recover`.
pub(crate) fn ns2_guard_allows(s: &TcpSender) -> bool {
    !s.cfg.ns2_bugfix
        || s.highest_ack() > s.recover
        || (s.cfg.ns2_bugfix_ss && s.highest_ack() == 0)
}
