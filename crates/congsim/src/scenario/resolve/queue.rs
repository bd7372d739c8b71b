//! Queue disciplines: DropTail, RED, strict priority and CBQ, with their limits.

use super::*;

/// A CBQ queue (`p.queue`, kind = "cbq"): the class tree, checked to be one tree with leaves
/// that own queues.
pub(super) fn resolve_cbq(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &LinkSpec,
) -> Result<QueueDiscipline, ScenarioError> {
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
pub(super) fn no_queue_limit(
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
pub(super) fn only_for(
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
pub(super) fn resolve_queue(
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
