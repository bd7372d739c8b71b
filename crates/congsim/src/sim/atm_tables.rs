//! The ATM result tables: ports, VCs and the ATM part of the summary.

use super::recorders::{cell_bps, port_kind};
use super::*;
use crate::table::{Get, counters};

/// The ATM network in the summary: the largest queue of any port (the bottleneck's), in cells
/// and in round trips of the first flow's path at that port's cell rate; cells dropped.
pub(super) fn push_atm_summary(summary: &mut Table, atm: &AtmNetwork, s: &Scenario, end: SimTime) {
    let ports: Vec<(usize, PortStats)> = (0..s.links.len())
        .filter_map(|i| atm.port_stats(i, end).map(|p| (i, p)))
        .collect();
    // The largest queue of a switch: hosts' adapters hold what their sources may not send yet.
    // A network of hosts alone has only adapters.
    let is_switch = |i: usize| s.links[i].atm.as_ref().is_some_and(|p| !p.host_adapter);
    let has_switch = ports.iter().any(|(i, _)| is_switch(*i));
    let (link, worst) = ports
        .iter()
        .filter(|(i, _)| !has_switch || is_switch(*i))
        .max_by_key(|(i, p)| (p.max_queue_cells, std::cmp::Reverse(*i)))
        .expect("an ATM link");
    let rtt_s = s.flows.first().map_or(f64::NAN, |f| {
        let one_way = |from: NodeId, to: NodeId| -> f64 {
            s.path(from, to).map_or(f64::NAN, |links| {
                (links.iter())
                    .map(|l| s.links[l.index()].delay.as_secs_f64())
                    .sum()
            })
        };
        one_way(f.src, f.dst) + one_way(f.dst, f.src)
    });
    let cells_per_s = s.links[*link].rate.bps() as f64 / f64::from(congsim_atm::CELL_BYTES * 8);
    let max_queue = worst.max_queue_cells as f64;
    summary.push("atm_max_queue_cells", Column::F64(vec![max_queue]));
    summary.push(
        "atm_max_queue_rtts",
        Column::F64(vec![max_queue / (rtt_s * cells_per_s)]),
    );
    summary.push(
        "atm_cells_dropped",
        Column::U64(vec![ports.iter().map(|(_, p)| p.cells_dropped()).sum()]),
    );
    summary.push(
        "atm_uni_drops",
        Column::U64(vec![
            atm.vc_stats()
                .filter_map(|(_, v)| v.abr.map(|a| a.uni_drops))
                .sum(),
        ]),
    );
}

/// One ATM link's output port.
struct PortRow<'a> {
    link: &'a ResolvedLink,
    nodes: &'a [String],
    stats: PortStats,
}

impl PortRow<'_> {
    fn buffer_cells(&self) -> f64 {
        (self.link.atm.as_ref())
            .and_then(|p| p.capacity_cells)
            .map_or(f64::INFINITY, |k| k as f64)
    }

    fn cell_loss_ratio(&self) -> f64 {
        let p = &self.stats;
        if p.cells_in == 0 {
            0.0
        } else {
            p.cells_dropped() as f64 / p.cells_in as f64
        }
    }
}

/// The `atm_ports` table: each ATM link's port, in cells.
pub(super) fn atm_ports_table(atm: &AtmNetwork, s: &Scenario, end: SimTime) -> Table {
    let rows: Vec<PortRow<'_>> = (s.links.iter().enumerate())
        .filter_map(|(i, link)| {
            let stats = atm.port_stats(i, end)?;
            Some(PortRow {
                link,
                nodes: &s.nodes,
                stats,
            })
        })
        .collect();
    let columns = [
        &[
            ("link", Get::Str(|r: &PortRow<'_>| r.link.name(r.nodes))),
            ("kind", Get::Str(|r| port_kind(r.link))),
            ("buffer_cells", Get::F64(PortRow::buffer_cells)),
        ][..],
        &counters![PortRow<'_>: |r| r.stats; cells_in, cells_sent, cells_queued],
        &[("cells_dropped", Get::U64(|r| r.stats.cells_dropped()))],
        &counters![PortRow<'_>: |r| r.stats;
            cells_dropped_overflow, cells_dropped_policy, cells_dropped_ppd, frames_discarded,
            frames_damaged, eoms_dropped],
        &[("cell_loss_ratio", Get::F64(PortRow::cell_loss_ratio))],
        &counters![PortRow<'_>: |r| r.stats;
            max_queue_cells, max_queue_cells_first_half, vbr_cells, switch_intervals,
            switch_cis_set],
        &[
            (
                "erica_load_factor",
                Get::F64(|r| r.stats.erica_last.load_factor),
            ),
            (
                "erica_abr_capacity_bps",
                Get::F64(|r| cell_bps(r.stats.erica_last.abr_capacity)),
            ),
            (
                "erica_fair_share_bps",
                Get::F64(|r| cell_bps(r.stats.erica_last.fair_share)),
            ),
            (
                "erica_active_vcs",
                Get::F64(|r| r.stats.erica_last.active_vcs),
            ),
        ],
    ]
    .concat();
    Table::from_rows(&rows, &columns)
}

/// One VC, named after its flow and direction.
struct VcRow<'a> {
    flow: &'a String,
    vc: VcId,
    stats: VcStats,
    /// The ABR source's counters (zero on a UBR network).
    abr: AbrStats,
}

impl VcRow<'_> {
    fn direction(&self) -> String {
        vc_ids::owner(self.vc).1.name().to_string()
    }

    /// An ABR source's rate in bits/s of cells (NaN on a UBR network).
    fn acr_bps(&self, get: fn(&AbrStats) -> f64) -> f64 {
        self.stats
            .abr
            .as_ref()
            .map_or(f64::NAN, |a| cell_bps(get(a)))
    }
}

/// The `atm_vcs` table: each VC's frames and cells.
pub(super) fn atm_vcs_table(atm: &AtmNetwork, flow_names: &[String]) -> Table {
    let rows: Vec<VcRow<'_>> = atm
        .vc_stats()
        .map(|(vc, stats)| VcRow {
            flow: &flow_names[vc_ids::owner(vc).0.index()],
            vc,
            abr: stats.abr.clone().unwrap_or_default(),
            stats,
        })
        .collect();
    let columns = [
        &[
            ("flow", Get::Str(|r: &VcRow<'_>| r.flow.clone())),
            ("direction", Get::Str(VcRow::direction)),
        ][..],
        &counters![VcRow<'_>: |r| r.stats;
            frames_sent, frames_delivered, frames_corrupted, cells_sent, cells_delivered],
        // ABR sources (NaN or 0 on a UBR network); rates in bits/s of cells.
        &[
            ("acr_final_bps", Get::F64(|r| r.acr_bps(|a| a.acr))),
            ("acr_min_bps", Get::F64(|r| r.acr_bps(|a| a.acr_min))),
            ("acr_max_bps", Get::F64(|r| r.acr_bps(|a| a.acr_max))),
        ],
        &counters![VcRow<'_>: |r| r.abr;
            frm_sent, out_of_rate_frm_sent, brm_turned_around, brm_received, uni_drops],
    ]
    .concat();
    Table::from_rows(&rows, &columns)
}
