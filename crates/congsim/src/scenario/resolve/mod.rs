//! Semantic validation and resolution: names to ids, unit strings to quantities, TCP switches
//! merged over profiles, static shortest-path routes.

use super::ScenarioError;
use super::checks::{self, ScenarioWarning, Scripted};
use super::limits::{self, Limits};
use super::routes::{Hop, Routes};
use super::schema::*;
use crate::transfers::SizeLaw;
use congsim_atm::UbrPolicy;
use congsim_atm::abr::AbrParams;
use congsim_atm::erica::{AbrCapacity, CcrCap, EprcaConfig, EricaConfig, QueueControl};
use congsim_atm::network::AbrService;
use congsim_atm::port::SwitchConfig;
use congsim_atm::vbr::VbrConfig;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;
use congsim_core::wire::SackBlocks;
use congsim_core::{FlowId, LinkId, NodeId};
use congsim_ip::cbr::{CbrConfig, CbrPattern, CbrSchedule};
use congsim_ip::qdisc::{CBQ_PRIORITIES, CbqClassConfig, CbqConfig, LinkSharing, RedParams};
use congsim_ip::{LimitSemantics, QueueLimit, ScriptedAction};
use congsim_tcp::CongestionControl;
use congsim_tcp::config::{BcnReaction, CongestionEcho, MarkResponse, SackSender};
use congsim_tcp::config::{RenoFlavour, RtoBounds, TahoeResume};
use congsim_tcp::{AckPolicy, Profile, ReceiverConfig, SenderConfig, SeqMode, TimerMode, Variant};
use std::collections::{BTreeMap, BTreeSet};

mod atm;
mod queue;
mod tcp;
mod traffic;

use atm::{find_single_feeders, resolve_atm};
use queue::resolve_queue;
use tcp::resolve_tcp;
use traffic::{assign_classes, resolve_cbr, resolve_transfers};

/// ns-2 `Queue/CBQ set maxpkt_ 1024`.
const NS2_CBQ_MAX_PACKET_BYTES: u32 = 1024;
/// ns-2's default queue limit (`Queue set limit_ 50`).
const DEFAULT_QUEUE_LIMIT_PACKETS: u64 = 50;
/// ns-2 `Agent/TCPSink/DelAck set interval_ 100ms`.
const NS2_DELACK_INTERVAL: SimDuration = SimDuration::from_millis(100);

/// A link's output queue, resolved.
#[derive(Clone, Debug)]
pub enum QueueDiscipline {
    DropTail {
        limit: QueueLimit,
        semantics: LimitSemantics,
        drop_front: bool,
    },
    Red(RedParams),
    /// Strict priority: per class a packet limit (waiting packets); `class_of[flow id]` and
    /// the class of every flow not listed.
    Priority {
        limits: Vec<u64>,
        class_of: Vec<usize>,
        default_class: usize,
    },
    /// CBQ: the class tree (and the classes' names); `class_of` and `default_class` name
    /// leaves.
    Cbq {
        config: Box<CbqConfig>,
        names: Vec<String>,
        class_of: Vec<usize>,
        default_class: usize,
    },
}

impl QueueDiscipline {
    /// The discipline's name as scenario files write it (`queue.kind`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::DropTail { .. } => "droptail",
            Self::Red(_) => "red",
            Self::Priority { .. } => "priority",
            Self::Cbq { .. } => "cbq",
        }
    }
}

/// One unidirectional link, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedLink {
    /// `from->to`.
    pub name: String,
    /// Its entry in the file, `links[spec_index]` (a duplex entry makes two links).
    pub spec_index: usize,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimDuration,
    pub queue: QueueDiscipline,
    pub random_loss: f64,
    pub scripted: Vec<(FlowId, u64, ScriptedAction)>,
    /// Serve FIFO disciplines on the fast path (departure computed at enqueue). Always on from
    /// scenario files; tests turn it off to check that both paths agree.
    pub fifo_fast_path: bool,
    /// A capture records this link's transmissions.
    pub capture: bool,
    /// The one link that every flow path reaching this link comes through, if there is one
    /// (no path starts here and no other link feeds it). Offers to such a link arrive in the
    /// feeder's order, which is what hop fusion needs.
    pub single_feeder: Option<LinkId>,
    /// The cell port of an ATM link; `None` for an IP link.
    pub atm: Option<AtmPort>,
}

impl Hop for ResolvedLink {
    fn from(&self) -> NodeId {
        self.from
    }
    fn to(&self) -> NodeId {
        self.to
    }
}

/// An ATM link's output port, resolved (spec `atm.md` §3–6).
#[derive(Clone, Debug, PartialEq)]
pub struct AtmPort {
    /// `K` in cells; `None` for a host adapter's unbounded FIFO.
    pub capacity_cells: Option<u64>,
    pub policy: UbrPolicy,
    pub ppd_after_overflow: bool,
    /// The cells of one cell time draw for the last free place (deviation D25).
    pub random_contention: bool,
    /// The port of a host's adapter (a node where traffic starts or ends), not of a switch.
    pub host_adapter: bool,
    /// The ABR switch algorithm of a switch port on an ABR network.
    pub switch: Option<SwitchConfig>,
    /// A VBR source entering here.
    pub vbr: Option<VbrConfig>,
}

/// A packet capture, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedCapture {
    pub file: String,
    pub links: Vec<LinkId>,
    pub headers_only: bool,
}

/// One TCP flow, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedFlow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimDuration,
    /// Uniform random extra delay of the start, in `[0, start_jitter)`.
    pub start_jitter: SimDuration,
    pub stop: Option<SimDuration>,
    /// Bytes of a finite transfer; `None` for a persistent source.
    pub size_bytes: Option<u64>,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    /// Draw the ns-2 tick-clock phase at random (else zero).
    pub random_boot_phase: bool,
    pub variant_name: &'static str,
    pub profile_name: &'static str,
}

/// One CBR source, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedCbr {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// The schedule; its `phase` is replaced by a draw when `random_phase`.
    pub config: CbrConfig,
    /// Draw the grid origin uniformly in one interval (from the source's own stream).
    pub random_phase: bool,
}

/// A group of random transfers, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedTransfers {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub sizes: SizeLaw,
    pub arrivals_per_second: f64,
    pub start: SimDuration,
    pub stop: SimDuration,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    pub random_boot_phase: bool,
}

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub duration: SimDuration,
    pub seed: u64,
    pub replications: u32,
    pub measure_from: SimDuration,
    pub measure_until: SimDuration,
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
    pub flows: Vec<ResolvedFlow>,
    /// CBR sources; their flow ids follow the TCP flows' (`flows.len() + i`).
    pub cbr: Vec<ResolvedCbr>,
    /// Groups of random transfers; their connections take flow ids after the CBR sources', in
    /// order of arrival.
    pub transfers: Vec<ResolvedTransfers>,
    /// The link to forward on, per node and destination (with ECMP, per flow as well).
    pub routes: Routes,
    /// Equal-cost multipath (`[routing] ecmp`): `routes` keeps every shortest link.
    pub ecmp: bool,
    pub efficiency_max: Option<Rate>,
    pub series_interval: Option<SimDuration>,
    /// Offer packets ahead of time to links with a single feeder (an exact shortcut that saves
    /// one event per fused hop). On from scenario files; tests turn it off to compare.
    pub hop_fusion: bool,
    /// The order of simultaneous arrivals at a node.
    pub tie_order: TieOrder,
    /// The ABR service on an ABR network (every VC is then an ABR connection).
    pub atm_abr: Option<AbrService>,
    pub captures: Vec<ResolvedCapture>,
    pub tcp_events: bool,
    pub sequence_trace: bool,
    pub flow_monitor: bool,
    /// The file as parsed, for echoing the configuration next to results.
    pub source: ScenarioFile,
    /// Settings that are allowed but do nothing or defeat themselves.
    pub warnings: Vec<ScenarioWarning>,
}

struct Ctx<'a> {
    file: &'a str,
    limits: &'a Limits,
}

/// The longest name accepted, in characters.
const MAX_NAME_CHARS: usize = 256;

impl Ctx<'_> {
    /// A name (of the scenario, a node, a flow, a source or a class) must be printable text:
    /// names reach terminals, CSV files and file names, where control characters (escape
    /// sequences, NUL, line breaks) would do harm.
    fn plain_name(&self, path: &str, name: &str) -> Result<(), ScenarioError> {
        if name.trim().is_empty() {
            return Err(self.err(path, "a name must not be empty"));
        }
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(self.err(
                path,
                format!(
                    "a name must not contain control characters (found U+{:04X})",
                    u32::from(c)
                ),
            ));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(self.err(
                path,
                format!("a name must be at most {MAX_NAME_CHARS} characters"),
            ));
        }
        Ok(())
    }

    fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }
}

fn node_list(nodes: &BTreeMap<&str, NodeId>) -> String {
    let mut names: Vec<(&NodeId, &&str)> = nodes.iter().map(|(k, v)| (v, k)).collect();
    names.sort();
    checks::listing(names.iter().map(|(_, n)| **n))
}

impl Scenario {
    pub(super) fn resolve(file: ScenarioFile, label: &str) -> Result<Self, ScenarioError> {
        let limits = Limits::from_env()?;
        let file = super::topology::expand(file, label, &limits)?;
        let ctx = Ctx {
            file: label,
            limits: &limits,
        };
        let counted = |name: &str, count: usize, path: &str, what: &str| {
            limits.check(name, count as u64, label, path, || {
                format!("declares {} {what}", limits::grouped(count as u64))
            })
        };
        counted("nodes", file.nodes.len(), "nodes", "nodes")?;
        counted("links", file.links.len(), "links", "links")?;
        let duration = file.simulation.duration.value;
        if duration.is_zero() {
            return Err(ctx.err("simulation.duration", "must be greater than zero"));
        }
        if file.simulation.replications == 0 {
            return Err(ctx.err("simulation.replications", "must be at least 1"));
        }
        let measure_from = file
            .simulation
            .measure_from
            .as_ref()
            .map_or(SimDuration::ZERO, |d| d.value);
        let measure_until = file
            .simulation
            .measure_until
            .as_ref()
            .map_or(duration, |d| d.value);
        if measure_until > duration {
            return Err(ctx.err(
                "simulation.measure_until",
                "must not be after simulation.duration",
            ));
        }
        if measure_from >= measure_until {
            return Err(ctx.err(
                "simulation.measure_from",
                "must be before the end of the measurement window",
            ));
        }

        // Nodes.
        let mut nodes: BTreeMap<&str, NodeId> = BTreeMap::new();
        if file.nodes.is_empty() {
            return Err(ctx.err(
                "nodes",
                "declare at least two nodes, or a [topology] that makes them",
            ));
        }
        if let Some(name) = &file.name {
            ctx.plain_name("name", name)?;
        }
        for (i, name) in file.nodes.iter().enumerate() {
            ctx.plain_name(&format!("nodes[{i}]"), name)?;
            if nodes.insert(name.as_str(), NodeId(i as u32)).is_some() {
                return Err(ctx.err(
                    format!("nodes[{i}]"),
                    format!("duplicate node name \"{name}\""),
                ));
            }
        }
        let lookup = |path: String, name: &str| {
            nodes.get(name).copied().ok_or_else(|| {
                ctx.err(
                    path,
                    format!(
                        "unknown node \"{name}\"; declared nodes are: {}",
                        node_list(&nodes)
                    ),
                )
            })
        };

        // Links.
        let mut links: Vec<ResolvedLink> = Vec::new();
        let mut link_by_ends: BTreeMap<(NodeId, NodeId), LinkId> = BTreeMap::new();
        for (i, spec) in file.links.iter().enumerate() {
            let p = format!("links[{i}]");
            let from = lookup(format!("{p}.from"), &spec.from)?;
            let to = lookup(format!("{p}.to"), &spec.to)?;
            if from == to {
                return Err(ctx.err(format!("{p}.to"), "a link must join two different nodes"));
            }
            if !(0.0..1.0).contains(&spec.random_loss) {
                return Err(ctx.err(
                    format!("{p}.random_loss"),
                    "must be a probability in [0, 1)",
                ));
            }
            let queue = resolve_queue(&ctx, &p, spec)?;
            if spec.atm {
                let default_buffer = matches!(&spec.queue, QueueSpec::Droptail(q)
                    if q.limit_packets.is_none() && q.limit_bytes.is_none());
                if !default_buffer {
                    return Err(ctx.err(
                        format!("{p}.queue"),
                        "an ATM link's buffer is set for every switch in [atm] (buffer_cells, policy)",
                    ));
                }
                if spec.random_loss > 0.0 {
                    return Err(ctx.err(format!("{p}.random_loss"), "applies to IP links only"));
                }
            }
            let mut add = |from: NodeId, to: NodeId| -> Result<(), ScenarioError> {
                let id = LinkId(links.len() as u32);
                if link_by_ends.insert((from, to), id).is_some() {
                    return Err(ctx.err(
                        p.clone(),
                        format!(
                            "a link from \"{}\" to \"{}\" is declared twice (duplex links create both directions)",
                            file.nodes[from.index()],
                            file.nodes[to.index()]
                        ),
                    ));
                }
                links.push(ResolvedLink {
                    name: format!("{}->{}", file.nodes[from.index()], file.nodes[to.index()]),
                    spec_index: i,
                    from,
                    to,
                    rate: spec.rate.value,
                    delay: spec.delay.value,
                    queue: queue.clone(),
                    random_loss: spec.random_loss,
                    scripted: Vec::new(),
                    fifo_fast_path: true,
                    capture: false,
                    single_feeder: None,
                    // The port's policy depends on whether `from` is a host (resolve_atm).
                    atm: spec.atm.then_some(AtmPort {
                        capacity_cells: None,
                        policy: UbrPolicy::TailDrop,
                        ppd_after_overflow: false,
                        random_contention: false,
                        host_adapter: true,
                        switch: None,
                        vbr: None,
                    }),
                });
                Ok(())
            };
            add(from, to)?;
            if spec.duplex {
                add(to, from)?;
            }
        }

        // Routes towards every node traffic is addressed to (names not declared are reported
        // below, where the flow or source is checked).
        let endpoints = (file.flows.iter().map(|f| (&f.from, &f.to)))
            .chain(file.cbr.iter().map(|c| (&c.from, &c.to)))
            .chain(file.transfers.iter().map(|t| (&t.from, &t.to)))
            .flat_map(|(a, b)| [a, b])
            .filter_map(|name| nodes.get(name.as_str()).copied());
        let endpoints: BTreeSet<NodeId> = endpoints.collect();
        let ecmp = file.routing.ecmp.unwrap_or(false);
        if ecmp && let Some(i) = file.links.iter().position(|l| l.atm) {
            return Err(ctx.err(
                "routing.ecmp",
                format!("applies to IP networks only: links[{i}] is an ATM link, and an ATM VC follows one route (set ecmp = false)"),
            ));
        }
        let rows = Routes::rows_needed(file.nodes.len(), &links, endpoints.iter().copied(), ecmp);
        checks::route_entries(
            &limits,
            label,
            file.nodes.len(),
            endpoints.len(),
            rows as u64,
        )?;
        let routes = Routes::compute(file.nodes.len(), &links, endpoints, ecmp);

        // Flows.
        if file.flows.is_empty() && file.cbr.is_empty() && file.transfers.is_empty() {
            return Err(ctx.err(
                "flows",
                "declare at least one TCP flow ([[flows]]), CBR source ([[cbr]]) or transfer group ([[transfers]])",
            ));
        }
        let mut flows: Vec<ResolvedFlow> = Vec::new();
        let mut flow_ids: BTreeMap<String, Vec<FlowId>> = BTreeMap::new();
        let mut flow_names: BTreeSet<String> = BTreeSet::new();
        for (i, spec) in file.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            let src = lookup(format!("{p}.from"), &spec.from)?;
            let dst = lookup(format!("{p}.to"), &spec.to)?;
            if src == dst {
                return Err(ctx.err(format!("{p}.to"), "a flow must go to a different node"));
            }
            for (a, b) in [(src, dst), (dst, src)] {
                if routes.next_hop(a, b).is_none() {
                    return Err(ctx.err(
                        p.clone(),
                        format!(
                            "no route from \"{}\" to \"{}\" (data and ACKs both need a path; links are one-way when duplex = false)",
                            file.nodes[a.index()],
                            file.nodes[b.index()]
                        ),
                    ));
                }
            }
            let start = spec.start.as_ref().map_or(SimDuration::ZERO, |d| d.value);
            if start >= duration {
                return Err(ctx.err(format!("{p}.start"), "must be before simulation.duration"));
            }
            let start_jitter = spec
                .start_jitter
                .as_ref()
                .or(file.simulation.start_jitter.as_ref())
                .map_or(SimDuration::ZERO, |d| d.value);
            if start + start_jitter > duration {
                return Err(ctx.err(
                    format!("{p}.start_jitter"),
                    "start + start_jitter must not pass simulation.duration",
                ));
            }
            let stop = spec.stop.as_ref().map(|d| d.value);
            if stop.is_some_and(|s| s <= start + start_jitter) {
                return Err(ctx.err(
                    format!("{p}.stop"),
                    "must be after start (and start + start_jitter)",
                ));
            }
            let size_bytes = match &spec.size {
                Some(s) if s.value.0 == 0 => {
                    return Err(ctx.err(format!("{p}.size"), "must be greater than zero"));
                }
                Some(s) => Some(s.value.0),
                None => None,
            };
            let tcp = resolve_tcp(&ctx, &file.tcp, &spec.tcp, &p)?;
            if let Some(name) = &spec.name {
                ctx.plain_name(&format!("{p}.name"), name)?;
            }
            let base_name = spec.name.clone().unwrap_or_else(|| format!("flow{i}"));
            checks::flow_count(
                &limits,
                label,
                &format!("{p}.count"),
                flows.len() as u64 + u64::from(spec.count),
            )?;
            for k in 0..spec.count {
                let name = if spec.count == 1 {
                    base_name.clone()
                } else {
                    format!("{base_name}.{k}")
                };
                if !flow_names.insert(name.clone()) {
                    return Err(ctx.err(
                        format!("{p}.name"),
                        format!("duplicate flow name \"{name}\""),
                    ));
                }
                flow_ids
                    .entry(base_name.clone())
                    .or_default()
                    .push(FlowId(flows.len() as u32));
                if spec.count > 1 {
                    flow_ids
                        .entry(name.clone())
                        .or_default()
                        .push(FlowId(flows.len() as u32));
                }
                flows.push(ResolvedFlow {
                    name,
                    src,
                    dst,
                    start,
                    start_jitter,
                    stop,
                    size_bytes,
                    sender: tcp.sender.clone(),
                    receiver: tcp.receiver.clone(),
                    random_boot_phase: tcp.random_boot_phase,
                    variant_name: tcp.variant_name,
                    profile_name: tcp.profile_name,
                });
            }
        }

        let cbr = resolve_cbr(
            &ctx,
            &file,
            &lookup,
            &routes,
            duration,
            flows.len(),
            &mut flow_ids,
        )?;
        if flows.is_empty() && cbr.is_empty() && file.transfers.is_empty() {
            return Err(ctx.err(
                "flows",
                "every flow has count = 0: at least one flow, CBR source or transfer group must run",
            ));
        }
        assign_classes(&ctx, &file, &mut links, &flow_ids, flows.len() + cbr.len())?;
        let mut transfers = Vec::new();
        for (i, spec) in file.transfers.iter().enumerate() {
            transfers.push(resolve_transfers(
                &ctx, &file, spec, i, &lookup, &routes, duration,
            )?);
        }
        let one_way: Vec<(NodeId, NodeId)> = cbr
            .iter()
            .map(|c| (c.src, c.dst))
            .chain(
                transfers
                    .iter()
                    .flat_map(|t| [(t.src, t.dst), (t.dst, t.src)]),
            )
            .collect();
        find_single_feeders(&mut links, &routes, &flows, &one_way);
        let atm_abr = resolve_atm(&ctx, &file, &mut links, &routes, &flows, &cbr, &transfers)?;

        // Scripted drops and marks.
        let scripted = file
            .drops
            .iter()
            .enumerate()
            .map(|(i, d)| (format!("drops[{i}]"), d, ScriptedAction::Drop))
            .chain(
                file.marks
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (format!("marks[{i}]"), d, ScriptedAction::Mark)),
            );
        let mut scripted_entries = Vec::new();
        for (p, d, action) in scripted {
            let from = lookup(format!("{p}.from"), &d.from)?;
            let to = lookup(format!("{p}.to"), &d.to)?;
            let link = link_by_ends.get(&(from, to)).ok_or_else(|| {
                ctx.err(
                    p.clone(),
                    format!("there is no link from \"{}\" to \"{}\"", d.from, d.to),
                )
            })?;
            let ids = flow_ids.get(&d.flow).ok_or_else(|| {
                let known: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
                ctx.err(
                    format!("{p}.flow"),
                    format!(
                        "unknown flow \"{}\"; flows are: {}",
                        d.flow,
                        checks::listing(known)
                    ),
                )
            })?;
            if d.packet == 0 {
                return Err(ctx.err(format!("{p}.packet"), "packets are counted from 1"));
            }
            for &id in ids {
                links[link.index()].scripted.push((id, d.packet, action));
                scripted_entries.push(Scripted {
                    path: p.clone(),
                    link: *link,
                    flow: id,
                    packet: d.packet,
                    action,
                });
            }
        }

        let mut captures: Vec<ResolvedCapture> = Vec::new();
        for (i, c) in file.captures.iter().enumerate() {
            let p = format!("captures[{i}]");
            let plain = !c.file.is_empty()
                && !c.file.contains(['/', '\\'])
                && c.file != ".."
                && c.file.ends_with(".pcap");
            if !plain {
                return Err(ctx.err(
                    format!("{p}.file"),
                    "must be a file name ending in .pcap, without folders",
                ));
            }
            if captures.iter().any(|other| other.file == c.file) {
                return Err(ctx.err(
                    format!("{p}.file"),
                    format!("\"{}\" is written by another capture", c.file),
                ));
            }
            if c.links.is_empty() {
                return Err(ctx.err(
                    format!("{p}.links"),
                    "name at least one link, as \"from->to\"",
                ));
            }
            let mut ids = Vec::new();
            for (j, name) in c.links.iter().enumerate() {
                let id = links.iter().position(|l| &l.name == name).ok_or_else(|| {
                    let known: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
                    ctx.err(
                        format!("{p}.links[{j}]"),
                        format!(
                            "unknown link \"{name}\"; links are: {}",
                            checks::listing(known)
                        ),
                    )
                })?;
                links[id].capture = true;
                ids.push(LinkId(id as u32));
            }
            captures.push(ResolvedCapture {
                file: c.file.clone(),
                links: ids,
                headers_only: c.headers_only,
            });
        }

        let series_interval = file.metrics.series_interval.as_ref().map(|d| d.value);
        if series_interval.is_some_and(|d| d.is_zero()) {
            return Err(ctx.err("metrics.series_interval", "must be greater than zero"));
        }
        let mut scenario = Scenario {
            name: file.name.clone().unwrap_or_else(|| "scenario".to_string()),
            duration,
            seed: file.simulation.seed,
            replications: file.simulation.replications,
            measure_from,
            measure_until,
            nodes: file.nodes.clone(),
            links,
            flows,
            cbr,
            transfers,
            routes,
            ecmp,
            // The shortcuts take packets in scheduling order: off when ties go at random.
            hop_fusion: file.simulation.tie_order == TieOrder::Scheduled,
            tie_order: file.simulation.tie_order,
            atm_abr,
            captures,
            efficiency_max: file.metrics.efficiency_max_rate.as_ref().map(|r| r.value),
            series_interval,
            tcp_events: file.metrics.tcp_events,
            flow_monitor: file.metrics.flow_monitor,
            sequence_trace: file.metrics.sequence_trace,
            source: file,
            warnings: Vec::new(),
        };
        checks::limits(&scenario, &limits, label)?;
        scenario.warnings = checks::warnings(&scenario, &scripted_entries);
        Ok(scenario)
    }
}

impl Scenario {
    /// One line: nodes, links, TCP flows, and CBR sources and transfer groups when present.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} nodes, {} links, {} flows",
            self.nodes.len(),
            self.links.len(),
            self.flows.len()
        );
        if !self.cbr.is_empty() {
            text += &format!(", {} CBR sources", self.cbr.len());
        }
        if !self.transfers.is_empty() {
            text += &format!(", {} transfer groups", self.transfers.len());
        }
        text
    }
}
