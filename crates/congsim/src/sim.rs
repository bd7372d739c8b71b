//! The simulation loop: wires the sans-IO models (links, TCP endpoints) to the event queue.
//!
//! Packets propagating on a link wait in the link's pipe; the queue holds one wake-up per link
//! (its pipe head), so it stays as small as the topology. On FIFO links the departure time is
//! computed at enqueue and a packet costs one event per hop; links served by a scheduler also
//! have an end-of-transmission event. Retransmission and delayed-ACK timers are *lazy*: a model's
//! deadline is scheduled only when it moves earlier than the wake-up already pending, and a
//! wake-up that finds its deadline moved later just reschedules. Re-arming a timer on every
//! ACK therefore costs no heap operation.

use crate::metrics::{coefficient_of_variation, jain_index};
use crate::pcap::{FlowWire, PcapWriter};
use crate::scenario::{QueueDiscipline, ResolvedCapture, ResolvedLink};
use crate::scenario::{Scenario, ScenarioWarning};
use crate::table::{Column, Table};
use crate::transfers::exponential_gap_s;
use congsim_atm::abr::AbrStats;
use congsim_atm::{AtmEvent, AtmNetwork, PortConfig, PortStats, VcId, VcStats};
use congsim_core::rng::{RngStream, StreamFactory};
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::{Packet, TcpHeader};
use congsim_core::{EventQueue, FlowId, LinkId, NodeId};
use congsim_ip::cbr::CbrSource;
use congsim_ip::link::LinkConfig;
use congsim_ip::qdisc::{Cbq, Classifier, DropTail, Priority, Red};
use congsim_ip::{LimitSemantics, Link, LinkStats, Offer, Qdisc};
use congsim_tcp::{AckPolicy, Segment, SeqMode, TcpReceiver, TcpSender, TimerMode};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// The 4.3BSD fast timer (delayed ACKs) period.
const BSD_FAST_TICK: SimDuration = SimDuration::from_millis(200);

#[derive(Clone, Copy)]
enum Event {
    /// The head of a link's pipe reaches the far node.
    LinkArrival(LinkId),
    /// The transmission in progress on a link ends (scheduled service path only).
    TxDone(LinkId),
    /// An idle link whose discipline held packets back asks it again (CBQ).
    LinkWake(LinkId),
    /// The head of an ATM port's pipe reaches the next port.
    AtmPipe(u32),
    /// A frame of an ATM VC reaches its destination host.
    AtmDeliver(VcId),
    /// An ABR source may send its next cell.
    AtmSource(VcId),
    /// An ABR source learnt of congestion (CI): the TCP sender above may answer (BCN-TCP).
    AtmCongestion(VcId),
    SenderTimer(FlowId),
    ReceiverTimer(FlowId),
    /// A boundary of the global slow clock with period `slow_clocks[i]`.
    SlowTick(usize),
    FastTick,
    FlowStart(FlowId),
    FlowStop(FlowId),
    /// CBR source `i` emits the packets it announced.
    CbrEmit(u32),
    /// A transfer of group `g` arrives: a new connection starts.
    TransferArrival(u32),
    MeasureStart,
    MeasureEnd,
    Sample,
    End,
}

/// `repr(C)`: the fields every flush reads come first, in the cache line the sender's
/// configuration starts in, rather than wherever the compiler would put them.
#[repr(C)]
struct FlowState {
    src: NodeId,
    dst: NodeId,
    sender_wakeup: Option<SimTime>,
    receiver_wakeup: Option<SimTime>,
    sender: TcpSender,
    receiver: TcpReceiver,
    /// When the application starts (`start` plus the drawn jitter).
    start_at: SimTime,
    /// Receiver (payload, wire) bytes at the start and end of the measurement window.
    delivered_at_start: (u64, u64),
    delivered_at_end: Option<(u64, u64)>,
    /// Payload bytes delivered at the previous series sample.
    delivered_at_last_sample: u64,
}

/// A CBR source and what its sink received.
struct CbrState {
    source: CbrSource,
    src: NodeId,
    dst: NodeId,
    /// Packets the pending emission sends.
    pending_packets: u32,
    next_seq: u64,
    packets_delivered: u64,
    packets_dropped: u64,
    bytes_delivered: u64,
    delivered_at_start: u64,
    delivered_at_end: Option<u64>,
}

/// Timers are lazy: `event` is scheduled for an endpoint's `next` deadline only if no earlier
/// wake-up is pending (a stale wake-up finds nothing due and is ignored).
fn keep_awake(
    queue: &mut EventQueue<Event>,
    now: SimTime,
    next: Option<SimTime>,
    wakeup: &mut Option<SimTime>,
    event: Event,
) {
    if let Some(t) = next
        && wakeup.is_none_or(|w| t < w)
    {
        *wakeup = Some(t);
        queue.schedule(t.max(now), event);
    }
}

/// The random streams of a group of transfers.
struct GroupState {
    arrivals: RngStream,
    sizes: RngStream,
    boot_phases: RngStream,
}

/// The columns that break `timeouts` down by cause.
fn timeout_cause_names() -> [&'static str; 5] {
    congsim_tcp::SenderStats::default()
        .timeout_causes()
        .map(|(name, _)| name)
}

/// The TCP connection with flow id `f`: a declared flow, or a random transfer.
fn tcp_of<'s>(
    flows: &'s [FlowState],
    transfers: &'s [FlowState],
    first_transfer: usize,
    f: FlowId,
) -> &'s FlowState {
    match f.index().checked_sub(first_transfer) {
        Some(i) => &transfers[i],
        None => &flows[f.index()],
    }
}

fn tcp_of_mut<'s>(
    flows: &'s mut [FlowState],
    transfers: &'s mut [FlowState],
    first_transfer: usize,
    f: FlowId,
) -> &'s mut FlowState {
    match f.index().checked_sub(first_transfer) {
        Some(i) => &mut transfers[i],
        None => &mut flows[f.index()],
    }
}

/// Sampled time series (opt-in).
#[derive(Default)]
struct Series {
    flow_time_s: Vec<f64>,
    flow: Vec<String>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    throughput_bps: Vec<f64>,
    link_time_s: Vec<f64>,
    link: Vec<String>,
    queue_packets: Vec<u64>,
    atm_time_s: Vec<f64>,
    atm_link: Vec<String>,
    atm_kind: Vec<String>,
    atm_queue_cells: Vec<u64>,
}

/// The time-sequence trace, column by column.
#[derive(Default)]
struct SequenceTrace {
    time_s: Vec<f64>,
    flow: Vec<FlowId>,
    event: Vec<&'static str>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    sack: Vec<String>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    pipe: Vec<f64>,
}

impl SequenceTrace {
    /// One row; `seq` and `ack` in the connection's wire units (packets or bytes).
    fn record(
        &mut self,
        now: SimTime,
        f: FlowId,
        event: &'static str,
        header: &TcpHeader,
        sender: &TcpSender,
    ) {
        self.time_s.push(now.as_secs_f64());
        self.flow.push(f);
        self.event.push(event);
        self.seq.push(header.seq);
        self.ack.push(header.ack);
        let unit = match sender.config().seq_mode {
            SeqMode::Packets => 1,
            SeqMode::Bytes => u64::from(sender.config().mss),
        };
        let ack_segment = header.ack.div_ceil(unit);
        let blocks: Vec<String> = header
            .sack
            .ranges(ack_segment)
            .map(|(l, r)| format!("{}-{}", l * unit, r * unit))
            .collect();
        self.sack.push(blocks.join(" "));
        self.cwnd.push(sender.cwnd_segments());
        self.ssthresh.push(sender.ssthresh_segments());
        self.pipe.push(sender.pipe().map_or(f64::NAN, |p| p as f64));
    }
}

/// Everything a run produces. Tables are deterministic functions of (scenario, replication).
#[derive(Clone, Debug)]
pub struct RunResult {
    pub flows: Table,
    pub links: Table,
    /// One row.
    pub summary: Table,
    pub flow_series: Option<Table>,
    pub link_series: Option<Table>,
    /// Congestion events per flow (when `metrics.tcp_events` is on).
    pub tcp_events: Option<Table>,
    /// The time-sequence trace (when `metrics.sequence_trace` is on).
    pub sequence: Option<Table>,
    /// One row per CBR source (when the scenario has any).
    pub cbr: Option<Table>,
    /// One row per class of each class-based queue (when there are any).
    pub classes: Option<Table>,
    /// One row per random transfer (when the scenario has transfer groups).
    pub transfers: Option<Table>,
    /// One row per ATM link's port, in cells (when the scenario has ATM links).
    pub atm_ports: Option<Table>,
    /// One row per ATM virtual circuit (when the scenario has ATM links).
    pub atm_vcs: Option<Table>,
    /// ATM port queues sampled with the other series (ATM links and `series_interval`).
    pub atm_series: Option<Table>,
    /// Settings that do nothing or defeat themselves (when the scenario has any).
    pub warnings: Option<Table>,
    /// Packet captures: `(file name, pcap bytes)`.
    pub captures: Vec<(String, Vec<u8>)>,
    /// Events processed (for speed figures).
    pub events: u64,
}

impl RunResult {
    /// Every table by name, `None` for an optional one the run did not produce.
    pub fn tables(&self) -> [(&'static str, Option<&Table>); 14] {
        [
            ("flows", Some(&self.flows)),
            ("links", Some(&self.links)),
            ("summary", Some(&self.summary)),
            ("flow_series", self.flow_series.as_ref()),
            ("link_series", self.link_series.as_ref()),
            ("tcp_events", self.tcp_events.as_ref()),
            ("sequence", self.sequence.as_ref()),
            ("cbr", self.cbr.as_ref()),
            ("classes", self.classes.as_ref()),
            ("transfers", self.transfers.as_ref()),
            ("atm_ports", self.atm_ports.as_ref()),
            ("atm_vcs", self.atm_vcs.as_ref()),
            ("atm_series", self.atm_series.as_ref()),
            ("warnings", self.warnings.as_ref()),
        ]
    }
}

struct Simulation<'a> {
    scenario: &'a Scenario,
    queue: EventQueue<Event>,
    links: Vec<Link>,
    /// Per link: the node it leads to (a dense copy of the scenario's, for the hot path).
    link_to: Vec<NodeId>,
    /// Per link: whether `fuse_next` has any entry for it. Most links have none, and this
    /// small table stays in cache where a lookup in the large one would miss.
    fuses_any: Vec<bool>,
    /// `fuse_next[link * destinations + row of destination]`: the link a packet for `destination` leaving
    /// `link` is offered to at once (hop fusion), when that link is fed by `link` alone and
    /// accepts early offers.
    fuse_next: Vec<Option<LinkId>>,
    /// Destinations per link in `fuse_next`.
    fuse_rows: usize,
    flows: Vec<FlowState>,
    cbr: Vec<CbrState>,
    /// Connections of random transfers, in order of arrival; flow id `first_transfer + i`.
    transfers: Vec<FlowState>,
    first_transfer: usize,
    /// Per transfer: its group, its size, and its ordinal within the group.
    transfer_info: Vec<(u32, u64, u64)>,
    /// Transfers started so far, per group.
    group_started: Vec<u64>,
    groups: Vec<GroupState>,
    slow_clocks: Vec<(SimDuration, Vec<FlowId>)>,
    fast_tick_flows: Vec<FlowId>,
    /// Per scenario flow: its receiver may take data, and its sender ACKs, when they enter
    /// their last pipe, at their future arrival time (see `early_delivery`).
    early_endpoints: Vec<EarlyEndpoints>,
    /// An endpoint is taking a packet early: what it sends goes into pipes as usual (no nesting,
    /// which would also reuse the segment buffers being drained).
    in_early_delivery: bool,
    series: Option<Series>,
    sequence: Option<SequenceTrace>,
    segments: Vec<Segment>,
    acks: Vec<Segment>,
    /// The ATM network, when the scenario has ATM links.
    atm: Option<AtmNetwork>,
    /// Scratch for the ATM network's wake-ups.
    atm_due: Vec<(SimTime, AtmEvent)>,
}

/// Which ends of a scenario flow may take packets early (`Simulation::early_delivery`).
#[derive(Clone, Copy, Debug, Default)]
struct EarlyEndpoints {
    receiver: bool,
    sender: bool,
}

/// Runs replication `replication` of `scenario` to completion.
pub fn run(scenario: &Scenario, replication: u32) -> RunResult {
    let finished = run_observed(scenario, replication, &mut |_| ControlFlow::Continue(()));
    finished.expect("an observer that never stops")
}

/// Events between two calls of a run's observer: rare enough to cost nothing, often enough
/// (a few milliseconds of wall time) for a prompt progress bar or Ctrl-C.
pub const OBSERVE_EVERY_EVENTS: u64 = 1 << 16;

/// Runs replication `replication` of `scenario`, calling `observe` with the simulated time
/// every [`OBSERVE_EVERY_EVENTS`] events; `None` when the observer stopped the run. The
/// observer sees the clock only: it cannot change what is simulated.
pub fn run_observed(
    scenario: &Scenario,
    replication: u32,
    observe: &mut impl FnMut(SimTime) -> ControlFlow<()>,
) -> Option<RunResult> {
    let mut sim = Simulation::new(scenario, replication);
    match sim.run(observe) {
        ControlFlow::Continue(()) => Some(sim.results(replication)),
        ControlFlow::Break(()) => None,
    }
}

impl<'a> Simulation<'a> {
    fn new(scenario: &'a Scenario, replication: u32) -> Self {
        let streams = StreamFactory::new(scenario.seed, replication);
        let links: Vec<Link> = scenario
            .links
            .iter()
            .map(|l| {
                Link::new(LinkConfig {
                    rate: l.rate,
                    delay: l.delay,
                    qdisc: match &l.queue {
                        QueueDiscipline::DropTail {
                            limit,
                            semantics,
                            drop_front,
                        } => Qdisc::DropTail(DropTail::new(*limit, *semantics, *drop_front)),
                        QueueDiscipline::Priority {
                            limits,
                            class_of,
                            default_class,
                        } => Qdisc::Priority(Priority::new(
                            limits
                                .iter()
                                .map(|&l| DropTail::packets(l, LimitSemantics::Waiting))
                                .collect(),
                            Classifier::new(class_of.clone(), *default_class),
                        )),
                        QueueDiscipline::Cbq {
                            config,
                            class_of,
                            default_class,
                            ..
                        } => Qdisc::Cbq(Box::new(Cbq::new(
                            config,
                            Classifier::new(class_of.clone(), *default_class),
                        ))),
                        QueueDiscipline::Red(params) => Qdisc::Red(Box::new(Red::new(
                            params.clone(),
                            streams.stream(&format!("link/{}/red", l.name)),
                        ))),
                    },
                    scripted: l.scripted.clone(),
                    random_loss: (l.random_loss > 0.0).then(|| {
                        (
                            l.random_loss,
                            streams.stream(&format!("link/{}/loss", l.name)),
                        )
                    }),
                    fifo_fast_path: l.fifo_fast_path,
                    capture: l.capture,
                })
            })
            .collect();
        let mut slow_clocks: Vec<(SimDuration, Vec<FlowId>)> = Vec::new();
        let mut fast_tick_flows = Vec::new();
        let flows: Vec<FlowState> = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let id = FlowId(i as u32);
                let tick = f.sender.tick;
                // The ns-2 tick-clock phase, from the flow's own stream (deviation D5).
                let boot_phase = if f.random_boot_phase {
                    let mut rng = streams.stream(&format!("tcp/{}/boot_phase", f.name));
                    SimDuration::from_ps(rng.below(tick.as_ps()))
                } else {
                    SimDuration::ZERO
                };
                if f.sender.timer_mode == TimerMode::Tick {
                    match slow_clocks.iter_mut().find(|(p, _)| *p == tick) {
                        Some((_, members)) => members.push(id),
                        None => slow_clocks.push((tick, vec![id])),
                    }
                }
                if f.receiver.ack_policy == AckPolicy::DelayedBsd {
                    fast_tick_flows.push(id);
                }
                let mut sender = TcpSender::new(f.sender.clone(), boot_phase);
                if scenario.tcp_events {
                    sender.enable_trace();
                }
                let jitter = if f.start_jitter.is_zero() {
                    SimDuration::ZERO
                } else {
                    let mut rng = streams.stream(&format!("flow/{}/start", f.name));
                    SimDuration::from_ps(rng.below(f.start_jitter.as_ps()))
                };
                FlowState {
                    start_at: SimTime::ZERO + f.start + jitter,
                    sender,
                    receiver: TcpReceiver::new(f.receiver.clone()),
                    src: f.src,
                    dst: f.dst,
                    sender_wakeup: None,
                    receiver_wakeup: None,
                    delivered_at_start: (0, 0),
                    delivered_at_end: None,
                    delivered_at_last_sample: 0,
                }
            })
            .collect();
        let cbr: Vec<CbrState> = scenario
            .cbr
            .iter()
            .map(|c| {
                let mut rng = streams.stream(&format!("cbr/{}", c.name));
                let mut config = c.config.clone();
                if c.random_phase {
                    let bits = u64::from(config.packet_bytes) * 8;
                    let interval_ps = bits * 1_000_000_000_000 / config.rate.bps();
                    config.phase = SimDuration::from_ps(rng.below(interval_ps.max(1)));
                }
                CbrState {
                    source: CbrSource::new(config, rng),
                    src: c.src,
                    dst: c.dst,
                    pending_packets: 0,
                    next_seq: 0,
                    packets_delivered: 0,
                    packets_dropped: 0,
                    bytes_delivered: 0,
                    delivered_at_start: 0,
                    delivered_at_end: None,
                }
            })
            .collect();
        let link_to = scenario.links.iter().map(|l| l.to).collect();
        let routes = &scenario.routes;
        let destinations: Vec<NodeId> = routes.destinations().collect();
        let rows = destinations.len();
        let fuse_next = scenario
            .links
            .iter()
            .enumerate()
            .flat_map(|(i, spec)| {
                let (links, destinations) = (&links, &destinations);
                destinations.iter().map(move |&dst| {
                    let upstream = LinkId(i as u32);
                    let next = routes.next_hop(spec.to, dst).filter(|_| spec.to != dst)?;
                    let fed_only_by_upstream =
                        scenario.links[next.index()].single_feeder == Some(upstream);
                    let accepts: &Link = &links[next.index()];
                    (scenario.hop_fusion && fed_only_by_upstream && accepts.accepts_early_offers())
                        .then_some(next)
                })
            })
            .collect::<Vec<_>>();
        let fuses_any = fuse_next
            .chunks(rows.max(1))
            .map(|row| row.iter().any(Option::is_some))
            .collect();
        let mut sim = Self {
            scenario,
            queue: EventQueue::new(),
            links,
            link_to,
            fuses_any,
            fuse_next,
            fuse_rows: rows,
            first_transfer: flows.len() + cbr.len(),
            flows,
            cbr,
            transfers: Vec::new(),
            transfer_info: Vec::new(),
            group_started: vec![0; scenario.transfers.len()],
            groups: scenario
                .transfers
                .iter()
                .map(|g| GroupState {
                    arrivals: streams.stream(&format!("transfers/{}/arrivals", g.name)),
                    sizes: streams.stream(&format!("transfers/{}/sizes", g.name)),
                    boot_phases: streams.stream(&format!("transfers/{}/boot_phase", g.name)),
                })
                .collect(),
            slow_clocks,
            fast_tick_flows,
            early_endpoints: Vec::new(),
            in_early_delivery: false,
            series: scenario.series_interval.map(|_| Series::default()),
            sequence: scenario.sequence_trace.then(SequenceTrace::default),
            segments: Vec::new(),
            acks: Vec::new(),
            atm: scenario.links.iter().any(|l| l.atm.is_some()).then(|| {
                let ports = scenario
                    .links
                    .iter()
                    .map(|l| {
                        l.atm.as_ref().map(|port| PortConfig {
                            rate: l.rate,
                            delay: l.delay,
                            capacity_cells: port.capacity_cells,
                            policy: port.policy,
                            ppd_after_overflow: port.ppd_after_overflow,
                            switch: port.switch.clone(),
                            vbr: port.vbr.clone(),
                        })
                    })
                    .collect();
                let fed_by_one_link = scenario
                    .links
                    .iter()
                    .map(|l| scenario.hop_fusion && l.single_feeder.is_some())
                    .collect();
                let mut network = AtmNetwork::new(
                    ports,
                    fed_by_one_link,
                    SimTime::ZERO + scenario.duration,
                    scenario.atm_abr.clone(),
                );
                for (i, l) in scenario.links.iter().enumerate() {
                    if l.atm
                        .as_ref()
                        .is_some_and(|p| p.random_contention && p.capacity_cells.is_some())
                    {
                        network.set_contention(
                            i,
                            streams.stream(&format!("atm/{}/contention", l.name)),
                        );
                    }
                }
                network
            }),
            atm_due: Vec::new(),
        };
        sim.early_endpoints = sim.early_endpoints();
        sim
    }

    /// With hop fusion on, for a persistent flow without a stop time and no trace or capture
    /// that records events in time order: its receiver may take data early when it is outside
    /// the BSD fast tick and its ACKs' first link carries nothing else on the FIFO fast path;
    /// its sender may take ACKs early when it is outside the BSD slow clock and its data's first
    /// link is such a link.
    fn early_endpoints(&self) -> Vec<EarlyEndpoints> {
        let s = self.scenario;
        // Like hop fusion, a shortcut that `hop_fusion = false` turns off for comparison.
        let traced = !s.hop_fusion
            || s.series_interval.is_some()
            || s.sequence_trace
            || s.tcp_events
            || !s.captures.is_empty()
            || s.links.iter().any(|l| l.atm.is_some());
        let path = |from: NodeId, to: NodeId| self.path(from, to).unwrap_or_default();
        // Traffic directions per link: every flow's data and ACK paths, CBR, transfers.
        let mut users = vec![0u32; s.links.len()];
        let ends = s.flows.iter().map(|f| (f.src, f.dst));
        for (a, b) in ends.chain(s.transfers.iter().map(|g| (g.src, g.dst))) {
            for l in path(a, b).into_iter().chain(path(b, a)) {
                users[l as usize] += 1;
            }
        }
        for c in &s.cbr {
            for l in path(c.src, c.dst) {
                users[l as usize] += 1;
            }
        }
        let exclusive_first_link = |from: NodeId, to: NodeId| {
            path(from, to).first().is_some_and(|&l| {
                users[l as usize] == 1 && self.links[l as usize].accepts_early_offers()
            })
        };
        s.flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let id = FlowId(i as u32);
                if traced || f.size_bytes.is_some() || f.stop.is_some() {
                    return EarlyEndpoints::default();
                }
                EarlyEndpoints {
                    receiver: !self.fast_tick_flows.contains(&id)
                        && exclusive_first_link(f.dst, f.src),
                    sender: !self.slow_clocks.iter().any(|(_, m)| m.contains(&id))
                        && exclusive_first_link(f.src, f.dst),
                }
            })
            .collect()
    }

    fn at(d: SimDuration) -> SimTime {
        SimTime::ZERO + d
    }

    fn run(&mut self, observe: &mut impl FnMut(SimTime) -> ControlFlow<()>) -> ControlFlow<()> {
        let s = self.scenario;
        // End first: at the final instant nothing else is processed.
        self.queue.schedule(Self::at(s.duration), Event::End);
        if s.measure_until < s.duration {
            self.queue
                .schedule(Self::at(s.measure_until), Event::MeasureEnd);
        }
        if !s.measure_from.is_zero() {
            self.queue
                .schedule(Self::at(s.measure_from), Event::MeasureStart);
        }
        for (i, f) in s.flows.iter().enumerate() {
            let start_at = self.flows[i].start_at;
            self.queue
                .schedule(start_at, Event::FlowStart(FlowId(i as u32)));
            if let Some(stop) = f.stop {
                self.queue
                    .schedule(Self::at(stop), Event::FlowStop(FlowId(i as u32)));
            }
        }
        for i in 0..self.cbr.len() {
            self.schedule_cbr(i);
        }
        for g in 0..self.groups.len() {
            let first = Self::at(self.scenario.transfers[g].start);
            self.schedule_transfer(first, g);
        }
        for (i, (period, _)) in self.slow_clocks.iter().enumerate() {
            self.queue.schedule(Self::at(*period), Event::SlowTick(i));
        }
        if !self.fast_tick_flows.is_empty() {
            self.queue
                .schedule(Self::at(BSD_FAST_TICK), Event::FastTick);
        }
        if self.series.is_some() {
            self.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        let mut until_observed = OBSERVE_EVERY_EVENTS;
        while let Some((now, event)) = self.queue.pop() {
            until_observed -= 1;
            if until_observed == 0 {
                until_observed = OBSERVE_EVERY_EVENTS;
                observe(now)?;
            }
            match event {
                Event::LinkArrival(link) => {
                    let (pkt, next) = self.links[link.index()].pop_arrival(now);
                    if let Some(t) = next {
                        self.queue.schedule(t, Event::LinkArrival(link));
                    }
                    self.arrive(now, self.link_to[link.index()], pkt);
                }
                Event::TxDone(link) => self.tx_done(now, link),
                Event::AtmPipe(port) => {
                    self.atm_mut().pipe_head(now, port);
                    self.schedule_atm();
                }
                Event::AtmCongestion(vc) => {
                    // Data VCs are even; a CI on an ACK VC or a CBR source concerns no sender.
                    let f = FlowId(vc.0 / 2);
                    let cbr = self.flows.len()..self.first_transfer;
                    if vc.0 % 2 == 0 && !cbr.contains(&f.index()) {
                        self.tcp(f).sender.on_congestion_indication(now);
                        self.flush_sender(now, f);
                    }
                }
                Event::AtmSource(vc) => {
                    self.atm_mut().source_wake(now, vc);
                    self.schedule_atm();
                }
                Event::AtmDeliver(vc) => {
                    let pkt = self.atm_mut().take_delivery(vc);
                    self.arrive(now, pkt.dst, pkt);
                }
                Event::LinkWake(link) => {
                    if let Some(t) = self.links[link.index()].wake(now) {
                        self.queue.schedule(t, Event::TxDone(link));
                    }
                    self.schedule_wake(link);
                }
                Event::SenderTimer(f) => {
                    let flow = self.tcp(f);
                    if flow.sender_wakeup == Some(now) {
                        flow.sender_wakeup = None;
                    }
                    flow.sender.on_timeout(now);
                    self.flush_sender(now, f);
                }
                Event::ReceiverTimer(f) => {
                    let flow = self.tcp(f);
                    if flow.receiver_wakeup == Some(now) {
                        flow.receiver_wakeup = None;
                    }
                    flow.receiver.on_timeout(now);
                    self.flush_receiver(now, f);
                }
                Event::SlowTick(i) => {
                    let (period, members) = &self.slow_clocks[i];
                    let (period, members) = (*period, members.clone());
                    for f in members {
                        self.tcp(f).sender.on_slow_tick(now);
                        self.flush_sender(now, f);
                    }
                    self.queue.schedule(now + period, Event::SlowTick(i));
                }
                Event::FastTick => {
                    for i in 0..self.fast_tick_flows.len() {
                        let f = self.fast_tick_flows[i];
                        self.tcp(f).receiver.on_fast_tick();
                        self.flush_receiver(now, f);
                    }
                    self.queue.schedule(now + BSD_FAST_TICK, Event::FastTick);
                }
                Event::FlowStart(f) => {
                    let size = self.scenario.flows[f.index()].size_bytes;
                    self.flows[f.index()].sender.start(now, size);
                    self.flush_sender(now, f);
                }
                Event::FlowStop(f) => self.flows[f.index()].sender.stop(),
                Event::CbrEmit(i) => self.emit_cbr(now, i as usize),
                Event::TransferArrival(g) => self.start_transfer(now, g as usize),
                Event::MeasureStart => {
                    for flow in &mut self.flows {
                        let st = flow.receiver.stats();
                        flow.delivered_at_start = (st.bytes_delivered, st.wire_bytes_delivered);
                    }
                    for c in &mut self.cbr {
                        c.delivered_at_start = c.bytes_delivered;
                    }
                }
                Event::MeasureEnd => self.snapshot_measure_end(),
                Event::Sample => {
                    self.sample(now);
                    let interval = self.scenario.series_interval.expect("sampling is on");
                    self.queue.schedule(now + interval, Event::Sample);
                }
                Event::End => {
                    self.snapshot_measure_end();
                    break;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn snapshot_measure_end(&mut self) {
        for flow in &mut self.flows {
            if flow.delivered_at_end.is_none() {
                let st = flow.receiver.stats();
                flow.delivered_at_end = Some((st.bytes_delivered, st.wire_bytes_delivered));
            }
        }
        for c in &mut self.cbr {
            c.delivered_at_end.get_or_insert(c.bytes_delivered);
        }
    }

    /// Means over the transfers that started inside the measurement window (seed 002's
    /// per-connection averages): RTOs, RTT, and bandwidth (size over completion time, completed
    /// transfers only).
    fn push_transfer_summary(&self, summary: &mut Table) {
        let s = self.scenario;
        let (from, until) = (Self::at(s.measure_from), Self::at(s.measure_until));
        let measured: Vec<&FlowState> = self
            .transfers
            .iter()
            .filter(|f| f.start_at >= from && f.start_at < until)
            .collect();
        let mean = |values: &[f64]| {
            if values.is_empty() {
                f64::NAN
            } else {
                values.iter().sum::<f64>() / values.len() as f64
            }
        };
        let timeouts: Vec<f64> = measured
            .iter()
            .map(|f| f.sender.stats().timeouts as f64)
            .collect();
        let rtts: Vec<f64> = measured
            .iter()
            .filter(|f| f.sender.stats().rtt_samples > 0)
            .map(|f| f.sender.stats().rtt_sum_s / f.sender.stats().rtt_samples as f64)
            .collect();
        let bandwidths: Vec<f64> = measured
            .iter()
            .filter_map(|f| {
                let done = f.sender.completed_at()?;
                let bytes = f.receiver.stats().bytes_delivered as f64;
                Some(bytes * 8.0 / (done - f.start_at).as_secs_f64())
            })
            .collect();
        summary.push(
            "transfers_measured",
            Column::U64(vec![measured.len() as u64]),
        );
        summary.push(
            "transfers_completed",
            Column::U64(vec![bandwidths.len() as u64]),
        );
        summary.push("transfer_timeouts_mean", Column::F64(vec![mean(&timeouts)]));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            let counts: Vec<f64> = measured
                .iter()
                .map(|f| f.sender.stats().timeout_causes()[i].1 as f64)
                .collect();
            summary.push(
                format!("transfer_{name}_mean"),
                Column::F64(vec![mean(&counts)]),
            );
        }
        summary.push("transfer_rtt_mean_s", Column::F64(vec![mean(&rtts)]));
        // Every segment sent weighs the same, so long transfers weigh more: seed 002's mean
        // window (about 6 segments below load 0.6 and 3 above for web objects) matches this
        // reading, not the mean of per-transfer means (about 3 at every load).
        let (cwnd_sum, sends) = measured.iter().fold((0.0, 0), |(sum, n), f| {
            let st = f.sender.stats();
            (sum + st.cwnd_sum_at_sends, n + st.data_pkts_sent)
        });
        summary.push(
            "transfer_cwnd_mean",
            Column::F64(vec![cwnd_sum / sends as f64]),
        );
        summary.push(
            "transfer_bandwidth_mean_bps",
            Column::F64(vec![mean(&bandwidths)]),
        );
    }

    /// The `transfers` table: each random transfer's size, start, completion and recovery.
    fn transfers_table(&self) -> Table {
        let groups = &self.scenario.transfers;
        let mut t = Table::default();
        t.push(
            "group",
            Column::Str(
                self.transfer_info
                    .iter()
                    .map(|&(g, _, _)| groups[g as usize].name.clone())
                    .collect(),
            ),
        );
        t.push(
            "start_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| f.start_at.as_secs_f64())
                    .collect(),
            ),
        );
        t.push(
            "size_bytes",
            Column::U64(
                self.transfer_info
                    .iter()
                    .map(|&(_, size, _)| size)
                    .collect(),
            ),
        );
        t.push(
            "completion_time_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| {
                        f.sender
                            .completed_at()
                            .map_or(f64::NAN, |t| (t - f.start_at).as_secs_f64())
                    })
                    .collect(),
            ),
        );
        let stat = |get: &dyn Fn(&congsim_tcp::SenderStats) -> u64| {
            Column::U64(
                self.transfers
                    .iter()
                    .map(|f| get(f.sender.stats()))
                    .collect(),
            )
        };
        t.push("timeouts", stat(&|s| s.timeouts));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            t.push(name, stat(&|s| s.timeout_causes()[i].1));
        }
        t.push("retx_pkts", stat(&|s| s.retx_pkts));
        t.push("fast_retransmits", stat(&|s| s.fast_retransmits));
        t.push("rtt_samples", stat(&|s| s.rtt_samples));
        t.push(
            "rtt_mean_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| {
                        let st = f.sender.stats();
                        if st.rtt_samples == 0 {
                            f64::NAN
                        } else {
                            st.rtt_sum_s / st.rtt_samples as f64
                        }
                    })
                    .collect(),
            ),
        );
        t.push(
            "cwnd_mean",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| f.sender.stats().cwnd_mean_at_sends())
                    .collect(),
            ),
        );
        t
    }

    /// The `classes` table, if any link has a class-based queue.
    fn classes_table(&self) -> Option<Table> {
        let rows: Vec<(&str, usize, &congsim_ip::qdisc::ClassStats)> = self
            .links
            .iter()
            .zip(&self.scenario.links)
            .flat_map(|(link, spec)| {
                link.class_stats()
                    .iter()
                    .enumerate()
                    .map(move |(c, st)| (spec.name.as_str(), c, st))
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        let duration_s = self.scenario.duration.as_secs_f64();
        let mut t = Table::default();
        t.push(
            "link",
            Column::Str(rows.iter().map(|r| r.0.to_string()).collect()),
        );
        t.push(
            "class",
            Column::U64(rows.iter().map(|r| r.1 as u64).collect()),
        );
        // CBQ classes by their names; priority classes are known by their rank.
        let name_of = |link: &str, c: usize| -> String {
            let spec = self.scenario.links.iter().find(|l| l.name == link);
            match spec.map(|l| &l.queue) {
                Some(QueueDiscipline::Cbq { names, .. }) => names[c].clone(),
                _ => format!("priority {c}"),
            }
        };
        t.push(
            "name",
            Column::Str(rows.iter().map(|r| name_of(r.0, r.1)).collect()),
        );
        t.push(
            "arrivals",
            Column::U64(rows.iter().map(|r| r.2.arrivals).collect()),
        );
        t.push(
            "drops",
            Column::U64(rows.iter().map(|r| r.2.drops).collect()),
        );
        t.push(
            "departures",
            Column::U64(rows.iter().map(|r| r.2.departures).collect()),
        );
        t.push(
            "throughput_bps",
            Column::F64(
                rows.iter()
                    .map(|r| r.2.bytes_departed as f64 * 8.0 / duration_s)
                    .collect(),
            ),
        );
        Some(t)
    }

    /// The `cbr` table: what each source sent and its sink received.
    fn cbr_table(&self, window_s: f64) -> Table {
        let specs = &self.scenario.cbr;
        let mut t = Table::default();
        t.push(
            "cbr",
            Column::Str(specs.iter().map(|c| c.name.clone()).collect()),
        );
        let node = |n: NodeId| self.scenario.nodes[n.index()].clone();
        t.push(
            "from",
            Column::Str(specs.iter().map(|c| node(c.src)).collect()),
        );
        t.push(
            "to",
            Column::Str(specs.iter().map(|c| node(c.dst)).collect()),
        );
        t.push(
            "rate_bps",
            Column::U64(specs.iter().map(|c| c.config.rate.bps()).collect()),
        );
        let count = |get: fn(&CbrState) -> u64| Column::U64(self.cbr.iter().map(get).collect());
        t.push("packets_sent", count(|c| c.next_seq));
        t.push("packets_delivered", count(|c| c.packets_delivered));
        t.push("packets_dropped", count(|c| c.packets_dropped));
        t.push("bytes_delivered", count(|c| c.bytes_delivered));
        t.push(
            "throughput_bps",
            Column::F64(
                self.cbr
                    .iter()
                    .map(|c| {
                        let end = c.delivered_at_end.unwrap_or(c.bytes_delivered);
                        (end - c.delivered_at_start) as f64 * 8.0 / window_s
                    })
                    .collect(),
            ),
        );
        t.push(
            "loss_ratio",
            Column::F64(
                self.cbr
                    .iter()
                    .map(|c| {
                        if c.next_seq == 0 {
                            0.0
                        } else {
                            c.packets_dropped as f64 / c.next_seq as f64
                        }
                    })
                    .collect(),
            ),
        );
        t
    }

    /// The name of flow `f` in output tables: a declared flow's or CBR source's name, or
    /// `<group>#<k>` for the k-th transfer (from 0) of a transfer group.
    fn flow_name(&self, f: FlowId) -> String {
        let s = self.scenario;
        match f.index() {
            i if i < s.flows.len() => s.flows[i].name.clone(),
            i if i < self.first_transfer => s.cbr[i - s.flows.len()].name.clone(),
            i => {
                let (group, _, k) = self.transfer_info[i - self.first_transfer];
                format!("{}#{k}", s.transfers[group as usize].name)
            }
        }
    }

    /// The TCP connection with flow id `f`.
    fn tcp(&mut self, f: FlowId) -> &mut FlowState {
        tcp_of_mut(&mut self.flows, &mut self.transfers, self.first_transfer, f)
    }

    /// Schedules group `g`'s next arrival, a Poisson gap after `after`, if before its stop.
    fn schedule_transfer(&mut self, after: SimTime, g: usize) {
        let spec = &self.scenario.transfers[g];
        let gap = exponential_gap_s(&mut self.groups[g].arrivals, spec.arrivals_per_second);
        let at = after + SimDuration::from_ps((gap * 1e12) as u64);
        if at < Self::at(spec.stop) {
            self.queue.schedule(at, Event::TransferArrival(g as u32));
        }
    }

    /// A transfer of group `g` arrives: a new connection sends one object, then the next
    /// arrival is scheduled.
    fn start_transfer(&mut self, now: SimTime, g: usize) {
        let spec = &self.scenario.transfers[g];
        let state = &mut self.groups[g];
        let size = spec.sizes.draw(&mut state.sizes);
        let boot_phase = if spec.random_boot_phase {
            SimDuration::from_ps(state.boot_phases.below(spec.sender.tick.as_ps()))
        } else {
            SimDuration::ZERO
        };
        let f = FlowId((self.first_transfer + self.transfers.len()) as u32);
        if spec.sender.timer_mode == TimerMode::Tick {
            match self
                .slow_clocks
                .iter_mut()
                .find(|(p, _)| *p == spec.sender.tick)
            {
                Some((_, members)) => members.push(f),
                None => {
                    // A new clock, in phase with simulated time like every slow clock.
                    let period = spec.sender.tick;
                    self.slow_clocks.push((period, vec![f]));
                    let next = SimTime::ZERO
                        + SimDuration::from_ps((now.as_ps() / period.as_ps() + 1) * period.as_ps());
                    self.queue
                        .schedule(next, Event::SlowTick(self.slow_clocks.len() - 1));
                }
            }
        }
        if spec.receiver.ack_policy == AckPolicy::DelayedBsd {
            if self.fast_tick_flows.is_empty() {
                let next = SimTime::ZERO
                    + SimDuration::from_ps(
                        (now.as_ps() / BSD_FAST_TICK.as_ps() + 1) * BSD_FAST_TICK.as_ps(),
                    );
                self.queue.schedule(next, Event::FastTick);
            }
            self.fast_tick_flows.push(f);
        }
        let mut sender = TcpSender::new(spec.sender.clone(), boot_phase);
        if self.scenario.tcp_events {
            sender.enable_trace();
        }
        sender.start(now, Some(size));
        self.transfers.push(FlowState {
            start_at: now,
            sender,
            receiver: TcpReceiver::new(spec.receiver.clone()),
            src: spec.src,
            dst: spec.dst,
            sender_wakeup: None,
            receiver_wakeup: None,
            delivered_at_start: (0, 0),
            delivered_at_end: None,
            delivered_at_last_sample: 0,
        });
        self.transfer_info
            .push((g as u32, size, self.group_started[g]));
        self.group_started[g] += 1;
        self.flush_sender(now, f);
        self.schedule_transfer(now, g);
    }

    /// Asks CBR source `i` for its next emission and schedules it (if before the end).
    fn schedule_cbr(&mut self, i: usize) {
        let end = Self::at(self.scenario.duration);
        let c = &mut self.cbr[i];
        if let Some((at, packets)) = c.source.next_emission()
            && at < end
        {
            c.pending_packets = packets;
            self.queue.schedule(at, Event::CbrEmit(i as u32));
        }
    }

    /// CBR source `i` sends its pending packets back to back, then schedules its next emission.
    fn emit_cbr(&mut self, now: SimTime, i: usize) {
        let flow = FlowId((self.flows.len() + i) as u32);
        let c = &mut self.cbr[i];
        let (src, dst, size) = (c.src, c.dst, c.source.config().packet_bytes);
        let first = c.next_seq;
        c.next_seq += u64::from(c.pending_packets);
        for seq in first..c.next_seq {
            self.forward(now, src, Packet::udp(flow, dst, size, seq));
        }
        self.schedule_cbr(i);
    }

    /// Puts `pkt` on the link towards its destination.
    fn forward(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        let link = self.route(node, pkt.dst);
        if self.atm.as_ref().is_some_and(|a| a.is_atm(link.index())) {
            self.send_atm(now, node, pkt);
            return;
        }
        self.offer(now, now, link, pkt);
    }

    fn atm_mut(&mut self) -> &mut AtmNetwork {
        self.atm.as_mut().expect("the scenario has ATM links")
    }

    /// Hands `pkt` from host `node` to its VC: one per flow and direction (data and CBR
    /// datagrams `2·flow`, ACKs `2·flow + 1`), set up with its reverse along the routes on
    /// first use.
    fn send_atm(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        let is_ack = pkt.tcp().is_some_and(|h| !h.is_data);
        let vc = VcId(2 * pkt.flow.0 + u32::from(is_ack));
        if !self.atm_mut().has_vc(vc) {
            let reverse = VcId(vc.0 ^ 1);
            let path = self.path(node, pkt.dst).expect("routes were validated");
            // One-way traffic (CBR) may have no way back.
            let back = self.path(pkt.dst, node).unwrap_or_default();
            // A backward RM cell riding one direction gets its feedback from the other
            // direction's port out of the same switch.
            let feedback = |carrier: &[u32], owner: &[u32]| -> Vec<Option<u32>> {
                carrier
                    .iter()
                    .map(|&l| {
                        let from = self.scenario.links[l as usize].from;
                        owner
                            .iter()
                            .copied()
                            .find(|&o| self.scenario.links[o as usize].from == from)
                    })
                    .collect()
            };
            let (fwd_feedback, back_feedback) = (feedback(&path, &back), feedback(&back, &path));
            let atm = self.atm_mut();
            let has_back = !back.is_empty();
            atm.open_vc(vc, path, has_back.then_some((reverse, back)), false);
            atm.set_feedback_ports(vc, fwd_feedback);
            if has_back {
                atm.set_feedback_ports(reverse, back_feedback);
            }
        }
        self.atm_mut().send(now, vc, pkt);
        self.schedule_atm();
    }

    /// The links from `from` to `to`, if there is a route.
    fn path(&self, from: NodeId, to: NodeId) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = from;
        while at != to {
            let link = self.scenario.routes.next_hop(at, to)?;
            path.push(link.0);
            at = self.link_to[link.index()];
        }
        Some(path)
    }

    /// Schedules the wake-ups the ATM network asked for.
    fn schedule_atm(&mut self) {
        let Some(atm) = &mut self.atm else {
            return;
        };
        atm.drain_scheduled(&mut self.atm_due);
        for (t, e) in self.atm_due.drain(..) {
            self.queue.schedule(
                t,
                match e {
                    AtmEvent::PipeHead(port) => Event::AtmPipe(port),
                    AtmEvent::Deliver(vc) => Event::AtmDeliver(vc),
                    AtmEvent::SourceWake(vc) => Event::AtmSource(vc),
                    AtmEvent::CongestionIndication(vc) => Event::AtmCongestion(vc),
                },
            );
        }
    }

    /// Offers `pkt` to `link` at `at` and, while the next hop is fed by this link alone, offers
    /// it on at once (hop fusion: an exact shortcut, see `Link::offer`); the last link of the
    /// chain gets the packet into its pipe.
    fn offer(&mut self, now: SimTime, mut at: SimTime, mut link: LinkId, mut pkt: Packet) {
        let end = SimTime::ZERO + self.scenario.duration;
        loop {
            match self.links[link.index()].offer(now, at, &mut pkt) {
                Offer::Departs { arrive_at } => {
                    if arrive_at < end
                        && self.fuses_any[link.index()]
                        && let Some(next) = self.fuse_next[link.index() * self.fuse_rows
                            + self
                                .scenario
                                .routes
                                .row(pkt.dst)
                                .expect("traffic has a route")]
                    {
                        (at, link) = (arrive_at, next);
                        continue;
                    }
                    if self.link_to[link.index()] == pkt.dst
                        && self.links[link.index()].pipe_is_empty()
                        && self.early_delivery(now, arrive_at, &pkt)
                    {
                        self.in_early_delivery = true;
                        self.arrive(arrive_at, pkt.dst, pkt);
                        self.in_early_delivery = false;
                        return;
                    }
                    if let Some(head) = self.links[link.index()].enter_pipe(arrive_at, pkt) {
                        self.queue.schedule(head, Event::LinkArrival(link));
                    }
                }
                Offer::StartedTx { tx_done_at } => {
                    self.queue.schedule(tx_done_at, Event::TxDone(link))
                }
                Offer::Queued => self.schedule_wake(link),
                Offer::Dropped { .. } => {
                    self.schedule_wake(link);
                    if pkt.tcp().is_none() {
                        self.cbr[pkt.flow.index() - self.flows.len()].packets_dropped += 1;
                    }
                    if let (Some(trace), Some(header)) = (&mut self.sequence, pkt.tcp()) {
                        let event = if header.is_data { "drop" } else { "ack_drop" };
                        let sender =
                            &tcp_of(&self.flows, &self.transfers, self.first_transfer, pkt.flow)
                                .sender;
                        trace.record(now, pkt.flow, event, header, sender);
                    }
                }
            }
            return;
        }
    }

    /// A segment entering its last pipe at `now` may reach its endpoint at once, at its arrival
    /// time `arrive_at`, when nothing that happens before then can see the difference but the
    /// order of events at one instant (deviation D26): the pipe is empty (a packet still
    /// propagating must arrive first), the endpoint has no timer due by then, what it sends in
    /// reply has a first link to itself (so offers there stay in time order), the run has not
    /// ended by then, and, for a receiver, no measurement boundary falls in between.
    fn early_delivery(&self, now: SimTime, arrive_at: SimTime, pkt: &Packet) -> bool {
        let f = pkt.flow.index();
        let (Some(ends), Some(header)) = (self.early_endpoints.get(f), pkt.tcp()) else {
            return false;
        };
        let end = Self::at(self.scenario.duration);
        if self.in_early_delivery || arrive_at >= end {
            return false;
        }
        let due_after = |next: Option<SimTime>| next.is_none_or(|t| t > arrive_at);
        if !header.is_data {
            return ends.sender && due_after(self.flows[f].sender.next_timeout());
        }
        let s = self.scenario;
        let boundary = |d: SimDuration| {
            let b = Self::at(d);
            now < b && b <= arrive_at
        };
        ends.receiver
            && !boundary(s.measure_from)
            && !boundary(s.measure_until)
            && due_after(self.flows[f].receiver.next_timeout())
    }

    fn route(&self, node: NodeId, destination: NodeId) -> LinkId {
        self.scenario
            .routes
            .next_hop(node, destination)
            .expect("routes were validated when the scenario was loaded")
    }

    fn tx_done(&mut self, now: SimTime, link: LinkId) {
        let (head, next) = self.links[link.index()].complete_tx(now);
        if let Some(t) = head {
            self.queue.schedule(t, Event::LinkArrival(link));
        }
        if let Some(t) = next {
            self.queue.schedule(t, Event::TxDone(link));
        }
        self.schedule_wake(link);
    }

    /// Schedules the wake-up a link asked for, if any (CBQ holding packets back).
    fn schedule_wake(&mut self, link: LinkId) {
        if let Some(t) = self.links[link.index()].take_wake() {
            self.queue.schedule(t, Event::LinkWake(link));
        }
    }

    fn arrive(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        if node != pkt.dst {
            self.forward(now, node, pkt);
            return;
        }
        let Some(header) = pkt.tcp().copied() else {
            // A CBR datagram reaches its sink.
            let c = &mut self.cbr[pkt.flow.index() - self.flows.len()];
            c.packets_delivered += 1;
            c.bytes_delivered += u64::from(pkt.size_bytes);
            return;
        };
        let f = pkt.flow;
        if header.is_data {
            self.tcp(f).receiver.on_data(now, &header, pkt.ecn.ce);
            self.flush_receiver(now, f);
        } else {
            self.tcp(f).sender.on_ack(now, &header);
            if let Some(trace) = &mut self.sequence {
                let flow = tcp_of(&self.flows, &self.transfers, self.first_transfer, f);
                trace.record(now, f, "ack", &header, &flow.sender);
            }
            self.flush_sender(now, f);
        }
    }

    /// Sends what the sender produced and keeps its wake-up scheduled.
    fn flush_sender(&mut self, now: SimTime, f: FlowId) {
        let flow = tcp_of_mut(&mut self.flows, &mut self.transfers, self.first_transfer, f);
        flow.sender.drain_transmit(&mut self.segments);
        let (src, dst) = (flow.src, flow.dst);
        let next = flow.sender.next_timeout();
        keep_awake(
            &mut self.queue,
            now,
            next,
            &mut flow.sender_wakeup,
            Event::SenderTimer(f),
        );
        for i in 0..self.segments.len() {
            let seg = self.segments[i];
            if let Some(trace) = &mut self.sequence {
                let event = if seg.retransmission {
                    "retransmit"
                } else {
                    "send"
                };
                let flow = tcp_of(&self.flows, &self.transfers, self.first_transfer, f);
                trace.record(now, f, event, &seg.header, &flow.sender);
            }
            let mut pkt = Packet::tcp_segment(f, dst, seg.wire_bytes, seg.header);
            pkt.ecn.ect = seg.ect;
            self.forward(now, src, pkt);
        }
        self.segments.clear();
    }

    fn flush_receiver(&mut self, now: SimTime, f: FlowId) {
        let flow = tcp_of_mut(&mut self.flows, &mut self.transfers, self.first_transfer, f);
        flow.receiver.drain_transmit(&mut self.acks);
        let (src, dst) = (flow.src, flow.dst);
        let next = flow.receiver.next_timeout();
        keep_awake(
            &mut self.queue,
            now,
            next,
            &mut flow.receiver_wakeup,
            Event::ReceiverTimer(f),
        );
        for i in 0..self.acks.len() {
            let ack = self.acks[i];
            let pkt = Packet::tcp_segment(f, src, ack.wire_bytes, ack.header);
            self.forward(now, dst, pkt);
        }
        self.acks.clear();
    }

    fn sample(&mut self, now: SimTime) {
        let Some(series) = self.series.as_mut() else {
            return;
        };
        let interval = self
            .scenario
            .series_interval
            .expect("sampling is on")
            .as_secs_f64();
        let t = now.as_secs_f64();
        for (flow, spec) in self.flows.iter_mut().zip(&self.scenario.flows) {
            let delivered = flow.receiver.stats().bytes_delivered;
            let bytes = delivered - flow.delivered_at_last_sample;
            flow.delivered_at_last_sample = delivered;
            series.flow_time_s.push(t);
            series.flow.push(spec.name.clone());
            series.cwnd.push(flow.sender.cwnd_segments());
            series.ssthresh.push(flow.sender.ssthresh_segments());
            series.throughput_bps.push(if now == SimTime::ZERO {
                0.0
            } else {
                bytes as f64 * 8.0 / interval
            });
        }
        for (i, (link, spec)) in self.links.iter_mut().zip(&self.scenario.links).enumerate() {
            // ATM links queue cells: their own series.
            match &self.atm {
                Some(atm) if atm.is_atm(i) => {
                    series.atm_time_s.push(t);
                    series.atm_link.push(spec.name.clone());
                    series.atm_kind.push(port_kind(spec));
                    series.atm_queue_cells.push(atm.queue_cells(i, now));
                }
                _ => {
                    series.link_time_s.push(t);
                    series.link.push(spec.name.clone());
                    series.queue_packets.push(link.queue_len_packets(now));
                }
            }
        }
    }

    /// The pcap file of `capture`: its links' transmissions before `end`, merged in time order
    /// (ties keep the order of the links as listed).
    fn capture(&self, capture: &ResolvedCapture, end: SimTime) -> Vec<u8> {
        let mut records: Vec<(SimTime, &Packet)> = capture
            .links
            .iter()
            .flat_map(|l| {
                self.links[l.index()]
                    .captured()
                    .iter()
                    .map(|(t, p)| (*t, p))
            })
            .filter(|(t, _)| *t < end)
            .collect();
        records.sort_by_key(|(t, _)| *t);
        let mut writer = PcapWriter::new(capture.headers_only);
        for (t, p) in records {
            // TCP packets only: declared flows and random transfers (CBR datagrams are left out).
            if p.tcp().is_none() {
                continue;
            }
            let flow = tcp_of(&self.flows, &self.transfers, self.first_transfer, p.flow);
            let cfg = flow.sender.config();
            let wire = FlowWire {
                src: flow.src,
                dst: flow.dst,
                seq_mode: cfg.seq_mode,
                mss: cfg.mss,
                syn: cfg.syn,
            };
            writer.write(t, p, &wire);
        }
        writer.into_bytes()
    }

    fn results(mut self, replication: u32) -> RunResult {
        let s = self.scenario;
        let end = SimTime::ZERO + s.duration;
        let captures: Vec<(String, Vec<u8>)> = s
            .captures
            .iter()
            .map(|c| (c.file.clone(), self.capture(c, end)))
            .collect();
        let window_s = (s.measure_until.as_ps() - s.measure_from.as_ps()) as f64 / 1e12;
        let cbr = (!self.cbr.is_empty()).then(|| self.cbr_table(window_s));
        let flow_names: Vec<String> = (0..self.first_transfer + self.transfers.len())
            .map(|i| self.flow_name(FlowId(i as u32)))
            .collect();
        let classes = self.classes_table();
        let transfers = (!self.scenario.transfers.is_empty()).then(|| self.transfers_table());
        let names = |v: Vec<String>| Column::Str(v);

        let mut goodput = Vec::new();
        let mut wire_tput = Vec::new();
        for flow in &self.flows {
            let (p1, w1) = flow.delivered_at_end.unwrap_or((0, 0));
            goodput.push((p1 - flow.delivered_at_start.0) as f64 * 8.0 / window_s);
            wire_tput.push((w1 - flow.delivered_at_start.1) as f64 * 8.0 / window_s);
        }
        let sender_col = |get: &dyn Fn(&TcpSender) -> u64| {
            Column::U64(self.flows.iter().map(|f| get(&f.sender)).collect())
        };
        let mut flows = Table::default();
        flows.push(
            "flow",
            names(s.flows.iter().map(|f| f.name.clone()).collect()),
        );
        flows.push(
            "variant",
            names(s.flows.iter().map(|f| f.variant_name.to_string()).collect()),
        );
        flows.push(
            "profile",
            names(s.flows.iter().map(|f| f.profile_name.to_string()).collect()),
        );
        flows.push(
            "src",
            names(
                s.flows
                    .iter()
                    .map(|f| s.nodes[f.src.index()].clone())
                    .collect(),
            ),
        );
        flows.push(
            "dst",
            names(
                s.flows
                    .iter()
                    .map(|f| s.nodes[f.dst.index()].clone())
                    .collect(),
            ),
        );
        flows.push(
            "start_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.start_at.as_secs_f64())
                    .collect(),
            ),
        );
        flows.push("goodput_bps", Column::F64(goodput.clone()));
        flows.push("wire_throughput_bps", Column::F64(wire_tput));
        flows.push(
            "bytes_delivered",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().bytes_delivered)
                    .collect(),
            ),
        );
        flows.push("data_pkts_sent", sender_col(&|x| x.stats().data_pkts_sent));
        flows.push("retx_pkts", sender_col(&|x| x.stats().retx_pkts));
        flows.push("retx_fast", sender_col(&|x| x.stats().retx_fast));
        flows.push("retx_go_back_n", sender_col(&|x| x.stats().retx_go_back_n));
        flows.push(
            "retx_partial_ack",
            sender_col(&|x| x.stats().retx_partial_ack),
        );
        flows.push("retx_sack_hole", sender_col(&|x| x.stats().retx_sack_hole));
        flows.push("retx_rescue", sender_col(&|x| x.stats().retx_rescue));
        flows.push("ecn_responses", sender_col(&|x| x.stats().ecn_responses));
        flows.push("bcn_responses", sender_col(&|x| x.stats().bcn_responses));
        flows.push("timeouts", sender_col(&|x| x.stats().timeouts));
        flows.push("timeouts_all", sender_col(&|x| x.stats().timeouts_all));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            flows.push(name, sender_col(&|x| x.stats().timeout_causes()[i].1));
        }
        flows.push(
            "fast_retransmits",
            sender_col(&|x| x.stats().fast_retransmits),
        );
        flows.push(
            "fast_recoveries",
            sender_col(&|x| x.stats().fast_recoveries),
        );
        flows.push("partial_acks", sender_col(&|x| x.stats().partial_acks));
        flows.push(
            "limited_transmit_sends",
            sender_col(&|x| x.stats().limited_transmit_sends),
        );
        flows.push("cwnd_cuts", sender_col(&|x| x.stats().cwnd_cuts));
        flows.push("acks_rcvd", sender_col(&|x| x.stats().acks_rcvd));
        flows.push("dupacks_rcvd", sender_col(&|x| x.stats().dupacks_rcvd));
        flows.push("rtt_samples", sender_col(&|x| x.stats().rtt_samples));
        let mean = |sum: f64, n: u64| if n == 0 { f64::NAN } else { sum / n as f64 };
        flows.push(
            "rtt_mean_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| mean(f.sender.stats().rtt_sum_s, f.sender.stats().rtt_samples))
                    .collect(),
            ),
        );
        flows.push(
            "rtt_quantised_mean_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| {
                        mean(
                            f.sender.stats().rtt_quantised_sum_s,
                            f.sender.stats().rtt_samples,
                        )
                    })
                    .collect(),
            ),
        );
        flows.push(
            "final_cwnd",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.sender.cwnd_segments())
                    .collect(),
            ),
        );
        flows.push(
            "final_ssthresh",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.sender.ssthresh_segments())
                    .collect(),
            ),
        );
        flows.push(
            "completion_time_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| {
                        f.sender
                            .completed_at()
                            .map_or(f64::NAN, |t| (t - f.start_at).as_secs_f64())
                    })
                    .collect(),
            ),
        );
        flows.push(
            "dup_pkts_rcvd",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().dup_pkts_rcvd)
                    .collect(),
            ),
        );
        flows.push(
            "acks_sent",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().acks_sent)
                    .collect(),
            ),
        );
        flows.push(
            "sack_blocks_sent",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().sack_blocks_sent)
                    .collect(),
            ),
        );

        // ATM links report in cells, in the `atm_ports` table.
        let ip_links: Vec<(&ResolvedLink, &Link)> = s
            .links
            .iter()
            .zip(&self.links)
            .filter(|(spec, _)| spec.atm.is_none())
            .collect();
        let link_stats: Vec<LinkStats> = ip_links.iter().map(|(_, l)| l.stats_at(end)).collect();
        let link_col =
            |get: &dyn Fn(&LinkStats) -> u64| Column::U64(link_stats.iter().map(get).collect());
        let mut links = Table::default();
        links.push(
            "link",
            names(ip_links.iter().map(|(l, _)| l.name.clone()).collect()),
        );
        links.push(
            "rate_bps",
            Column::U64(ip_links.iter().map(|(l, _)| l.rate.bps()).collect()),
        );
        links.push(
            "delay_s",
            Column::F64(
                ip_links
                    .iter()
                    .map(|(l, _)| l.delay.as_secs_f64())
                    .collect(),
            ),
        );
        links.push("arrivals", link_col(&|l| l.arrivals));
        links.push("departures", link_col(&|l| l.departures));
        links.push("drops", link_col(&|l| l.drops_total()));
        links.push("drops_overflow", link_col(&|l| l.drops_overflow));
        links.push("drops_early", link_col(&|l| l.drops_early));
        links.push("drops_forced", link_col(&|l| l.drops_forced));
        links.push("drops_scripted", link_col(&|l| l.drops_scripted));
        links.push("drops_random", link_col(&|l| l.drops_random));
        links.push("marks", link_col(&|l| l.marks));
        links.push("max_queue_packets", link_col(&|l| l.max_queue_packets));
        links.push("max_queue_bytes", link_col(&|l| l.max_queue_bytes));
        links.push(
            "mean_queue_packets",
            Column::F64(
                ip_links
                    .iter()
                    .map(|(_, l)| l.mean_queue_packets(end))
                    .collect(),
            ),
        );
        links.push(
            "utilization",
            Column::F64(
                link_stats
                    .iter()
                    // Whole transmissions count; the last one may run past the end.
                    .map(|st| (st.busy_ps as f64 / end.as_ps() as f64).min(1.0))
                    .collect(),
            ),
        );
        let (atm_ports, atm_vcs) = match &self.atm {
            Some(atm) => (
                Some(atm_ports_table(atm, s, end)),
                Some(atm_vcs_table(atm, &flow_names)),
            ),
            None => (None, None),
        };

        let total: f64 = goodput.iter().sum();
        let sum_sender = |get: &dyn Fn(&TcpSender) -> u64| {
            self.flows.iter().map(|f| get(&f.sender)).sum::<u64>()
        };
        let mut summary = Table::default();
        summary.push("scenario", Column::Str(vec![s.name.clone()]));
        summary.push("replication", Column::U64(vec![u64::from(replication)]));
        summary.push("seed", Column::U64(vec![s.seed]));
        summary.push("duration_s", Column::F64(vec![s.duration.as_secs_f64()]));
        summary.push("flows", Column::U64(vec![self.flows.len() as u64]));
        summary.push("total_goodput_bps", Column::F64(vec![total]));
        // With several TCP variants side by side, each one's share too (seed 004's Table 5).
        let variants: BTreeSet<&str> = s.flows.iter().map(|f| f.variant_name).collect();
        if variants.len() > 1 {
            for variant in variants {
                let sum: f64 = s
                    .flows
                    .iter()
                    .zip(&goodput)
                    .filter(|(f, _)| f.variant_name == variant)
                    .map(|(_, g)| g)
                    .sum();
                summary.push(
                    format!("total_goodput_bps_{variant}"),
                    Column::F64(vec![sum]),
                );
            }
        }
        summary.push(
            "efficiency",
            Column::F64(vec![
                s.efficiency_max
                    .map_or(f64::NAN, |max| total / max.bps() as f64),
            ]),
        );
        summary.push("jain_index", Column::F64(vec![jain_index(&goodput)]));
        summary.push("cov", Column::F64(vec![coefficient_of_variation(&goodput)]));
        summary.push(
            "timeouts",
            Column::U64(vec![sum_sender(&|x| x.stats().timeouts)]),
        );
        summary.push(
            "fast_retransmits",
            Column::U64(vec![sum_sender(&|x| x.stats().fast_retransmits)]),
        );
        summary.push(
            "fast_recoveries",
            Column::U64(vec![sum_sender(&|x| x.stats().fast_recoveries)]),
        );
        summary.push(
            "retx_pkts",
            Column::U64(vec![sum_sender(&|x| x.stats().retx_pkts)]),
        );
        summary.push(
            "drops",
            Column::U64(vec![link_stats.iter().map(LinkStats::drops_total).sum()]),
        );
        if !s.transfers.is_empty() {
            self.push_transfer_summary(&mut summary);
        }
        if let Some(atm) = &self.atm {
            push_atm_summary(&mut summary, atm, s, end);
        }
        summary.push("events", Column::U64(vec![self.queue.events_processed()]));

        let tcp_events = s.tcp_events.then(|| {
            let mut t = Table::default();
            // Declared flows, then random transfers in order of arrival.
            let connections =
                (self.flows.iter().enumerate()).chain((self.first_transfer..).zip(&self.transfers));
            let events: Vec<(String, &congsim_tcp::TraceEvent)> = connections
                .flat_map(|(i, f)| {
                    let name = self.flow_name(FlowId(i as u32));
                    f.sender.trace().iter().map(move |e| (name.clone(), e))
                })
                .collect();
            t.push(
                "time_s",
                Column::F64(events.iter().map(|(_, e)| e.time.as_secs_f64()).collect()),
            );
            t.push(
                "flow",
                Column::Str(events.iter().map(|(n, _)| n.clone()).collect()),
            );
            t.push(
                "event",
                Column::Str(
                    events
                        .iter()
                        .map(|(_, e)| e.kind.name().to_string())
                        .collect(),
                ),
            );
            t.push(
                "cwnd",
                Column::F64(events.iter().map(|(_, e)| e.cwnd).collect()),
            );
            t.push(
                "ssthresh",
                Column::F64(events.iter().map(|(_, e)| e.ssthresh).collect()),
            );
            t
        });
        let (flow_series, link_series, atm_series) = match self.series {
            Some(series) => {
                let mut fs = Table::default();
                fs.push("time_s", Column::F64(series.flow_time_s));
                fs.push("flow", Column::Str(series.flow));
                fs.push("cwnd", Column::F64(series.cwnd));
                fs.push("ssthresh", Column::F64(series.ssthresh));
                fs.push("throughput_bps", Column::F64(series.throughput_bps));
                let mut ls = Table::default();
                ls.push("time_s", Column::F64(series.link_time_s));
                ls.push("link", Column::Str(series.link));
                ls.push("queue_packets", Column::U64(series.queue_packets));
                let atm = self.atm.is_some().then(|| {
                    let mut t = Table::default();
                    t.push("time_s", Column::F64(series.atm_time_s));
                    t.push("link", Column::Str(series.atm_link));
                    t.push("kind", Column::Str(series.atm_kind));
                    t.push("queue_cells", Column::U64(series.atm_queue_cells));
                    t
                });
                (Some(fs), Some(ls), atm)
            }
            None => (None, None, None),
        };
        let sequence = self.sequence.take().map(|trace| {
            let mut t = Table::default();
            t.push("time_s", Column::F64(trace.time_s));
            t.push(
                "flow",
                Column::Str(
                    trace
                        .flow
                        .iter()
                        .map(|f| flow_names[f.index()].clone())
                        .collect(),
                ),
            );
            t.push(
                "event",
                Column::Str(trace.event.iter().map(|e| e.to_string()).collect()),
            );
            t.push("seq", Column::U64(trace.seq));
            t.push("ack", Column::U64(trace.ack));
            t.push("sack", Column::Str(trace.sack));
            t.push("cwnd", Column::F64(trace.cwnd));
            t.push("ssthresh", Column::F64(trace.ssthresh));
            t.push("pipe", Column::F64(trace.pipe));
            t
        });
        RunResult {
            flows,
            tcp_events,
            sequence,
            cbr,
            classes,
            transfers,
            atm_ports,
            atm_vcs,
            atm_series,
            captures,
            links,
            summary,
            flow_series,
            link_series,
            warnings: warnings_table(&self.scenario.warnings),
            events: self.queue.events_processed(),
        }
    }
}

/// The scenario's warnings, one row each (`None` when there are none).
fn warnings_table(warnings: &[ScenarioWarning]) -> Option<Table> {
    if warnings.is_empty() {
        return None;
    }
    let mut t = Table::default();
    let field = warnings.iter().map(|w| w.path.clone()).collect();
    t.push("field", Column::Str(field));
    t.push(
        "message",
        Column::Str(warnings.iter().map(|w| w.message.clone()).collect()),
    );
    Some(t)
}

/// The ATM network in the summary: the largest queue of any port (the bottleneck's), in cells
/// and in round trips of the first flow's path at that port's cell rate; cells dropped.
fn push_atm_summary(summary: &mut Table, atm: &AtmNetwork, s: &Scenario, end: SimTime) {
    let ports: Vec<(usize, PortStats)> = (0..s.links.len())
        .filter_map(|i| atm.port_stats(i, end).map(|p| (i, p)))
        .collect();
    // The largest queue of a switch: hosts' adapters hold what their sources may not send yet.
    // A network of hosts alone has only adapters.
    let is_switch = |i: usize| s.links[i].atm.as_ref().is_some_and(|p| !p.host_adapter);
    let has_switch = ports.iter().any(|(i, _)| is_switch(*i));
    let (link, worst) = ports
        .iter()
        .filter(|(i, _)| !has_switch || is_switch(*i))
        .max_by_key(|(i, p)| (p.max_queue_cells, std::cmp::Reverse(*i)))
        .expect("an ATM link");
    let rtt_s = s.flows.first().map_or(f64::NAN, |f| {
        let one_way = |from: NodeId, to: NodeId| -> f64 {
            let mut at = from;
            let mut delay = 0.0;
            while at != to {
                let Some(l) = s.routes.next_hop(at, to) else {
                    return f64::NAN;
                };
                delay += s.links[l.index()].delay.as_secs_f64();
                at = s.links[l.index()].to;
            }
            delay
        };
        one_way(f.src, f.dst) + one_way(f.dst, f.src)
    });
    let cells_per_s = s.links[*link].rate.bps() as f64 / f64::from(congsim_atm::CELL_BYTES * 8);
    let max_queue = worst.max_queue_cells as f64;
    summary.push("atm_max_queue_cells", Column::F64(vec![max_queue]));
    summary.push(
        "atm_max_queue_rtts",
        Column::F64(vec![max_queue / (rtt_s * cells_per_s)]),
    );
    summary.push(
        "atm_cells_dropped",
        Column::U64(vec![ports.iter().map(|(_, p)| p.cells_dropped()).sum()]),
    );
    summary.push(
        "atm_uni_drops",
        Column::U64(vec![
            atm.vc_stats()
                .filter_map(|(_, v)| v.abr.map(|a| a.uni_drops))
                .sum(),
        ]),
    );
}

/// `"switch"` or `"host"`: whose output port an ATM link is.
fn port_kind(link: &ResolvedLink) -> String {
    let host = link.atm.as_ref().is_some_and(|p| p.host_adapter);
    (if host { "host" } else { "switch" }).to_string()
}

/// The `atm_ports` table: each ATM link's port, in cells.
fn atm_ports_table(atm: &AtmNetwork, s: &Scenario, end: SimTime) -> Table {
    let ports: Vec<(&ResolvedLink, PortStats)> = s
        .links
        .iter()
        .enumerate()
        .filter_map(|(i, l)| atm.port_stats(i, end).map(|st| (l, st)))
        .collect();
    let col =
        |get: &dyn Fn(&PortStats) -> u64| Column::U64(ports.iter().map(|(_, p)| get(p)).collect());
    let mut t = Table::default();
    t.push(
        "link",
        Column::Str(ports.iter().map(|(l, _)| l.name.clone()).collect()),
    );
    t.push(
        "kind",
        Column::Str(ports.iter().map(|(l, _)| port_kind(l)).collect()),
    );
    t.push(
        "buffer_cells",
        Column::F64(
            ports
                .iter()
                .map(|(l, _)| {
                    l.atm
                        .as_ref()
                        .and_then(|p| p.capacity_cells)
                        .map_or(f64::INFINITY, |k| k as f64)
                })
                .collect(),
        ),
    );
    t.push("cells_in", col(&|p| p.cells_in));
    t.push("cells_sent", col(&|p| p.cells_sent));
    t.push("cells_queued", col(&|p| p.cells_queued));
    t.push("cells_dropped", col(&|p| p.cells_dropped()));
    t.push("cells_dropped_overflow", col(&|p| p.cells_dropped_overflow));
    t.push("cells_dropped_policy", col(&|p| p.cells_dropped_policy));
    t.push("cells_dropped_ppd", col(&|p| p.cells_dropped_ppd));
    t.push("frames_discarded", col(&|p| p.frames_discarded));
    t.push("frames_damaged", col(&|p| p.frames_damaged));
    t.push("eoms_dropped", col(&|p| p.eoms_dropped));
    t.push(
        "cell_loss_ratio",
        Column::F64(
            ports
                .iter()
                .map(|(_, p)| {
                    if p.cells_in == 0 {
                        0.0
                    } else {
                        p.cells_dropped() as f64 / p.cells_in as f64
                    }
                })
                .collect(),
        ),
    );
    t.push("max_queue_cells", col(&|p| p.max_queue_cells));
    t.push(
        "max_queue_cells_first_half",
        col(&|p| p.max_queue_cells_first_half),
    );
    t.push("vbr_cells", col(&|p| p.vbr_cells));
    t.push("switch_intervals", col(&|p| p.switch_intervals));
    t.push("switch_cis_set", col(&|p| p.switch_cis_set));
    let erica = |get: &dyn Fn(&congsim_atm::erica::IntervalRecord) -> f64| {
        Column::F64(ports.iter().map(|(_, p)| get(&p.erica_last)).collect())
    };
    let cell_bits = f64::from(congsim_atm::CELL_BYTES * 8);
    t.push("erica_load_factor", erica(&|r| r.load_factor));
    t.push(
        "erica_abr_capacity_bps",
        erica(&|r| r.abr_capacity * cell_bits),
    );
    t.push("erica_fair_share_bps", erica(&|r| r.fair_share * cell_bits));
    t.push("erica_active_vcs", erica(&|r| r.active_vcs));
    t
}

/// The `atm_vcs` table: each VC's frames and cells.
fn atm_vcs_table(atm: &AtmNetwork, flow_names: &[String]) -> Table {
    let vcs: Vec<(VcId, VcStats)> = atm.vc_stats().collect();
    let col =
        |get: &dyn Fn(&VcStats) -> u64| Column::U64(vcs.iter().map(|(_, v)| get(v)).collect());
    let mut t = Table::default();
    t.push(
        "flow",
        Column::Str(
            vcs.iter()
                .map(|(vc, _)| flow_names[(vc.0 / 2) as usize].clone())
                .collect(),
        ),
    );
    t.push(
        "direction",
        Column::Str(
            vcs.iter()
                .map(|(vc, _)| if vc.0 % 2 == 0 { "data" } else { "ack" }.to_string())
                .collect(),
        ),
    );
    t.push("frames_sent", col(&|v| v.frames_sent));
    t.push("frames_delivered", col(&|v| v.frames_delivered));
    t.push("frames_corrupted", col(&|v| v.frames_corrupted));
    t.push("cells_sent", col(&|v| v.cells_sent));
    t.push("cells_delivered", col(&|v| v.cells_delivered));
    // ABR sources (NaN or 0 on a UBR network); rates in bits/s of cells.
    let abr = |get: &dyn Fn(&AbrStats) -> f64| {
        Column::F64(
            vcs.iter()
                .map(|(_, v)| v.abr.as_ref().map_or(f64::NAN, get))
                .collect(),
        )
    };
    let cell_bits = f64::from(congsim_atm::CELL_BYTES * 8);
    t.push("acr_final_bps", abr(&|a| a.acr * cell_bits));
    t.push("acr_min_bps", abr(&|a| a.acr_min * cell_bits));
    t.push("acr_max_bps", abr(&|a| a.acr_max * cell_bits));
    let abr_count = |get: &dyn Fn(&AbrStats) -> u64| {
        Column::U64(
            vcs.iter()
                .map(|(_, v)| v.abr.as_ref().map_or(0, get))
                .collect(),
        )
    };
    t.push("frm_sent", abr_count(&|a| a.frm_sent));
    t.push(
        "out_of_rate_frm_sent",
        abr_count(&|a| a.out_of_rate_frm_sent),
    );
    t.push("brm_turned_around", abr_count(&|a| a.brm_turned_around));
    t.push("brm_received", abr_count(&|a| a.brm_received));
    t.push("uni_drops", abr_count(&|a| a.uni_drops));
    t
}
