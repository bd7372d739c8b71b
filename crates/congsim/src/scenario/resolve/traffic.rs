//! CBR sources, random transfer groups, and the flows each class of a queue serves.

use super::context::{Ctx, FlowIds, Lookup};
use super::tcp::resolve_tcp;
use crate::scenario::ScenarioError;
use crate::scenario::checks;
use crate::scenario::model::*;
use crate::scenario::routes::Routes;
use crate::scenario::schema::*;
use crate::transfers::{SEED002_WEB_ALPHA, SEED002_WEB_SIGMA, SizeLaw};
use congsim_core::FlowId;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;
use congsim_ip::cbr::{CbrConfig, CbrPattern, CbrSchedule, OnOffLaw};
use std::sync::Arc;

/// A CBR packet's bytes on the wire hold at least an IPv4 header.
const CBR_MIN_PACKET_BYTES: u32 = 20;

/// One group of random transfers (`transfers[i]`).
pub(super) fn resolve_transfers(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    spec: &TransferSpec,
    i: usize,
    lookup: &Lookup<'_>,
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
        SizeLawName::Web => {
            let shape = |value: Option<f64>, name: &str, default: f64, low: f64, high: f64| {
                let value = value.unwrap_or(default);
                if value.is_finite() && value > low && value <= high {
                    Ok(value)
                } else {
                    Err(ctx.err(
                        field(name),
                        format!("must be in ({low}, {high}]; got {value}"),
                    ))
                }
            };
            let sigma = shape(spec.web_sigma, "web_sigma", SEED002_WEB_SIGMA, 0.0, 4.0)?;
            let alpha = shape(spec.web_alpha, "web_alpha", SEED002_WEB_ALPHA, 1.0, 10.0)?;
            SizeLaw::seed002_web(max_bytes, sigma, alpha)
        }
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
    if let Some(name) = &spec.name {
        ctx.plain_name(&field("name"), name)?;
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
        sender: Arc::new(tcp.sender),
        receiver: tcp.receiver,
        random_boot_phase: tcp.random_boot_phase,
    })
}

/// The interval between a CBR source's emissions: `per_slot` packets of `packet_bytes` at `rate`.
pub(super) fn spec_rate_interval(rate: Rate, packet_bytes: u32, per_slot: u64) -> SimDuration {
    let bits = u128::from(packet_bytes) * 8 * u128::from(per_slot);
    SimDuration::from_ps((bits * 1_000_000_000_000).div_ceil(u128::from(rate.bps())) as u64)
}

/// Fills in each priority queue's classifier from the flow names of its classes.
pub(super) fn assign_classes(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
    flow_ids: &FlowIds,
    total_flows: usize,
) -> Result<(), ScenarioError> {
    // Declared links in order; duplex ones produced two resolved links with the same spec.
    let mut resolved = links.iter_mut();
    for (i, spec) in file.links.iter().enumerate() {
        let directions = if spec.duplex { 2 } else { 1 };
        for _ in 0..directions {
            let link = resolved.next().expect("one resolved link per direction");
            let (class_of, default_class, leaves) = match &mut link.queue {
                QueueDiscipline::Priority(p) => {
                    let leaves = (0..p.limits.len()).collect();
                    (&mut p.class_of, &mut p.default_class, leaves)
                }
                QueueDiscipline::Cbq(c) => {
                    let classes = &c.config.classes;
                    let leaves: Vec<usize> = (0..classes.len())
                        .filter(|&i| classes.iter().all(|k| k.parent != Some(i)))
                        .collect();
                    (&mut c.class_of, &mut c.default_class, leaves)
                }
                QueueDiscipline::DropTail { .. }
                | QueueDiscipline::Red(_)
                | QueueDiscipline::Codel { .. }
                | QueueDiscipline::FqCodel { .. }
                | QueueDiscipline::Pie { .. }
                | QueueDiscipline::FqPie { .. } => continue,
            };
            let classes = spec.queue.class_flows();
            let unlisted: Vec<usize> = leaves
                .iter()
                .copied()
                .filter(|&c| classes[c].is_none())
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
            for (c, flows) in classes.iter().enumerate() {
                for (k, name) in flows.iter().copied().flatten().enumerate() {
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
pub(super) fn resolve_cbr(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    lookup: &Lookup<'_>,
    routes: &Routes,
    duration: SimDuration,
    tcp_flows: usize,
    flow_ids: &mut FlowIds,
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
                .filter(|&b| (CBR_MIN_PACKET_BYTES..=65_535).contains(&b))
                .ok_or_else(|| {
                    ctx.err(
                        format!("{p}.packet_size"),
                        "is bytes on the wire: between 20B (an IPv4 header) and 65535B",
                    )
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
        let schedule = cbr_schedule(ctx, spec, &p, duration, pattern, packet_bytes)?;
        if let Some(name) = &spec.name {
            ctx.plain_name(&format!("{p}.name"), name)?;
        }
        let base_name = spec.name.clone().unwrap_or_else(|| format!("cbr{i}"));
        checks::flow_count(
            ctx.limits,
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
                random_phase: spec.on_off.is_none()
                    && spec.phase.unwrap_or(BootPhaseName::Random) == BootPhaseName::Random,
            });
        }
    }
    Ok(out)
}

/// When a CBR source is on: always, listed periods (`on`) or a square wave.
fn cbr_schedule(
    ctx: &Ctx<'_>,
    spec: &CbrSpec,
    p: &str,
    duration: SimDuration,
    pattern: CbrPattern,
    packet_bytes: u32,
) -> Result<CbrSchedule, ScenarioError> {
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
    if let Some(on_off) = &spec.on_off {
        return on_off_schedule(ctx, spec, on_off, p, duration, pattern);
    }
    let schedule = match (&spec.on, &spec.square_wave) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(p, "give on or square_wave, not both"));
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
                start: SimTime::ZERO + wave.start.as_ref().map_or(SimDuration::ZERO, |d| d.value),
                on: wave.on.value,
                off: wave.off.value,
            }
        }
        (None, None) => CbrSchedule::Always,
    };
    Ok(schedule)
}

/// A random on/off source (`on_off`): alone among the schedule fields, shaped, its own origin.
fn on_off_schedule(
    ctx: &Ctx<'_>,
    spec: &CbrSpec,
    on_off: &OnOffSpec,
    p: &str,
    duration: SimDuration,
    pattern: CbrPattern,
) -> Result<CbrSchedule, ScenarioError> {
    let alone = [
        ("on", spec.on.is_some()),
        ("square_wave", spec.square_wave.is_some()),
        ("phase", spec.phase.is_some()),
        ("pattern", pattern != CbrPattern::Shaped),
    ];
    if let Some((field, _)) = alone.iter().find(|(_, given)| *given) {
        return Err(ctx.err(
            format!("{p}.{field}"),
            "does not apply with on_off (its bursts start at on_off.start)",
        ));
    }
    let q = format!("{p}.on_off");
    if on_off.on_mean.value.is_zero() {
        return Err(ctx.err(format!("{q}.on_mean"), "must be greater than zero"));
    }
    let law = match (on_off.law, on_off.shape) {
        (OnOffLawName::Exponential, None) => OnOffLaw::Exponential,
        (OnOffLawName::Exponential, Some(_)) => {
            return Err(ctx.err(format!("{q}.shape"), "applies to law = \"pareto\" only"));
        }
        (OnOffLawName::Pareto, shape) => {
            let shape = shape.unwrap_or(1.5);
            if !(shape > 1.0 && shape <= 1e6) {
                return Err(ctx.err(
                    format!("{q}.shape"),
                    "must be greater than 1 (a finite mean) and at most 1e6",
                ));
            }
            OnOffLaw::Pareto { shape }
        }
    };
    let start = on_off.start.as_ref().map_or(SimDuration::ZERO, |d| d.value);
    let stop = on_off.stop.as_ref().map_or(duration, |d| d.value);
    if start >= stop || stop > duration {
        return Err(ctx.err(q, "needs start < stop <= simulation.duration"));
    }
    Ok(CbrSchedule::OnOff {
        law,
        on_mean: on_off.on_mean.value,
        off_mean: on_off.off_mean.value,
        start: SimTime::ZERO + start,
        stop: SimTime::ZERO + stop,
    })
}
