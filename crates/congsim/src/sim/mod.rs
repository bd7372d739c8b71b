//! The simulation loop: wires the sans-IO models (links, TCP endpoints) to the event queue.
//!
//! Packets propagating on a link wait in the link's pipe; the queue holds one wake-up per link
//! (its pipe head), so it stays as small as the topology. On FIFO links the departure time is
//! computed at enqueue and a packet costs one event per hop; links served by a scheduler also
//! have an end-of-transmission event. Retransmission and delayed-ACK timers are *lazy*: a model's
//! deadline is scheduled only when it moves earlier than the wake-up already pending, and a
//! wake-up that finds its deadline moved later just reschedules. Re-arming a timer on every
//! ACK therefore costs no heap operation.

use crate::metrics::{coefficient_of_variation, jain_index, max_min_shares};
use crate::scenario::model::{NetworkChange, QueueDiscipline, ResolvedLink};
use crate::scenario::model::{Scenario, ScenarioWarning};
use crate::table::{Column, Table};
use crate::transfers::exponential_gap_s;
use congsim_atm::abr::AbrStats;
use congsim_atm::{AtmEvent, AtmNetwork, PortConfig, PortStats, VcId, VcStats};
use congsim_core::rng::{RngStream, StreamFactory};
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::Packet;
use congsim_core::{EventQueue, FlowId, LinkId, NodeId};
use congsim_ip::cbr::{CbrSource, OnOffLaw};
use congsim_ip::link::LinkConfig;
use congsim_ip::qdisc::{Cbq, Classifier, Codel, DropTail, FqCodel, FqPie, Pie, Priority, Red};
use congsim_ip::{LimitSemantics, Link, Offer, Qdisc};
use congsim_tcp::congestion::Controller;
use congsim_tcp::{AckPolicy, Segment, TcpReceiver, TcpSender, TimerMode};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

mod atm_tables;
mod build;
mod forward;
mod recorders;
mod results;
mod routing;
mod trace_tables;
mod traffic;
mod window;

use recorders::Recorders;
use routing::Routing;
use window::{CbrReading, Deferred, LinkReading, Measurement, Reading};

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
    /// Scheduled event `scenario.events[i]`.
    Scheduled(u32),
    /// Link failure process `failures[k]` takes its links down or brings them up.
    LinkFlip(u32),
    End,
}

/// One end of a TCP connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Sender,
    Receiver,
}

/// One TCP connection: its two ends, their pending wake-ups and when its application starts.
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
}

impl FlowState {
    /// A connection between `src` and `dst` whose application starts at `start_at`.
    fn new(
        sender: TcpSender,
        receiver: TcpReceiver,
        (src, dst): (NodeId, NodeId),
        start_at: SimTime,
    ) -> Self {
        Self {
            src,
            dst,
            sender_wakeup: None,
            receiver_wakeup: None,
            sender,
            receiver,
            start_at,
        }
    }
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
    /// Seeds of the transfers' controllers, for those that draw (BBR's gain cycle).
    controllers: RngStream,
}

/// The columns that break `timeouts` down by cause.
fn timeout_cause_names() -> [&'static str; 5] {
    congsim_tcp::SenderStats::default()
        .timeout_causes()
        .map(|(name, _)| name)
}

/// What a flow id names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    /// A TCP flow the scenario declares: its index in `flows`.
    Tcp(usize),
    /// A CBR source: its index in `cbr`.
    Cbr(usize),
    /// A random transfer: its index in `transfers` (order of arrival).
    Transfer(usize),
}

/// How flow ids are laid out, known here only: the scenario's TCP flows, then its CBR
/// sources, then random transfers as they arrive.
#[derive(Clone, Copy, Debug)]
struct FlowIds {
    tcp_flows: usize,
    cbr_sources: usize,
}

impl FlowIds {
    #[inline]
    fn endpoint(self, f: FlowId) -> Endpoint {
        match f.index() {
            i if i < self.tcp_flows => Endpoint::Tcp(i),
            i if i < self.first_transfer() => Endpoint::Cbr(i - self.tcp_flows),
            i => Endpoint::Transfer(i - self.first_transfer()),
        }
    }

    /// The TCP connection `f` names, which must be one: a declared flow (`Ok`) or a transfer
    /// (`Err`), by index. One comparison, for the hot path.
    #[inline]
    fn connection(self, f: FlowId) -> Result<usize, usize> {
        debug_assert!(
            !matches!(self.endpoint(f), Endpoint::Cbr(_)),
            "{f:?} is a CBR source"
        );
        match f.index().checked_sub(self.first_transfer()) {
            Some(k) => Err(k),
            None => Ok(f.index()),
        }
    }

    /// The CBR source `f` names, which must be one.
    #[inline]
    fn cbr(self, f: FlowId) -> usize {
        match self.endpoint(f) {
            Endpoint::Cbr(i) => i,
            other => panic!("{f:?} is not a CBR source but {other:?}"),
        }
    }

    fn of_cbr(self, i: usize) -> FlowId {
        FlowId((self.tcp_flows + i) as u32)
    }

    fn of_transfer(self, k: usize) -> FlowId {
        FlowId((self.first_transfer() + k) as u32)
    }

    fn first_transfer(self) -> usize {
        self.tcp_flows + self.cbr_sources
    }
}

/// Which way a VC carries a flow's packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VcDirection {
    /// TCP data, or a CBR source's datagrams.
    Data,
    /// TCP ACKs, back from the receiver.
    Ack,
}

impl VcDirection {
    /// As the tables write it.
    fn name(self) -> &'static str {
        match self {
            Self::Data => "data",
            Self::Ack => "ack",
        }
    }
}

/// Each flow's two VCs, numbered here only: `2·flow` carries its data, `2·flow + 1` its ACKs.
/// (Numbering by flow keeps the VC order, which the ATM network's per-VC state and the
/// `atm_vcs` table follow, the order of the flows.)
mod vc_ids {
    use super::{FlowId, VcDirection};
    use congsim_atm::VcId;

    pub(super) fn of(flow: FlowId, direction: VcDirection) -> VcId {
        VcId(2 * flow.0 + u32::from(direction == VcDirection::Ack))
    }

    /// The flow and direction VC `vc` was opened for.
    pub(super) fn owner(vc: VcId) -> (FlowId, VcDirection) {
        let direction = if vc.0.is_multiple_of(2) {
            VcDirection::Data
        } else {
            VcDirection::Ack
        };
        (FlowId(vc.0 / 2), direction)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_flow_and_direction_has_its_own_vc_and_is_its_owner() {
            let mut seen = std::collections::BTreeSet::new();
            for flow in (0..50).map(FlowId) {
                for direction in [VcDirection::Data, VcDirection::Ack] {
                    let vc = of(flow, direction);
                    assert!(seen.insert(vc), "{vc:?} given twice");
                    assert_eq!(owner(vc), (flow, direction));
                }
            }
        }
    }
}

/// The TCP connections: the scenario's flows, then the random transfers' in order of
/// arrival, each found by its flow id.
struct Connections {
    flows: Vec<FlowState>,
    /// Connections of random transfers, in order of arrival (`FlowIds::of_transfer`).
    transfers: Vec<FlowState>,
    ids: FlowIds,
}

impl Connections {
    /// Every connection with its flow id: the scenario's flows, then the transfers in order
    /// of arrival.
    fn iter(&self) -> impl Iterator<Item = (FlowId, &FlowState)> {
        let flows = (self.flows.iter().enumerate()).map(|(i, f)| (FlowId(i as u32), f));
        let transfers =
            (self.transfers.iter().enumerate()).map(|(k, f)| (self.ids.of_transfer(k), f));
        flows.chain(transfers)
    }

    #[inline]
    fn get(&self, f: FlowId) -> &FlowState {
        match self.ids.connection(f) {
            Ok(i) => &self.flows[i],
            Err(k) => &self.transfers[k],
        }
    }

    #[inline]
    fn get_mut(&mut self, f: FlowId) -> &mut FlowState {
        match self.ids.connection(f) {
            Ok(i) => &mut self.flows[i],
            Err(k) => &mut self.transfers[k],
        }
    }
}

/// Everything a run produces. Tables are deterministic functions of (scenario, replication).
#[derive(Clone, Debug)]
pub struct RunResult {
    pub flows: Table,
    pub links: Table,
    /// One row.
    pub summary: Table,
    /// The tables of `OPTIONAL_TABLES` this run produced, in that order.
    optional: Vec<(&'static str, Table)>,
    /// Packet captures: `(file name, pcap bytes)`.
    pub captures: Vec<(String, Vec<u8>)>,
    /// Events processed (for speed figures).
    pub events: u64,
}

/// The tables a run produces on request or when the scenario has what they describe, in the
/// order they are written: `flow_series`, `link_series` (`series_interval`), `tcp_events`,
/// `sequence` (`sequence_trace`), `cbr` (CBR sources), `classes` (priority and CBQ queues),
/// `transfers` (transfer groups), `atm_ports`, `atm_vcs` (ATM links), `atm_series` (ATM links
/// and `series_interval`), `abr_series` (an ABR network and `series_interval`), `flow_links` (`flow_monitor`), `sojourn` (`sojourn_links`),
/// `tcp_changes` (`tcp_changes`), `sojourn_flows` (`sojourn_links`), `link_changes` (events
/// that take links down), `warnings` (settings that do nothing or defeat themselves).
pub const OPTIONAL_TABLES: [&str; 17] = [
    "flow_series",
    "link_series",
    "tcp_events",
    "sequence",
    "cbr",
    "classes",
    "transfers",
    "atm_ports",
    "atm_vcs",
    "atm_series",
    "abr_series",
    "flow_links",
    "sojourn",
    "tcp_changes",
    "sojourn_flows",
    "link_changes",
    "warnings",
];

impl RunResult {
    /// An optional table (`OPTIONAL_TABLES`), `None` if the run did not produce it.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.optional
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
    }

    /// Every table by name, `None` for an optional one the run did not produce.
    pub fn tables(&self) -> Vec<(&'static str, Option<&Table>)> {
        let always = [
            ("flows", Some(&self.flows)),
            ("links", Some(&self.links)),
            ("summary", Some(&self.summary)),
        ];
        let optional = OPTIONAL_TABLES.map(|name| (name, self.table(name)));
        always.into_iter().chain(optional).collect()
    }
}

struct Simulation<'a> {
    scenario: &'a Scenario,
    queue: EventQueue<Event>,
    links: Vec<Link>,
    /// Next hops and hop fusion.
    routing: Routing<'a>,
    /// The TCP connections, by flow id.
    connections: Connections,
    cbr: Vec<CbrState>,
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
    /// The opt-in recordings: series and the time-sequence trace.
    recorders: Recorders,
    /// The scenario has scheduled events: a link's pending arrival and transmission events
    /// may have become stale.
    links_change: bool,
    /// The senders' and the receivers' send buffers, lent to an end for its turn
    /// ([`Self::sender`], [`Self::receiver`]) and handed back by its flush.
    segments: Vec<Segment>,
    acks: Vec<Segment>,
    /// The ATM network, when the scenario has ATM links.
    atm: Option<AtmNetwork>,
    /// Per link, the stream that ranks its arrivals among simultaneous ones
    /// (`tie_order = "random"`); `None` to take them in scheduling order.
    tie_streams: Option<Vec<RngStream>>,
    /// The measurement window's readings and the shortcuts held at its edges.
    measurement: Measurement,
    /// Each TCP flow's max-min fair share (`results::max_min_shares_of`), taken by the flows
    /// table.
    maxmin_shares: Vec<f64>,
    /// The random link failure processes (`link_failures` events), in event order.
    failures: Vec<FailureProcess>,
    /// Every link that went down or came up, in the order it did (the `link_changes` table).
    link_changes: Vec<LinkChange>,
}

/// A link going down or coming up, and the `[[events]]` entry (in the file) that did it.
#[derive(Clone, Copy, Debug)]
struct LinkChange {
    time: SimTime,
    link: LinkId,
    up: bool,
    event: usize,
}

/// A `link_failures` event's process: its draws and whether its links are down.
struct FailureProcess {
    event: usize,
    rng: RngStream,
    down: bool,
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
            let start_at = self.connections.flows[i].start_at;
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
        if self.recorders.is_sampling() {
            self.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        for (i, event) in s.events.iter().enumerate() {
            self.queue
                .schedule(Self::at(event.at), Event::Scheduled(i as u32));
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
                    // A link that went down lost the packet this event was for.
                    if self.links_change && !self.links[link.index()].pipe_head_arrives_at(now) {
                        continue;
                    }
                    let (pkt, next) = self.links[link.index()].pop_arrival(now);
                    if let Some(t) = next {
                        self.schedule_arrival(t, link);
                    }
                    self.arrive(now, self.routing.link_to(link), pkt);
                }
                Event::TxDone(link) => self.tx_done(now, link),
                Event::AtmPipe(port) => {
                    // The cells behind the head go on in the same call while nothing queued
                    // comes first (exact, like hop fusion, and off with it for comparison).
                    let before = match self.scenario.hop_fusion {
                        true => self.queue.peek_time().unwrap_or(SimTime::MAX),
                        false => now,
                    };
                    self.atm_mut().pipe_head(now, port, before);
                    self.schedule_atm();
                }
                Event::AtmCongestion(vc) => {
                    // A CI on an ACK VC or a CBR source's VC concerns no sender.
                    let (f, direction) = vc_ids::owner(vc);
                    let cbr = matches!(self.connections.ids.endpoint(f), Endpoint::Cbr(_));
                    if direction == VcDirection::Data && !cbr {
                        self.sender(f).on_congestion_indication(now);
                        self.flush(now, f, End::Sender);
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
                    self.record_inside_drops(now, link);
                }
                Event::SenderTimer(f) => self.wake_endpoint(now, f, End::Sender),
                Event::ReceiverTimer(f) => self.wake_endpoint(now, f, End::Receiver),
                Event::SlowTick(i) => {
                    let (period, members) = &self.slow_clocks[i];
                    let (period, members) = (*period, members.clone());
                    for f in members {
                        self.sender(f).on_slow_tick(now);
                        self.flush(now, f, End::Sender);
                    }
                    self.queue.schedule(now + period, Event::SlowTick(i));
                }
                Event::FastTick => {
                    for i in 0..self.fast_tick_flows.len() {
                        let f = self.fast_tick_flows[i];
                        self.receiver(f).on_fast_tick();
                        self.flush(now, f, End::Receiver);
                    }
                    self.queue.schedule(now + BSD_FAST_TICK, Event::FastTick);
                }
                Event::FlowStart(f) => {
                    let size = self.scenario.flows[f.index()].size_bytes;
                    self.sender(f).start(now, size);
                    self.flush(now, f, End::Sender);
                }
                Event::FlowStop(f) => self.connections.flows[f.index()].sender.stop(),
                Event::CbrEmit(i) => self.emit_cbr(now, i as usize),
                Event::TransferArrival(g) => self.start_transfer(now, g as usize),
                Event::MeasureStart => {
                    self.measurement.opened = Some(self.reading(now));
                    self.release_deferred(now);
                }
                Event::MeasureEnd => {
                    self.close_window(now);
                    self.release_deferred(now);
                }
                Event::Scheduled(i) => self.apply(now, i as usize),
                Event::LinkFlip(k) => self.flip_links(now, k as usize),
                Event::Sample => {
                    self.sample(now);
                    let interval = self.scenario.series_interval.expect("sampling is on");
                    self.queue.schedule(now + interval, Event::Sample);
                }
                // The window, unless closed already, closes with the run: `results` reads it.
                Event::End => break,
            }
        }
        ControlFlow::Continue(())
    }

    /// Every flow's name by flow id ([`Self::flow_name`]).
    fn flow_names(&self) -> Vec<String> {
        let flows = self.connections.ids.first_transfer() + self.connections.transfers.len();
        (0..flows)
            .map(|i| self.flow_name(FlowId(i as u32)))
            .collect()
    }

    /// The name of flow `f` in output tables: a declared flow's or CBR source's name, or
    /// `<group>#<k>` for the k-th transfer (from 0) of a transfer group.
    fn flow_name(&self, f: FlowId) -> String {
        let s = self.scenario;
        match self.connections.ids.endpoint(f) {
            Endpoint::Tcp(i) => s.flows[i].name.clone(),
            Endpoint::Cbr(i) => s.cbr[i].name.clone(),
            Endpoint::Transfer(k) => {
                let (group, _, k) = self.transfer_info[k];
                format!("{}#{k}", s.transfers[group as usize].name)
            }
        }
    }

    /// Samples the series: every declared flow, every link.
    fn sample(&mut self, now: SimTime) {
        let flows = (self.scenario.flows.iter().zip(&self.connections.flows))
            .map(|(spec, flow)| (spec.name.as_str(), &flow.sender, &flow.receiver));
        self.recorders.sample_flows(now, flows);
        (self.recorders).sample_links(now, self.scenario, &mut self.links, self.atm.as_ref());
    }

    /// Scheduled event `i`.
    fn apply(&mut self, now: SimTime, i: usize) {
        match self.scenario.events[i].change {
            NetworkChange::LinkDown(link) | NetworkChange::LinkUp(link) => {
                let event = &self.scenario.events[i];
                let up = matches!(event.change, NetworkChange::LinkUp(_));
                self.set_link_state(now, link, up, event.entry);
                self.reroute();
            }
            NetworkChange::LinkRate(link, rate) => self.links[link.index()].set_rate(rate),
            NetworkChange::LinkDelay(link, delay) => self.links[link.index()].set_delay(delay),
            NetworkChange::FlowStart(f) => {
                self.sender(f).start(now, None);
                self.flush(now, f, End::Sender);
            }
            NetworkChange::FlowStop(f) => self.connections.flows[f.index()].sender.stop(),
            NetworkChange::QueueLimit(link, limit) => {
                let set = self.links[link.index()].set_queue_limit(limit);
                debug_assert!(set, "the scenario refuses class-based queues");
            }
            NetworkChange::QueueParams(link, k) => build::reconfigure(
                self.links[link.index()].qdisc_mut(),
                self.scenario.links[link.index()].queue_change(k),
            ),
            NetworkChange::CbrRate(i, rate) => self.cbr[i].source.set_rate(now, rate),
            NetworkChange::LinkFailures { .. } => {
                let k = (self.failures.iter())
                    .position(|p| p.event == i)
                    .expect("a process per link_failures event");
                self.schedule_flip(now, k);
            }
        }
    }

    /// The next change of failure process `k` after `now`: a failure after an up time, a
    /// repair after a down time (at `until` at the latest, as ns-2's rtmodel brings a link up at
    /// its finish time); none once `until` has come.
    fn schedule_flip(&mut self, now: SimTime, k: usize) {
        let process = &mut self.failures[k];
        let NetworkChange::LinkFailures {
            up_mean,
            down_mean,
            until,
            ..
        } = self.scenario.events[process.event].change
        else {
            unreachable!("failure processes come from link_failures events")
        };
        let until = SimTime::ZERO + until;
        if now >= until {
            return;
        }
        let mean = if process.down { down_mean } else { up_mean };
        let next = now + OnOffLaw::Exponential.draw(mean, until.since(now), &mut process.rng);
        if process.down || next < until {
            self.queue
                .schedule(next.min(until), Event::LinkFlip(k as u32));
        }
    }

    /// Failure process `k` takes its links down, or brings them up, and draws its next change.
    fn flip_links(&mut self, now: SimTime, k: usize) {
        let process = &mut self.failures[k];
        process.down = !process.down;
        let (down, event) = (process.down, &self.scenario.events[process.event]);
        let NetworkChange::LinkFailures { link, reverse, .. } = event.change else {
            unreachable!("failure processes come from link_failures events")
        };
        for l in std::iter::once(link).chain(reverse) {
            self.set_link_state(now, l, !down, event.entry);
        }
        self.reroute();
        self.schedule_flip(now, k);
    }

    /// The `[[events]]` entry `event` takes `link` down (what it holds is lost) or brings it
    /// back up; the routes are the caller's to recompute.
    fn set_link_state(&mut self, now: SimTime, link: LinkId, up: bool, event: usize) {
        if up {
            self.links[link.index()].set_up();
        } else {
            self.links[link.index()].set_down(now);
            self.record_inside_drops(now, link);
        }
        let change = LinkChange {
            time: now,
            link,
            up,
            event,
        };
        self.link_changes.push(change);
    }

    /// Routes over the links that are up now.
    fn reroute(&mut self) {
        let up: Vec<bool> = self.links.iter().map(|l| !l.is_down()).collect();
        self.routing = self.routing.rerouted(self.scenario, &self.links, &up);
    }

    /// A timer wake-up of one end of connection `f` (stale ones find nothing due).
    fn wake_endpoint(&mut self, now: SimTime, f: FlowId, end: End) {
        let flow = self.connections.get_mut(f);
        let wakeup = match end {
            End::Sender => &mut flow.sender_wakeup,
            End::Receiver => &mut flow.receiver_wakeup,
        };
        if *wakeup == Some(now) {
            *wakeup = None;
        }
        match end {
            End::Sender => self.sender(f).on_timeout(now),
            End::Receiver => self.receiver(f).on_timeout(now),
        }
        self.flush(now, f, end);
    }
}

impl Simulation<'_> {
    /// Every windowed counter now.
    pub(super) fn reading(&self, now: SimTime) -> Reading {
        Reading {
            flows: self.flow_readings(),
            links: self.link_readings(now),
            cbr: self.cbr_readings(),
        }
    }

    /// Every declared flow's windowed counters now.
    pub(super) fn flow_readings(
        &self,
    ) -> Vec<(congsim_tcp::SenderStats, congsim_tcp::ReceiverStats)> {
        (self.connections.flows.iter())
            .map(|f| (f.sender.stats().clone(), f.receiver.stats().clone()))
            .collect()
    }

    /// Every link's windowed counters at `now` (an ATM link's read as zero).
    pub(super) fn link_readings(&self, now: SimTime) -> Vec<LinkReading> {
        (self.links.iter().zip(&self.scenario.links))
            .map(|(link, spec)| match spec.atm {
                Some(_) => LinkReading::default(),
                None => LinkReading::new(
                    link.stats_at(now),
                    link.class_stats().to_vec(),
                    link.flow_counts().cloned().unwrap_or_default(),
                ),
            })
            .collect()
    }

    /// Every CBR source's windowed counters now.
    pub(super) fn cbr_readings(&self) -> Vec<CbrReading> {
        (self.cbr.iter())
            .map(|c| CbrReading {
                packets_sent: c.next_seq,
                packets_delivered: c.packets_delivered,
                packets_dropped: c.packets_dropped,
                bytes_delivered: c.bytes_delivered,
            })
            .collect()
    }
}
