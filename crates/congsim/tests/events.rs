//! Scheduled events (`[[events]]`, issue #30 item 3): a link failure and repair that reroute
//! traffic at their instants, rate, delay and application changes, and the refusals.

mod common;

use common::*;

/// a -> b over r1 (2 hops, the shortest) or over r2 and r3 (3 hops); one persistent flow;
/// each packet's wait recorded on the two first hops, so that the table shows which path
/// every packet took and when; `events` appended.
fn two_paths(events: &str) -> String {
    format!(
        r#"
nodes = ["a", "r1", "r2", "r3", "b"]
[simulation]
duration = "12s"
[metrics]
sojourn_links = ["a->r1", "a->r2"]
tcp_changes = ["ftp"]
[tcp]
profile = "rfc"
variant = "sack"
[[links]]
from = "a"
to = "r1"
rate = "10Mbps"
delay = "5ms"
duplex = true
[[links]]
from = "r1"
to = "b"
rate = "10Mbps"
delay = "5ms"
duplex = true
[[links]]
from = "a"
to = "r2"
rate = "10Mbps"
delay = "5ms"
duplex = true
[[links]]
from = "r2"
to = "r3"
rate = "10Mbps"
delay = "5ms"
duplex = true
[[links]]
from = "r3"
to = "b"
rate = "10Mbps"
delay = "5ms"
duplex = true
[[flows]]
name = "ftp"
from = "a"
to = "b"
{events}
"#
    )
}

const FAILURE: &str = r#"
[[events]]
at = "4s"
action = "link_down"
link = "a->r1"
[[events]]
at = "8s"
action = "link_up"
link = "a->r1"
"#;

/// (time the packet left the queue, link) of every data packet of the flow on the first hops.
fn departures(r: &congsim::RunResult) -> Vec<(f64, String)> {
    let t = r.table("sojourn").expect("sojourn_links set");
    let times = f64_col_of(t, "time_s");
    let links = str_col_of(Some(t), "link");
    let sizes = f64_col_of(t, "size_bytes");
    (times.into_iter().zip(links).zip(sizes))
        .filter(|(_, size)| *size > 100.0)
        .map(|(d, _)| d)
        .collect()
}

#[test]
fn a_link_failure_reroutes_the_flow_at_its_instant_and_the_repair_brings_it_back() {
    let r = run_toml(&two_paths(FAILURE));
    let rows = departures(&r);
    let on = |link: &str, from: f64, to: f64| {
        (rows.iter())
            .filter(|(t, l)| l == link && *t >= from && *t < to)
            .count()
    };
    // Before the failure the short path only; during it the long one only; after the repair
    // the short one again (the long path's queue drains within a few ms of the repair).
    assert!(on("a->r1", 0.0, 4.0) > 2000 && on("a->r2", 0.0, 4.0) == 0);
    assert!(on("a->r1", 4.0, 8.0) == 0 && on("a->r2", 4.0, 8.0) > 2000);
    assert!(on("a->r1", 8.0, 12.0) > 2000 && on("a->r2", 8.05, 12.0) == 0);
    let first_rerouted = rows.iter().find(|(_, l)| l == "a->r2").expect("rerouted").0;
    assert!((4.0..4.2).contains(&first_rerouted), "{first_rerouted}");
    // What the link held when it went down is lost and counted.
    let links = str_col_of(Some(&r.links), "link");
    let lost = f64_col(&r, "links", "drops_link_down");
    let at = links.iter().position(|l| l == "a->r1").expect("a->r1");
    assert!(lost[at] > 0.0, "{lost:?}");
    assert_eq!(lost.iter().sum::<f64>(), lost[at]);
    // The `link_changes` table has the two instants, with the events that made them.
    let changes = r.table("link_changes").expect("an event takes a link down");
    let rows: Vec<(f64, String, String, f64)> = (f64_col_of(changes, "time_s").into_iter())
        .zip(str_col_of(Some(changes), "link"))
        .zip(str_col_of(Some(changes), "state"))
        .zip(f64_col_of(changes, "event"))
        .map(|(((t, l), s), e)| (t, l, s, e))
        .collect();
    let row = |t: f64, state: &str, e: f64| (t, "a->r1".to_string(), state.to_string(), e);
    assert_eq!(rows, vec![row(4.0, "down", 0.0), row(8.0, "up", 1.0)]);
    // `event` is the entry's place in the file, whatever the order of the times.
    let (down, up) = FAILURE.split_at(FAILURE.find("[[events]]\nat = \"8s\"").expect("two"));
    let listed_up_first = run_toml(&two_paths(&format!("{up}{down}")));
    let events = f64_col_of(
        listed_up_first.table("link_changes").expect("a link down"),
        "event",
    );
    assert_eq!(events, vec![1.0, 0.0]);
    // The sender recovers from the loss: its window was cut at about 4 s.
    let changes = r.table("tcp_changes").expect("tcp_changes set");
    let (times, states) = (
        f64_col_of(changes, "time_s"),
        str_col_of(Some(changes), "state"),
    );
    assert!(
        (times.iter().zip(&states)).any(|(t, s)| (4.0..5.5).contains(t) && s != "open"),
        "a loss episode after the failure"
    );
}

#[test]
fn a_random_failure_process_takes_the_link_down_and_up_until_its_end() {
    // ns-2's `$ns rtmodel Exponential {1s 2s 0.5s 9s} $a $r1`: from 1 s, up for 2 s and down
    // for 0.5 s on average, both directions together, until 9 s.
    let process = r#"
[[events]]
at = "1s"
action = "link_failures"
link = "a->r1"
up_mean = "2s"
down_mean = "500ms"
until = "9s"
"#;
    let text = two_paths(process);
    let scenario = congsim::scenario::from_toml_str(&text, "t.toml").expect("valid");
    let r = congsim::run(&scenario, 0);
    let rows = departures(&r);
    let on = |link: &str, from: f64, to: f64| {
        (rows.iter())
            .filter(|(t, l)| l == link && *t >= from && *t < to)
            .count()
    };
    // The short path until the first failure; the long one while it is down; the short one
    // from the process's end on.
    let first_rerouted = rows
        .iter()
        .find(|(_, l)| l == "a->r2")
        .expect("a failure")
        .0;
    assert!(first_rerouted > 1.0 && on("a->r1", 0.0, first_rerouted) > 500);
    assert!(on("a->r2", 1.0, 9.0) > 100 && on("a->r1", first_rerouted, 9.0) > 100);
    assert_eq!(on("a->r2", 9.05, 12.0), 0);
    let lost = f64_col(&r, "links", "drops_link_down");
    assert!(lost.iter().sum::<f64>() > 0.0, "{lost:?}");
    // `link_changes`: the two directions go down and come up together, down and up in turn,
    // the flow's first packet on the long path while the short one is down, the last repair
    // by 9 s.
    let changes = r.table("link_changes").expect("a failure process");
    let (times, links, states) = (
        f64_col_of(changes, "time_s"),
        str_col_of(Some(changes), "link"),
        str_col_of(Some(changes), "state"),
    );
    assert!(times.len() >= 4 && times.len() % 4 == 0, "{times:?}");
    for (k, pair) in times.chunks(2).enumerate() {
        assert_eq!(pair[0], pair[1]);
        assert_eq!(&links[2 * k..2 * k + 2], ["a->r1", "r1->a"]);
        let state = if k % 2 == 0 { "down" } else { "up" };
        assert!(
            states[2 * k..2 * k + 2].iter().all(|s| s == state),
            "{states:?}"
        );
    }
    assert!(times.windows(2).all(|w| w[0] <= w[1]) && times[times.len() - 1] <= 9.0);
    let down_periods: Vec<(f64, f64)> = times.chunks(4).map(|c| (c[0], c[2])).collect();
    assert!(
        (down_periods.iter()).any(|&(down, up)| (down..up).contains(&first_rerouted)),
        "{first_rerouted} outside {down_periods:?}"
    );
    assert!(f64_col_of(changes, "event").iter().all(|&e| e == 0.0));
    // The draws are the replication's: the same run twice is the same, another differs.
    let again = congsim::run(&scenario, 0);
    assert_eq!(format!("{:?}", r.tables()), format!("{:?}", again.tables()));
    let other = congsim::run(&scenario, 1);
    assert_ne!(departures(&other), rows);
}

#[test]
fn the_same_events_give_the_same_tables_and_none_changes_nothing() {
    let a = run_toml(&two_paths(FAILURE));
    let b = run_toml(&two_paths(FAILURE));
    assert_eq!(format!("{:?}", a.tables()), format!("{:?}", b.tables()));
    let plain = run_toml(&two_paths(""));
    assert!(plain.table("tcp_changes").is_some());
    assert!(str_col_of(Some(&plain.links), "link").len() == 10);
    assert!(
        plain.links.column("drops_link_down").is_none(),
        "only with link_down events"
    );
    assert!(plain.table("link_changes").is_none());
}

#[test]
fn rate_delay_and_application_changes_take_effect_at_their_instants() {
    let events = r#"
[[events]]
at = "2s"
action = "link_delay"
link = "r1->a"
delay = "100ms"
[[events]]
at = "6s"
action = "link_rate"
link = "r1->b"
rate = "2Mbps"
[[events]]
at = "9s"
action = "flow_stop"
flow = "ftp"
[[events]]
at = "10.5s"
action = "flow_start"
flow = "ftp"
"#;
    let r = run_toml(&two_paths(events));
    let rows = departures(&r);
    let sent =
        |from: f64, to: f64| rows.iter().filter(|(t, _)| *t >= from && *t < to).count() as f64;
    // A longer ACK path (5 ms to 100 ms): the round trip without queueing goes from 20 to
    // 115 ms, and the smoothed RTT follows.
    let changes = r.table("tcp_changes").expect("tcp_changes set");
    let (times, srtt) = (f64_col_of(changes, "time_s"), f64_col_of(changes, "srtt_s"));
    let at = |t: f64| srtt[times.iter().rposition(|&x| x <= t).expect("changes before")];
    assert!(
        at(1.9) < 0.1 && at(5.9) > 0.115,
        "{} then {}",
        at(1.9),
        at(5.9)
    );
    // 2 Mb/s carries 167 packets of 1500 bytes a second (counted where they leave a, a queue
    // of at most 50 at r1 may add 25 a second); before, the window limited the flow to several
    // times that.
    let before = sent(4.5, 6.0) / 1.5;
    let after = sent(7.0, 9.0) / 2.0;
    assert!(before > 400.0, "{before}");
    assert!((150.0..=192.0).contains(&after), "{after}");
    // Stopped at 9 s (what was sent may still be retransmitted), resumed at 10.5 s.
    assert_eq!(sent(9.5, 10.5), 0.0);
    assert!(sent(10.5, 12.0) > 100.0);
}

fn refused(events: &str) -> String {
    congsim::scenario::from_toml_str(&two_paths(events), "t.toml")
        .expect_err("refused")
        .to_string()
}

#[test]
fn bad_events_are_refused_with_the_field_at_fault() {
    let event = |body: &str| format!("[[events]]\n{body}\n");
    assert_eq!(
        refused(&event(
            "at = \"12s\"\naction = \"link_down\"\nlink = \"a->r1\""
        )),
        "t.toml: events[0].at: 12s is not before the end of the run (12s) (line 46, column 6)"
    );
    assert_eq!(
        refused(&event(
            "at = \"1s\"\naction = \"link_down\"\nlink = \"a->x\""
        )),
        "t.toml: events[0].link: unknown link \"a->x\"; links are: a->r1, r1->a, r1->b, b->r1, a->r2, r2->a, r2->r3, r3->r2, r3->b, b->r3 (line 48, column 8)"
    );
    assert_eq!(
        refused(&event(
            "at = \"1s\"\naction = \"link_down\"\nlink = \"a->r1\"\nrate = \"1Mbps\""
        )),
        "t.toml: events[0].rate: applies to action = link_rate, cbr_rate only (line 49, column 8)"
    );
    assert_eq!(
        refused(&event(
            "at = \"1s\"\naction = \"link_rate\"\nlink = \"a->r1\""
        )),
        "t.toml: events[0].rate: action = \"link_rate\" needs it (line 45, column 1)"
    );
    assert_eq!(
        refused(&event(
            "at = \"1s\"\naction = \"flow_stop\"\nflow = \"nosuch\""
        )),
        "t.toml: events[0].flow: unknown flow \"nosuch\"; TCP flows are: ftp (line 48, column 8)"
    );
    let down_up = format!(
        "{}{}",
        event("at = \"2s\"\naction = \"link_down\"\nlink = \"a->r1\""),
        event("at = \"2s\"\naction = \"link_up\"\nlink = \"a->r1\"")
    );
    assert_eq!(
        refused(&down_up),
        "t.toml: events[1]: contradicts events[0] at the same instant (2s) (line 49, column 1)"
    );
    let up_while_up = event("at = \"2s\"\naction = \"link_up\"\nlink = \"a->r1\"");
    assert_eq!(
        refused(&up_while_up),
        "t.toml: events[0].action: \"a->r1\" is already up at 2s (line 47, column 10)"
    );
    let zero = refused(&event(
        "at = \"1s\"\naction = \"link_rate\"\nlink = \"a->r1\"\nrate = \"0Mbps\"",
    ));
    assert!(zero.starts_with("t.toml: events[0].rate: "), "{zero}");
    let process = "at = \"1s\"\naction = \"link_failures\"\nlink = \"a->r1\"\nup_mean = \"1s\"\ndown_mean = \"1s\"";
    let with_down = format!(
        "{}{}",
        event(process),
        event("at = \"5s\"\naction = \"link_down\"\nlink = \"r1->a\"")
    );
    assert!(
        refused(&with_down).starts_with("t.toml: events[1].link: \"r1->a\" has a link_failures process (events[0]), which decides when it is down and up"),
        "{}",
        refused(&with_down)
    );
    let zero_mean = refused(&event(
        &process.replace("up_mean = \"1s\"", "up_mean = \"0s\""),
    ));
    assert!(
        zero_mean.starts_with("t.toml: events[0].up_mean: must be greater than zero"),
        "{zero_mean}"
    );
    let early = refused(&event(&format!("{process}\nuntil = \"1s\"")));
    assert!(
        early.starts_with(
            "t.toml: events[0].until: must be after at and at most simulation.duration"
        ),
        "{early}"
    );
    let unknown = refused(&event("at = \"1s\"\naction = \"link_explode\""));
    assert!(unknown.contains("events[0].action"), "{unknown}");
}

#[test]
fn a_queue_limit_and_a_cbr_rate_change_at_their_instants() {
    // A 1 Mb/s CBR beside the flow: at 4 s it sends 3 Mb/s; at 8 s the first hop's queue
    // shrinks from 50 packets to 5.
    let text = two_paths(
        r#"
[[cbr]]
name = "voice"
from = "a"
to = "b"
rate = "1Mbps"
packet_size = "500B"
[[events]]
at = "4s"
action = "cbr_rate"
cbr = "voice"
rate = "3Mbps"
[[events]]
at = "8s"
action = "queue_limit"
link = "a->r1"
limit_packets = 5
"#,
    )
    .replace(
        "sojourn_links = [\"a->r1\", \"a->r2\"]",
        "sojourn_links = [\"a->r1\"]",
    );
    let r = run_toml(&text);
    let t = r.table("sojourn").expect("sojourn_links set");
    let (times, flows, waits) = (
        f64_col_of(t, "time_s"),
        str_col_of(Some(t), "flow"),
        f64_col_of(t, "sojourn_s"),
    );
    let voice = |from: f64, to: f64| {
        (times.iter().zip(&flows))
            .filter(|(t, f)| *f == "voice" && **t >= from && **t < to)
            .count() as f64
    };
    // 1 Mb/s of 500-byte packets is 250 a second; 3 Mb/s, 750.
    assert!(
        (240.0..=260.0).contains(&(voice(1.0, 4.0) / 3.0)),
        "{}",
        voice(1.0, 4.0)
    );
    assert!(
        (740.0..=760.0).contains(&(voice(5.0, 8.0) / 3.0)),
        "{}",
        voice(5.0, 8.0)
    );
    // A wait longer than 5 packets of 1500 bytes (6 ms) is no longer possible once the queue
    // that was there has drained.
    let longest = |from: f64, to: f64| {
        (times.iter().zip(&waits))
            .filter(|(t, _)| **t >= from && **t < to)
            .map(|(_, w)| *w)
            .fold(0.0, f64::max)
    };
    assert!(longest(5.0, 8.0) > 0.03, "{}", longest(5.0, 8.0));
    assert!(longest(8.5, 12.0) < 0.0065, "{}", longest(8.5, 12.0));
}

/// `two_paths` with a CoDel queue (5 ms target) on both directions of a–r1 and `events`.
fn codel_first_hop(events: &str) -> String {
    two_paths(events).replacen(
        "to = \"r1\"\nrate = \"10Mbps\"",
        "to = \"r1\"\nqueue = { kind = \"codel\", target = \"5ms\" }\nrate = \"10Mbps\"",
        1,
    )
}

/// Every packet's wait at a–r1 as (time it left the queue, wait).
fn waits_at_first_hop(r: &congsim::RunResult) -> Vec<(f64, f64)> {
    let t = r.table("sojourn").expect("sojourn_links set");
    let links = str_col_of(Some(t), "link");
    (f64_col_of(t, "time_s").into_iter())
        .zip(f64_col_of(t, "sojourn_s"))
        .zip(links)
        .filter(|(_, link)| link == "a->r1")
        .map(|(d, _)| d)
        .collect()
}

#[test]
fn queue_params_change_a_running_discipline_at_their_instant_and_keep_its_state() {
    let event = |queue: &str| {
        format!(
            "[[events]]\nat = \"6s\"\naction = \"queue_params\"\nlink = \"a->r1\"\nqueue = {queue}\n"
        )
    };
    let same_limit = "[[events]]\nat = \"6s\"\naction = \"queue_limit\"\nlink = \"a->r1\"\nlimit_packets = 1000\n";
    let unchanged = run_toml(&codel_first_hop(same_limit));
    // The settings it has already, given again: nothing changes, so the dropping state, the
    // count and the packets carried over.
    let again = run_toml(&codel_first_hop(&event("{ target = \"5ms\" }")));
    let tables = |r: &congsim::RunResult| {
        let traced = ["sojourn", "tcp_changes"].map(|t| r.table(t).expect("traced").to_csv());
        [
            r.flows.to_csv(),
            r.links.to_csv(),
            traced[0].clone(),
            traced[1].clone(),
        ]
    };
    assert_eq!(tables(&unchanged), tables(&again));
    // A ten times longer target and interval: the same until 6 s, long waits after.
    let longer = run_toml(&codel_first_hop(&event(
        "{ target = \"50ms\", interval = \"1s\" }",
    )));
    let (before, after) = (waits_at_first_hop(&unchanged), waits_at_first_hop(&longer));
    let until = |w: &[(f64, f64)], t: f64| {
        w.iter()
            .filter(|(at, _)| *at < t)
            .copied()
            .collect::<Vec<_>>()
    };
    assert_eq!(until(&before, 6.0), until(&after, 6.0));
    let mean_wait = |w: &[(f64, f64)], from: f64| {
        let late: Vec<f64> = w
            .iter()
            .filter(|(at, _)| *at >= from)
            .map(|(_, s)| *s)
            .collect();
        late.iter().sum::<f64>() / late.len() as f64
    };
    let (kept, raised) = (mean_wait(&before, 8.0), mean_wait(&after, 8.0));
    assert!(
        kept < 0.01 && raised > 0.02,
        "mean wait after 8 s: {kept} s with 5 ms, {raised} s with 50 ms"
    );
}

#[test]
fn red_settings_from_an_event_at_zero_are_the_settings_from_the_start() {
    let red = |queue: &str, events: &str| {
        two_paths(events).replacen(
            "to = \"r1\"\nrate = \"10Mbps\"",
            &format!("to = \"r1\"\nqueue = {queue}\nrate = \"10Mbps\""),
            1,
        )
    };
    let at_zero = |body: &str| format!("[[events]]\nat = \"0s\"\nlink = \"a->r1\"\n{body}\n");
    let from_the_start = run_toml(&red(
        "{ kind = \"red\", min_th = 2, max_th = 6, max_p = 0.5 }",
        &at_zero("action = \"queue_limit\"\nlimit_packets = 50"),
    ));
    let by_event = run_toml(&red(
        "{ kind = \"red\" }",
        &at_zero("action = \"queue_params\"\nqueue = { min_th = 2, max_th = 6, max_p = 0.5 }"),
    ));
    let default = run_toml(&red(
        "{ kind = \"red\" }",
        &at_zero("action = \"queue_limit\"\nlimit_packets = 50"),
    ));
    let csv = |r: &congsim::RunResult| r.links.to_csv();
    assert_eq!(csv(&from_the_start), csv(&by_event));
    assert_ne!(
        csv(&default),
        csv(&by_event),
        "the new thresholds drop more"
    );
}

#[test]
fn queue_params_that_a_running_queue_cannot_take_are_refused() {
    let event = |queue: &str| {
        format!(
            "[[events]]\nat = \"1s\"\naction = \"queue_params\"\nlink = \"a->r1\"\nqueue = {queue}\n"
        )
    };
    let with_queue = |queue: &str, events: &str| {
        congsim::scenario::from_toml_str(
            &two_paths(events).replacen(
                "to = \"r1\"\nrate = \"10Mbps\"",
                &format!("to = \"r1\"\nqueue = {queue}\nrate = \"10Mbps\""),
                1,
            ),
            "t.toml",
        )
        .expect_err("refused")
        .to_string()
    };
    assert_eq!(
        refused(&event("{ kind = \"red\" }")),
        "t.toml: events[0].queue.kind: \"a->r1\" keeps its droptail queue: give only the fields that change (line 49, column 18)"
    );
    assert_eq!(
        with_queue("{ kind = \"fq_codel\" }", &event("{ flows = 64 }")),
        "t.toml: events[0].queue: \"a->r1\"'s fq_codel queue keeps its flows and hash_seed (its packets are hashed into its queues) while it runs (line 50, column 9)"
    );
    assert_eq!(
        with_queue("{ kind = \"red\" }", &event("{ queue_in_bytes = true }")),
        "t.toml: events[0].queue: \"a->r1\"'s red queue keeps its queue_in_bytes and mean_packet_size (its average carries over in its unit) while it runs (line 50, column 9)"
    );
    let unknown = refused(&event("{ target = \"5ms\" }"));
    assert!(
        unknown.starts_with("t.toml: events[0].queue.target: "),
        "{unknown}"
    );
    assert!(unknown.contains("codel"), "{unknown}");
    let bad_value = with_queue("{ kind = \"codel\" }", &event("{ target = \"5 parsecs\" }"));
    assert!(
        bad_value.starts_with("t.toml: events[0].queue.target: "),
        "{bad_value}"
    );
    assert_eq!(
        refused("[[events]]\nat = \"1s\"\naction = \"queue_params\"\nlink = \"a->r1\"\n"),
        "t.toml: events[0].queue: action = \"queue_params\" needs it (line 45, column 1)"
    );
    let priority = congsim::scenario::from_toml_str(
        &two_paths(&event("{ classes = [{ limit_packets = 20 }] }"))
            .replacen(
                "to = \"r1\"\nrate = \"10Mbps\"",
                "to = \"r1\"\nqueue = { kind = \"priority\", classes = [{ limit_packets = 10 }] }\nrate = \"10Mbps\"",
                1,
            )
            .replace("[\"a->r1\", \"a->r2\"]", "[\"a->r2\"]"),
        "t.toml",
    )
    .expect_err("refused")
    .to_string();
    assert!(priority.contains("keeps its classes"), "{priority}");
}
