"""Sweeps: plan validation, statistics, determinism across workers, resumption after a kill."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_congsim

from congsim import load
from congsim.sweep import (
    PlanError,
    confidence_half_width,
    load_plan,
    loads_plan,
    plan_of,
    run_sweep,
    student_t_quantile,
)

PLAN = """
name = "tiny"
scenario = "{scenario}"
replications = 3
[set]
"simulation.duration" = "{duration}"
"simulation.start_jitter" = "200ms"
"links[1].random_loss" = 0.002
[axes]
"tcp.variant" = ["tahoe", "reno"]
"links[1].queue.limit_packets" = [10, 40]
"""


def write_plan(tmp_path: Path, root: Path, duration: str = "2s") -> Path:
    plan = tmp_path / "tiny.toml"
    plan.write_text(PLAN.format(scenario=root / "scenarios" / "single-flow.toml", duration=duration))
    return plan


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [(0.975, 1, 12.706204736), (0.975, 4, 2.776445105), (0.975, 10, 2.228138852), (0.995, 29, 2.756385904)],
)
def test_student_t_quantiles_match_tables(p, df, expected):
    assert student_t_quantile(p, df) == pytest.approx(expected, abs=1e-8)
    assert student_t_quantile(1 - p, df) == pytest.approx(-expected, abs=1e-8)


def test_confidence_interval_half_width():
    assert confidence_half_width(2.0, 5) == pytest.approx(2.776445105 * 2.0 / math.sqrt(5))
    assert math.isnan(confidence_half_width(1.0, 1))


def test_plan_expands_to_keyed_runs(tmp_path, root):
    plan = load_plan(write_plan(tmp_path, root))
    runs = plan.runs()
    assert len(runs) == 2 * 2 * 3
    assert len({r.key for r in runs}) == len(runs)
    assert runs[0].params == {"tcp.variant": "tahoe", "links[1].queue.limit_packets": 10}
    assert [r.key for r in load_plan(write_plan(tmp_path, root)).runs()] == [r.key for r in runs]
    longer = load_plan(write_plan(tmp_path, root, duration="3s")).runs()
    assert not {r.key for r in longer} & {r.key for r in runs}, "a changed setting changes every key"


def test_a_changed_simulator_changes_every_key(tmp_path, root, monkeypatch):
    plan = load_plan(write_plan(tmp_path, root))
    before = {r.key for r in plan.runs()}
    monkeypatch.setattr("congsim.sweep.plan.build_fingerprint", lambda: "another build")
    assert not {r.key for r in plan.runs()} & before


def test_sweep_statistics_and_identical_results_with_any_worker_count(tmp_path, root):
    plan = load_plan(write_plan(tmp_path, root))
    one = run_sweep(plan, tmp_path / "one", workers=1)
    two = run_sweep(plan, tmp_path / "two", workers=2)
    assert one.failures == {} and one.executed == 12
    a, b = one.results(), two.results()
    assert len(a) > 0
    pd.testing.assert_frame_equal(a, b)
    stats = one.statistics()
    goodput = stats[(stats.table == "summary") & (stats.metric == "total_goodput_bps")]
    assert len(goodput) == 4 and (goodput["n"] == 3).all()
    assert (goodput["ci_low"] <= goodput["mean"]).all() and (goodput["mean"] <= goodput["ci_high"]).all()
    assert (goodput["std"] > 0).any(), "random starts and losses make replications differ"


def test_rerun_computes_only_what_is_missing(tmp_path, root):
    plan = load_plan(write_plan(tmp_path, root))
    out = tmp_path / "store"
    run_sweep(plan, out, workers=1)
    files = sorted((out / "runs").glob("*.parquet"))
    stamps = {f.name: f.stat().st_mtime_ns for f in files}
    files[0].unlink()
    files[5].unlink()
    again = run_sweep(plan, out, workers=1)
    assert again.executed == 2
    for f in sorted((out / "runs").glob("*.parquet")):
        if f.name not in (files[0].name, files[5].name):
            assert f.stat().st_mtime_ns == stamps[f.name], "a finished run was recomputed"


def test_more_replications_run_only_the_new_ones_with_the_tables_of_a_fresh_sweep(tmp_path, root):
    plan = load_plan(write_plan(tmp_path, root))
    out = tmp_path / "store"
    first = run_sweep(plan.with_replications(2), out, workers=1)
    assert first.executed == 8
    more = run_sweep(plan, out, workers=1)
    assert more.executed == 4, "the third replication of each of the 4 configurations"
    fresh = run_sweep(plan, tmp_path / "fresh", workers=1)
    pd.testing.assert_frame_equal(more.results(), fresh.results())
    fewer = run_sweep(plan.with_replications(1), out, workers=1)
    assert fewer.executed == 0
    assert set(fewer.results()["replication"]) == {0}


def test_a_killed_sweep_resumes_with_every_run_exactly_once(tmp_path, root, cli):
    plan_path = write_plan(tmp_path, root, duration="6s")
    # 100 runs, so that a kill after the third finished run always lands half-way.
    plan_path.write_text(plan_path.read_text().replace("replications = 3", "replications = 25"))
    total = 100
    out = tmp_path / "killed"
    process = subprocess.Popen([*cli, "sweep", str(plan_path), "--out", str(out), "--workers", "1"])
    deadline = time.monotonic() + 120
    while len(list((out / "runs").glob("*.parquet"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = {f.name: f.stat().st_mtime_ns for f in (out / "runs").glob("*.parquet")}
    assert 3 <= len(before) < total, "the sweep should have been killed half-way"
    done = run_congsim("sweep", str(plan_path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"({total - len(before)} run now, {len(before)} already stored)" in done.stdout
    after = {f.name: f.stat().st_mtime_ns for f in (out / "runs").glob("*.parquet")}
    assert len(after) == total and not list((out / "runs").glob("*.tmp"))
    assert all(after[name] == stamp for name, stamp in before.items())
    results = pd.read_parquet(out / "results.parquet")
    assert results.groupby("run")["replication"].nunique().eq(1).all()
    assert results["run"].nunique() == total


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            'name = "tiny"',
            "colour: unknown key; allowed keys are: axes, name, points, replications, scenario, set",
        ),
        ('"tcp.variant" = ["tahoe", "reno"]', "a run of this plan is invalid: "),
        ("replications = 3", "tiny.toml: replications: must be a whole number of at least 1"),
    ],
)
def test_bad_plans_are_reported_with_the_field(tmp_path, root, edit, message):
    path = write_plan(tmp_path, root)
    text = path.read_text()
    replacement = {
        'name = "tiny"': 'name = "tiny"\ncolour = "red"',
        '"tcp.variant" = ["tahoe", "reno"]': '"tcp.variant" = ["tahoe", "vegas"]',
        "replications = 3": "replications = 0",
    }[edit]
    path.write_text(text.replace(edit, replacement))
    with pytest.raises(PlanError) as caught:
        load_plan(path)
    assert message in str(caught.value)
    if "invalid" in message:
        assert "tcp.variant: unknown variant `vegas`, expected one of `tahoe`, `reno`, `newreno`" in str(
            caught.value
        )


def test_sweep_command_errors_are_one_line(tmp_path, root, cli):
    missing = run_congsim("sweep", str(tmp_path / "none.toml"))
    assert (
        missing.returncode == 2 and missing.stderr.startswith("error: ") and "Traceback" not in missing.stderr
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run_congsim("sweep", str(write_plan(tmp_path, root)), "--out", str(blocker / "store"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {blocker / 'store'}: cannot write the results store")


def test_plan_without_a_scenario_file():
    with pytest.raises(PlanError, match="scenario: cannot read"):
        loads_plan('scenario = "nowhere.toml"', "p.toml", Path("/nonexistent"))


def test_dask_cluster_gives_the_same_results_as_local_processes(tmp_path, root):
    distributed = pytest.importorskip("distributed")
    plan = load_plan(write_plan(tmp_path, root))
    local = run_sweep(plan, tmp_path / "local", workers=2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_cluster = run_sweep(plan, tmp_path / "dask", scheduler=client)
        by_address = run_sweep(plan, tmp_path / "dask-address", scheduler=cluster.scheduler_address)
    assert on_cluster.failures == {} and on_cluster.executed == 12
    pd.testing.assert_frame_equal(local.results(), on_cluster.results())
    pd.testing.assert_frame_equal(local.results(), by_address.results())


def test_unreachable_scheduler_is_one_error_line_and_leaves_the_store_intact(tmp_path, root, cli):
    plan = write_plan(tmp_path, root)
    out = tmp_path / "store"
    assert subprocess.run([*cli, "sweep", str(plan), "--out", str(out), "--workers", "1"]).returncode == 0
    before = {f.name: f.stat().st_mtime_ns for f in (out / "runs").iterdir()}
    done = run_congsim(
        "sweep",
        str(plan),
        "--out",
        str(out),
        "--executor",
        "dask",
        "--scheduler",
        "tcp://127.0.0.1:9",
        timeout=120,
    )
    if "needs the dask extra" not in done.stderr:
        assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert done.returncode == 2
    assert {f.name: f.stat().st_mtime_ns for f in (out / "runs").iterdir()} == before


def test_listed_points_instead_of_a_full_factorial(tmp_path, root):
    path = write_plan(tmp_path, root)
    points = (
        'points = [\n  { "tcp.variant" = "reno", "links[1].queue.limit_packets" = 10 },\n'
        '  { "tcp.variant" = "newreno", "links[1].queue.limit_packets" = 40 },\n]\n'
    )
    # Top-level keys come before the first table.
    text = path.read_text().split("[axes]")[0].replace("[set]", points + "[set]")
    path.write_text(text)
    plan = load_plan(path)
    assert plan.parameters == ["tcp.variant", "links[1].queue.limit_packets"]
    assert [r.params for r in plan.runs()][::3] == [
        {"tcp.variant": "reno", "links[1].queue.limit_packets": 10},
        {"tcp.variant": "newreno", "links[1].queue.limit_packets": 40},
    ]
    stats = run_sweep(plan, tmp_path / "store", workers=1).statistics()
    assert set(stats["tcp.variant"]) == {"reno", "newreno"}
    # Points and axes together: every point crossed with every axis value.
    path.write_text(text + '[axes]\n"links[*].delay" = ["1ms", "2ms"]\n')
    crossed = load_plan(path)
    assert crossed.parameters == ["tcp.variant", "links[1].queue.limit_packets", "links[*].delay"]
    assert [p["links[*].delay"] for p in crossed.points()] == ["1ms", "2ms", "1ms", "2ms"]
    assert [p["tcp.variant"] for p in crossed.points()] == ["reno", "reno", "newreno", "newreno"]
    path.write_text(text + '[axes]\n"tcp.variant" = ["tahoe"]\n')
    with pytest.raises(PlanError, match=r"axes\.tcp\.variant: is also set by a listed point"):
        load_plan(path)


def test_listed_points_may_leave_fields_out(tmp_path, root):
    path = write_plan(tmp_path, root)
    points = (
        'points = [\n  { "tcp.variant" = "reno" },\n'
        '  { "tcp.variant" = "newreno", "links[1].queue.limit_packets" = 40 },\n]\n'
    )
    text = path.read_text().split("[axes]")[0].replace("[set]", points + "[set]")
    path.write_text(text)
    plan = load_plan(path)
    assert plan.parameters == ["tcp.variant", "links[1].queue.limit_packets"]
    runs = plan.runs()
    assert runs[0].params == {"tcp.variant": "reno", "links[1].queue.limit_packets": None}
    # The left-out field keeps the scenario's value: it is not overridden.
    assert all(path_ != "links[1].queue.limit_packets" for path_, _ in runs[0].overrides)
    outcome = run_sweep(plan, tmp_path / "store", workers=1)
    stats = outcome.statistics()
    assert stats["links[1].queue.limit_packets"].isna().any()
    stored = pd.read_parquet(tmp_path / "store" / "results.parquet")
    assert set(stored["tcp.variant"]) == {"reno", "newreno"}


def test_a_sweep_stores_what_congsim_run_returns_for_the_same_run(tmp_path, root):
    """One result path: a sweep's stored numbers for a run are `congsim.run`'s tables for the
    same scenario, overrides and replication (`Results.numbers`)."""
    import congsim

    plan = load_plan(write_plan(tmp_path, root, duration="1s"))
    outcome = run_sweep(plan, tmp_path / "store", workers=1)
    spec = plan.runs()[-1]
    scenario = congsim.load(plan.scenario_source, dict(spec.overrides))
    direct = congsim.run(scenario, replication=spec.replication)
    stored = outcome.results()
    stored = stored[stored["run"] == spec.key]
    table, flow, metric, value = direct.numbers()
    assert list(stored["table"]) == table and list(stored["flow"]) == flow
    assert list(stored["metric"]) == metric
    assert list(stored["value"]) == pytest.approx(value, nan_ok=True, rel=0, abs=0)
    assert "goodput_bps" in metric and "total_goodput_bps" in metric


def test_a_plan_over_a_python_built_scenario_runs_from_a_script_without_a_main_guard(tmp_path, root):
    """A script (or notebook) calls `run_sweep` at top level: spawned workers must not run it
    again. The plan is built in Python and equals the same plan read from a file."""
    script = tmp_path / "sweep_script.py"
    script.write_text(
        "import congsim\n"
        "from congsim.sweep import plan_of, run_sweep\n"
        f"scenario = congsim.load({str(root / 'scenarios' / 'single-flow.toml')!r},\n"
        "                        overrides={'simulation.duration': '2s'})\n"
        "plan = plan_of(scenario, axes={'tcp.variant': ['reno', 'tahoe']}, replications=2)\n"
        f"outcome = run_sweep(plan, {str(tmp_path / 'store')!r}, workers=2)\n"
        "print(len(outcome.results()['run'].unique()))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
    with pytest.raises(PlanError, match=r"axes\.tcp\.variant: must be a non-empty list"):
        plan_of(load(root / "scenarios" / "single-flow.toml"), axes={"tcp.variant": []})


def test_axes_and_points_that_simulate_the_same_network_are_warned_about(tmp_path, root):
    """An axis whose values all give the same simulation (the flow sets its own variant), two
    spellings of one rate, and two listed points alike are named; a plan whose every value matters
    gets no warning."""
    path = write_plan(tmp_path, root)
    assert load_plan(path).warnings == ()
    text = path.read_text()
    shadowed = text.replace("[set]\n", '[set]\n"flows[0].tcp.variant" = "newreno"\n')
    path.write_text(shadowed)
    assert load_plan(path).warnings == (
        f"{path}: axes.tcp.variant: changes nothing: every value simulates the same network",
    )
    path.write_text(text + '"links[0].rate" = ["100Mbps", "50Mbps", "100000kbps"]\n')
    assert load_plan(path).warnings == (
        f'{path}: axes.links[0].rate: "100Mbps" and "100000kbps" simulate the same network',
    )
    points = (
        'points = [\n  { label = "a", "links[1].delay" = "10ms" },\n'
        '  { label = "b", "links[1].delay" = "11ms" },\n'
        '  { label = "c", "links[1].delay" = "10000us" },\n]\n'
    )
    path.write_text(text.split("[axes]")[0].replace("[set]", points + "[set]"))
    assert load_plan(path).warnings == (f"{path}: points: a and c simulate the same network",)
    done = run_congsim("sweep", str(path), "--out", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    assert f"warning: {path}: points: a and c simulate the same network" in done.stderr
