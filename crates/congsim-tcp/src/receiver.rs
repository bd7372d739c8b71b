//! The TCP receiver (spec `tcp.md` §2): in-order delivery to the application, out-of-order
//! buffering, the ACK policies, and the advertised window.

use crate::config::{AckPolicy, ReceiverConfig, SeqMode};
use congsim_core::time::SimTime;
use congsim_core::wire::TcpHeader;
use std::collections::BTreeMap;

/// Receiver counters (spec §5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub pkts_rcvd: u64,
    pub dup_pkts_rcvd: u64,
    pub ooo_pkts: u64,
    pub acks_sent: u64,
    /// Payload bytes delivered in order to the application (duplicates excluded).
    pub bytes_delivered: u64,
    /// Wire bytes of the delivered segments (payload plus header bytes), as ns-2's sink counts
    /// with `useHeaders_`.
    pub wire_bytes_delivered: u64,
}

pub struct TcpReceiver {
    cfg: ReceiverConfig,
    /// Next segment expected.
    rcv_next: u64,
    /// Next byte expected (byte mode ACK field).
    rcv_next_byte: u64,
    /// Highest segment seen + 1.
    max_seen: u64,
    /// Out-of-order segments above `rcv_next`: index → payload bytes.
    out_of_order: BTreeMap<u64, u32>,
    /// A delayed ACK is being held.
    ack_held: bool,
    /// ns-2 delayed-ACK timer deadline.
    delack_deadline: Option<SimTime>,
    advertised_window: u32,
    outbox: Vec<TcpHeader>,
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
            out_of_order: BTreeMap::new(),
            ack_held: false,
            delack_deadline: None,
            advertised_window,
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

    /// A data segment arrives.
    pub fn on_data(&mut self, now: SimTime, seg_hdr: &TcpHeader) {
        self.stats.pkts_rcvd += 1;
        let seg = self.segment_index(seg_hdr.seq);
        if seg < self.rcv_next || self.out_of_order.contains_key(&seg) {
            // A duplicate: ACK at once, whatever the delayed-ACK mode.
            self.stats.dup_pkts_rcvd += 1;
            self.send_ack_now();
            return;
        }
        let filled_gap = seg < self.max_seen;
        self.max_seen = self.max_seen.max(seg + 1);
        if seg > self.rcv_next {
            self.stats.ooo_pkts += 1;
            self.out_of_order.insert(seg, seg_hdr.payload_bytes);
            self.send_ack_now();
            return;
        }
        self.deliver(seg_hdr.payload_bytes);
        while let Some(payload) = self.out_of_order.remove(&self.rcv_next) {
            self.deliver(payload);
        }
        let immediate = filled_gap && self.cfg.immediate_ack_on_gap_fill;
        match self.cfg.ack_policy {
            AckPolicy::EveryPacket => self.send_ack_now(),
            _ if immediate || seg_hdr.flags.syn => self.send_ack_now(),
            AckPolicy::DelayedNs2 { interval } => {
                if self.ack_held {
                    self.send_ack_now();
                } else {
                    self.ack_held = true;
                    self.delack_deadline = Some(now + interval);
                }
            }
            AckPolicy::DelayedBsd => {
                if self.ack_held {
                    self.send_ack_now();
                } else {
                    self.ack_held = true;
                }
            }
        }
    }

    /// Sends the cumulative ACK now, cancelling any held one.
    fn send_ack_now(&mut self) {
        self.ack_held = false;
        self.delack_deadline = None;
        let ack = match self.cfg.seq_mode {
            SeqMode::Packets => self.rcv_next,
            SeqMode::Bytes => self.rcv_next_byte,
        };
        self.stats.acks_sent += 1;
        self.outbox
            .push(TcpHeader::ack(ack, self.advertised_window));
    }

    /// The ns-2 delayed-ACK timer deadline.
    pub fn next_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// ns-2 delayed-ACK timer wake-up (stale wake-ups are ignored).
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|d| d <= now) && self.ack_held {
            self.send_ack_now();
        }
    }

    /// A boundary of the global 200 ms fast clock (4.3BSD `tcp_fasttimo`).
    pub fn on_fast_tick(&mut self) {
        if self.cfg.ack_policy == AckPolicy::DelayedBsd && self.ack_held {
            self.send_ack_now();
        }
    }

    /// Moves the pending ACKs into `out`.
    pub fn drain_transmit(&mut self, out: &mut Vec<TcpHeader>) {
        out.append(&mut self.outbox);
    }

    /// Wire size of an ACK.
    pub fn ack_wire_bytes(&self) -> u32 {
        self.cfg.ack_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Profile;
    use congsim_core::time::SimDuration;

    fn rx(policy: AckPolicy) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            ack_policy: policy,
            ..Profile::Ns2_2000.receiver()
        })
    }

    fn acks(r: &mut TcpReceiver) -> Vec<u64> {
        let mut out = Vec::new();
        r.drain_transmit(&mut out);
        out.iter().map(|h| h.ack).collect()
    }

    #[test]
    fn in_order_delivery_with_reordering() {
        let mut r = rx(AckPolicy::EveryPacket);
        let t = SimTime::ZERO;
        r.on_data(t, &TcpHeader::data(0, 1000));
        r.on_data(t, &TcpHeader::data(2, 1000));
        r.on_data(t, &TcpHeader::data(3, 1000));
        r.on_data(t, &TcpHeader::data(1, 1000));
        r.on_data(t, &TcpHeader::data(1, 1000));
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
        r.on_data(t0, &TcpHeader::data(0, 1000));
        assert!(acks(&mut r).is_empty());
        assert_eq!(r.next_timeout(), Some(t0 + interval));
        r.on_data(t0, &TcpHeader::data(1, 1000));
        assert_eq!(acks(&mut r), [2], "second segment is ACKed at once");
        r.on_data(t0, &TcpHeader::data(2, 1000));
        r.on_timeout(t0 + SimDuration::from_millis(99));
        assert!(acks(&mut r).is_empty(), "not before the interval");
        r.on_timeout(t0 + interval);
        assert_eq!(acks(&mut r), [3]);
        // Out of order: immediate.
        r.on_data(t0, &TcpHeader::data(5, 1000));
        assert_eq!(acks(&mut r), [3]);
        // Gap fill: immediate.
        r.on_data(t0, &TcpHeader::data(3, 1000));
        assert_eq!(acks(&mut r), [4]);
    }

    #[test]
    fn bsd_delayed_ack_is_flushed_by_the_fast_tick() {
        let mut r = TcpReceiver::new(Profile::Bsd.receiver());
        r.on_data(SimTime::ZERO, &TcpHeader::data(0, 512));
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
            ..Profile::Bsd.receiver()
        });
        r.on_data(SimTime::ZERO, &TcpHeader::data(0, 512));
        r.on_data(SimTime::ZERO, &TcpHeader::data(512, 100));
        assert_eq!(acks(&mut r), [512, 612]);
        assert_eq!(r.stats().wire_bytes_delivered, 512 + 100 + 80);
    }
}
