//! Semantic validation and resolution: names to ids, unit strings to quantities, TCP switches
//! merged over profiles, static shortest-path routes.

use super::ScenarioError;
use super::checks::{self, ScenarioWarning, Scripted};
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
use congsim_tcp::config::{CongestionEcho, MarkResponse, SackSender};
use congsim_tcp::config::{RenoFlavour, RtoBounds, TahoeResume};
use congsim_tcp::{AckPolicy, Profile, ReceiverConfig, SenderConfig, SeqMode, TimerMode, Variant};
use std::collections::{BTreeMap, BTreeSet};

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
    /// The link to forward on, per node and destination.
    pub routes: Routes,
    pub efficiency_max: Option<Rate>,
    pub series_interval: Option<SimDuration>,
    /// Offer packets ahead of time to links with a single feeder (an exact shortcut that saves
    /// one event per fused hop). On from scenario files; tests turn it off to compare.
    pub hop_fusion: bool,
    /// The ABR service on an ABR network (every VC is then an ABR connection).
    pub atm_abr: Option<AbrService>,
    pub captures: Vec<ResolvedCapture>,
    pub tcp_events: bool,
    pub sequence_trace: bool,
    /// The file as parsed, for echoing the configuration next to results.
    pub source: ScenarioFile,
    /// Settings that are allowed but do nothing or defeat themselves.
    pub warnings: Vec<ScenarioWarning>,
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
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
        let ctx = Ctx { file: label };
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
            return Err(ctx.err("nodes", "declare at least two nodes"));
        }
        for (i, name) in file.nodes.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(ctx.err(format!("nodes[{i}]"), "a node name must not be empty"));
            }
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
                let q = &spec.queue;
                if q.kind != QueueKind::Droptail
                    || q.limit_packets.is_some()
                    || q.limit_bytes.is_some()
                {
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
        checks::route_entries(label, file.nodes.len(), endpoints.len())?;
        let routes = Routes::compute(file.nodes.len(), &links, endpoints);

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
            let base_name = spec.name.clone().unwrap_or_else(|| format!("flow{i}"));
            checks::flow_count(
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
            hop_fusion: true,
            atm_abr,
            captures,
            efficiency_max: file.metrics.efficiency_max_rate.as_ref().map(|r| r.value),
            series_interval,
            tcp_events: file.metrics.tcp_events,
            sequence_trace: file.metrics.sequence_trace,
            source: file,
            warnings: Vec::new(),
        };
        checks::limits(&scenario, label)?;
        scenario.warnings = checks::warnings(&scenario, &scripted_entries);
        Ok(scenario)
    }
}

/// One group of random transfers (`transfers[i]`).
fn resolve_transfers(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    spec: &TransferSpec,
    i: usize,
    lookup: &dyn Fn(String, &str) -> Result<NodeId, ScenarioError>,
    routes: &Routes,
    duration: SimDuration,
) -> Result<ResolvedTransfers, ScenarioError> {
    let p = format!("transfers[{i}]");
    let field = |name: &str| format!("{p}.{name}");
    let src = lookup(field("from"), &spec.from)?;
    let dst = lookup(field("to"), &spec.to)?;
    if src == dst {
        return Err(ctx.err(field("to"), "must differ from from"));
    }
    if routes.next_hop(src, dst).is_none() || routes.next_hop(dst, src).is_none() {
        return Err(ctx.err(
            p.clone(),
            format!(
                "no route between \"{}\" and \"{}\" (data and ACKs both need a path)",
                spec.from, spec.to
            ),
        ));
    }
    let max_bytes = spec
        .max_size
        .as_ref()
        .map_or(10.0 * 1024.0 * 1024.0, |s| s.value.0 as f64);
    if spec.max_size.is_some() && spec.sizes == SizeLawName::Exponential {
        return Err(ctx.err(field("max_size"), "applies to web and surge98 sizes"));
    }
    if spec.mean_size.is_some() && spec.sizes != SizeLawName::Exponential {
        return Err(ctx.err(
            field("mean_size"),
            "applies to sizes = \"exponential\" only",
        ));
    }
    let sizes = match spec.sizes {
        SizeLawName::Exponential => {
            let mean = spec.mean_size.as_ref().map_or(512 * 1024, |s| s.value.0);
            if mean == 0 {
                return Err(ctx.err(field("mean_size"), "must be greater than zero"));
            }
            SizeLaw::Exponential {
                mean_bytes: mean as f64,
            }
        }
        SizeLawName::Web => SizeLaw::seed002_web(max_bytes),
        SizeLawName::Surge98 => SizeLaw::surge98(max_bytes),
    };
    if sizes.kept_fraction() < 0.01 {
        return Err(ctx.err(
            field("max_size"),
            "is so small that fewer than 1 % of the size law's draws stay under it",
        ));
    }
    let arrivals_per_second = match (spec.arrivals_per_second, spec.load, &spec.capacity) {
        (Some(rate), None, None) if rate > 0.0 && rate.is_finite() => rate,
        (Some(_), None, None) => {
            return Err(ctx.err(field("arrivals_per_second"), "must be greater than zero"));
        }
        (None, Some(load), Some(capacity)) if load > 0.0 && load.is_finite() => {
            //= ip.md §5.6: lambda = rho · C / (8 · E[S])
            load * capacity.value.bps() as f64 / (8.0 * sizes.mean_bytes())
        }
        (None, Some(_), Some(_)) => return Err(ctx.err(field("load"), "must be greater than zero")),
        _ => {
            return Err(ctx.err(
                p.clone(),
                "give arrivals_per_second, or load together with capacity",
            ));
        }
    };
    let start = spec.start.as_ref().map_or(SimDuration::ZERO, |d| d.value);
    let stop = spec.stop.as_ref().map_or(duration, |d| d.value);
    if stop <= start || stop > duration {
        return Err(ctx.err(
            field("stop"),
            "must be after start and at most simulation.duration",
        ));
    }
    let tcp = resolve_tcp(ctx, &file.tcp, &spec.tcp, &p)?;
    Ok(ResolvedTransfers {
        name: spec.name.clone().unwrap_or_else(|| format!("transfers{i}")),
        src,
        dst,
        sizes,
        arrivals_per_second,
        start,
        stop,
        sender: tcp.sender,
        receiver: tcp.receiver,
        random_boot_phase: tcp.random_boot_phase,
    })
}

/// The interval between a CBR source's emissions: `per_slot` packets of `packet_bytes` at `rate`.
fn spec_rate_interval(rate: Rate, packet_bytes: u32, per_slot: u64) -> SimDuration {
    let bits = u128::from(packet_bytes) * 8 * u128::from(per_slot);
    SimDuration::from_ps((bits * 1_000_000_000_000).div_ceil(u128::from(rate.bps())) as u64)
}

/// Fills in each priority queue's classifier from the flow names of its classes.
fn assign_classes(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
    flow_ids: &BTreeMap<String, Vec<FlowId>>,
    total_flows: usize,
) -> Result<(), ScenarioError> {
    // Declared links in order; duplex ones produced two resolved links with the same spec.
    let mut resolved = links.iter_mut();
    for (i, spec) in file.links.iter().enumerate() {
        let directions = if spec.duplex { 2 } else { 1 };
        for _ in 0..directions {
            let link = resolved.next().expect("one resolved link per direction");
            let (class_of, default_class, leaves) = match &mut link.queue {
                QueueDiscipline::Priority {
                    limits,
                    class_of,
                    default_class,
                } => (class_of, default_class, (0..limits.len()).collect()),
                QueueDiscipline::Cbq {
                    config,
                    class_of,
                    default_class,
                    ..
                } => {
                    let leaves: Vec<usize> = (0..config.classes.len())
                        .filter(|&c| config.classes.iter().all(|k| k.parent != Some(c)))
                        .collect();
                    (class_of, default_class, leaves)
                }
                QueueDiscipline::DropTail { .. } | QueueDiscipline::Red(_) => continue,
            };
            let classes = spec.queue.classes.as_deref().unwrap_or_default();
            let unlisted: Vec<usize> = leaves
                .iter()
                .copied()
                .filter(|&c| classes[c].flows.is_none())
                .collect();
            if unlisted.len() > 1 {
                return Err(ctx.err(
                    format!("links[{i}].queue.classes[{}]", unlisted[1]),
                    "only one class may leave out flows (it takes every flow not listed)",
                ));
            }
            *default_class = unlisted
                .first()
                .or(leaves.last())
                .copied()
                .expect("a class queue has a leaf");
            *class_of = vec![*default_class; total_flows];
            let mut assigned = vec![false; total_flows];
            for (c, class) in classes.iter().enumerate() {
                for (k, name) in class.flows.iter().flatten().enumerate() {
                    let path = format!("links[{i}].queue.classes[{c}].flows[{k}]");
                    let ids = flow_ids.get(name).ok_or_else(|| {
                        let known: Vec<&str> = flow_ids.keys().map(String::as_str).collect();
                        ctx.err(
                            path.clone(),
                            format!(
                                "unknown flow \"{name}\"; flows are: {}",
                                checks::listing(known)
                            ),
                        )
                    })?;
                    for id in ids {
                        if std::mem::replace(&mut assigned[id.index()], true) {
                            return Err(ctx.err(
                                path.clone(),
                                format!("flow \"{name}\" is already in a class"),
                            ));
                        }
                        class_of[id.index()] = c;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The CBR sources (`cbr[i]`), with flow ids after the `tcp_flows` TCP flows.
fn resolve_cbr(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    lookup: &dyn Fn(String, &str) -> Result<NodeId, ScenarioError>,
    routes: &Routes,
    duration: SimDuration,
    tcp_flows: usize,
    flow_ids: &mut BTreeMap<String, Vec<FlowId>>,
) -> Result<Vec<ResolvedCbr>, ScenarioError> {
    let mut out: Vec<ResolvedCbr> = Vec::new();
    for (i, spec) in file.cbr.iter().enumerate() {
        let p = format!("cbr[{i}]");
        let src = lookup(format!("{p}.from"), &spec.from)?;
        let dst = lookup(format!("{p}.to"), &spec.to)?;
        if src == dst {
            return Err(ctx.err(format!("{p}.to"), "must differ from from"));
        }
        if routes.next_hop(src, dst).is_none() {
            return Err(ctx.err(
                p.clone(),
                format!("no route from \"{}\" to \"{}\"", spec.from, spec.to),
            ));
        }
        let packet_bytes = match &spec.packet_size {
            Some(s) => u32::try_from(s.value.0)
                .ok()
                .filter(|&b| (1..=65_535).contains(&b))
                .ok_or_else(|| {
                    ctx.err(format!("{p}.packet_size"), "must be between 1B and 65535B")
                })?,
            None => 500,
        };
        let pattern = match spec.pattern.unwrap_or(CbrPatternName::Shaped) {
            CbrPatternName::Shaped => CbrPattern::Shaped,
            CbrPatternName::Fluctuation => CbrPattern::Fluctuation,
            CbrPatternName::Burst => CbrPattern::Burst {
                packets: match spec.burst_packets {
                    Some(0) => {
                        return Err(ctx.err(format!("{p}.burst_packets"), "must be at least 1"));
                    }
                    other => other.unwrap_or(15),
                },
            },
        };
        if spec.burst_packets.is_some() && !matches!(pattern, CbrPattern::Burst { .. }) {
            return Err(ctx.err(
                format!("{p}.burst_packets"),
                "applies to pattern = \"burst\" only",
            ));
        }
        let mut on = Vec::new();
        for (k, [start, stop]) in spec.on.iter().flatten().enumerate() {
            let (start, stop) = (start.value, stop.value);
            if stop <= start || stop > duration {
                return Err(ctx.err(
                    format!("{p}.on[{k}]"),
                    "must be [start, stop] with start < stop <= simulation.duration",
                ));
            }
            if on
                .last()
                .is_some_and(|&(_, prev): &(SimTime, SimTime)| SimTime::ZERO + start < prev)
            {
                return Err(ctx.err(
                    format!("{p}.on[{k}]"),
                    "on periods must be in time order and must not overlap",
                ));
            }
            on.push((SimTime::ZERO + start, SimTime::ZERO + stop));
        }
        let schedule = match (&spec.on, &spec.square_wave) {
            (Some(_), Some(_)) => {
                return Err(ctx.err(p.clone(), "give on or square_wave, not both"));
            }
            (Some(_), None) => CbrSchedule::Periods(on),
            (None, Some(wave)) => {
                if wave.on.value.is_zero() || wave.off.value.is_zero() {
                    return Err(ctx.err(
                        format!("{p}.square_wave"),
                        "on and off must be greater than zero",
                    ));
                }
                // Every on period must hold a slot of the grid, or the source would never send.
                let per_slot = match pattern {
                    CbrPattern::Burst { packets } => u64::from(packets),
                    CbrPattern::Shaped | CbrPattern::Fluctuation => 1,
                };
                let slot = spec_rate_interval(spec.rate.value, packet_bytes, per_slot);
                if wave.on.value < slot {
                    return Err(ctx.err(
                        format!("{p}.square_wave.on"),
                        format!(
                            "must be at least one sending interval ({} s at this rate and size)",
                            slot.as_secs_f64()
                        ),
                    ));
                }
                CbrSchedule::SquareWave {
                    start: SimTime::ZERO
                        + wave.start.as_ref().map_or(SimDuration::ZERO, |d| d.value),
                    on: wave.on.value,
                    off: wave.off.value,
                }
            }
            (None, None) => CbrSchedule::Always,
        };
        if spec.count == 0 {
            return Err(ctx.err(format!("{p}.count"), "must be at least 1"));
        }
        let base_name = spec.name.clone().unwrap_or_else(|| format!("cbr{i}"));
        checks::flow_count(
            ctx.file,
            &format!("{p}.count"),
            (tcp_flows + out.len()) as u64 + u64::from(spec.count),
        )?;
        for k in 0..spec.count {
            let name = if spec.count == 1 {
                base_name.clone()
            } else {
                format!("{base_name}.{k}")
            };
            if flow_ids.contains_key(&name) {
                return Err(ctx.err(
                    format!("{p}.name"),
                    format!("duplicate flow name \"{name}\""),
                ));
            }
            let id = FlowId((tcp_flows + out.len()) as u32);
            flow_ids.entry(base_name.clone()).or_default().push(id);
            if spec.count > 1 {
                flow_ids.entry(name.clone()).or_default().push(id);
            }
            out.push(ResolvedCbr {
                name,
                src,
                dst,
                config: CbrConfig {
                    packet_bytes,
                    rate: spec.rate.value,
                    pattern,
                    phase: SimDuration::ZERO,
                    schedule: schedule.clone(),
                },
                random_phase: spec.phase.unwrap_or(BootPhaseName::Random) == BootPhaseName::Random,
            });
        }
    }
    Ok(out)
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

/// Where packets entering a link come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Feeder {
    /// An agent at the link's tail node (the path starts there).
    Host,
    Link(LinkId),
}

/// Configures the ATM links' ports from `[atm]` (switches) or as host adapters, places the VBR
/// sources, and checks that every path is all ATM or all IP: an IP router between ATM switches
/// is not modelled. Returns the ABR sources' parameters on an ABR network.
fn resolve_atm(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
    routes: &Routes,
    flows: &[ResolvedFlow],
    cbr: &[ResolvedCbr],
    transfers: &[ResolvedTransfers],
) -> Result<Option<AbrService>, ScenarioError> {
    let any_atm = links.iter().any(|l| l.atm.is_some());
    let spec = match (&file.atm, any_atm) {
        (Some(_), false) => {
            return Err(ctx.err("atm", "no link is an ATM link (atm = true)"));
        }
        (_, false) if !file.vbr.is_empty() => {
            return Err(ctx.err("vbr[0]", "VBR sources need ATM links (atm = true)"));
        }
        (_, false) => return Ok(None),
        (spec, true) => spec.clone().unwrap_or_default(),
    };
    let abr = spec.service == Some(AtmServiceName::Abr);
    if !abr {
        let abr_only = [
            ("switch", spec.switch.is_some()),
            ("erica", spec.erica.is_some()),
            ("eprca", spec.eprca.is_some()),
            ("abr", spec.abr.is_some()),
            ("uni_buffer", spec.uni_buffer.is_some()),
        ];
        only_for(
            ctx,
            |name| format!("atm.{name}"),
            &abr_only,
            "service = \"abr\"",
        )?;
    }
    let fraction = |name: &str, value: Option<f64>, default: f64| match value {
        None => Ok(default),
        Some(v) if v > 0.0 && v <= 1.0 => Ok(v),
        Some(_) => Err(ctx.err(format!("atm.{name}"), "must be in (0, 1]")),
    };
    let threshold = fraction("threshold", spec.threshold, 0.9)?;
    let z = match spec.z {
        None => 0.8,
        Some(z) if z > 0.0 && z.is_finite() => z,
        Some(_) => return Err(ctx.err("atm.z", "must be a positive number")),
    };
    let policy = match spec.policy.unwrap_or(UbrPolicyName::TailDrop) {
        UbrPolicyName::TailDrop => UbrPolicy::TailDrop,
        UbrPolicyName::Epd => UbrPolicy::Epd { threshold },
        UbrPolicyName::SelectiveDrop => UbrPolicy::SelectiveDrop { threshold, z },
        UbrPolicyName::Fba => UbrPolicy::Fba { threshold, z },
    };
    if spec.buffer_cells == Some(0) {
        return Err(ctx.err("atm.buffer_cells", "must be at least 1"));
    }
    let switch = AtmPort {
        switch: None,
        vbr: None,
        capacity_cells: spec.buffer_cells,
        policy,
        ppd_after_overflow: spec
            .ppd_after_overflow
            .unwrap_or(policy.default_ppd_after_overflow()),
        random_contention: spec.contention != Some(ContentionName::ArrivalOrder),
        host_adapter: false,
    };
    // (field path, what to call the traffic, from, to) of every path traffic takes.
    let mut paths: Vec<(String, String, NodeId, NodeId)> = Vec::new();
    for f in flows {
        let label = format!("flow \"{}\"", f.name);
        paths.push(("flows".into(), label.clone(), f.src, f.dst));
        paths.push(("flows".into(), label, f.dst, f.src));
    }
    for (i, c) in cbr.iter().enumerate() {
        paths.push((format!("cbr[{i}]"), "CBR source".into(), c.src, c.dst));
    }
    for (i, t) in transfers.iter().enumerate() {
        let field = format!("transfers[{i}]");
        paths.push((field.clone(), "transfers".into(), t.src, t.dst));
        paths.push((field, "transfers".into(), t.dst, t.src));
    }
    let hosts: BTreeSet<NodeId> = paths.iter().map(|p| p.2).collect();
    for (field, label, from, to) in &paths {
        let (mut node, mut kinds) = (*from, BTreeSet::new());
        while node != *to {
            let link = routes.next_hop(node, *to).expect("routes were validated");
            kinds.insert(links[link.index()].atm.is_some());
            node = links[link.index()].to;
        }
        if kinds.len() > 1 {
            return Err(ctx.err(
                field.clone(),
                format!(
                    "{label}: the path from \"{}\" to \"{}\" mixes ATM and IP links; an ATM path runs from host to host",
                    file.nodes[from.index()],
                    file.nodes[to.index()]
                ),
            ));
        }
    }
    let switch_name = spec.switch.unwrap_or(SwitchName::ModifiedErica);
    let erica = spec.erica.clone().unwrap_or_default();
    let eprca = spec.eprca.clone().unwrap_or_default();
    let algorithm_only: &[(&str, bool)] = match switch_name {
        SwitchName::Eprca => &[("erica", spec.erica.is_some())],
        _ => &[("eprca", spec.eprca.is_some())],
    };
    if let Some((name, _)) = algorithm_only.iter().find(|(_, given)| *given) {
        return Err(ctx.err(
            format!("atm.{name}"),
            format!(
                "does not apply to switch = \"{}\"",
                switch_text(switch_name)
            ),
        ));
    }
    let queue_only = [
        ("target_delay", erica.target_delay.is_some()),
        ("k_under", erica.k_under.is_some()),
        ("k_over", erica.k_over.is_some()),
        ("qdlf", erica.qdlf.is_some()),
    ];
    if switch_name != SwitchName::EricaPlus {
        only_for(
            ctx,
            |name| format!("atm.erica.{name}"),
            &queue_only,
            "switch = \"erica_plus\"",
        )?;
    }
    for (name, value) in [
        ("target", erica.target),
        ("decay", erica.decay),
        ("qdlf", erica.qdlf),
    ] {
        if value.is_some_and(|v| !(v > 0.0 && v <= 1.0)) {
            return Err(ctx.err(format!("atm.erica.{name}"), "must be in (0, 1]"));
        }
    }
    if erica.delta.is_some_and(|d| !(d >= 0.0 && d.is_finite())) {
        return Err(ctx.err("atm.erica.delta", "must be 0 or more"));
    }
    if erica.interval_cells == Some(0) {
        return Err(ctx.err("atm.erica.interval_cells", "must be at least 1"));
    }
    if erica.interval.as_ref().is_some_and(|d| d.value.is_zero()) {
        return Err(ctx.err("atm.erica.interval", "must be longer than 0"));
    }
    for (name, value) in [("k_under", erica.k_under), ("k_over", erica.k_over)] {
        if value.is_some_and(|k| !(k > 1.0 && k.is_finite())) {
            return Err(ctx.err(format!("atm.erica.{name}"), "must be above 1"));
        }
    }
    if let Some(a) = eprca.alpha
        && !(a > 0.0 && a <= 1.0)
    {
        return Err(ctx.err("atm.eprca.alpha", "must be in (0, 1]"));
    }
    let switch_config = |rate: Rate| -> SwitchConfig {
        let capacity = rate.bps() as f64 / f64::from(CELL_BITS);
        if switch_name == SwitchName::Eprca {
            return SwitchConfig::Eprca(EprcaConfig {
                alpha: eprca.alpha.unwrap_or(1.0 / 16.0),
                dpf: eprca.dpf.unwrap_or(1.0),
                queue_threshold: eprca.queue_threshold.unwrap_or(500),
                very_congested_threshold: eprca.very_congested_threshold.unwrap_or(2000),
            });
        }
        let base = match switch_name {
            SwitchName::Erica => EricaConfig::basic(capacity),
            SwitchName::EricaPlus => EricaConfig::plus(capacity),
            SwitchName::ModifiedErica | SwitchName::Eprca => EricaConfig::modified(capacity),
        };
        SwitchConfig::Erica(EricaConfig {
            target: erica.target.unwrap_or(base.target),
            interval_cells: erica.interval_cells.unwrap_or(base.interval_cells),
            interval: erica.interval.as_ref().map_or(base.interval, |d| d.value),
            delta: erica.delta.unwrap_or(base.delta),
            decay: erica.decay.unwrap_or(base.decay),
            abr_capacity: match erica.capacity {
                None | Some(AbrCapacityName::TargetOfLinkMinusVbr) => {
                    AbrCapacity::TargetOfLinkMinusVbr
                }
                Some(AbrCapacityName::TargetLinkMinusVbr) => AbrCapacity::TargetLinkMinusVbr,
            },
            measured_ccr: erica.measured_ccr.unwrap_or(false),
            ccr_cap: match erica.ccr_cap {
                None => base.ccr_cap,
                Some(CcrCapName::Never) => CcrCap::Never,
                Some(CcrCapName::WhenStale) => CcrCap::WhenStale,
                Some(CcrCapName::Always) => CcrCap::Always,
            },
            queue_control: base.queue_control.map(|qc| QueueControl {
                target_delay: erica
                    .target_delay
                    .as_ref()
                    .map_or(qc.target_delay, |d| d.value),
                k_under: erica.k_under.unwrap_or(qc.k_under),
                k_over: erica.k_over.unwrap_or(qc.k_over),
                qdlf: erica.qdlf.unwrap_or(qc.qdlf),
            }),
            ..base
        })
    };
    // An AAL5 frame carries at most 65535 bytes (and its cells are numbered in 16 bits).
    let on_atm = |from: NodeId, to: NodeId| {
        routes
            .next_hop(from, to)
            .is_some_and(|l| links[l.index()].atm.is_some())
    };
    for f in flows.iter().filter(|f| on_atm(f.src, f.dst)) {
        if f.sender.mss + f.sender.header_bytes > AAL5_MAX_SDU_BYTES {
            return Err(ctx.err(
                "tcp.packet_size",
                format!(
                    "flow \"{}\" runs over ATM: a segment with its headers must fit one AAL5 frame (at most {AAL5_MAX_SDU_BYTES} bytes)",
                    f.name
                ),
            ));
        }
    }
    for c in cbr.iter().filter(|c| on_atm(c.src, c.dst)) {
        if c.config.packet_bytes > AAL5_MAX_SDU_BYTES {
            return Err(ctx.err(
                "cbr",
                format!(
                    "CBR source \"{}\" runs over ATM: a packet must fit one AAL5 frame (at most {AAL5_MAX_SDU_BYTES} bytes)",
                    c.name
                ),
            ));
        }
    }
    for link in links.iter_mut() {
        let rate = link.rate;
        if let Some(port) = &mut link.atm
            && !hosts.contains(&link.from)
        {
            *port = AtmPort {
                switch: abr.then(|| switch_config(rate)),
                ..switch.clone()
            };
        }
    }
    for (i, v) in file.vbr.iter().enumerate() {
        let p = format!("vbr[{i}]");
        let position = |name: &str, field: &str| {
            file.nodes
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| ctx.err(format!("{p}.{field}"), format!("unknown node \"{name}\"")))
        };
        let (from, to) = (position(&v.from, "from")?, position(&v.to, "to")?);
        let link = links
            .iter_mut()
            .find(|l| l.from.index() == from && l.to.index() == to && l.atm.is_some())
            .ok_or_else(|| {
                ctx.err(
                    p.clone(),
                    format!("there is no ATM link from \"{}\" to \"{}\"", v.from, v.to),
                )
            })?;
        if hosts.contains(&link.from) {
            return Err(ctx.err(
                format!("{p}.from"),
                "a VBR source enters at a switch port, not at a host",
            ));
        }
        let link_rate = link.rate.bps() as f64;
        let rate = v
            .rate
            .as_ref()
            .map_or(0.8 * link_rate, |r| r.value.bps() as f64);
        if rate > link_rate {
            return Err(ctx.err(format!("{p}.rate"), "must not exceed the link's rate"));
        }
        if v.on.value.is_zero() {
            return Err(ctx.err(format!("{p}.on"), "must be longer than 0"));
        }
        let port = link.atm.as_mut().expect("an ATM link");
        if port.vbr.is_some() {
            return Err(ctx.err(p.clone(), "that port already has a VBR source"));
        }
        port.vbr = Some(VbrConfig {
            rate: rate / f64::from(CELL_BITS),
            on: v.on.value,
            off: v.off.value,
            start: SimTime::ZERO
                + v.start
                    .as_ref()
                    .map_or(SimDuration::from_millis(2), |d| d.value),
        });
    }
    if !abr {
        return Ok(None);
    }
    let a = spec.abr.clone().unwrap_or_default();
    let fastest = links
        .iter()
        .filter(|l| l.atm.is_some())
        .map(|l| l.rate.bps())
        .max()
        .expect("an ATM link");
    let cells = |r: &Option<super::units::RateText>, default_bps: f64| {
        r.as_ref().map_or(default_bps, |r| r.value.bps() as f64) / f64::from(CELL_BITS)
    };
    let defaults = AbrParams::seed001(fastest as f64 / f64::from(CELL_BITS));
    let nrm = a.nrm.unwrap_or(defaults.nrm);
    if nrm < 2 {
        return Err(ctx.err("atm.abr.nrm", "must be at least 2"));
    }
    for (name, value) in [("rif", a.rif), ("rdf", a.rdf), ("cdf", a.cdf)] {
        if value.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
            return Err(ctx.err(format!("atm.abr.{name}"), "must be in [0, 1]"));
        }
    }
    let params = AbrParams {
        pcr: cells(&a.pcr, fastest as f64),
        mcr: cells(&a.mcr, 0.0),
        icr: cells(&a.icr, 10e6),
        nrm,
        trm: a.trm.as_ref().map_or(defaults.trm, |d| d.value),
        rif: a.rif.unwrap_or(defaults.rif),
        rdf: a.rdf.unwrap_or(defaults.rdf),
        adtf: a.adtf.as_ref().map_or(defaults.adtf, |d| d.value),
        crm: a.tbe.unwrap_or(512).div_ceil(nrm),
        cdf: a.cdf.unwrap_or(defaults.cdf),
        ..defaults
    };
    if params.mcr > params.pcr || params.icr > params.pcr {
        return Err(ctx.err("atm.abr", "needs mcr <= pcr and icr <= pcr"));
    }
    Ok(Some(AbrService {
        params,
        uni_buffer_bytes: spec.uni_buffer.as_ref().map(|b| b.value.0),
    }))
}

/// The largest AAL5 CPCS-PDU payload.
const AAL5_MAX_SDU_BYTES: u32 = 65535;
/// Bits of one cell on the wire.
const CELL_BITS: u32 = congsim_atm::CELL_BYTES * 8;

fn switch_text(name: SwitchName) -> &'static str {
    match name {
        SwitchName::Erica => "erica",
        SwitchName::ModifiedErica => "modified_erica",
        SwitchName::EricaPlus => "erica_plus",
        SwitchName::Eprca => "eprca",
    }
}

/// Marks each link whose every path (TCP data and ACKs, and the one-way paths of UDP sources)
/// arrives through the same upstream link.
fn find_single_feeders(
    links: &mut [ResolvedLink],
    routes: &Routes,
    flows: &[ResolvedFlow],
    one_way: &[(NodeId, NodeId)],
) {
    let mut feeders: Vec<Vec<Feeder>> = vec![Vec::new(); links.len()];
    let tcp_paths = flows.iter().flat_map(|f| [(f.src, f.dst), (f.dst, f.src)]);
    for (from, to) in tcp_paths.chain(one_way.iter().copied()) {
        {
            let (mut node, mut feeder) = (from, Feeder::Host);
            while node != to {
                let link = routes.next_hop(node, to).expect("routes were validated");
                if !feeders[link.index()].contains(&feeder) {
                    feeders[link.index()].push(feeder);
                }
                feeder = Feeder::Link(link);
                node = links[link.index()].to;
            }
        }
    }
    for (link, fed_by) in links.iter_mut().zip(&feeders) {
        link.single_feeder = match fed_by.as_slice() {
            [Feeder::Link(u)] => Some(*u),
            _ => None,
        };
    }
}

/// A CBQ queue (`p.queue`, kind = "cbq"): the class tree, checked to be one tree with leaves
/// that own queues.
fn resolve_cbq(ctx: &Ctx<'_>, p: &str, spec: &LinkSpec) -> Result<QueueDiscipline, ScenarioError> {
    let q = &spec.queue;
    let field = |name: &str| format!("{p}.queue.{name}");
    no_queue_limit(
        ctx,
        field,
        q,
        "a CBQ queue's limits are per leaf class (classes[i].limit_packets)",
    )?;
    let classes = q
        .classes
        .as_ref()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            ctx.err(
                field("classes"),
                "give the class tree: a root with an allot and the classes under it",
            )
        })?;
    let class_field = |i: usize, name: &str| field(&format!("classes[{i}].{name}"));
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, class) in classes.iter().enumerate() {
        let name = class
            .name
            .as_deref()
            .ok_or_else(|| ctx.err(class_field(i, "name"), "a CBQ class needs a name"))?;
        if names.insert(name, i).is_some() {
            return Err(ctx.err(
                class_field(i, "name"),
                format!("class \"{name}\" is named twice"),
            ));
        }
    }
    let mut parents = Vec::new();
    for (i, class) in classes.iter().enumerate() {
        parents.push(match &class.parent {
            None => None,
            Some(parent) => Some(*names.get(parent.as_str()).ok_or_else(|| {
                let known: Vec<&str> = names.keys().copied().collect();
                ctx.err(
                    class_field(i, "parent"),
                    format!(
                        "unknown class \"{parent}\"; classes are: {}",
                        checks::listing(known)
                    ),
                )
            })?),
        });
    }
    let roots: Vec<usize> = (0..classes.len())
        .filter(|&c| parents[c].is_none())
        .collect();
    if roots.len() != 1 {
        let at = roots.get(1).copied().unwrap_or(0);
        return Err(ctx.err(
            class_field(at, "parent"),
            "exactly one class (the root) has no parent",
        ));
    }
    for start in 0..classes.len() {
        let (mut at, mut steps) = (parents[start], 0);
        while let Some(c) = at {
            steps += 1;
            if steps > classes.len() {
                return Err(ctx.err(class_field(start, "parent"), "the parents form a cycle"));
            }
            at = parents[c];
        }
    }
    let mut configs = Vec::new();
    for (i, class) in classes.iter().enumerate() {
        let is_leaf = !parents.contains(&Some(i));
        let allot = class.allot.ok_or_else(|| {
            ctx.err(
                class_field(i, "allot"),
                "a CBQ class needs an allot in (0, 1]",
            )
        })?;
        if !(allot > 0.0 && allot <= 1.0) {
            return Err(ctx.err(class_field(i, "allot"), "must be in (0, 1]"));
        }
        let priority = class.priority.unwrap_or(0);
        if priority >= CBQ_PRIORITIES {
            return Err(ctx.err(
                class_field(i, "priority"),
                format!("must be 0 (highest) to {}", CBQ_PRIORITIES - 1),
            ));
        }
        if !is_leaf && (class.flows.is_some() || class.limit_packets.is_some()) {
            let name = if class.flows.is_some() {
                "flows"
            } else {
                "limit_packets"
            };
            return Err(ctx.err(
                class_field(i, name),
                "only leaf classes (those no class names as parent) hold packets",
            ));
        }
        let limit_packets = match class.limit_packets {
            Some(0) => return Err(ctx.err(class_field(i, "limit_packets"), "must be at least 1")),
            limit => limit.unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS),
        };
        configs.push(CbqClassConfig {
            parent: parents[i],
            allot,
            priority,
            borrow: class.borrow.unwrap_or(true),
            max_idle: class.max_idle.as_ref().map(|d| d.value),
            extra_delay: class
                .extra_delay
                .as_ref()
                .map_or(SimDuration::ZERO, |d| d.value),
            limit_packets,
        });
    }
    let max_packet_bytes = match &q.max_packet_size {
        None => NS2_CBQ_MAX_PACKET_BYTES,
        Some(size) => u32::try_from(size.value.0)
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| ctx.err(field("max_packet_size"), "must be 1B to 4GB"))?,
    };
    Ok(QueueDiscipline::Cbq {
        names: classes
            .iter()
            .map(|c| c.name.clone().unwrap_or_default())
            .collect(),
        config: Box::new(CbqConfig {
            link_rate: spec.rate.value,
            link_sharing: match q.link_sharing {
                None | Some(LinkSharingName::AncestorOnly) => LinkSharing::AncestorOnly,
                Some(LinkSharingName::TopLevel) => LinkSharing::TopLevel,
                Some(LinkSharingName::Formal) => LinkSharing::Formal,
            },
            weighted_round_robin: q.weighted_round_robin.unwrap_or(false),
            max_packet_bytes,
            ns2_fallback: q.cbq_ns2_fallback.unwrap_or(true),
            classes: configs,
        }),
        // Flows are assigned to leaves once they are known (assign_classes).
        class_of: Vec::new(),
        default_class: 0,
    })
}

/// A class-based queue takes its limits per class: `message` if the queue has one of its own.
fn no_queue_limit(
    ctx: &Ctx<'_>,
    field: impl Fn(&str) -> String,
    q: &QueueSpec,
    message: &str,
) -> Result<(), ScenarioError> {
    let given = [
        ("limit_packets", q.limit_packets.is_some()),
        ("limit_bytes", q.limit_bytes.is_some()),
    ];
    match given.iter().find(|(_, present)| *present) {
        Some((name, _)) => Err(ctx.err(field(name), message)),
        None => Ok(()),
    }
}

/// An error for the first setting in `given` that is present: it applies to `what` only.
fn only_for(
    ctx: &Ctx<'_>,
    field: impl Fn(&str) -> String,
    given: &[(&str, bool)],
    what: &str,
) -> Result<(), ScenarioError> {
    match given.iter().find(|(_, present)| *present) {
        Some((name, _)) => Err(ctx.err(field(name), format!("applies to {what} only"))),
        None => Ok(()),
    }
}

/// The output queue of link `p` (`links[i]`).
fn resolve_queue(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &LinkSpec,
) -> Result<QueueDiscipline, ScenarioError> {
    let q = &spec.queue;
    let field = |name: &str| format!("{p}.queue.{name}");
    let limit_packets = match q.limit_packets {
        Some(0) => return Err(ctx.err(field("limit_packets"), "must be at least 1")),
        other => other,
    };
    let red_only = [
        ("min_th", q.min_th.is_some()),
        ("max_th", q.max_th.is_some()),
        ("w_q", q.w_q.is_some()),
        ("max_p", q.max_p.is_some()),
        ("mean_packet_size", q.mean_packet_size.is_some()),
        ("wait", q.wait.is_some()),
        ("r_over_pb", q.r_over_pb.is_some()),
        ("gentle", q.gentle.is_some()),
        ("bytes", q.bytes.is_some()),
        ("queue_in_bytes", q.queue_in_bytes.is_some()),
        ("ecn_marking", q.ecn_marking.is_some()),
        ("mark_above_max_th", q.mark_above_max_th.is_some()),
        ("ns2_quirks", q.ns2_quirks.is_some()),
    ];
    if q.kind != QueueKind::Red {
        only_for(ctx, field, &red_only, "kind = \"red\"")?;
    }
    if q.kind != QueueKind::Droptail && (q.drop_front || q.semantics != LimitSemanticsName::Ns2) {
        let name = if q.drop_front {
            "drop_front"
        } else {
            "semantics"
        };
        return Err(ctx.err(field(name), "applies to kind = \"droptail\" only"));
    }
    let cbq_only = [
        ("link_sharing", q.link_sharing.is_some()),
        ("weighted_round_robin", q.weighted_round_robin.is_some()),
        ("max_packet_size", q.max_packet_size.is_some()),
        ("cbq_ns2_fallback", q.cbq_ns2_fallback.is_some()),
    ];
    if q.kind != QueueKind::Cbq {
        only_for(ctx, field, &cbq_only, "kind = \"cbq\"")?;
    }
    if !matches!(q.kind, QueueKind::Priority | QueueKind::Cbq) && q.classes.is_some() {
        return Err(ctx.err(
            field("classes"),
            "applies to kind = \"priority\" or \"cbq\" only",
        ));
    }
    if q.kind == QueueKind::Cbq {
        return resolve_cbq(ctx, p, spec);
    }
    if q.kind == QueueKind::Priority {
        let classes = q
            .classes
            .as_ref()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| ctx.err(field("classes"), "give the classes, highest priority first"))?;
        no_queue_limit(
            ctx,
            field,
            q,
            "a priority queue's limits are per class (classes[i].limit_packets)",
        )?;
        let mut limits = Vec::new();
        for (i, class) in classes.iter().enumerate() {
            let cbq_field = [
                ("name", class.name.is_some()),
                ("parent", class.parent.is_some()),
                ("allot", class.allot.is_some()),
                ("priority", class.priority.is_some()),
                ("borrow", class.borrow.is_some()),
                ("max_idle", class.max_idle.is_some()),
                ("extra_delay", class.extra_delay.is_some()),
            ];
            if let Some((name, _)) = cbq_field.iter().find(|(_, given)| *given) {
                return Err(ctx.err(
                    field(&format!("classes[{i}].{name}")),
                    "applies to kind = \"cbq\" only (a priority queue's classes are in priority order)",
                ));
            }
            match class.limit_packets {
                Some(0) => {
                    return Err(ctx.err(
                        field(&format!("classes[{i}].limit_packets")),
                        "must be at least 1",
                    ));
                }
                limit => limits.push(limit.unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS)),
            }
        }
        // Flows are assigned to classes once they are known (assign_classes).
        return Ok(QueueDiscipline::Priority {
            limits,
            class_of: Vec::new(),
            default_class: 0,
        });
    }
    if q.kind == QueueKind::Red {
        if q.r_over_pb == Some(true) && q.wait.is_some() {
            return Err(ctx.err(
                field("wait"),
                "give wait or r_over_pb = true, not both (they are two spacing rules)",
            ));
        }
        if q.limit_bytes.is_some() {
            return Err(ctx.err(
                field("limit_bytes"),
                "RED's limit counts packets (limit_packets); with queue_in_bytes it is limit_packets · mean_packet_size bytes",
            ));
        }
        if q.drop_front || q.semantics != LimitSemanticsName::Ns2 {
            let name = if q.drop_front {
                "drop_front"
            } else {
                "semantics"
            };
            return Err(ctx.err(field(name), "applies to kind = \"droptail\" only"));
        }
        let mean_packet_bytes = q.mean_packet_size.as_ref().map_or(500, |s| s.value.0);
        if mean_packet_bytes == 0 {
            return Err(ctx.err(field("mean_packet_size"), "must be greater than zero"));
        }
        let packets_per_second = spec.rate.value.bps() as f64 / (8.0 * mean_packet_bytes as f64);
        let min_th = match q.min_th.unwrap_or(5.0) {
            0.0 => RedParams::automatic_min_th(packets_per_second),
            v if v > 0.0 => v,
            _ => return Err(ctx.err(field("min_th"), "must be positive (0: automatic)")),
        };
        let max_th = match q.max_th.unwrap_or(15.0) {
            0.0 => 3.0 * min_th,
            v if v > min_th => v,
            _ => {
                return Err(ctx.err(
                    field("max_th"),
                    format!("must be greater than min_th ({min_th}) (0: 3 · min_th)"),
                ));
            }
        };
        let w_q = match q.w_q.unwrap_or(0.002) {
            -1.0 => RedParams::automatic_w_q(packets_per_second, spec.delay.value),
            v if v > 0.0 && v <= 1.0 => v,
            _ => {
                return Err(ctx.err(
                    field("w_q"),
                    "must be in (0, 1], or −1 for ns-2's automatic value",
                ));
            }
        };
        let max_p = q.max_p.unwrap_or(0.1);
        if !(max_p > 0.0 && max_p <= 1.0) {
            return Err(ctx.err(field("max_p"), "must be in (0, 1]"));
        }
        return Ok(QueueDiscipline::Red(RedParams {
            min_th,
            max_th,
            w_q,
            max_p,
            limit_packets: limit_packets.unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS),
            mean_packet_bytes,
            wait: q.wait.unwrap_or(true),
            r_over_pb: q.r_over_pb.unwrap_or(false),
            gentle: q.gentle.unwrap_or(false),
            bytes: q.bytes.unwrap_or(false),
            queue_in_bytes: q.queue_in_bytes.unwrap_or(false),
            mark: q.ecn_marking.unwrap_or(false),
            mark_above_max_th: q.mark_above_max_th.unwrap_or(false),
            packets_per_second,
            ns2_quirks: q.ns2_quirks.unwrap_or(true),
        }));
    }
    let limit = match (limit_packets, &q.limit_bytes) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(
                format!("{p}.queue"),
                "give limit_packets or limit_bytes, not both",
            ));
        }
        (Some(n), None) => QueueLimit::Packets(n),
        (None, Some(b)) if b.value.0 == 0 => {
            return Err(ctx.err(field("limit_bytes"), "must be greater than zero"));
        }
        (None, Some(b)) => QueueLimit::Bytes(b.value.0),
        (None, None) => QueueLimit::Packets(DEFAULT_QUEUE_LIMIT_PACKETS),
    };
    let semantics = match q.semantics {
        LimitSemanticsName::Ns2 => LimitSemantics::Ns2DropTail,
        LimitSemanticsName::Waiting => LimitSemantics::Waiting,
    };
    Ok(QueueDiscipline::DropTail {
        limit,
        semantics,
        drop_front: q.drop_front,
    })
}

/// Seed 003's multiplicative decrease factor for BCN-TCP (500-byte packets).
const BCN_DEFAULT_FACTOR: f64 = 0.975;

struct ResolvedTcp {
    sender: SenderConfig,
    receiver: ReceiverConfig,
    random_boot_phase: bool,
    variant_name: &'static str,
    profile_name: &'static str,
}

/// Merges a flow's `tcp` overrides over the file-wide `[tcp]` table over the profile.
fn resolve_tcp(
    ctx: &Ctx<'_>,
    base: &TcpSpec,
    over: &TcpSpec,
    flow_path: &str,
) -> Result<ResolvedTcp, ScenarioError> {
    // Each setting comes from the flow if given there, else from [tcp]; errors name where.
    macro_rules! pick {
        ($field:ident) => {
            match (&over.$field, &base.$field) {
                (Some(v), _) => {
                    Some((v.clone(), format!("{flow_path}.tcp.{}", stringify!($field))))
                }
                (None, Some(v)) => Some((v.clone(), format!("tcp.{}", stringify!($field)))),
                (None, None) => None,
            }
        };
    }
    let (variant_value, variant_path) =
        pick!(variant).unwrap_or((VariantName::Reno, format!("{flow_path}.tcp.variant")));
    let variant = match variant_value {
        VariantName::Tahoe => Variant::Tahoe,
        VariantName::Reno => Variant::Reno,
        VariantName::NewReno => Variant::NewReno,
        VariantName::Sack => Variant::Sack,
    };
    let profile = match pick!(profile)
        .map(|(v, _)| v)
        .unwrap_or(ProfileName::Ns2_2000)
    {
        ProfileName::Ns2_2000 => Profile::Ns2_2000,
        ProfileName::Ns2_2002 => Profile::Ns2_2002,
        ProfileName::Ns2_235 => Profile::Ns2_235,
        ProfileName::Bsd => Profile::Bsd,
        ProfileName::Rfc => Profile::Rfc,
    };
    let mut s = profile.sender(variant);
    let mut r = profile.receiver(variant);
    let byte_mode = s.seq_mode == SeqMode::Bytes;

    if let Some((size, path)) = pick!(packet_size) {
        let bytes = u32::try_from(size.value.0)
            .ok()
            .filter(|&b| (1..=65_495).contains(&b));
        let bytes = bytes.ok_or_else(|| ctx.err(path, "must be between 1B and 65495B"))?;
        s.mss = bytes;
        r.mss = bytes;
    }
    if let Some((h, _)) = pick!(header_bytes) {
        s.header_bytes = h;
        r.header_bytes = h;
    }
    if let Some((w, path)) = pick!(window) {
        if byte_mode {
            return Err(ctx.err(path, "is the ns-2 window in packets; byte-numbered profiles (bsd, rfc) take receiver_buffer instead"));
        }
        if w == 0 {
            return Err(ctx.err(path, "must be at least 1 packet"));
        }
        s.rwnd = w;
    }
    if let Some((b, path)) = pick!(receiver_buffer) {
        if !byte_mode {
            return Err(ctx.err(
                path,
                "applies to byte-numbered profiles (bsd, rfc); ns-2 profiles take window (packets)",
            ));
        }
        if b.value.0 < u64::from(s.mss) {
            return Err(ctx.err(path, "must hold at least one segment"));
        }
        r.rbuf_bytes = b.value.0;
    }
    if let Some((on, path)) = pick!(window_scaling) {
        if !byte_mode {
            return Err(ctx.err(path, "applies to byte-numbered profiles (bsd, rfc) only"));
        }
        r.window_scaling = on;
    }
    if byte_mode {
        s.rwnd = r.advertised_window();
        s.window_scale = r.window_scale();
    }
    if let Some((on, _)) = pick!(fast_retransmit) {
        s.fast_retransmit = on;
    }
    let delack_interval = pick!(delayed_ack_interval).map(|(d, _)| d.value);
    if let Some((mode, _)) = pick!(delayed_ack) {
        r.ack_policy = match mode {
            DelayedAckName::Off => AckPolicy::EveryPacket,
            DelayedAckName::Ns2 => AckPolicy::DelayedNs2 {
                interval: delack_interval.unwrap_or(NS2_DELACK_INTERVAL),
            },
            DelayedAckName::Bsd => AckPolicy::DelayedBsd,
        };
    }
    if let Some((tick, path)) = pick!(tick) {
        if tick.value.is_zero() {
            return Err(ctx.err(path, "must be greater than zero"));
        }
        s.tick = tick.value;
    }
    if let Some((mode, _)) = pick!(timer) {
        s.timer_mode = match mode {
            TimerModeName::Exact => TimerMode::Exact,
            TimerModeName::Tick => TimerMode::Tick,
        };
    }
    if let Some((rto, path)) = pick!(initial_rto) {
        if rto.value.is_zero() {
            return Err(ctx.err(path, "must be greater than zero"));
        }
        s.initial_rto = rto.value;
    }
    if let Some((min, _)) = pick!(min_rto) {
        s.rto_bounds = match s.rto_bounds {
            RtoBounds::Ns2 {
                max_rto,
                clamp_before_backoff,
                ..
            } => RtoBounds::Ns2 {
                min_rto: min.value,
                clamp_before_backoff,
                max_rto,
            },
            RtoBounds::Bsd { max_ticks, .. } => {
                let ticks = (min.value.as_ps() / s.tick.as_ps()).max(1) as u32;
                RtoBounds::Bsd {
                    min_ticks: ticks,
                    max_ticks,
                }
            }
        };
    }
    if let Some((iw, path)) = pick!(initial_window) {
        if iw == 0 {
            return Err(ctx.err(path, "must be at least 1 segment"));
        }
        s.initial_window = iw;
    }
    if let Some((syn, path)) = pick!(syn) {
        if syn && byte_mode {
            return Err(ctx.err(
                path,
                "the 40-byte opening packet is an ns-2 packet-mode feature",
            ));
        }
        s.syn = syn;
    }
    if let Some((b, _)) = pick!(max_burst) {
        s.max_burst = b;
    }
    if let Some((cap, path)) = pick!(max_cwnd) {
        if byte_mode {
            return Err(ctx.err(path, "is ns-2's maxcwnd_ (packets); byte-numbered profiles cap cwnd at the receiver window"));
        }
        s.max_cwnd = cap;
    }
    if let Some((b, _)) = pick!(ns2_bugfix) {
        s.ns2_bugfix = b;
    }
    if let Some((t, _)) = pick!(tahoe_resume) {
        s.tahoe_resume = match t {
            TahoeResumeName::GoBackN => TahoeResume::GoBackN,
            TahoeResumeName::Restore => TahoeResume::Restore,
        };
    }
    if let Some((f, path)) = pick!(reno_flavour) {
        s.reno_flavour = match (f, byte_mode) {
            (RenoFlavourName::Ns2, false) => RenoFlavour::Ns2,
            (RenoFlavourName::Bsd, true) => RenoFlavour::Bsd,
            (RenoFlavourName::Rfc5681, true) => RenoFlavour::Rfc5681,
            (RenoFlavourName::Ns2, true)
            | (RenoFlavourName::Bsd | RenoFlavourName::Rfc5681, false) => {
                return Err(ctx.err(
                    path,
                    "must match the profile's sequence model: ns2 for ns2_* profiles, bsd or rfc5681 for bsd and rfc",
                ));
            }
        };
        if variant == Variant::NewReno && s.reno_flavour == RenoFlavour::Bsd {
            return Err(ctx.err(
                path,
                "bsd is 4.4BSD-Lite Reno, which has no NewReno; newreno in byte mode follows RFC 6582 (rfc5681)",
            ));
        }
    }
    if let Some((on, _)) = pick!(reno_ca_extra) {
        s.reno_ca_extra = on;
    }
    if let Some((on, _)) = pick!(limited_transmit) {
        s.limited_transmit = on;
    }
    if let Some((on, _)) = pick!(newreno_impatient) {
        s.newreno_impatient = on;
    }
    if let Some((on, _)) = pick!(partial_window_deflation) {
        s.partial_window_deflation = on;
    }
    if let Some((name, path)) = pick!(sack_sender) {
        s.sack_sender = match name {
            SackSenderName::Ns2Sack1 => SackSender::Ns2Sack1,
            SackSenderName::Rfc6675 => SackSender::Rfc6675,
            SackSenderName::Rfc3517 => SackSender::Rfc3517,
        };
        if variant != Variant::Sack {
            return Err(ctx.err(path, "applies to variant = \"sack\" only"));
        }
        if byte_mode && s.sack_sender == SackSender::Ns2Sack1 {
            return Err(ctx.err(path, "ns2_sack1 follows ns-2's packet-numbered Agent/TCP/Sack1; byte-numbered profiles (bsd, rfc) take rfc6675 or rfc3517"));
        }
    }
    if let Some((on, path)) = pick!(sack_clear_on_rto) {
        if variant != Variant::Sack || s.sack_sender == SackSender::Ns2Sack1 {
            return Err(ctx.err(
                path,
                "applies to the rfc6675 and rfc3517 SACK senders (ns2_sack1 always clears)",
            ));
        }
        s.sack_clear_on_rto = on;
    }
    if let Some((n, path)) = pick!(sack_blocks) {
        if variant != Variant::Sack {
            return Err(ctx.err(path, "applies to variant = \"sack\" only"));
        }
        if !(1..=SackBlocks::CAPACITY).contains(&usize::from(n)) {
            return Err(ctx.err(path, "must be between 1 and 3"));
        }
        r.sack_blocks = n;
    }
    let bcn_factor = pick!(bcn_factor);
    let bcn_reaction = pick!(bcn_reaction);
    match pick!(congestion_marks).map(|(m, _)| m) {
        Some(CongestionMarksName::Ecn) => {
            s.mark_response = MarkResponse::Ecn;
            r.echo = CongestionEcho::UntilCwr;
        }
        Some(CongestionMarksName::Bcn) => {
            let decrease_factor = match bcn_factor {
                Some((f, _)) if f > 0.0 && f < 1.0 => f,
                Some((_, path)) => {
                    return Err(ctx.err(path, "must be greater than 0 and less than 1"));
                }
                None => BCN_DEFAULT_FACTOR,
            };
            s.mark_response = MarkResponse::Bcn {
                decrease_factor,
                once_per_rtt: bcn_reaction
                    .is_some_and(|(reaction, _)| reaction == BcnReactionName::OncePerRtt),
            };
            r.echo = CongestionEcho::PerPacket;
        }
        Some(CongestionMarksName::Off) | None => {
            let stray = bcn_factor
                .map(|(_, path)| path)
                .or(bcn_reaction.map(|(_, path)| path));
            if let Some(path) = stray {
                return Err(ctx.err(path, "applies with congestion_marks = \"bcn\" only"));
            }
        }
    }
    if variant == Variant::Sack {
        // SACK blocks travel as 16-bit segment offsets (congsim_core::wire::SackBlocks).
        let window_segments = if byte_mode {
            s.rwnd / u64::from(s.mss)
        } else {
            s.rwnd
        };
        if window_segments > u64::from(u16::MAX) {
            return Err(ctx.err(
                variant_path,
                "sack supports receiver windows of at most 65535 segments",
            ));
        }
    }
    let random_boot_phase = pick!(boot_phase).map_or(s.timer_mode == TimerMode::Exact, |(b, _)| {
        b == BootPhaseName::Random
    });
    Ok(ResolvedTcp {
        variant_name: match variant {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        },
        profile_name: profile.name(),
        sender: s,
        receiver: r,
        random_boot_phase,
    })
}
