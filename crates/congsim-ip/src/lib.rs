//! # congsim-ip: links and router output queues
//!
//! A [`Link`] is unidirectional: rate, propagation delay and an output queue discipline
//! ([`Qdisc`]). A packet of `L` bytes occupies the transmitter for exactly `8L/C` (with the
//! sub-picosecond remainder carried) and reaches the far node `delay` after its last bit left.
//! Every arrival passes through the discipline's `enqueue`, even when the transmitter is idle,
//! so that active queue management sees every packet (spec `ip.md` §0).
//!
//! The link is a sans-IO state machine: the caller tells it that a packet arrived or that a
//! transmission ended, and it answers with what to schedule next.

pub mod cbr;
pub mod drops;
mod fifo;
pub mod link;
pub mod qdisc;

pub use drops::{DropReason, ScriptedAction};
pub use link::{Link, LinkConfig, LinkStats, Offer, Sojourn};
pub use qdisc::{DropTail, LimitSemantics, Qdisc, QueueLimit};
