//! Semantic validation and resolution: names to ids, unit strings to quantities, TCP switches
//! merged over profiles, static shortest-path routes. Resolution is a series of passes over
//! one context ([`Ctx`]): the run's window, nodes, links, routes, TCP flows, CBR sources and
//! transfers (`traffic`), queue classes, ATM ports (`atm`), scripted drops and captures; each
//! builds a part of the [`Scenario`] model and checks what it builds.

use super::ScenarioError;
use super::checks::{self, Scripted};
use super::limits::{self, Limits};
use super::model::{
    AtmPort, QueueDiscipline, ResolvedCapture, ResolvedFlow, ResolvedLink, Scenario, TieOrder,
};
use super::routes::Routes;
use super::schema::{self, FlowSpec, LinkSpec, QueueSpec, ScenarioFile};
use congsim_atm::UbrPolicy;
use congsim_core::time::SimDuration;
use congsim_core::{FlowId, LinkId, NodeId};
use congsim_ip::ScriptedAction;
use congsim_tcp::SenderConfig;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

mod atm;
mod context;
mod events;
mod queue;
mod tcp;
mod traffic;

use atm::{find_single_feeders, resolve_atm};
use context::{Ctx, FlowIds, Lookup};
use queue::resolve_queue;
use tcp::resolve_tcp;
use traffic::{assign_classes, resolve_cbr, resolve_transfers};

/// Each link by the nodes it joins (from, to).
type LinkByEnds = BTreeMap<(NodeId, NodeId), LinkId>;

/// The run's length and its measurement window.
struct Window {
    duration: SimDuration,
    measure_from: SimDuration,
    measure_until: SimDuration,
}

impl Scenario {
    pub(super) fn resolve(file: ScenarioFile, label: &str) -> Result<Self, ScenarioError> {
        let limits = Limits::from_env()?;
        let topology = file.topology.clone();
        let file = super::topology::expand(file, label, &limits)?;
        Self::resolve_expanded(file, label, &limits).map_err(|e| match &topology {
            Some(topology) => super::topology::blame(e, topology),
            None => e,
        })
    }

    /// Resolves a file whose `[topology]` has been expanded into nodes, links and flows.
    fn resolve_expanded(
        file: ScenarioFile,
        label: &str,
        limits: &Limits,
    ) -> Result<Self, ScenarioError> {
        let ctx = Ctx {
            file: label,
            limits,
        };
        for (name, count) in [("nodes", file.nodes.len()), ("links", file.links.len())] {
            limits.check(name, count as u64, label, name, || {
                format!("declares {} {name}", limits::grouped(count as u64))
            })?;
        }
        let window = resolve_window(&ctx, &file)?;
        let nodes = resolve_nodes(&ctx, &file)?;
        let lookup = |path: String, name: &str| {
            nodes.get(name).copied().ok_or_else(|| {
                let mut names: Vec<(&NodeId, &&str)> = nodes.iter().map(|(k, v)| (v, k)).collect();
                names.sort();
                let known = checks::listing(names.iter().map(|(_, n)| **n));
                ctx.err(
                    path,
                    format!("unknown node \"{name}\"; declared nodes are: {known}"),
                )
            })
        };
        let (mut links, link_by_ends) = resolve_links(&ctx, &file, &lookup)?;
        let (routes, ecmp) = resolve_routes(&ctx, &file, &nodes, &links)?;
        if file.flows.is_empty() && file.cbr.is_empty() && file.transfers.is_empty() {
            return Err(ctx.err(
                "flows",
                "declare at least one TCP flow ([[flows]]), CBR source ([[cbr]]) or transfer group ([[transfers]])",
            ));
        }
        let duration = window.duration;
        let (mut flows, mut flow_ids) = resolve_flows(&ctx, &file, &lookup, &routes, duration)?;
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
        let transfers = (file.transfers.iter().enumerate())
            .map(|(i, spec)| resolve_transfers(&ctx, &file, spec, i, &lookup, &routes, duration))
            .collect::<Result<Vec<_>, _>>()?;
        let one_way: Vec<(NodeId, NodeId)> = (cbr.iter().map(|c| (c.src, c.dst)))
            .chain(
                transfers
                    .iter()
                    .flat_map(|t| [(t.src, t.dst), (t.dst, t.src)]),
            )
            .collect();
        find_single_feeders(&mut links, &routes, &flows, &one_way);
        let atm_abr = resolve_atm(&ctx, &file, &mut links, &routes, &flows, &cbr, &transfers)?;
        let scripted = resolve_scripted(&ctx, &file, &lookup, &link_by_ends, &flow_ids, &flows)?;
        for entry in &scripted {
            let script = links[entry.link.index()].script_mut();
            script
                .scripted
                .push((entry.flow, entry.packet, entry.action));
        }
        let captures = resolve_captures(&ctx, &file, &mut links)?;
        resolve_sojourn_links(&ctx, &file, &mut links)?;
        resolve_change_trace(&ctx, &file, &flow_ids, &mut flows)?;
        let traffic = (&flows[..], &cbr[..]);
        let events = events::resolve_events(&ctx, &file, &mut links, &flow_ids, traffic, duration)?;
        let series_interval = file.metrics.series_interval.as_ref().map(|d| d.value);
        if series_interval.is_some_and(|d| d.is_zero()) {
            return Err(ctx.err("metrics.series_interval", "must be greater than zero"));
        }
        let tie_order = match file.simulation.tie_order {
            schema::TieOrder::Scheduled => TieOrder::Scheduled,
            schema::TieOrder::Random => TieOrder::Random,
        };
        // The resolved nodes, links and flows stand for the file's lists, which would double a
        // large network's memory if kept.
        let mut file = file;
        let node_names = std::mem::take(&mut file.nodes);
        (file.links, file.flows) = (Vec::new(), Vec::new());
        flows.shrink_to_fit();
        share_sender_configs(&mut flows);
        let mut scenario = Scenario {
            name: file.name.clone().unwrap_or_else(|| "scenario".to_string()),
            duration,
            seed: file.simulation.seed,
            replications: file.simulation.replications,
            measure_from: window.measure_from,
            measure_until: window.measure_until,
            nodes: node_names,
            links,
            flows,
            cbr,
            transfers,
            routes,
            ecmp,
            // The shortcuts take packets in scheduling order: off when ties go at random, and
            // when links change while packets are on their way.
            hop_fusion: tie_order == TieOrder::Scheduled && events.is_empty(),
            tie_order,
            atm_abr,
            captures,
            efficiency_max: file.metrics.efficiency_max_rate.as_ref().map(|r| r.value),
            series_interval,
            tcp_events: file.metrics.tcp_events,
            flow_monitor: file.metrics.flow_monitor,
            sequence_trace: file.metrics.sequence_trace,
            events,
            source: file,
            warnings: Vec::new(),
        };
        checks::limits(&scenario, limits, label)?;
        scenario.warnings = checks::warnings(&scenario, &scripted);
        Ok(scenario)
    }
}

/// `[simulation]`: the run's length, replications and measurement window.
fn resolve_window(ctx: &Ctx<'_>, file: &ScenarioFile) -> Result<Window, ScenarioError> {
    let sim = &file.simulation;
    let duration = sim.duration.value;
    if duration.is_zero() {
        return Err(ctx.err("simulation.duration", "must be greater than zero"));
    }
    if sim.replications == 0 {
        return Err(ctx.err("simulation.replications", "must be at least 1"));
    }
    let measure_from = (sim.measure_from.as_ref()).map_or(SimDuration::ZERO, |d| d.value);
    let measure_until = (sim.measure_until.as_ref()).map_or(duration, |d| d.value);
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
    Ok(Window {
        duration,
        measure_from,
        measure_until,
    })
}

/// The scenario's name and its nodes: each named once, by printable text.
fn resolve_nodes<'f>(
    ctx: &Ctx<'_>,
    file: &'f ScenarioFile,
) -> Result<BTreeMap<&'f str, NodeId>, ScenarioError> {
    if file.nodes.is_empty() {
        return Err(ctx.err(
            "nodes",
            "declare at least two nodes, or a [topology] that makes them",
        ));
    }
    if let Some(name) = &file.name {
        ctx.plain_name("name", name)?;
    }
    let mut nodes = BTreeMap::new();
    for (i, name) in file.nodes.iter().enumerate() {
        ctx.plain_name(&format!("nodes[{i}]"), name)?;
        if nodes.insert(name.as_str(), NodeId(i as u32)).is_some() {
            return Err(ctx.err(
                format!("nodes[{i}]"),
                format!("duplicate node name \"{name}\""),
            ));
        }
    }
    Ok(nodes)
}

/// Every `[[links]]` entry as one link (two when duplex), with its queue; ATM links get a
/// host adapter's port here, which `resolve_atm` turns into a switch's where it belongs.
fn resolve_links(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    lookup: &Lookup<'_>,
) -> Result<(Vec<ResolvedLink>, LinkByEnds), ScenarioError> {
    let directed = file.links.iter().map(|l| 1 + usize::from(l.duplex)).sum();
    // Sized exactly: a network of millions of links would otherwise carry up to twice its
    // links' memory in a doubled vector's spare room.
    let mut links: Vec<ResolvedLink> = Vec::with_capacity(directed);
    let mut link_by_ends = LinkByEnds::new();
    let mut fq_queues = 0u64;
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
        let queue = resolve_queue(ctx, &p, spec)?;
        let flow_queues = match &queue {
            QueueDiscipline::FqCodel { params, .. } => Some(params.fq.flows),
            QueueDiscipline::FqPie { params, .. } => Some(params.fq.flows),
            _ => None,
        };
        if let Some(flows) = flow_queues {
            let directions = if spec.duplex { 2 } else { 1 };
            fq_queues += directions * u64::from(flows);
            let limits = ctx.limits;
            limits.check(
                "fq_queues",
                fq_queues,
                ctx.file,
                &format!("{p}.queue.flows"),
                || {
                    format!(
                        "the FQ links up to this one hold {} flow queues",
                        limits::grouped(fq_queues)
                    )
                },
            )?;
        }
        if spec.atm {
            check_atm_link(ctx, &p, spec)?;
        }
        let directions = if spec.duplex {
            vec![(from, to), (to, from)]
        } else {
            vec![(from, to)]
        };
        for (from, to) in directions {
            let id = LinkId(links.len() as u32);
            let (from_name, to_name) = (&file.nodes[from.index()], &file.nodes[to.index()]);
            if link_by_ends.insert((from, to), id).is_some() {
                return Err(ctx.err(
                    p.clone(),
                    format!(
                        "a link from \"{from_name}\" to \"{to_name}\" is declared twice (duplex links create both directions)"
                    ),
                ));
            }
            links.push(ResolvedLink {
                spec_index: i,
                from,
                to,
                rate: spec.rate.value,
                delay: spec.delay.value,
                queue: queue.clone(),
                random_loss: spec.random_loss,
                script: None,
                fifo_fast_path: true,
                record_sojourns: false,
                capture: false,
                single_feeder: None,
                // The port's policy depends on whether `from` is a host (resolve_atm).
                atm: spec.atm.then(|| {
                    Box::new(AtmPort {
                        capacity_cells: None,
                        policy: UbrPolicy::TailDrop,
                        ppd_after_overflow: false,
                        random_contention: false,
                        host_adapter: true,
                        switch: None,
                        vbr: None,
                    })
                }),
            });
        }
    }
    Ok((links, link_by_ends))
}

/// An ATM link takes its buffer from `[atm]` and has no random loss.
fn check_atm_link(ctx: &Ctx<'_>, p: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// Routes towards every node traffic is addressed to (names not declared are reported where
/// the flow or source is checked), and whether they keep equal-cost choices.
fn resolve_routes(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    nodes: &BTreeMap<&str, NodeId>,
    links: &[ResolvedLink],
) -> Result<(Routes, bool), ScenarioError> {
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
    let rows = Routes::rows_needed(file.nodes.len(), links, endpoints.iter().copied(), ecmp);
    checks::route_entries(
        ctx.limits,
        ctx.file,
        file.nodes.len(),
        endpoints.len(),
        rows as u64,
    )?;
    Ok((
        Routes::compute(file.nodes.len(), links, endpoints, ecmp),
        ecmp,
    ))
}

/// The TCP flows (`flows[i]`, `count` of each), with their ids by name.
fn resolve_flows(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    lookup: &Lookup<'_>,
    routes: &Routes,
    duration: SimDuration,
) -> Result<(Vec<ResolvedFlow>, FlowIds), ScenarioError> {
    let mut flows: Vec<ResolvedFlow> = Vec::new();
    let mut flow_ids = FlowIds::new();
    let mut flow_names: BTreeSet<String> = BTreeSet::new();
    for (i, spec) in file.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let template = resolve_flow(ctx, file, spec, &p, lookup, routes, duration)?;
        let base_name = spec.name.clone().unwrap_or_else(|| format!("flow{i}"));
        checks::flow_count(
            ctx.limits,
            ctx.file,
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
            let id = FlowId(flows.len() as u32);
            flow_ids.entry(base_name.clone()).or_default().push(id);
            if spec.count > 1 {
                flow_ids.entry(name.clone()).or_default().push(id);
            }
            flows.push(ResolvedFlow {
                name,
                ..template.clone()
            });
        }
    }
    Ok((flows, flow_ids))
}

/// One `[[flows]]` entry, as each of its `count` flows is but for the name.
fn resolve_flow(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    spec: &FlowSpec,
    p: &str,
    lookup: &Lookup<'_>,
    routes: &Routes,
    duration: SimDuration,
) -> Result<ResolvedFlow, ScenarioError> {
    let src = lookup(format!("{p}.from"), &spec.from)?;
    let dst = lookup(format!("{p}.to"), &spec.to)?;
    if src == dst {
        return Err(ctx.err(format!("{p}.to"), "a flow must go to a different node"));
    }
    for (a, b) in [(src, dst), (dst, src)] {
        if routes.next_hop(a, b).is_none() {
            return Err(ctx.err(
                p,
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
    let start_jitter = (spec.start_jitter.as_ref())
        .or(file.simulation.start_jitter.as_ref())
        .map_or(SimDuration::ZERO, |d| d.value);
    if start + start_jitter > duration {
        // The flow's own setting, or the simulation's default it took.
        let field = if spec.start_jitter.is_some() {
            format!("{p}.start_jitter")
        } else {
            "simulation.start_jitter".to_string()
        };
        return Err(ctx.err(
            field,
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
    let tcp = resolve_tcp(ctx, &file.tcp, &spec.tcp, p)?;
    if let Some(name) = &spec.name {
        ctx.plain_name(&format!("{p}.name"), name)?;
    }
    Ok(ResolvedFlow {
        name: String::new(),
        src,
        dst,
        start,
        start_jitter,
        stop,
        size_bytes,
        sender: Arc::new(tcp.sender),
        receiver: tcp.receiver,
        random_boot_phase: tcp.random_boot_phase,
        variant_name: tcp.variant_name,
        profile_name: tcp.profile_name,
        trace_changes: false,
    })
}

/// Scripted drops and marks (`drops[i]`, `marks[i]`), one entry per flow they name.
fn resolve_scripted(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    lookup: &Lookup<'_>,
    link_by_ends: &LinkByEnds,
    flow_ids: &FlowIds,
    flows: &[ResolvedFlow],
) -> Result<Vec<Scripted>, ScenarioError> {
    let declared = (file.drops.iter().enumerate())
        .map(|(i, d)| (format!("drops[{i}]"), d, ScriptedAction::Drop))
        .chain(
            (file.marks.iter().enumerate())
                .map(|(i, d)| (format!("marks[{i}]"), d, ScriptedAction::Mark)),
        );
    let mut scripted = Vec::new();
    for (p, d, action) in declared {
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
        for &flow in ids {
            scripted.push(Scripted {
                path: p.clone(),
                link: *link,
                flow,
                packet: d.packet,
                action,
            });
        }
    }
    Ok(scripted)
}

/// `[metrics] sojourn_links`: named IP links whose queue knows each packet's wait.
fn resolve_sojourn_links(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
) -> Result<(), ScenarioError> {
    for (j, name) in file.metrics.sojourn_links.iter().enumerate() {
        let p = format!("metrics.sojourn_links[{j}]");
        let id = link_named(ctx, &p, (links, &file.nodes), name)?;
        let link = &mut links[id];
        if link.atm.is_some() {
            return Err(ctx.err(p, format!("\"{name}\" is an ATM link: it has no IP queue")));
        }
        if matches!(
            link.queue,
            QueueDiscipline::Priority(_) | QueueDiscipline::Cbq(_)
        ) {
            return Err(ctx.err(
                p,
                format!(
                    "\"{name}\" has a {} queue, whose packets' waits are not kept; sojourns are recorded for droptail, red, codel, fq_codel, pie and fq_pie queues",
                    link.queue.kind_name()
                ),
            ));
        }
        link.record_sojourns = true;
    }
    Ok(())
}

/// `[metrics] tcp_changes`: the TCP flows whose every change of state is recorded.
fn resolve_change_trace(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    flow_ids: &FlowIds,
    flows: &mut [ResolvedFlow],
) -> Result<(), ScenarioError> {
    for (j, name) in file.metrics.tcp_changes.iter().enumerate() {
        let p = format!("metrics.tcp_changes[{j}]");
        let ids = flow_ids.get(name).ok_or_else(|| {
            let known = flows.iter().map(|f| f.name.as_str());
            ctx.err(
                &p,
                format!(
                    "unknown flow \"{name}\"; TCP flows are: {}",
                    checks::listing(known)
                ),
            )
        })?;
        for id in ids {
            let flow = flows.get_mut(id.index()).ok_or_else(|| {
                ctx.err(
                    &p,
                    format!("\"{name}\" is a CBR source: it has no TCP state to trace"),
                )
            })?;
            flow.trace_changes = true;
        }
    }
    Ok(())
}

/// Flows with the same sender configuration share one: a generated network of a million flows
/// has a handful. Each flow is compared with the last few distinct configurations only, so
/// that flows that all differ cost no more than a few comparisons each.
fn share_sender_configs(flows: &mut [ResolvedFlow]) {
    const RECENT: usize = 8;
    let mut recent: Vec<Arc<SenderConfig>> = Vec::with_capacity(RECENT);
    for flow in flows {
        match recent.iter().find(|c| ***c == *flow.sender) {
            Some(same) => flow.sender = Arc::clone(same),
            None => {
                if recent.len() == RECENT {
                    recent.remove(0);
                }
                recent.push(Arc::clone(&flow.sender));
            }
        }
    }
}

/// The index of the link called `name` (`"from->to"`), or an error at `path` listing them.
fn link_named(
    ctx: &Ctx<'_>,
    path: &str,
    (links, nodes): (&[ResolvedLink], &[String]),
    name: &str,
) -> Result<usize, ScenarioError> {
    links
        .iter()
        .position(|l| l.name(nodes) == name)
        .ok_or_else(|| {
            let known: Vec<String> = links.iter().map(|l| l.name(nodes)).collect();
            ctx.err(
                path,
                format!(
                    "unknown link \"{name}\"; links are: {}",
                    checks::listing(known.iter().map(String::as_str))
                ),
            )
        })
}

/// Packet captures (`captures[i]`): a plain `.pcap` file name each, over named links.
fn resolve_captures(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
) -> Result<Vec<ResolvedCapture>, ScenarioError> {
    let mut captures: Vec<ResolvedCapture> = Vec::new();
    for (i, c) in file.captures.iter().enumerate() {
        let p = format!("captures[{i}]");
        let plain = !c.file.is_empty()
            && !c.file.contains(['/', '\\'])
            && !c.file.chars().any(super::is_unsafe_char)
            && c.file != ".."
            && c.file.ends_with(".pcap");
        if !plain {
            return Err(ctx.err(
                format!("{p}.file"),
                "must be a file name ending in .pcap, without folders or control characters",
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
            let id = link_named(ctx, &format!("{p}.links[{j}]"), (links, &file.nodes), name)?;
            links[id].capture = true;
            ids.push(LinkId(id as u32));
        }
        captures.push(ResolvedCapture {
            file: c.file.clone(),
            links: ids,
            headers_only: c.headers_only,
        });
    }
    Ok(captures)
}
