//! Flow queueing (spec `ip.md` §9, §11): packets hashed into `flows` queues, each under its
//! own AQM, served by deficit round robin with queues that just became active first.
//! FQ-CoDel (RFC 8290; Linux `sch_fq_codel.c`, ns-3.37 `FqCoDelQueueDisc`) puts a CoDel on
//! each queue and drops from the head of the queue holding the most bytes on overflow; FQ-PIE
//! (Linux `sch_fq_pie.c`, ns-3.37 `FqPieQueueDisc`) puts a PIE on each queue and tail-drops
//! (Linux) or drops from the fattest queue (ns-3).

use super::codel::{CodelClock, CodelParams, CodelSource, CodelStats, CodelVars, codel_dequeue};
use super::pie::{PieParams, PieShared, PieStats, PieVars};
use crate::drops::DropReason;
use congsim_core::rng::RngStream;
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;
use std::collections::VecDeque;
use std::fmt::Debug;

/// The flow-queueing fields every FQ discipline has (spec §9.1).
#[derive(Clone, Debug, PartialEq)]
pub struct FqParams {
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
    /// What an arrival beyond the limit does.
    pub overflow: FqOverflow,
}

/// What happens when the queues together hold more than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FqOverflow {
    /// The arrival is dropped (Linux FQ-PIE).
    Tail,
    /// The arrival is queued and packets are dropped from the head of the fattest queue
    /// (FQ-CoDel; ns-3's FQ-PIE).
    FatFlow,
}

/// FQ-CoDel's parameters (spec §9.1).
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    pub fq: FqParams,
    pub codel: CodelParams,
    /// CoDel's MTU test on the flow queue's own bytes (ns-3.37) instead of every queue's
    /// (Linux, RFC 8290's reference).
    pub mtu_per_queue: bool,
}

/// FQ-PIE's parameters (spec §11.1).
#[derive(Clone, Debug, PartialEq)]
pub struct FqPieParams {
    pub fq: FqParams,
    pub pie: PieParams,
}

/// One flow queue's packets as its AQM sees them at a dequeue; the discipline's totals follow.
pub struct FlowSource<'a> {
    queue: &'a mut VecDeque<(Packet, SimTime)>,
    queue_bytes: &'a mut u64,
    packets: &'a mut u64,
    bytes: &'a mut u64,
}

impl FlowSource<'_> {
    /// The head packet and its enqueue time, removed.
    pub(super) fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let head = self.queue.pop_front()?;
        let size = u64::from(head.0.size_bytes);
        *self.queue_bytes -= size;
        *self.bytes -= size;
        *self.packets -= 1;
        Some(head)
    }
    /// Bytes left in this flow queue.
    pub(super) fn queue_bytes(&self) -> u64 {
        *self.queue_bytes
    }
    /// Bytes left in every queue together.
    fn total_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// The AQM of one flow queue: its state is `Self`, what the queues share is `Shared`.
pub trait FlowAqm: Debug + Sized {
    type Shared: Debug;
    /// A queue's state when it is first used.
    fn new_vars(shared: &Self::Shared) -> Self;
    /// The arrival `pkt` at `now` finds `queue_bytes` in its flow queue: `Err` drops it (it
    /// may be marked instead).
    fn admit(
        &mut self,
        shared: &mut Self::Shared,
        now: SimTime,
        queue_bytes: u64,
        pkt: &mut Packet,
    ) -> Result<(), DropReason>;
    /// The packet the queue sends at `now` and when it was enqueued, any the AQM dropped on
    /// the way appended to `dropped`.
    fn dequeue(
        &mut self,
        shared: &mut Self::Shared,
        now: SimTime,
        source: &mut FlowSource<'_>,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<(Packet, SimTime)>;
    /// `packets` were dropped from the queue's head on overflow.
    fn overflow_dropped(&mut self, packets: u32);
}

/// What CoDel's queues share.
#[derive(Debug)]
pub struct CodelShared {
    clock: CodelClock,
    stats: CodelStats,
    mtu_per_queue: bool,
}

/// CoDel as the controller of each flow queue (spec §9.4): it decides at dequeue only.
impl FlowAqm for CodelVars {
    type Shared = CodelShared;

    fn new_vars(_shared: &CodelShared) -> Self {
        Self::default()
    }

    fn admit(
        &mut self,
        _shared: &mut CodelShared,
        _now: SimTime,
        _queue_bytes: u64,
        _pkt: &mut Packet,
    ) -> Result<(), DropReason> {
        Ok(())
    }

    fn dequeue(
        &mut self,
        shared: &mut CodelShared,
        now: SimTime,
        source: &mut FlowSource<'_>,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<(Packet, SimTime)> {
        let mut source = CodelFlow {
            source,
            mtu_per_queue: shared.mtu_per_queue,
        };
        codel_dequeue(
            self,
            &shared.clock,
            &mut shared.stats,
            now,
            &mut source,
            dropped,
        )
    }

    fn overflow_dropped(&mut self, packets: u32) {
        self.count = self.count.wrapping_add(packets);
    }
}

/// One flow queue as CoDel's source; the backlog is the whole discipline's (Linux) or the
/// queue's own (ns-3, `mtu_per_queue`).
struct CodelFlow<'s, 'a> {
    source: &'s mut FlowSource<'a>,
    mtu_per_queue: bool,
}

impl CodelSource for CodelFlow<'_, '_> {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        self.source.pop()
    }
    fn backlog_bytes(&self) -> u64 {
        if self.mtu_per_queue {
            self.source.queue_bytes()
        } else {
            self.source.total_bytes()
        }
    }
}

/// PIE as the controller of each flow queue (spec §11.2): it decides at enqueue, and its
/// delay estimate follows the queue's own departures.
impl FlowAqm for PieVars {
    type Shared = PieShared;

    fn new_vars(shared: &PieShared) -> Self {
        Self::new(&shared.params)
    }

    fn admit(
        &mut self,
        shared: &mut PieShared,
        now: SimTime,
        queue_bytes: u64,
        pkt: &mut Packet,
    ) -> Result<(), DropReason> {
        PieVars::admit(self, shared, now, queue_bytes, pkt)
    }

    fn dequeue(
        &mut self,
        shared: &mut PieShared,
        now: SimTime,
        source: &mut FlowSource<'_>,
        _dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<(Packet, SimTime)> {
        self.catch_up(&shared.params, now, source.queue_bytes());
        let (pkt, enqueued) = source.pop()?;
        let size = u64::from(pkt.size_bytes);
        self.departed(&shared.params, now, enqueued, size, source.queue_bytes());
        Some((pkt, enqueued))
    }

    fn overflow_dropped(&mut self, _packets: u32) {}
}

/// Which list a queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue<A> {
    packets: VecDeque<(Packet, SimTime)>,
    bytes: u64,
    deficit: i64,
    list: List,
    aqm: A,
}

/// SplitMix64's finaliser (spec §9.2): the same buckets on every platform and build.
fn mix(z: u64) -> u64 {
    let z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Flow queues under the AQM `A`.
#[derive(Debug)]
pub struct Fq<A: FlowAqm> {
    queues: Vec<FlowQueue<A>>,
    new_list: VecDeque<u32>,
    old_list: VecDeque<u32>,
    packets: u64,
    bytes: u64,
    limit_packets: u64,
    quantum: i64,
    drop_batch_size: u32,
    hash_seed: u64,
    overflow: FqOverflow,
    shared: A::Shared,
    /// Overflow drops (Linux `drop_overlimit`).
    pub drops_overflow: u64,
    /// Queues that became active (Linux `new_flow_count`).
    pub new_flows: u64,
    dropped: Vec<(Packet, DropReason)>,
    /// When the packet last dequeued was enqueued.
    last_enqueued: SimTime,
}

/// FQ-CoDel (spec §9).
pub type FqCodel = Fq<CodelVars>;
/// FQ-PIE (spec §11).
pub type FqPie = Fq<PieVars>;

impl FqCodel {
    pub fn new(params: &FqCodelParams) -> Self {
        Fq::with_shared(
            &params.fq,
            CodelShared {
                clock: CodelClock::new(&params.codel),
                stats: CodelStats::default(),
                mtu_per_queue: params.mtu_per_queue,
            },
        )
    }
    pub fn stats(&self) -> &CodelStats {
        &self.shared.stats
    }

    /// New parameters from now on (a scheduled `queue_params` event); each queue's CoDel state
    /// carries over.
    pub fn set_params(&mut self, params: &FqCodelParams) {
        self.set_fq_params(&params.fq);
        self.shared.clock = CodelClock::new(&params.codel);
        self.shared.mtu_per_queue = params.mtu_per_queue;
    }
}

impl FqPie {
    pub fn new(params: &FqPieParams, rng: RngStream) -> Self {
        Fq::with_shared(&params.fq, PieShared::new(params.pie.clone(), rng))
    }
    pub fn stats(&self) -> &PieStats {
        self.shared.stats()
    }

    /// New parameters from now on (a scheduled `queue_params` event); each queue's PIE state
    /// carries over.
    pub fn set_params(&mut self, params: &FqPieParams) {
        self.set_fq_params(&params.fq);
        self.shared.params = params.pie.clone();
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

impl<A: FlowAqm> Fq<A> {
    fn with_shared(params: &FqParams, shared: A::Shared) -> Self {
        assert!(params.flows > 0, "flow queueing needs at least one queue");
        Self {
            queues: (0..params.flows)
                .map(|_| FlowQueue {
                    packets: VecDeque::new(),
                    bytes: 0,
                    deficit: 0,
                    list: List::None,
                    aqm: A::new_vars(&shared),
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
            overflow: params.overflow,
            shared,
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

    /// Offers `pkt` arriving at `now` (`also_waiting` counts a packet that left at this same
    /// instant as still waiting, for the limit): its queue's AQM may drop it, and past the
    /// limit the arrival is dropped or the fattest queue's head (possibly `pkt` itself).
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        also_waiting: u64,
    ) -> Result<(), (Packet, DropReason)> {
        let index = self.bucket(&pkt);
        let q = &mut self.queues[index];
        if self.overflow == FqOverflow::Tail && self.packets + also_waiting >= self.limit_packets {
            self.drops_overflow += 1;
            return Err((pkt, DropReason::Overflow));
        }
        if let Err(reason) = q.aqm.admit(&mut self.shared, now, q.bytes, &mut pkt) {
            return Err((pkt, reason));
        }
        q.bytes += u64::from(pkt.size_bytes);
        self.packets += 1;
        self.bytes += u64::from(pkt.size_bytes);
        q.packets.push_back((pkt, now));
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_list.push_back(index as u32);
            self.new_flows += 1;
        }
        if self.overflow == FqOverflow::FatFlow && self.packets + also_waiting > self.limit_packets
        {
            self.drop_from_fattest();
        }
        Ok(())
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
        q.aqm.overflow_dropped(n);
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
            let mut source = FlowSource {
                queue: &mut q.packets,
                queue_bytes: &mut q.bytes,
                packets: &mut self.packets,
                bytes: &mut self.bytes,
            };
            let pkt = q
                .aqm
                .dequeue(&mut self.shared, now, &mut source, &mut self.dropped);
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

    /// A new limit over every queue from now on (packets beyond it stay).
    pub fn set_limit_packets(&mut self, limit_packets: u64) {
        self.limit_packets = limit_packets;
    }

    /// New flow-queueing settings from now on; the queues, their packets, deficits and lists
    /// carry over, so the number of queues and the hash stay (the scenario refuses a change).
    fn set_fq_params(&mut self, params: &FqParams) {
        debug_assert_eq!(params.flows as usize, self.queues.len());
        self.limit_packets = params.limit_packets;
        self.quantum = i64::from(params.quantum_bytes);
        self.drop_batch_size = params.drop_batch_size;
        self.overflow = params.overflow;
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
    /// Packets dropped since the last call (by the AQM at dequeue, on overflow from the
    /// fattest queue).
    pub fn dropped(&mut self) -> &mut Vec<(Packet, DropReason)> {
        &mut self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::FlowId;
    use congsim_core::ids::NodeId;

    fn fq(flows: u32, limit_packets: u64) -> FqParams {
        FqParams {
            limit_packets,
            flows,
            quantum_bytes: 1514,
            drop_batch_size: 64,
            hash_seed: 7,
            overflow: FqOverflow::FatFlow,
        }
    }

    fn params(flows: u32, limit_packets: u64) -> FqCodelParams {
        FqCodelParams {
            fq: fq(flows, limit_packets),
            codel: CodelParams::linux_defaults(),
            mtu_per_queue: false,
        }
    }

    fn packet(flow: u32, size: u32) -> Packet {
        Packet::udp(FlowId(flow), NodeId(9), size, 0)
    }

    /// Flow ids that land in distinct queues.
    fn distinct_flows<A: FlowAqm>(q: &Fq<A>, n: usize) -> Vec<u32> {
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
        let mut reseeded = params(1024, 100);
        reseeded.fq.hash_seed = 8;
        let other = FqCodel::new(&reseeded);
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
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0).unwrap();
        }
        for _ in 0..90 {
            q.enqueue(SimTime::ZERO, packet(flows[1], 500), 0).unwrap();
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
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0).unwrap();
        }
        // Serve a few of the bulk flow, then a single packet of a new flow arrives.
        for _ in 0..5 {
            q.dequeue(SimTime::ZERO);
        }
        q.enqueue(SimTime::ZERO, packet(flows[1], 200), 0).unwrap();
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().flow.0, flows[1]);
        assert_eq!(q.new_flows, 2);
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue_head() {
        let mut q = FqCodel::new(&params(1024, 10));
        let flows = distinct_flows(&q, 2);
        for _ in 0..8 {
            q.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0).unwrap();
        }
        for _ in 0..3 {
            q.enqueue(SimTime::ZERO, packet(flows[1], 1500), 0).unwrap();
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
                q.enqueue(SimTime::ZERO, packet(flows[1], 1500), 0).unwrap();
            }
            for k in 0..60u64 {
                q.enqueue(SimTime::from_millis(10 * k), packet(flows[0], 1500), 0)
                    .unwrap();
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
            q.enqueue(now, packet(flows[0], 1500), 0).unwrap();
            q.enqueue(now, packet(flows[0], 1500), 0).unwrap();
            if k % 8 == 0 {
                q.enqueue(now, packet(flows[1], 200), 0).unwrap();
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

    fn fq_pie(limit_packets: u64, overflow: FqOverflow) -> FqPie {
        FqPie::new(
            &FqPieParams {
                fq: FqParams {
                    overflow,
                    ..fq(1024, limit_packets)
                },
                pie: PieParams::rfc_defaults(),
            },
            congsim_core::rng::StreamFactory::new(1, 0).stream("pie"),
        )
    }

    #[test]
    fn fq_pie_tail_drops_the_arrival_or_the_fattest_head() {
        let mut tail = fq_pie(4, FqOverflow::Tail);
        let flows = distinct_flows(&tail, 2);
        for _ in 0..4 {
            tail.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0)
                .unwrap();
        }
        let (refused, reason) = tail
            .enqueue(SimTime::ZERO, packet(flows[1], 1500), 0)
            .unwrap_err();
        assert_eq!((refused.flow.0, reason), (flows[1], DropReason::Overflow));
        assert!(tail.dropped().is_empty());
        let mut fat = fq_pie(4, FqOverflow::FatFlow);
        for _ in 0..4 {
            fat.enqueue(SimTime::ZERO, packet(flows[0], 1500), 0)
                .unwrap();
        }
        fat.enqueue(SimTime::ZERO, packet(flows[1], 1500), 0)
            .unwrap();
        let dropped: Vec<u32> = fat.dropped().drain(..).map(|(p, _)| p.flow.0).collect();
        assert_eq!(dropped, [flows[0]; 2], "half the fattest queue's bytes");
        assert_eq!(fat.drops_overflow, 2);
    }

    #[test]
    fn fq_pie_drops_the_bulk_flow_and_spares_the_sparse_one() {
        // As codel_acts_per_queue: each queue's PIE judges its own delay, and the safeguard
        // spares a queue of at most two MTUs.
        let mut q = fq_pie(100_000, FqOverflow::Tail);
        let flows = distinct_flows(&q, 2);
        let (mut bulk_drops, mut sparse_sent) = (0, 0);
        for k in 0..5000u64 {
            let now = SimTime::from_ps(k * 1_200_000_000);
            for _ in 0..2 {
                bulk_drops += usize::from(q.enqueue(now, packet(flows[0], 1500), 0).is_err());
            }
            if k % 8 == 0 {
                q.enqueue(now, packet(flows[1], 200), 0).unwrap();
            }
            if q.dequeue(now).is_some_and(|p| p.flow.0 == flows[1]) {
                sparse_sent += 1;
            }
        }
        assert!(bulk_drops > 100, "{bulk_drops}");
        assert_eq!(sparse_sent, 625, "every sparse packet leaves");
        assert_eq!(q.stats().drops, bulk_drops as u64);
    }
}
