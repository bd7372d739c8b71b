//! A unidirectional point-to-point link: transmitter, propagation delay, output queue, and the
//! per-link counters of spec `ip.md` §0.
//!
//! Packets that have left the transmitter propagate in the link's *pipe*, in arrival order
//! (the delay is constant, so FIFO departures give FIFO arrivals). The caller keeps one
//! wake-up per link for the head of the pipe instead of one event per packet.
//!
//! Two service paths:
//! * **FIFO fast path**: for disciplines that decide only at enqueue and serve in order
//!   (DropTail without drop-front). A packet's transmission start is known when it is
//!   admitted (`max(arrival, busy_until)`), so no end-of-transmission event exists: the caller
//!   gets the arrival time at the far node at once. The waiting packets are remembered by
//!   their enqueue and start times, which is all the admission test and the statistics need.
//! * **Scheduled path**: any discipline; the transmitter asks the discipline for the next
//!   packet when it becomes free ([`Link::complete_tx`]). Needed for drop-front, and for
//!   schedulers that choose at dequeue time.
//!
//! On the fast path an offer may be made *ahead of time*: `offer(now, at, pkt)` with `at > now`
//! evaluates the link as it will be at `at`. That is exact when every packet reaching the link
//! comes from one upstream link, in that link's pipe order, so that no other offer can fall in
//! between; the facade uses it to fuse hops (see `congsim::sim`).

mod events;
#[cfg(test)]
mod tests;

use crate::drops::{DropReason, ScriptedAction};
use crate::fifo::{Admission, FifoQueue, Waiting};
use crate::qdisc::{Enqueued, Qdisc};
use congsim_core::FlowId;
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::{Rate, SerializationClock};
use congsim_core::wire::Packet;
use std::collections::{BTreeMap, VecDeque};

/// Static configuration of a link.
pub struct LinkConfig {
    pub rate: Rate,
    pub delay: SimDuration,
    pub qdisc: Qdisc,
    /// Scripted drops and marks: `(flow, k, action)` acts on the k-th (1-based) TCP data packet
    /// of `flow` that arrives at this link, counting retransmissions.
    pub scripted: Vec<(FlowId, u64, ScriptedAction)>,
    /// Drop each arriving packet with this probability, using this stream.
    pub random_loss: Option<(f64, RngStream)>,
    /// Use the FIFO fast path when the discipline allows it.
    pub fifo_fast_path: bool,
    /// Record every transmission (start time and packet) for packet capture.
    pub capture: bool,
    /// Count each flow's arrivals, drops and marks here ([`Link::flow_counts`]).
    pub flow_monitor: bool,
    /// Record each packet's wait in the queue ([`Link::sojourns`]).
    pub record_sojourns: bool,
}

/// One packet's wait in a link's queue, recorded when it started transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sojourn {
    /// When the packet left the queue (started transmission).
    pub left_at: SimTime,
    pub flow: FlowId,
    /// From arrival at the link to the start of its transmission.
    pub wait: SimDuration,
    pub size_bytes: u32,
}

/// Counters of one link ([`Link::stats_at`]).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    /// Transmissions started.
    pub departures: u64,
    pub bytes_departed: u64,
    /// Transmitter busy time (transmissions started).
    pub busy_ps: u64,
    /// Largest number of packets waiting (the one in service excluded).
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// ∫ queue length dt in packet·picoseconds, as the sum of every packet's waiting time.
    queue_area_packet_ps: u128,
    pub drops_overflow: u64,
    /// RED early drops.
    pub drops_early: u64,
    /// RED forced drops.
    pub drops_forced: u64,
    pub drops_scripted: u64,
    pub drops_random: u64,
    /// Packets whose CE bit this link set (scripted marks; [`Link::stats_at`] adds RED's).
    pub marks: u64,
    /// Packets lost because the link was down (scheduled events).
    pub drops_link_down: u64,
}

impl LinkStats {
    /// What was counted since `start`, an earlier reading of the same link; the queue maxima
    /// stay those of the whole run (a maximum cannot be taken apart).
    pub fn since(&self, start: &Self) -> Self {
        Self {
            arrivals: self.arrivals - start.arrivals,
            departures: self.departures - start.departures,
            bytes_departed: self.bytes_departed - start.bytes_departed,
            busy_ps: self.busy_ps - start.busy_ps,
            max_queue_packets: self.max_queue_packets,
            max_queue_bytes: self.max_queue_bytes,
            queue_area_packet_ps: self.queue_area_packet_ps - start.queue_area_packet_ps,
            drops_overflow: self.drops_overflow - start.drops_overflow,
            drops_early: self.drops_early - start.drops_early,
            drops_forced: self.drops_forced - start.drops_forced,
            drops_scripted: self.drops_scripted - start.drops_scripted,
            drops_random: self.drops_random - start.drops_random,
            marks: self.marks - start.marks,
            drops_link_down: self.drops_link_down - start.drops_link_down,
        }
    }

    /// ∫ queue length dt in packet·picoseconds (up to [`Link::stats_at`]'s instant, in its
    /// reading).
    pub fn queue_area_packet_ps(&self) -> u128 {
        self.queue_area_packet_ps
    }

    pub fn drops_total(&self) -> u64 {
        self.drops_overflow
            + self.drops_early
            + self.drops_forced
            + self.drops_scripted
            + self.drops_random
            + self.drops_link_down
    }
}

/// The counters a link keeps in its own lines: the four every packet updates first, then the
/// ones a queued packet updates (`repr(C)` keeps the order; see [`Link`]). The rest of
/// [`LinkStats`] only counts what instruments do, and is kept in them ([`RareCounts`]).
#[derive(Clone, Debug, Default)]
#[repr(C)]
struct Counters {
    arrivals: u64,
    departures: u64,
    bytes_departed: u64,
    busy_ps: u64,
    max_queue_packets: u64,
    max_queue_bytes: u64,
    queue_area_packet_ps: u128,
    drops_overflow: u64,
    drops_early: u64,
    drops_forced: u64,
}

/// The counters of what a link's instruments do: scripted drops and marks, random loss, and
/// the losses of a link going down.
#[derive(Clone, Copy, Debug, Default)]
struct RareCounts {
    drops_scripted: u64,
    drops_random: u64,
    marks: u64,
    drops_link_down: u64,
}

/// What the caller must do after offering a packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Offer {
    /// Fast path: admitted; the packet reaches the far node at `arrive_at`. The caller puts it
    /// into this link's pipe ([`Link::enter_pipe`]) or offers it straight to the next link.
    Departs { arrive_at: SimTime },
    /// Scheduled path: the transmitter started; wake the link at `tx_done_at`.
    StartedTx { tx_done_at: SimTime },
    /// The packet is waiting in the queue (scheduled path).
    Queued,
    /// A packet was dropped (the arrival, or the head of the queue with drop-front).
    Dropped { reason: DropReason },
}

/// A packet propagating in the pipe: exactly one cache line, so that writing it at departure
/// and reading it at arrival, milliseconds apart, each touch one line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct InFlight {
    arrive_at: SimTime,
    packet: Packet,
}

/// What a link does besides forwarding: scripted drops and marks, random loss, packet
/// capture. Behind one pointer, so that a plain link's offer checks one field and its hot state
/// (the random stream alone is 300 bytes) stays in a few cache lines.
#[derive(Default)]
struct Instruments {
    scripted: Vec<(FlowId, u64, ScriptedAction)>,
    data_arrivals_by_flow: BTreeMap<FlowId, u64>,
    random_loss: Option<(f64, RngStream)>,
    /// Transmissions as `(start of transmission, packet)`, when capturing.
    capture: Option<Vec<(SimTime, Packet)>>,
    /// Each flow's arrivals, drops and marks, when monitoring flows.
    per_flow: Option<BTreeMap<FlowId, FlowCounts>>,
    /// Each packet's wait, when recording sojourns.
    sojourns: Option<Vec<Sojourn>>,
    /// The link is down (a scheduled event): every arrival is lost.
    down: bool,
    /// What the instruments dropped and marked.
    counts: RareCounts,
}

/// What one flow met at a link (a flow monitor's counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounts {
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
}

impl FlowCounts {
    /// What was counted since `start`, an earlier reading of the same flow at the same link.
    pub fn since(&self, start: &Self) -> Self {
        Self {
            arrivals: self.arrivals - start.arrivals,
            drops: self.drops - start.drops,
            marks: self.marks - start.marks,
        }
    }
}

/// Field order is chosen (hence `repr(C)`): what a fast-path offer touches comes first, and an
/// offer that finds no packet waiting touches only the first three cache lines (up to the
/// fourth counter); the counters of queued packets follow, in the fourth and last line. An
/// offer to a link that last saw a packet many packets ago finds these lines evicted: each one
/// it needs is a cache miss.
#[repr(C, align(64))]
pub struct Link {
    /// Scripted drops, random loss and capture, on the few links that have any.
    instruments: Option<Box<Instruments>>,
    delay: SimDuration,
    clock: SerializationClock,
    pipe: VecDeque<InFlight>,
    service: Service,
    stats: Counters,
}

/// How packets reach the transmitter: the FIFO fast path's waiting room, or the scheduled
/// path's discipline and transmitter, behind a pointer: most links of a large network are on
/// the fast path (every access link of a dumbbell), and a link holds 256 bytes less for it.
enum Service {
    Fifo(FifoQueue),
    Scheduled(Box<Transmitter>),
}

/// The scheduled path's discipline and transmitter.
struct Transmitter {
    qdisc: Qdisc,
    /// The packet being transmitted.
    in_service: Option<Packet>,
    /// When the transmission in progress (or the last one) ends.
    tx_ends_at: SimTime,
    /// When the packet in service started, if it had waited in the queue. An arrival at that
    /// same instant still counts it as waiting, whatever the order the two events were taken
    /// in, which is the fast path's convention (see `FifoQueue::advance`).
    in_service_left_queue_at: Option<SimTime>,
    /// When each waiting packet was enqueued (for the queue area).
    enqueued_at: VecDeque<SimTime>,
    /// The wake-up the caller holds for a discipline that kept its packets back (CBQ), and one
    /// it has still to be told about.
    wake_scheduled: Option<SimTime>,
    wake_to_schedule: Option<SimTime>,
    /// Packets dropped from inside the queue, for the caller to record.
    inside_drops: Vec<Packet>,
}

impl Link {
    pub fn new(config: LinkConfig) -> Self {
        let qdisc = config.qdisc;
        let service = match config.fifo_fast_path && qdisc.is_fifo_admission_only() {
            true => Service::Fifo(FifoQueue {
                admission: match qdisc.admission_bounds() {
                    Some(bounds) => Admission::Bounds(bounds),
                    None => Admission::Discipline(Box::new(qdisc)),
                },
                waiting: VecDeque::new(),
                busy_until: SimTime::ZERO,
                admitted_bytes: 0,
            }),
            false => Service::Scheduled(Box::new(Transmitter {
                qdisc,
                in_service: None,
                tx_ends_at: SimTime::ZERO,
                in_service_left_queue_at: None,
                enqueued_at: VecDeque::new(),
                wake_scheduled: None,
                wake_to_schedule: None,
                inside_drops: Vec::new(),
            })),
        };
        Self {
            delay: config.delay,
            clock: SerializationClock::new(config.rate),
            service,
            pipe: VecDeque::new(),
            stats: Counters::default(),
            instruments: (!config.scripted.is_empty()
                || config.random_loss.is_some()
                || config.capture
                || config.flow_monitor
                || config.record_sojourns)
                .then(|| {
                    Box::new(Instruments {
                        scripted: config.scripted,
                        data_arrivals_by_flow: BTreeMap::new(),
                        random_loss: config.random_loss,
                        capture: config.capture.then(Vec::new),
                        per_flow: config.flow_monitor.then(BTreeMap::new),
                        sojourns: config.record_sojourns.then(Vec::new),
                        down: false,
                        counts: RareCounts::default(),
                    })
                }),
        }
    }

    /// The instruments, created for a link that had none.
    fn instruments_mut(&mut self) -> &mut Instruments {
        self.instruments.get_or_insert_default()
    }

    /// The fast path's waiting room (`None` on the scheduled path).
    #[inline]
    fn fifo(&self) -> Option<&FifoQueue> {
        match &self.service {
            Service::Fifo(fifo) => Some(fifo),
            Service::Scheduled(_) => None,
        }
    }

    /// The discipline: the scheduled path's, or the fast path's when it decides admission
    /// (`None` for fixed bounds).
    fn qdisc(&self) -> Option<&Qdisc> {
        match &self.service {
            Service::Scheduled(tx) => Some(&tx.qdisc),
            Service::Fifo(fifo) => match &fifo.admission {
                Admission::Discipline(qdisc) => Some(qdisc),
                Admission::Bounds(_) => None,
            },
        }
    }

    /// The scheduled path's transmitter (`None` on the fast path).
    #[inline]
    fn transmitter(&self) -> Option<&Transmitter> {
        match &self.service {
            Service::Scheduled(tx) => Some(tx),
            Service::Fifo(_) => None,
        }
    }

    /// The scheduled path's transmitter; only the scheduled path calls this.
    #[inline]
    fn tx(&mut self) -> &mut Transmitter {
        match &mut self.service {
            Service::Scheduled(tx) => tx,
            Service::Fifo(_) => unreachable!("the fast path has no transmitter state"),
        }
    }

    /// The fast path's waiting room; only the fast path calls this.
    #[inline]
    fn fifo_mut(&mut self) -> &mut FifoQueue {
        match &mut self.service {
            Service::Fifo(fifo) => fifo,
            Service::Scheduled(_) => unreachable!("the scheduled path has no waiting room"),
        }
    }

    /// Each flow's arrivals, drops and marks here, by flow (`None` unless monitoring flows).
    pub fn flow_counts(&self) -> Option<&BTreeMap<FlowId, FlowCounts>> {
        self.instruments.as_ref()?.per_flow.as_ref()
    }

    /// Counts something that happened to a packet of `flow`, when monitoring flows.
    fn count_flow(&mut self, flow: FlowId, count: impl FnOnce(&mut FlowCounts)) {
        let monitor = self
            .instruments
            .as_deref_mut()
            .and_then(|i| i.per_flow.as_mut());
        if let Some(per_flow) = monitor {
            count(per_flow.entry(flow).or_default());
        }
    }

    /// Each packet's wait in the queue, in the order they left it (empty unless recording).
    pub fn sojourns(&self) -> &[Sojourn] {
        self.instruments
            .as_ref()
            .and_then(|i| i.sojourns.as_deref())
            .unwrap_or(&[])
    }

    /// Takes the recorded waits out of the link (empty unless recording).
    pub fn take_sojourns(&mut self) -> Vec<Sojourn> {
        (self.instruments.as_mut())
            .and_then(|i| i.sojourns.as_mut())
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Notes that `pkt`, which arrived at `arrived`, leaves the queue at `left_at`, when
    /// recording sojourns.
    fn note_sojourn(&mut self, left_at: SimTime, arrived: SimTime, pkt: &Packet) {
        if let Some(sojourns) = self.instruments.as_mut().and_then(|i| i.sojourns.as_mut()) {
            sojourns.push(Sojourn {
                left_at,
                flow: pkt.flow,
                wait: left_at.since(arrived),
                size_bytes: pkt.size_bytes,
            });
        }
    }

    /// Frees the packets propagating on the link, once the run has ended: nothing reads them
    /// after, and a large network holds many.
    pub fn forget_in_flight(&mut self) {
        self.pipe = VecDeque::new();
    }

    /// The recorded transmissions, in start order (empty unless capturing).
    pub fn captured(&self) -> &[(SimTime, Packet)] {
        self.instruments
            .as_ref()
            .and_then(|i| i.capture.as_deref())
            .unwrap_or(&[])
    }

    pub fn rate(&self) -> Rate {
        self.clock.rate()
    }
    pub fn delay(&self) -> SimDuration {
        self.delay
    }
    /// The counters as the link has them: the queue area of the waits that ended, marks of
    /// its scripts only, and the fast path's departures counted at admission (see
    /// [`Self::stats_at`]).
    pub fn stats(&self) -> LinkStats {
        let c = &self.stats;
        let rare = self
            .instruments
            .as_ref()
            .map_or_else(RareCounts::default, |i| i.counts);
        LinkStats {
            arrivals: c.arrivals,
            departures: c.departures,
            bytes_departed: c.bytes_departed,
            busy_ps: c.busy_ps,
            max_queue_packets: c.max_queue_packets,
            max_queue_bytes: c.max_queue_bytes,
            queue_area_packet_ps: c.queue_area_packet_ps,
            drops_overflow: c.drops_overflow,
            drops_early: c.drops_early,
            drops_forced: c.drops_forced,
            drops_scripted: rare.drops_scripted,
            drops_random: rare.drops_random,
            marks: rare.marks,
            drops_link_down: rare.drops_link_down,
        }
    }
    /// Per-class counters of a class-based queue (empty for a single FIFO).
    pub fn class_stats(&self) -> &[crate::qdisc::ClassStats] {
        self.qdisc().map_or(&[], Qdisc::class_stats)
    }

    /// The counters as of `end`: the fast path counts a transmission when it admits the packet,
    /// so packets still waiting at `end` are taken back out; the queue area is
    /// [`Self::queue_area_at`]`(end)`.
    pub fn stats_at(&self, end: SimTime) -> LinkStats {
        let mut stats = self.stats();
        stats.queue_area_packet_ps = self.queue_area_at(end);
        stats.marks += self.qdisc().map_or(0, Qdisc::marks);
        if let Some(fifo) = self.fifo() {
            for w in fifo.waiting.iter().filter(|w| w.start >= end) {
                stats.departures -= 1;
                stats.bytes_departed -= u64::from(w.bytes);
                stats.busy_ps -= w.tx_ps;
            }
        }
        stats
    }
    /// `true` when the FIFO fast path serves this link.
    pub fn is_fast_path(&self) -> bool {
        self.fifo().is_some()
    }
    /// `true` when offers may be made ahead of time (fast path with a packet limit).
    pub fn accepts_early_offers(&self) -> bool {
        match &self.service {
            Service::Fifo(fifo) => match &fifo.admission {
                Admission::Bounds(bounds) => bounds.counts_packets(),
                Admission::Discipline(qdisc) => qdisc.counts_packets(),
            },
            Service::Scheduled(_) => false,
        }
    }

    /// Packets waiting at `now` (the one in service excluded).
    pub fn queue_len_packets(&mut self, now: SimTime) -> u64 {
        match &mut self.service {
            Service::Fifo(fifo) => {
                fifo.advance(now);
                // Offers made ahead of time are not in the queue yet.
                fifo.waiting
                    .iter()
                    .filter(|w| w.enqueued <= now && w.start >= now)
                    .count() as u64
            }
            Service::Scheduled(tx) => tx.qdisc.len_packets(),
        }
    }

    /// Time-average queue length in packets over `[0, until]`.
    pub fn mean_queue_packets(&self, until: SimTime) -> f64 {
        if until == SimTime::ZERO {
            return 0.0;
        }
        self.queue_area_at(until) as f64 / until.as_ps() as f64
    }

    /// ∫ queue length dt from the start to `until`, in packet·picoseconds (every packet
    /// admitted before `until`, and none after, must have been offered).
    pub fn queue_area_at(&self, until: SimTime) -> u128 {
        // Every packet's whole wait was added at admission: take back what lies beyond `until`.
        let beyond: u128 = match self.fifo() {
            Some(fifo) => fifo
                .waiting
                .iter()
                .map(|w| u128::from(w.start.since(w.enqueued.max(until)).as_ps()))
                .sum(),
            None => 0,
        };
        // The scheduled path adds a wait when it ends: add the waits still open.
        let open: u128 = (self.transmitter().into_iter())
            .flat_map(|tx| &tx.enqueued_at)
            .map(|&t| u128::from(until.since(t).as_ps()))
            .sum();
        self.stats.queue_area_packet_ps + open - beyond
    }

    /// The instrumented part of an offer: counts the arrival for the flow monitor and applies
    /// scripted drops and marks and random loss.
    fn scripted_or_random_drop(&mut self, pkt: &mut Packet) -> Option<DropReason> {
        let instruments = self.instruments.as_deref_mut()?;
        if let Some(per_flow) = &mut instruments.per_flow {
            per_flow.entry(pkt.flow).or_default().arrivals += 1;
        }
        if instruments.down {
            return Some(DropReason::LinkDown);
        }
        if !instruments.scripted.is_empty() && pkt.is_tcp_data() {
            let count = instruments
                .data_arrivals_by_flow
                .entry(pkt.flow)
                .or_insert(0);
            *count += 1;
            let k = *count;
            if let Some(i) = instruments
                .scripted
                .iter()
                .position(|&(f, n, _)| f == pkt.flow && n == k)
            {
                let (_, _, action) = instruments.scripted.swap_remove(i);
                if action == ScriptedAction::Mark && pkt.ecn.ect {
                    pkt.ecn.ce = true;
                    instruments.counts.marks += 1;
                    if let Some(per_flow) = &mut instruments.per_flow {
                        per_flow.entry(pkt.flow).or_default().marks += 1;
                    }
                } else {
                    return Some(DropReason::Scripted);
                }
            }
        }
        if let Some((p, rng)) = &mut instruments.random_loss
            && rng.bernoulli(*p)
        {
            return Some(DropReason::RandomLoss);
        }
        None
    }

    fn drop_for(&mut self, reason: DropReason, flow: FlowId) -> Offer {
        self.count_flow(flow, |counts| counts.drops += 1);
        match reason {
            DropReason::Overflow => self.stats.drops_overflow += 1,
            DropReason::Early => self.stats.drops_early += 1,
            DropReason::Forced => self.stats.drops_forced += 1,
            DropReason::Scripted => self.instruments_mut().counts.drops_scripted += 1,
            DropReason::RandomLoss => self.instruments_mut().counts.drops_random += 1,
            DropReason::LinkDown => self.instruments_mut().counts.drops_link_down += 1,
        }
        Offer::Dropped { reason }
    }

    /// Serialization time of `pkt`, whose transmission starts at `start`, counted as a departure.
    fn transmit(&mut self, start: SimTime, pkt: &Packet) -> SimDuration {
        if let Some(capture) = self.instruments.as_mut().and_then(|i| i.capture.as_mut()) {
            capture.push((start, *pkt));
        }
        let tx = self.clock.next_tx_time(u64::from(pkt.size_bytes));
        self.stats.departures += 1;
        self.stats.bytes_departed += u64::from(pkt.size_bytes);
        self.stats.busy_ps += tx.as_ps();
        tx
    }

    /// Puts a packet that left the transmitter into the pipe; returns its arrival time if it
    /// is now the head (the caller must then wake the link at that time).
    pub fn enter_pipe(&mut self, arrive_at: SimTime, pkt: Packet) -> Option<SimTime> {
        debug_assert!(
            self.pipe.back().is_none_or(|f| f.arrive_at <= arrive_at),
            "pipe out of order"
        );
        self.pipe.push_back(InFlight {
            arrive_at,
            packet: pkt,
        });
        (self.pipe.len() == 1).then_some(arrive_at)
    }

    /// A packet reaches the link's input at `at` (the current time `now`, or later for an
    /// early offer on the fast path).
    /// The packet is borrowed: on the fast path the caller keeps it (it goes into a pipe or on
    /// to the next hop); a queueing discipline takes a copy. A marking link sets its CE bit.
    pub fn offer(&mut self, now: SimTime, at: SimTime, pkt: &mut Packet) -> Offer {
        self.stats.arrivals += 1;
        if let Some(reason) = self.scripted_or_random_drop(pkt) {
            return self.drop_for(reason, pkt.flow);
        }
        if let Service::Fifo(_) = self.service {
            return self.offer_fifo(now, at, pkt);
        }
        debug_assert_eq!(now, at, "early offers need the fast path");
        let monitored = self.instruments.is_some();
        let tx = self.tx();
        let also_waiting = match (tx.in_service_left_queue_at, &tx.in_service) {
            (Some(t), Some(p)) if t == now => (1, u64::from(p.size_bytes)),
            _ => (0, 0),
        };
        // A flow monitor learns of RED's marks from its counter.
        let marks_before = monitored.then(|| tx.qdisc.marks());
        let outcome = tx.qdisc.enqueue(now, *pkt, also_waiting);
        if marks_before.is_some_and(|before| self.tx().qdisc.marks() > before) {
            self.count_flow(pkt.flow, |counts| counts.marks += 1);
        }
        let mut drop_reason = DropReason::Overflow;
        let dropped = match outcome {
            Enqueued::Accepted => {
                self.tx().enqueued_at.push_back(now);
                self.collect_inside_drops(now);
                false
            }
            Enqueued::DroppedArrival(_, reason) => {
                drop_reason = reason;
                true
            }
            Enqueued::DroppedHead(_) => {
                // The head's wait so far still counts; the arrival's starts now.
                let enqueued_at = &mut self.tx().enqueued_at;
                let since = enqueued_at.pop_front().expect("a queued head has a time");
                enqueued_at.push_back(now);
                self.stats.queue_area_packet_ps += u128::from(now.since(since).as_ps());
                true
            }
        };
        if self.tx().in_service.is_none() {
            if let Some(next) = self.dequeue(now) {
                debug_assert!(!dropped, "an idle link dropped a packet");
                let tx_time = self.transmit(now, &next);
                let tx = self.tx();
                tx.in_service = Some(next);
                tx.in_service_left_queue_at = None;
                tx.tx_ends_at = now + tx_time;
                return Offer::StartedTx {
                    tx_done_at: tx.tx_ends_at,
                };
            }
            self.ask_for_wake(now);
        }
        self.note_max_queue();
        if dropped {
            self.drop_for(drop_reason, pkt.flow)
        } else {
            Offer::Queued
        }
    }

    fn offer_fifo(&mut self, now: SimTime, at: SimTime, pkt: &mut Packet) -> Offer {
        let fifo = self.fifo_mut();
        fifo.advance(now);
        let (queued, queued_bytes) = fifo.queued_at(at);
        let admitted = match &mut fifo.admission {
            // The common case, kept free of RED's arguments.
            Admission::Bounds(bounds) => {
                bounds.admit(queued, queued_bytes, u64::from(pkt.size_bytes))
            }
            Admission::Discipline(qdisc) => {
                // The transmitter is idle at `at` once everything admitted has been sent.
                let idle_since = (fifo.busy_until <= at).then_some(fifo.busy_until);
                let marked_before = pkt.ecn.ce;
                let verdict = qdisc.fifo_admit(at, queued, queued_bytes, idle_since, pkt);
                if pkt.ecn.ce && !marked_before {
                    self.count_flow(pkt.flow, |counts| counts.marks += 1);
                }
                verdict
            }
        };
        if let Err(reason) = admitted {
            return self.drop_for(reason, pkt.flow);
        }
        let fifo = self.fifo_mut();
        let start = fifo.busy_until.max(at);
        if self.instruments.is_some() {
            self.note_sojourn(start, at, pkt);
        }
        let tx = self.transmit(start, pkt);
        let Service::Fifo(fifo) = &mut self.service else {
            unreachable!("fast path")
        };
        if start > at {
            fifo.admitted_bytes += u64::from(pkt.size_bytes);
            fifo.waiting.push_back(Waiting {
                enqueued: at,
                start,
                bytes: pkt.size_bytes,
                tx_ps: tx.as_ps(),
                cumulative_bytes: fifo.admitted_bytes,
            });
            self.stats.queue_area_packet_ps += u128::from((start - at).as_ps());
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(queued + 1);
            self.stats.max_queue_bytes = self
                .stats
                .max_queue_bytes
                .max(queued_bytes + u64::from(pkt.size_bytes));
        }
        fifo.busy_until = start + tx;
        Offer::Departs {
            arrive_at: fifo.busy_until + self.delay,
        }
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let monitored = self.instruments.is_some();
        let tx = self.tx();
        let marks_before = monitored.then(|| tx.qdisc.marks());
        let pkt = tx.qdisc.dequeue(now);
        self.collect_inside_drops(now);
        let pkt = pkt?;
        if marks_before.is_some_and(|before| self.tx().qdisc.marks() > before) {
            self.count_flow(pkt.flow, |counts| counts.marks += 1);
        }
        if self.instruments.is_some() {
            // A FIFO's packet is its oldest enqueue time (drops from inside were its head).
            let tx = self.tx();
            let arrived = (tx.qdisc.last_enqueued())
                .or_else(|| tx.enqueued_at.front().copied())
                .expect("a queued packet has a time");
            self.note_sojourn(now, arrived, &pkt);
        }
        self.leave_queue(now);
        Some(pkt)
    }

    /// A packet left the queue at `now` (sent or dropped): its wait joins the queue area. Any
    /// enqueue time serves: the area is the sum of departures minus the sum of arrivals.
    fn leave_queue(&mut self, now: SimTime) {
        let since = (self.tx().enqueued_at.pop_front()).expect("a queued packet has a time");
        self.stats.queue_area_packet_ps += u128::from(now.since(since).as_ps());
    }

    /// Counts the packets the discipline dropped from inside its queues and keeps them for
    /// the caller ([`Self::take_inside_drops`]).
    #[inline]
    fn collect_inside_drops(&mut self, now: SimTime) {
        if let Some(dropped) = self.tx().qdisc.dropped_inside() {
            let dropped = std::mem::take(dropped);
            for (pkt, reason) in dropped {
                self.leave_queue(now);
                self.drop_for(reason, pkt.flow);
                self.tx().inside_drops.push(pkt);
            }
        }
    }

    /// The packets dropped from inside the queue (CoDel's, FQ-CoDel's overflow) since the
    /// last call, in the order they were dropped: the caller records them as drops at this
    /// link. Empty for the disciplines that drop only arrivals.
    pub fn take_inside_drops(&mut self) -> Vec<Packet> {
        match &mut self.service {
            Service::Scheduled(tx) => std::mem::take(&mut tx.inside_drops),
            Service::Fifo(_) => Vec::new(),
        }
    }

    /// `true` when [`Self::take_inside_drops`] has packets.
    #[inline]
    pub fn has_inside_drops(&self) -> bool {
        self.transmitter()
            .is_some_and(|tx| !tx.inside_drops.is_empty())
    }

    fn note_max_queue(&mut self) {
        let Service::Scheduled(tx) = &self.service else {
            unreachable!("the fast path notes its maxima at admission")
        };
        let (packets, bytes) = (tx.qdisc.len_packets(), tx.qdisc.len_bytes());
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(packets);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(bytes);
    }

    /// Scheduled path: the transmission in progress ends at `now`. Returns the packet that
    /// left with the time it reaches the far node (the caller puts it into the pipe with
    /// [`Self::enter_pipe`] or offers it straight to the next link, as on the fast path), and
    /// the end time of the next transmission, if one started.
    pub fn complete_tx(&mut self, now: SimTime) -> ((SimTime, Packet), Option<SimTime>) {
        let pkt = (self.tx().in_service.take()).expect("complete_tx with an idle transmitter");
        // After a shorter delay (a scheduled event) no packet overtakes the one ahead of it.
        let arrive_at =
            (now + self.delay).max(self.pipe.back().map_or(SimTime::ZERO, |f| f.arrive_at));
        let next = self.start_next(now);
        self.tx().in_service_left_queue_at = next.map(|_| now);
        ((arrive_at, pkt), next)
    }

    /// Scheduled path: takes the next packet into service, if the discipline releases one;
    /// returns when its transmission ends.
    fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        let Some(pkt) = self.dequeue(now) else {
            self.ask_for_wake(now);
            return None;
        };
        let tx_time = self.transmit(now, &pkt);
        let tx = self.tx();
        tx.in_service = Some(pkt);
        tx.tx_ends_at = now + tx_time;
        Some(tx.tx_ends_at)
    }

    /// The idle transmitter found packets it may not send yet: notes when to ask again, unless
    /// an earlier wake-up is already held.
    fn ask_for_wake(&mut self, now: SimTime) {
        let tx = self.tx();
        if let Some(at) = tx.qdisc.wake_at(now)
            && tx.wake_scheduled.is_none_or(|held| at < held)
        {
            tx.wake_scheduled = Some(at);
            tx.wake_to_schedule = Some(at);
        }
    }

    /// A wake-up the caller must schedule (then call [`Self::wake`] at that time), after an
    /// offer or a completed transmission left packets held back by the discipline.
    pub fn take_wake(&mut self) -> Option<SimTime> {
        match &mut self.service {
            Service::Scheduled(tx) => tx.wake_to_schedule.take(),
            Service::Fifo(_) => None,
        }
    }

    /// Scheduled path: a wake-up from [`Self::take_wake`] falls due. Returns the end time of
    /// the transmission it started, if any. Superseded wake-ups do nothing.
    pub fn wake(&mut self, now: SimTime) -> Option<SimTime> {
        let tx = self.tx();
        if tx.wake_scheduled != Some(now) {
            return None;
        }
        tx.wake_scheduled = None;
        if tx.in_service.is_some() {
            return None;
        }
        let next = self.start_next(now);
        self.tx().in_service_left_queue_at = next.map(|_| now);
        next
    }

    /// `true` if no packet is propagating on the link.
    pub fn pipe_is_empty(&self) -> bool {
        self.pipe.is_empty()
    }

    /// The head of the pipe reaches the far node at `now`. Returns it and the arrival time of
    /// the next packet in the pipe.
    #[inline]
    pub fn pop_arrival(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let head = self
            .pipe
            .pop_front()
            .expect("pop_arrival with an empty pipe");
        debug_assert_eq!(head.arrive_at, now, "pipe head popped at the wrong time");
        (head.packet, self.pipe.front().map(|f| f.arrive_at))
    }
}
