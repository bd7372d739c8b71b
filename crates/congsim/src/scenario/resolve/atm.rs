//! ATM links: ports, switch algorithms, ABR parameters, and which links have a single feeder.

use super::context::Ctx;
use crate::scenario::ScenarioError;
use crate::scenario::model::*;
use crate::scenario::routes::Routes;
use crate::scenario::schema::*;
use congsim_atm::UbrPolicy;
use congsim_atm::abr::AbrParams;
use congsim_atm::erica::{AbrCapacity, CcrCap, EprcaConfig, EricaConfig, QueueControl};
use congsim_atm::network::AbrService;
use congsim_atm::port::SwitchConfig;
use congsim_atm::vbr::VbrConfig;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;
use congsim_core::{LinkId, NodeId};
use std::collections::BTreeSet;

/// Where packets entering a link come from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Feeder {
    /// An agent at the link's tail node (the path starts there).
    Host,
    Link(LinkId),
}

/// Configures the ATM links' ports from `[atm]` (switches) or as host adapters, places the VBR
/// sources, and checks that every path is all ATM or all IP: an IP router between ATM switches
/// is not modelled. Returns the ABR sources' parameters on an ABR network.
pub(super) fn resolve_atm(
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
    let switch = switch_port(ctx, &spec)?;
    let hosts = check_paths(ctx, file, links, routes, flows, cbr, transfers)?;
    let algorithm = SwitchAlgorithm::resolve(ctx, &spec)?;
    check_aal5_frames(ctx, links, routes, flows, cbr)?;
    for link in links.iter_mut() {
        let rate = link.rate;
        if let Some(port) = &mut link.atm
            && !hosts.contains(&link.from)
        {
            **port = AtmPort {
                switch: abr.then(|| algorithm.config(rate)),
                ..switch.clone()
            };
        }
    }
    place_vbr_sources(ctx, file, links, &hosts)?;
    if !abr {
        return Ok(None);
    }
    abr_service(ctx, &spec, links).map(Some)
}

/// A switch's port as `[atm]` sets it (UBR policy, buffer, contention).
fn switch_port(ctx: &Ctx<'_>, spec: &AtmSpec) -> Result<AtmPort, ScenarioError> {
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
    Ok(AtmPort {
        switch: None,
        vbr: None,
        capacity_cells: spec.buffer_cells,
        policy,
        ppd_after_overflow: spec
            .ppd_after_overflow
            .unwrap_or(policy.default_ppd_after_overflow()),
        random_contention: spec.contention == Some(ContentionName::Random),
        host_adapter: false,
    })
}

/// Every path traffic takes is all ATM or all IP; returns the nodes where traffic starts or
/// ends (hosts: their ports are host adapters).
fn check_paths(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &[ResolvedLink],
    routes: &Routes,
    flows: &[ResolvedFlow],
    cbr: &[ResolvedCbr],
    transfers: &[ResolvedTransfers],
) -> Result<BTreeSet<NodeId>, ScenarioError> {
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
    Ok(hosts)
}

/// The ABR switch algorithm `[atm]` names, with its settings checked.
struct SwitchAlgorithm {
    name: SwitchName,
    erica: EricaSpec,
    eprca: EprcaSpec,
}

impl SwitchAlgorithm {
    fn resolve(ctx: &Ctx<'_>, spec: &AtmSpec) -> Result<Self, ScenarioError> {
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
        Ok(SwitchAlgorithm {
            name: switch_name,
            erica,
            eprca,
        })
    }

    /// The algorithm's configuration at a port of `rate`.
    fn config(&self, rate: Rate) -> SwitchConfig {
        let (switch_name, erica, eprca) = (self.name, &self.erica, &self.eprca);
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
    }
}

/// An AAL5 frame carries at most 65535 bytes (and its cells are numbered in 16 bits).
fn check_aal5_frames(
    ctx: &Ctx<'_>,
    links: &[ResolvedLink],
    routes: &Routes,
    flows: &[ResolvedFlow],
    cbr: &[ResolvedCbr],
) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The VBR sources (`vbr[i]`), each at a switch port.
fn place_vbr_sources(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
    hosts: &BTreeSet<NodeId>,
) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The ABR sources' parameters (`[atm.abr]`, defaults from seed 001 at the fastest ATM link).
fn abr_service(
    ctx: &Ctx<'_>,
    spec: &AtmSpec,
    links: &[ResolvedLink],
) -> Result<AbrService, ScenarioError> {
    let a = spec.abr.clone().unwrap_or_default();
    let fastest = links
        .iter()
        .filter(|l| l.atm.is_some())
        .map(|l| l.rate.bps())
        .max()
        .expect("an ATM link");
    let cells = |r: &Option<crate::scenario::units::RateText>, default_bps: f64| {
        r.as_ref().map_or(default_bps, |r| r.value.bps() as f64) / f64::from(CELL_BITS)
    };
    let defaults = AbrParams::seed001(fastest as f64 / f64::from(CELL_BITS));
    let nrm = a.nrm.unwrap_or(defaults.nrm);
    if nrm < 2 {
        return Err(ctx.err("atm.abr.nrm", "must be at least 2"));
    }
    // TM 4.0: RIF and RDF are powers of two from 1/32768 to 1, CDF is 0 or one of them.
    for (name, value) in [("rif", a.rif), ("rdf", a.rdf)] {
        if value.is_some_and(|v| !(v > 0.0 && v <= 1.0)) {
            return Err(ctx.err(format!("atm.abr.{name}"), "must be in (0, 1]"));
        }
    }
    if a.cdf.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
        return Err(ctx.err("atm.abr.cdf", "must be in [0, 1]"));
    }
    if a.trm.as_ref().is_some_and(|d| d.value.is_zero()) {
        return Err(ctx.err("atm.abr.trm", "must be longer than 0"));
    }
    let params = AbrParams {
        pcr: cells(&a.pcr, fastest as f64),
        mcr: a.mcr.as_ref().map_or(0.0, |r| r.value as f64) / f64::from(CELL_BITS),
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
    Ok(AbrService {
        params,
        uni_buffer_bytes: spec.uni_buffer.as_ref().map(|b| b.value.0),
    })
}

/// The largest AAL5 CPCS-PDU payload.
pub(super) const AAL5_MAX_SDU_BYTES: u32 = 65535;

/// Bits of one cell on the wire.
pub(super) const CELL_BITS: u32 = congsim_atm::CELL_BYTES * 8;

pub(super) fn switch_text(name: SwitchName) -> &'static str {
    match name {
        SwitchName::Erica => "erica",
        SwitchName::ModifiedErica => "modified_erica",
        SwitchName::EricaPlus => "erica_plus",
        SwitchName::Eprca => "eprca",
    }
}

/// Marks each link whose every path (TCP data and ACKs, and the one-way paths of UDP sources)
/// arrives through the same upstream link. With ECMP every equal-cost path counts, whichever a
/// flow's hash picks: a feeder too many only turns a shortcut off.
pub(super) fn find_single_feeders(
    links: &mut [ResolvedLink],
    routes: &Routes,
    flows: &[ResolvedFlow],
    one_way: &[(NodeId, NodeId)],
) {
    // Per link: the one feeder seen so far, `None` before any; `several` once a second shows
    // (a list of feeders would make a link shared by n flows cost n² to check).
    let mut feeder_of: Vec<Option<Feeder>> = vec![None; links.len()];
    let mut several = vec![false; links.len()];
    let tcp_paths = flows.iter().flat_map(|f| [(f.src, f.dst), (f.dst, f.src)]);
    for (from, to) in tcp_paths.chain(one_way.iter().copied()) {
        let reached = routes.reachable_links(links, from, to);
        // The reached links by the node they arrive at, so that a node's upstream links are
        // found by binary search (a scan per link made a path of n hops cost n²).
        let mut arriving: Vec<(NodeId, LinkId)> = (reached.iter())
            .map(|&u| (links[u.index()].to, u))
            .collect();
        arriving.sort_unstable();
        for &link in &reached {
            let at = links[link.index()].from;
            let first = arriving.partition_point(|&(node, _)| node < at);
            let upstream = (arriving[first..].iter())
                .take_while(|&&(node, _)| node == at)
                .map(|&(_, u)| Feeder::Link(u));
            for feeder in (at == from)
                .then_some(Feeder::Host)
                .into_iter()
                .chain(upstream)
            {
                match feeder_of[link.index()] {
                    None => feeder_of[link.index()] = Some(feeder),
                    Some(seen) if seen != feeder => several[link.index()] = true,
                    Some(_) => {}
                }
            }
        }
    }
    for (i, link) in links.iter_mut().enumerate() {
        link.single_feeder = match feeder_of[i] {
            Some(Feeder::Link(u)) if !several[i] => Some(u),
            _ => None,
        };
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
