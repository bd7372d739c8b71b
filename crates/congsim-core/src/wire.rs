//! Typed packet headers. Payload is a length, never bytes: real bytes are produced only at the
//! edge (packet capture).

use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;

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
    /// Transmission counter of this segment (0 for the first transmission), for traces only:
    /// the receiver never looks at it.
    pub tx_count: u16,
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
            tx_count: 0,
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
            tx_count: 0,
        }
    }
}

/// What a packet carries above IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpHeader),
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
    /// When the sending agent created it.
    pub created: SimTime,
    pub transport: Transport,
}

impl Packet {
    /// A TCP packet of `size_bytes` on the wire.
    pub fn tcp_segment(
        flow: FlowId,
        dst: NodeId,
        size_bytes: u32,
        created: SimTime,
        header: TcpHeader,
    ) -> Self {
        Self {
            size_bytes,
            flow,
            dst,
            ecn: EcnBits::default(),
            created,
            transport: Transport::Tcp(header),
        }
    }

    /// The TCP header, if this is a TCP packet.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.transport {
            Transport::Tcp(h) => Some(h),
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
        assert!(
            size_of::<Packet>() <= 64,
            "Packet grew to {} bytes",
            size_of::<Packet>()
        );
    }
}
