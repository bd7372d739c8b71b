"""A study's runs that simulate the same network are run once (`reproduce(share_runs=True)`):
their stores hold what running each on its own gives, a failure reaches each, and a resumed
study copies what a deleted file held. The longest runs go first; the tables keep plan order."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import pytest

from congsim.studies.declare import Metric, Study, Variant
from congsim.studies.run import reproduce
from congsim.sweep import load_plan, runner

PLAN = """
name = "tiny"
scenario = "network.toml"
replications = 2

# w10 sets the window (and a shorter run), so a variant's window leaves its runs alone.
points = [
    { label = "w10", "tcp.window" = 10, "simulation.duration" = "1s" },
    { label = "default" },
]

[axes]
"tcp.variant" = ["reno", "tahoe"]
"""

VARIANTS = (
    # Changes the default point only (w10 sets its own window): half the runs are the default's.
    Variant("window-30", {"tcp.window": 30}, "half shared"),
    # Changes every run (and runs longer): none is shared.
    Variant("slow-bottleneck", {"links[1].rate": "5Mbps", "simulation.duration": "3s"}, "none shared"),
    # The plan run longer: replications 0 and 1 are the default's, 2 is new.
    Variant("replications-3", {}, "two of three shared", replications=3),
    # The same network spelt another way: every run is shared.
    Variant("same-rate", {"links[1].rate": "10000kbps"}, "all shared"),
)


@dataclass(frozen=True)
class LocalStudy(Study):
    """A study whose plan and reference table are in a folder of the test's own."""

    folder: Path = Path()

    def plan_path(self) -> Path:
        return self.folder / self.plan

    def reference_rows(self) -> list[dict[str, str]]:
        with open(self.folder / "reference.csv", newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))


@pytest.fixture
def study(tmp_path: Path, root: Path) -> LocalStudy:
    folder = tmp_path / "study"
    folder.mkdir()
    network = (root / "scenarios" / "single-flow.toml").read_text(encoding="utf-8")
    assert 'duration = "10s"' in network and "window = 20" in network
    (folder / "network.toml").write_text(network.replace('duration = "10s"', 'duration = "2s"'))
    (folder / "plan.toml").write_text(PLAN)
    with open(folder / "reference.csv", "w", newline="", encoding="utf-8") as f:
        rows = csv.writer(f)
        rows.writerow(["study", "table", "label", "tcp.variant", "metric", "value", "source"])
        for label in ("w10", "default"):
            for variant in ("reno", "tahoe"):
                rows.writerow(["tiny", "T1", label, variant, "throughput_mbps", "5.0", "a test"])
    metric = Metric("summary", "total_goodput_bps", 1e-6, "throughput")
    return LocalStudy(
        name="tiny",
        title="a tiny study",
        plan="plan.toml",
        reference="reference.csv",
        metrics={"throughput_mbps": metric},
        variants=VARIANTS,
        folder=folder,
    )


class Executions:
    """Stands in for `runner.execute` (in this process: one worker), recording each task it
    runs; a task whose key is in `failing` fails."""

    def __init__(self) -> None:
        self.tasks: list[runner.Task] = []
        self.failing: set[str] = set()
        self.execute = runner.execute

    def __call__(self, task: runner.Task) -> tuple[str, runner.Tables | None, str | None]:
        self.tasks.append(task)
        if task.key in self.failing:
            return task.key, None, "RuntimeError: a failing run"
        return self.execute(task)

    @property
    def keys(self) -> list[str]:
        """The keys of the sweeps' runs executed (not the traced runs')."""
        return [t.key for t in self.tasks if len(t.key) > 3]


@pytest.fixture
def executions(monkeypatch: pytest.MonkeyPatch) -> Executions:
    recorder = Executions()
    monkeypatch.setattr(runner, "execute", recorder)
    return recorder


def plan_keys(folder: Path) -> list[str]:
    return [run["key"] for run in json.loads((folder / "plan.json").read_text())["runs"]]


def stores(out: Path) -> dict[str, Path]:
    return {"default": out / "tiny", **{v.name: out / "tiny" / "variants" / v.name for v in VARIANTS}}


def test_shared_runs_give_what_running_each_alone_gives(study, tmp_path, executions):
    outcome = reproduce(study, tmp_path / "shared", workers=1)
    assert not outcome.failures
    shared_keys = executions.keys
    executions.tasks.clear()
    alone = reproduce(study, tmp_path / "alone", workers=1, share_runs=False)
    assert not alone.failures
    alone_keys = executions.keys

    shared, separate = stores(tmp_path / "shared"), stores(tmp_path / "alone")
    every = {name: plan_keys(folder) for name, folder in shared.items()}
    assert {name: len(keys) for name, keys in every.items()} == {
        "default": 8,
        "window-30": 8,
        "slow-bottleneck": 8,
        "replications-3": 12,
        "same-rate": 8,
    }
    # Alone, each store runs its own, but replications-3's first two are the default's very runs
    # (their keys leave the number of replications out), as in any store: those run once.
    assert sorted(alone_keys) == sorted({k for keys in every.values() for k in keys}), "each key once alone"
    assert len(alone_keys) == 8 * 4 + 4
    # Shared: the default's 8, window-30's default point (4), every slow-bottleneck run (8) and
    # the third replication of replications-3 (4); same-rate runs nothing of its own.
    assert len(shared_keys) == len(set(shared_keys)) == 8 + 4 + 8 + 4
    assert set(every["default"]) <= set(shared_keys)
    assert set(every["slow-bottleneck"]) <= set(shared_keys), "a variant that changes every run shares none"
    assert not set(every["same-rate"]) & set(shared_keys)
    window_runs = json.loads((shared["window-30"] / "plan.json").read_text())["runs"]
    assert {r["key"] for r in window_runs if r["params"]["label"] == "default"} <= set(shared_keys)
    assert not {r["key"] for r in window_runs if r["params"]["label"] == "w10"} & set(shared_keys)
    replications = json.loads((shared["replications-3"] / "plan.json").read_text())["runs"]
    assert {r["key"] for r in replications if r["replication"] == 2} <= set(shared_keys)
    assert {r["key"] for r in replications if r["replication"] < 2} == set(every["default"])

    # Every store holds what running its plan alone gives: each run's file, the results in plan
    # order, the comparison.
    for name, folder in shared.items():
        assert (folder / "plan.json").read_bytes() == (separate[name] / "plan.json").read_bytes()
        for key in every[name]:
            file = Path("runs") / f"{key}.parquet"
            assert (folder / file).read_bytes() == (separate[name] / file).read_bytes(), (name, key)
        for file in ("results.parquet", "comparison.csv"):
            assert (folder / file).read_bytes() == (separate[name] / file).read_bytes(), (name, file)
        results = pd.read_parquet(folder / "results.parquet")
        assert list(dict.fromkeys(results["run"])) == every[name], "plan order"
        assert len(pd.read_csv(folder / "comparison.csv")) == 4
    # A shared run's table is its own: its key, and the variant's rows differ where it changes
    # the network.
    default = pd.read_parquet(shared["default"] / "results.parquet")
    window = pd.read_parquet(shared["window-30"] / "results.parquet")
    assert set(window["run"]) == set(every["window-30"])
    values = [
        frame.set_index(["label", "tcp.variant", "replication", "table", "flow", "metric"])["value"]
        for frame in (default, window)
    ]
    same = values[0].eq(values[1]) | (values[0].isna() & values[1].isna())
    assert same.xs("w10", level="label").all() and not same.xs("default", level="label").all()
    assert [v.variant.name for v in outcome.variants] == [v.name for v in VARIANTS]
    for ours, theirs in zip(outcome.variants, alone.variants, strict=True):
        pd.testing.assert_frame_equal(ours.comparison, theirs.comparison)
    pd.testing.assert_frame_equal(outcome.comparison, alone.comparison)


def test_the_longest_runs_start_first(study, tmp_path, executions):
    reproduce(study, tmp_path, workers=1)
    durations = [runner.simulated_seconds(task) for task in executions.tasks]
    assert durations == sorted(durations, reverse=True)
    assert durations[0] == 3.0 and durations[-1] == 1.0
    assert runner.simulated_seconds(executions.tasks[-1]) == 1.0


def test_a_failing_run_fails_every_run_that_shares_it(study, tmp_path, executions):
    runs = load_plan(study.plan_path()).runs()
    failing = next(r.key for r in runs if r.params["label"] == "w10" and r.replication == 1)
    executions.failing.add(failing)

    outcome = reproduce(study, tmp_path / "fresh", workers=1)
    folders = stores(tmp_path / "fresh")
    # Its copies in window-30 (w10 point), replications-3 and same-rate fail with it;
    # slow-bottleneck's run, another network, does not.
    failed = {
        name: sorted(p.name for p in (folder / "runs").glob("*.error.txt"))
        for name, folder in folders.items()
    }
    assert failed["default"] == [f"{failing}.error.txt"]
    assert failed["slow-bottleneck"] == []
    for name in ("window-30", "replications-3", "same-rate"):
        assert len(failed[name]) == 1, (name, failed)
        error = (folders[name] / "runs" / failed[name][0]).read_text()
        assert error == "RuntimeError: a failing run\n"
        key = failed[name][0].removesuffix(".error.txt")
        assert outcome.failures[f"{name}: {key}"] == "RuntimeError: a failing run"
        assert not (folders[name] / "runs" / f"{key}.parquet").exists()
    assert outcome.failures[failing] == "RuntimeError: a failing run"
    assert len(outcome.failures) == 4
    # The stores with a failed run are not judged; the others are.
    assert [v.variant.name for v in outcome.variants] == ["slow-bottleneck"]

    # Resumed with the run working again: it runs once, and every store is complete.
    executions.failing.clear()
    executions.tasks.clear()
    resumed = reproduce(study, tmp_path / "fresh", workers=1)
    assert executions.keys == [failing]
    assert not resumed.failures and len(resumed.variants) == len(VARIANTS)
    assert not list((tmp_path / "fresh").rglob("*.error.txt"))


def test_a_deleted_file_is_copied_back_from_a_run_that_shares_it(study, tmp_path, executions):
    out = tmp_path / "out"
    reproduce(study, out, workers=1)
    folders = stores(out)
    before = {name: (folder / "results.parquet").read_bytes() for name, folder in folders.items()}
    window_runs = json.loads((folders["window-30"] / "plan.json").read_text())["runs"]
    shared = next(r["key"] for r in window_runs if r["params"]["label"] == "w10")
    own = next(r["key"] for r in window_runs if r["params"]["label"] == "default")
    default_key = plan_keys(folders["default"])[0]
    deleted = {
        folders["window-30"] / "runs" / f"{shared}.parquet",
        folders["window-30"] / "runs" / f"{own}.parquet",
        # The default's run, whose copies are still in the variants' stores.
        folders["default"] / "runs" / f"{default_key}.parquet",
    }
    contents = {path: path.read_bytes() for path in deleted}
    for path in deleted:
        path.unlink()

    executions.tasks.clear()
    outcome = reproduce(study, out, workers=1)
    assert not outcome.failures
    # Only the run no other store has is run again; the others are copied.
    assert executions.keys == [own]
    for path, content in contents.items():
        assert path.read_bytes() == content, path
    for name, folder in folders.items():
        assert (folder / "results.parquet").read_bytes() == before[name], name

    # Resumed with every run stored: nothing runs but the traced run.
    executions.tasks.clear()
    reproduce(study, out, workers=1)
    assert executions.keys == [] and len(executions.tasks) == 1


def test_longest_first_orders_by_the_simulated_duration(root):
    scenario = (root / "scenarios" / "single-flow.toml").read_text(encoding="utf-8")

    def task(key: str, duration: str | None) -> runner.Task:
        overrides = [["tcp.window", 10]] + ([["simulation.duration", duration]] if duration else [])
        return runner.Task(key, scenario, "s.toml", json.dumps(overrides), 0, {})

    pending = [
        task("a", "500ms"),
        task("b", None),  # the scenario's 10 s
        task("c", "20s"),
        task("d", "2.5ms"),
        task("e", "500000us"),
        task("f", "3s"),
    ]
    assert [t.key for t in runner.longest_first(pending)] == ["c", "b", "f", "a", "e", "d"]
    assert runner.simulated_seconds(task("x", "bogus")) == 0.0


def test_a_variant_that_reads_a_metric_another_way_judges_the_defaults_runs(study, tmp_path, executions):
    kbps = Metric("summary", "total_goodput_bps", 1e-3, "throughput, read in kb/s")
    reading = Variant("in-kbps", {}, "the same runs, read another way", metrics={"throughput_mbps": kbps})
    outcome = reproduce(replace(study, variants=(reading,)), tmp_path, workers=1)
    assert not outcome.failures
    assert len(executions.keys) == len(set(executions.keys)) == 8, "the variant runs nothing of its own"
    (variant,) = outcome.variants
    ours = variant.comparison.set_index(["label", "tcp.variant"])["mean"]
    default = outcome.comparison.set_index(["label", "tcp.variant"])["mean"]
    assert (ours / default).round(9).eq(1000.0).all(), (ours, default)
    assert (variant.comparison["verdict"] == "differs").all(), "5 Mb/s read as kb/s misses 5.0"
