//! The ATM result tables: ports, VCs and the ATM part of the summary.

use super::*;

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

/// `"switch"` or `"host"`: whose output port an ATM link is.
pub(super) fn port_kind(link: &ResolvedLink) -> String {
    let host = link.atm.as_ref().is_some_and(|p| p.host_adapter);
    (if host { "host" } else { "switch" }).to_string()
}

/// The `atm_ports` table: each ATM link's port, in cells.
pub(super) fn atm_ports_table(atm: &AtmNetwork, s: &Scenario, end: SimTime) -> Table {
    let ports: Vec<(&ResolvedLink, PortStats)> = s
        .links
        .iter()
        .enumerate()
        .filter_map(|(i, l)| atm.port_stats(i, end).map(|st| (l, st)))
        .collect();
    let col =
        |get: &dyn Fn(&PortStats) -> u64| Column::U64(ports.iter().map(|(_, p)| get(p)).collect());
    let mut t = Table::default();
    t.push(
        "link",
        Column::Str(ports.iter().map(|(l, _)| l.name.clone()).collect()),
    );
    t.push(
        "kind",
        Column::Str(ports.iter().map(|(l, _)| port_kind(l)).collect()),
    );
    t.push(
        "buffer_cells",
        Column::F64(
            ports
                .iter()
                .map(|(l, _)| {
                    l.atm
                        .as_ref()
                        .and_then(|p| p.capacity_cells)
                        .map_or(f64::INFINITY, |k| k as f64)
                })
                .collect(),
        ),
    );
    t.push("cells_in", col(&|p| p.cells_in));
    t.push("cells_sent", col(&|p| p.cells_sent));
    t.push("cells_queued", col(&|p| p.cells_queued));
    t.push("cells_dropped", col(&|p| p.cells_dropped()));
    t.push("cells_dropped_overflow", col(&|p| p.cells_dropped_overflow));
    t.push("cells_dropped_policy", col(&|p| p.cells_dropped_policy));
    t.push("cells_dropped_ppd", col(&|p| p.cells_dropped_ppd));
    t.push("frames_discarded", col(&|p| p.frames_discarded));
    t.push("frames_damaged", col(&|p| p.frames_damaged));
    t.push("eoms_dropped", col(&|p| p.eoms_dropped));
    t.push(
        "cell_loss_ratio",
        Column::F64(
            ports
                .iter()
                .map(|(_, p)| {
                    if p.cells_in == 0 {
                        0.0
                    } else {
                        p.cells_dropped() as f64 / p.cells_in as f64
                    }
                })
                .collect(),
        ),
    );
    t.push("max_queue_cells", col(&|p| p.max_queue_cells));
    t.push(
        "max_queue_cells_first_half",
        col(&|p| p.max_queue_cells_first_half),
    );
    t.push("vbr_cells", col(&|p| p.vbr_cells));
    t.push("switch_intervals", col(&|p| p.switch_intervals));
    t.push("switch_cis_set", col(&|p| p.switch_cis_set));
    let erica = |get: &dyn Fn(&congsim_atm::erica::IntervalRecord) -> f64| {
        Column::F64(ports.iter().map(|(_, p)| get(&p.erica_last)).collect())
    };
    let cell_bits = f64::from(congsim_atm::CELL_BYTES * 8);
    t.push("erica_load_factor", erica(&|r| r.load_factor));
    t.push(
        "erica_abr_capacity_bps",
        erica(&|r| r.abr_capacity * cell_bits),
    );
    t.push("erica_fair_share_bps", erica(&|r| r.fair_share * cell_bits));
    t.push("erica_active_vcs", erica(&|r| r.active_vcs));
    t
}

/// The `atm_vcs` table: each VC's frames and cells.
pub(super) fn atm_vcs_table(atm: &AtmNetwork, flow_names: &[String]) -> Table {
    let vcs: Vec<(VcId, VcStats)> = atm.vc_stats().collect();
    let col =
        |get: &dyn Fn(&VcStats) -> u64| Column::U64(vcs.iter().map(|(_, v)| get(v)).collect());
    let mut t = Table::default();
    t.push(
        "flow",
        Column::Str(
            vcs.iter()
                .map(|(vc, _)| flow_names[(vc.0 / 2) as usize].clone())
                .collect(),
        ),
    );
    t.push(
        "direction",
        Column::Str(
            vcs.iter()
                .map(|(vc, _)| if vc.0 % 2 == 0 { "data" } else { "ack" }.to_string())
                .collect(),
        ),
    );
    t.push("frames_sent", col(&|v| v.frames_sent));
    t.push("frames_delivered", col(&|v| v.frames_delivered));
    t.push("frames_corrupted", col(&|v| v.frames_corrupted));
    t.push("cells_sent", col(&|v| v.cells_sent));
    t.push("cells_delivered", col(&|v| v.cells_delivered));
    // ABR sources (NaN or 0 on a UBR network); rates in bits/s of cells.
    let abr = |get: &dyn Fn(&AbrStats) -> f64| {
        Column::F64(
            vcs.iter()
                .map(|(_, v)| v.abr.as_ref().map_or(f64::NAN, get))
                .collect(),
        )
    };
    let cell_bits = f64::from(congsim_atm::CELL_BYTES * 8);
    t.push("acr_final_bps", abr(&|a| a.acr * cell_bits));
    t.push("acr_min_bps", abr(&|a| a.acr_min * cell_bits));
    t.push("acr_max_bps", abr(&|a| a.acr_max * cell_bits));
    let abr_count = |get: &dyn Fn(&AbrStats) -> u64| {
        Column::U64(
            vcs.iter()
                .map(|(_, v)| v.abr.as_ref().map_or(0, get))
                .collect(),
        )
    };
    t.push("frm_sent", abr_count(&|a| a.frm_sent));
    t.push(
        "out_of_rate_frm_sent",
        abr_count(&|a| a.out_of_rate_frm_sent),
    );
    t.push("brm_turned_around", abr_count(&|a| a.brm_turned_around));
    t.push("brm_received", abr_count(&|a| a.brm_received));
    t.push("uni_drops", abr_count(&|a| a.uni_drops));
    t
}
