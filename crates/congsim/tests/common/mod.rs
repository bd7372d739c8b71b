//! Helpers shared by the whole-scenario test files.
#![allow(dead_code, reason = "each test file uses some of the helpers")]

use congsim::scenario::from_toml_str;
use congsim::table::Column;
use congsim::{RunResult, run};

pub(crate) fn run_toml(text: &str) -> RunResult {
    let scenario = from_toml_str(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, 0)
}

pub(crate) fn f64_col(r: &RunResult, table: &str, name: &str) -> Vec<f64> {
    let t = match table {
        "flows" => &r.flows,
        "summary" => &r.summary,
        "links" => &r.links,
        "tcp_events" => r.table("tcp_events").expect("tcp_events on"),
        "sequence" => r.table("sequence").expect("sequence_trace on"),
        "cbr" => r.table("cbr").expect("CBR sources"),
        "classes" => r.table("classes").expect("a priority queue"),
        "transfers" => r.table("transfers").expect("transfer groups"),
        "atm_ports" => r.table("atm_ports").expect("ATM links"),
        "atm_vcs" => r.table("atm_vcs").expect("ATM links"),
        "flow_links" => r.table("flow_links").expect("flow_monitor on"),
        "sojourn" => r.table("sojourn").expect("sojourn_links set"),
        _ => unreachable!(),
    };
    f64_col_of(t, name)
}

pub(crate) fn f64_col_of(t: &congsim::table::Table, name: &str) -> Vec<f64> {
    match t.column(name) {
        Some(Column::F64(v)) => v.clone(),
        Some(Column::U64(v)) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("no numeric column {name}: {other:?}"),
    }
}

pub(crate) fn str_col(r: &RunResult, name: &str) -> Vec<String> {
    str_col_of(r.table("tcp_events"), name)
}

pub(crate) fn str_col_of(t: Option<&congsim::table::Table>, name: &str) -> Vec<String> {
    match t.and_then(|t| t.column(name)) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("no string column {name}: {other:?}"),
    }
}

/// src —(100 Mbps, 1 ms)— router —(10 Mbps, 10 ms)— dst, one persistent flow.
pub(crate) fn three_node(profile: &str, window: u64, queue: u64) -> String {
    format!(
        r#"
nodes = ["src", "router", "dst"]
[simulation]
duration = "10s"
measure_from = "2s"
[[links]]
from = "src"
to = "router"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "router"
to = "dst"
rate = "10Mbps"
delay = "10ms"
queue = {{ limit_packets = {queue} }}
[tcp]
profile = "{profile}"
packet_size = "1000B"
window = {window}
[[flows]]
from = "src"
to = "dst"
"#
    )
}
