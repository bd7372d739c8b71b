//! Loss recovery: what a variant does on duplicate ACKs, on a new ACK and on a timeout (spec
//! `tcp.md` §4), in the manner of ns-3's `TcpRecoveryOps`. How far the window is cut is the
//! congestion controller's (`crate::congestion`); the common timeout action and the send
//! primitive are the sender core's (`crate::sender_core`).
//!
//! The variant is chosen once per connection from (variant, Reno flavour, SACK sender) and owns
//! its state; every hook sees the sender core and that state, nothing else. Variants that
//! count duplicate ACKs ([`DupackRecovery`]) leave the ACK's classification to the sender;
//! SACK senders ([`SackRecovery`]) process every ACK themselves, since the scoreboard and
//! `pipe` change what a duplicate, a partial and a new ACK mean.

mod common;
mod newreno;
mod prr;
mod reno;
mod rfc6582;
mod rfc6675;
mod sack1;
mod scoreboard;
mod tahoe;

use crate::config::{RenoFlavour, SackSender, SenderConfig, Variant};
use crate::sender_core::SenderCore;
use congsim_core::time::SimTime;
use congsim_core::wire::SackBlocks;

pub(crate) use newreno::NewReno;
pub(crate) use reno::Reno;
pub(crate) use rfc6582::Rfc6582;
pub(crate) use rfc6675::Rfc6675;
pub(crate) use sack1::Sack1;

/// The loss recovery a connection runs.
#[derive(Clone, Debug)]
pub(crate) enum Recovery {
    Dupack(DupackRecovery),
    Sack(SackRecovery),
}

/// Recovery driven by the duplicate-ACK count.
#[derive(Clone, Debug)]
pub(crate) enum DupackRecovery {
    Tahoe,
    /// Reno in the flavour `SenderConfig::reno_flavour` names.
    Reno(Reno),
    /// ns-2 `Agent/TCP/Newreno`.
    NewReno(NewReno),
    /// RFC 6582 NewReno (byte-numbered profiles).
    Rfc6582(Rfc6582),
}

/// SACK-based recovery.
#[derive(Clone, Debug)]
pub(crate) enum SackRecovery {
    /// ns-2 `Agent/TCP/Sack1`.
    Sack1(Sack1),
    /// RFC 6675, or RFC 3517 as `SenderConfig::sack_sender` says.
    Rfc6675(Rfc6675),
}

impl Recovery {
    pub(crate) fn new(cfg: &SenderConfig) -> Self {
        match cfg.variant {
            Variant::Tahoe => Self::Dupack(DupackRecovery::Tahoe),
            Variant::Reno => Self::Dupack(DupackRecovery::Reno(Reno::default())),
            Variant::NewReno if cfg.reno_flavour == RenoFlavour::Ns2 => {
                Self::Dupack(DupackRecovery::NewReno(NewReno::default()))
            }
            Variant::NewReno => Self::Dupack(DupackRecovery::Rfc6582(Rfc6582::default())),
            Variant::Sack => Self::Sack(match cfg.sack_sender {
                SackSender::Ns2Sack1 => SackRecovery::Sack1(Sack1::default()),
                SackSender::Rfc6675 | SackSender::Rfc3517 | SackSender::Prr => {
                    SackRecovery::Rfc6675(Rfc6675::default())
                }
            }),
        }
    }

    /// The send loop (spec §3.2), at most `burst` segments (0: unlimited).
    pub(crate) fn send(&mut self, s: &mut SenderCore, now: SimTime, burst: u32) {
        match self {
            Self::Dupack(r) => s.send_window(now, burst, r.extra_window()),
            Self::Sack(SackRecovery::Sack1(r)) => r.send_loop(s, now, burst),
            Self::Sack(SackRecovery::Rfc6675(r)) => r.send_loop(s, now, burst),
        }
    }

    /// The retransmit timer expired, before the common timeout action.
    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        match self {
            Self::Dupack(DupackRecovery::Tahoe) => {}
            Self::Dupack(DupackRecovery::Reno(r)) => r.on_timeout(s),
            Self::Dupack(DupackRecovery::NewReno(r)) => r.on_timeout(s),
            Self::Dupack(DupackRecovery::Rfc6582(r)) => r.on_timeout(s),
            Self::Sack(SackRecovery::Sack1(r)) => r.on_timeout(s),
            Self::Sack(SackRecovery::Rfc6675(r)) => r.on_timeout(s),
        }
    }

    /// The SACK sender's estimate of segments in flight during recovery (`None` outside
    /// recovery and for the other variants, which keep no such estimate).
    pub(crate) fn pipe(&self, s: &SenderCore) -> Option<i64> {
        match self {
            Self::Sack(SackRecovery::Sack1(r)) if s.in_recovery() => Some(r.pipe()),
            Self::Sack(SackRecovery::Rfc6675(r)) if s.in_recovery() => Some(r.pipe()),
            _ => None,
        }
    }
}

impl DupackRecovery {
    /// Segments a packet-mode window gains during recovery (ns-2 Reno's `dupwnd`).
    fn extra_window(&self) -> u64 {
        match self {
            Self::Tahoe => 0,
            Self::Reno(r) => r.dupwnd,
            Self::NewReno(r) => r.reno.dupwnd,
            Self::Rfc6582(r) => r.reno.dupwnd,
        }
    }

    /// A duplicate ACK was counted (`SenderCore::count_dupack`).
    pub(crate) fn on_dupack(&mut self, s: &mut SenderCore, now: SimTime) {
        if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
            common::limited_transmit(s, now);
        }
        if !s.cfg.fast_retransmit {
            return;
        }
        match self {
            Self::Tahoe => tahoe::on_dupack(s, now),
            // ns-2 NewReno handles duplicate ACKs exactly as Reno does.
            Self::Reno(r) => r.on_dupack(s, now, None),
            Self::NewReno(r) => r.reno.on_dupack(s, now, None),
            Self::Rfc6582(r) => r.on_dupack(s, now),
        }
    }

    /// A new ACK arrived. Returns `true` if the variant handled it completely (a NewReno
    /// partial ACK), `false` for the common new-ACK processing.
    pub(crate) fn on_partial_ack(&mut self, s: &mut SenderCore, now: SimTime, ack: u64) -> bool {
        match self {
            Self::NewReno(r) => r.on_partial_ack(s, now, ack),
            Self::Rfc6582(r) => r.on_partial_ack(s, now, ack),
            Self::Tahoe | Self::Reno(_) => false,
        }
    }

    /// A new ACK arrived that the variant did not handle itself, before the common new-ACK
    /// processing.
    pub(crate) fn on_new_ack(&mut self, s: &mut SenderCore) {
        match self {
            Self::Tahoe => {}
            Self::Reno(r) => r.on_new_ack(s),
            Self::NewReno(r) => r.on_full_ack(s),
            Self::Rfc6582(r) => r.on_full_ack(s),
        }
    }

    /// The burst limit of the send loop after a valid ACK (0: unlimited), or `None` to run no
    /// send loop at all.
    pub(crate) fn send_burst_after_ack(&self, s: &SenderCore) -> Option<u32> {
        match self {
            Self::NewReno(_) => newreno::send_burst(s),
            Self::Tahoe | Self::Reno(_) | Self::Rfc6582(_) => Some(s.cfg.max_burst),
        }
    }
}

impl SackRecovery {
    /// Every ACK; `duplicate` is the classic duplicate-ACK test of the sequence model (§1).
    pub(crate) fn on_ack(
        &mut self,
        s: &mut SenderCore,
        now: SimTime,
        ack_seg: u64,
        sack: &SackBlocks,
        duplicate: bool,
    ) {
        match self {
            Self::Sack1(r) => r.on_ack(s, now, ack_seg, sack),
            Self::Rfc6675(r) => r.on_ack(s, now, ack_seg, sack, duplicate),
        }
    }
}
