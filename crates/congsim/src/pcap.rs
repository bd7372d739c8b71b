//! Packet capture: simulated packets written as a classic pcap file (nanosecond timestamps,
//! link type RAW = IPv4), with real IPv4 and TCP headers and correct checksums, so that
//! Wireshark and tshark can read and analyse the flows.
//!
//! Payloads are zero-filled (the simulator carries lengths, not bytes), and headers are the real
//! 40 bytes whatever the model charged on the wire (`ns2_2000` counts its 500-byte packets
//! without headers). Packet-numbered (ns-2) connections are mapped to byte sequence numbers:
//! data packet `i` starts at byte `i · MSS` (after the opening packet, which takes one sequence
//! number, when the profile sends one).

use congsim_core::NodeId;
use congsim_core::time::{PS_PER_NS, PS_PER_S, SimTime};
use congsim_core::wire::{Packet, TcpHeader};
use congsim_tcp::SeqMode;

/// pcap link type: raw IPv4.
const LINKTYPE_RAW: u32 = 101;
/// Magic of a pcap file with nanosecond timestamps.
const MAGIC_NANOSECONDS: u32 = 0xa1b2_3c4d;
const IP_HEADER: usize = 20;
const TCP_HEADER: usize = 20;

/// What the encoder needs to know about a flow.
#[derive(Clone, Debug)]
pub struct FlowWire {
    pub src: NodeId,
    pub dst: NodeId,
    pub seq_mode: SeqMode,
    pub mss: u32,
    /// The ns-2 opening packet exists (it takes sequence number 0).
    pub syn: bool,
}

impl FlowWire {
    /// The SACK option of an ACK (two NOPs, kind 5, length, the blocks' byte edges), empty
    /// without blocks.
    fn sack_option(&self, tcp: &TcpHeader) -> Vec<u8> {
        if tcp.is_data || tcp.sack.is_empty() {
            return Vec::new();
        }
        let unit = match self.seq_mode {
            SeqMode::Packets => 1,
            SeqMode::Bytes => u64::from(self.mss),
        };
        let ack_segment = tcp.ack.div_ceil(unit);
        let mut option = vec![1, 1, 5, (2 + 8 * tcp.sack.len()) as u8];
        for (left, right) in tcp.sack.ranges(ack_segment) {
            option.extend_from_slice(&self.seq_bytes(left * unit).to_be_bytes());
            option.extend_from_slice(&self.seq_bytes(right * unit).to_be_bytes());
        }
        option
    }

    /// Byte offset where segment `seg` starts (packet mode) or `seq` itself (byte mode).
    fn seq_bytes(&self, seq: u64) -> u32 {
        let bytes = match self.seq_mode {
            SeqMode::Bytes => seq,
            SeqMode::Packets if self.syn => {
                if seq == 0 {
                    0
                } else {
                    1 + (seq - 1) * u64::from(self.mss)
                }
            }
            SeqMode::Packets => seq * u64::from(self.mss),
        };
        bytes as u32 // TCP sequence numbers wrap modulo 2^32
    }
}

/// The IPv4 address of a node: 10.0.0.0/8, node `i` is `10.0.0.0 + i + 1`.
pub fn node_address(node: NodeId) -> [u8; 4] {
    (0x0a00_0000u32 | (node.0 + 1)).to_be_bytes()
}

fn checksum(chunks: &[&[u8]]) -> u16 {
    let mut sum: u32 = 0;
    for chunk in chunks {
        let mut words = chunk.chunks_exact(2);
        for w in &mut words {
            sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
        }
        if let [last] = words.remainder() {
            sum += u32::from(*last) << 8;
        }
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A pcap file being written.
pub struct PcapWriter {
    bytes: Vec<u8>,
    headers_only: bool,
    ip_id: u16,
}

impl PcapWriter {
    /// A new file; with `headers_only` the zero payload is left out of the records (the
    /// original length still says how long the packet was).
    pub fn new(headers_only: bool) -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&MAGIC_NANOSECONDS.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // GMT offset
        bytes.extend_from_slice(&0u32.to_le_bytes()); // accuracy
        bytes.extend_from_slice(&65_535u32.to_le_bytes()); // snap length
        bytes.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        Self {
            bytes,
            headers_only,
            ip_id: 0,
        }
    }

    /// Appends one packet seen at `time`.
    pub fn write(&mut self, time: SimTime, pkt: &Packet, flow: &FlowWire) {
        let Some(tcp) = pkt.tcp() else { return };
        let packet = self.ip_tcp(pkt, tcp, flow);
        let captured = if self.headers_only {
            packet.len() - tcp.payload_bytes as usize
        } else {
            packet.len()
        };
        let ps = time.as_ps();
        self.bytes
            .extend_from_slice(&((ps / PS_PER_S) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&((ps % PS_PER_S / PS_PER_NS) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(captured as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(packet.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(&packet[..captured]);
    }

    /// The IPv4 packet: header, TCP header (with the SACK option of an ACK that has blocks),
    /// zero payload.
    fn ip_tcp(&mut self, pkt: &Packet, tcp: &TcpHeader, flow: &FlowWire) -> Vec<u8> {
        let payload = tcp.payload_bytes as usize;
        let option = flow.sack_option(tcp);
        let tcp_header = TCP_HEADER + option.len();
        let total = IP_HEADER + tcp_header + payload;
        let (src, dst) = if tcp.is_data {
            (flow.src, flow.dst)
        } else {
            (flow.dst, flow.src)
        };
        let (src_ip, dst_ip) = (node_address(src), node_address(dst));
        let mut p = vec![0u8; total];
        // IPv4 header.
        p[0] = 0x45;
        p[1] = match (pkt.ecn.ect, pkt.ecn.ce) {
            (_, true) => 0b11,
            (true, false) => 0b10,
            (false, false) => 0,
        };
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[4..6].copy_from_slice(&self.ip_id.to_be_bytes());
        self.ip_id = self.ip_id.wrapping_add(1);
        p[6] = 0x40; // don't fragment
        p[8] = 64; // TTL
        p[9] = 6; // TCP
        p[12..16].copy_from_slice(&src_ip);
        p[16..20].copy_from_slice(&dst_ip);
        let ip_sum = checksum(&[&p[..IP_HEADER]]);
        p[10..12].copy_from_slice(&ip_sum.to_be_bytes());
        // TCP header: the sender uses port 10000 + flow id, the receiver port 5001.
        let sender_port = 10_000u16.wrapping_add(pkt.flow.0 as u16);
        let (sport, dport) = if tcp.is_data {
            (sender_port, 5001)
        } else {
            (5001, sender_port)
        };
        let t = &mut p[IP_HEADER..];
        t[0..2].copy_from_slice(&sport.to_be_bytes());
        t[2..4].copy_from_slice(&dport.to_be_bytes());
        let (seq, ack, flags) = if tcp.is_data {
            let flags = if tcp.flags.syn { 0x02 } else { 0x18 }; // SYN, or PSH|ACK
            (flow.seq_bytes(tcp.seq), 0, flags)
        } else {
            (0, flow.seq_bytes(tcp.ack), 0x10) // ACK
        };
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&ack.to_be_bytes());
        t[12] = (tcp_header as u8 / 4) << 4;
        t[13] = flags | if tcp.flags.ece { 0x40 } else { 0 } | if tcp.flags.cwr { 0x80 } else { 0 };
        // The receive window is not modelled in packet mode: advertise the largest.
        let window = if tcp.window_bytes == 0 {
            65_535
        } else {
            tcp.window_bytes.min(65_535)
        };
        t[14..16].copy_from_slice(&(window as u16).to_be_bytes());
        t[TCP_HEADER..tcp_header].copy_from_slice(&option);
        let mut pseudo = [0u8; 12];
        pseudo[..4].copy_from_slice(&src_ip);
        pseudo[4..8].copy_from_slice(&dst_ip);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&((tcp_header + payload) as u16).to_be_bytes());
        let tcp_sum = checksum(&[&pseudo, &p[IP_HEADER..]]);
        p[IP_HEADER + 16..IP_HEADER + 18].copy_from_slice(&tcp_sum.to_be_bytes());
        p
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::FlowId;

    fn flow(syn: bool) -> FlowWire {
        FlowWire {
            src: NodeId(0),
            dst: NodeId(1),
            seq_mode: SeqMode::Packets,
            mss: 1000,
            syn,
        }
    }

    #[test]
    fn packet_numbers_map_to_byte_offsets() {
        assert_eq!(flow(false).seq_bytes(3), 3000);
        assert_eq!(flow(true).seq_bytes(0), 0);
        assert_eq!(flow(true).seq_bytes(1), 1);
        assert_eq!(flow(true).seq_bytes(3), 2001);
    }

    #[test]
    fn headers_carry_valid_checksums() {
        let mut w = PcapWriter::new(false);
        let pkt = Packet::tcp_segment(FlowId(2), NodeId(1), 1040, TcpHeader::data(7, 1000));
        let bytes = w.ip_tcp(&pkt, pkt.tcp().unwrap(), &flow(false));
        assert_eq!(bytes.len(), 1040);
        // A correct one's-complement checksum makes the sum over the header come out as zero.
        assert_eq!(checksum(&[&bytes[..20]]), 0);
        let mut pseudo = [0u8; 12];
        pseudo[..4].copy_from_slice(&bytes[12..16]);
        pseudo[4..8].copy_from_slice(&bytes[16..20]);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&1020u16.to_be_bytes());
        assert_eq!(checksum(&[&pseudo, &bytes[20..]]), 0);
        assert_eq!(u32::from_be_bytes(bytes[24..28].try_into().unwrap()), 7000);
        assert_eq!(
            u16::from_be_bytes(bytes[20..22].try_into().unwrap()),
            10_002
        );
    }

    #[test]
    fn records_use_nanosecond_timestamps() {
        let mut w = PcapWriter::new(true);
        let pkt = Packet::tcp_segment(FlowId(0), NodeId(0), 40, TcpHeader::ack(5, 0));
        w.write(
            SimTime::from_ps(2 * PS_PER_S + 123_456_789_000),
            &pkt,
            &flow(false),
        );
        let b = w.into_bytes();
        assert_eq!(b.len(), 24 + 16 + 40);
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(b[28..32].try_into().unwrap()),
            123_456_789
        );
    }
}
