//! FQ-CoDel (spec `ip.md` §9, RFC 8290; Linux `sch_fq_codel.c`, ns-3.37 `FqCoDelQueueDisc`):
//! packets hashed into `flows` queues, each under its own CoDel control law, served by deficit
//! round robin with queues that just became active first; on overflow, packets are dropped from
//! the head of the queue holding the most bytes.

use super::codel::{CodelClock, CodelParams, CodelSource, CodelStats, CodelVars, codel_dequeue};
use crate::drops::DropReason;
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// FQ-CoDel's parameters besides CoDel's (spec §9.1).
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    pub codel: CodelParams,
    /// Packets in all queues together.
    pub limit_packets: u64,
    /// Number of flow queues (hash buckets).
    pub flows: u32,
    /// Bytes a queue may send per round.
    pub quantum_bytes: u32,
    /// Most packets dropped from the fattest queue on one overflow.
    pub drop_batch_size: u32,
    /// The flow hash's seed.
    pub hash_seed: u64,
    /// CoDel's MTU test on the flow queue's own bytes (ns-3.37) instead of every queue's
    /// (Linux, RFC 8290's reference).
    pub mtu_per_queue: bool,
}

/// Which list a queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue {
    packets: VecDeque<(Packet, SimTime)>,
    bytes: u64,
    deficit: i64,
    list: List,
    vars: CodelVars,
}

/// SplitMix64's finaliser (spec §9.2): the same buckets on every platform and build.
fn mix(z: u64) -> u64 {
    let z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Debug)]
pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new_list: VecDeque<u32>,
    old_list: VecDeque<u32>,
    packets: u64,
    bytes: u64,
    limit_packets: u64,
    quantum: i64,
    drop_batch_size: u32,
    hash_seed: u64,
    mtu_per_queue: bool,
    clock: CodelClock,
    stats: CodelStats,
    /// Overflow drops (Linux `drop_overlimit`).
    pub drops_overflow: u64,
    /// Queues that became active (Linux `new_flow_count`).
    pub new_flows: u64,
    dropped: Vec<(Packet, DropReason)>,
    /// When the packet last dequeued was enqueued.
    last_enqueued: SimTime,
}

/// One flow queue as CoDel's source; the backlog is the whole discipline's (Linux) or the
/// queue's own (ns-3, `mtu_per_queue`).
struct Source<'a> {
    queue: &'a mut VecDeque<(Packet, SimTime)>,
    queue_bytes: &'a mut u64,
    packets: &'a mut u64,
    bytes: &'a mut u64,
    mtu_per_queue: bool,
}

impl CodelSource for Source<'_> {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let head = self.queue.pop_front()?;
        let size = u64::from(head.0.size_bytes);
        *self.queue_bytes -= size;
        *self.bytes -= size;
        *self.packets -= 1;
        Some(head)
    }
    fn backlog_bytes(&self) -> u64 {
        if self.mtu_per_queue {
            *self.queue_bytes
        } else {
            *self.bytes
        }
    }
}

/// Takes the head off the new list or the old one.
fn pop_front(from_new: bool, new_list: &mut VecDeque<u32>, old_list: &mut VecDeque<u32>) {
    if from_new {
        new_list.pop_front();
    } else {
        old_list.pop_front();
    }
}

impl FqCodel {
    pub fn new(params: &FqCodelParams) -> Self {
        assert!(params.flows > 0, "FQ-CoDel needs at least one queue");
        Self {
            queues: (0..params.flows)
                .map(|_| FlowQueue {
                    packets: VecDeque::new(),
                    bytes: 0,
                    deficit: 0,
                    list: List::None,
                    vars: CodelVars::default(),
                })
                .collect(),
            new_list: VecDeque::new(),
            old_list: VecDeque::new(),
            packets: 0,
            bytes: 0,
            limit_packets: params.limit_packets,
            quantum: i64::from(params.quantum_bytes),
            drop_batch_size: params.drop_batch_size,
            hash_seed: params.hash_seed,
            mtu_per_queue: params.mtu_per_queue,
            clock: CodelClock::new(&params.codel),
            stats: CodelStats::default(),
            drops_overflow: 0,
            new_flows: 0,
            dropped: Vec::new(),
            last_enqueued: SimTime::ZERO,
        }
    }

    /// The queue of `pkt`: its flow and direction (the destination), hashed with the seed and
    /// scaled onto the queues as Linux's `reciprocal_scale`.
    pub fn bucket(&self, pkt: &Packet) -> usize {
        let k = mix(mix(mix(self.hash_seed) ^ u64::from(pkt.dst.0)) ^ u64::from(pkt.flow.0));
        (((k >> 32) * self.queues.len() as u64) >> 32) as usize
    }

    /// Queues `pkt`; past the limit, drops from the fattest queue (possibly `pkt` itself).
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, also_waiting: u64) {
        let index = self.bucket(&pkt);
        let q = &mut self.queues[index];
        q.bytes += u64::from(pkt.size_bytes);
        q.packets.push_back((pkt, now));
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_list.push_back(index as u32);
            self.new_flows += 1;
        }
        self.packets += 1;
        self.bytes += u64::from(pkt.size_bytes);
        if self.packets + also_waiting > self.limit_packets {
            self.drop_from_fattest();
        }
    }

    /// Linux `fq_codel_drop`: up to `drop_batch_size` packets from the head of the queue
    /// with the most bytes (the lowest bucket on a tie), until half its bytes are gone.
    fn drop_from_fattest(&mut self) {
        let fattest = (0..self.queues.len())
            .rev()
            .max_by_key(|&i| self.queues[i].bytes)
            .expect("at least one queue");
        let q = &mut self.queues[fattest];
        let threshold = q.bytes >> 1;
        let (mut n, mut len) = (0u32, 0u64);
        while let Some((pkt, _)) = q.packets.pop_front() {
            let size = u64::from(pkt.size_bytes);
            q.bytes -= size;
            self.bytes -= size;
            self.packets -= 1;
            self.dropped.push((pkt, DropReason::Overflow));
            n += 1;
            len += size;
            if n >= self.drop_batch_size || len >= threshold {
                break;
            }
        }
        q.vars.count = q.vars.count.wrapping_add(n);
        self.drops_overflow += u64::from(n);
    }

    /// Deficit round robin over the new, then the old queues (spec §9.4).
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        loop {
            let (from_new, index) = match (self.new_list.front(), self.old_list.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let q = &mut self.queues[index as usize];
            if q.deficit <= 0 {
                q.deficit += self.quantum;
                pop_front(from_new, &mut self.new_list, &mut self.old_list);
                q.list = List::Old;
                self.old_list.push_back(index);
                continue;
            }
            let mut source = Source {
                queue: &mut q.packets,
                queue_bytes: &mut q.bytes,
                packets: &mut self.packets,
                bytes: &mut self.bytes,
                mtu_per_queue: self.mtu_per_queue,
            };
            let pkt = codel_dequeue(
                &mut q.vars,
                &self.clock,
                &mut self.stats,
                now,
                &mut source,
                &mut self.dropped,
            );
            match pkt {
                Some((pkt, enqueued)) => {
                    q.deficit -= i64::from(pkt.size_bytes);
                    self.last_enqueued = enqueued;
                    return Some(pkt);
                }
                None => {
                    pop_front(from_new, &mut self.new_list, &mut self.old_list);
                    // RFC 8290 §4.2: an emptied new queue goes to the old list, so that a
                    // flow sending a packet per round is not new every round.
                    if from_new {
                        q.list = List::Old;
                        self.old_list.push_back(index);
                    } else {
                        q.list = List::None;
                    }
                }
            }
        }
    }

    /// When the packet last dequeued was enqueued.
    pub fn last_enqueued(&self) -> SimTime {
        self.last_enqueued
    }

    pub fn len_packets(&self) -> u64 {
        self.packets
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    pub fn stats(&self) -> &CodelStats {
        &self.stats
    }
    /// Packets dropped since the last call (at dequeue by CoDel, at enqueue on overflow).
    pub fn dropped(&mut self) -> &mut Vec<(Packet, DropReason)> {
        &mut self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::FlowId;
    use congsim_core::ids::NodeId;

    fn params(flows: u32, limit_packets: u64) -> FqCodelParams {
        FqCodelParams {
            codel: CodelParams::linux_defaults(),
            limit_packets,
            flows,
            quantum_bytes: 1514,
            drop_batch_size: 64,
            hash_seed: 7,
            mtu_per_queue: false,
        }
    }

    fn packet(flow: u32, size: u32) -> Packet {
        Packet::udp(FlowId(flow), NodeId(9), size, 0)
    }

    /// Flow ids that land in distinct queues.
    fn distinct_flows(q: &FqCodel, n: usize) -> Vec<u32> {
        let mut flows: Vec<u32> = Vec::new();
        let mut used = Vec::new();
        for f in 0.. {
            let b = q.bucket(&packet(f, 100));
            if !used.contains(&b) {
                used.push(b);
                flows.push(f);
                if flows.len() == n {
                    break;
                }
            }
        }
        flows
    }

    #[test]
    fn the_hash_is_fixed_by_the_seed_and_spreads_flows() {
        let q = FqCodel::new(&params(1024, 100));
        let again = FqCodel::new(&params(1024, 100));
        let buckets: Vec<usize> = (0..200).map(|f| q.bucket(&packet(f, 100))).collect();
        assert_eq!(
            buckets,
            (0..200)
                .map(|f| again.bucket(&packet(f, 100)))
                .collect::<Vec<_>>()
        );
        assert!(buckets.iter().all(|&b| b < 1024));
        let mut distinct = buckets.clone();
        distinct.sort_unstable();
        distinct.dedup();
        // 200 balls into 1024 bins: about 18 collide (birthday); far more means a bad hash.
        assert!(distinct.len() > 160, "{}", distinct.len());
        let other = FqCodel::new(&FqCodelParams {
            hash_seed: 8,
            ..params(1024, 100)
        });
        assert_ne!(
            buckets[..20],
            (0..20)
                .map(|f| other.bucket(&packet(f, 100)))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn round_robin_serves_equal_bytes_per_round_whatever_the_packet_sizes() {
        let mut q = FqCodel::new(&params(1024, 10_000));
        let flows = distinct_flows(&q, 2);
        // Flow a sends 1500-byte packets, flow b 500-byte ones: per round a quantum of bytes.
        for _ in 0..30 {
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0);
        }
        for _ in 0..90 {
            q.enqueue(SimTime::ZERO, packet(flows[1], 500), 0);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..40 {
            let p = q.dequeue(SimTime::ZERO).expect("backlogged");
            bytes[usize::from(p.flow.0 == flows[1])] += u64::from(p.size_bytes);
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((0.8..1.25).contains(&ratio), "{bytes:?}");
    }

    #[test]
    fn a_sparse_flow_goes_first() {
        let mut q = FqCodel::new(&params(1024, 10_000));
        let flows = distinct_flows(&q, 2);
        for _ in 0..50 {
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0);
        }
        // Serve a few of the bulk flow, then a single packet of a new flow arrives.
        for _ in 0..5 {
            q.dequeue(SimTime::ZERO);
        }
        q.enqueue(SimTime::ZERO, packet(flows[1], 200), 0);
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().flow.0, flows[1]);
        assert_eq!(q.new_flows, 2);
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue_head() {
        let mut q = FqCodel::new(&params(1024, 10));
        let flows = distinct_flows(&q, 2);
        for _ in 0..8 {
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0);
        }
        for _ in 0..3 {
            q.enqueue(SimTime::ZERO, packet(flows[1], 1500), 0);
        }
        // The 11th packet overflows: half the bulk queue's bytes (4 packets) go from its head.
        let dropped: Vec<u32> = q.dropped().drain(..).map(|(p, _)| p.flow.0).collect();
        assert_eq!(dropped, [flows[0]; 4]);
        assert_eq!(q.len_packets(), 7);
        assert_eq!(q.drops_overflow, 4);
    }

    #[test]
    fn the_mtu_test_counts_every_queue_unless_per_queue() {
        // Flow a keeps one packet queued, each waiting 10 ms; flow b a long standing queue.
        // Linux counts every queue's bytes, so a's lone packets are dropped once their wait has
        // stayed above target; ns-3's per-queue test never drops a queue of one packet.
        let drops_of_a = |mtu_per_queue: bool| {
            let mut q = FqCodel::new(&FqCodelParams {
                mtu_per_queue,
                ..params(1024, 100_000)
            });
            let flows = distinct_flows(&q, 2);
            for _ in 0..1000 {
                q.enqueue(SimTime::ZERO, packet(flows[1], 1500), 0);
            }
            for k in 0..60u64 {
                q.enqueue(SimTime::from_millis(10 * k), packet(flows[0], 1500), 0);
                for _ in 0..2 {
                    q.dequeue(SimTime::from_millis(10 * k + 10));
                }
            }
            let dropped = q.dropped().drain(..);
            dropped.filter(|(p, _)| p.flow.0 == flows[0]).count()
        };
        assert!(drops_of_a(false) > 0);
        assert_eq!(drops_of_a(true), 0);
    }

    #[test]
    fn codel_acts_per_queue() {
        // A bulk flow overloads its queue; a sparse one sends one small packet per 10 ms.
        let mut q = FqCodel::new(&params(1024, 100_000));
        let flows = distinct_flows(&q, 2);
        let mut sparse_sent = Vec::new();
        for k in 0..500u64 {
            let now = SimTime::from_ps(k * 1_200_000_000);
            q.enqueue(now, packet(flows[0], 1500), 0);
            q.enqueue(now, packet(flows[0], 1500), 0);
            if k % 8 == 0 {
                q.enqueue(now, packet(flows[1], 200), 0);
            }
            if let Some(p) = q.dequeue(now)
                && p.flow.0 == flows[1]
            {
                sparse_sent.push(k);
            }
        }
        let drops: Vec<u32> = q.dropped().drain(..).map(|(p, _)| p.flow.0).collect();
        assert!(!drops.is_empty() && drops.iter().all(|&f| f == flows[0]));
        assert_eq!(sparse_sent.len(), 63, "every sparse packet leaves");
    }
}
