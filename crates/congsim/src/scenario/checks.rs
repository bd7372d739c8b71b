//! Checks on a scenario beyond its fields' own ranges: resource limits that keep a mistyped
//! value from exhausting memory mid-run (found by `validate`, in time linear in the input), and
//! warnings for settings that do nothing or defeat themselves.

use super::ScenarioError;
use super::limits::{Limits, grouped};
use super::model::{QueueDiscipline, Scenario, ScenarioWarning};
use super::schema::SizeLawName;
use congsim_core::{FlowId, LinkId};
use congsim_ip::{QueueLimit, ScriptedAction};
use congsim_tcp::CongestionControl;

/// Names listed in a message: the first 20, then how many more (a scenario may have
/// thousands of nodes or flows).
pub(super) fn listing<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    const SHOWN: usize = 20;
    let mut names = names.into_iter();
    let shown: Vec<&str> = names.by_ref().take(SHOWN).collect();
    let more = names.count();
    let listed = shown.join(", ");
    if more == 0 {
        listed
    } else {
        format!("{listed} and {more} more")
    }
}

/// `ps` picoseconds rounded up to three digits in the largest unit that keeps them above 1.
pub(super) fn readable_duration(ps: u64) -> String {
    let (unit, per) = [
        ("s", 1e12),
        ("ms", 1e9),
        ("us", 1e6),
        ("ns", 1e3),
        ("ps", 1.0),
    ]
    .into_iter()
    .find(|(_, per)| ps as f64 >= *per)
    .unwrap_or(("ps", 1.0));
    let value = ps as f64 / per;
    let scale = 10f64.powi(2 - value.log10().floor() as i32);
    format!("{}{unit}", (value * scale).ceil() / scale)
}

/// The route table for `nodes` nodes must stay in bounds: `rows` rows of one entry per node,
/// for traffic addressed to `destinations` nodes.
pub(super) fn route_entries(
    limits: &Limits,
    file: &str,
    nodes: usize,
    destinations: usize,
    rows: u64,
) -> Result<(), ScenarioError> {
    let entries = (nodes as u64).saturating_mul(rows);
    limits.check("route_entries", entries, file, "nodes", || {
        format!(
            "{} nodes with traffic addressed to {} of them need {} route entries ({} nodes need a \
             route table of their own: destinations that are not hosts on one access link, and \
             the nodes such hosts hang off)",
            grouped(nodes as u64),
            grouped(destinations as u64),
            grouped(entries),
            grouped(rows),
        )
    })
}

/// Flows declared so far (with their counts) must stay in bounds; `path` is the entry that
/// passes the limit.
pub(super) fn flow_count(
    limits: &Limits,
    file: &str,
    path: &str,
    flows: u64,
) -> Result<(), ScenarioError> {
    limits.check("flows", flows, file, path, || {
        format!(
            "brings the number of flows and CBR sources to {}",
            grouped(flows)
        )
    })
}

/// Limits on what a run will hold in memory or take in time, checked on the resolved
/// scenario.
pub(super) fn limits(s: &Scenario, limits: &Limits, file: &str) -> Result<(), ScenarioError> {
    if let Some(interval) = s.series_interval {
        let samples = s.duration.as_ps() / interval.as_ps() + 1;
        let series = (s.flows.len() + s.cbr.len() + s.links.len()) as u64;
        let rows = samples.saturating_mul(series);
        let most = limits.get("series_rows");
        limits.check("series_rows", rows, file, "metrics.series_interval", || {
            let shortest_ps = s.duration.as_ps().div_ceil((most / series.max(1)).max(1));
            format!(
                "{} samples of {series} series make {} rows (over this duration, an interval of at least {} stays within the limit)",
                grouped(samples),
                grouped(rows),
                readable_duration(shortest_ps)
            )
        })?;
    }
    for (i, (t, spec)) in s.transfers.iter().zip(&s.source.transfers).enumerate() {
        let active_s = (t.stop.as_ps() - t.start.as_ps()) as f64 / 1e12;
        let expected = t.arrivals_per_second * active_s;
        let field = if spec.arrivals_per_second.is_some() {
            "arrivals_per_second"
        } else {
            "load"
        };
        limits.check(
            "transfers",
            saturating_count(expected),
            file,
            &format!("transfers[{i}].{field}"),
            || {
                format!(
                    "{:.3e} arrivals a second over {active_s} s start about {expected:.3e} transfers",
                    t.arrivals_per_second
                )
            },
        )?;
    }
    source_packets(s, limits, file)?;
    trace_rows(s, limits, file)
}

/// A non-negative estimate as a count (saturating: estimates can pass 2^64).
fn saturating_count(x: f64) -> u64 {
    if x.is_nan() { u64::MAX } else { x as u64 }
}

/// Packets the CBR sources and cells the VBR sources send over the run, at their rates (the
/// whole run, as an upper bound of on periods): a source of 1-byte packets at 100 Gbps would
/// otherwise run for ever.
fn source_packets(s: &Scenario, limits: &Limits, file: &str) -> Result<(), ScenarioError> {
    let run_s = s.duration.as_ps() as f64 / 1e12;
    let cbr = (s.cbr.iter().zip(0..)).map(|(c, i)| {
        let packets = c.config.rate.bps() as f64 * run_s / (8.0 * f64::from(c.config.packet_bytes));
        (packets, i)
    });
    let mut total = 0.0;
    let mut largest: Option<(f64, usize)> = None;
    for (packets, i) in cbr {
        total += packets;
        if largest.is_none_or(|(most, _)| packets > most) {
            largest = Some((packets, i));
        }
    }
    let vbr_cells: f64 = (s.links.iter())
        .filter_map(|l| l.atm.as_ref()?.vbr.as_ref())
        .map(|v| v.rate * run_s)
        .sum();
    total += vbr_cells;
    // The entry named: the largest CBR source's, or the VBR sources' when they are all.
    let sources = s.cbr.len()
        + (s.links.iter())
            .filter(|l| l.atm.as_ref().is_some_and(|a| a.vbr.is_some()))
            .count();
    let (path, which) = match largest {
        Some((_, i)) if sources == 1 => (
            cbr_entry(s, i),
            format!("the CBR source \"{}\"", s.cbr[i].name),
        ),
        Some((_, i)) => (
            cbr_entry(s, i),
            format!(
                "the {sources} CBR and VBR sources (the largest \"{}\")",
                s.cbr[i].name
            ),
        ),
        None => ("vbr".to_string(), format!("the {sources} VBR sources")),
    };
    limits.check(
        "source_packets",
        saturating_count(total),
        file,
        &path,
        || {
            format!(
                "{which} would send about {total:.3e} packets and cells in {run_s} s at their rates"
            )
        },
    )
}

/// The `[[cbr]]` entry that declared resolved source `index` (an entry with `count` makes
/// several).
fn cbr_entry(s: &Scenario, index: usize) -> String {
    let mut first = 0;
    for (i, spec) in s.source.cbr.iter().enumerate() {
        first += spec.count as usize;
        if index < first {
            return format!("cbr[{i}].rate");
        }
    }
    "cbr".to_string()
}

/// The `sojourn` table has a row per packet a recording link sends: at most its rate over the
/// smallest IP packet (a 40-byte ACK) for the whole run.
fn sojourn_rows(
    s: &Scenario,
    limits: &Limits,
    file: &str,
    run_s: f64,
) -> Result<(), ScenarioError> {
    const SMALLEST_PACKET_BYTES: f64 = 40.0;
    let packets: f64 = (s.links.iter())
        .filter(|l| l.record_sojourns)
        .map(|l| l.rate.bps() as f64 * run_s / (8.0 * SMALLEST_PACKET_BYTES))
        .sum();
    limits.check("trace_rows", saturating_count(packets), file, "metrics.sojourn_links", || {
        format!(
            "the links it names can send up to about {packets:.3e} packets in {run_s} s: a sojourn row each"
        )
    })
}

/// Rows the sequence trace, the TCP event table and the change trace could reach: data packets the flows can
/// send at the rate of the slowest link on their paths, counted once per such link (flows
/// that share a bottleneck share its rate); the sequence trace has a row per data packet
/// sent, per ACK received and per drop. An upper bound: the k = 8 fat tree for 3 s is
/// estimated at 62 million rows and writes 26 million.
fn trace_rows(s: &Scenario, limits: &Limits, file: &str) -> Result<(), ScenarioError> {
    let run_s = s.duration.as_ps() as f64 / 1e12;
    sojourn_rows(s, limits, file, run_s)?;
    let changes = s.flows.iter().any(|f| f.trace_changes);
    if !(s.sequence_trace || s.tcp_events || changes)
        || (s.flows.is_empty() && s.transfers.is_empty())
    {
        return Ok(());
    }
    let endpoints = (s.flows.iter())
        .map(|f| (f.src, f.dst, f.sender.mss + f.sender.header_bytes))
        .chain((s.transfers.iter()).map(|t| (t.src, t.dst, t.sender.mss + t.sender.header_bytes)));
    // Per bottleneck link: the smallest packet that crosses it as a flow's bottleneck.
    let mut smallest: Vec<u32> = vec![0; s.links.len()];
    for (src, dst, bytes) in endpoints {
        let slowest = (s.routes.reachable_links(&s.links, src, dst).into_iter())
            .min_by_key(|l| (s.links[l.index()].rate.bps(), l.index()));
        if let Some(l) = slowest {
            let entry = &mut smallest[l.index()];
            *entry = if *entry == 0 {
                bytes
            } else {
                (*entry).min(bytes)
            };
        }
    }
    let packets: f64 = (s.links.iter().zip(&smallest))
        .filter(|(_, bytes)| **bytes > 0)
        .map(|(l, bytes)| l.rate.bps() as f64 * run_s / (8.0 * f64::from(*bytes)))
        .sum();
    // A sent segment, and at most one ACK for it (one for two with delayed ACKs); drops and
    // retransmissions are a small share. A state change comes at most once per ACK.
    let (field, rows) = if s.sequence_trace {
        ("metrics.sequence_trace", 2.0 * packets)
    } else if s.tcp_events {
        ("metrics.tcp_events", packets)
    } else {
        ("metrics.tcp_changes", packets)
    };
    limits.check("trace_rows", saturating_count(rows), file, field, || {
        format!(
            "the flows can send about {packets:.3e} data packets in {run_s} s at their bottleneck rates: up to about {rows:.3e} rows"
        )
    })
}

/// A scripted drop or mark as declared (`drops[i]`, `marks[i]`), for one flow it names.
pub(super) struct Scripted {
    pub path: String,
    pub link: LinkId,
    pub flow: FlowId,
    pub packet: u64,
    pub action: ScriptedAction,
}

/// Settings that silently do nothing or defeat themselves.
pub(super) fn warnings(s: &Scenario, scripted: &[Scripted]) -> Vec<ScenarioWarning> {
    let mut out = Vec::new();
    // Per link: the largest data packet (bytes on the wire) crossing it, and whose it is.
    let mut packet_bytes: Vec<Option<(u32, &str)>> = vec![None; s.links.len()];
    let data_paths = (s.flows.iter())
        .map(|f| {
            (
                f.src,
                f.dst,
                f.sender.mss + f.sender.header_bytes,
                f.name.as_str(),
            )
        })
        .chain((s.cbr.iter()).map(|c| (c.src, c.dst, c.config.packet_bytes, c.name.as_str())))
        .chain((s.transfers.iter()).map(|t| {
            (
                t.src,
                t.dst,
                t.sender.mss + t.sender.header_bytes,
                t.name.as_str(),
            )
        }));
    let mut on_data_path = vec![Vec::new(); s.links.len()];
    for (id, (src, dst, bytes, name)) in data_paths.enumerate() {
        for link in s.reachable_links(src, dst) {
            let largest = &mut packet_bytes[link.index()];
            if largest.is_none_or(|(b, _)| bytes > b) {
                *largest = Some((bytes, name));
            }
            on_data_path[link.index()].push(id);
        }
    }
    for d in scripted {
        if !on_data_path[d.link.index()].contains(&d.flow.index()) {
            let what = match d.action {
                ScriptedAction::Drop => "drop",
                ScriptedAction::Mark => "mark",
            };
            let names = s
                .flows
                .iter()
                .map(|f| &f.name)
                .chain(s.cbr.iter().map(|c| &c.name));
            let flow = names
                .clone()
                .nth(d.flow.index())
                .map_or("?", |n| n.as_str());
            out.push(ScenarioWarning {
                path: d.path.clone(),
                message: format!(
                    "never happens: the data of \"{flow}\" does not cross {} (packet {} would be the {what}'s target)",
                    s.links[d.link.index()].name(&s.nodes),
                    d.packet
                ),
            });
        }
    }
    if let Some(warning) = dctcp_without_marks(s, scripted) {
        out.push(warning);
    }
    // Allowed beside any law, so that one plan-wide setting can sweep web and other sizes.
    for (i, t) in s.source.transfers.iter().enumerate() {
        let shapes = [("web_sigma", t.web_sigma), ("web_alpha", t.web_alpha)];
        for (name, _) in shapes.iter().filter(|(_, v)| v.is_some()) {
            if t.sizes != SizeLawName::Web {
                out.push(ScenarioWarning {
                    path: format!("transfers[{i}].{name}"),
                    message: "does nothing: it shapes sizes = \"web\" only".to_string(),
                });
            }
        }
    }
    let mut linked = vec![false; s.nodes.len()];
    for link in &s.links {
        linked[link.from.index()] = true;
        linked[link.to.index()] = true;
    }
    let unused: Vec<&str> = (s.nodes.iter().zip(&linked))
        .filter(|(_, linked)| !**linked)
        .map(|(name, _)| name.as_str())
        .collect();
    if !unused.is_empty() {
        out.push(ScenarioWarning {
            path: "nodes".to_string(),
            message: format!(
                "no link uses {}: {} (a misspelt name in a link?)",
                if unused.len() == 1 {
                    "this node"
                } else {
                    "these nodes"
                },
                listing(unused)
            ),
        });
    }
    // One warning for both links of a duplex entry, when both directions have it.
    let mut push = |warning: ScenarioWarning| {
        if !out.contains(&warning) {
            out.push(warning);
        }
    };
    for (i, link) in s.links.iter().enumerate() {
        let p = format!("links[{}]", link.spec_index);
        match &link.queue {
            QueueDiscipline::DropTail {
                limit: QueueLimit::Bytes(limit),
                ..
            } => {
                if let Some((bytes, name)) = packet_bytes[i]
                    && u64::from(bytes) > *limit
                {
                    push(ScenarioWarning {
                        path: format!("{p}.queue.limit_bytes"),
                        message: format!(
                            "{limit} B holds no packet of \"{name}\" ({bytes} B): every one that must wait is dropped"
                        ),
                    });
                }
            }
            QueueDiscipline::Red(red) => {
                let limit = red.limit_packets as f64;
                for (name, threshold) in [("min_th", red.min_th), ("max_th", red.max_th)] {
                    if threshold >= limit {
                        let effect = if name == "min_th" {
                            "RED never drops or marks early and acts as DropTail"
                        } else {
                            "the queue overflows before the average reaches it"
                        };
                        push(ScenarioWarning {
                            path: format!("{p}.queue.{name}"),
                            message: format!(
                                "{threshold} is at or above the queue limit ({} packets): {effect}",
                                red.limit_packets
                            ),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// DCTCP flows whose data crosses no queue that marks (RED, CoDel, PIE or their FQ forms with `ecn_marking`, or a scripted
/// mark): they answer no mark, and run as their loss recovery alone.
fn dctcp_without_marks(s: &Scenario, scripted: &[Scripted]) -> Option<ScenarioWarning> {
    let marks = |link: LinkId| match &s.links[link.index()].queue {
        QueueDiscipline::Red(red) => red.mark,
        QueueDiscipline::Codel { params, .. } => {
            params.ecn_marking || params.ce_threshold.is_some()
        }
        QueueDiscipline::FqCodel { params, .. } => {
            params.codel.ecn_marking || params.codel.ce_threshold.is_some()
        }
        QueueDiscipline::Pie { params, .. } => params.ecn_marking,
        QueueDiscipline::FqPie { params, .. } => params.pie.ecn_marking,
        _ => false,
    };
    let unmarked: Vec<&str> = (s.flows.iter().enumerate())
        .filter(|(_, f)| f.sender.congestion_control == CongestionControl::Dctcp)
        .filter(|&(i, f)| {
            !s.reachable_links(f.src, f.dst).into_iter().any(marks)
                && !scripted
                    .iter()
                    .any(|d| d.flow.index() == i && matches!(d.action, ScriptedAction::Mark))
        })
        .map(|(_, f)| f.name.as_str())
        .collect();
    let quoted: Vec<String> = unmarked.iter().map(|n| format!("\"{n}\"")).collect();
    (!quoted.is_empty()).then(|| ScenarioWarning {
        path: "tcp.congestion_control".into(),
        message: format!(
            "dctcp, but no queue on the path of {} marks (RED, CoDel, PIE or their FQ forms with ecn_marking = true, or [[marks]]): it sees no echo and runs as its loss recovery alone",
            listing(quoted.iter().map(String::as_str))
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_in_messages() {
        assert_eq!(grouped(20_000_000), "20 000 000");
        assert_eq!(grouped(999), "999");
        assert_eq!(readable_duration(526_315_789_474), "527ms");
        assert_eq!(readable_duration(2_500_000), "2.5us");
        assert_eq!(readable_duration(3_000_000_000_000), "3s");
    }

    #[test]
    fn long_listings_are_cut() {
        assert_eq!(listing(["a", "b"]), "a, b");
        let many: Vec<String> = (0..25).map(|i| format!("n{i}")).collect();
        let text = listing(many.iter().map(String::as_str));
        assert!(text.ends_with("n19 and 5 more"), "{text}");
    }
}
