//! Queue disciplines from scenario files (issue #30): each packet's sojourn against the queue's
//! own accounting, and what CoDel, PIE and their FQ forms are for.

mod common;

use common::*;

/// Two TCP flows and a 0.5 Mbps voice CBR from their own 100 Mbps access links into a 10 Mbps,
/// 20 ms bottleneck r0 -> r1 whose queue is `queue`, recorded in the `sojourn` table.
fn bottleneck(queue: &str, duration_s: u32) -> String {
    format!(
        r#"
nodes = ["a", "b", "c", "r0", "r1", "d"]
[simulation]
duration = "{duration_s}s"
[metrics]
sojourn_links = ["r0->r1"]
[tcp]
profile = "rfc"
variant = "sack"
initial_window = 10
[[links]]
from = "r0"
to = "r1"
rate = "10Mbps"
delay = "20ms"
queue = {queue}
[[links]]
from = "a"
to = "r0"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "b"
to = "r0"
rate = "100Mbps"
delay = "2ms"
[[links]]
from = "c"
to = "r0"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "r1"
to = "d"
rate = "100Mbps"
delay = "1ms"
queue = {{ limit_packets = 10000 }}
[[flows]]
name = "bulk1"
from = "a"
to = "d"
[[flows]]
name = "bulk2"
from = "b"
to = "d"
start = "0.2s"
[[cbr]]
name = "voice"
from = "c"
to = "d"
rate = "0.5Mbps"
packet_size = "200B"
"#
    )
}

const QUEUES: [(&str, &str); 7] = [
    ("droptail", "{ limit_packets = 60 }"),
    (
        "droptail, drop-front",
        "{ limit_packets = 60, drop_front = true }",
    ),
    ("red", "{ kind = \"red\", limit_packets = 60 }"),
    ("codel", "{ kind = \"codel\" }"),
    ("fq_codel", "{ kind = \"fq_codel\" }"),
    ("pie", "{ kind = \"pie\" }"),
    ("fq_pie", "{ kind = \"fq_pie\" }"),
];

/// The sojourn table of r0 -> r1: (time left, flow, wait).
fn sojourns(r: &congsim::RunResult) -> Vec<(f64, String, f64)> {
    let t = r.table("sojourn").expect("sojourn_links set");
    let links = str_col_of(Some(t), "link");
    assert!(links.iter().all(|l| l == "r0->r1"));
    let times = f64_col(r, "sojourn", "time_s");
    let flows = str_col_of(Some(t), "flow");
    let waits = f64_col(r, "sojourn", "sojourn_s");
    (times.into_iter().zip(flows).zip(waits))
        .map(|((t, f), w)| (t, f, w))
        .collect()
}

fn bottleneck_link(r: &congsim::RunResult, column: &str) -> f64 {
    let links = str_col_of(Some(&r.links), "link");
    let at = links.iter().position(|l| l == "r0->r1").expect("r0->r1");
    f64_col(r, "links", column)[at]
}

#[test]
fn every_packet_sent_has_one_sojourn_and_they_add_up_to_the_queue_area() {
    for (name, queue) in QUEUES {
        let r = run_toml(&bottleneck(queue, 5));
        let rows = sojourns(&r);
        assert_eq!(
            rows.len() as f64,
            bottleneck_link(&r, "departures"),
            "{name}: one row per transmission"
        );
        assert!(
            rows.windows(2).all(|w| w[0].0 <= w[1].0),
            "{name}: in order"
        );
        assert!(rows.iter().all(|(_, _, w)| *w >= 0.0), "{name}");
        // Little: the time-average queue is the sum of the waits over the run, but for the
        // packets still waiting at the end (at most 60 of them, a few ms each) and, under
        // CoDel, the waits of the packets it dropped from the head, which the link counts and
        // the table (packets sent) does not.
        let area_s: f64 = rows.iter().map(|(_, _, w)| w).sum();
        let mean_queue = bottleneck_link(&r, "mean_queue_packets");
        let from_sojourns = area_s / 5.0;
        let low = if name.contains("codel") { 0.9 } else { 0.98 };
        assert!(
            from_sojourns <= mean_queue + 0.05 && from_sojourns >= low * mean_queue,
            "{name}: {from_sojourns} from the sojourns, {mean_queue} from the link"
        );
    }
}

fn mean_wait_ms(rows: &[(f64, String, f64)], flow: Option<&str>) -> f64 {
    let waits: Vec<f64> = (rows.iter())
        .filter(|(t, f, _)| *t >= 2.0 && flow.is_none_or(|flow| f == flow))
        .map(|(_, _, w)| *w)
        .collect();
    1e3 * waits.iter().sum::<f64>() / waits.len() as f64
}

#[test]
fn codel_keeps_the_standing_queue_near_target_and_fq_codel_shields_the_voice_flow() {
    let droptail = sojourns(&run_toml(&bottleneck("{ limit_packets = 200 }", 10)));
    let codel = sojourns(&run_toml(&bottleneck("{ kind = \"codel\" }", 10)));
    let fq_codel = sojourns(&run_toml(&bottleneck("{ kind = \"fq_codel\" }", 10)));
    let (dt, cd, fq) = (
        mean_wait_ms(&droptail, None),
        mean_wait_ms(&codel, None),
        mean_wait_ms(&fq_codel, None),
    );
    assert!(dt > 50.0, "DropTail of 200 packets fills: {dt} ms");
    assert!(cd < 10.0, "CoDel near its 5 ms target: {cd} ms");
    assert!(fq < 10.0, "{fq} ms");
    // The voice flow sends one small packet every 3.2 ms: under FQ-CoDel it is a new flow each
    // time and waits at most a packet's transmission; under CoDel it waits as the bulk does.
    let (voice_codel, voice_fq) = (
        mean_wait_ms(&codel, Some("voice")),
        mean_wait_ms(&fq_codel, Some("voice")),
    );
    assert!(voice_fq < 1.2, "{voice_fq} ms");
    assert!(
        voice_codel > 2.0 * voice_fq,
        "{voice_codel} against {voice_fq} ms"
    );
}

#[test]
fn pie_holds_the_queue_near_its_target_and_fq_pie_shields_the_voice_flow() {
    let pie = run_toml(&bottleneck("{ kind = \"pie\" }", 10));
    let fq_pie = run_toml(&bottleneck("{ kind = \"fq_pie\" }", 10));
    let (pie_rows, fq_rows) = (sojourns(&pie), sojourns(&fq_pie));
    let (all, all_fq) = (mean_wait_ms(&pie_rows, None), mean_wait_ms(&fq_rows, None));
    // PIE steers the delay to 15 ms with drops at enqueue (counted as early drops); it lets
    // the queue swing above and below, so the mean is loosely bounded.
    assert!(
        (5.0..30.0).contains(&all),
        "PIE near its 15 ms target: {all} ms"
    );
    assert!(bottleneck_link(&pie, "drops_early") > 0.0);
    assert!((5.0..30.0).contains(&all_fq), "{all_fq} ms");
    let (voice_pie, voice_fq) = (
        mean_wait_ms(&pie_rows, Some("voice")),
        mean_wait_ms(&fq_rows, Some("voice")),
    );
    assert!(voice_fq < 1.2, "{voice_fq} ms");
    assert!(
        voice_pie > 2.0 * voice_fq,
        "{voice_pie} against {voice_fq} ms"
    );
}

#[test]
fn per_flow_sojourn_statistics_add_up_to_the_link_and_the_sojourn_table() {
    let r = run_toml(&bottleneck("{ kind = \"fq_codel\" }", 10));
    let t = r.table("sojourn_flows").expect("sojourn_links set");
    let flows = str_col_of(Some(t), "flow");
    let col = |name| f64_col_of(t, name);
    let (packets, drops) = (col("packets"), col("drops"));
    let (p50, p90, p99, max) = (
        col("sojourn_p50_s"),
        col("sojourn_p90_s"),
        col("sojourn_p99_s"),
        col("sojourn_max_s"),
    );
    // The window is the whole run here: every row of the sojourn table is counted once.
    let rows = sojourns(&r);
    for (i, flow) in flows.iter().enumerate() {
        let waits: Vec<f64> = (rows.iter())
            .filter(|(_, f, _)| f == flow)
            .map(|r| r.2)
            .collect();
        assert_eq!(packets[i] as usize, waits.len(), "{flow}");
        let top = waits.iter().copied().fold(0.0, f64::max);
        assert!((max[i] - top).abs() < 1e-12, "{flow}");
        assert!(
            p50[i] <= p90[i] && p90[i] <= p99[i] && p99[i] <= max[i],
            "{flow}"
        );
    }
    assert_eq!(drops.iter().sum::<f64>(), bottleneck_link(&r, "drops"));
    // Most of the voice flow's packets wait at most about one bulk packet's transmission
    // (1.2 ms); its worst waits stay well under the bulk flows'.
    let voice = flows.iter().position(|f| f == "voice").expect("voice row");
    assert!(p50[voice] < 0.0012, "{}", p50[voice]);
    let bulk = flows.iter().position(|f| f == "bulk1").expect("bulk row");
    assert!(p99[bulk] > 2.0 * p99[voice]);
}
