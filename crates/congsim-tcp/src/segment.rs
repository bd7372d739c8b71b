//! What an endpoint hands to the network.

/// A segment an endpoint hands to the network: a data segment or an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub header: congsim_core::wire::TcpHeader,
    /// Bytes on the wire, headers and options included.
    pub wire_bytes: u32,
    /// Data sent before (a retransmission); always `false` for an ACK.
    pub retransmission: bool,
    /// Send as ECN-capable transport (ECT): new data of a flow that answers marks.
    pub ect: bool,
}

/// Hands the segments of `outbox` over to `out`, leaving `outbox` empty. When `out` is empty
/// (the simulator clears it after every flush) the two buffers trade places instead of copying:
/// a `Vec::append` is a `memcpy` call per flush (about 2 % of the benchmark's run time).
pub(crate) fn hand_over(outbox: &mut Vec<Segment>, out: &mut Vec<Segment>) {
    if out.is_empty() {
        std::mem::swap(outbox, out);
    } else {
        out.append(outbox);
    }
}
