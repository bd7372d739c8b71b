//! The change trace (`[metrics] tcp_changes`, issue #30 item 4): every change of a sender's
//! cwnd, ssthresh, srtt, RTO and congestion state, against the sampled series and the
//! congestion events of the same run.

mod common;

use common::*;

/// `three_node` with a queue small enough to lose, the flow traced, sampled and its events
/// recorded; a second flow, not traced, beside it.
fn lossy(extra_metrics: &str) -> String {
    three_node("ns2_2000", 64, 12).replace(
        "[[flows]]\nfrom = \"src\"\nto = \"dst\"\n",
        &format!(
            "[metrics]\ntcp_events = true\nseries_interval = \"10ms\"\n{extra_metrics}\n\
             [[flows]]\nname = \"traced\"\nfrom = \"src\"\nto = \"dst\"\n\
             [[flows]]\nname = \"other\"\nfrom = \"src\"\nto = \"dst\"\nstart = \"0.5s\"\n"
        ),
    )
}

struct Change {
    time: f64,
    cwnd: f64,
    ssthresh: f64,
    srtt: f64,
    rto: f64,
    state: String,
    changed: String,
}

fn changes(r: &congsim::RunResult) -> Vec<Change> {
    let t = r.table("tcp_changes").expect("tcp_changes set");
    let flows = str_col_of(Some(t), "flow");
    assert!(flows.iter().all(|f| f == "traced"), "only the named flow");
    let col = |name| f64_col_of(t, name);
    let (time, cwnd, ssthresh, srtt, rto) = (
        col("time_s"),
        col("cwnd"),
        col("ssthresh"),
        col("srtt_s"),
        col("rto_s"),
    );
    let (state, changed) = (str_col_of(Some(t), "state"), str_col_of(Some(t), "changed"));
    (0..time.len())
        .map(|i| Change {
            time: time[i],
            cwnd: cwnd[i],
            ssthresh: ssthresh[i],
            srtt: srtt[i],
            rto: rto[i],
            state: state[i].clone(),
            changed: changed[i].clone(),
        })
        .collect()
}

#[test]
fn each_row_is_a_change_and_names_what_changed() {
    let r = run_toml(&lossy("tcp_changes = [\"traced\"]"));
    let rows = changes(&r);
    assert!(rows.len() > 500, "{} rows", rows.len());
    assert_eq!(rows[0].changed, "cwnd ssthresh srtt rto state");
    assert_eq!(rows[0].time, 0.0);
    for w in rows.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!(a.time <= b.time);
        let differs = [
            ("cwnd", a.cwnd != b.cwnd),
            ("ssthresh", a.ssthresh != b.ssthresh),
            ("srtt", a.srtt != b.srtt),
            ("rto", a.rto != b.rto),
            ("state", a.state != b.state),
        ];
        let named: Vec<&str> = differs.iter().filter(|d| d.1).map(|d| d.0).collect();
        assert_eq!(b.changed, named.join(" "), "at {}", b.time);
    }
    let states: Vec<&str> = rows.iter().map(|r| r.state.as_str()).collect();
    for state in ["open", "disorder", "recovery"] {
        assert!(states.contains(&state), "{state}");
    }
}

#[test]
fn the_samples_read_the_last_change_and_the_events_match_it() {
    let r = run_toml(&lossy("tcp_changes = [\"traced\"]"));
    let rows = changes(&r);
    // Every 10 ms sample of cwnd is the value of the last change before it.
    let series = r.table("flow_series").expect("series_interval set");
    let (times, flows, cwnds) = (
        f64_col_of(series, "time_s"),
        str_col_of(Some(series), "flow"),
        f64_col_of(series, "cwnd"),
    );
    let mut checked = 0;
    for ((t, f), cwnd) in times.iter().zip(&flows).zip(&cwnds) {
        if f != "traced" || rows.iter().any(|c| c.time == *t) {
            continue; // a change at the sample's own instant may come before or after it
        }
        let last = rows
            .iter()
            .rev()
            .find(|c| c.time < *t)
            .expect("a first row at 0");
        assert_eq!(last.cwnd, *cwnd, "sample at {t}");
        checked += 1;
    }
    assert!(checked > 900, "{checked}");
    // Each fast retransmit of the event table is a change of state into recovery at the same
    // instant (ssthresh may keep its value: the window halved to the same threshold).
    let events = r.table("tcp_events").expect("tcp_events on");
    let (event_times, event_flows, kinds) = (
        f64_col_of(events, "time_s"),
        str_col_of(Some(events), "flow"),
        str_col_of(Some(events), "event"),
    );
    let mut retransmits = 0;
    for ((t, f), kind) in event_times.iter().zip(&event_flows).zip(&kinds) {
        if f == "traced" && kind == "fast_retransmit" {
            let at: Vec<&Change> = rows.iter().filter(|c| c.time == *t).collect();
            assert!(
                at.iter()
                    .any(|c| c.changed.contains("state") && c.state == "recovery"),
                "fast retransmit at {t}"
            );
            retransmits += 1;
        }
    }
    assert!(retransmits > 0);
}

#[test]
fn tracing_changes_changes_nothing_else() {
    let plain = run_toml(&lossy(""));
    let traced = run_toml(&lossy("tcp_changes = [\"traced\"]"));
    assert!(plain.table("tcp_changes").is_none());
    // Debug strings: the tables hold NaN (no completion time), which is never equal to itself.
    let same =
        |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| format!("{a:?}") == format!("{b:?}");
    assert!(same(&plain.flows, &traced.flows));
    assert!(same(&plain.links, &traced.links));
    assert!(same(
        &plain.table("flow_series"),
        &traced.table("flow_series")
    ));
}

#[test]
fn an_unknown_or_cbr_flow_is_refused_by_name() {
    let text = lossy("tcp_changes = [\"nosuch\"]");
    let err = congsim::scenario::from_toml_str(&text, "t.toml").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.toml: metrics.tcp_changes[0]: unknown flow \"nosuch\"; TCP flows are: traced, other (line 24, column 16)"
    );
}
