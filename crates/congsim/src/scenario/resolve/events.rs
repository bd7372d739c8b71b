//! `[[events]]`: changes to the network and its traffic at given times, checked one by one and
//! against each other (a link taken down twice, or down and up at one instant, is refused).

use super::context::{Ctx, FlowIds};
use super::link_named;
use super::queue::resolve_queue;
use crate::scenario::ScenarioError;
use crate::scenario::checks;
use crate::scenario::model::{
    NetworkChange, QueueDiscipline, ResolvedCbr, ResolvedEvent, ResolvedFlow, ResolvedLink,
};
use crate::scenario::schema::{self, EventAction, EventSpec, LinkSpec, QueueSpec, ScenarioFile};
use congsim_core::time::SimDuration;
use congsim_core::{FlowId, LinkId};
use congsim_ip::QueueLimit;
use std::collections::BTreeMap;

/// The fields an action takes besides `at` and `action`.
fn fields_of(action: EventAction) -> &'static [&'static str] {
    match action {
        EventAction::LinkDown | EventAction::LinkUp => &["link"],
        EventAction::LinkRate => &["link", "rate"],
        EventAction::LinkDelay => &["link", "delay"],
        EventAction::FlowStart | EventAction::FlowStop => &["flow"],
        EventAction::QueueLimit => &["link", "limit_packets"],
        EventAction::QueueParams => &["link", "queue"],
        EventAction::CbrRate => &["cbr", "rate"],
        EventAction::LinkFailures => &["link", "up_mean", "down_mean"],
    }
}

/// The fields an action may take besides those it needs.
fn optional_fields_of(action: EventAction) -> &'static [&'static str] {
    match action {
        EventAction::LinkFailures => &["until"],
        _ => &[],
    }
}

/// Every action, in the order the messages list them.
const ACTIONS: [EventAction; 10] = [
    EventAction::LinkDown,
    EventAction::LinkUp,
    EventAction::LinkRate,
    EventAction::LinkDelay,
    EventAction::FlowStart,
    EventAction::FlowStop,
    EventAction::QueueLimit,
    EventAction::QueueParams,
    EventAction::CbrRate,
    EventAction::LinkFailures,
];

fn action_name(action: EventAction) -> &'static str {
    match action {
        EventAction::LinkDown => "link_down",
        EventAction::LinkUp => "link_up",
        EventAction::LinkRate => "link_rate",
        EventAction::LinkDelay => "link_delay",
        EventAction::FlowStart => "flow_start",
        EventAction::FlowStop => "flow_stop",
        EventAction::QueueLimit => "queue_limit",
        EventAction::QueueParams => "queue_params",
        EventAction::CbrRate => "cbr_rate",
        EventAction::LinkFailures => "link_failures",
    }
}

/// The events in time order (file order at one instant). Links with events leave the FIFO
/// fast path, which computes departures at arrival from a rate that must then not change.
pub(super) fn resolve_events(
    ctx: &Ctx<'_>,
    file: &ScenarioFile,
    links: &mut [ResolvedLink],
    flow_ids: &FlowIds,
    (flows, cbr): (&[ResolvedFlow], &[ResolvedCbr]),
    duration: SimDuration,
) -> Result<Vec<ResolvedEvent>, ScenarioError> {
    let limits = ctx.limits;
    limits.check(
        "events",
        file.events.len() as u64,
        ctx.file,
        "events",
        || format!("has {} events", file.events.len()),
    )?;
    let mut events: Vec<(usize, ResolvedEvent)> = Vec::new();
    for (i, spec) in file.events.iter().enumerate() {
        let p = format!("events[{i}]");
        let at = spec.at.value;
        if at >= duration {
            return Err(ctx.err(
                format!("{p}.at"),
                format!(
                    "{} is not before the end of the run ({})",
                    checks::readable_duration(at.as_ps()),
                    checks::readable_duration(duration.as_ps())
                ),
            ));
        }
        check_fields(ctx, &p, spec)?;
        for change in changes(
            ctx,
            &p,
            (file, spec),
            links,
            flow_ids,
            (flows, cbr),
            duration,
        )? {
            events.push((
                i,
                ResolvedEvent {
                    at,
                    change,
                    entry: i,
                },
            ));
        }
    }
    events.sort_by_key(|(i, e)| (e.at, *i));
    check_sequence(ctx, &events, links, &file.nodes)?;
    if !events.is_empty() {
        for link in links.iter_mut() {
            link.fifo_fast_path = false;
        }
    }
    Ok(events.into_iter().map(|(_, e)| e).collect())
}

/// Refuses a field the action does not take, and a missing one it does.
fn check_fields(ctx: &Ctx<'_>, p: &str, spec: &EventSpec) -> Result<(), ScenarioError> {
    let takes = fields_of(spec.action);
    let given = [
        ("link", spec.link.is_some()),
        ("rate", spec.rate.is_some()),
        ("delay", spec.delay.is_some()),
        ("flow", spec.flow.is_some()),
        ("cbr", spec.cbr.is_some()),
        ("limit_packets", spec.limit_packets.is_some()),
        ("queue", spec.queue.is_some()),
        ("up_mean", spec.up_mean.is_some()),
        ("down_mean", spec.down_mean.is_some()),
        ("until", spec.until.is_some()),
    ];
    let optional = optional_fields_of(spec.action);
    for (field, present) in given {
        if present && !takes.contains(&field) && !optional.contains(&field) {
            let owners: Vec<&str> = ACTIONS
                .into_iter()
                .filter(|a| {
                    fields_of(*a).contains(&field) || optional_fields_of(*a).contains(&field)
                })
                .map(action_name)
                .collect();
            return Err(ctx.err(
                format!("{p}.{field}"),
                format!("applies to action = {} only", owners.join(", ")),
            ));
        }
        if !present && takes.contains(&field) {
            return Err(ctx.err(
                format!("{p}.{field}"),
                format!("action = \"{}\" needs it", action_name(spec.action)),
            ));
        }
    }
    Ok(())
}

/// What one event changes (a flow name with `count` > 1 stands for each of its flows).
fn changes(
    ctx: &Ctx<'_>,
    p: &str,
    (file, spec): (&ScenarioFile, &EventSpec),
    links: &mut [ResolvedLink],
    flow_ids: &FlowIds,
    (flows, cbr): (&[ResolvedFlow], &[ResolvedCbr]),
    duration: SimDuration,
) -> Result<Vec<NetworkChange>, ScenarioError> {
    if let Some(name) = &spec.link {
        let field = format!("{p}.link");
        let index = link_named(ctx, &field, (links, &file.nodes), name)?;
        let link = &links[index];
        if link.atm.is_some() {
            return Err(ctx.err(
                field,
                format!("\"{name}\" is an ATM link: scheduled link events apply to IP links (an ATM VC keeps the route it was set up on)"),
            ));
        }
        let id = LinkId(index as u32);
        let class_based = matches!(
            link.queue,
            QueueDiscipline::Priority(_) | QueueDiscipline::Cbq(_)
        );
        let change = match spec.action {
            EventAction::LinkDown | EventAction::LinkUp | EventAction::LinkFailures
                if class_based =>
            {
                return Err(ctx.err(
                    field,
                    format!(
                        "\"{name}\" has a {} queue, which may hold packets back; links go down and up with droptail, red, codel, fq_codel, pie and fq_pie queues",
                        link.queue.kind_name()
                    ),
                ));
            }
            EventAction::LinkDown => NetworkChange::LinkDown(id),
            EventAction::LinkUp => NetworkChange::LinkUp(id),
            EventAction::LinkRate => {
                let rate = spec.rate.as_ref().expect("checked").value;
                NetworkChange::LinkRate(id, rate)
            }
            EventAction::LinkDelay => {
                NetworkChange::LinkDelay(id, spec.delay.as_ref().expect("checked").value)
            }
            EventAction::QueueLimit => {
                let limit = spec.limit_packets.expect("checked");
                let bytes = matches!(
                    link.queue,
                    QueueDiscipline::DropTail {
                        limit: QueueLimit::Bytes(_),
                        ..
                    }
                );
                if class_based || bytes || limit == 0 {
                    return Err(ctx.err(
                        format!("{p}.limit_packets"),
                        format!("\"{name}\" has a {} queue{}: queue_limit sets at least 1 packet of a droptail (packet-limited), red, codel, fq_codel, pie or fq_pie queue", link.queue.kind_name(), if bytes { " limited in bytes" } else { "" }),
                    ));
                }
                NetworkChange::QueueLimit(id, limit)
            }
            EventAction::QueueParams => {
                let settings = new_queue_settings(
                    ctx,
                    p,
                    spec,
                    (&file.links[link.spec_index], &file.nodes),
                    link,
                )?;
                let changes = &mut links[index].script_mut().queue_changes;
                changes.push(settings);
                NetworkChange::QueueParams(id, (changes.len() - 1) as u32)
            }
            EventAction::LinkFailures => {
                failures(ctx, p, spec, (links, &file.nodes), index, duration)?
            }
            EventAction::FlowStart | EventAction::FlowStop | EventAction::CbrRate => {
                unreachable!("actions without a link")
            }
        };
        return Ok(vec![change]);
    }
    if let Some(name) = &spec.cbr {
        let index = cbr.iter().position(|c| &c.name == name).ok_or_else(|| {
            let known = cbr.iter().map(|c| c.name.as_str());
            ctx.err(
                format!("{p}.cbr"),
                format!(
                    "unknown CBR source \"{name}\"; CBR sources are: {}",
                    checks::listing(known)
                ),
            )
        })?;
        return Ok(vec![NetworkChange::CbrRate(
            index,
            spec.rate.as_ref().expect("checked").value,
        )]);
    }
    let name = spec.flow.as_ref().expect("checked");
    let field = format!("{p}.flow");
    let ids = flow_ids.get(name).ok_or_else(|| {
        let known = flows.iter().map(|f| f.name.as_str());
        ctx.err(
            &field,
            format!(
                "unknown flow \"{name}\"; TCP flows are: {}",
                checks::listing(known)
            ),
        )
    })?;
    ids.iter()
        .map(|&id| {
            let flow = flows.get(id.index()).ok_or_else(|| {
                ctx.err(&field, format!("\"{name}\" is a CBR source: flow events apply to TCP flows"))
            })?;
            match spec.action {
                EventAction::FlowStart if flow.size_bytes.is_some() => Err(ctx.err(
                    &field,
                    format!("\"{name}\" sends a file of a given size: flow_start resumes a persistent flow"),
                )),
                EventAction::FlowStart => Ok(NetworkChange::FlowStart(id)),
                EventAction::FlowStop => Ok(NetworkChange::FlowStop(id)),
                _ => unreachable!("link actions"),
            }
        })
        .collect()
}

/// The settings a `queue_params` event gives `link`: its queue as the file writes it with the
/// event's fields over it, resolved like a link's. What the running discipline's state depends
/// on may not change: the kind, an FQ queue's number of queues and hash, RED's unit.
fn new_queue_settings(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &EventSpec,
    (link_spec, nodes): (&LinkSpec, &[String]),
    link: &ResolvedLink,
) -> Result<QueueDiscipline, ScenarioError> {
    let name = link.name(nodes);
    let field = format!("{p}.queue");
    let kind = link.queue.kind_name();
    let given = spec.queue.as_ref().expect("checked");
    if given.get("kind").is_some_and(|k| k.as_str() != Some(kind)) {
        return Err(ctx.err(
            format!("{field}.kind"),
            format!("\"{name}\" keeps its {kind} queue: give only the fields that change"),
        ));
    }
    let keeps = |what: &str| {
        ctx.err(
            &field,
            format!("\"{name}\"'s {kind} queue keeps its {what} while it runs"),
        )
    };
    if matches!(
        link.queue,
        QueueDiscipline::Priority(_) | QueueDiscipline::Cbq(_)
    ) {
        return Err(ctx.err(
            &field,
            format!(
                "\"{name}\" has a {kind} queue, which keeps its classes: queue_params changes droptail, red, codel, fq_codel, pie and fq_pie queues"
            ),
        ));
    }
    let mut merged = match toml::Value::try_from(&link_spec.queue) {
        Ok(toml::Value::Table(table)) => table,
        _ => unreachable!("a queue is written as a table"),
    };
    merged.extend(given.clone());
    let queue: QueueSpec =
        serde_path_to_error::deserialize(toml::Value::Table(merged)).map_err(|e| {
            let (path, message) =
                schema::split_nested(e.path().to_string(), e.inner().message().trim());
            ctx.err(format!("{field}.{path}"), message)
        })?;
    let resolved = resolve_queue(
        ctx,
        p,
        &LinkSpec {
            queue,
            ..link_spec.clone()
        },
    )?;
    match (&link.queue, &resolved) {
        (
            QueueDiscipline::FqCodel {
                params: a,
                hash_seed: ha,
            },
            QueueDiscipline::FqCodel {
                params: b,
                hash_seed: hb,
            },
        ) if (a.fq.flows, ha) != (b.fq.flows, hb) => Err(keeps(
            "flows and hash_seed (its packets are hashed into its queues)",
        )),
        (
            QueueDiscipline::FqPie {
                params: a,
                hash_seed: ha,
            },
            QueueDiscipline::FqPie {
                params: b,
                hash_seed: hb,
            },
        ) if (a.fq.flows, ha) != (b.fq.flows, hb) => Err(keeps(
            "flows and hash_seed (its packets are hashed into its queues)",
        )),
        (QueueDiscipline::Red(a), QueueDiscipline::Red(b))
            if (a.queue_in_bytes, a.mean_packet_bytes)
                != (b.queue_in_bytes, b.mean_packet_bytes) =>
        {
            Err(keeps(
                "queue_in_bytes and mean_packet_size (its average carries over in its unit)",
            ))
        }
        _ => Ok(resolved),
    }
}

/// A `link_failures` process on link `index` and its reverse direction, if there is one.
fn failures(
    ctx: &Ctx<'_>,
    p: &str,
    spec: &EventSpec,
    (links, nodes): (&[ResolvedLink], &[String]),
    index: usize,
    duration: SimDuration,
) -> Result<NetworkChange, ScenarioError> {
    let mean = |field: &str, value: &Option<crate::scenario::units::DurationText>| {
        let value = value.as_ref().expect("checked").value;
        if value.is_zero() {
            return Err(ctx.err(format!("{p}.{field}"), "must be greater than zero"));
        }
        Ok(value)
    };
    let (up_mean, down_mean) = (
        mean("up_mean", &spec.up_mean)?,
        mean("down_mean", &spec.down_mean)?,
    );
    let until = spec.until.as_ref().map_or(duration, |d| d.value);
    if until <= spec.at.value || until > duration {
        return Err(ctx.err(
            format!("{p}.until"),
            "must be after at and at most simulation.duration",
        ));
    }
    let link = &links[index];
    let reverse = (links.iter()).position(|l| l.from == link.to && l.to == link.from);
    if let Some(r) = reverse
        && matches!(
            links[r].queue,
            QueueDiscipline::Priority(_) | QueueDiscipline::Cbq(_)
        )
    {
        return Err(ctx.err(
            format!("{p}.link"),
            format!(
                "the reverse direction {} has a {} queue, which may hold packets back; links go down and up with droptail, red, codel, fq_codel, pie and fq_pie queues",
                links[r].name(nodes),
                links[r].queue.kind_name()
            ),
        ));
    }
    Ok(NetworkChange::LinkFailures {
        link: LinkId(index as u32),
        reverse: reverse.map(|r| LinkId(r as u32)),
        up_mean,
        down_mean,
        until,
    })
}

/// What an event is about, to find two that contradict each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    LinkState(LinkId),
    LinkRate(LinkId),
    LinkDelay(LinkId),
    /// `queue_limit` and `queue_params`.
    Queue(LinkId),
    Flow(FlowId),
    Cbr(usize),
}

fn target(change: &NetworkChange) -> Target {
    match *change {
        NetworkChange::LinkDown(l) | NetworkChange::LinkUp(l) => Target::LinkState(l),
        NetworkChange::LinkRate(l, _) => Target::LinkRate(l),
        NetworkChange::LinkDelay(l, _) => Target::LinkDelay(l),
        NetworkChange::FlowStart(f) | NetworkChange::FlowStop(f) => Target::Flow(f),
        NetworkChange::QueueLimit(l, _) | NetworkChange::QueueParams(l, _) => Target::Queue(l),
        NetworkChange::CbrRate(i, _) => Target::Cbr(i),
        NetworkChange::LinkFailures { link, .. } => Target::LinkState(link),
    }
}

/// In time order: two events at one instant that set the same thing differently, a link
/// taken down while down or brought up while up.
fn check_sequence(
    ctx: &Ctx<'_>,
    events: &[(usize, ResolvedEvent)],
    links: &[ResolvedLink],
    nodes: &[String],
) -> Result<(), ScenarioError> {
    let mut at_instant: BTreeMap<(SimDuration, Target), (usize, NetworkChange)> = BTreeMap::new();
    let mut down = vec![false; links.len()];
    // A random process owns the state of its links: no other event may take them down or up.
    let mut failing: Vec<Option<usize>> = vec![None; links.len()];
    for (i, event) in events {
        if let NetworkChange::LinkFailures { link, reverse, .. } = event.change {
            for l in std::iter::once(link).chain(reverse) {
                failing[l.index()].get_or_insert(*i);
            }
        }
    }
    for (i, event) in events {
        let state_of = match event.change {
            NetworkChange::LinkDown(l) | NetworkChange::LinkUp(l) => Some(l),
            NetworkChange::LinkFailures { link, reverse, .. } => [Some(link), reverse]
                .into_iter()
                .flatten()
                .find(|l| failing[l.index()] != Some(*i)),
            _ => None,
        };
        if let Some(l) = state_of
            && let Some(j) = failing[l.index()]
            && j != *i
        {
            return Err(ctx.err(
                format!("events[{i}].link"),
                format!(
                    "\"{}\" has a link_failures process (events[{j}]), which decides when it is down and up",
                    links[l.index()].name(nodes)
                ),
            ));
        }
        let key = (event.at, target(&event.change));
        if let Some((j, earlier)) = at_instant.get(&key)
            && *earlier != event.change
        {
            return Err(ctx.err(
                format!("events[{i}]"),
                format!(
                    "contradicts events[{j}] at the same instant ({})",
                    checks::readable_duration(event.at.as_ps())
                ),
            ));
        }
        at_instant.insert(key, (*i, event.change));
        let (link, going_down) = match event.change {
            NetworkChange::LinkDown(l) => (l, true),
            NetworkChange::LinkUp(l) => (l, false),
            _ => continue,
        };
        if down[link.index()] == going_down {
            let name = links[link.index()].name(nodes);
            return Err(ctx.err(
                format!("events[{i}].action"),
                format!(
                    "\"{name}\" is already {} at {}",
                    if going_down { "down" } else { "up" },
                    checks::readable_duration(event.at.as_ps())
                ),
            ));
        }
        down[link.index()] = going_down;
    }
    Ok(())
}
