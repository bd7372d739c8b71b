//! Whole-scenario tests of traffic sources and class-based queues: CBR, priority, CBQ, random transfers, captures.

mod common;

use common::*;
use congsim::scenario::from_toml_str;
use congsim::table::Column;
use congsim::{RunResult, run};
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
    // ns-2's exponential and Pareto on/off sources, written with ns-2's rate spelling: on 500
    // ms and off 500 ms on average from 1 s to 9 s, about half of 8 s at 6 Mb/s (the draws
    // leave some spread); two runs of one seed send the same.
    let random = "[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mb\"\non_off = { law = \"exponential\", on_mean = \"500ms\", off_mean = \"500ms\", start = \"1s\", stop = \"9s\" }\n[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mb\"\non_off = { law = \"pareto\", shape = 1.5, on_mean = \"500ms\", off_mean = \"500ms\", start = \"1s\", stop = \"9s\" }\n";
    let sent = f64_col(&run_cbr(random, false), "cbr", "packets_sent");
    for packets in &sent {
        assert!(
            (2000.0..10_000.0).contains(packets),
            "{sent:?} of 12000 at most"
        );
    }
    assert_eq!(
        sent,
        f64_col(&run_cbr(random, false), "cbr", "packets_sent")
    );
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
    match by_cbq.table("classes").unwrap().column("name") {
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
    let t = r.table("transfers").expect("transfers table");
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
    let event_flows = str_col_of(r.table("tcp_events"), "flow");
    let events = str_col_of(r.table("tcp_events"), "event");
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

    let seq_flows = str_col_of(r.table("sequence"), "flow");
    let seq_events = str_col_of(r.table("sequence"), "event");
    let seq_cwnd = f64_col(&r, "sequence", "cwnd");
    let seq_numbers = f64_col(&r, "sequence", "seq");
    let cwnd_means = f64_col(&r, "transfers", "cwnd_mean");
    let (mut all_sum, mut all_sends) = (0.0, 0.0);
    for (k, name) in names.iter().enumerate() {
        // Packet 0 is the SYN (`ns2_2002` opens with one): it carries no data, and the window
        // means leave it out.
        let at_sends: Vec<f64> = (0..seq_flows.len())
            .filter(|&i| {
                seq_flows[i] == *name
                    && matches!(seq_events[i].as_str(), "send" | "retransmit")
                    && seq_numbers[i] > 0.0
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
    // The per-transfer reading weighs every transfer that sent alike: a different number
    // when transfers of different lengths hold different windows.
    let sent: Vec<f64> = cwnd_means.iter().copied().filter(|m| !m.is_nan()).collect();
    let per_transfer = f64_col(&r, "summary", "transfer_cwnd_per_transfer_mean")[0];
    let expected = sent.iter().sum::<f64>() / sent.len() as f64;
    assert!(
        (per_transfer - expected).abs() < 1e-9,
        "{per_transfer} vs {expected}"
    );
    assert!(
        (per_transfer - pooled).abs() > 1e-3,
        "{per_transfer} vs {pooled}"
    );
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
    let names = str_col_of(r.table("sequence"), "flow");
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
