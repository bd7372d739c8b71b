//! The tables of the opt-in traces kept by the models: each packet's wait in a queue
//! (`sojourn`), its per-flow statistics (`sojourn_flows`), every change of a sender's state
//! (`tcp_changes`) and every link that went down or came up (`link_changes`).

use super::*;
use crate::table::{ColumnSpec, Get};
use congsim_ip::Sojourn;
use congsim_tcp::{SenderState, StateChange};
use std::collections::BTreeMap;
use std::rc::Rc;

impl Simulation<'_> {
    /// The `sojourn` table: each packet's wait in the queue of the links that record them, by
    /// link in the scenario's order, then in the order the packets left, up to `end` (the fast
    /// path notes a packet when it admits it, its start perhaps after the run).
    pub(super) fn sojourn_table(&self, end: SimTime) -> Option<Table> {
        let recording =
            || (self.scenario.links.iter().zip(&self.links)).filter(|(l, _)| l.record_sojourns);
        recording().next()?;
        let rows: Vec<SojournRow> = recording()
            .flat_map(|(spec, link)| {
                let name: Rc<str> = spec.name(&self.scenario.nodes).into();
                let before_end = link.sojourns().iter().filter(move |s| s.left_at < end);
                before_end.map(move |&sojourn| SojournRow {
                    link: Rc::clone(&name),
                    flow: self.flow_name(sojourn.flow),
                    sojourn,
                })
            })
            .collect();
        let columns: [ColumnSpec<SojournRow>; 5] = [
            ("link", Get::Str(|r| r.link.to_string())),
            ("time_s", Get::F64(|r| r.sojourn.left_at.as_secs_f64())),
            ("flow", Get::Str(|r| r.flow.clone())),
            ("sojourn_s", Get::F64(|r| r.sojourn.wait.as_secs_f64())),
            ("size_bytes", Get::U64(|r| u64::from(r.sojourn.size_bytes))),
        ];
        Some(Table::from_rows(&rows, &columns))
    }

    /// The `sojourn_flows` table: per link that records sojourns and per flow, over the
    /// measurement window, the packets that left its queue, its drops and marks there, and
    /// the distribution of their waits (spec `ip.md` §9.7: a percentile is the ⌈q·n⌉-th
    /// smallest wait); `sojourns[l]` are link `l`'s recorded waits (empty when no link records).
    pub(super) fn sojourn_flows_table(
        &self,
        window: &Reading,
        sojourns: &[Vec<Sojourn>],
        flow_names: &[String],
    ) -> Option<Table> {
        let s = self.scenario;
        let (from, until) = (Self::at(s.measure_from), Self::at(s.measure_until));
        let mut rows: Vec<SojournFlowRow<'_>> = Vec::new();
        for ((spec, recorded), reading) in (s.links.iter().zip(sojourns)).zip(&window.links) {
            if !spec.record_sojourns {
                continue;
            }
            let name: Rc<str> = spec.name(&s.nodes).into();
            let mut waits: BTreeMap<FlowId, Vec<u64>> = BTreeMap::new();
            for sojourn in recorded {
                if (from..until).contains(&sojourn.left_at) {
                    waits
                        .entry(sojourn.flow)
                        .or_default()
                        .push(sojourn.wait.as_ps());
                }
            }
            for flow in reading.flows().keys() {
                waits.entry(*flow).or_default();
            }
            for (flow, mut ps) in waits {
                ps.sort_unstable();
                let counts = reading.flows().get(&flow).copied().unwrap_or_default();
                rows.push(SojournFlowRow {
                    link: Rc::clone(&name),
                    flow: &flow_names[flow.index()],
                    counts,
                    waits_ps: ps,
                });
            }
        }
        if !s.links.iter().any(|l| l.record_sojourns) {
            return None;
        }
        let columns: [ColumnSpec<SojournFlowRow<'_>>; 11] = [
            ("link", Get::Str(|r| r.link.to_string())),
            ("flow", Get::Str(|r| r.flow.clone())),
            ("packets", Get::U64(|r| r.waits_ps.len() as u64)),
            ("drops", Get::U64(|r| r.counts.drops)),
            ("marks", Get::U64(|r| r.counts.marks)),
            ("sojourn_mean_s", Get::F64(SojournFlowRow::mean_s)),
            ("sojourn_p50_s", Get::F64(|r| r.percentile_s(0.50))),
            ("sojourn_p90_s", Get::F64(|r| r.percentile_s(0.90))),
            ("sojourn_p99_s", Get::F64(|r| r.percentile_s(0.99))),
            ("sojourn_max_s", Get::F64(|r| r.percentile_s(1.0))),
            ("arrivals", Get::U64(|r| r.counts.arrivals)),
        ];
        Some(Table::from_rows(&rows, &columns))
    }

    /// The `tcp_changes` table: every change of state of the flows named in
    /// `[metrics] tcp_changes`, flow by flow in the scenario's order, before `end`.
    pub(super) fn tcp_changes_table(&self, end: SimTime) -> Option<Table> {
        let traced = || {
            (self.connections.iter()).filter_map(|(f, connection)| {
                let changes = connection.sender.change_trace()?;
                Some((self.flow_name(f), changes))
            })
        };
        traced().next()?;
        let rows: Vec<(String, StateChange)> = traced()
            .flat_map(|(name, changes)| {
                let before_end = changes.rows().iter().filter(|r| r.time < end);
                before_end.map(move |r| (name.clone(), *r))
            })
            .collect();
        let columns: [ColumnSpec<(String, StateChange)>; 8] = [
            ("time_s", Get::F64(|r| r.1.time.as_secs_f64())),
            ("flow", Get::Str(|r| r.0.clone())),
            ("cwnd", Get::F64(|r| r.1.after.cwnd)),
            ("ssthresh", Get::F64(|r| r.1.after.ssthresh)),
            ("srtt_s", Get::F64(|r| r.1.after.srtt_secs)),
            ("rto_s", Get::F64(|r| r.1.after.rto.as_secs_f64())),
            ("state", Get::Str(|r| r.1.after.state.name().to_string())),
            ("changed", Get::Str(|r| changed_names(r.1.changed))),
        ];
        Some(Table::from_rows(&rows, &columns))
    }

    /// The `link_changes` table, when an event takes links down: every link that went down or
    /// came up before `end`, in the order it did, with the index of the `[[events]]` entry that
    /// did it (ns-2's `rtmodel` trace-dynamics).
    pub(super) fn link_changes_table(&self, end: SimTime) -> Option<Table> {
        let s = self.scenario;
        if !s.takes_links_down() {
            return None;
        }
        let rows: Vec<(String, LinkChange)> = (self.link_changes.iter())
            .filter(|c| c.time < end)
            .map(|c| (s.links[c.link.index()].name(&s.nodes), *c))
            .collect();
        let columns: [ColumnSpec<(String, LinkChange)>; 4] = [
            ("time_s", Get::F64(|r| r.1.time.as_secs_f64())),
            ("link", Get::Str(|r| r.0.clone())),
            (
                "state",
                Get::Str(|r| (if r.1.up { "up" } else { "down" }).to_string()),
            ),
            ("event", Get::U64(|r| r.1.event as u64)),
        ];
        Some(Table::from_rows(&rows, &columns))
    }
}

/// One packet's wait in a link's queue.
struct SojournRow {
    link: Rc<str>,
    flow: String,
    sojourn: Sojourn,
}

/// The parts of the state a change-trace row changed, space-separated.
fn changed_names(changed: u8) -> String {
    let names = SenderState::CHANGED_NAMES.iter().enumerate();
    let set: Vec<&str> = names
        .filter(|(bit, _)| changed & (1 << bit) != 0)
        .map(|(_, name)| *name)
        .collect();
    set.join(" ")
}

/// One flow at one link that records sojourns: its counts and its waits, sorted.
struct SojournFlowRow<'a> {
    link: Rc<str>,
    flow: &'a String,
    counts: congsim_ip::link::FlowCounts,
    waits_ps: Vec<u64>,
}

impl SojournFlowRow<'_> {
    fn mean_s(&self) -> f64 {
        if self.waits_ps.is_empty() {
            return f64::NAN;
        }
        let total: u128 = self.waits_ps.iter().map(|&w| u128::from(w)).sum();
        total as f64 / self.waits_ps.len() as f64 / 1e12
    }

    /// The ⌈q·n⌉-th smallest wait (NaN without any).
    fn percentile_s(&self, q: f64) -> f64 {
        let n = self.waits_ps.len();
        if n == 0 {
            return f64::NAN;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        self.waits_ps[rank - 1] as f64 / 1e12
    }
}
