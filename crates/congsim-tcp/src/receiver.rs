//! The TCP receiver (spec `tcp.md` §2): in-order delivery to the application, out-of-order
//! buffering, the ACK policies, and the advertised window.

use crate::config::{AckPolicy, CongestionEcho, ReceiverConfig, SeqMode};
use crate::reassembly::OutOfOrder;
use crate::segment::Segment;
use congsim_core::time::SimTime;
use congsim_core::wire::{SackBlocks, TcpHeader};

/// Receiver counters (spec §5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub pkts_rcvd: u64,
    pub dup_pkts_rcvd: u64,
    pub ooo_pkts: u64,
    pub acks_sent: u64,
    pub sack_blocks_sent: u64,
    /// Payload bytes delivered in order to the application (duplicates excluded).
    pub bytes_delivered: u64,
    /// Wire bytes of the delivered segments (payload plus header bytes), as ns-2's sink counts
    /// with `useHeaders_`.
    pub wire_bytes_delivered: u64,
}

impl ReceiverStats {
    /// What was counted since `start`, an earlier reading of the same receiver.
    pub fn since(&self, start: &Self) -> Self {
        Self {
            pkts_rcvd: self.pkts_rcvd - start.pkts_rcvd,
            dup_pkts_rcvd: self.dup_pkts_rcvd - start.dup_pkts_rcvd,
            ooo_pkts: self.ooo_pkts - start.ooo_pkts,
            acks_sent: self.acks_sent - start.acks_sent,
            sack_blocks_sent: self.sack_blocks_sent - start.sack_blocks_sent,
            bytes_delivered: self.bytes_delivered - start.bytes_delivered,
            wire_bytes_delivered: self.wire_bytes_delivered - start.wire_bytes_delivered,
        }
    }
}

pub struct TcpReceiver {
    cfg: ReceiverConfig,
    /// Next segment expected.
    rcv_next: u64,
    /// Next byte expected (byte mode ACK field).
    rcv_next_byte: u64,
    /// Highest segment seen + 1.
    max_seen: u64,
    /// Out-of-order segments above `rcv_next`, with their payload bytes.
    out_of_order: OutOfOrder,
    /// A delayed ACK is being held.
    ack_held: bool,
    /// ns-2 delayed-ACK timer deadline.
    delack_deadline: Option<SimTime>,
    advertised_window: u32,
    /// Blocks reported earlier, most recent first (ns-2 `SackStack`, as deep as `sack_blocks`).
    sack_history: Vec<(u64, u64)>,
    /// A congestion mark awaits its echo (spec §2.5).
    ecn_echo_pending: bool,
    outbox: Vec<Segment>,
    stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        let advertised_window = match cfg.seq_mode {
            // At most 65535 << 14: always fits.
            SeqMode::Bytes => u32::try_from(cfg.advertised_window()).unwrap_or(u32::MAX),
            SeqMode::Packets => 0,
        };
        Self {
            cfg,
            rcv_next: 0,
            rcv_next_byte: 0,
            max_seen: 0,
            out_of_order: OutOfOrder::default(),
            ack_held: false,
            delack_deadline: None,
            advertised_window,
            sack_history: Vec::new(),
            ecn_echo_pending: false,
            outbox: Vec::new(),
            stats: ReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }
    /// The window this receiver advertises, in bytes (0 in packet mode).
    pub fn advertised_window(&self) -> u64 {
        u64::from(self.advertised_window)
    }

    fn segment_index(&self, seq: u64) -> u64 {
        match self.cfg.seq_mode {
            SeqMode::Packets => seq,
            SeqMode::Bytes => seq / u64::from(self.cfg.mss),
        }
    }

    fn deliver(&mut self, payload: u32) {
        self.stats.bytes_delivered += u64::from(payload);
        let header = if payload == 0 {
            40
        } else {
            self.cfg.header_bytes
        };
        self.stats.wire_bytes_delivered += u64::from(payload + header);
        self.rcv_next_byte += u64::from(payload);
        self.rcv_next += 1;
    }

    /// A data segment arrives; `congestion_experienced` is its IP CE mark.
    pub fn on_data(&mut self, now: SimTime, seg_hdr: &TcpHeader, congestion_experienced: bool) {
        self.stats.pkts_rcvd += 1;
        match self.cfg.echo {
            CongestionEcho::Off => {}
            CongestionEcho::UntilCwr => {
                //= tcp.md §2.5: CWR clears the pending echo; CE on the same segment sets it
                //= again
                if seg_hdr.flags.cwr {
                    self.ecn_echo_pending = false;
                }
                if congestion_experienced {
                    self.ecn_echo_pending = true;
                }
            }
            CongestionEcho::PerPacket => self.ecn_echo_pending |= congestion_experienced,
            CongestionEcho::Dctcp => {
                //= RFC 8257 §3.2: if the CE codepoint is set and DCTCP.CE is false, send an
                //= immediate ACK with ECE = 0 for the packets that arrived before (and the
                //= reverse when it clears)
                if congestion_experienced != self.ecn_echo_pending {
                    if self.ack_held {
                        self.send_ack_now(None);
                    }
                    self.ecn_echo_pending = congestion_experienced;
                }
            }
        }
        let seg = self.segment_index(seg_hdr.seq);
        // Out-of-order segments are all above rcv_next: the in-order case needs no lookup.
        if seg < self.rcv_next || (seg > self.rcv_next && self.out_of_order.contains(seg)) {
            // A duplicate: ACK at once, whatever the delayed-ACK mode.
            self.stats.dup_pkts_rcvd += 1;
            self.send_ack_now(Some(seg));
            return;
        }
        let filled_gap = seg < self.max_seen;
        self.max_seen = self.max_seen.max(seg + 1);
        if seg > self.rcv_next {
            self.stats.ooo_pkts += 1;
            self.out_of_order.insert(seg, seg_hdr.payload_bytes);
            self.send_ack_now(Some(seg));
            return;
        }
        self.deliver(seg_hdr.payload_bytes);
        // The run the segment joins to the in-order data, if it filled a gap.
        if !self.out_of_order.is_empty()
            && let Some(run) = self.out_of_order.take_run_at(self.rcv_next)
        {
            run.into_iter().for_each(|payload| self.deliver(payload));
        }
        let immediate = filled_gap && self.cfg.immediate_ack_on_gap_fill;
        match self.cfg.ack_policy {
            AckPolicy::EveryPacket => self.send_ack_now(Some(seg)),
            _ if immediate || seg_hdr.flags.syn => self.send_ack_now(Some(seg)),
            AckPolicy::DelayedNs2 { interval } => {
                if self.ack_held {
                    self.send_ack_now(Some(seg));
                } else {
                    self.ack_held = true;
                    self.delack_deadline = Some(now + interval);
                }
            }
            AckPolicy::DelayedBsd => {
                if self.ack_held {
                    self.send_ack_now(Some(seg));
                } else {
                    self.ack_held = true;
                }
            }
        }
    }

    /// Sends the cumulative ACK now, cancelling any held one; `trigger` is the segment that
    /// arrived (the one SACK block 1 must contain), `None` for a delayed ACK.
    fn send_ack_now(&mut self, trigger: Option<u64>) {
        self.ack_held = false;
        self.delack_deadline = None;
        let ack = match self.cfg.seq_mode {
            SeqMode::Packets => self.rcv_next,
            SeqMode::Bytes => self.rcv_next_byte,
        };
        let mut header = TcpHeader::ack(ack, self.advertised_window);
        header.flags.ece = self.ecn_echo_pending;
        if self.cfg.echo == CongestionEcho::PerPacket {
            self.ecn_echo_pending = false;
        }
        let mut wire_bytes = self.cfg.ack_bytes;
        if self.cfg.sack_blocks > 0 {
            header.sack = self.sack_blocks(trigger);
            let n = header.sack.len() as u32;
            if n > 0 {
                wire_bytes += self.cfg.sack_base_bytes + 8 * n;
                self.stats.sack_blocks_sent += u64::from(n);
            }
        }
        self.stats.acks_sent += 1;
        self.outbox.push(Segment {
            header,
            wire_bytes,
            retransmission: false,
            // DCTCP's receiver sends its ACKs ECN-capable too (Linux and ns-3 in DCTCP mode), so
            // a marking queue marks rather than drops them.
            ect: self.cfg.echo == CongestionEcho::Dctcp,
        });
    }

    /// The SACK blocks of the next ACK (spec §2.4, as ns-2's `Sacker::append_ack` builds them).
    fn sack_blocks(&mut self, trigger: Option<u64>) -> SackBlocks {
        let mut blocks = SackBlocks::EMPTY;
        if self.rcv_next >= self.max_seen {
            // Nothing queued out of order: no blocks, and the history is forgotten.
            self.sack_history.clear();
            return blocks;
        }
        let max = usize::from(self.cfg.sack_blocks).min(SackBlocks::CAPACITY);
        // Block 1: the received run containing the trigger. Without one (the trigger is at or
        // below the cumulative ACK, or a delayed ACK), the ACK itself retires every history
        // entry it now covers (ns-2's virtual block [0, ack)).
        let recent = match trigger {
            Some(seg) if seg >= self.rcv_next => {
                // Every held segment lies above `rcv_next`: the run holding the trigger (it
                // is held, having just arrived above the gap or again).
                debug_assert!(self.out_of_order.contains(seg), "the trigger {seg} is held");
                let (left, right) = self.out_of_order.run_of(seg).unwrap_or((seg, seg + 1));
                blocks.push(self.rcv_next, left, right);
                Some((left, right))
            }
            _ => None,
        };
        let (cover_left, cover_right) = recent.unwrap_or((0, self.rcv_next));
        self.sack_history
            .retain(|&(left, right)| !(cover_left <= left && right <= cover_right));
        for &(left, right) in &self.sack_history {
            if blocks.len() == max {
                break;
            }
            blocks.push(self.rcv_next, left, right);
        }
        if let Some(block) = recent {
            self.sack_history.insert(0, block);
            self.sack_history.truncate(max);
        }
        blocks
    }

    /// The ns-2 delayed-ACK timer deadline.
    pub fn next_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// ns-2 delayed-ACK timer wake-up (stale wake-ups are ignored).
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|d| d <= now) && self.ack_held {
            self.send_ack_now(None);
        }
    }

    /// A boundary of the global 200 ms fast clock (4.3BSD `tcp_fasttimo`).
    pub fn on_fast_tick(&mut self) {
        if self.cfg.ack_policy == AckPolicy::DelayedBsd && self.ack_held {
            self.send_ack_now(None);
        }
    }

    /// Lends the receiver `buf` (empty) to write the ACKs of its next calls into, until
    /// [`Self::take_transmit`] or [`Self::drain_transmit`] hands them over (see
    /// [`crate::TcpSender::lend_buffer`]).
    pub fn lend_buffer(&mut self, buf: &mut Vec<Segment>) {
        crate::segment::lend(&mut self.outbox, buf);
    }

    /// Moves the pending ACKs into `out`.
    pub fn drain_transmit(&mut self, out: &mut Vec<Segment>) {
        crate::segment::hand_over(&mut self.outbox, out);
    }

    /// The pending ACKs, in the buffer lent for them (or the receiver's own), which the
    /// receiver no longer holds.
    pub fn take_transmit(&mut self) -> Vec<Segment> {
        std::mem::take(&mut self.outbox)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use congsim_core::time::SimDuration;

    fn rx(policy: AckPolicy) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            ack_policy: policy,
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        })
    }

    fn acks(r: &mut TcpReceiver) -> Vec<u64> {
        let mut out = Vec::new();
        r.drain_transmit(&mut out);
        out.iter().map(|h| h.header.ack).collect()
    }

    #[test]
    fn in_order_delivery_with_reordering() {
        let mut r = rx(AckPolicy::EveryPacket);
        let t = SimTime::ZERO;
        r.on_data(t, &TcpHeader::data(0, 1000), false);
        r.on_data(t, &TcpHeader::data(2, 1000), false);
        r.on_data(t, &TcpHeader::data(3, 1000), false);
        r.on_data(t, &TcpHeader::data(1, 1000), false);
        r.on_data(t, &TcpHeader::data(1, 1000), false);
        assert_eq!(acks(&mut r), [1, 1, 1, 4, 4]);
        assert_eq!(r.stats().bytes_delivered, 4000);
        assert_eq!(r.stats().dup_pkts_rcvd, 1);
        assert_eq!(r.stats().ooo_pkts, 2);
    }

    #[test]
    fn ns2_delayed_ack_holds_for_the_interval_and_acks_every_second_segment() {
        let interval = SimDuration::from_millis(100);
        let mut r = rx(AckPolicy::DelayedNs2 { interval });
        let t0 = SimTime::from_millis(1);
        r.on_data(t0, &TcpHeader::data(0, 1000), false);
        assert!(acks(&mut r).is_empty());
        assert_eq!(r.next_timeout(), Some(t0 + interval));
        r.on_data(t0, &TcpHeader::data(1, 1000), false);
        assert_eq!(acks(&mut r), [2], "second segment is ACKed at once");
        r.on_data(t0, &TcpHeader::data(2, 1000), false);
        r.on_timeout(t0 + SimDuration::from_millis(99));
        assert!(acks(&mut r).is_empty(), "not before the interval");
        r.on_timeout(t0 + interval);
        assert_eq!(acks(&mut r), [3]);
        // Out of order: immediate.
        r.on_data(t0, &TcpHeader::data(5, 1000), false);
        assert_eq!(acks(&mut r), [3]);
        // Gap fill: immediate.
        r.on_data(t0, &TcpHeader::data(3, 1000), false);
        assert_eq!(acks(&mut r), [4]);
    }

    #[test]
    fn bsd_delayed_ack_is_flushed_by_the_fast_tick() {
        let mut r = TcpReceiver::new(Profile::Bsd.receiver(Variant::Reno));
        r.on_data(SimTime::ZERO, &TcpHeader::data(0, 512), false);
        assert!(acks(&mut r).is_empty());
        r.on_fast_tick();
        assert_eq!(acks(&mut r), [512]);
        r.on_fast_tick();
        assert!(acks(&mut r).is_empty(), "nothing held, nothing sent");
    }

    #[test]
    fn byte_mode_acks_next_byte_with_short_last_segment() {
        let mut r = TcpReceiver::new(ReceiverConfig {
            ack_policy: AckPolicy::EveryPacket,
            ..Profile::Bsd.receiver(Variant::Reno)
        });
        r.on_data(SimTime::ZERO, &TcpHeader::data(0, 512), false);
        r.on_data(SimTime::ZERO, &TcpHeader::data(512, 100), false);
        assert_eq!(acks(&mut r), [512, 612]);
        assert_eq!(r.stats().wire_bytes_delivered, 512 + 100 + 80);
    }

    fn sack_rx(blocks: u8) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            sack_blocks: blocks,
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        })
    }

    /// `(ack, blocks, wire bytes)` of each ACK sent since the last call.
    type SackAck = (u64, Vec<(u64, u64)>, u32);
    fn sack_acks(r: &mut TcpReceiver) -> Vec<SackAck> {
        let mut out = Vec::new();
        r.drain_transmit(&mut out);
        out.iter()
            .map(|a| {
                let ack = a.header.ack;
                (ack, a.header.sack.ranges(ack).collect(), a.wire_bytes)
            })
            .collect()
    }

    fn deliver(r: &mut TcpReceiver, seq: u64) {
        r.on_data(SimTime::ZERO, &TcpHeader::data(seq, 1000), false);
    }

    #[test]
    fn sack_blocks_follow_rfc_2018_most_recent_first() {
        let mut r = sack_rx(3);
        for seq in [0, 1, 3, 4, 6, 8] {
            deliver(&mut r, seq);
        }
        assert_eq!(
            sack_acks(&mut r),
            [
                (1, vec![], 40),
                (2, vec![], 40),
                (2, vec![(3, 4)], 48),
                // The grown block replaces the one it covers.
                (2, vec![(3, 5)], 48),
                (2, vec![(6, 7), (3, 5)], 56),
                (2, vec![(8, 9), (6, 7), (3, 5)], 64),
            ]
        );
        // The retransmission of 2 moves the ACK to 5: the block it covers disappears and the
        // ACK reports the rest of the history, with no block for the in-order segment.
        deliver(&mut r, 2);
        deliver(&mut r, 5);
        deliver(&mut r, 7);
        assert_eq!(
            sack_acks(&mut r),
            [
                (5, vec![(8, 9), (6, 7)], 56),
                (7, vec![(8, 9)], 48),
                (9, vec![], 40)
            ]
        );
        assert_eq!(r.stats().sack_blocks_sent, 1 + 1 + 2 + 3 + 2 + 1);
    }

    #[test]
    fn sack_history_is_as_deep_as_the_block_limit() {
        let mut r = sack_rx(3);
        for seq in [0, 2, 4, 6, 8] {
            deliver(&mut r, seq);
        }
        let last = sack_acks(&mut r).pop().unwrap();
        assert_eq!(
            last.1,
            [(8, 9), (6, 7), (4, 5)],
            "the oldest island drops out"
        );
        // A duplicate above the ACK reports its own block first; the history entry it repeats
        // is not sent twice.
        deliver(&mut r, 4);
        assert_eq!(sack_acks(&mut r)[0].1, [(4, 5), (8, 9), (6, 7)]);
        // The forgotten island [2, 3) is reported again only when a segment next to it arrives.
        deliver(&mut r, 3);
        assert_eq!(sack_acks(&mut r)[0].1, [(2, 5), (8, 9), (6, 7)]);

        let mut one = sack_rx(1);
        for seq in [0, 2, 4] {
            deliver(&mut one, seq);
        }
        assert_eq!(sack_acks(&mut one).pop().unwrap().1, [(4, 5)]);
    }

    #[test]
    fn byte_mode_sack_blocks_are_segment_ranges_with_real_option_bytes() {
        let mut r = TcpReceiver::new(ReceiverConfig {
            ack_policy: AckPolicy::EveryPacket,
            sack_blocks: 3,
            ..Profile::Bsd.receiver(Variant::Reno)
        });
        r.on_data(SimTime::ZERO, &TcpHeader::data(1024, 512), false);
        let acks = sack_acks(&mut r);
        // Segment 2 (bytes 1024..1536) above ACK 0: 40 + 4 + 8 bytes on the wire.
        assert_eq!(acks, [(0, vec![(2, 3)], 52)]);
    }

    #[test]
    fn ecn_echo_lasts_until_cwr() {
        let mut r = TcpReceiver::new(ReceiverConfig {
            echo: CongestionEcho::UntilCwr,
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        });
        let ece = |r: &mut TcpReceiver, seq: u64, ce: bool, cwr: bool| {
            let mut h = TcpHeader::data(seq, 1000);
            h.flags.cwr = cwr;
            r.on_data(SimTime::ZERO, &h, ce);
            let mut out = Vec::new();
            r.drain_transmit(&mut out);
            out[0].header.flags.ece
        };
        assert!(!ece(&mut r, 0, false, false));
        assert!(ece(&mut r, 1, true, false), "CE is echoed");
        assert!(ece(&mut r, 2, false, false), "and echoed until CWR");
        assert!(!ece(&mut r, 3, false, true), "CWR ends the echo");
        assert!(ece(&mut r, 4, true, true), "CE with CWR starts a new echo");
        // Without ECN nothing is echoed.
        let mut plain = rx(AckPolicy::EveryPacket);
        assert!(!ece(&mut plain, 0, true, false));
        // BCN echoes each mark once.
        let mut bcn = TcpReceiver::new(ReceiverConfig {
            echo: CongestionEcho::PerPacket,
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        });
        assert!(ece(&mut bcn, 0, true, false));
        assert!(!ece(&mut bcn, 1, false, false));
        assert!(ece(&mut bcn, 2, true, false));
    }

    #[test]
    fn dctcp_echoes_each_ce_state_and_flushes_a_held_ack_when_it_changes() {
        let mut r = TcpReceiver::new(ReceiverConfig {
            echo: CongestionEcho::Dctcp,
            ack_policy: AckPolicy::DelayedNs2 {
                interval: SimDuration::from_millis(100),
            },
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        });
        // Each arrival: (sequence, CE); what it makes the receiver send: (ACK, ECE) pairs.
        let arrive = |r: &mut TcpReceiver, seq: u64, ce: bool, cwr: bool| {
            let mut h = TcpHeader::data(seq, 1000);
            h.flags.cwr = cwr;
            r.on_data(SimTime::ZERO, &h, ce);
            let mut out = Vec::new();
            r.drain_transmit(&mut out);
            out.iter()
                .map(|s| (s.header.ack, s.header.flags.ece))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            arrive(&mut r, 0, false, false),
            [],
            "held (every second packet)"
        );
        assert_eq!(arrive(&mut r, 1, false, false), [(2, false)]);
        assert_eq!(arrive(&mut r, 2, false, false), []);
        // CE arrives with an ACK held: the held one goes out unmarked, the new one is held.
        assert_eq!(arrive(&mut r, 3, true, false), [(3, false)]);
        assert_eq!(
            arrive(&mut r, 4, true, false),
            [(5, true)],
            "both CE packets echoed"
        );
        assert_eq!(arrive(&mut r, 5, true, false), []);
        // CE clears with one held: it goes out marked, and the echo stops.
        assert_eq!(arrive(&mut r, 6, false, false), [(6, true)]);
        assert_eq!(arrive(&mut r, 7, false, false), [(8, false)]);
        // CWR changes nothing.
        assert_eq!(arrive(&mut r, 8, true, true), [], "nothing held to flush");
        assert_eq!(arrive(&mut r, 9, true, false), [(10, true)]);
        // Its ACKs are ECN-capable, so a marking queue marks them rather than drops them; an
        // RFC 3168 receiver's are not.
        r.on_data(SimTime::ZERO, &TcpHeader::data(10, 1000), false);
        r.on_data(SimTime::ZERO, &TcpHeader::data(11, 1000), false);
        let mut out = Vec::new();
        r.drain_transmit(&mut out);
        assert!(out.iter().all(|s| s.ect) && !out.is_empty());
        let mut rfc3168 = TcpReceiver::new(ReceiverConfig {
            echo: CongestionEcho::UntilCwr,
            ..Profile::Ns2_2000.receiver(Variant::Reno)
        });
        rfc3168.on_data(SimTime::ZERO, &TcpHeader::data(0, 1000), false);
        out.clear();
        rfc3168.drain_transmit(&mut out);
        assert!(!out[0].ect);
    }
}
