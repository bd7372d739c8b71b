//! `[topology]`: generated networks load and run exactly as the same network written out.

mod common;

use common::*;
use congsim::scenario::{from_toml_str, from_toml_str_with_overrides};

const DUMBBELL_20: &str = include_str!("../../../scenarios/dumbbell-20.toml");

/// The benchmark dumbbell (`bench/make_dumbbell.py 20`), as ten lines of topology.
const DUMBBELL_20_TOPOLOGY: &str = r#"name = "dumbbell-20"
[simulation]
duration = "20s"
[topology]
kind = "dumbbell"
pairs = 20
access_rate = "100Mbps"
access_delay = "3ms"
access_delay_max = "7ms"
receiver_delay = "5ms"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
bottleneck_queue = { limit_packets = 200 }
[tcp]
profile = "ns2_2000"
variant = "reno"
packet_size = "500B"
window = 10000
[metrics]
efficiency_max_rate = "100Mbps"
"#;

#[test]
fn a_generated_dumbbell_is_the_written_one() {
    let shorter = [("simulation.duration".to_string(), serde_json::json!("3s"))];
    let written = from_toml_str_with_overrides(DUMBBELL_20, "written.toml", &shorter).unwrap();
    let generated =
        from_toml_str_with_overrides(DUMBBELL_20_TOPOLOGY, "generated.toml", &shorter).unwrap();
    assert_eq!(generated.nodes, written.nodes);
    let (a, b) = (congsim::run(&written, 0), congsim::run(&generated, 0));
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.links.to_csv(), b.links.to_csv());
    assert!(a.flows.rows() == 20 && a.summary.sum_u64("timeouts") > 0);
}

#[test]
fn a_parking_lot_sends_its_long_flow_over_every_hop_and_each_cross_flow_over_one() {
    let text = r#"[simulation]
duration = "2s"
[topology]
kind = "parking_lot"
hops = 3
hop_rate = "10Mbps"
hop_delay = "5ms"
hop_queue = { limit_packets = 30 }
access_rate = "100Mbps"
access_delay = "1ms"
"#;
    let s = from_toml_str(text, "lot.toml").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["long", "cross0", "cross1", "cross2"]);
    let hops = |flow: usize| -> Vec<String> {
        let f = &s.flows[flow];
        let path = s.path(f.src, f.dst).expect("a route");
        path.iter()
            .map(|l| s.links[l.index()].name(&s.nodes))
            .filter(|name| name.starts_with('r') && name.contains("->r"))
            .collect()
    };
    assert_eq!(hops(0), ["r0->r1", "r1->r2", "r2->r3"]);
    assert_eq!(hops(2), ["r1->r2"]);
    let r = run_toml(text);
    let goodput = f64_col(&r, "flows", "goodput_bps");
    assert!(goodput.iter().all(|&g| g > 0.0), "{goodput:?}");
}

#[test]
fn the_files_own_nodes_links_and_flows_come_after_the_generated_ones() {
    // Flows off: the file brings its own, to a host it adds beside router r2.
    let text = r#"nodes = ["extra"]
[simulation]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
flows = false
[[links]]
from = "r2"
to = "extra"
rate = "100Mbps"
delay = "1ms"
[[flows]]
from = "s2"
to = "extra"
"#;
    let s = from_toml_str(text, "mixed.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.nodes.last().map(String::as_str), Some("extra"));
    assert_eq!(s.nodes.len(), 7);
    assert_eq!(s.flows.len(), 1);
    assert_eq!(
        s.links.last().map(|l| l.name(&s.nodes)).as_deref(),
        Some("extra->r2")
    );
    let spread = r#"[simulation]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 3
access_rate = "100Mbps"
access_delay = "7ms"
access_delay_max = "3ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
"#;
    let s = from_toml_str(spread, "spread.toml").unwrap();
    let delays: Vec<u64> = (s.links.iter())
        .filter(|l| {
            let name = l.name(&s.nodes);
            name.ends_with("->r1") && name.starts_with('s')
        })
        .map(|l| l.delay.as_ps() / 1_000_000)
        .collect();
    assert_eq!(
        delays,
        [7000, 5000, 3000],
        "from the first sender's delay to the last's"
    );
}

#[test]
fn incast_collapses_once_the_switch_buffer_cannot_hold_a_flight_from_every_sender() {
    let incast = include_str!("../../../scenarios/incast.toml");
    let last_completion = |senders: u32| {
        let set = [("topology.senders".to_string(), serde_json::json!(senders))];
        let s = from_toml_str_with_overrides(incast, "incast.toml", &set).unwrap();
        let r = congsim::run(&s, 0);
        let done = f64_col(&r, "flows", "completion_time_s");
        assert!(
            done.iter().all(|t| t.is_finite()),
            "every response completes"
        );
        (
            done.iter().copied().fold(0.0, f64::max),
            r.summary.sum_u64("timeouts"),
        )
    };
    let (few, few_timeouts) = last_completion(8);
    assert!(
        few < 0.01 && few_timeouts == 0,
        "{few} s, {few_timeouts} timeouts"
    );
    let (many, many_timeouts) = last_completion(32);
    assert!(
        many > 0.2 && many_timeouts > 0,
        "{many} s: a 200 ms RTO waited for"
    );
}

fn fat_tree(k: u32, traffic: &str, extra: &str) -> String {
    format!(
        r#"[simulation]
duration = "50ms"
[topology]
kind = "fat_tree"
k = {k}
rate = "1Gbps"
delay = "5us"
queue = {{ limit_packets = 20 }}
traffic = "{traffic}"
[tcp]
profile = "rfc"
variant = "newreno"
packet_size = "1500B"
min_rto = "10ms"
[metrics]
flow_monitor = true
{extra}"#
    )
}

#[test]
fn a_fat_tree_spreads_flows_over_its_cores_by_flow_hash_and_packets_follow_the_hash() {
    let text = fat_tree(4, "stride", "");
    let s = from_toml_str(&text, "ft.toml").unwrap_or_else(|e| panic!("{e}"));
    // k = 4: 16 hosts, 8 edge, 8 aggregation and 4 core switches; 48 duplex links.
    assert_eq!(s.nodes.len(), 16 + 8 + 8 + 4);
    assert_eq!(s.links.len(), 96);
    assert!(s.ecmp, "ECMP is the fat tree's default");
    assert_eq!(s.flows.len(), 16);
    let core_of = |path: &[congsim_core::LinkId]| -> String {
        let names: Vec<String> = path
            .iter()
            .map(|l| s.links[l.index()].name(&s.nodes))
            .collect();
        assert_eq!(
            names.len(),
            6,
            "host, edge, aggregation, core and back: {names:?}"
        );
        names[2]
            .split("->")
            .nth(1)
            .expect("a link name")
            .to_string()
    };
    let cores = |replication: u32| -> Vec<String> {
        (s.flows.iter().enumerate())
            .map(|(i, f)| {
                let flow = congsim_core::FlowId(i as u32);
                core_of(
                    &s.flow_path(f.src, f.dst, flow, replication)
                        .expect("a route"),
                )
            })
            .collect()
    };
    let used: std::collections::BTreeSet<String> = cores(0).into_iter().collect();
    assert!(used.len() >= 3, "16 flows hashed over 4 cores: {used:?}");
    assert_ne!(
        cores(0),
        cores(1),
        "another replication salts the hash anew"
    );

    // Every data packet of a flow crosses exactly the links of its hashed path.
    let r = congsim::run(&s, 0);
    let monitor = r.table("flow_links").expect("flow_monitor on");
    let (flows, links) = (
        str_col_of(Some(monitor), "flow"),
        str_col_of(Some(monitor), "link"),
    );
    let arrivals = common::f64_col_of(monitor, "arrivals");
    for (i, f) in s.flows.iter().enumerate() {
        let flow = congsim_core::FlowId(i as u32);
        let mut expected: Vec<String> = [(f.src, f.dst), (f.dst, f.src)]
            .iter()
            .flat_map(|&(a, b)| s.flow_path(a, b, flow, 0).expect("a route"))
            .map(|l| s.links[l.index()].name(&s.nodes))
            .collect();
        expected.sort();
        let mut seen: Vec<String> = (0..flows.len())
            .filter(|&k| flows[k] == f.name && arrivals[k] > 0.0)
            .map(|k| links[k].clone())
            .collect();
        seen.sort();
        assert_eq!(seen, expected, "links crossed by {}", f.name);
    }

    // Without ECMP every flow takes the first declared uplink at every tier: one core.
    let single = from_toml_str(&fat_tree(4, "stride", "[routing]\necmp = false"), "ft.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    let first: std::collections::BTreeSet<String> = (single.flows.iter())
        .map(|f| core_of(&single.path(f.src, f.dst).expect("a route")))
        .collect();
    assert_eq!(first.into_iter().collect::<Vec<_>>(), ["c0"]);
}

#[test]
fn hop_fusion_skips_equal_cost_choices_and_changes_nothing() {
    // s -> r0, then two equal paths r0 -> a -> r3 and r0 -> b -> r3, then r3 -> d: r0 -> a and
    // r0 -> b are each fed by s -> r0 alone, but which one a packet takes is its flow's; a -> r3
    // is fed by r0 -> a alone and is every packet's next hop there, so it fuses.
    let mut links = String::new();
    for (from, to) in [
        ("s", "r0"),
        ("r0", "a"),
        ("r0", "b"),
        ("a", "r3"),
        ("b", "r3"),
        ("r3", "d"),
    ] {
        let rate = if from == "r3" { "20Mbps" } else { "100Mbps" };
        links += &format!(
            "[[links]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"{rate}\"\ndelay = \"1ms\"\nqueue = {{ limit_packets = 30 }}\n"
        );
    }
    let text = format!(
        r#"nodes = ["s", "r0", "a", "b", "r3", "d"]
[simulation]
duration = "3s"
[routing]
ecmp = true
{links}
[[flows]]
name = "f"
from = "s"
to = "d"
count = 8
[tcp]
profile = "rfc"
variant = "newreno"
"#
    );
    let mut s = from_toml_str(&text, "diamond.toml").unwrap_or_else(|e| panic!("{e}"));
    let fused = congsim::run(&s, 0);
    let arrivals = f64_col(&fused, "links", "arrivals");
    let names = str_col_of(Some(&fused.links), "link");
    let at = |name: &str| arrivals[names.iter().position(|n| n == name).expect("a link")];
    assert!(
        at("r0->a") > 0.0 && at("r0->b") > 0.0,
        "8 flows hashed over both branches"
    );
    assert!(
        fused.summary.sum_u64("drops") > 0,
        "the comparison needs congestion"
    );
    s.hop_fusion = false;
    let unfused = congsim::run(&s, 0);
    assert_eq!(fused.flows.to_csv(), unfused.flows.to_csv());
    assert_eq!(fused.links.to_csv(), unfused.links.to_csv());
    let events = |r: &congsim::RunResult| f64_col(r, "summary", "events")[0];
    assert!(events(&fused) < events(&unfused), "some hop fused");
}

#[test]
fn max_min_fairness_judges_each_flow_against_its_own_bottleneck() {
    // Flow "slow" is held to 2 Mbps by its access link; "fast" may take the other 8 of the
    // 10 Mbps bottleneck. Both doing so is max-min fair (index near 1) though Jain's index of
    // the raw rates calls it unfair.
    let text = r#"nodes = ["a", "b", "r", "d"]
[simulation]
duration = "20s"
measure_from = "5s"
[[links]]
from = "a"
to = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "b"
to = "r"
rate = "2Mbps"
delay = "1ms"
[[links]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "5ms"
queue = { limit_packets = 50 }
[[flows]]
name = "fast"
from = "a"
to = "d"
[[flows]]
name = "slow"
from = "b"
to = "d"
[tcp]
profile = "rfc"
variant = "newreno"
"#;
    let r = run_toml(text);
    assert_eq!(f64_col(&r, "flows", "maxmin_share_bps"), [8e6, 2e6]);
    let (jain, maxmin) = (
        f64_col(&r, "summary", "jain_index")[0],
        f64_col(&r, "summary", "maxmin_index")[0],
    );
    assert!(maxmin > 0.95 && jain < 0.8, "max-min {maxmin}, Jain {jain}");
}
