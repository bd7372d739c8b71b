"""The Python API: load, run, tables, errors."""

from __future__ import annotations

import math

import pytest

import congsim

TWO_NODES = """
nodes = ["a", "b"]
[simulation]
duration = "2s"
seed = {seed}
[[links]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
random_loss = 0.01
[tcp]
window = 30
[metrics]
series_interval = "100ms"
tcp_events = true
[[flows]]
from = "a"
to = "b"
count = 2
"""


def test_run_returns_dataframes_with_per_flow_results(root):
    results = congsim.run(congsim.load(root / "scenarios" / "single-flow.toml"))
    flows = results.flows
    assert list(flows["flow"]) == ["ftp"]
    # 20 packets of 1000 B per 22.9152 ms round trip, measured over the whole 10 s run.
    assert 6.8e6 < flows["goodput_bps"].iloc[0] < 20 * 8000 / 22.9152e-3
    assert results.summary["flows"].iloc[0] == 1
    assert set(results.names) == {"flows", "links", "summary", "flow_series", "link_series"}
    assert len(results.flow_series) == 100  # at 0 s, 0.1 s, ..., 9.9 s: the run ends at 10 s


def test_tables_equal_what_python_objects_give(root):
    """Columns cross from Rust as bytes and string codes: each DataFrame must equal the one pandas
    builds from plain Python values (same dtypes, same values, names in row order)."""
    import pandas as pd

    results = congsim.run(congsim.loads(TWO_NODES.format(seed=3)))
    assert {"flow_series", "link_series", "tcp_events"} <= set(results.names)
    for name in results.names:
        plain = pd.DataFrame({column: values.tolist() for column, values in results.columns(name).items()})
        pd.testing.assert_frame_equal(results.table(name), plain)
    series = results.flow_series
    # Two flows, sampled together: names alternate, they are not sorted or merged.
    assert list(series["flow"][:4]) == ["flow0.0", "flow0.1", "flow0.0", "flow0.1"]
    assert series["time_s"].is_monotonic_increasing
    assert results.links["departures"].dtype == "int64"
    summary = results.summary.iloc[0]
    assert (summary["flows"], summary["duration_s"]) == (2, 2.0)
    assert results.flows["goodput_bps"].between(1e5, 10e6).all()


def test_optional_tables_say_how_to_enable_them(root):
    results = congsim.run(congsim.load(root / "scenarios" / "dumbbell-20.toml"))
    with pytest.raises(KeyError, match=r"enable it in the scenario's \[metrics\]"):
        results.tcp_events  # noqa: B018


def test_tcp_events_and_series_are_recorded():
    results = congsim.run(congsim.loads(TWO_NODES.format(seed=1)))
    events = results.tcp_events
    assert set(events["event"]) <= {"fast_retransmit", "timeout", "recovery_exit"}
    assert len(events) > 0, "1 % loss over 2 s must cause recoveries"
    assert (results.flows["retx_pkts"] > 0).all()


def test_scenario_error_is_a_value_error_with_the_field_path():
    bad = TWO_NODES.format(seed=1).replace('"10Mbps"', '"10 Mbs"')
    with pytest.raises(ValueError, match=r"^x\.toml: links\[0\]\.rate: \"10 Mbs\" is not a rate"):
        congsim.loads(bad, "x.toml")
    assert issubclass(congsim.ScenarioError, ValueError)


def test_scenario_error_survives_pickling():
    """A run in a worker process (multiprocessing, a cluster executor) sends its error back
    pickled; the class must be importable by its module path."""
    import pickle

    error = congsim.ScenarioError("x.toml: links[0].rate: bad")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is congsim.ScenarioError and str(again) == str(error)


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(congsim.ScenarioError, match="cannot read the file"):
        congsim.load(tmp_path / "nope.toml")


def test_any_replication_index_runs_and_selects_its_own_streams():
    scenario = congsim.loads(TWO_NODES.format(seed=1))  # random losses: streams matter
    assert scenario.replications == 1
    runs = [congsim.run(scenario, replication=r).flows for r in (0, 1, 3, 3)]
    assert runs[2].equals(runs[3]), "a replication index repeats itself"
    assert not runs[0].equals(runs[1]) and not runs[1].equals(runs[2])
    with pytest.raises(ValueError, match="replication must be 0 to 4294967295"):
        congsim.run(scenario, replication=-1)


def test_a_run_reports_its_simulated_clock_and_stops_when_told():
    scenario = congsim.loads(TWO_NODES.format(seed=1), overrides={"simulation.duration": "5000s"})
    seen: list[tuple[float, float]] = []

    def progress(simulated_s: float, duration_s: float) -> None:
        seen.append((simulated_s, duration_s))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        congsim.run(scenario, progress=progress)
    assert len(seen) == 2 and seen[0][1] == 5000.0 and 0 < seen[0][0] <= seen[1][0] < 5000.0


def test_seed_changes_results_and_same_seed_repeats_them():
    a = congsim.run(congsim.loads(TWO_NODES.format(seed=1))).flows
    b = congsim.run(congsim.loads(TWO_NODES.format(seed=1))).flows
    c = congsim.run(congsim.loads(TWO_NODES.format(seed=2))).flows
    assert a.equals(b)
    assert not a.equals(c)


def test_schema_describes_the_format():
    schema = congsim.schema()
    assert {"simulation", "nodes", "links", "flows", "tcp"} <= set(schema["properties"])
    assert schema["$defs"]["RateText"]["examples"] == ["155.52Mbps"]


def test_metrics_are_consistent():
    results = congsim.run(congsim.loads(TWO_NODES.format(seed=3)))
    goodput = results.flows["goodput_bps"]
    jain = goodput.sum() ** 2 / (len(goodput) * (goodput**2).sum())
    assert math.isclose(results.summary["jain_index"].iloc[0], jain, rel_tol=1e-12)
    assert math.isclose(results.summary["total_goodput_bps"].iloc[0], goodput.sum(), rel_tol=1e-12)


def test_overrides_change_the_run_and_are_validated(root):
    path = root / "scenarios" / "fall-floyd.toml"
    drop = [{"from": "r", "to": "b", "flow": "f", "packet": 14}]
    plain = congsim.run(congsim.load(path)).flows.iloc[0]
    dropped = congsim.run(congsim.load(path, {"drops": drop})).flows.iloc[0]
    assert (plain["retx_pkts"], dropped["retx_pkts"]) == (0, 1)
    with pytest.raises(congsim.ScenarioError, match=r"tcp\.variant: unknown variant `cubic`"):
        congsim.load(path, {"tcp.variant": "cubic"})


def test_a_scenario_built_from_a_dict_is_validated_like_a_file_and_written_back():
    data = {
        "name": "built",
        "nodes": ["a", "r", "b"],
        "simulation": {"duration": "1s", "seed": 3},
        "links": [
            {"from": "a", "to": "r", "rate": "100Mbps", "delay": "1ms"},
            {"from": "r", "to": "b", "rate": "10Mbps", "delay": "10ms", "queue": {"limit_packets": 20}},
        ],
        "tcp": {"variant": "newreno"},
        "flows": [{"name": "f", "from": "a", "to": "b", "count": 2}],
    }
    scenario = congsim.Scenario.from_dict(data)
    assert (scenario.name, scenario.seed) == ("built", 3)
    # The same run as the TOML it writes, read back as a file would be.
    again = congsim.loads(scenario.to_toml())
    assert congsim.run(scenario).flows.equals(congsim.run(again).flows)
    # Overrides show in the written TOML.
    tahoe = congsim.Scenario.from_dict(data, overrides={"tcp.variant": "tahoe"})
    assert 'variant = "tahoe"' in tahoe.to_toml() and 'variant = "tahoe"' not in scenario.to_toml()
    bad = {**data, "links": [{**data["links"][0], "rate": "fast"}, data["links"][1]]}
    with pytest.raises(congsim.ScenarioError, match=r"<dict>: links\[0\]\.rate: \"fast\" is not a rate"):
        congsim.Scenario.from_dict(bad)
    with pytest.raises(congsim.ScenarioError, match="<dict>: cannot be written as TOML"):
        congsim.Scenario.from_dict({**data, "nodes": [object()]})


def test_the_network_names_each_flows_path():
    scenario = congsim.Scenario.from_dict(
        {
            "nodes": ["a", "r", "b"],
            "simulation": {"duration": "1s"},
            "links": [
                {"from": "a", "to": "r", "rate": "100Mbps", "delay": "1ms"},
                {"from": "r", "to": "b", "rate": "100Mbps", "delay": "1ms"},
                {"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"},
            ],
            "flows": [{"name": "f", "from": "a", "to": "b"}],
        }
    )
    network = scenario.network()
    data = next(p for p in network["paths"] if p["direction"] == "data")
    # Routes are by hop count: the direct 1 Mbps link carries the flow.
    assert [network["links"][i]["rate_bps"] for i in data["links"]] == [1_000_000]
    from congsim.network import route_lines

    assert route_lines(network)[0] == (
        "f (tcp data): a -[1Mbps 1ms]-> b  (bottleneck 1Mbps, propagation 1ms)"
    )


def test_random_tie_order_draws_the_order_of_simultaneous_arrivals(root):
    """On the tie-order example every delay is a whole number of packet times, so arrivals at
    the router coincide: their order decides the 20 ms flow's share. Random order is seeded
    (a replication repeats itself) and differs between replications."""
    path = root / "scenarios" / "tie-order.toml"

    def share(overrides: dict[str, str], replication: int = 0) -> float:
        flows = congsim.run(congsim.load(path, overrides), replication).flows
        return float(flows["goodput_bps"][0] / flows["goodput_bps"].sum())

    scheduled = share({})
    random = [share({"simulation.tie_order": "random"}, r) for r in range(3)]
    assert random[0] == share({"simulation.tie_order": "random"}, 0)
    assert len(set(random)) == 3 and scheduled not in random
    # A picosecond on one access link ends the ties: scheduled order no longer decides.
    assert share({"links[0].delay": "6.000000001ms"}) != scheduled
    with pytest.raises(congsim.ScenarioError, match="unknown variant `shuffled`"):
        congsim.load(path, {"simulation.tie_order": "shuffled"})
