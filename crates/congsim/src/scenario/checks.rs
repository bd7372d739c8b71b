//! Checks on a scenario beyond its fields' own ranges: resource limits that keep a mistyped
//! value from exhausting memory mid-run (found by `validate`, in time linear in the input), and
//! warnings for settings that do nothing or defeat themselves.

use super::ScenarioError;
use super::resolve::{QueueDiscipline, Scenario};
use congsim_core::{FlowId, LinkId};
use congsim_ip::{QueueLimit, ScriptedAction};
use std::fmt;

/// Route entries (nodes × destinations of traffic) a scenario may need: 4 bytes each, so at
/// most 400 MB.
pub const MAX_ROUTE_ENTRIES: u64 = 100_000_000;
/// Rows of the time series (samples × flows, links and sources sampled).
pub const MAX_SERIES_ROWS: u64 = 20_000_000;
/// Random transfers a group may be expected to start (arrival rate × active time).
pub const MAX_EXPECTED_TRANSFERS: f64 = 2_000_000.0;
/// TCP flows and CBR sources in one scenario.
pub const MAX_FLOWS: u64 = 1_000_000;

/// Something in a scenario that is allowed but almost certainly not what was meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioWarning {
    /// Field path, as in errors.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

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

/// A number with thousands separators, for limits in messages.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// `ps` picoseconds rounded up to three digits in the largest unit that keeps them above 1.
fn readable_duration(ps: u64) -> String {
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
    file: &str,
    nodes: usize,
    destinations: usize,
    rows: u64,
) -> Result<(), ScenarioError> {
    let entries = nodes as u64 * rows;
    if entries > MAX_ROUTE_ENTRIES {
        return Err(ScenarioError {
            file: file.to_string(),
            path: "nodes".into(),
            message: format!(
                "{} nodes with traffic addressed to {} of them need {} route entries ({} nodes need a \
                 route table of their own: destinations that are not hosts on one access link, and \
                 the nodes such hosts hang off); the limit is {}",
                grouped(nodes as u64),
                grouped(destinations as u64),
                grouped(entries),
                grouped(rows),
                grouped(MAX_ROUTE_ENTRIES)
            ),
        });
    }
    Ok(())
}

/// Flows declared so far (with their counts) must stay in bounds; `path` is the entry that
/// passes the limit.
pub(super) fn flow_count(file: &str, path: &str, flows: u64) -> Result<(), ScenarioError> {
    if flows > MAX_FLOWS {
        return Err(ScenarioError {
            file: file.to_string(),
            path: path.to_string(),
            message: format!(
                "brings the number of flows and CBR sources to {}; the limit is {}",
                grouped(flows),
                grouped(MAX_FLOWS)
            ),
        });
    }
    Ok(())
}

/// Limits on what a run will hold in memory, checked on the resolved scenario.
pub(super) fn limits(s: &Scenario, file: &str) -> Result<(), ScenarioError> {
    let err = |path: String, message: String| ScenarioError {
        file: file.to_string(),
        path,
        message,
    };
    if let Some(interval) = s.series_interval {
        let samples = s.duration.as_ps() / interval.as_ps() + 1;
        let series = (s.flows.len() + s.cbr.len() + s.links.len()) as u64;
        let rows = samples.saturating_mul(series);
        if rows > MAX_SERIES_ROWS {
            let shortest_ps = s
                .duration
                .as_ps()
                .div_ceil((MAX_SERIES_ROWS / series.max(1)).max(1));
            return Err(err(
                "metrics.series_interval".into(),
                format!(
                    "{} samples of {series} series make {} rows; the limit is {} (over this duration, an interval of at least {})",
                    grouped(samples),
                    grouped(rows),
                    grouped(MAX_SERIES_ROWS),
                    readable_duration(shortest_ps)
                ),
            ));
        }
    }
    for (i, (t, spec)) in s.transfers.iter().zip(&s.source.transfers).enumerate() {
        let active_s = (t.stop.as_ps() - t.start.as_ps()) as f64 / 1e12;
        let expected = t.arrivals_per_second * active_s;
        if expected > MAX_EXPECTED_TRANSFERS {
            let field = if spec.arrivals_per_second.is_some() {
                "arrivals_per_second"
            } else {
                "load"
            };
            return Err(err(
                format!("transfers[{i}].{field}"),
                format!(
                    "{:.3e} arrivals a second over {active_s} s start about {expected:.3e} transfers; the limit is {}",
                    t.arrivals_per_second,
                    grouped(MAX_EXPECTED_TRANSFERS as u64)
                ),
            ));
        }
    }
    Ok(())
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
                    s.links[d.link.index()].name,
                    d.packet
                ),
            });
        }
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
