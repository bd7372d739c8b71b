//! Strict priority (spec `ip.md` §3): one DropTail FIFO per class; the transmitter always takes
//! the head of the highest-priority non-empty class (class 0 first), non-preemptively. A
//! classifier maps each flow to its class.

use super::{ClassStats, Classifier, DropTail, Enqueued};
use congsim_core::wire::Packet;

#[derive(Debug)]
pub struct Priority {
    classes: Vec<DropTail>,
    classifier: Classifier,
    stats: Vec<ClassStats>,
}

impl Priority {
    /// `classes` in priority order (0 highest).
    pub fn new(classes: Vec<DropTail>, classifier: Classifier) -> Self {
        Self {
            stats: vec![ClassStats::default(); classes.len()],
            classes,
            classifier,
        }
    }

    pub fn enqueue(&mut self, pkt: Packet) -> Enqueued {
        let c = self.classifier.class_of(pkt.flow);
        self.stats[c].arrivals += 1;
        let outcome = self.classes[c].enqueue(pkt, (0, 0));
        if !matches!(outcome, Enqueued::Accepted) {
            self.stats[c].drops += 1;
        }
        outcome
    }

    pub fn dequeue(&mut self) -> Option<Packet> {
        let (c, pkt) = self
            .classes
            .iter_mut()
            .enumerate()
            .find_map(|(c, q)| q.dequeue().map(|p| (c, p)))?;
        self.stats[c].departures += 1;
        self.stats[c].bytes_departed += u64::from(pkt.size_bytes);
        Some(pkt)
    }

    pub fn len_packets(&self) -> u64 {
        self.classes.iter().map(DropTail::len_packets).sum()
    }

    pub fn len_bytes(&self) -> u64 {
        self.classes.iter().map(DropTail::len_bytes).sum()
    }

    pub fn class_stats(&self) -> &[ClassStats] {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::LimitSemantics;
    use congsim_core::wire::TcpHeader;
    use congsim_core::{FlowId, NodeId};

    fn pkt(flow: u32, seq: u64) -> Packet {
        Packet::tcp_segment(FlowId(flow), NodeId(1), 500, TcpHeader::data(seq, 460))
    }

    #[test]
    fn the_high_class_always_goes_first_and_each_class_has_its_own_limit() {
        let fifo = |limit| DropTail::packets(limit, LimitSemantics::Waiting);
        // Flow 1 is high priority (class 0); everything else is class 1.
        let mut q = Priority::new(vec![fifo(2), fifo(3)], Classifier::new(vec![1, 0], 1));
        for seq in 0..3 {
            assert_eq!(q.enqueue(pkt(0, seq)), Enqueued::Accepted);
        }
        assert!(matches!(q.enqueue(pkt(0, 3)), Enqueued::DroppedArrival(..)));
        assert_eq!(q.enqueue(pkt(1, 0)), Enqueued::Accepted);
        assert_eq!(q.enqueue(pkt(1, 1)), Enqueued::Accepted);
        assert!(matches!(q.enqueue(pkt(1, 2)), Enqueued::DroppedArrival(..)));
        assert_eq!(
            q.enqueue(pkt(7, 0)),
            Enqueued::DroppedArrival(pkt(7, 0), crate::DropReason::Overflow)
        );
        let order: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue())
            .map(|p| (p.flow.0, p.tcp().unwrap().seq))
            .collect();
        assert_eq!(order, [(1, 0), (1, 1), (0, 0), (0, 1), (0, 2)]);
        let stats = q.class_stats();
        assert_eq!(
            (stats[0].arrivals, stats[0].drops, stats[0].departures),
            (3, 1, 2)
        );
        assert_eq!(
            (stats[1].arrivals, stats[1].drops, stats[1].departures),
            (5, 2, 3)
        );
    }
}
