//! Whole-scenario tests: TOML in, tables out.

use congsim::scenario::{from_toml_str, from_toml_str_with_overrides};
use congsim::table::Column;
use congsim::{RunResult, run};

fn run_toml(text: &str) -> RunResult {
    let scenario = from_toml_str(text, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, 0)
}

fn f64_col(r: &RunResult, table: &str, name: &str) -> Vec<f64> {
    let t = match table {
        "flows" => &r.flows,
        "summary" => &r.summary,
        "links" => &r.links,
        "tcp_events" => r.tcp_events.as_ref().expect("tcp_events on"),
        "sequence" => r.sequence.as_ref().expect("sequence_trace on"),
        "cbr" => r.cbr.as_ref().expect("CBR sources"),
        "classes" => r.classes.as_ref().expect("a priority queue"),
        "transfers" => r.transfers.as_ref().expect("transfer groups"),
        "atm_ports" => r.atm_ports.as_ref().expect("ATM links"),
        "atm_vcs" => r.atm_vcs.as_ref().expect("ATM links"),
        _ => unreachable!(),
    };
    match t.column(name) {
        Some(Column::F64(v)) => v.clone(),
        Some(Column::U64(v)) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("no numeric column {name}: {other:?}"),
    }
}

fn str_col(r: &RunResult, name: &str) -> Vec<String> {
    str_col_of(r.tcp_events.as_ref(), name)
}

fn str_col_of(t: Option<&congsim::table::Table>, name: &str) -> Vec<String> {
    match t.and_then(|t| t.column(name)) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("no string column {name}: {other:?}"),
    }
}

/// src —(100 Mbps, 1 ms)— router —(10 Mbps, 10 ms)— dst, one persistent flow.
fn three_node(profile: &str, window: u64, queue: u64) -> String {
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
            r.flow_series.as_ref().unwrap(),
            r.link_series.as_ref().unwrap(),
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
    for text in [dumbbell, red, early] {
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
            r.flow_series.as_ref(),
            r.link_series.as_ref(),
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
        f64_col(&fused, "summary", "drops")[0] > 100.0,
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
    let events = str_col_of(r.sequence.as_ref(), "event");
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
    let sack = str_col_of(r.sequence.as_ref(), "sack");
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

/// CBR sources deliver their rate when the path has room, lose the excess at a bottleneck,
/// follow their on/off schedule, and leave a TCP flow the rest of the link.
#[test]
fn cbr_sources_deliver_their_rate_and_share_with_tcp() {
    let scenario = |cbr: &str, tcp: bool| {
        let flows = if tcp {
            "[[flows]]\nname = \"ftp\"\nfrom = \"a\"\nto = \"b\"\n"
        } else {
            ""
        };
        format!(
            r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "10s"
[[links]]
from = "a"
to = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "r"
to = "b"
rate = "10Mbps"
delay = "5ms"
queue = {{ limit_packets = 50 }}
[tcp]
window = 100
packet_size = "500B"
{flows}
{cbr}
"#
        )
    };
    let run_cbr = |cbr: &str, tcp: bool| {
        let text = scenario(cbr, tcp);
        let scenario = from_toml_str(&text, "cbr.toml").unwrap_or_else(|e| panic!("{e}"));
        run(&scenario, 0)
    };
    // 6 Mbps through a 10 Mbps bottleneck: all of it arrives.
    let fits = run_cbr(
        "[[cbr]]\nname = \"video\"\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mbps\"\n",
        false,
    );
    let tput = f64_col(&fits, "cbr", "throughput_bps")[0];
    assert!((tput - 6e6).abs() < 6e6 * 0.002, "{tput}");
    assert_eq!(f64_col(&fits, "cbr", "loss_ratio")[0], 0.0);
    // 30 Mbps into 10 Mbps: the bottleneck carries 10 Mbps and drops the rest.
    let over = run_cbr(
        "[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"30Mbps\"\npattern = \"burst\"\n",
        false,
    );
    let tput = f64_col(&over, "cbr", "throughput_bps")[0];
    assert!((tput - 10e6).abs() < 10e6 * 0.01, "{tput}");
    let loss = f64_col(&over, "cbr", "loss_ratio")[0];
    assert!((loss - 2.0 / 3.0).abs() < 0.01, "{loss}");
    // On for 4 of the 10 seconds: 4 s worth of packets.
    let on_off = run_cbr(
        "[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mbps\"\non = [[\"1s\", \"3s\"], [\"6s\", \"8s\"]]\n",
        false,
    );
    assert_eq!(f64_col(&on_off, "cbr", "packets_sent")[0], 4.0 * 1500.0);
    // A VBR square wave (on 10 ms, off 10 ms from 2 ms) sends half the time; an empty on list
    // never sends.
    let wave = run_cbr(
        "[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mbps\"\nphase = \"zero\"\nsquare_wave = { on = \"10ms\", off = \"10ms\", start = \"2ms\" }\n[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non = []\n",
        false,
    );
    assert_eq!(f64_col(&wave, "cbr", "packets_sent"), [500.0 * 15.0, 0.0]);
    // TCP takes what the CBR source leaves.
    let shared = run_cbr(
        "[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"4Mbps\"\npattern = \"fluctuation\"\n",
        true,
    );
    let tcp = f64_col(&shared, "flows", "goodput_bps")[0];
    let video = f64_col(&shared, "cbr", "throughput_bps")[0];
    assert!(tcp > 5e6 && tcp + video < 10e6, "tcp {tcp}, cbr {video}");
    assert!(video > 3.5e6, "{video}");
}

/// A 1 Gbps access link into a 100 Mbps / 5 ms link whose queue is `queue`, a 60 Mbps (or
/// `cbr_rate`) CBR source "video" and `more` traffic over it: the class-based queue tests.
fn class_queue_network(queue: &str, cbr_rate: &str, more: &str) -> String {
    format!(
        r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "5s"
measure_from = "1s"
[[links]]
from = "a"
to = "r"
rate = "1Gbps"
delay = "1ms"
[[links]]
from = "r"
to = "b"
rate = "100Mbps"
delay = "5ms"
queue = {queue}
[tcp]
window = 1000
packet_size = "500B"
[[cbr]]
name = "video"
from = "a"
to = "b"
rate = "{cbr_rate}"
{more}
"#
    )
}

/// A strict priority queue serves its high class first: a 60 Mbps high-priority CBR source
/// loses nothing to an 80 Mbps low-priority one on a 100 Mbps link, which gets the remaining
/// 40 Mbps; TCP in the low class takes what the high class leaves.
#[test]
fn priority_queue_serves_the_high_class_first() {
    let priority = r#"{ kind = "priority", classes = [{ flows = ["video"], limit_packets = 200 }, { limit_packets = 200 }] }"#;
    let text = |low: &str| class_queue_network(priority, "60Mbps", low);
    let r = run_toml(&text(
        "[[cbr]]\nname = \"bulk\"\nfrom = \"a\"\nto = \"b\"\nrate = \"80Mbps\"\n",
    ));
    let tput = f64_col(&r, "cbr", "throughput_bps");
    let loss = f64_col(&r, "cbr", "loss_ratio");
    assert!((tput[0] - 60e6).abs() < 60e6 * 0.002, "{tput:?}");
    assert_eq!(loss[0], 0.0);
    assert!((tput[1] - 40e6).abs() < 40e6 * 0.01, "{tput:?}");
    let drops = f64_col(&r, "classes", "drops");
    assert_eq!(drops[0], 0.0);
    assert!(drops[1] > 0.0);
    // TCP in the low class fills what the high class leaves.
    let r = run_toml(&text(
        "[[flows]]\nname = \"ftp\"\nfrom = \"a\"\nto = \"b\"\ncount = 4\n",
    ));
    let tcp: f64 = f64_col(&r, "flows", "goodput_bps").iter().sum();
    assert_eq!(f64_col(&r, "cbr", "loss_ratio")[0], 0.0);
    assert!(tcp > 35e6 && tcp <= 40e6 + 1.0, "{tcp}");
}

/// CBQ (spec ip.md 4.4): with seed 004's classes (CBR 30 % at priority 1, TCP 70 % at priority
/// 2, both borrowing), a CBR load within its allotment is served as a strict priority queue
/// would serve it, and TCP borrows the rest: the spec's required cross-check. A CBR class that
/// may not borrow is held to its 30 % even when it offers 60 Mbps, and TCP gets the other 70 %.
#[test]
fn cbq_agrees_with_the_priority_queue_and_caps_a_class_that_may_not_borrow() {
    let ftp = "[[flows]]\nname = \"ftp\"\nfrom = \"a\"\nto = \"b\"\ncount = 4\n";
    let text = |queue: &str, cbr_rate: &str| class_queue_network(queue, cbr_rate, ftp);
    let cbq = |cbr_borrows: bool| {
        format!(
            r#"{{ kind = "cbq", classes = [{{ name = "link", allot = 1.0 }}, {{ name = "cbr", parent = "link", allot = 0.3, priority = 1, borrow = {cbr_borrows}, flows = ["video"], limit_packets = 200 }}, {{ name = "tcp", parent = "link", allot = 0.7, priority = 2, limit_packets = 200 }}] }}"#
        )
    };
    let priority = r#"{ kind = "priority", classes = [{ flows = ["video"], limit_packets = 200 }, { limit_packets = 200 }] }"#;
    let tcp_total = |r: &RunResult| f64_col(r, "flows", "goodput_bps").iter().sum::<f64>();
    let by_priority = run_toml(&text(priority, "25Mbps"));
    let by_cbq = run_toml(&text(&cbq(true), "25Mbps"));
    assert_eq!(f64_col(&by_cbq, "cbr", "loss_ratio")[0], 0.0);
    let (p, c) = (tcp_total(&by_priority), tcp_total(&by_cbq));
    assert!(
        (p - c).abs() < 0.02 * p && c > 65e6,
        "priority {p}, cbq {c}"
    );
    let classes = f64_col(&by_cbq, "classes", "throughput_bps");
    // Root, CBR and TCP classes of r->b, then of b->r (the link is duplex).
    assert_eq!(classes.len(), 6);
    match by_cbq.classes.as_ref().unwrap().column("name") {
        Some(Column::Str(names)) => assert_eq!(&names[..3], ["link", "cbr", "tcp"]),
        other => panic!("no class names: {other:?}"),
    }
    assert_eq!(classes[0], 0.0, "the root holds no packets");
    assert!((classes[1] - 25e6).abs() < 25e6 * 0.01, "{classes:?}");

    let capped = run_toml(&text(&cbq(false), "60Mbps"));
    let video = f64_col(&capped, "cbr", "throughput_bps")[0];
    assert!((video - 30e6).abs() < 30e6 * 0.03, "{video}");
    let tcp = tcp_total(&capped);
    assert!(tcp > 64e6 && tcp < 70e6, "{tcp}");
}

/// s —(100 Mbps, 1 ms)— r —(bottleneck)— d, with `simulation` and `bottleneck` keys and the
/// rest of the file (TCP, transfer groups, metrics).
fn transfer_network(simulation: &str, bottleneck: &str, rest: &str) -> String {
    format!(
        "nodes = [\"s\", \"r\", \"d\"]\n[simulation]\n{simulation}\n\
         [[links]]\nfrom = \"s\"\nto = \"r\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\
         [[links]]\nfrom = \"r\"\nto = \"d\"\n{bottleneck}\n{rest}"
    )
}

/// Random transfers: Poisson arrivals at the rate a target load sets, each a new connection
/// (ns-2 and BSD profiles alike, whose tick clocks start with the first connection that needs
/// them) that delivers its whole object.
#[test]
fn random_transfers_arrive_at_the_load_rate_and_complete() {
    let text = &transfer_network(
        "duration = \"60s\"\nseed = 11",
        "rate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = { limit_packets = 100 }",
        r#"
[tcp]
profile = "ns2_2002"
variant = "newreno"
[[transfers]]
name = "ftp"
from = "s"
to = "d"
sizes = "exponential"
mean_size = "64KB"
load = 0.2
capacity = "10Mbps"
tcp = { window = 64 }
[[transfers]]
name = "web"
from = "s"
to = "d"
sizes = "web"
arrivals_per_second = 5.0
tcp = { profile = "bsd", variant = "reno", tick = "100ms" }
"#,
    );
    let r = run_toml(text);
    let t = r.transfers.as_ref().expect("transfers table");
    let Some(Column::Str(groups)) = t.column("group") else {
        panic!("group column")
    };
    let starts = f64_col(&r, "transfers", "start_s");
    let done = f64_col(&r, "transfers", "completion_time_s");
    let ftp = groups.iter().filter(|g| *g == "ftp").count() as f64;
    let web = groups.iter().filter(|g| *g == "web").count() as f64;
    //= ip.md §5.6: lambda = 0.2 · 10 Mbps / (8 · 65536 B) = 3.81 per second
    let lambda = 0.2 * 10e6 / (8.0 * 65536.0);
    let expected = lambda * 60.0;
    assert!(
        (ftp - expected).abs() < 4.0 * expected.sqrt(),
        "{ftp} ftp arrivals, expected {expected}"
    );
    assert!(
        (web - 300.0).abs() < 4.0 * 300f64.sqrt(),
        "{web} web arrivals"
    );
    // At 30 % load everything that started before the last ten seconds has finished.
    for (&start, &time) in starts.iter().zip(&done) {
        if start < 50.0 {
            assert!(
                time.is_finite() && time > 0.0,
                "started at {start}, not finished"
            );
        }
    }
    let timeouts: f64 = f64_col(&r, "transfers", "timeouts").iter().sum();
    assert!(
        timeouts < ftp + web,
        "a light load times out rarely: {timeouts}"
    );
}

/// Random transfers under heavy load: their congestion events are in `tcp_events` under their
/// names, their timeouts add up by cause, and each one's mean cwnd is the mean of the cwnd the
/// sequence trace shows at its transmissions.
#[test]
fn transfers_report_congestion_events_timeout_causes_and_mean_cwnd() {
    let text = &transfer_network(
        "duration = \"30s\"\nseed = 5",
        "rate = \"2Mbps\"\ndelay = \"20ms\"\nqueue = { limit_packets = 10 }",
        r#"
[tcp]
profile = "ns2_2002"
variant = "reno"
limited_transmit = true
[[transfers]]
name = "ftp"
from = "s"
to = "d"
sizes = "exponential"
mean_size = "64KB"
load = 0.9
capacity = "2Mbps"
[metrics]
tcp_events = true
sequence_trace = true
"#,
    );
    let r = run_toml(text);
    let names: Vec<String> = (0..f64_col(&r, "transfers", "timeouts").len())
        .map(|k| format!("ftp#{k}"))
        .collect();
    let event_flows = str_col_of(r.tcp_events.as_ref(), "flow");
    let events = str_col_of(r.tcp_events.as_ref(), "event");
    let count = |name: &str, kind: &str| {
        event_flows
            .iter()
            .zip(&events)
            .filter(|(f, e)| *f == name && *e == kind)
            .count() as f64
    };
    let timeouts = f64_col(&r, "transfers", "timeouts");
    let fast_retransmits = f64_col(&r, "transfers", "fast_retransmits");
    let causes: Vec<Vec<f64>> = [
        "timeouts_repeated",
        "timeouts_after_fast_retransmit",
        "timeouts_few_dupacks",
        "timeouts_no_dupacks",
        "timeouts_fast_retransmit_declined",
    ]
    .iter()
    .map(|c| f64_col(&r, "transfers", c))
    .collect();
    for (k, name) in names.iter().enumerate() {
        assert_eq!(count(name, "timeout"), timeouts[k], "{name}");
        assert_eq!(
            count(name, "fast_retransmit"),
            fast_retransmits[k],
            "{name}"
        );
        let by_cause: f64 = causes.iter().map(|c| c[k]).sum();
        assert_eq!(by_cause, timeouts[k], "{name}");
    }
    assert!(timeouts.iter().sum::<f64>() > 10.0 && fast_retransmits.iter().sum::<f64>() > 10.0);
    assert!(
        causes
            .iter()
            .filter(|c| c.iter().sum::<f64>() > 0.0)
            .count()
            >= 3
    );

    let seq_flows = str_col_of(r.sequence.as_ref(), "flow");
    let seq_events = str_col_of(r.sequence.as_ref(), "event");
    let seq_cwnd = f64_col(&r, "sequence", "cwnd");
    let cwnd_means = f64_col(&r, "transfers", "cwnd_mean");
    let (mut all_sum, mut all_sends) = (0.0, 0.0);
    for (k, name) in names.iter().enumerate() {
        let at_sends: Vec<f64> = (0..seq_flows.len())
            .filter(|&i| {
                seq_flows[i] == *name && matches!(seq_events[i].as_str(), "send" | "retransmit")
            })
            .map(|i| seq_cwnd[i])
            .collect();
        if at_sends.is_empty() {
            assert!(cwnd_means[k].is_nan());
            continue;
        }
        let mean = at_sends.iter().sum::<f64>() / at_sends.len() as f64;
        assert!(
            (cwnd_means[k] - mean).abs() < 1e-9,
            "{name}: {} vs {mean}",
            cwnd_means[k]
        );
        all_sum += at_sends.iter().sum::<f64>();
        all_sends += at_sends.len() as f64;
    }
    // The summary's mean weighs every segment sent by transfers after `measure_from` (0 here).
    let pooled = f64_col(&r, "summary", "transfer_cwnd_mean")[0];
    assert!((pooled - all_sum / all_sends).abs() < 1e-9, "{pooled}");
}

/// A capture on links that carry declared flows, random transfers and CBR datagrams writes every
/// TCP packet (CBR datagrams are left out), and the sequence trace names every connection.
#[test]
fn captures_cover_transfers_and_skip_cbr() {
    let text = r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "3s"
[[links]]
from = "a"
to = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "r"
to = "b"
rate = "10Mbps"
delay = "5ms"
[tcp]
window = 50
[[flows]]
name = "ftp"
from = "a"
to = "b"
[[cbr]]
from = "a"
to = "b"
rate = "2Mbps"
[[transfers]]
from = "a"
to = "b"
sizes = "web"
arrivals_per_second = 20.0
[[captures]]
file = "mix.pcap"
links = ["a->r", "r->a"]
[metrics]
sequence_trace = true
"#;
    let r = run_toml(text);
    // The sequence trace names each random transfer by its group and ordinal.
    let names = str_col_of(r.sequence.as_ref(), "flow");
    assert!(names.iter().any(|n| n == "ftp") && names.iter().any(|n| n == "transfers0#3"));
    let pcap = &r.captures[0].1;
    // Count the records: a 24-byte file header, then 16-byte record headers and the data.
    let (mut at, mut frames) = (24usize, 0u64);
    while at < pcap.len() {
        let captured = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + captured;
        frames += 1;
    }
    let departures = f64_col(&r, "links", "departures");
    let cbr_sent = f64_col(&r, "cbr", "packets_sent")[0];
    // Links in declaration order: a->r, r->a, r->b, b->r.
    let tcp_frames = departures[0] + departures[1] - cbr_sent;
    assert!(f64_col(&r, "summary", "transfers_measured")[0] > 20.0);
    assert!(
        (frames as f64 - tcp_frames).abs() <= 1.0,
        "{frames} frames, {tcp_frames} TCP packets"
    );
}

/// RFC 3042's case: with cwnd capped at 3 packets, one loss leaves only two duplicate ACKs.
/// Limited Transmit sends a new segment on each, their ACKs make the third duplicate, and fast
/// retransmit repairs the loss; without it the sender waits for the timeout. (With a window of
/// 4 a single loss still leaves three packets behind it: three duplicates either way.)
#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit_with_a_small_window() {
    let scenario = |limited_transmit: bool| {
        format!(
            r#"
nodes = ["a", "b"]
[simulation]
duration = "5s"
[[links]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
[tcp]
profile = "ns2_2000"
variant = "reno"
window = 20
max_cwnd = 3
limited_transmit = {limited_transmit}
[[flows]]
name = "f"
from = "a"
to = "b"
[[drops]]
from = "a"
to = "b"
flow = "f"
packet = 30
"#
        )
    };
    let with = run_toml(&scenario(true));
    assert_eq!(f64_col(&with, "flows", "fast_retransmits")[0], 1.0);
    assert_eq!(f64_col(&with, "flows", "timeouts")[0], 0.0);
    assert_eq!(f64_col(&with, "flows", "limited_transmit_sends")[0], 2.0);
    let without = run_toml(&scenario(false));
    assert_eq!(f64_col(&without, "flows", "fast_retransmits")[0], 0.0);
    assert_eq!(f64_col(&without, "flows", "timeouts")[0], 1.0);
}

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
        let names = match r.atm_ports.as_ref().unwrap().column("link") {
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
    let kinds = str_col_of(r.atm_ports.as_ref(), "kind");
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

/// Offering cells ahead of time to ports fed by one link (hop fusion) is exact.
#[test]
fn atm_hop_fusion_changes_nothing() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/atm-n-source.toml"
    ))
    .expect("scenario file")
    .replace("duration = \"10s\"", "duration = \"2s\"")
    .replace("policy = \"epd\"", "policy = \"fba\"");
    let fused = from_toml_str(&text, "atm.toml").unwrap();
    let mut unfused = fused.clone();
    unfused.hop_fusion = false;
    let (a, b) = (run(&fused, 0), run(&unfused, 0));
    assert!(b.events > a.events, "fusion saves events");
    for (x, y) in [
        (&a.flows, &b.flows),
        (a.atm_ports.as_ref().unwrap(), b.atm_ports.as_ref().unwrap()),
        (a.atm_vcs.as_ref().unwrap(), b.atm_vcs.as_ref().unwrap()),
    ] {
        assert_eq!(x.to_csv(), y.to_csv());
    }
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
