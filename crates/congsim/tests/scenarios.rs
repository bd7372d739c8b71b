//! Whole-scenario tests: TOML in, tables out (TCP over IP links, RED, scripted events).

mod common;

use common::*;
use congsim::scenario::{from_toml_str, from_toml_str_with_overrides};
use congsim::table::Column;
use congsim::{RunResult, run};
#[test]
fn window_limited_flow_reaches_window_over_rtt() {
    let r = run_toml(&three_node("ns2_2000", 20, 50));
    // RTT = 80 µs + 1 ms + 800 µs + 10 ms (data) + 32 µs + 10 ms + 3.2 µs + 1 ms (ACK).
    let rtt = 22.9152e-3;
    let expected = 20.0 * 1000.0 * 8.0 / rtt;
    let got = f64_col(&r, "flows", "goodput_bps")[0];
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs window/RTT {expected}"
    );
    assert_eq!(f64_col(&r, "summary", "drops")[0], 0.0);
    assert!((f64_col(&r, "flows", "rtt_mean_s")[0] - rtt).abs() < 1e-9);
}

#[test]
fn link_limited_flow_reaches_the_payload_rate() {
    let r = run_toml(&three_node("ns2_2002", 100, 200));
    // ns2_2002 adds 40 header bytes to each 1000-byte packet.
    let expected = 10e6 * 1000.0 / 1040.0;
    let got = f64_col(&r, "flows", "goodput_bps")[0];
    assert!(
        (got / expected - 1.0).abs() < 0.01,
        "goodput {got} vs payload rate {expected}"
    );
    assert_eq!(
        f64_col(&r, "summary", "drops")[0],
        0.0,
        "window 100 fits in BDP + queue"
    );
}

/// a —(1 Gbps, 10 ms)— b, ns2_2000 Reno, window 64, with data packets dropped on a→b.
fn lossy_pair(variant: &str, drops: &[u64], size: Option<&str>) -> String {
    let drops: String = drops
        .iter()
        .map(|k| format!("[[drops]]\nfrom = \"a\"\nto = \"b\"\nflow = \"f\"\npacket = {k}\n"))
        .collect();
    let size = size.map_or(String::new(), |s| format!("size = \"{s}\"\n"));
    format!(
        r#"
nodes = ["a", "b"]
[simulation]
duration = "30s"
[[links]]
from = "a"
to = "b"
rate = "1Gbps"
delay = "10ms"
queue = {{ limit_packets = 1000 }}
[tcp]
profile = "ns2_2000"
variant = "{variant}"
window = 64
boot_phase = "zero"
[metrics]
tcp_events = true
[[flows]]
name = "f"
from = "a"
to = "b"
{size}
{drops}"#
    )
}

/// Hand derivation (ACK every packet, slow start one increment per ACK, 8 µs per packet):
/// rounds of 1, 2, 4, 8 packets leave at about 0, R, 2R, 3R (R = 20.00832 ms). Packet 10
/// (the 11th) is lost in round 3 (p7..p14). At about 4R the ACKs of p7..p9 raise cwnd to 11 and
/// p11, p12, p13 bring three duplicates: fast retransmit with ssthresh = cwnd = floor(11/2) = 5.
/// The retransmission is ACKed after p15..p20, in one new ACK that ends recovery: cwnd = 5,
/// then one congestion-avoidance increment, 5 + 1/5 = 5.2.
#[test]
fn single_drop_gives_the_hand_derived_reno_trajectory() {
    let r = run_toml(&lossy_pair("reno", &[11], None));
    let events = str_col(&r, "event");
    assert_eq!(events, ["fast_retransmit", "recovery_exit"]);
    let t = f64_col(&r, "tcp_events", "time_s");
    let rtt = 20.00832e-3;
    assert!(
        t[0] >= 4.0 * rtt && t[0] <= 4.0 * rtt + 0.2e-3,
        "fast retransmit at {} s, expected ≈ 4R = {} s",
        t[0],
        4.0 * rtt
    );
    assert!(
        (t[1] - t[0] - rtt).abs() < 0.2e-3,
        "recovery ends one RTT later"
    );
    assert_eq!(f64_col(&r, "tcp_events", "cwnd"), [5.0, 5.2]);
    assert_eq!(f64_col(&r, "tcp_events", "ssthresh"), [5.0, 5.0]);
    assert_eq!(f64_col(&r, "flows", "timeouts")[0], 0.0);
    assert_eq!(f64_col(&r, "flows", "retx_pkts")[0], 1.0);
}

#[test]
fn three_drops_in_one_window_make_ns2_reno_time_out() {
    let r = run_toml(&lossy_pair("reno", &[11, 12, 13], Some("200KB")));
    assert_eq!(
        f64_col(&r, "flows", "fast_retransmits")[0],
        1.0,
        "the recover guard allows one"
    );
    assert!(
        f64_col(&r, "flows", "timeouts")[0] >= 1.0,
        "the remaining holes need the RTO"
    );
    // RTT samples of one 100 ms tick give RTO = 3 ticks: the stall costs about 0.3 s.
    let done = f64_col(&r, "flows", "completion_time_s")[0];
    assert!(done > 0.3 && done < 1.0, "completed after {done} s");
    // ns-2 sends whole packets: ceil(204800 / 1000) = 205.
    assert_eq!(f64_col(&r, "flows", "bytes_delivered")[0], 205_000.0);
    // Tahoe repairs the same losses by going back to one segment, without any timeout.
    let t = run_toml(&lossy_pair("tahoe", &[11, 12, 13], Some("200KB")));
    assert_eq!(f64_col(&t, "flows", "timeouts")[0], 0.0);
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let text = |seed: u64| {
        format!(
            r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "5s"
seed = {seed}
[[links]]
from = "a"
to = "r"
rate = "10Mbps"
delay = "2ms"
random_loss = 0.01
[[links]]
from = "r"
to = "b"
rate = "2Mbps"
delay = "20ms"
queue = {{ limit_packets = 20 }}
[tcp]
window = 40
[metrics]
series_interval = "500ms"
[[flows]]
from = "a"
to = "b"
count = 3
"#
        )
    };
    let csv = |r: &RunResult| {
        [
            &r.flows,
            &r.links,
            &r.summary,
            r.table("flow_series").unwrap(),
            r.table("link_series").unwrap(),
        ]
        .iter()
        .map(|t| t.to_csv())
        .collect::<String>()
    };
    let a = csv(&run_toml(&text(7)));
    assert_eq!(a, csv(&run_toml(&text(7))));
    assert_ne!(a, csv(&run_toml(&text(8))));
}

mod delivery {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Every byte of a finite transfer arrives, in order, once, whatever is lost.
        #[test]
        fn every_byte_arrives_under_random_loss(
            seed in 0u64..1_000_000,
            loss_permille in 0u32..60,
            variant in prop::sample::select(vec!["tahoe", "reno", "newreno", "sack"]),
            profile in prop::sample::select(vec!["ns2_2000", "ns2_2002", "bsd", "rfc"]),
            no_fast_retransmit in any::<bool>(),
        ) {
            let size = 300 * 1024u64;
            let bsd = profile == "bsd" || profile == "rfc";
            let (mss, window) = if bsd {
                (512u64, "receiver_buffer = \"32KB\"")
            } else {
                (1000u64, "window = 32")
            };
            let text = format!(
                r#"
nodes = ["a", "b"]
[simulation]
duration = "900s"
seed = {seed}
[[links]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
random_loss = {loss}
queue = {{ limit_packets = 30 }}
[tcp]
profile = "{profile}"
variant = "{variant}"
packet_size = "{mss}B"
fast_retransmit = {fr}
{window}
[[flows]]
from = "a"
to = "b"
size = "{size}B"
"#,
                loss = f64::from(loss_permille) / 1000.0,
                fr = !no_fast_retransmit,
            );
            let r = run_toml(&text);
            // ns-2 sends whole packets; BSD a short last segment.
            let expected = if bsd { size } else { size.div_ceil(mss) * mss };
            prop_assert_eq!(f64_col(&r, "flows", "bytes_delivered")[0], expected as f64);
            prop_assert!(f64_col(&r, "flows", "completion_time_s")[0] > 0.0);
        }
    }
}

/// The FIFO fast path and hop fusion are exact shortcuts: switching them off (every link served
/// by the general dequeue-driven path, every hop an event) must not change a single number.
///
/// Hop fusion is compared on the benchmark scenario itself. The two service paths can differ at
/// exactly simultaneous instants: whether an arrival at `t` sees the transmission that starts
/// at `t` as queued is fixed on the fast path (queued) but depends on event order on the
/// scheduled path. With a distinct rate on every link no two such instants coincide, and then
/// the paths must agree to the last bit.
#[test]
fn fast_path_and_hop_fusion_change_nothing() {
    let dumbbell = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/dumbbell-20.toml"
    ))
    .expect("scenario file")
    .replace("duration = \"20s\"", "duration = \"4s\"")
    .replace("[metrics]", "[metrics]\nseries_interval = \"250ms\"");
    // The same with a RED bottleneck: RED decides from the queue an arrival finds and the idle
    // time, which both paths must see alike.
    let red = dumbbell.replace(
        "queue = { limit_packets = 200 }",
        "queue = { kind = \"red\", limit_packets = 200, min_th = 20, max_th = 60 }",
    );
    assert_ne!(red, dumbbell);
    // Without time series (and with a measurement window), receivers take data as it enters
    // its last pipe (`Simulation::early_delivery`), which must change nothing either.
    let early = dumbbell
        .replace("[metrics]\nseries_interval = \"250ms\"", "[metrics]")
        .replace(
            "duration = \"4s\"",
            "duration = \"4s\"\nmeasure_from = \"1s\"",
        );
    assert!(!early.contains("series_interval") && early.contains("measure_from"));
    // Bottlenecks on the scheduled path (deciding at dequeue) fuse into the next hop when a
    // transmission ends, as the fast path does at admission.
    let codel = dumbbell.replace(
        "queue = { limit_packets = 200 }",
        "queue = { kind = \"codel\", limit_packets = 200 }",
    );
    let fq_codel = early.replace(
        "queue = { limit_packets = 200 }",
        "queue = { kind = \"fq_codel\", limit_packets = 200 }",
    );
    assert!(codel.contains("codel") && fq_codel.contains("fq_codel"));
    for text in [dumbbell, red, early, codel, fq_codel] {
        compare_paths(&text);
    }
}

fn compare_paths(text: &str) {
    let mut k = 0;
    let distinct_rates: String = text
        .lines()
        .map(|line| {
            if line.starts_with("rate = ") {
                k += 1;
                format!("rate = \"{}bps\"\n", 99_990_001 + 7_919 * k)
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let mut scenario = from_toml_str(text, "dumbbell-20.toml").unwrap();
    let tables = |r: &RunResult| {
        [
            Some(&r.flows),
            Some(&r.links),
            r.table("flow_series"),
            r.table("link_series"),
        ]
        .iter()
        .flatten()
        .map(|t| t.to_csv())
        .collect::<Vec<String>>()
    };
    let first_difference = |a: &RunResult, b: &RunResult| {
        for (ta, tb) in tables(a).iter().zip(tables(b)) {
            for (la, lb) in ta.lines().zip(tb.lines()) {
                if la != lb {
                    return Some(format!("{la}\n{lb}"));
                }
            }
        }
        None
    };
    let fused = run(&scenario, 0);
    assert!(
        // Counted in the measurement window, where one is set (the early case: 80 from 1 s).
        f64_col(&fused, "summary", "drops")[0] > 50.0,
        "the comparison needs congestion"
    );
    scenario.hop_fusion = false;
    let unfused = run(&scenario, 0);
    assert_eq!(first_difference(&fused, &unfused), None, "fused vs unfused");

    let mut distinct = from_toml_str(&distinct_rates, "dumbbell-20.toml").unwrap();
    let fast = run(&distinct, 0);
    distinct.hop_fusion = false;
    for link in &mut distinct.links {
        link.fifo_fast_path = false;
    }
    let scheduled = run(&distinct, 0);
    assert_eq!(
        first_difference(&fast, &scheduled),
        None,
        "fast path vs scheduled path"
    );
    let events = |r: &RunResult| f64_col(r, "summary", "events")[0];
    assert!(events(&fused) < events(&unfused));
    assert!(events(&fast) < events(&scheduled));
}

/// `scenarios/fall-floyd.toml` with scripted `action`s ("drops" or "marks") on the listed data
/// packets (1-based) of flow `f` at the bottleneck, and further overrides.
fn fall_floyd(action: &str, packets: &[u64], settings: &[(&str, serde_json::Value)]) -> RunResult {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/fall-floyd.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario file");
    let listed: Vec<serde_json::Value> = packets
        .iter()
        .map(|k| serde_json::json!({"from": "r", "to": "b", "flow": "f", "packet": k}))
        .collect();
    let mut overrides = vec![(action.to_string(), serde_json::Value::Array(listed))];
    overrides.extend(settings.iter().map(|(k, v)| (k.to_string(), v.clone())));
    let scenario = from_toml_str_with_overrides(&text, "fall-floyd.toml", &overrides).unwrap();
    run(&scenario, 0)
}

/// Fall & Floyd (1996): `scenarios/fall-floyd.toml` with 1 to 4 consecutive packets dropped
/// from one window (as `bench/fall_floyd.py` runs it). Expected, for 1, 2, 3 and 4 drops:
/// `(timeouts, retransmitted packets, unnecessary retransmissions, completion time in ms)`.
/// ns-2.35 with the ns2_2000 switches gives the same numbers for Tahoe, NewReno and SACK, and
/// for Reno the same counts with completion 100 ms later (one tick: ns-2 draws its timer phase
/// at random, these runs use phase zero). The loss-free transfer completes at 2.015 s.
type Outcomes = [(u64, u64, u64, u64); 4];

#[test]
fn fall_and_floyd_multiple_drops() {
    let expected: [(&str, Outcomes); 4] = [
        // Tahoe recovers every loss without a timeout but resends what arrived after the first
        // hole (go-back-N).
        (
            "tahoe",
            [
                (0, 1, 0, 3426),
                (0, 3, 1, 3496),
                (0, 5, 2, 3477),
                (0, 7, 3, 3628),
            ],
        ),
        // Reno repairs one loss per window; two or more need the timeout.
        (
            "reno",
            [
                (0, 1, 0, 2901),
                (1, 2, 0, 4541),
                (1, 4, 1, 4602),
                (1, 6, 2, 4611),
            ],
        ),
        // NewReno repairs one loss per round trip, never resending needlessly.
        (
            "newreno",
            [
                (0, 1, 0, 2901),
                (0, 2, 0, 3235),
                (0, 3, 0, 3457),
                (0, 4, 0, 3688),
            ],
        ),
        // SACK repairs all of them in about one round trip.
        (
            "sack",
            [
                (0, 1, 0, 2921),
                (0, 2, 0, 2993),
                (0, 3, 0, 3044),
                (0, 4, 0, 3103),
            ],
        ),
    ];
    for (variant, outcomes) in expected {
        for (i, &want) in outcomes.iter().enumerate() {
            let packets: Vec<u64> = (14..15 + i as u64).collect();
            let r = fall_floyd(
                "drops",
                &packets,
                &[("tcp.variant", serde_json::json!(variant))],
            );
            let retx = f64_col(&r, "flows", "retx_pkts")[0] as u64;
            let unnecessary = f64_col(&r, "flows", "dup_pkts_rcvd")[0] as u64;
            // No retransmission is dropped here, so each dropped packet needs exactly one.
            assert_eq!(unnecessary, retx - (i as u64 + 1), "{variant}");
            let got = (
                f64_col(&r, "flows", "timeouts")[0] as u64,
                retx,
                unnecessary,
                (f64_col(&r, "flows", "completion_time_s")[0] * 1000.0).round() as u64,
            );
            assert_eq!(got, want, "{variant} with {} drops", i + 1);
        }
    }
}

/// RFC 6675 and RFC 3517 on the Fall & Floyd drops: every loss is repaired in recovery, once.
#[test]
fn rfc6675_and_rfc3517_repair_multiple_drops_without_timeouts() {
    for sender in ["rfc6675", "rfc3517"] {
        for drops in 1..=4u64 {
            let packets: Vec<u64> = (14..14 + drops).collect();
            let r = fall_floyd(
                "drops",
                &packets,
                &[
                    ("tcp.variant", serde_json::json!("sack")),
                    ("tcp.sack_sender", serde_json::json!(sender)),
                ],
            );
            let col = |name: &str| f64_col(&r, "flows", name)[0];
            assert_eq!(col("timeouts"), 0.0, "{sender}, {drops} drops");
            assert_eq!(col("fast_recoveries"), 1.0, "{sender}, {drops} drops");
            assert_eq!(col("retx_pkts"), drops as f64, "{sender}, {drops} drops");
            assert_eq!(col("bytes_delivered"), 103_000.0);
        }
    }
}

/// Scripted marks on three packets of one window, end to end: the ECN flow cuts once and
/// retransmits nothing; BCN cuts per marked packet (or once per round trip); a flow that is not
/// ECN-capable loses the three packets instead.
#[test]
fn scripted_marks_drive_ecn_and_bcn_end_to_end() {
    let outcome = |settings: &[(&str, serde_json::Value)]| {
        let r = fall_floyd("marks", &[14, 15, 16], settings);
        let col = |name: &str| f64_col(&r, "flows", name)[0] as u64;
        assert_eq!(col("bytes_delivered"), 103_000);
        let marked: f64 = f64_col(&r, "links", "marks").iter().sum();
        (
            col("ecn_responses") + col("bcn_responses"),
            col("retx_pkts"),
            col("timeouts"),
            marked as u64,
        )
    };
    let ecn = [("tcp.congestion_marks", serde_json::json!("ecn"))];
    assert_eq!(outcome(&ecn), (1, 0, 0, 3));
    let bcn = [("tcp.congestion_marks", serde_json::json!("bcn"))];
    assert_eq!(outcome(&bcn), (3, 0, 0, 3));
    let bcn_once = [
        ("tcp.congestion_marks", serde_json::json!("bcn")),
        ("tcp.bcn_reaction", serde_json::json!("once_per_rtt")),
    ];
    assert_eq!(outcome(&bcn_once), (1, 0, 0, 3));
    let (responses, retx, _, marked) = outcome(&[]);
    assert_eq!((responses, marked), (0, 0));
    assert!(
        retx >= 3,
        "not ECN-capable: the marks drop, {retx} retransmissions"
    );
}

/// The time-sequence trace accounts for every transmission, ACK and drop, and carries the
/// SACK blocks the sender saw.
#[test]
fn sequence_trace_accounts_for_every_packet() {
    let r = fall_floyd(
        "drops",
        &[14, 16],
        &[
            ("tcp.variant", serde_json::json!("sack")),
            ("metrics.sequence_trace", serde_json::json!(true)),
        ],
    );
    let events = str_col_of(r.table("sequence"), "event");
    let count = |e: &str| events.iter().filter(|x| *x == e).count() as f64;
    let flow = |name: &str| f64_col(&r, "flows", name)[0];
    assert_eq!(count("send") + count("retransmit"), flow("data_pkts_sent"));
    assert_eq!(count("retransmit"), flow("retx_pkts"));
    assert_eq!(count("ack"), flow("acks_rcvd"));
    assert_eq!(count("drop"), 2.0);
    let seq = f64_col(&r, "sequence", "seq");
    let dropped: Vec<f64> = events
        .iter()
        .zip(&seq)
        .filter(|(e, _)| *e == "drop")
        .map(|(_, &s)| s)
        .collect();
    assert_eq!(dropped, [13.0, 15.0], "packets 14 and 16 (numbered from 0)");
    let sack = str_col_of(r.table("sequence"), "sack");
    assert!(
        sack.iter().any(|b| b == "16-17 14-15"),
        "blocks most recent first"
    );
    let pipe = f64_col(&r, "sequence", "pipe");
    assert!(pipe.iter().any(|p| p.is_finite()) && pipe.iter().any(|p| p.is_nan()));
}

/// Five Reno flows share a 10 Mbps RED gateway. Dropping early keeps the queue short; with
/// ECN-capable flows and a marking gateway the early drops become marks, so almost nothing is
/// lost while the link stays busy.
#[test]
fn red_gateway_drops_or_marks_early() {
    let scenario = |marks: &str, ecn_marking: bool| {
        format!(
            r#"
nodes = ["s", "r", "d"]
[simulation]
duration = "30s"
seed = 7
[[links]]
from = "s"
to = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "5ms"
queue = {{ kind = "red", limit_packets = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, ecn_marking = {ecn_marking} }}
[tcp]
profile = "ns2_2000"
variant = "reno"
packet_size = "500B"
window = 100
congestion_marks = "{marks}"
[[flows]]
from = "s"
to = "d"
count = 5
start_jitter = "100ms"
"#
        )
    };
    let bottleneck = |r: &RunResult, name: &str| f64_col(r, "links", name)[2];
    let dropping = run_toml(&scenario("off", false));
    assert!(bottleneck(&dropping, "drops_early") > 50.0);
    assert_eq!(bottleneck(&dropping, "marks"), 0.0);
    // Only slow start's first overshoot outruns the slowly moving average.
    assert!(bottleneck(&dropping, "drops_overflow") < bottleneck(&dropping, "drops_early"));
    assert!(bottleneck(&dropping, "mean_queue_packets") < 15.0);
    let marking = run_toml(&scenario("ecn", true));
    let early = bottleneck(&marking, "drops_early");
    let forced = bottleneck(&marking, "drops_forced");
    assert!(bottleneck(&marking, "marks") > 100.0);
    assert_eq!(
        early, 0.0,
        "ECN-capable packets are marked, never dropped early"
    );
    assert!(
        forced < bottleneck(&dropping, "drops") / 5.0,
        "{forced} forced drops"
    );
    assert!(
        f64_col(&marking, "flows", "ecn_responses")
            .iter()
            .sum::<f64>()
            > 50.0
    );
    for r in [&dropping, &marking] {
        assert!(bottleneck(r, "utilization") > 0.9, "the link stays busy");
    }
    // A marking gateway still drops packets that are not ECN-capable.
    let mixed = run_toml(&scenario("off", true));
    assert!(bottleneck(&mixed, "drops_early") > 50.0);
    assert_eq!(bottleneck(&mixed, "marks"), 0.0);
}

/// A scripted drop on a link that hop fusion would enter early (r->d has the single feeder
/// s->r, so a packet is offered to it when it leaves s->r) is traced when the packet reaches r,
/// with the sender's state then, exactly as without the shortcut.
#[test]
fn a_scripted_drop_is_traced_when_the_packet_reaches_the_dropping_link() {
    let text = r#"
nodes = ["s", "r", "d"]
[simulation]
duration = "2s"
[[links]]
from = "s"
to = "r"
rate = "10Mbps"
delay = "10ms"
[[links]]
from = "r"
to = "d"
rate = "1Mbps"
delay = "20ms"
[tcp]
profile = "ns2_2000"
packet_size = "1000B"
[[flows]]
name = "f"
from = "s"
to = "d"
[[drops]]
flow = "f"
packet = 5
from = "r"
to = "d"
[metrics]
sequence_trace = true
"#;
    let r = run_toml(text);
    let times = f64_col(&r, "sequence", "time_s");
    let events = str_col_of(r.table("sequence"), "event");
    let seqs = match r.table("sequence").and_then(|t| t.column("seq")) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("seq: {other:?}"),
    };
    assert!(times.is_sorted(), "the trace is in time order");
    let drop = events.iter().position(|e| e == "drop").expect("one drop");
    let sent = (0..drop)
        .rfind(|&i| events[i] == "send" && seqs[i] == seqs[drop])
        .expect("the dropped segment was sent before");
    // At least 1000 B at 10 Mbps (0.8 ms) and 10 ms of propagation after it was sent.
    assert!(
        times[drop] >= times[sent] + 0.0108 - 1e-12,
        "drop at {} s, sent at {} s",
        times[drop],
        times[sent]
    );
    // The same trace as without the shortcut, where the drop is an event at r.
    let mut unfused = from_toml_str(text, "test.toml").unwrap();
    unfused.hop_fusion = false;
    let csv = |t: Option<&congsim::table::Table>| t.expect("sequence_trace on").to_csv();
    let (a, b) = (
        csv(run(&unfused, 0).table("sequence")),
        csv(r.table("sequence")),
    );
    let diff: Vec<(&str, &str)> = a
        .lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .take(3)
        .collect();
    assert!(diff.is_empty(), "{diff:?}");
}

/// Networks too large for the dense next-hop table read the per-destination routes: the same
/// results as the dense table gives (here, 1 100 idle nodes beside a three-node path).
#[test]
fn large_networks_route_through_per_destination_rows_with_the_same_results() {
    let small = three_node("ns2_2000", 20, 50);
    let idle: Vec<String> = (0..1100).map(|i| format!("\"idle{i}\"")).collect();
    let large = small.replace(
        "nodes = [\"src\", \"router\", \"dst\"]",
        &format!(
            "nodes = [\"src\", \"router\", \"dst\", {}]",
            idle.join(", ")
        ),
    );
    assert_ne!(small, large);
    let (a, b) = (run_toml(&small), run_toml(&large));
    let warned = b
        .table("warnings")
        .expect("the idle nodes are warned about")
        .to_csv();
    assert!(
        warned.contains("no link uses these nodes: idle0, idle1,")
            && warned.contains("and 1080 more"),
        "{warned}"
    );
    for (name, table) in a.tables() {
        if name == "warnings" {
            continue;
        }
        let other = b.tables().into_iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(
            table.map(|t| t.to_csv()),
            other.map(|t| t.to_csv()),
            "{name}"
        );
    }
}

/// `active_goodput_bps` divides what a flow delivered by its own life: start to completion for
/// a finite transfer, start to the end of the run for a persistent one.
#[test]
fn goodput_over_a_flows_active_time() {
    // Over the whole run, so that `bytes_delivered` (counted in the measurement window) is
    // every byte.
    let base = three_node("ns2_2000", 20, 50).replace("measure_from = \"2s\"\n", "");
    assert!(!base.contains("measure_from"));
    let text = format!(
        "{base}\n[[flows]]\nname = \"short\"\nfrom = \"src\"\nto = \"dst\"\nstart = \"2s\"\nsize = \"100KB\"\n"
    );
    let r = run_toml(&text);
    let active = f64_col(&r, "flows", "active_goodput_bps");
    let bytes = f64_col(&r, "flows", "bytes_delivered");
    let start = f64_col(&r, "flows", "start_s");
    let completion = f64_col(&r, "flows", "completion_time_s");
    let duration = 10.0;
    // The persistent flow: the whole run after its start.
    assert!((active[0] - bytes[0] * 8.0 / (duration - start[0])).abs() < 1e-6);
    // The transfer: 100 KB over its completion time, far above its share of the run.
    assert!(bytes[1] >= 102_400.0, "whole packets: {}", bytes[1]);
    assert!(completion[1] > 0.0 && completion[1] < 8.0);
    assert!((active[1] - bytes[1] * 8.0 / completion[1]).abs() < 1e-6);
    assert!(active[1] > f64_col(&r, "flows", "goodput_bps")[1]);
}

/// One SACK flow over a long fat pipe (50 Mbps, 60 ms, 375-packet BDP, 100-packet buffer).
fn long_fat_pipe(congestion_control: &str) -> String {
    format!(
        r#"
nodes = ["src", "router", "dst"]
[simulation]
duration = "40s"
measure_from = "5s"
[metrics]
tcp_events = true
[[links]]
from = "src"
to = "router"
rate = "1Gbps"
delay = "1ms"
[[links]]
from = "router"
to = "dst"
rate = "50Mbps"
delay = "29ms"
queue = {{ limit_packets = 100 }}
[tcp]
profile = "ns2_235"
variant = "sack"
packet_size = "1000B"
window = 10000
congestion_control = "{congestion_control}"
[[flows]]
from = "src"
to = "dst"
"#
    )
}

#[test]
fn cubic_cuts_to_seven_tenths_and_fills_a_long_fat_pipe_better_than_aimd() {
    let cubic = run_toml(&long_fat_pipe("cubic"));
    let aimd = run_toml(&long_fat_pipe("aimd"));
    // Both slow-start alike into the first loss; there CUBIC keeps 0.7 of the window
    // (RFC 9438 β) where AIMD keeps half.
    let first_cut = |r: &RunResult| {
        let events = str_col(r, "event");
        let at = events.iter().position(|e| e == "fast_retransmit");
        f64_col(r, "tcp_events", "cwnd")[at.expect("a loss")]
    };
    let ratio = first_cut(&cubic) / first_cut(&aimd);
    assert!((ratio - 0.7 / 0.5).abs() < 0.01, "{ratio}");
    // AIMD regains one packet per round trip (~200 RTTs, 12 s, for half a 475-packet window);
    // CUBIC returns to W_max within K = 7 s whatever the RTT and approaches it concavely.
    let payload_rate_bps = 50e6 * 1000.0 / 1040.0;
    let (cubic_bps, aimd_bps) = (
        f64_col(&cubic, "flows", "goodput_bps")[0],
        f64_col(&aimd, "flows", "goodput_bps")[0],
    );
    assert!(
        cubic_bps > 1.05 * aimd_bps,
        "CUBIC {cubic_bps} vs AIMD {aimd_bps}"
    );
    assert!(cubic_bps > 0.92 * payload_rate_bps, "CUBIC {cubic_bps}");
    assert_eq!(f64_col(&cubic, "flows", "timeouts")[0], 0.0);
}

#[test]
fn every_counter_is_counted_in_the_measurement_window() {
    let whole = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/dumbbell-20.toml"
    ))
    .expect("scenario file")
    .replace("duration = \"20s\"", "duration = \"4s\"");
    let with =
        |window: &str| whole.replace("duration = \"4s\"", &format!("duration = \"4s\"\n{window}"));
    let (all, before, after) = (
        run_toml(&whole),
        run_toml(&with("measure_until = \"1300ms\"")),
        run_toml(&with("measure_from = \"1300ms\"")),
    );
    // Counters of the two halves add up to the whole run's, row by row.
    for (table, columns) in [
        (
            "flows",
            &[
                "bytes_delivered",
                "data_pkts_sent",
                "retx_pkts",
                "timeouts",
                "fast_retransmits",
                "acks_rcvd",
                "rtt_samples",
                "acks_sent",
            ][..],
        ),
        (
            "links",
            &["arrivals", "departures", "drops", "drops_overflow"][..],
        ),
        ("summary", &["timeouts", "retx_pkts", "drops"][..]),
    ] {
        for column in columns {
            let (a, b, c) = (
                f64_col(&before, table, column),
                f64_col(&after, table, column),
                f64_col(&all, table, column),
            );
            for row in 0..c.len() {
                assert_eq!(a[row] + b[row], c[row], "{table}.{column}[{row}]");
            }
            if *column != "timeouts" {
                assert!(
                    a.iter().sum::<f64>() > 0.0 && b.iter().sum::<f64>() > 0.0,
                    "{column}"
                );
            }
        }
    }
    // Time averages weigh by the halves' lengths.
    let (a, b, c) = (
        f64_col(&before, "links", "mean_queue_packets"),
        f64_col(&after, "links", "mean_queue_packets"),
        f64_col(&all, "links", "mean_queue_packets"),
    );
    let bottleneck = (0..c.len())
        .max_by(|&i, &j| c[i].total_cmp(&c[j]))
        .expect("links");
    let weighed = a[bottleneck] * 1.3 + b[bottleneck] * 2.7;
    assert!(
        (weighed - c[bottleneck] * 4.0).abs() < 1e-9 * weighed.max(1.0),
        "{weighed} vs {}",
        c[bottleneck] * 4.0
    );
    assert!(a[bottleneck] > 0.0 && b[bottleneck] > 0.0);
}

/// The flow monitor splits each link's arrivals, drops and marks among the flows that cross
/// it, in the measurement window like every other counter.
#[test]
fn the_flow_monitor_splits_each_links_counters_among_its_flows() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/dumbbell-20.toml"
    ))
    .expect("scenario file")
    .replace("duration = \"20s\"", "duration = \"4s\"\nmeasure_from = \"1s\"")
    .replace("[metrics]", "[metrics]\nflow_monitor = true")
    .replace(
        "queue = { limit_packets = 200 }",
        "queue = { kind = \"red\", limit_packets = 200, min_th = 20, max_th = 60, ecn_marking = true }",
    )
    .replace("variant = \"reno\"", "variant = \"reno\"\ncongestion_marks = \"ecn\"");
    let r = run_toml(&text);
    let monitor = r.table("flow_links").expect("flow_monitor on");
    let names = str_col_of(Some(monitor), "link");
    let flows = str_col_of(Some(monitor), "flow");
    let links = str_col_of(Some(&r.links), "link");
    for counter in ["arrivals", "drops", "marks"] {
        let per_flow = f64_col_of(monitor, counter);
        let per_link = f64_col(&r, "links", counter);
        for (i, link) in links.iter().enumerate() {
            let sum: f64 = (0..names.len())
                .filter(|&k| &names[k] == link)
                .map(|k| per_flow[k])
                .sum();
            assert_eq!(sum, per_link[i], "{counter} at {link}");
        }
    }
    // The bottleneck carries every flow's data and marked some of it.
    let bottleneck = "r1->r2";
    let at_bottleneck: Vec<usize> = (0..names.len())
        .filter(|&k| names[k] == bottleneck)
        .collect();
    assert_eq!(at_bottleneck.len(), 20, "{flows:?}");
    let marks: f64 = at_bottleneck
        .iter()
        .map(|&k| f64_col_of(monitor, "marks")[k])
        .sum();
    assert!(marks > 0.0);
    // The scheduled path (every link dequeue-driven, no shortcuts) counts alike.
    let mut scheduled = from_toml_str(&text, "test.toml").unwrap();
    scheduled.hop_fusion = false;
    for link in &mut scheduled.links {
        link.fifo_fast_path = false;
    }
    let csv = |r: &RunResult| r.table("flow_links").map(|t| t.to_csv());
    assert_eq!(csv(&run(&scheduled, 0)), csv(&r));
}
