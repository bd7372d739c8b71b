//! Loss recovery: what a variant does on duplicate ACKs, on a new ACK and on a timeout
//! (spec `tcp.md` §4). Window arithmetic is in `window`; the common timeout action and the
//! send loop are in `sender`. NewReno and SACK join as further modules and [`Variant`] arms.

mod reno;
mod tahoe;

use crate::config::Variant;
use crate::sender::TcpSender;
use congsim_core::time::SimTime;

/// A duplicate ACK was counted (`sender.dupacks` already incremented).
pub(crate) fn on_dupack(s: &mut TcpSender, now: SimTime) {
    if !s.cfg.fast_retransmit {
        return;
    }
    match s.cfg.variant {
        Variant::Tahoe => tahoe::on_dupack(s, now),
        Variant::Reno => reno::on_dupack(s, now),
    }
}

/// A new ACK arrived, before the common new-ACK processing.
pub(crate) fn on_new_ack(s: &mut TcpSender) {
    if let Variant::Reno = s.cfg.variant {
        reno::on_new_ack(s);
    }
}

/// The retransmit timer expired, before the common timeout action.
pub(crate) fn on_timeout(s: &mut TcpSender) {
    if let Variant::Reno = s.cfg.variant {
        reno::on_timeout(s);
    }
}

/// ns-2 `bugFix_` guard: a fast retransmit is allowed only once the window that triggered
/// the last one (or a timeout) is fully ACKed: `highest_ack > recover`.
pub(crate) fn ns2_guard_allows(s: &TcpSender) -> bool {
    !s.cfg.ns2_bugfix || s.highest_ack() > s.recover
}
