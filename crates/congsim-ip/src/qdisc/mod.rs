//! Output queue disciplines, behind one closed enum (per-packet calls are static dispatch).
//! RED, priority and CBQ join [`Qdisc`] as further variants.

mod droptail;

pub use droptail::DropTail;

use congsim_core::wire::Packet;

/// How a queue limit counts (spec `ip.md` §0, switch `limit_counts_in_service`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSemantics {
    /// ns-2 `Queue/DropTail`: drop an arrival when `queued + 1 >= limit` (bytes:
    /// `queued_bytes + size >= limit`): at most `limit − 1` packets wait and `limit` are in the
    /// node counting the one in service.
    Ns2DropTail,
    /// `limit` packets (bytes) may wait; the one in service is not counted. This is also what
    /// ns-2's RED does.
    Waiting,
}

/// A queue's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// Result of offering a packet to a discipline.
#[derive(Debug, PartialEq, Eq)]
pub enum Enqueued {
    Accepted,
    /// The arrival was dropped.
    DroppedArrival(Packet),
    /// The arrival was queued and the head-of-line packet dropped instead (drop-front).
    DroppedHead(Packet),
}

/// The output disciplines.
#[derive(Debug)]
pub enum Qdisc {
    DropTail(DropTail),
}

impl Qdisc {
    pub fn enqueue(&mut self, pkt: Packet) -> Enqueued {
        match self {
            Self::DropTail(q) => q.enqueue(pkt),
        }
    }
    pub fn dequeue(&mut self) -> Option<Packet> {
        match self {
            Self::DropTail(q) => q.dequeue(),
        }
    }
    /// The admission-only form of this discipline, if it has one: FIFO service and decisions
    /// made only at enqueue (DropTail without drop-front; RED later).
    pub fn fifo_admission(&self) -> Option<&DropTail> {
        match self {
            Self::DropTail(q) if q.is_fifo_admission_only() => Some(q),
            Self::DropTail(_) => None,
        }
    }

    /// Packets waiting (the one in service excluded).
    pub fn len_packets(&self) -> u64 {
        match self {
            Self::DropTail(q) => q.len_packets(),
        }
    }
    /// Bytes waiting (the one in service excluded).
    pub fn len_bytes(&self) -> u64 {
        match self {
            Self::DropTail(q) => q.len_bytes(),
        }
    }
}
