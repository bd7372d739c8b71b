//! Whole-scenario tests over ATM: cells, switches, hop fusion, ABR.

mod common;

use common::*;
use congsim::scenario::from_toml_str;
use congsim::table::Column;
use congsim::{RunResult, run};
use congsim_core::time::SimDuration;

/// The seed-000 N-source example over ATM (5 sources, LAN, 1000-cell EPD switches), with
/// `edit` applied to its text.
fn atm_n_source(edit: impl Fn(String) -> String) -> RunResult {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/atm-n-source.toml"
    ))
    .expect("scenario file");
    run_toml(&edit(text))
}

/// One TCP flow alone on an ATM path (spec atm.md 11): with a window above the bandwidth-delay
/// product it fills the link with 12-cell frames of 512-byte segments, 155.52 · 512/636 =
/// 125.2 Mbps; with one below (WAN, 5 ms links) it sends its window once per round trip.
#[test]
fn one_flow_over_atm_reaches_the_cell_ceiling_or_its_window_rate() {
    let alone = |delay: &str| {
        atm_n_source(|t| {
            t.replace("delay = \"5us\"", &format!("delay = \"{delay}\""))
                .replace(
                    "duration = \"10s\"",
                    "duration = \"4s\"\nmeasure_from = \"2s\"",
                )
                .replace("name = \"tcp2\"", "name = \"tcp2\"\ncount = 0")
                .replace("name = \"tcp3\"", "name = \"tcp3\"\ncount = 0")
                .replace("name = \"tcp4\"", "name = \"tcp4\"\ncount = 0")
                .replace("name = \"tcp5\"", "name = \"tcp5\"\ncount = 0")
        })
    };
    let lan = alone("5us");
    let goodput = f64_col(&lan, "flows", "goodput_bps");
    assert_eq!(goodput.len(), 1);
    let ceiling = 155.52e6 * 512.0 / 636.0;
    assert!(
        (goodput[0] - ceiling).abs() < ceiling * 0.005,
        "{goodput:?}"
    );
    assert_eq!(
        f64_col(&lan, "atm_ports", "cells_dropped")
            .iter()
            .sum::<f64>(),
        0.0
    );

    // WAN: 6 × 5 ms of propagation plus 18 cell times (12 cells of data at the host, one more
    // at each switch; 2 of ACK at the receiver, one more at each switch) per round trip, and
    // 127 whole segments in a 65535-byte window.
    let wan = alone("5ms");
    let rtt = 0.030 + 18.0 * 424.0 / 155.52e6;
    let window_rate = 127.0 * 512.0 * 8.0 / rtt;
    let goodput = f64_col(&wan, "flows", "goodput_bps")[0];
    assert!(
        (goodput - window_rate).abs() < window_rate * 0.005,
        "{goodput} vs {window_rate}"
    );
}

/// Every port's cells balance (in = sent + dropped + queued), and once the sources stop and the
/// network drains, every cell a host sent was delivered or dropped somewhere.
#[test]
fn atm_cells_balance_across_the_network() {
    for policy in ["tail_drop", "epd", "selective_drop", "fba"] {
        let r = atm_n_source(|t| {
            t.replace("policy = \"epd\"", &format!("policy = \"{policy}\""))
                .replace("duration = \"10s\"", "duration = \"3s\"")
                .replace("name = \"tcp1\"", "name = \"tcp1\"\nstop = \"1s\"")
                .replace("name = \"tcp2\"", "name = \"tcp2\"\nstop = \"1s\"")
                .replace("name = \"tcp3\"", "name = \"tcp3\"\nstop = \"1s\"")
                .replace("name = \"tcp4\"", "name = \"tcp4\"\nstop = \"1s\"")
                .replace("name = \"tcp5\"", "name = \"tcp5\"\nstop = \"1s\"")
        });
        let col = |table: &str, name: &str| f64_col(&r, table, name);
        let (cells_in, sent, dropped, queued) = (
            col("atm_ports", "cells_in"),
            col("atm_ports", "cells_sent"),
            col("atm_ports", "cells_dropped"),
            col("atm_ports", "cells_queued"),
        );
        for i in 0..cells_in.len() {
            assert_eq!(
                cells_in[i],
                sent[i] + dropped[i] + queued[i],
                "{policy}, port {i}"
            );
        }
        assert_eq!(queued.iter().sum::<f64>(), 0.0, "{policy}: drained");
        let total = |v: Vec<f64>| v.iter().sum::<f64>();
        let dropped_total = total(dropped);
        assert!(dropped_total > 0.0, "{policy}: the bottleneck is congested");
        assert_eq!(
            total(col("atm_vcs", "cells_sent")),
            total(col("atm_vcs", "cells_delivered")) + dropped_total,
            "{policy}"
        );
        // The hosts' adapters feed the first switch: what they send is what it receives.
        let names = match r.table("atm_ports").unwrap().column("link") {
            Some(Column::Str(v)) => v.clone(),
            _ => unreachable!(),
        };
        let port = |name: &str| names.iter().position(|n| n == name).unwrap();
        let from_hosts: f64 = (1..=5).map(|i| sent[port(&format!("s{i}->sw1"))]).sum();
        assert_eq!(cells_in[port("sw1->sw2")], from_hosts, "{policy}");
    }
}

/// The summary's largest ATM queue is a switch's: with 50-cell switch buffers, a host's
/// adapter, which holds each window burst until the line takes it, queues more.
#[test]
fn the_largest_atm_queue_is_a_switch_port() {
    let r = atm_n_source(|t| {
        t.replace("duration = \"10s\"", "duration = \"2s\"")
            .replace("buffer_cells = 1000", "buffer_cells = 50")
    });
    let kinds = str_col_of(r.table("atm_ports"), "kind");
    let max_queues = f64_col(&r, "atm_ports", "max_queue_cells");
    let largest = |kind: &str| {
        kinds
            .iter()
            .zip(&max_queues)
            .filter(|(k, _)| *k == kind)
            .map(|(_, &q)| q)
            .fold(0.0, f64::max)
    };
    assert_eq!(kinds.iter().filter(|k| *k == "host").count(), 10);
    assert!(
        largest("host") > largest("switch"),
        "{kinds:?} {max_queues:?}"
    );
    assert_eq!(
        f64_col(&r, "summary", "atm_max_queue_cells"),
        vec![largest("switch")]
    );
}

/// The ATM shortcuts are exact: offering cells ahead of time to ports fed by one link (hop
/// fusion), and passing a pipe's cells on in one event while nothing else is due. Every ATM
/// network we ship (UBR under each drop policy, ABR with ERICA and EPRCA, VBR, multi-hop), with
/// series on, gives the same tables with the shortcuts as without, all but the event count.
#[test]
fn atm_shortcuts_change_nothing() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let networks = [
        "scenarios/atm-n-source.toml",
        "scenarios/atm-abr-vbr.toml",
        "python/congsim/studies/data/goyal1996-network.toml",
        "python/congsim/studies/data/jain1996-network.toml",
        "python/congsim/studies/data/jain1996-multihop-network.toml",
        "python/congsim/studies/data/sisalem1995-network.toml",
    ];
    let edits: [(&str, &str); 4] = [
        ("", ""),
        ("policy = \"epd\"", "policy = \"fba\""),
        ("policy = \"tail_drop\"", "policy = \"selective_drop\""),
        ("switch = \"erica\"", "switch = \"eprca\""),
    ];
    let mut compared = 0;
    for file in networks {
        let text = std::fs::read_to_string(format!("{root}/{file}")).expect("scenario file");
        for (from, to) in edits {
            if !from.is_empty() && !text.contains(from) {
                continue;
            }
            let text = text.replace(from, to);
            let mut shortcuts = from_toml_str(&text, file).unwrap_or_else(|e| panic!("{e}"));
            // Long enough for queues to fill and ABR rates to move.
            shortcuts.duration = shortcuts.duration.min(SimDuration::from_millis(1500));
            let half = SimDuration::from_ps(shortcuts.duration.as_ps() / 2);
            shortcuts.measure_from = shortcuts.measure_from.min(half);
            shortcuts.measure_until = shortcuts.measure_until.min(shortcuts.duration);
            // Without series, and with series sampled every 10 ms (which turn hop fusion off:
            // its cells enter a port before they arrive).
            for series in [None, Some(SimDuration::from_millis(10))] {
                shortcuts.series_interval = series;
                assert_shortcuts_change_nothing(&shortcuts, &format!("{file} {to} {series:?}"));
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 16, "networks and edits compared");
}

/// `scenario` gives the same tables with its shortcuts as without (hop fusion off), and they
/// save events.
fn assert_shortcuts_change_nothing(scenario: &congsim::scenario::Scenario, label: &str) {
    let mut each_cell = scenario.clone();
    each_cell.hop_fusion = false;
    let (a, b) = (run(scenario, 0), run(&each_cell, 0));
    let events = |r: &RunResult| f64_col(r, "summary", "events")[0];
    assert!(
        events(&a) < events(&b),
        "{label}: the shortcuts save events"
    );
    for ((name, x), (_, y)) in a.tables().into_iter().zip(b.tables()) {
        let (x, y) = (x.map(without_events), y.map(without_events));
        let first_difference = (x.iter().flat_map(|t| t.lines()))
            .zip(y.iter().flat_map(|t| t.lines()))
            .find(|(a, b)| a != b);
        assert_eq!(x, y, "{label}: {name}: {first_difference:?}");
    }
}

/// An ABR source sends cells ahead of time only into an adapter no other VC can use: here a
/// second connection from the same host opens its VC there 0.3 s into the run, when the first
/// source's cells would already have been offered ahead of it.
#[test]
fn abr_sources_sharing_a_host_change_nothing_with_shortcuts() {
    let file = "python/congsim/studies/data/jain1996-network.toml";
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = std::fs::read_to_string(format!("{root}/{file}")).expect("scenario file");
    let shared = "name = \"tcp2\"\nfrom = \"s1\"\nto = \"d2\"\nstart = \"0.3s\"\n";
    let text = text.replace("name = \"tcp2\"\nfrom = \"s2\"\nto = \"d2\"\n", shared);
    assert!(text.contains(shared), "the second flow leaves from s1");
    let mut scenario = from_toml_str(&text, file).unwrap_or_else(|e| panic!("{e}"));
    scenario.duration = SimDuration::from_millis(1000);
    scenario.measure_from = SimDuration::from_millis(500);
    scenario.measure_until = scenario.duration;
    assert_shortcuts_change_nothing(&scenario, file);
}

/// A table's CSV without the `events` column (the simulator's work, not what it simulates).
fn without_events(t: &congsim::table::Table) -> String {
    let csv = t.to_csv();
    let header: Vec<&str> = csv.lines().next().unwrap_or("").split(',').collect();
    let Some(col) = header.iter().position(|&c| c == "events") else {
        return csv;
    };
    csv.lines()
        .map(|line| {
            let mut cells: Vec<&str> = line.split(',').collect();
            cells.remove(col);
            cells.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One TCP connection over ABR with an ERICA switch (spec atm.md 11): its source's ACR settles
/// at the target, 0.9 of the link, and TCP gets that less the RM cells (one in 32) and the AAL5
/// overhead: 0.9 · 31/32 · 125.2 Mbps.
#[test]
fn one_tcp_flow_over_abr_gets_the_erica_target() {
    let r = atm_n_source(|t| {
        t.replace(
            "[atm]\nbuffer_cells = 1000\npolicy = \"epd\"\nthreshold = 0.9\n",
            "[atm]\nservice = \"abr\"\nswitch = \"erica\"\n",
        )
        .replace(
            "duration = \"10s\"",
            "duration = \"2s\"\nmeasure_from = \"1s\"",
        )
        .replace(
            "receiver_buffer = \"65535B\"",
            "receiver_buffer = \"1MB\"\nwindow_scaling = true",
        )
        .replace("name = \"tcp2\"", "name = \"tcp2\"\ncount = 0")
        .replace("name = \"tcp3\"", "name = \"tcp3\"\ncount = 0")
        .replace("name = \"tcp4\"", "name = \"tcp4\"\ncount = 0")
        .replace("name = \"tcp5\"", "name = \"tcp5\"\ncount = 0")
    });
    let acr = f64_col(&r, "atm_vcs", "acr_final_bps")[0];
    assert!(
        (acr - 0.9 * 155.52e6).abs() < 0.02 * 0.9 * 155.52e6,
        "{acr}"
    );
    let goodput = f64_col(&r, "flows", "goodput_bps")[0];
    let expected = 0.9 * 31.0 / 32.0 * 155.52e6 * 512.0 / 636.0;
    assert!(
        (goodput - expected).abs() < 0.03 * expected,
        "{goodput} vs {expected}"
    );
    assert!(f64_col(&r, "atm_vcs", "frm_sent")[0] > 0.0);
    assert_eq!(f64_col(&r, "summary", "atm_cells_dropped")[0], 0.0);
}

/// Spec atm.md §13's ABR time series: each source's ACR per sample (`abr_series`) and, at a
/// port running ERICA, its last closed interval (`atm_series`); one flow alone converges to
/// ERICA's target, 0.9 of the link, and the bottleneck's fair share is that target too.
#[test]
fn abr_series_trace_each_sources_rate_and_ericas_intervals() {
    let r = atm_n_source(|t| {
        t.replace(
            "[atm]\nbuffer_cells = 1000\npolicy = \"epd\"\nthreshold = 0.9\n",
            "[atm]\nservice = \"abr\"\nswitch = \"erica\"\n",
        )
        .replace("duration = \"10s\"", "duration = \"2s\"")
        .replace("[metrics]", "[metrics]\nseries_interval = \"100ms\"")
        .replace("name = \"tcp2\"", "name = \"tcp2\"\ncount = 0")
        .replace("name = \"tcp3\"", "name = \"tcp3\"\ncount = 0")
        .replace("name = \"tcp4\"", "name = \"tcp4\"\ncount = 0")
        .replace("name = \"tcp5\"", "name = \"tcp5\"\ncount = 0")
    });
    let abr = r.table("abr_series").expect("an ABR network with series");
    let (times, acr) = (f64_col_of(abr, "time_s"), f64_col_of(abr, "acr_bps"));
    let directions = str_col_of(Some(abr), "direction");
    // One flow: a data and an ACK VC, sampled at 0, 0.1, ..., 1.9 s.
    assert_eq!(times.len(), 2 * 20);
    assert_eq!(directions.iter().filter(|d| *d == "data").count(), 20);
    let target = 0.9 * 155.52e6;
    let last_data = (0..times.len())
        .rev()
        .find(|&i| directions[i] == "data")
        .expect("data rows");
    assert!(
        (acr[last_data] - target).abs() < 0.02 * target,
        "{}",
        acr[last_data]
    );
    assert!(
        acr.iter().all(|&a| a > 0.0 && a <= 155.52e6 * 1.000_001),
        "{acr:?}"
    );
    let ports = r.table("atm_series").expect("ATM links with series");
    let kinds = str_col_of(Some(ports), "kind");
    let fair_share = f64_col_of(ports, "fair_share_bps");
    let load = f64_col_of(ports, "load_factor");
    let late = f64_col_of(ports, "time_s")
        .iter()
        .map(|&t| t >= 1.0)
        .collect::<Vec<_>>();
    for i in 0..kinds.len() {
        if kinds[i] == "host" {
            assert!(
                fair_share[i].is_nan() && load[i].is_nan(),
                "a host adapter runs no ERICA"
            );
        } else if late[i] && load[i] > 0.5 {
            // The loaded switch port: one active VC, whose fair share is the whole target.
            assert!(
                (fair_share[i] - target).abs() < 0.02 * target,
                "{}",
                fair_share[i]
            );
        }
    }
    assert!(
        load.iter().any(|&z| z > 0.5),
        "the bottleneck is loaded: {load:?}"
    );
}
