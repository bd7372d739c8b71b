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

/// Lends `buf` to an endpoint's `outbox` to write its next segments into, until the caller
/// takes them (`take_transmit`, or `drain_transmit` through [`hand_over`]): an endpoint holds no buffer of its own between its turns, so a network of a
/// million connections holds a few send buffers, not two a connection (each 192 bytes of heap
/// once used). Nothing is lent to an outbox that holds a buffer or segments already, or from a
/// `buf` that is not empty.
pub(crate) fn lend(outbox: &mut Vec<Segment>, buf: &mut Vec<Segment>) {
    if outbox.capacity() == 0 && buf.is_empty() {
        std::mem::swap(outbox, buf);
    }
}

/// Hands the segments of `outbox` over to `out`, leaving `outbox` empty. When `out` is empty
/// (a caller that clears it after every flush) the two buffers trade places instead of copying:
/// a `Vec::append` is a `memcpy` call per flush.
pub(crate) fn hand_over(outbox: &mut Vec<Segment>, out: &mut Vec<Segment>) {
    if out.is_empty() {
        std::mem::swap(outbox, out);
    } else {
        out.append(outbox);
    }
}
