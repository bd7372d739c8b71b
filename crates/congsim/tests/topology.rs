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
            .map(|l| s.links[l.index()].name.clone())
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
    assert_eq!(s.links.last().map(|l| l.name.as_str()), Some("extra->r2"));
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
        .filter(|l| l.name.ends_with("->r1") && l.name.starts_with('s'))
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
