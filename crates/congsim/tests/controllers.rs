//! Congestion controllers run from scenario files (issue #29): DCTCP against a step-marking
//! queue, and the names every layer takes from the one list.

mod common;

use common::*;
use congsim::scenario::from_toml_str;
use congsim_tcp::CongestionControl;

/// Ten flows through a 1 Gbps, 20 us bottleneck from 10 Gbps access links (a base round trip
/// of about 100 us, a bandwidth-delay product of about 8 packets); the bottleneck queue is
/// `queue`.
fn datacenter_dumbbell(congestion_control: &str, queue: &str) -> String {
    format!(
        r#"
[simulation]
duration = "300ms"
measure_from = "100ms"
[metrics]
series_interval = "20us"
[topology]
kind = "dumbbell"
pairs = 10
access_rate = "10Gbps"
access_delay = "10us"
bottleneck_rate = "1Gbps"
bottleneck_delay = "20us"
bottleneck_queue = {queue}
[tcp]
profile = "rfc"
variant = "sack"
initial_window = 10
receiver_buffer = "4MB"
congestion_control = "{congestion_control}"
"#
    )
}

const STEP_AT_20: &str = "{ kind = \"red\", limit_packets = 400, min_th = 20, max_th = 20, w_q = 1.0, ecn_marking = true, mark_above_max_th = true, ns2_quirks = false }";

fn bottleneck(r: &congsim::RunResult, column: &str) -> f64 {
    let links = str_col_of(Some(&r.links), "link");
    let at = links
        .iter()
        .position(|l| l == "r1->r2")
        .expect("the bottleneck");
    f64_col(r, "links", column)[at]
}

#[test]
fn dctcp_holds_the_queue_near_k_at_full_rate_without_loss() {
    let dctcp = run_toml(&datacenter_dumbbell("dctcp", STEP_AT_20));
    // DCTCP: marks, no drop, the link full, the queue near K = 20 (its analysis: a peak near
    // K + N and a small oscillation below it), alpha strictly between 0 and 1.
    assert!(bottleneck(&dctcp, "marks") > 100.0);
    assert_eq!(bottleneck(&dctcp, "drops"), 0.0);
    assert!(bottleneck(&dctcp, "utilization") > 0.98);
    let mean = bottleneck(&dctcp, "mean_queue_packets");
    assert!((10.0..=30.0).contains(&mean), "mean queue {mean}");
    // After the start-up burst of ten initial windows, the queue stays within K + N.
    let series = dctcp.table("link_series").expect("series on");
    let (time, link) = (
        f64_col_of(series, "time_s"),
        str_col_of(Some(series), "link"),
    );
    let queue = f64_col_of(series, "queue_packets");
    let settled = (0..queue.len()).filter(|&i| time[i] >= 0.1 && link[i] == "r1->r2");
    let max = settled.map(|i| queue[i]).fold(0.0, f64::max);
    assert!(max <= 20.0 + 10.0, "max queue {max}");
    for alpha in f64_col(&dctcp, "flows", "dctcp_alpha") {
        assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha}");
    }
    assert_eq!(
        f64_col(&dctcp, "flows", "timeouts").iter().sum::<f64>(),
        0.0
    );
    // Two flows over a longer path (a bandwidth-delay product of about 38 packets, above
    // K): Reno with ECN halves at each echo and leaves the link idle below the step, where
    // DCTCP's proportional cut keeps it full (the DCTCP paper's trade-off).
    let long_path = |cc: &str| {
        datacenter_dumbbell(cc, STEP_AT_20)
            .replace("pairs = 10", "pairs = 2")
            .replace(
                "bottleneck_delay = \"20us\"",
                "bottleneck_delay = \"200us\"",
            )
            .replace("[tcp]\n", "[tcp]\ncongestion_marks = \"ecn\"\n")
    };
    let (dctcp, reno) = (run_toml(&long_path("dctcp")), run_toml(&long_path("aimd")));
    let (dctcp_busy, reno_busy) = (
        bottleneck(&dctcp, "utilization"),
        bottleneck(&reno, "utilization"),
    );
    assert!(dctcp_busy > 0.99, "DCTCP {dctcp_busy}");
    assert!(reno_busy < 0.98, "Reno-ECN {reno_busy}");
    // Without a DCTCP flow the flows table has no alpha column.
    assert!(reno.flows.column("dctcp_alpha").is_none());
}

#[test]
fn dctcp_turns_ecn_on_and_refuses_other_mark_answers() {
    let text = datacenter_dumbbell("dctcp", STEP_AT_20);
    let scenario = from_toml_str(&text, "dc.toml").expect("valid");
    assert!(scenario.warnings.is_empty(), "{:?}", scenario.warnings);
    for marks in ["off", "bcn"] {
        let bad = text.replace(
            "[tcp]\n",
            &format!("[tcp]\ncongestion_marks = \"{marks}\"\n"),
        );
        let message = from_toml_str(&bad, "dc.toml")
            .expect_err("refused")
            .to_string();
        assert!(
            message.contains("tcp.congestion_marks") && message.contains("dctcp"),
            "{message}"
        );
    }
    // Without a marking queue on the path it runs, with a warning naming the field.
    let droptail = datacenter_dumbbell("dctcp", "{ limit_packets = 100 }");
    let scenario = from_toml_str(&droptail, "dc.toml").expect("valid");
    let paths: Vec<&str> = scenario.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["tcp.congestion_control"]);
}

#[test]
fn every_controller_of_the_list_runs_from_a_scenario_file() {
    for controller in CongestionControl::ALL {
        let name = controller.name();
        let ecn = datacenter_dumbbell(name, STEP_AT_20)
            .replace("[tcp]\n", "[tcp]\ncongestion_marks = \"ecn\"\n");
        // BBR v1 answers no marks (a scenario refuses them with it): it runs over DropTail.
        let text = if *controller == CongestionControl::Bbr {
            datacenter_dumbbell(name, "{ limit_packets = 400 }")
        } else {
            ecn
        };
        let r = run_toml(&text);
        let goodput: f64 = f64_col(&r, "flows", "goodput_bps").iter().sum();
        assert!(goodput > 0.5e9, "{name}: {goodput}");
    }
    // The schema offers exactly the list's names.
    let schema: serde_json::Value =
        serde_json::from_str(&congsim::scenario::json_schema()).expect("JSON");
    let offered: Vec<&str> = schema["$defs"]["CongestionControlName"]["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|v| v["const"].as_str().expect("const"))
        .collect();
    let listed: Vec<&str> = CongestionControl::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(offered, listed);
    // An unknown name lists the known ones.
    let bad = datacenter_dumbbell("vegas", STEP_AT_20);
    let message = from_toml_str(&bad, "dc.toml")
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains(
            "unknown variant `vegas`, expected one of `aimd`, `cubic`, `dctcp`, `scalable`, `bbr`"
        ),
        "{message}"
    );
}

#[test]
fn a_paced_sender_never_sends_two_segments_at_one_instant() {
    // One CUBIC flow, a buffer large enough for no loss: pacing spreads each window over the
    // round trip at 2 or 1.2 times cwnd per smoothed RTT (Linux's rule), where the unpaced
    // sender sends what each ACK releases at once.
    let text = |pacing: bool| {
        datacenter_dumbbell("cubic", "{ limit_packets = 10000 }")
            .replace("pairs = 10", "pairs = 1")
            .replace("[tcp]\n", &format!("[tcp]\npacing = {pacing}\n"))
            .replace("[metrics]\n", "[metrics]\nsequence_trace = true\n")
    };
    let same_instant = |r: &congsim::RunResult| {
        let trace = r.table("sequence").expect("traced");
        let (time, event) = (
            f64_col_of(trace, "time_s"),
            str_col_of(Some(trace), "event"),
        );
        let sends: Vec<f64> = (0..time.len())
            .filter(|&i| event[i] == "send" && time[i] > 0.001)
            .map(|i| time[i])
            .collect();
        sends.windows(2).filter(|w| w[0] == w[1]).count()
    };
    let (paced, unpaced) = (run_toml(&text(true)), run_toml(&text(false)));
    assert_eq!(same_instant(&paced), 0);
    assert!(same_instant(&unpaced) > 1000, "{}", same_instant(&unpaced));
    let goodput = |r: &congsim::RunResult| f64_col(r, "flows", "goodput_bps")[0];
    assert!((goodput(&paced) / goodput(&unpaced) - 1.0).abs() < 0.01);
}

/// One flow or two through a 10 Mbps bottleneck with a 40 ms base round trip (a
/// bandwidth-delay product of about 33 packets of 1500 bytes on the wire), the buffer
/// `buffer_packets`.
fn internet_dumbbell(flows: &str, buffer_packets: u32) -> String {
    format!(
        r#"
nodes = ["src", "r1", "r2", "dst"]
[simulation]
duration = "30s"
measure_from = "10s"
[[links]]
from = "src"
to = "r1"
rate = "1Gbps"
delay = "1ms"
[[links]]
from = "r1"
to = "r2"
rate = "10Mbps"
delay = "18ms"
queue = {{ limit_packets = {buffer_packets} }}
[[links]]
from = "r2"
to = "dst"
rate = "1Gbps"
delay = "1ms"
[tcp]
profile = "rfc"
variant = "sack"
packet_size = "1460B"
initial_window = 10
{flows}
"#
    )
}

#[test]
fn bbr_alone_finds_the_bottleneck_rate_and_the_propagation_delay() {
    let flow = "[[flows]]\nfrom = \"src\"\nto = \"dst\"\ntcp = { congestion_control = \"bbr\" }";
    let bbr = run_toml(&internet_dumbbell(flow, 167));
    // Payload rate of the 10 Mbps link: 1460 of every 1500 bytes.
    let payload_bps = 10e6 * 1460.0 / 1500.0;
    let estimate = f64_col(&bbr, "flows", "bbr_bandwidth_bps")[0];
    assert!(
        (estimate / payload_bps - 1.0).abs() < 0.01,
        "BtlBw {estimate}"
    );
    // RTprop: 40 ms of propagation plus the serialization of a segment and its ACK.
    let rtprop = f64_col(&bbr, "flows", "bbr_min_rtt_s")[0];
    assert!((0.040..0.0435).contains(&rtprop), "RTprop {rtprop}");
    // PROBE_RTT costs about 2.5 % (ns-3.37: goodput 97.7 % of the payload rate).
    let busy = bottleneck(&bbr, "utilization");
    assert!(busy > 0.95, "utilization {busy}");
    // In a five-BDP buffer the flight is capped near two BDPs (cwnd gain 2), so the queue
    // stays far below the buffer, and PROBE_RTT comes about every ten seconds.
    let mean = bottleneck(&bbr, "mean_queue_packets");
    assert!(mean < 60.0, "mean queue {mean}");
    let probes = f64_col(&bbr, "flows", "bbr_probe_rtt_entries")[0];
    assert!((1.0..=3.0).contains(&probes), "PROBE_RTT {probes}");
    // Without a BBR flow the table has no BBR columns; a rerun is byte-identical (the gain
    // cycle's random phase comes from the flow's stream).
    let again = run_toml(&internet_dumbbell(flow, 167));
    assert_eq!(
        f64_col(&bbr, "flows", "goodput_bps"),
        f64_col(&again, "flows", "goodput_bps")
    );
    let reno = run_toml(&internet_dumbbell(
        "[[flows]]\nfrom = \"src\"\nto = \"dst\"",
        167,
    ));
    assert!(reno.flows.column("bbr_bandwidth_bps").is_none());
}

#[test]
fn bbr_refuses_pacing_off_and_marks() {
    let text = internet_dumbbell("[[flows]]\nfrom = \"src\"\nto = \"dst\"", 17)
        .replace("[tcp]\n", "[tcp]\ncongestion_control = \"bbr\"\n");
    from_toml_str(&text, "bbr.toml").expect("valid");
    for (line, field) in [
        ("pacing = false", "tcp.pacing"),
        ("congestion_marks = \"ecn\"", "tcp.congestion_marks"),
    ] {
        let bad = text.replace("[tcp]\n", &format!("[tcp]\n{line}\n"));
        let message = from_toml_str(&bad, "bbr.toml")
            .expect_err("refused")
            .to_string();
        assert!(
            message.contains(field) && message.contains("bbr"),
            "{message}"
        );
    }
}
