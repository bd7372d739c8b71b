//! Every kind of mistake gets one precise message naming the file, the field and what is
//! allowed. The table pins the exact text.

mod common;

use common::f64_col;
use congsim::scenario::from_toml_str;

const BASE: &str = r#"nodes = ["a", "b"]
[simulation]
duration = "1s"
[[links]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "1ms"
[[flows]]
from = "a"
to = "b"
"#;

/// Turns the valid base file into a broken one.
type Edit = Box<dyn Fn(&str) -> String>;

fn error_for(edit: impl Fn(&str) -> String) -> String {
    match from_toml_str(&edit(BASE), "bad.toml") {
        Ok(_) => "accepted".to_string(),
        Err(e) => e.to_string(),
    }
}

/// Every case's edit of the base gives exactly its message (all mismatches reported at once).
fn expect_messages(cases: &[(&str, Edit, &str)]) {
    let mut failures = Vec::new();
    for (what, edit, expected) in cases {
        let got = error_for(edit);
        if got != *expected {
            failures.push(format!(
                "{what}:\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_base_scenario_is_valid() {
    assert_eq!(error_for(|b| b.to_string()), "accepted");
}

#[test]
fn malformed_scenarios_get_exact_messages() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a dumbbell without pairs",
            Box::new(|b| {
                b.replace("nodes = [\"a\", \"b\"]\n", "")
                    .replace("[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n", "")
                    + "[topology]\nkind = \"dumbbell\"\npairs = 0\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"1ms\"\n"
            }),
            "bad.toml: topology.pairs: must be at least 1 (line 5, column 9)",
        ),
        (
            "a fat tree of odd k",
            Box::new(|b| {
                b.replace("nodes = [\"a\", \"b\"]\n", "")
                    .replace("[[links]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n", "")
                    + "[topology]\nkind = \"fat_tree\"\nk = 5\nrate = \"1Gbps\"\ndelay = \"1us\"\n"
            }),
            "bad.toml: topology.k: must be an even number from 2 to 64 (got 5) (line 5, column 5)",
        ),
        (
            "a fat tree's unknown traffic",
            Box::new(|b| {
                format!(
                    "{b}[topology]\nkind = \"fat_tree\"\nk = 4\nrate = \"1Gbps\"\ndelay = \"1us\"\ntraffic = \"incast\"\n"
                )
            }),
            "bad.toml: topology.traffic: unknown variant `incast`, expected one of `stride`, `all_to_all`, `none` (line 12, column 1)",
        ),
        (
            "ECMP over ATM",
            Box::new(|b| {
                b.replace("delay = \"1ms\"\n", "delay = \"1ms\"\natm = true\n")
                    + "[routing]\necmp = true\n"
            }),
            "bad.toml: routing.ecmp: applies to IP networks only: links[0] is an ATM link, and an ATM VC follows one route (set ecmp = false) (line 14, column 8)",
        ),
        (
            "an unknown routing field",
            Box::new(|b| format!("{b}[routing]\nmultipath = true\n")),
            "bad.toml: routing.multipath: unknown field `multipath`, expected `ecmp` (line 13, column 1)",
        ),
        (
            "an unknown topology",
            Box::new(|b| format!("{b}[topology]\nkind = \"torus\"\n")),
            "bad.toml: topology.kind: unknown variant `torus`, expected one of `dumbbell`, `parking_lot`, `incast`, `fat_tree` (line 12, column 1)",
        ),
        (
            "a parking lot's setting on a dumbbell",
            Box::new(|b| format!("{b}[topology]\nkind = \"dumbbell\"\nhops = 3\n")),
            "bad.toml: topology.hops: applies to kind = \"parking_lot\" only (line 12, column 1)",
        ),
        (
            "a mistyped field of a queue inside a topology keeps its whole path",
            Box::new(|b| {
                format!(
                    "{b}[topology]\nkind = \"incast\"\nswitch_queue = {{ kind = \"red\", min_th = \"five\" }}\n"
                )
            }),
            "bad.toml: topology.switch_queue.min_th: invalid type: string \"five\", expected f64 (line 12, column 1)",
        ),
        (
            "a limit on a priority queue names every kind that has one",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"priority\", limit_packets = 5, classes = [{}] }",
                )
            }),
            "bad.toml: links[0].queue.limit_packets: applies to kind = \"droptail\", \"red\", \"codel\", \"fq_codel\", \"pie\" or \"fq_pie\" only (line 9, column 9)",
        ),
        (
            "a field no queue has",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"red\", lookahead = \"5ms\" }",
                )
            }),
            "bad.toml: links[0].queue.lookahead: unknown field `lookahead`, expected one of `limit_packets`, `min_th`, `max_th`, `w_q`, `max_p`, `mean_packet_size`, `wait`, `r_over_pb`, `gentle`, `bytes`, `queue_in_bytes`, `ecn_marking`, `mark_above_max_th`, `ns2_quirks` (line 9, column 9)",
        ),
        (
            "neither nodes nor a topology",
            Box::new(|b| b.replace("nodes = [\"a\", \"b\"]\n", "")),
            "bad.toml: nodes: declare at least two nodes, or a [topology] that makes them",
        ),
        (
            "rate without a valid unit",
            Box::new(|b| b.replace("\"10Mbps\"", "\"10 Mbs\"")),
            "bad.toml: links[0].rate: \"10 Mbs\" is not a rate: write a number followed by bps, Kbps, Mbps or Gbps (e.g. \"155.52Mbps\"; ns-2's b, Kb, Mb and Gb too) (line 7, column 8)",
        ),
        (
            "negative rate",
            Box::new(|b| b.replace("\"10Mbps\"", "\"-5Mbps\"")),
            "bad.toml: links[0].rate: \"-5Mbps\" is not a rate: write a number followed by bps, Kbps, Mbps or Gbps (e.g. \"155.52Mbps\"; ns-2's b, Kb, Mb and Gb too) (line 7, column 8)",
        ),
        (
            "rate with a fraction of a bit per second",
            Box::new(|b| b.replace("\"10Mbps\"", "\"0.07500000000000001Mbps\"")),
            "bad.toml: links[0].rate: \"0.07500000000000001Mbps\" is not a whole number of bits per second (or too large): round it (line 7, column 8)",
        ),
        (
            "zero rate",
            Box::new(|b| b.replace("\"10Mbps\"", "\"0Mbps\"")),
            "bad.toml: links[0].rate: \"0Mbps\" must be greater than zero (line 7, column 8)",
        ),
        (
            "duration without a unit",
            Box::new(|b| b.replace("\"1ms\"", "\"1\"")),
            "bad.toml: links[0].delay: \"1\" is not a duration: write a number followed by s, ms, us, ns or ps (e.g. \"5ms\") (line 8, column 9)",
        ),
        (
            "duration as a bare number",
            Box::new(|b| b.replace("duration = \"1s\"", "duration = 5")),
            "bad.toml: simulation.duration: invalid type: integer `5`, expected a quoted value with its unit, such as \"5ms\" (line 3, column 12)",
        ),
        (
            "dangling node",
            Box::new(|b| b.replacen("to = \"b\"", "to = \"c\"", 1)),
            "bad.toml: links[0].to: unknown node \"c\"; declared nodes are: a, b (line 6, column 6)",
        ),
        (
            "unknown key",
            Box::new(|b| b.replace("[simulation]\n", "[simulation]\nlength = \"3s\"\n")),
            "bad.toml: simulation.length: unknown field `length`, expected one of `duration`, `seed`, `replications`, `measure_from`, `measure_until`, `start_jitter`, `tie_order` (line 3, column 1)",
        ),
        (
            "impossible route",
            Box::new(|b| b.replace("to = \"b\"\nrate", "to = \"b\"\nduplex = false\nrate")),
            "bad.toml: flows[0]: no route from \"b\" to \"a\" (data and ACKs both need a path; links are one-way when duplex = false) (line 10, column 1)",
        ),
        (
            "unknown variant",
            Box::new(|b| {
                format!("{b}[tcp]\nvariant = \"vegas\"\n")
                    .replace("[[flows]]\nfrom = \"a\"\nto = \"b\"\n[tcp]", "[tcp]")
            }),
            "bad.toml: tcp.variant: unknown variant `vegas`, expected one of `tahoe`, `reno`, `newreno`, `sack` (line 10, column 11)",
        ),
        (
            "unknown profile",
            Box::new(|b| {
                b.replace(
                    "[[flows]]\nfrom = \"a\"\nto = \"b\"\n",
                    "[[flows]]\nfrom = \"a\"\nto = \"b\"\ntcp = { profile = \"ns3\" }\n",
                )
            }),
            "bad.toml: flows[0].tcp.profile: unknown variant `ns3`, expected one of `ns2_2000`, `ns2_2002`, `ns2_235`, `bsd`, `rfc` (line 12, column 19)",
        ),
        (
            "packet window on a byte-mode profile",
            Box::new(|b| {
                b.replace(
                    "[[flows]]",
                    "[tcp]\nprofile = \"bsd\"\nwindow = 20\n[[flows]]",
                )
            }),
            "bad.toml: tcp.window: is the ns-2 window in packets; byte-numbered profiles (bsd, rfc) take receiver_buffer instead (line 11, column 10)",
        ),
        (
            "both queue limits",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { limit_packets = 5, limit_bytes = \"5KB\" }",
                )
            }),
            "bad.toml: links[0].queue: give limit_packets or limit_bytes, not both (line 9, column 9)",
        ),
        (
            "loss probability out of range",
            Box::new(|b| b.replace("delay = \"1ms\"", "delay = \"1ms\"\nrandom_loss = 1.5")),
            "bad.toml: links[0].random_loss: must be a probability in [0, 1) (line 9, column 15)",
        ),
        (
            "flow starting after the end",
            Box::new(|b| format!("{b}start = \"2s\"\n")),
            "bad.toml: flows[0].start: must be before simulation.duration (line 12, column 9)",
        ),
        (
            "missing section",
            Box::new(|b| b.replace("[simulation]\nduration = \"1s\"\n", "")),
            "bad.toml: missing field `simulation` (line 1, column 1)",
        ),
        (
            "broken TOML",
            Box::new(|b| b.replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\"")),
            "bad.toml: not valid TOML: missing comma between array elements, expected `,` (line 2, column 1)",
        ),
        (
            "duplicate node",
            Box::new(|b| b.replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\", \"a\"]")),
            "bad.toml: nodes[2]: duplicate node name \"a\" (line 1, column 20)",
        ),
        (
            "scripted drop on a missing flow",
            Box::new(|b| {
                format!("{b}[[drops]]\nfrom = \"a\"\nto = \"b\"\nflow = \"x\"\npacket = 3\n")
            }),
            "bad.toml: drops[0].flow: unknown flow \"x\"; flows are: flow0 (line 15, column 8)",
        ),
        (
            "scripted mark on a missing link",
            Box::new(|b| {
                format!("{b}[[marks]]\nfrom = \"b\"\nto = \"c\"\nflow = \"flow0\"\npacket = 3\n")
            }),
            "bad.toml: marks[0].to: unknown node \"c\"; declared nodes are: a, b (line 14, column 6)",
        ),
        (
            "SACK sender for another variant",
            Box::new(|b| format!("{b}[tcp]\nsack_sender = \"rfc6675\"\n")),
            "bad.toml: tcp.sack_sender: applies to variant = \"sack\" only (line 13, column 15)",
        ),
        (
            "ns-2 Sack1 in byte mode",
            Box::new(|b| {
                format!(
                    "{b}[tcp]\nprofile = \"bsd\"\nvariant = \"sack\"\nsack_sender = \"ns2_sack1\"\n"
                )
            }),
            "bad.toml: tcp.sack_sender: ns2_sack1 follows ns-2's packet-numbered Agent/TCP/Sack1; byte-numbered profiles (bsd, rfc) take rfc6675, rfc3517 or prr (line 15, column 15)",
        ),
        (
            "too many SACK blocks",
            Box::new(|b| format!("{b}[tcp]\nvariant = \"sack\"\nsack_blocks = 4\n")),
            "bad.toml: tcp.sack_blocks: must be between 1 and 3 (line 14, column 15)",
        ),
        (
            "SACK window beyond 16-bit offsets",
            Box::new(|b| format!("{b}[tcp]\nvariant = \"sack\"\nwindow = 70000\n")),
            "bad.toml: tcp.variant: sack supports receiver windows of at most 65535 segments (line 13, column 11)",
        ),
        (
            "BCN factor out of range",
            Box::new(|b| format!("{b}[tcp]\ncongestion_marks = \"bcn\"\nbcn_factor = 1.5\n")),
            "bad.toml: tcp.bcn_factor: must be greater than 0 and less than 1 (line 14, column 14)",
        ),
        (
            "BCN setting without BCN",
            Box::new(|b| format!("{b}[tcp]\nbcn_reaction = \"once_per_rtt\"\n")),
            "bad.toml: tcp.bcn_reaction: applies with congestion_marks = \"bcn\" only (line 13, column 16)",
        ),
        (
            "RED setting on a DropTail queue",
            Box::new(|b| b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { min_th = 5 }")),
            "bad.toml: links[0].queue.min_th: applies to kind = \"red\" only (line 9, column 9)",
        ),
        (
            "RED thresholds the wrong way round",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"red\", min_th = 10, max_th = 8 }",
                )
            }),
            "bad.toml: links[0].queue.max_th: must be at least min_th (10) (equal: a step; 0: 3 · min_th) (line 9, column 47)",
        ),
        (
            "RED weight out of range",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"red\", w_q = 2 }",
                )
            }),
            "bad.toml: links[0].queue.w_q: must be in (0, 1], or −1 for ns-2's automatic value (line 9, column 31)",
        ),
        (
            "RED with a byte limit",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"red\", limit_bytes = \"64KB\" }",
                )
            }),
            "bad.toml: links[0].queue.limit_bytes: applies to kind = \"droptail\" only (line 9, column 9)",
        ),
        (
            "unknown queue kind",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"sfq\" }",
                )
            }),
            "bad.toml: links[0].queue.kind: unknown variant `sfq`, expected one of `droptail`, `red`, `priority`, `cbq`, `codel`, `fq_codel`, `pie`, `fq_pie` (line 9, column 9)",
        ),
        (
            "CBR source without a route",
            Box::new(|b| {
                format!("{b}[[cbr]]\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n")
                    .replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\", \"c\"]")
            }),
            "bad.toml: cbr[0]: no route from \"a\" to \"c\" (line 12, column 1)",
        ),
        (
            "CBR burst size with a shaped pattern",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\nburst_packets = 4\n"
                )
            }),
            "bad.toml: cbr[0].burst_packets: applies to pattern = \"burst\" only (line 16, column 17)",
        ),
        (
            "CBR on periods out of order",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non = [[\"0.5s\", \"0.8s\"], [\"0.1s\", \"0.2s\"]]\n"
                )
            }),
            "bad.toml: cbr[0].on[1]: on periods must be in time order and must not overlap (line 16, column 25)",
        ),
        (
            "CBR on period past the end",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non = [[\"0.5s\", \"2s\"]]\n"
                )
            }),
            "bad.toml: cbr[0].on[0]: must be [start, stop] with start < stop <= simulation.duration (line 16, column 7)",
        ),
        (
            "priority queue without classes",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"priority\" }",
                )
            }),
            "bad.toml: links[0].queue.classes: give the classes, highest priority first (line 9, column 9)",
        ),
        (
            "priority class with an unknown flow",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"priority\", classes = [{ flows = [\"video\"] }, {}] }",
                )
            }),
            "bad.toml: links[0].queue.classes[0].flows[0]: unknown flow \"video\"; flows are: flow0 (line 9, column 52)",
        ),
        (
            "RED setting on a priority queue",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"priority\", classes = [{}], max_p = 0.1 }",
                )
            }),
            "bad.toml: links[0].queue.max_p: applies to kind = \"red\" only (line 9, column 9)",
        ),
        (
            "CBQ queue without classes",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"cbq\" }",
                )
            }),
            "bad.toml: links[0].queue.classes: give the class tree: a root with an allot and the classes under it (line 9, column 9)",
        ),
        (
            "CBQ class without a name",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ allot = 1.0 }] }",
                )
            }),
            "bad.toml: links[0].queue.classes[0].name: a CBQ class needs a name (line 9, column 36)",
        ),
        (
            "CBQ class with an unknown parent",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.0 }, { name = \"leaf\", parent = \"top\", allot = 0.5 }] }")
            }),
            "bad.toml: links[0].queue.classes[1].parent: unknown class \"top\"; classes are: leaf, root (line 9, column 94)",
        ),
        (
            "CBQ with two roots",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.0 }, { name = \"other\", allot = 0.5 }] }")
            }),
            "bad.toml: links[0].queue.classes[1].parent: exactly one class (the root) has no parent (line 9, column 68)",
        ),
        (
            "CBQ parents in a cycle",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.0 }, { name = \"x\", parent = \"y\", allot = 0.5 }, { name = \"y\", parent = \"x\", allot = 0.5 }] }")
            }),
            "bad.toml: links[0].queue.classes[1].parent: the parents form a cycle (line 9, column 91)",
        ),
        (
            "CBQ allot above one",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.5 }] }")
            }),
            "bad.toml: links[0].queue.classes[0].allot: must be in (0, 1] (line 9, column 61)",
        ),
        (
            "CBQ priority out of range",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.0 }, { name = \"leaf\", parent = \"root\", allot = 0.5, priority = 10 }] }")
            }),
            "bad.toml: links[0].queue.classes[1].priority: must be 0 (highest) to 9 (line 9, column 126)",
        ),
        (
            "flows on an interior CBQ class",
            Box::new(|b| {
                b.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = { kind = \"cbq\", classes = [{ name = \"root\", allot = 1.0, flows = [\"flow0\"] }, { name = \"leaf\", parent = \"root\", allot = 0.5 }] }")
            }),
            "bad.toml: links[0].queue.classes[0].flows: only leaf classes (those no class names as parent) hold packets (line 9, column 74)",
        ),
        (
            "CBQ class field on a priority queue",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"priority\", classes = [{ allot = 0.5 }] }",
                )
            }),
            "bad.toml: links[0].queue.classes[0].allot: applies to kind = \"cbq\" only (line 9, column 9)",
        ),
        (
            "CBQ setting on a DropTail queue",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { link_sharing = \"formal\" }",
                )
            }),
            "bad.toml: links[0].queue.link_sharing: applies to kind = \"cbq\" only (line 9, column 9)",
        ),
        (
            "every flow switched off",
            Box::new(|b| format!("{b}count = 0\n")),
            "bad.toml: flows: every flow has count = 0: at least one flow, CBR source or transfer group must run (line 9, column 1)",
        ),
        (
            "a queue on an ATM link",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\natm = true\nqueue = { limit_packets = 10 }",
                )
            }),
            "bad.toml: links[0].queue: an ATM link's buffer is set for every switch in [atm] (buffer_cells, policy) (line 10, column 9)",
        ),
        (
            "[atm] without ATM links",
            Box::new(|b| format!("{b}[atm]\nbuffer_cells = 1000\n")),
            "bad.toml: atm: no link is an ATM link (atm = true) (line 12, column 1)",
        ),
        (
            "ATM threshold above one",
            Box::new(|b| {
                format!(
                    "{}[atm]\npolicy = \"epd\"\nthreshold = 1.5\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: atm.threshold: must be in (0, 1] (line 15, column 13)",
        ),
        (
            "ATM policy unknown",
            Box::new(|b| {
                format!(
                    "{}[atm]\npolicy = \"red\"\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: atm.policy: unknown variant `red`, expected one of `tail_drop`, `epd`, `selective_drop`, `fba` (line 14, column 10)",
        ),
        (
            "ABR switch on a UBR network",
            Box::new(|b| {
                format!(
                    "{}[atm]\nswitch = \"erica\"\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: atm.switch: applies to service = \"abr\" only (line 14, column 10)",
        ),
        (
            "ERICA+ knob on plain ERICA",
            Box::new(|b| {
                format!(
                    "{}[atm]\nservice = \"abr\"\nswitch = \"erica\"\nerica = {{ target_delay = \"1ms\" }}\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: atm.erica.target_delay: applies to switch = \"erica_plus\" only (line 16, column 26)",
        ),
        (
            "ERICA target above one",
            Box::new(|b| {
                format!(
                    "{}[atm]\nservice = \"abr\"\nerica = {{ target = 1.2 }}\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: atm.erica.target: must be in (0, 1] (line 15, column 20)",
        ),
        (
            "VBR source at a host",
            Box::new(|b| {
                format!(
                    "{}[[vbr]]\nfrom = \"a\"\nto = \"b\"\non = \"10ms\"\noff = \"10ms\"\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: vbr[0].from: a VBR source enters at a switch port, not at a host (line 14, column 8)",
        ),
        (
            "VBR without ATM links",
            Box::new(|b| {
                format!("{b}[[vbr]]\nfrom = \"a\"\nto = \"b\"\non = \"10ms\"\noff = \"10ms\"\n")
            }),
            "bad.toml: vbr[0]: VBR sources need ATM links (atm = true) (line 12, column 1)",
        ),
        (
            "a segment too large for AAL5",
            Box::new(|b| {
                format!(
                    "{}[tcp]\npacket_size = \"65495B\"\nheader_bytes = 100\n",
                    b.replace("delay = \"1ms\"", "delay = \"1ms\"\natm = true")
                )
            }),
            "bad.toml: tcp.packet_size: flow \"flow0\" runs over ATM: a segment with its headers must fit one AAL5 frame (at most 65535 bytes) (line 14, column 15)",
        ),
        (
            "a path mixing ATM and IP links",
            Box::new(|b| {
                b.replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\", \"c\"]")
                    .replace("to = \"b\"\nrate", "to = \"c\"\nrate")
                    .replace(
                        "[[flows]]",
                        "atm = true\n[[links]]\nfrom = \"c\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flows]]",
                    )
            }),
            "bad.toml: flows: flow \"flow0\": the path from \"a\" to \"b\" mixes ATM and IP links; an ATM path runs from host to host (line 15, column 1)",
        ),
        (
            "transfers without an arrival rate",
            Box::new(|b| {
                format!("{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"web\"\nload = 0.5\n")
            }),
            "bad.toml: transfers[0]: give arrivals_per_second, or load together with capacity (line 12, column 1)",
        ),
        (
            "exponential mean for web sizes",
            Box::new(|b| {
                format!(
                    "{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"web\"\nmean_size = \"1MB\"\narrivals_per_second = 1.0\n"
                )
            }),
            "bad.toml: transfers[0].mean_size: applies to sizes = \"exponential\" only (line 16, column 13)",
        ),
        (
            "web objects truncated below almost every draw",
            Box::new(|b| {
                format!(
                    "{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"web\"\nmax_size = \"10B\"\narrivals_per_second = 1.0\n"
                )
            }),
            "bad.toml: transfers[0].max_size: is so small that fewer than 1 % of the size law's draws stay under it (line 16, column 12)",
        ),
        (
            "a web body of no spread",
            Box::new(|b| {
                format!(
                    "{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"web\"\nweb_sigma = 0.0\narrivals_per_second = 1.0\n"
                )
            }),
            "bad.toml: transfers[0].web_sigma: must be in (0, 4]; got 0 (line 16, column 13)",
        ),
        (
            "a web tail of infinite mean",
            Box::new(|b| {
                format!(
                    "{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"web\"\nweb_alpha = 1.0\narrivals_per_second = 1.0\n"
                )
            }),
            "bad.toml: transfers[0].web_alpha: must be in (1, 10]; got 1 (line 16, column 13)",
        ),
        (
            "VBR on period shorter than a packet",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\nsquare_wave = {{ on = \"1us\", off = \"1ms\" }}\n"
                )
            }),
            "bad.toml: cbr[0].square_wave.on: must be at least one sending interval (0.004 s at this rate and size) (line 16, column 22)",
        ),
        (
            "on/off source with a square wave",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mb\"\nsquare_wave = {{ on = \"1ms\", off = \"1ms\" }}\non_off = {{ law = \"exponential\", on_mean = \"1s\", off_mean = \"1s\" }}\n"
                )
            }),
            "bad.toml: cbr[0].square_wave: does not apply with on_off (its bursts start at on_off.start) (line 16, column 15)",
        ),
        (
            "Pareto on/off source with an infinite mean",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mb\"\non_off = {{ law = \"pareto\", shape = 1.0, on_mean = \"1s\", off_mean = \"1s\" }}\n"
                )
            }),
            "bad.toml: cbr[0].on_off.shape: must be greater than 1 (a finite mean) and at most 1e6 (line 16, column 36)",
        ),
        (
            "a rate in ns-2's bytes per second",
            Box::new(|b| format!("{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1.5MB\"\n")),
            "bad.toml: cbr[0].rate: \"1.5MB\" is bytes per second in ns-2 (B = 8 bits): write bits per second, e.g. \"12Mbps\" (line 15, column 8)",
        ),
        (
            "two RED spacing rules",
            Box::new(|b| {
                b.replace(
                    "delay = \"1ms\"",
                    "delay = \"1ms\"\nqueue = { kind = \"red\", wait = false, r_over_pb = true }",
                )
            }),
            "bad.toml: links[0].queue.wait: give wait or r_over_pb = true, not both (they are two spacing rules) (line 9, column 32)",
        ),
        (
            "unknown congestion-mark answer",
            Box::new(|b| format!("{b}[tcp]\ncongestion_marks = \"red\"\n")),
            "bad.toml: tcp.congestion_marks: unknown variant `red`, expected one of `off`, `ecn`, `bcn` (line 13, column 20)",
        ),
    ];
    expect_messages(&cases);
}

#[test]
fn overrides_are_validated_like_the_file() {
    use congsim::scenario::from_toml_str_with_overrides;
    let over = |path: &str, value: serde_json::Value| match from_toml_str_with_overrides(
        BASE,
        "base.toml",
        &[(path.to_string(), value)],
    ) {
        Ok(s) => format!("ok: {} links", s.links.len()),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        over("links[0].delay", serde_json::json!("3ms")),
        "ok: 2 links"
    );
    assert_eq!(
        over("links[0].rate", serde_json::json!("fast")),
        "base.toml: links[0].rate: \"fast\" is not a rate: write a number followed by bps, Kbps, Mbps or Gbps (e.g. \"155.52Mbps\"; ns-2's b, Kb, Mb and Gb too)"
    );
    assert_eq!(
        over("tcp.colour", serde_json::json!("blue")),
        "base.toml: tcp.colour: unknown field `colour`, expected one of `variant`, `congestion_control`, `profile`, `packet_size`, `header_bytes`, `window`, `receiver_buffer`, `window_scaling`, `fast_retransmit`, `delayed_ack`, `delayed_ack_interval`, `tick`, `timer`, `boot_phase`, `initial_rto`, `min_rto`, `initial_window`, `syn`, `max_burst`, `pacing`, `max_cwnd`, `ns2_bugfix`, `tahoe_resume`, `reno_flavour`, `reno_ca_extra`, `limited_transmit`, `newreno_impatient`, `partial_window_deflation`, `sack_sender`, `sack_blocks`, `sack_clear_on_rto`, `congestion_marks`, `bcn_factor`, `bcn_reaction`"
    );
    assert_eq!(
        over("links[0].queue.min_th", serde_json::json!(5)),
        "base.toml: links[0].queue.min_th: applies to kind = \"red\" only"
    );
    assert_eq!(
        over("flows[2].start", serde_json::json!("1s")),
        "base.toml: flows[2].start: index 2 is out of range: there are 1"
    );
}

#[test]
fn inputs_that_would_exhaust_memory_are_refused_in_validation() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a series interval of a nanosecond",
            Box::new(|b| format!("{b}[metrics]\nseries_interval = \"1ns\"\n")),
            "bad.toml: metrics.series_interval: 1 000 000 001 samples of 3 series make 3 000 000 003 rows (over this duration, an interval of at least 151ns stays within the limit); the series_rows limit is 20 000 000 (CONGSIM_LIMITS=series_rows=N raises it) (line 13, column 19)",
        ),
        (
            "a trillion transfer arrivals a second",
            Box::new(|b| {
                format!(
                    "{b}[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"exponential\"\nmean_size = \"64KB\"\narrivals_per_second = 1e12\n"
                )
            }),
            "bad.toml: transfers[0].arrivals_per_second: 1.000e12 arrivals a second over 1 s start about 1.000e12 transfers; the transfers limit is 2 000 000 (CONGSIM_LIMITS=transfers=N raises it) (line 17, column 23)",
        ),
        (
            "more flows than the limit",
            Box::new(|b| format!("{b}count = 1000001\n")),
            "bad.toml: flows[0].count: brings the number of flows and CBR sources to 1 000 001; the flows limit is 1 000 000 (CONGSIM_LIMITS=flows=N raises it) (line 12, column 9)",
        ),
        (
            "an ambiguous kilobyte",
            Box::new(|b| format!("{b}[tcp]\npacket_size = \"1kB\"\n")),
            "bad.toml: tcp.packet_size: \"1kB\": kB is 1000 B in SI but KB is 1024 B here: write KB or KiB (1024 B) or the number of B (line 13, column 15)",
        ),
    ];
    expect_messages(&cases);
}

#[test]
fn many_nodes_validate_in_memory_linear_in_the_endpoints() {
    // 200 000 nodes with traffic between two of them: the route table has two rows.
    let names: Vec<String> = (0..200_000).map(|i| format!("\"n{i}\"")).collect();
    let text = BASE.replace(
        "nodes = [\"a\", \"b\"]",
        &format!("nodes = [\"a\", \"b\", {}]", names.join(", ")),
    );
    let s = from_toml_str(&text, "big.toml").expect("valid");
    assert_eq!(s.routes.rows().len(), 2);
    // Unknown names are listed up to 20, then counted.
    let err = from_toml_str(&text.replace("to = \"b\"\n", "to = \"c\"\n"), "big.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("n17 and 199982 more (line 6, column 6)"),
        "{err}"
    );
}

#[test]
fn a_route_table_beyond_the_limit_is_refused_before_it_is_built() {
    // A one-way ring of 10 001 routers with traffic addressed to 10 000 of them: each
    // destination is reached through its predecessor's row, and the predecessors are 10 000
    // distinct nodes, so 10 000 rows of 10 001 entries. Hosts on the access links of a few
    // routers share those routers' rows instead (`a_dumbbell_of_any_size_needs_two_rows`).
    let n = 10_001;
    let mut text = String::from("nodes = [");
    text += &(0..n)
        .map(|i| format!("\"r{i}\""))
        .collect::<Vec<_>>()
        .join(", ");
    text += "]\n[simulation]\nduration = \"1s\"\n";
    for i in 0..n {
        let link = format!(
            "[[links]]\nfrom = \"r{i}\"\nto = \"r{}\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n",
            (i + 1) % n
        );
        text += &link;
    }
    for i in 0..n / 2 {
        let flow = format!(
            "[[flows]]\nfrom = \"r{}\"\nto = \"r{}\"\n",
            2 * i,
            2 * i + 1
        );
        text += &flow;
    }
    let err = from_toml_str(&text, "ring.toml").unwrap_err().to_string();
    assert_eq!(
        err,
        "ring.toml: nodes: 10 001 nodes with traffic addressed to 10 000 of them need 100 010 000 route \
         entries (10 000 nodes need a route table of their own: destinations that are not hosts on \
         one access link, and the nodes such hosts hang off); the route_entries limit is 100 000 000 \
         (CONGSIM_LIMITS=route_entries=N raises it) (line 1, column 9)"
    );
}

#[test]
fn many_flows_validate_in_linear_time() {
    // Names are checked for duplicates in a sorted set: 200 000 flows take well under a second in
    // a release build (quadratic checking took minutes). Duplicates are still found.
    let s = from_toml_str(&format!("{BASE}count = 200000\n"), "many.toml").expect("valid");
    assert_eq!(s.flows.len(), 200_000);
    let twice = format!("{BASE}name = \"x\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\nname = \"x\"\n");
    assert_eq!(
        from_toml_str(&twice, "dup.toml").unwrap_err().to_string(),
        "dup.toml: flows[1].name: duplicate flow name \"x\" (line 16, column 8)"
    );
}

fn warnings_of(text: &str) -> Vec<String> {
    let s = from_toml_str(text, "warn.toml").expect("valid");
    s.warnings.iter().map(ToString::to_string).collect()
}

#[test]
fn settings_that_do_nothing_are_warned_about() {
    assert!(warnings_of(BASE).is_empty());
    // A web shape beside another size law (allowed, so one plan-wide setting can sweep both).
    let transfers = |sizes: &str| {
        format!(
            "{BASE}\n[[transfers]]\nfrom = \"a\"\nto = \"b\"\nsizes = \"{sizes}\"\nweb_alpha = 1.5\narrivals_per_second = 1.0\n"
        )
    };
    assert_eq!(
        warnings_of(&transfers("exponential")),
        ["transfers[0].web_alpha: does nothing: it shapes sizes = \"web\" only"]
    );
    assert!(warnings_of(&transfers("web")).is_empty());
    // A scripted drop on the ACK direction of the flow: its data never crosses b->a.
    let drop = format!(
        "{BASE}name = \"f\"\n[[drops]]\nflow = \"f\"\npacket = 3\nfrom = \"b\"\nto = \"a\"\n"
    );
    assert_eq!(
        warnings_of(&drop),
        [
            "drops[0]: never happens: the data of \"f\" does not cross b->a (packet 3 would be the drop's target)"
        ]
    );
    let on_path = drop.replace("from = \"b\"\nto = \"a\"", "from = \"a\"\nto = \"b\"");
    assert!(warnings_of(&on_path).is_empty());
    // RED thresholds at or above the limit.
    let red = BASE.replace(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nqueue = { kind = \"red\", limit_packets = 10, min_th = 10, max_th = 30 }",
    );
    assert_eq!(
        warnings_of(&red),
        [
            "links[0].queue.min_th: 10 is at or above the queue limit (10 packets): RED never drops or marks early and acts as DropTail",
            "links[0].queue.max_th: 30 is at or above the queue limit (10 packets): the queue overflows before the average reaches it",
        ]
    );
    let infinite = red.replace("min_th = 10, max_th = 30", "min_th = 2, max_th = inf");
    assert_eq!(warnings_of(&infinite).len(), 1, "{infinite}");
    // A byte limit below one data packet (1000 B by default).
    let bytes = BASE.replace(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nqueue = { limit_bytes = \"500B\" }",
    );
    let w = warnings_of(&bytes);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("links[0].queue.limit_bytes: 500 B holds no packet of \"flow0\""),
        "{w:?}"
    );
    // A node no link uses (here a misspelt one).
    let lonely = BASE.replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\", \"c\"]");
    assert_eq!(
        warnings_of(&lonely),
        ["nodes: no link uses this node: c (a misspelt name in a link?)"]
    );
    // An override of a [tcp] field that every flow sets for itself.
    let own = format!("{BASE}tcp = {{ window = 20 }}\n");
    let over = |path: &str| {
        let s = congsim::scenario::from_toml_str_with_overrides(
            &own,
            "warn.toml",
            &[(path.to_string(), serde_json::json!(50))],
        )
        .expect("valid");
        s.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        over("tcp.window"),
        [
            "tcp.window: changes nothing: every flow sets its own tcp.window (override flows[*].tcp.window instead)"
        ]
    );
    assert!(over("flows[*].tcp.window").is_empty());
}

/// A scenario made by a `[topology]` table alone.
fn topology(table: &str) -> String {
    format!("[simulation]\nduration = \"1s\"\n[topology]\n{table}\n")
}

#[test]
fn generated_topologies_are_counted_before_they_are_built() {
    let dumbbell = "kind = \"dumbbell\"\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n";
    let lot = "kind = \"parking_lot\"\nhop_rate = \"10Mbps\"\nhop_delay = \"1ms\"\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n";
    let fat = "kind = \"fat_tree\"\nrate = \"1Gbps\"\ndelay = \"1us\"\ntraffic = \"all_to_all\"\n";
    let cases = [
        (
            topology(&format!("{dumbbell}pairs = 1000000000")),
            "big.toml: topology.pairs: makes 2 000 000 002 nodes; the nodes limit is 2 000 000 (CONGSIM_LIMITS=nodes=N raises it) (line 9, column 9)",
        ),
        (
            topology(&format!("{dumbbell}pairs = 600000")),
            "big.toml: topology.pairs: makes 1 200 001 links; the links limit is 1 000 000 (CONGSIM_LIMITS=links=N raises it) (line 9, column 9)",
        ),
        (
            topology(&format!("{lot}hops = 1000000000")),
            "big.toml: topology.hops: makes 3 000 000 003 nodes; the nodes limit is 2 000 000 (CONGSIM_LIMITS=nodes=N raises it) (line 9, column 8)",
        ),
        (
            topology(&format!("{fat}k = 24")),
            "big.toml: topology.k: makes 11 940 480 flows; the flows limit is 1 000 000 (CONGSIM_LIMITS=flows=N raises it) (line 8, column 5)",
        ),
        (
            // The file's own flows count with the generated ones.
            format!(
                "{}[[flows]]\nfrom = \"h0\"\nto = \"h1\"\ncount = 900000\n",
                topology(&format!("{fat}k = 14"))
            ),
            "big.toml: topology.k: makes 469 910 flows, 1 369 910 with the file's own; the flows limit is 1 000 000 (CONGSIM_LIMITS=flows=N raises it) (line 8, column 5)",
        ),
    ];
    // Refused from the parameters: building two billion nodes first would abort the process.
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(text, expected)| {
            let got = from_toml_str(text, "big.toml").map(|_| ()).unwrap_err();
            (got.to_string() != *expected)
                .then(|| format!("  expected: {expected}\n  got:      {got}\n"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join(""));
    // Sizes the generators make are the sizes counted (the arithmetic is checked).
    let s = from_toml_str(&topology(&format!("{fat}k = 4")), "ok.toml").unwrap();
    assert_eq!((s.nodes.len(), s.flows.len()), (16 + 16 + 4, 16 * 15));
    let entries = |s: &congsim::scenario::Scenario| {
        s.links
            .iter()
            .map(|l| l.spec_index)
            .max()
            .map_or(0, |i| i + 1)
    };
    assert_eq!(entries(&s), 16 + 2 * 4 * 4);
    let s = from_toml_str(&topology(&format!("{lot}hops = 3")), "ok.toml").unwrap();
    assert_eq!((s.nodes.len(), entries(&s), s.flows.len()), (12, 11, 4));
}

#[test]
fn sources_and_traces_that_would_run_for_ever_are_refused() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a CBR source of 20-byte packets at 1 Tbps",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1000Gbps\"\npacket_size = \"20B\"\n"
                )
            }),
            "bad.toml: cbr[0].rate: the CBR source \"cbr0\" would send about 6.250e9 packets and cells in 1 s at their rates; the source_packets limit is 1 000 000 000 (CONGSIM_LIMITS=source_packets=N raises it) (line 15, column 8)",
        ),
        (
            "many CBR sources that are each modest",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Gbps\"\npacket_size = \"100B\"\ncount = 100\n"
                )
            }),
            "bad.toml: cbr[0].rate: the 100 CBR and VBR sources (the largest \"cbr0.0\") would send about 1.250e9 packets and cells in 1 s at their rates; the source_packets limit is 1 000 000 000 (CONGSIM_LIMITS=source_packets=N raises it) (line 15, column 8)",
        ),
        (
            "a sequence trace of a long fast run",
            Box::new(|b| {
                format!("{b}[metrics]\nsequence_trace = true\n")
                    .replace("duration = \"1s\"", "duration = \"3000s\"")
                    .replace("rate = \"10Mbps\"", "rate = \"1Gbps\"")
            }),
            "bad.toml: metrics.sequence_trace: the flows can send about 3.750e8 data packets in 3000 s at their bottleneck rates: up to about 7.500e8 rows; the trace_rows limit is 100 000 000 (CONGSIM_LIMITS=trace_rows=N raises it) (line 13, column 18)",
        ),
        (
            "TCP events of a long fast run",
            Box::new(|b| {
                format!("{b}[metrics]\ntcp_events = true\n")
                    .replace("duration = \"1s\"", "duration = \"3000s\"")
                    .replace("rate = \"10Mbps\"", "rate = \"1Gbps\"")
            }),
            "bad.toml: metrics.tcp_events: the flows can send about 3.750e8 data packets in 3000 s at their bottleneck rates: up to about 3.750e8 rows; the trace_rows limit is 100 000 000 (CONGSIM_LIMITS=trace_rows=N raises it) (line 13, column 14)",
        ),
    ];
    expect_messages(&cases);
    // Flows that share a bottleneck share its rate: 1000 flows through 10 Mbps for 1000 s
    // trace as one.
    let shared = format!("{BASE}count = 1000\n[metrics]\nsequence_trace = true\n")
        .replace("duration = \"1s\"", "duration = \"1000s\"");
    assert!(from_toml_str(&shared, "ok.toml").is_ok());
}

#[test]
fn numbers_that_feed_arithmetic_have_stated_ranges() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a window past 2^30 packets",
            Box::new(|b| format!("{b}[tcp]\nwindow = 9223372036854775807\n")),
            "bad.toml: tcp.window: must be 1 to 1073741824 packets (2^30) (line 13, column 10)",
        ),
        (
            "a receiver buffer past what TCP can advertise",
            Box::new(|b| format!("{b}[tcp]\nprofile = \"rfc\"\nreceiver_buffer = \"2GB\"\n")),
            "bad.toml: tcp.receiver_buffer: must be at most 1GiB, the largest window TCP can advertise (RFC 7323: 65535 << 14) (line 14, column 19)",
        ),
        (
            "headers past IPv4 and TCP with every option",
            Box::new(|b| format!("{b}[tcp]\nheader_bytes = 4294967295\n")),
            "bad.toml: tcp.header_bytes: must be 0 to 120 bytes (IPv4 and TCP headers with every option: 60 + 60) (line 13, column 16)",
        ),
        (
            "an initial window of four billion segments",
            Box::new(|b| format!("{b}[tcp]\ninitial_window = 4294967295\n")),
            "bad.toml: tcp.initial_window: must be 1 to 1048576 segments (line 13, column 18)",
        ),
        (
            "a CBR packet smaller than an IP header",
            Box::new(|b| {
                format!(
                    "{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\npacket_size = \"19B\"\n"
                )
            }),
            "bad.toml: cbr[0].packet_size: is bytes on the wire: between 20B (an IPv4 header) and 65535B (line 16, column 15)",
        ),
    ];
    expect_messages(&cases);
    // The largest window accepted runs (the overflow was at u64::MAX).
    let s = from_toml_str(&format!("{BASE}[tcp]\nwindow = 1073741824\n"), "ok.toml").unwrap();
    assert!(f64_col(&congsim::run(&s, 0), "flows", "goodput_bps")[0] > 5e6);
}

#[test]
fn names_must_be_printable_text() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "an escape sequence in a node name",
            Box::new(|b| b.replace("\"a\", \"b\"]", "\"a\", \"b\", \"\\u001b[2J\"]")),
            "bad.toml: nodes[2]: a name must not contain control or bidirectional formatting characters (found U+001B) (line 1, column 20)",
        ),
        (
            "a line break in a flow name",
            Box::new(|b| format!("{b}name = \"x\\ny\"\n")),
            "bad.toml: flows[0].name: a name must not contain control or bidirectional formatting characters (found U+000A) (line 12, column 8)",
        ),
        (
            "NUL in the scenario name",
            Box::new(|b| format!("name = \"x\\u0000\"\n{b}")),
            "bad.toml: name: a name must not contain control or bidirectional formatting characters (found U+0000) (line 1, column 8)",
        ),
        (
            "a blank CBR name",
            Box::new(|b| {
                format!("{b}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\nname = \" \"\n")
            }),
            "bad.toml: cbr[0].name: a name must not be empty (line 16, column 8)",
        ),
    ];
    expect_messages(&cases);
}

#[test]
fn errors_in_a_generated_topology_name_the_field_the_user_wrote() {
    let dumbbell = "kind = \"dumbbell\"\npairs = 2\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n";
    let cases = [
        (
            format!("{dumbbell}bottleneck_queue = {{ kind = \"red\", min_th = -1 }}"),
            "t.toml: topology.bottleneck_queue.min_th: must be positive (0: automatic) (line 10, column 45)",
        ),
        (
            // The user's own flow is flows[0], not flows[2] behind the two generated ones.
            format!("{dumbbell}\n[[flows]]\nfrom = \"s1\"\nto = \"d1\"\nname = \"tcp1\"\n"),
            "t.toml: flows[0].name: duplicate flow name \"tcp1\" (line 14, column 8)",
        ),
        (
            "kind = \"incast\"\nsenders = 2\nrate = \"1Gbps\"\ndelay = \"1us\"\ntransfer_size = \"0B\"".to_string(),
            "t.toml: topology.transfer_size: must be greater than zero (line 8, column 17)",
        ),
    ];
    for (table, expected) in cases {
        let text = topology(&table);
        let got = from_toml_str(&text, "t.toml").map(|_| ()).unwrap_err();
        assert_eq!(got.to_string(), expected);
    }
    let jitter = BASE.replace(
        "duration = \"1s\"",
        "duration = \"1s\"\nstart_jitter = \"10s\"",
    );
    assert_eq!(
        error_for(|_| jitter.clone()),
        "bad.toml: simulation.start_jitter: start + start_jitter must not pass simulation.duration (line 4, column 16)"
    );
}

#[test]
fn messages_escape_what_a_file_brings_into_them() {
    let got = error_for(|b| {
        let flow_to = b
            .trim_end()
            .strip_suffix("to = \"b\"")
            .expect("the flow's to comes last");
        format!("{flow_to}to = \"\\u001b[2J\"\n")
    });
    assert!(!got.contains('\u{1b}') && got.contains("\\x1b[2J"), "{got}");
    let got = error_for(|b| b.replace("rate = \"10Mbps\"", "rate = \"10\\u202eMbps\""));
    assert!(
        !got.contains('\u{202e}') && got.contains("\\u202e"),
        "{got}"
    );
}

#[test]
fn abr_parameters_keep_tm4_ranges_and_a_zero_floor() {
    let abr = "nodes = [\"a\", \"s\", \"b\"]\n[simulation]\nduration = \"1s\"\n[atm]\nservice = \"abr\"\n[[links]]\nfrom = \"a\"\nto = \"s\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\natm = true\n[[links]]\nfrom = \"s\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\natm = true\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n";
    let with = |table: &str| from_toml_str(&format!("{abr}{table}"), "abr.toml").map(|_| ());
    assert!(with("[atm.abr]\nmcr = \"0Mbps\"\n").is_ok());
    assert_eq!(
        with("[atm.abr]\ntrm = \"0s\"\n").unwrap_err().to_string(),
        "abr.toml: atm.abr.trm: must be longer than 0 (line 22, column 7)"
    );
    assert_eq!(
        with("[atm.abr]\nrif = 0.0\n").unwrap_err().to_string(),
        "abr.toml: atm.abr.rif: must be in (0, 1] (line 22, column 7)"
    );
    // A CBR source switched off by its count, as a flow can be.
    let off = format!("{BASE}[[cbr]]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ncount = 0\n");
    assert_eq!(from_toml_str(&off, "ok.toml").unwrap().cbr.len(), 0);
}
