//! # congsim-tcp: sans-IO TCP senders and receivers
//!
//! Implements `spec/tcp.md`: Tahoe (fast retransmit on or off), Reno, NewReno and SACK, with
//! Limited Transmit, ECN and BCN, in both sequence models (ns-2 packet-numbered and 4.3BSD
//! byte-numbered), with both timer mechanisms (ns-2 exact-time expiry with tick-quantised RTT
//! samples; the BSD global tick clock), Karn's rule, exponential back-off, receiver window and
//! window scaling, and delayed ACKs; and, beyond the seeds, CUBIC.
//!
//! Every endpoint is a state machine driven by its caller, with no clock of its own:
//!
//! * input: [`TcpSender::on_ack`], [`TcpSender::on_timeout`], [`TcpSender::on_slow_tick`]
//!   (and the receiver's `on_data`, `on_timeout`, `on_fast_tick`);
//! * output: [`TcpSender::drain_transmit`] hands over the segments to send, written into the
//!   endpoint's own buffer or one the caller lent it ([`TcpSender::lend_buffer`]);
//! * wake-up: [`TcpSender::next_timeout`] is the next instant it must be woken at.
//!
//! The pieces are cut as the spec cuts them, each depending only on those listed before it:
//! [`config`] holds the switches and the named [`Profile`] presets; [`window`] the
//! congestion-window arithmetic per sequence model and [`rtt`] the RTT estimator and
//! retransmission timeout; [`congestion`] the controllers (how the window grows and how far it
//! is cut); `sender_core` the state every variant shares and the send primitive; `marks` the
//! answer to ECN and BCN echoes; `recovery` the loss-recovery variants, each owning its state
//! (Tahoe, Reno, ns-2 NewReno, RFC 6582, ns-2 Sack1, RFC 6675); and [`sender`] the public
//! sender that routes events between them.

pub mod config;
pub mod congestion;
mod marks;
pub mod rate;
mod reassembly;
pub mod receiver;
mod recovery;
pub mod rtt;
pub mod segment;
pub mod sender;
mod sender_core;
pub mod stats;
pub mod window;

pub use config::{
    AckPolicy, BcnReaction, CongestionControl, Profile, ReceiverConfig, SenderConfig, SeqMode,
    TimerMode, Variant,
};
pub use receiver::{ReceiverStats, TcpReceiver};
pub use segment::Segment;
pub use sender::TcpSender;
pub use sender_core::{CaState, CwndAction};
pub use stats::{ChangeTrace, SenderState, SenderStats, StateChange, TraceEvent, TraceKind};
