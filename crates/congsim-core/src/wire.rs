//! Typed packet headers. Payload is a length, never bytes: real bytes are produced only at the
//! edge (packet capture).

use crate::ids::{FlowId, NodeId};

/// IP-level ECN codepoint bits (RFC 3168) as the routers see them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnBits {
    /// ECN-capable transport.
    pub ect: bool,
    /// Congestion experienced (set by a marking router).
    pub ce: bool,
}

/// TCP header flags the models use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags {
    pub syn: bool,
    /// ECN-Echo (receiver to sender).
    pub ece: bool,
    /// Congestion Window Reduced (sender to receiver).
    pub cwr: bool,
}

/// Up to [`SackBlocks::CAPACITY`] SACK blocks, most recent first.
///
/// Each block is a half-open range of *segments* `[left, right)`, stored as offsets above the
/// segment the cumulative ACK expects next (a block always starts at least one segment above
/// it, so `(0, 0)` marks an unused slot). Segment offsets keep the header small enough for a
/// packet to stay in one cache line; they limit a SACK flow to windows of 65535 segments, which
/// scenario validation enforces. RFC 2018 allows 4 blocks, 3 alongside timestamps; ns-2
/// defaults to 3 (`maxSackBlocks_`), which is the capacity here (deviations D6, D7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    offsets: [(u16, u16); 3],
}

impl SackBlocks {
    pub const CAPACITY: usize = 3;
    pub const EMPTY: Self = Self {
        offsets: [(0, 0); 3],
    };

    /// Appends `[left, right)` (segments) above `ack_segment`. Returns `false`, leaving the
    /// blocks unchanged, when they are full or the block cannot be represented.
    pub fn push(&mut self, ack_segment: u64, left: u64, right: u64) -> bool {
        let len = self.len();
        let (Some(l), Some(r)) = (
            left.checked_sub(ack_segment)
                .and_then(|d| u16::try_from(d).ok()),
            right
                .checked_sub(ack_segment)
                .and_then(|d| u16::try_from(d).ok()),
        ) else {
            return false;
        };
        if len == Self::CAPACITY || l == 0 || r <= l {
            return false;
        }
        self.offsets[len] = (l, r);
        true
    }

    pub fn len(&self) -> usize {
        self.offsets.iter().take_while(|&&(_, r)| r != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets[0].1 == 0
    }

    /// The blocks as absolute segment ranges `[left, right)`, given the ACK's segment.
    pub fn ranges(&self, ack_segment: u64) -> impl Iterator<Item = (u64, u64)> + Clone + '_ {
        self.offsets
            .iter()
            .take_while(|&&(_, r)| r != 0)
            .map(move |&(l, r)| (ack_segment + u64::from(l), ack_segment + u64::from(r)))
    }
}

/// A TCP segment header.
///
/// `seq` and `ack` are in the connection's sequence units: packet numbers in the ns-2 packet
/// mode and byte numbers in the BSD byte mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first payload unit (data segments).
    pub seq: u64,
    /// Cumulative acknowledgment, always as "next unit expected" (RFC 793), in both modes.
    /// The ns-2 ACK field "highest in-order packet number" is `ack - 1`.
    pub ack: u64,
    /// Payload bytes carried (0 for a pure ACK or the ns-2 40-byte opening packet).
    pub payload_bytes: u32,
    /// Advertised receive window in bytes, already scaled back (0 when not modelled). RFC 1323
    /// caps it at 65535 << 14, which fits.
    pub window_bytes: u32,
    pub flags: TcpFlags,
    /// `true` for a data segment (sender to receiver), `false` for an ACK.
    pub is_data: bool,
    /// SACK blocks (RFC 2018) of an ACK; empty when SACK is off.
    pub sack: SackBlocks,
}

impl TcpHeader {
    /// A data segment carrying `payload_bytes` starting at `seq`.
    pub fn data(seq: u64, payload_bytes: u32) -> Self {
        Self {
            seq,
            ack: 0,
            payload_bytes,
            window_bytes: 0,
            flags: TcpFlags::default(),
            is_data: true,
            sack: SackBlocks::EMPTY,
        }
    }

    /// A pure ACK acknowledging everything below `ack`.
    pub fn ack(ack: u64, window_bytes: u32) -> Self {
        Self {
            seq: 0,
            ack,
            payload_bytes: 0,
            window_bytes,
            flags: TcpFlags::default(),
            is_data: false,
            sack: SackBlocks::EMPTY,
        }
    }
}

/// A UDP datagram of a constant-bit-rate source: a sequence number for loss accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpHeader {
    pub seq: u64,
}

/// What a packet carries above IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
}

/// One packet in flight.
///
/// The source node is not stored: it follows from the flow and the direction (data or ACK),
/// and leaving it out keeps a packet plus its arrival time in one 64-byte cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Bytes on the wire, all headers included: what links serialize and queues count.
    pub size_bytes: u32,
    pub flow: FlowId,
    /// Where it is going (routing looks only at this).
    pub dst: NodeId,
    pub ecn: EcnBits,
    pub transport: Transport,
}

impl Packet {
    /// A TCP packet of `size_bytes` on the wire.
    pub fn tcp_segment(flow: FlowId, dst: NodeId, size_bytes: u32, header: TcpHeader) -> Self {
        Self {
            size_bytes,
            flow,
            dst,
            ecn: EcnBits::default(),
            transport: Transport::Tcp(header),
        }
    }

    /// A UDP datagram of `size_bytes` on the wire.
    pub fn udp(flow: FlowId, dst: NodeId, size_bytes: u32, seq: u64) -> Self {
        Self {
            size_bytes,
            flow,
            dst,
            ecn: EcnBits::default(),
            transport: Transport::Udp(UdpHeader { seq }),
        }
    }

    /// The TCP header, if this is a TCP packet.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.transport {
            Transport::Tcp(h) => Some(h),
            Transport::Udp(_) => None,
        }
    }

    /// `true` for a TCP data segment (the packets drop lists and data counters consider).
    pub fn is_tcp_data(&self) -> bool {
        self.tcp().is_some_and(|h| h.is_data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets are copied into and out of link pipes at every hop: keep them one cache line.
    #[test]
    fn a_packet_fits_in_a_cache_line() {
        // A link pipe stores a packet with its arrival time, 64-byte aligned.
        assert!(
            size_of::<Packet>() + size_of::<crate::time::SimTime>() <= 64,
            "Packet grew to {} bytes",
            size_of::<Packet>()
        );
    }

    #[test]
    fn sack_blocks_round_trip_and_reject_what_they_cannot_hold() {
        let mut b = SackBlocks::EMPTY;
        assert!(b.is_empty());
        assert!(b.push(10, 12, 15));
        assert!(b.push(10, 20, 21));
        assert!(
            !b.push(10, 10, 11),
            "a block cannot start at the cumulative ACK"
        );
        assert!(!b.push(10, 30, 30), "empty block");
        assert!(!b.push(10, 11, 10 + 70_000), "beyond 65535 segments");
        assert!(b.push(10, 40, 42));
        assert!(!b.push(10, 50, 51), "full");
        assert_eq!(b.len(), 3);
        assert_eq!(
            b.ranges(10).collect::<Vec<_>>(),
            [(12, 15), (20, 21), (40, 42)]
        );
    }
}
