//! A unidirectional point-to-point link: transmitter, propagation delay, output queue, and the
//! per-link counters of spec `ip.md` §0.

use crate::qdisc::{Enqueued, Qdisc};
use congsim_core::FlowId;
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::{Rate, SerializationClock};
use congsim_core::wire::Packet;
use std::collections::BTreeMap;

/// Why a packet was dropped at a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropReason {
    /// The queue was full.
    Overflow,
    /// A scripted drop ("the k-th data packet of flow f"), for tests.
    Forced,
    /// Random loss configured on the link.
    RandomLoss,
}

/// Static configuration of a link.
pub struct LinkConfig {
    pub rate: Rate,
    pub delay: SimDuration,
    pub qdisc: Qdisc,
    /// Scripted drops: `(flow, k)` drops the k-th (1-based) TCP data packet of `flow` that
    /// arrives at this link, counting retransmissions.
    pub forced_drops: Vec<(FlowId, u64)>,
    /// Drop each arriving packet with this probability, using `loss_rng`.
    pub random_loss: Option<(f64, RngStream)>,
}

/// Counters of one link.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    pub departures: u64,
    pub bytes_departed: u64,
    pub drops_overflow: u64,
    pub drops_forced: u64,
    pub drops_random: u64,
    /// Largest number of packets waiting (the one in service excluded).
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// ∫ queue length (packets) dt, in packet·picoseconds.
    queue_area_packet_ps: u128,
    last_queue_change: SimTime,
    /// Time the transmitter spent sending.
    pub busy_ps: u64,
}

impl LinkStats {
    pub fn drops_total(&self) -> u64 {
        self.drops_overflow + self.drops_forced + self.drops_random
    }

    /// Time-average queue length in packets over `[0, until]`.
    pub fn mean_queue_packets(&self, until: SimTime, current_len: u64) -> f64 {
        let area = self.queue_area_packet_ps
            + u128::from(current_len) * u128::from(until.since(self.last_queue_change).as_ps());
        if until.as_ps() == 0 {
            0.0
        } else {
            area as f64 / until.as_ps() as f64
        }
    }
}

/// What the caller must do after offering a packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Offer {
    /// The transmitter was idle and started sending: schedule the end of transmission.
    StartedTx { tx_done_at: SimTime },
    /// The packet is waiting in the queue.
    Queued,
    /// A packet was dropped (the arrival, or the head of the queue with drop-front).
    Dropped {
        packet: Box<Packet>,
        reason: DropReason,
    },
}

pub struct Link {
    rate: Rate,
    delay: SimDuration,
    clock: SerializationClock,
    qdisc: Qdisc,
    in_service: Option<Packet>,
    stats: LinkStats,
    forced_drops: Vec<(FlowId, u64)>,
    data_arrivals_by_flow: BTreeMap<FlowId, u64>,
    random_loss: Option<(f64, RngStream)>,
}

impl Link {
    pub fn new(config: LinkConfig) -> Self {
        Self {
            rate: config.rate,
            delay: config.delay,
            clock: SerializationClock::new(config.rate),
            qdisc: config.qdisc,
            in_service: None,
            stats: LinkStats::default(),
            forced_drops: config.forced_drops,
            data_arrivals_by_flow: BTreeMap::new(),
            random_loss: config.random_loss,
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }
    pub fn delay(&self) -> SimDuration {
        self.delay
    }
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }
    /// Packets waiting (the one in service excluded).
    pub fn queue_len_packets(&self) -> u64 {
        self.qdisc.len_packets()
    }

    fn note_queue_change(&mut self, now: SimTime, old_len: u64) {
        let stats = &mut self.stats;
        stats.queue_area_packet_ps +=
            u128::from(old_len) * u128::from(now.since(stats.last_queue_change).as_ps());
        stats.last_queue_change = now;
        stats.max_queue_packets = stats.max_queue_packets.max(self.qdisc.len_packets());
        stats.max_queue_bytes = stats.max_queue_bytes.max(self.qdisc.len_bytes());
    }

    fn scripted_or_random_drop(&mut self, pkt: &Packet) -> Option<DropReason> {
        if !self.forced_drops.is_empty() && pkt.is_tcp_data() {
            let count = self.data_arrivals_by_flow.entry(pkt.flow).or_insert(0);
            *count += 1;
            let k = *count;
            if let Some(i) = self
                .forced_drops
                .iter()
                .position(|&(f, n)| f == pkt.flow && n == k)
            {
                self.forced_drops.swap_remove(i);
                return Some(DropReason::Forced);
            }
        }
        if let Some((p, rng)) = &mut self.random_loss
            && rng.bernoulli(*p)
        {
            return Some(DropReason::RandomLoss);
        }
        None
    }

    fn count_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Overflow => self.stats.drops_overflow += 1,
            DropReason::Forced => self.stats.drops_forced += 1,
            DropReason::RandomLoss => self.stats.drops_random += 1,
        }
    }

    fn start_tx(&mut self, now: SimTime, pkt: Packet) -> SimTime {
        let tx = self.clock.next_tx_time(u64::from(pkt.size_bytes));
        self.stats.busy_ps += tx.as_ps();
        self.in_service = Some(pkt);
        now + tx
    }

    /// A packet arrives at the link's input.
    pub fn offer(&mut self, now: SimTime, pkt: Packet) -> Offer {
        self.stats.arrivals += 1;
        if let Some(reason) = self.scripted_or_random_drop(&pkt) {
            self.count_drop(reason);
            return Offer::Dropped {
                packet: Box::new(pkt),
                reason,
            };
        }
        let old_len = self.qdisc.len_packets();
        let outcome = self.qdisc.enqueue(pkt);
        let dropped = match outcome {
            Enqueued::Accepted => None,
            Enqueued::DroppedArrival(p) | Enqueued::DroppedHead(p) => Some(p),
        };
        if self.in_service.is_none()
            && let Some(next) = self.qdisc.dequeue()
        {
            self.note_queue_change(now, old_len);
            let tx_done_at = self.start_tx(now, next);
            debug_assert!(dropped.is_none(), "an idle link dropped a packet");
            return Offer::StartedTx { tx_done_at };
        }
        self.note_queue_change(now, old_len);
        match dropped {
            None => Offer::Queued,
            Some(p) => {
                self.count_drop(DropReason::Overflow);
                Offer::Dropped {
                    packet: Box::new(p),
                    reason: DropReason::Overflow,
                }
            }
        }
    }

    /// The transmission in progress ends at `now`. Returns the packet, the time it reaches
    /// the far node, and the end time of the next transmission if one started.
    pub fn complete_tx(&mut self, now: SimTime) -> (Packet, SimTime, Option<SimTime>) {
        let pkt = self
            .in_service
            .take()
            .expect("complete_tx with an idle transmitter");
        self.stats.departures += 1;
        self.stats.bytes_departed += u64::from(pkt.size_bytes);
        let old_len = self.qdisc.len_packets();
        let next = self.qdisc.dequeue().map(|p| self.start_tx(now, p));
        if next.is_some() {
            self.note_queue_change(now, old_len);
        }
        (pkt, now + self.delay, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::{DropTail, LimitSemantics, QueueLimit};
    use congsim_core::NodeId;
    use congsim_core::wire::TcpHeader;

    fn link(limit: u64, forced: Vec<(FlowId, u64)>) -> Link {
        Link::new(LinkConfig {
            rate: Rate::from_bps(8_000_000).unwrap(), // 1 byte per microsecond
            delay: SimDuration::from_millis(5),
            qdisc: Qdisc::DropTail(DropTail::new(
                QueueLimit::Packets(limit),
                LimitSemantics::Waiting,
                false,
            )),
            forced_drops: forced,
            random_loss: None,
        })
    }

    fn data(flow: u32, seq: u64) -> Packet {
        Packet::tcp_segment(
            FlowId(flow),
            NodeId(0),
            NodeId(1),
            1000,
            SimTime::ZERO,
            TcpHeader::data(seq, 960),
        )
    }

    #[test]
    fn serialization_and_propagation_are_exact() {
        let mut l = link(10, vec![]);
        let t0 = SimTime::from_millis(1);
        assert_eq!(
            l.offer(t0, data(0, 0)),
            Offer::StartedTx {
                tx_done_at: t0 + SimDuration::from_micros(1000)
            }
        );
        assert_eq!(l.offer(t0, data(0, 1)), Offer::Queued);
        let done = t0 + SimDuration::from_micros(1000);
        let (p, arrive, next) = l.complete_tx(done);
        assert_eq!(p.tcp().unwrap().seq, 0);
        assert_eq!(arrive, done + SimDuration::from_millis(5));
        assert_eq!(next, Some(done + SimDuration::from_micros(1000)));
        assert_eq!(l.stats().max_queue_packets, 1);
    }

    #[test]
    fn forced_drop_hits_the_kth_data_packet_of_the_flow_only() {
        let mut l = link(100, vec![(FlowId(1), 2)]);
        let now = SimTime::ZERO;
        assert!(!matches!(l.offer(now, data(0, 0)), Offer::Dropped { .. }));
        assert!(!matches!(l.offer(now, data(0, 1)), Offer::Dropped { .. }));
        assert!(!matches!(l.offer(now, data(1, 0)), Offer::Dropped { .. }));
        assert!(matches!(
            l.offer(now, data(1, 1)),
            Offer::Dropped {
                reason: DropReason::Forced,
                ..
            }
        ));
        assert!(
            !matches!(l.offer(now, data(1, 1)), Offer::Dropped { .. }),
            "only once"
        );
        assert_eq!(l.stats().drops_forced, 1);
    }

    #[test]
    fn mean_queue_integrates_over_time() {
        let mut l = link(10, vec![]);
        l.offer(SimTime::ZERO, data(0, 0)); // in service until 1 ms
        l.offer(SimTime::ZERO, data(0, 1)); // waits 1 ms
        let (_, _, next) = l.complete_tx(SimTime::from_millis(1));
        l.complete_tx(next.unwrap());
        // One packet waited for 1 ms out of 4 ms.
        let mean = l
            .stats()
            .mean_queue_packets(SimTime::from_millis(4), l.queue_len_packets());
        assert!((mean - 0.25).abs() < 1e-12, "{mean}");
    }
}
