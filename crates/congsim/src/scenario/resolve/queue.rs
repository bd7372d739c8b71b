//! Queue disciplines: DropTail, RED, strict priority and CBQ, with their limits.

use super::context::Ctx;
use crate::scenario::ScenarioError;
use crate::scenario::checks;
use crate::scenario::model::*;
use crate::scenario::schema::*;
use crate::scenario::units::{DurationText, SizeText};
use congsim_core::time::SimDuration;
use congsim_ip::qdisc::{
    CBQ_PRIORITIES, CbqClassConfig, CbqConfig, CodelParams, FqCodelParams, FqOverflow, FqParams,
    FqPieParams, LinkSharing, PieParams, RedParams,
};
use congsim_ip::{LimitSemantics, QueueLimit};
use std::collections::BTreeMap;

/// ns-2 `Queue/CBQ set maxpkt_ 1024`.
const NS2_CBQ_MAX_PACKET_BYTES: u32 = 1024;
/// ns-2's default queue limit (`Queue set limit_ 50`).
const DEFAULT_QUEUE_LIMIT_PACKETS: u64 = 50;

/// A CBQ queue (`p.queue`, kind = "cbq"): the class tree, checked to be one tree with leaves
/// that own queues.
fn resolve_cbq(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &LinkSpec,
    q: &CbqSpec,
) -> Result<QueueDiscipline, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
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
        ctx.plain_name(&class_field(i, "name"), name)?;
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
        let limit_packets = class_limit(ctx, field, i, class.limit_packets)?;
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
    Ok(QueueDiscipline::Cbq(Box::new(CbqClasses {
        names: classes
            .iter()
            .map(|c| c.name.clone().unwrap_or_default())
            .collect(),
        config: CbqConfig {
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
        },
        // Flows are assigned to leaves once they are known (assign_classes).
        class_of: Vec::new(),
        default_class: 0,
    })))
}

/// The output queue of link `p` (`links[i]`).
pub(super) fn resolve_queue(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &LinkSpec,
) -> Result<QueueDiscipline, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    match &spec.queue {
        QueueSpec::Droptail(q) => resolve_droptail(ctx, p, q),
        QueueSpec::Red(q) => resolve_red(ctx, p, spec, q),
        QueueSpec::Priority(q) => {
            let classes = q
                .classes
                .as_ref()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    ctx.err(field("classes"), "give the classes, highest priority first")
                })?;
            let mut limits = Vec::new();
            for (i, class) in classes.iter().enumerate() {
                limits.push(class_limit(ctx, field, i, class.limit_packets)?);
            }
            // Flows are assigned to classes once they are known (assign_classes).
            Ok(QueueDiscipline::Priority(Box::new(PriorityClasses {
                limits,
                class_of: Vec::new(),
                default_class: 0,
            })))
        }
        QueueSpec::Cbq(q) => resolve_cbq(ctx, p, spec, q),
        QueueSpec::Codel(q) => Ok(QueueDiscipline::Codel {
            params: Box::new(codel_params(
                ctx,
                p,
                [&q.target, &q.interval, &q.ce_threshold],
                &q.mtu,
                q.ecn_marking.unwrap_or(false),
            )?),
            limit_packets: at_least_one(ctx, &field("limit_packets"), q.limit_packets, 1000)?,
        }),
        QueueSpec::FqCodel(q) => Ok(QueueDiscipline::FqCodel {
            params: Box::new(FqCodelParams {
                fq: fq_params(
                    ctx,
                    p,
                    FqFields {
                        limit_packets: q.limit_packets,
                        flows: q.flows,
                        quantum: &q.quantum,
                        drop_batch_size: q.drop_batch_size,
                    },
                    FqOverflow::FatFlow,
                )?,
                codel: codel_params(
                    ctx,
                    p,
                    [&q.target, &q.interval, &q.ce_threshold],
                    &q.mtu,
                    q.ecn_marking.unwrap_or(true),
                )?,
                mtu_per_queue: q.mtu_per_queue.unwrap_or(false),
            }),
            hash_seed: q.hash_seed,
        }),
        QueueSpec::Pie(q) => Ok(QueueDiscipline::Pie {
            params: Box::new(pie_params(ctx, p, &q.pie_fields())?),
            limit_packets: at_least_one(ctx, &field("limit_packets"), q.limit_packets, 1000)?,
        }),
        QueueSpec::FqPie(q) => Ok(QueueDiscipline::FqPie {
            params: Box::new(FqPieParams {
                fq: fq_params(
                    ctx,
                    p,
                    FqFields {
                        limit_packets: q.limit_packets,
                        flows: q.flows,
                        quantum: &q.quantum,
                        drop_batch_size: q.drop_batch_size,
                    },
                    match q.overflow {
                        None | Some(FqOverflowName::Tail) => FqOverflow::Tail,
                        Some(FqOverflowName::FatFlow) => FqOverflow::FatFlow,
                    },
                )?,
                pie: pie_params(ctx, p, &q.pie_fields())?,
            }),
            hash_seed: q.hash_seed,
        }),
    }
}

/// The flow-queueing fields of an FQ queue as given.
struct FqFields<'a> {
    limit_packets: Option<u64>,
    flows: Option<u32>,
    quantum: &'a Option<SizeText>,
    drop_batch_size: Option<u32>,
}

/// Flow queueing's parameters (spec `ip.md` §9.1); the hash seed is set when the link is built.
fn fq_params(
    ctx: &Ctx<'_>,
    p: &str,
    given: FqFields<'_>,
    overflow: FqOverflow,
) -> Result<FqParams, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    let flows = match given.flows {
        Some(0) => return Err(ctx.err(field("flows"), "must be at least 1")),
        Some(n) if n > MAX_FQ_FLOWS => {
            return Err(ctx.err(field("flows"), format!("must be at most {MAX_FQ_FLOWS}")));
        }
        other => other.unwrap_or(1024),
    };
    let quantum_bytes = match given.quantum {
        None => 1514,
        Some(size) => u32::try_from(size.value.0)
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| ctx.err(field("quantum"), "must be 1B to 4GB"))?,
    };
    let drop_batch_size = match given.drop_batch_size {
        Some(0) => return Err(ctx.err(field("drop_batch_size"), "must be at least 1")),
        other => other.unwrap_or(64),
    };
    Ok(FqParams {
        limit_packets: at_least_one(ctx, &field("limit_packets"), given.limit_packets, 10240)?,
        flows,
        quantum_bytes,
        drop_batch_size,
        hash_seed: 0,
        overflow,
    })
}

/// PIE's parameters (spec `ip.md` §10.1) from a `pie` or `fq_pie` queue's fields.
fn pie_params(ctx: &Ctx<'_>, p: &str, q: &PieFields<'_>) -> Result<PieParams, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    let defaults = PieParams::rfc_defaults();
    let positive = |name: &str, value: &Option<DurationText>, default: SimDuration| match value {
        Some(d) if d.value.is_zero() => Err(ctx.err(field(name), "must be greater than zero")),
        Some(d) => Ok(d.value),
        None => Ok(default),
    };
    let weight = |name: &str, value: Option<f64>, default: f64| match value {
        Some(w) if !(w.is_finite() && w >= 0.0) => {
            Err(ctx.err(field(name), "must be a finite number ≥ 0 (per second)"))
        }
        other => Ok(other.unwrap_or(default)),
    };
    let mark_ecn_threshold = match q.mark_ecn_threshold {
        Some(t) if !(0.0..=1.0).contains(&t) => {
            return Err(ctx.err(
                field("mark_ecn_threshold"),
                "must be a probability in [0, 1]",
            ));
        }
        other => other.unwrap_or(defaults.mark_ecn_threshold),
    };
    let dequeue_threshold_bytes = match q.dequeue_threshold {
        Some(size) if size.value.0 == 0 => {
            return Err(ctx.err(field("dequeue_threshold"), "must be at least 1B"));
        }
        other => other
            .as_ref()
            .map_or(defaults.dequeue_threshold_bytes, |size| size.value.0),
    };
    Ok(PieParams {
        target: positive("target", q.target, defaults.target)?,
        update_interval: positive(
            "update_interval",
            q.update_interval,
            defaults.update_interval,
        )?,
        alpha: weight("alpha", q.alpha, defaults.alpha)?,
        beta: weight("beta", q.beta, defaults.beta)?,
        max_burst: q.max_burst.as_ref().map_or(defaults.max_burst, |d| d.value),
        dequeue_threshold_bytes,
        use_departure_rate: q.use_departure_rate.unwrap_or(defaults.use_departure_rate),
        ecn_marking: q.ecn_marking.unwrap_or(defaults.ecn_marking),
        mark_ecn_threshold,
        use_derandomization: q
            .use_derandomization
            .unwrap_or(defaults.use_derandomization),
        cap_drop_adjustment: q
            .cap_drop_adjustment
            .unwrap_or(defaults.cap_drop_adjustment),
        mtu_bytes: q
            .mtu
            .as_ref()
            .map_or(defaults.mtu_bytes, |size| size.value.0),
    })
}

/// Most flow queues an FQ-CoDel link may have (Linux's limit).
const MAX_FQ_FLOWS: u32 = 65536;

/// `value` (default `default`), at least 1.
fn at_least_one(
    ctx: &Ctx<'_>,
    field: &str,
    value: Option<u64>,
    default: u64,
) -> Result<u64, ScenarioError> {
    match value {
        Some(0) => Err(ctx.err(field, "must be at least 1")),
        other => Ok(other.unwrap_or(default)),
    }
}

/// CoDel's parameters from `[target, interval, ce_threshold]`, `mtu` and the marking switch.
fn codel_params(
    ctx: &Ctx<'_>,
    p: &str,
    [target, interval, ce_threshold]: [&Option<DurationText>; 3],
    mtu: &Option<SizeText>,
    ecn_marking: bool,
) -> Result<CodelParams, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    let positive = |name: &str, value: &Option<DurationText>, default_ms: u64| match value {
        Some(d) if d.value.is_zero() => Err(ctx.err(field(name), "must be greater than zero")),
        Some(d) => Ok(d.value),
        None => Ok(SimDuration::from_millis(default_ms)),
    };
    let target_given = target.is_some();
    let target = positive("target", target, 5)?;
    let interval = positive("interval", interval, 100)?;
    if target >= interval {
        return Err(ctx.err(
            field(if target_given { "target" } else { "interval" }),
            format!(
                "target ({}) must be below interval ({}): CoDel drops when the sojourn stays above target for an interval",
                checks::readable_duration(target.as_ps()),
                checks::readable_duration(interval.as_ps())
            ),
        ));
    }
    Ok(CodelParams {
        target,
        interval,
        mtu_bytes: mtu.as_ref().map_or(1514, |size| size.value.0),
        ecn_marking,
        ce_threshold: ce_threshold.as_ref().map(|d| d.value),
    })
}

/// Class `i`'s packet limit: at least 1, default 50.
fn class_limit(
    ctx: &Ctx<'_>,
    field: impl Fn(&str) -> String,
    i: usize,
    limit_packets: Option<u64>,
) -> Result<u64, ScenarioError> {
    match limit_packets {
        Some(0) => Err(ctx.err(
            field(&format!("classes[{i}].limit_packets")),
            "must be at least 1",
        )),
        limit => Ok(limit.unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS)),
    }
}

fn resolve_droptail(
    ctx: &Ctx<'_>,
    p: &str,
    q: &DropTailSpec,
) -> Result<QueueDiscipline, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    let limit = match (q.limit_packets, &q.limit_bytes) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(
                format!("{p}.queue"),
                "give limit_packets or limit_bytes, not both",
            ));
        }
        (Some(0), None) => return Err(ctx.err(field("limit_packets"), "must be at least 1")),
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

fn resolve_red(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &LinkSpec,
    q: &RedSpec,
) -> Result<QueueDiscipline, ScenarioError> {
    let field = |name: &str| format!("{p}.queue.{name}");
    let limit_packets = match q.limit_packets {
        Some(0) => return Err(ctx.err(field("limit_packets"), "must be at least 1")),
        other => other.unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS),
    };
    if q.r_over_pb == Some(true) && q.wait.is_some() {
        return Err(ctx.err(
            field("wait"),
            "give wait or r_over_pb = true, not both (they are two spacing rules)",
        ));
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
        // Equal thresholds are a step: nothing below, every arrival above (DCTCP's marking).
        v if v >= min_th => v,
        _ => {
            return Err(ctx.err(
                field("max_th"),
                format!("must be at least min_th ({min_th}) (equal: a step; 0: 3 · min_th)"),
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
    Ok(QueueDiscipline::Red(Box::new(RedParams {
        min_th,
        max_th,
        w_q,
        max_p,
        limit_packets,
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
    })))
}
