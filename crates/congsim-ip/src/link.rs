//! A unidirectional point-to-point link: transmitter, propagation delay, output queue, and the
//! per-link counters of spec `ip.md` §0.
//!
//! Packets that have left the transmitter propagate in the link's *pipe*, in arrival order
//! (the delay is constant, so FIFO departures give FIFO arrivals). The caller keeps one
//! wake-up per link for the head of the pipe instead of one event per packet.
//!
//! Two service paths:
//! * **FIFO fast path** — for disciplines that decide only at enqueue and serve in order
//!   (DropTail without drop-front). A packet's transmission start is known when it is
//!   admitted (`max(now, busy_until)`), so it goes straight into the pipe with its arrival
//!   time; no end-of-transmission event exists. The waiting packets are remembered by their
//!   start times, which is all the admission test and the queue statistics need.
//! * **Scheduled path** — any discipline: the transmitter asks the discipline for the next
//!   packet when it becomes free (`complete_tx`). Needed for drop-front, and for schedulers
//!   that choose at dequeue time.
//!
//! Both paths give identical results for a FIFO discipline (tested in the facade).

use crate::qdisc::{Enqueued, Qdisc};
use congsim_core::FlowId;
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::{Rate, SerializationClock};
use congsim_core::wire::Packet;
use std::collections::{BTreeMap, VecDeque};

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
    /// Drop each arriving packet with this probability, using this stream.
    pub random_loss: Option<(f64, RngStream)>,
    /// Use the FIFO fast path when the discipline allows it.
    pub fifo_fast_path: bool,
}

/// Counters of one link.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    /// Transmissions started.
    pub departures: u64,
    pub bytes_departed: u64,
    pub drops_overflow: u64,
    pub drops_forced: u64,
    pub drops_random: u64,
    /// Largest number of packets waiting (the one in service excluded).
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// ∫ queue length dt in packet·picoseconds, as the sum of every packet's waiting time.
    queue_area_packet_ps: u128,
    /// Transmitter busy time (transmissions started).
    pub busy_ps: u64,
}

impl LinkStats {
    pub fn drops_total(&self) -> u64 {
        self.drops_overflow + self.drops_forced + self.drops_random
    }
}

/// What the caller must schedule after offering a packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Offer {
    /// The packet is on its way; if it is the only packet in the pipe, the caller must wake
    /// the link at `head_arrival`.
    Sent { head_arrival: Option<SimTime> },
    /// Scheduled path: the transmitter started; wake the link at `tx_done_at`.
    StartedTx { tx_done_at: SimTime },
    /// The packet is waiting in the queue (scheduled path).
    Queued,
    /// A packet was dropped (the arrival, or the head of the queue with drop-front).
    Dropped {
        packet: Box<Packet>,
        reason: DropReason,
    },
}

/// Waiting packets of the fast path: their transmission start times and sizes.
#[derive(Default)]
struct FifoQueue {
    waiting: VecDeque<(SimTime, u32)>,
    waiting_bytes: u64,
    /// When the transmitter finishes the last admitted packet.
    busy_until: SimTime,
}

impl FifoQueue {
    /// Forgets packets whose transmission has started by `now`.
    fn advance(&mut self, now: SimTime) {
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= u64::from(bytes);
        }
    }
}

pub struct Link {
    rate: Rate,
    delay: SimDuration,
    clock: SerializationClock,
    qdisc: Qdisc,
    /// `Some` on the FIFO fast path.
    fifo: Option<FifoQueue>,
    /// Scheduled path: the packet being transmitted and when its transmission started.
    in_service: Option<Packet>,
    /// Scheduled path: when each waiting packet was enqueued (for the queue area).
    enqueued_at: VecDeque<SimTime>,
    pipe: VecDeque<(SimTime, Packet)>,
    stats: LinkStats,
    forced_drops: Vec<(FlowId, u64)>,
    data_arrivals_by_flow: BTreeMap<FlowId, u64>,
    random_loss: Option<(f64, RngStream)>,
}

impl Link {
    pub fn new(config: LinkConfig) -> Self {
        let fifo = (config.fifo_fast_path && config.qdisc.fifo_admission().is_some())
            .then(FifoQueue::default);
        Self {
            rate: config.rate,
            delay: config.delay,
            clock: SerializationClock::new(config.rate),
            qdisc: config.qdisc,
            fifo,
            in_service: None,
            enqueued_at: VecDeque::new(),
            pipe: VecDeque::new(),
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
    /// `true` when the FIFO fast path serves this link.
    pub fn is_fast_path(&self) -> bool {
        self.fifo.is_some()
    }

    /// Packets waiting at `now` (the one in service excluded).
    pub fn queue_len_packets(&mut self, now: SimTime) -> u64 {
        match &mut self.fifo {
            Some(fifo) => {
                fifo.advance(now);
                fifo.waiting.len() as u64
            }
            None => self.qdisc.len_packets(),
        }
    }

    /// Time-average queue length in packets over `[0, until]`.
    pub fn mean_queue_packets(&self, until: SimTime) -> f64 {
        if until == SimTime::ZERO {
            return 0.0;
        }
        // Waiting beyond `until` does not count.
        let beyond: u128 = match &self.fifo {
            Some(fifo) => fifo
                .waiting
                .iter()
                .map(|&(start, _)| u128::from(start.since(until).as_ps()))
                .sum(),
            None => 0,
        };
        let open: u128 = match &self.fifo {
            Some(_) => 0,
            None => self
                .enqueued_at
                .iter()
                .map(|&t| u128::from(until.since(t).as_ps()))
                .sum(),
        };
        (self.stats.queue_area_packet_ps + open - beyond) as f64 / until.as_ps() as f64
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

    /// Serialization time of `pkt`, counted as a departure.
    fn transmit(&mut self, pkt: &Packet) -> SimDuration {
        let tx = self.clock.next_tx_time(u64::from(pkt.size_bytes));
        self.stats.departures += 1;
        self.stats.bytes_departed += u64::from(pkt.size_bytes);
        self.stats.busy_ps += tx.as_ps();
        tx
    }

    /// Puts a packet into the pipe; returns its arrival time if it is now the head.
    fn enter_pipe(&mut self, arrive_at: SimTime, pkt: Packet) -> Option<SimTime> {
        debug_assert!(
            self.pipe.back().is_none_or(|(t, _)| *t <= arrive_at),
            "pipe out of order"
        );
        self.pipe.push_back((arrive_at, pkt));
        (self.pipe.len() == 1).then_some(arrive_at)
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
        if self.fifo.is_some() {
            return self.offer_fifo(now, pkt);
        }
        let outcome = self.qdisc.enqueue(pkt);
        let dropped = match outcome {
            Enqueued::Accepted => None,
            Enqueued::DroppedArrival(p) => Some(p),
            Enqueued::DroppedHead(p) => {
                // The head's waiting time so far still counts; the arrival's starts now.
                let since = self
                    .enqueued_at
                    .pop_front()
                    .expect("a queued head has a time");
                self.stats.queue_area_packet_ps += u128::from(now.since(since).as_ps());
                self.enqueued_at.push_back(now);
                Some(p)
            }
        };
        if matches!(outcome, Enqueued::Accepted) {
            self.enqueued_at.push_back(now);
        }
        if self.in_service.is_none()
            && let Some(next) = self.dequeue(now)
        {
            debug_assert!(dropped.is_none(), "an idle link dropped a packet");
            let tx = self.transmit(&next);
            self.in_service = Some(next);
            return Offer::StartedTx {
                tx_done_at: now + tx,
            };
        }
        self.note_max_queue();
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

    fn offer_fifo(&mut self, now: SimTime, pkt: Packet) -> Offer {
        let admission = self
            .qdisc
            .fifo_admission()
            .expect("fast path needs a FIFO discipline");
        let fifo = self.fifo.as_mut().expect("fast path");
        fifo.advance(now);
        let overflow = admission.would_overflow_with(
            fifo.waiting.len() as u64,
            fifo.waiting_bytes,
            u64::from(pkt.size_bytes),
        );
        if overflow {
            self.count_drop(DropReason::Overflow);
            return Offer::Dropped {
                packet: Box::new(pkt),
                reason: DropReason::Overflow,
            };
        }
        let start = fifo.busy_until.max(now);
        if start > now {
            fifo.waiting.push_back((start, pkt.size_bytes));
            fifo.waiting_bytes += u64::from(pkt.size_bytes);
            self.stats.queue_area_packet_ps += u128::from((start - now).as_ps());
            self.stats.max_queue_packets =
                self.stats.max_queue_packets.max(fifo.waiting.len() as u64);
            self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(fifo.waiting_bytes);
        }
        let tx = self.transmit(&pkt);
        let fifo = self.fifo.as_mut().expect("fast path");
        fifo.busy_until = start + tx;
        let arrive_at = fifo.busy_until + self.delay;
        Offer::Sent {
            head_arrival: self.enter_pipe(arrive_at, pkt),
        }
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let pkt = self.qdisc.dequeue()?;
        let since = self
            .enqueued_at
            .pop_front()
            .expect("a queued packet has a time");
        self.stats.queue_area_packet_ps += u128::from(now.since(since).as_ps());
        Some(pkt)
    }

    fn note_max_queue(&mut self) {
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.qdisc.len_packets());
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.qdisc.len_bytes());
    }

    /// Scheduled path: the transmission in progress ends at `now`. The packet enters the pipe.
    /// Returns the new pipe head's arrival time (if the pipe was empty) and the end time of the
    /// next transmission, if one started.
    pub fn complete_tx(&mut self, now: SimTime) -> (Option<SimTime>, Option<SimTime>) {
        let pkt = self
            .in_service
            .take()
            .expect("complete_tx with an idle transmitter");
        let head = self.enter_pipe(now + self.delay, pkt);
        let next = self.dequeue(now).map(|p| {
            let tx = self.transmit(&p);
            self.in_service = Some(p);
            now + tx
        });
        (head, next)
    }

    /// The head of the pipe reaches the far node at `now`. Returns it and the arrival time of
    /// the next packet in the pipe.
    pub fn pop_arrival(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let (at, pkt) = self
            .pipe
            .pop_front()
            .expect("pop_arrival with an empty pipe");
        debug_assert_eq!(at, now, "pipe head popped at the wrong time");
        (pkt, self.pipe.front().map(|(t, _)| *t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::{DropTail, LimitSemantics};
    use congsim_core::NodeId;
    use congsim_core::wire::TcpHeader;

    fn link(limit: u64, forced: Vec<(FlowId, u64)>, fast: bool) -> Link {
        Link::new(LinkConfig {
            rate: Rate::from_bps(8_000_000).unwrap(), // 1 byte per microsecond
            delay: SimDuration::from_millis(5),
            qdisc: Qdisc::DropTail(DropTail::packets(limit, LimitSemantics::Waiting)),
            forced_drops: forced,
            random_loss: None,
            fifo_fast_path: fast,
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

    fn us(v: u64) -> SimDuration {
        SimDuration::from_micros(v)
    }

    #[test]
    fn scheduled_path_serializes_then_propagates_exactly() {
        let mut l = link(10, vec![], false);
        let t0 = SimTime::from_millis(1);
        assert_eq!(
            l.offer(t0, data(0, 0)),
            Offer::StartedTx {
                tx_done_at: t0 + us(1000)
            }
        );
        assert_eq!(l.offer(t0, data(0, 1)), Offer::Queued);
        let done = t0 + us(1000);
        let (head, next) = l.complete_tx(done);
        assert_eq!(head, Some(done + SimDuration::from_millis(5)));
        assert_eq!(next, Some(done + us(1000)));
        let (p, following) = l.pop_arrival(done + SimDuration::from_millis(5));
        assert_eq!(p.tcp().unwrap().seq, 0);
        assert_eq!(following, None);
        assert_eq!(l.stats().max_queue_packets, 1);
    }

    #[test]
    fn fast_path_computes_the_same_arrival_times() {
        let mut l = link(10, vec![], true);
        assert!(l.is_fast_path());
        let t0 = SimTime::from_millis(1);
        let first = t0 + us(1000) + SimDuration::from_millis(5);
        assert_eq!(
            l.offer(t0, data(0, 0)),
            Offer::Sent {
                head_arrival: Some(first)
            }
        );
        assert_eq!(l.offer(t0, data(0, 1)), Offer::Sent { head_arrival: None });
        assert_eq!(l.queue_len_packets(t0), 1);
        assert_eq!(
            l.queue_len_packets(t0 + us(1000)),
            0,
            "the second started at 1 ms"
        );
        let (_, next) = l.pop_arrival(first);
        assert_eq!(next, Some(first + us(1000)));
    }

    #[test]
    fn forced_drop_hits_the_kth_data_packet_of_the_flow_only() {
        let mut l = link(100, vec![(FlowId(1), 2)], true);
        let now = SimTime::ZERO;
        let dropped = |o: Offer| {
            matches!(
                o,
                Offer::Dropped {
                    reason: DropReason::Forced,
                    ..
                }
            )
        };
        assert!(!dropped(l.offer(now, data(0, 0))));
        assert!(!dropped(l.offer(now, data(0, 1))));
        assert!(!dropped(l.offer(now, data(1, 0))));
        assert!(dropped(l.offer(now, data(1, 1))));
        assert!(!dropped(l.offer(now, data(1, 1))), "only once");
        assert_eq!(l.stats().drops_forced, 1);
    }

    #[test]
    fn mean_queue_is_the_same_on_both_paths() {
        for fast in [false, true] {
            let mut l = link(10, vec![], fast);
            l.offer(SimTime::ZERO, data(0, 0)); // in service until 1 ms
            l.offer(SimTime::ZERO, data(0, 1)); // waits 1 ms
            l.offer(SimTime::ZERO, data(0, 2)); // waits 2 ms
            if !fast {
                let (_, next) = l.complete_tx(SimTime::from_millis(1));
                let (_, next) = l.complete_tx(next.unwrap());
                l.complete_tx(next.unwrap());
            }
            // 3 ms of waiting over 4 ms; measured at 1.5 ms, only 1 + 1.5 ms have elapsed.
            assert!(
                (l.mean_queue_packets(SimTime::from_millis(4)) - 0.75).abs() < 1e-12,
                "fast={fast}"
            );
            if fast {
                assert!(
                    (l.mean_queue_packets(SimTime::from_millis(1) + us(500)) - 2.5 / 1.5).abs()
                        < 1e-12
                );
            }
        }
    }
}
