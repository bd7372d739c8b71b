//! DropTail FIFO (spec `ip.md` §1, ns-2 `Queue/DropTail`).

use super::{Enqueued, LimitSemantics, QueueLimit};
use crate::drops::DropReason;
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// A limit and its semantics as the most packets and bytes that may be queued with an arrival
/// (`u64::MAX`: no bound): the admission test is two compares. A FIFO link that computes
/// departure times at enqueue keeps the queue itself and a copy of these beside it.
#[derive(Clone, Copy, Debug)]
pub struct AdmissionBounds {
    most_packets: u64,
    most_bytes: u64,
}

impl AdmissionBounds {
    fn of(limit: QueueLimit, semantics: LimitSemantics) -> Self {
        let most = |limit: u64| match semantics {
            //= ns-2 DropTail::enque: (q_->length() + 1) >= qlim_
            // (a zero limit admits nothing: every arrival adds at least one packet or byte)
            LimitSemantics::Ns2DropTail => limit.saturating_sub(1),
            LimitSemantics::Waiting => limit,
        };
        let (most_packets, most_bytes) = match limit {
            QueueLimit::Packets(limit) => (most(limit), u64::MAX),
            QueueLimit::Bytes(limit) => (u64::MAX, most(limit)),
        };
        Self {
            most_packets,
            most_bytes,
        }
    }

    /// `true` unless the bytes queued can refuse an arrival (a limit in packets, or none).
    pub fn counts_packets(&self) -> bool {
        self.most_bytes == u64::MAX
    }

    /// `Err(Overflow)` if an arrival of `arriving_bytes` does not fit beside `queued_packets`
    /// and `queued_bytes`.
    #[inline]
    pub fn admit(
        &self,
        queued_packets: u64,
        queued_bytes: u64,
        arriving_bytes: u64,
    ) -> Result<(), DropReason> {
        if queued_packets + 1 > self.most_packets
            || queued_bytes.saturating_add(arriving_bytes) > self.most_bytes
        {
            Err(DropReason::Overflow)
        } else {
            Ok(())
        }
    }
}

#[derive(Debug)]
pub struct DropTail {
    queue: VecDeque<Packet>,
    queued_bytes: u64,
    limit: QueueLimit,
    semantics: LimitSemantics,
    /// ns-2 `drop_front_`: on overflow, queue the arrival and drop the head instead.
    drop_front: bool,
    bounds: AdmissionBounds,
}

impl DropTail {
    pub fn new(limit: QueueLimit, semantics: LimitSemantics, drop_front: bool) -> Self {
        Self {
            queue: VecDeque::new(),
            queued_bytes: 0,
            limit,
            semantics,
            drop_front,
            bounds: AdmissionBounds::of(limit, semantics),
        }
    }

    /// A new limit of the same kind (packets or bytes) from now on; packets already beyond it
    /// stay (arrivals are refused until the queue drains below it).
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = match self.limit {
            QueueLimit::Packets(_) => QueueLimit::Packets(limit),
            QueueLimit::Bytes(_) => QueueLimit::Bytes(limit),
        };
        self.bounds = AdmissionBounds::of(self.limit, self.semantics);
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// New settings from now on (a scheduled `queue_params` event); the packets queued stay.
    pub fn set_config(&mut self, limit: QueueLimit, semantics: LimitSemantics, drop_front: bool) {
        (self.limit, self.semantics, self.drop_front) = (limit, semantics, drop_front);
        self.bounds = AdmissionBounds::of(limit, semantics);
    }

    /// A packet-limited queue without drop-front.
    pub fn packets(limit: u64, semantics: LimitSemantics) -> Self {
        Self::new(QueueLimit::Packets(limit), semantics, false)
    }

    /// The admission test (what a fast-path link asks).
    pub fn bounds(&self) -> AdmissionBounds {
        self.bounds
    }

    /// `true` if this discipline never reorders or drops from the queue once a packet is
    /// admitted, so departure times can be computed at enqueue.
    pub fn is_fifo_admission_only(&self) -> bool {
        !self.drop_front
    }

    /// Offers `pkt`; `also_waiting` (packets, bytes) is counted as queued besides the queue.
    pub fn enqueue(&mut self, pkt: Packet, also_waiting: (u64, u64)) -> Enqueued {
        let queued = self.queue.len() as u64 + also_waiting.0;
        let queued_bytes = self.queued_bytes + also_waiting.1;
        if self
            .bounds
            .admit(queued, queued_bytes, u64::from(pkt.size_bytes))
            .is_err()
        {
            if self.drop_front && !self.queue.is_empty() {
                self.push(pkt);
                let head = self.dequeue().expect("queue is not empty");
                return Enqueued::DroppedHead(head);
            }
            return Enqueued::DroppedArrival(pkt, DropReason::Overflow);
        }
        self.push(pkt);
        Enqueued::Accepted
    }

    fn push(&mut self, pkt: Packet) {
        self.queued_bytes += u64::from(pkt.size_bytes);
        self.queue.push_back(pkt);
    }

    pub fn dequeue(&mut self) -> Option<Packet> {
        let pkt = self.queue.pop_front()?;
        self.queued_bytes -= u64::from(pkt.size_bytes);
        Some(pkt)
    }

    pub fn len_packets(&self) -> u64 {
        self.queue.len() as u64
    }

    pub fn len_bytes(&self) -> u64 {
        self.queued_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::wire::TcpHeader;
    use congsim_core::{FlowId, NodeId};

    fn pkt(size: u32, seq: u64) -> Packet {
        let header = TcpHeader::data(seq, size);
        Packet::tcp_segment(FlowId(0), NodeId(1), size, header)
    }

    fn fill(q: &mut DropTail, n: u64) -> u64 {
        (0..n)
            .filter(|&i| q.enqueue(pkt(500, i), (0, 0)) == Enqueued::Accepted)
            .count() as u64
    }

    #[test]
    fn ns2_semantics_hold_limit_minus_one_waiting() {
        let mut q = DropTail::new(QueueLimit::Packets(5), LimitSemantics::Ns2DropTail, false);
        assert_eq!(fill(&mut q, 10), 4);
    }

    #[test]
    fn waiting_semantics_hold_limit_waiting() {
        let mut q = DropTail::new(QueueLimit::Packets(5), LimitSemantics::Waiting, false);
        assert_eq!(fill(&mut q, 10), 5);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = DropTail::new(QueueLimit::Bytes(1600), LimitSemantics::Waiting, false);
        assert_eq!(fill(&mut q, 10), 3);
        assert_eq!(q.len_bytes(), 1500);
    }

    #[test]
    fn drop_front_drops_the_oldest() {
        let mut q = DropTail::new(QueueLimit::Packets(2), LimitSemantics::Waiting, true);
        fill(&mut q, 2);
        match q.enqueue(pkt(500, 99), (0, 0)) {
            Enqueued::DroppedHead(head) => assert_eq!(head.tcp().unwrap().seq, 0),
            other => panic!("expected a head drop, got {other:?}"),
        }
        assert_eq!(q.dequeue().unwrap().tcp().unwrap().seq, 1);
        assert_eq!(q.dequeue().unwrap().tcp().unwrap().seq, 99);
    }
}
