//! Why a packet is dropped, and what a scripted entry does to its packet: shared by the link
//! and its queue disciplines.

/// Why a packet was dropped at a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropReason {
    /// The queue was full (tail drop).
    Overflow,
    /// RED's probabilistic early drop.
    Early,
    /// RED's forced drop: the average above `max_th` (`2·max_th` when gentle).
    Forced,
    /// A scripted drop ("the k-th data packet of flow f"), for tests.
    Scripted,
    /// Random loss configured on the link.
    RandomLoss,
    /// The link was down (a scheduled event): queued, in transmission, propagating or arriving.
    LinkDown,
}

/// What a scripted entry does to its packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptedAction {
    Drop,
    /// Set CE on an ECN-capable packet; a packet that is not ECN-capable is dropped instead,
    /// as a marking router would.
    Mark,
}
