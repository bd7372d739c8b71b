"""Running a study: its sweep, its variants' and its traced runs, judged and written into
`out/<study>/` (`congsim reproduce`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim.results import write_csv
from congsim.studies.declare import Study, Variant
from congsim.studies.judge import check_claims, compare

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from congsim.sweep.plan import Plan, RunSpec
    from congsim.sweep.runner import SweepOutcome, Task


@dataclass
class VariantOutcome:
    """A variant's comparison and claims, stored in `<study>/variants/<name>/`."""

    variant: Variant
    folder: Path
    comparison: pd.DataFrame
    claims: pd.DataFrame | None


@dataclass
class StudyOutcome:
    study: Study
    folder: Path
    axes: list[str]
    comparison: pd.DataFrame
    failures: dict[str, str]
    claims: pd.DataFrame | None = None
    #: The study's variants, run beside the default (empty when asked not to).
    variants: list[VariantOutcome] = field(default_factory=list)


#: Sampling interval of the traced run stored beside each study's results.
TRACE_INTERVAL = "100ms"


#: `on_progress(done, total, failed)` of a study: over its runs, its variants' and its traced
#: runs, in the order they finish.
Progress = Callable[[int, int, int], None]

#: `on_compared(outcome)`: the comparison and claims, as soon as they are computed (the traced
#: runs may still be running; `outcome.failures` holds the sweep's failures only).
Compared = Callable[["StudyOutcome"], None]


def reproduce(
    study: Study,
    out: Path,
    replications: int | None = None,
    workers: int | None = None,
    on_progress: Progress | None = None,
    on_compared: Compared | None = None,
    variants: bool | Collection[str] = True,
    share_runs: bool = True,
) -> StudyOutcome:
    """Runs a registered study into `out/<name>` (resuming), compares it with its reference,
    writes `comparison.csv`, and stores a traced run of the plan's first configuration
    (`traces/flow_series.parquet`, `traces/link_series.parquet`) for the report's time series;
    with `trace_points_by`, one of every configuration too. With `variants`, each of the
    study's variants is run too, into `out/<name>/variants/<variant>/`, and compared the same
    way; a collection of names runs only those variants.

    Every run (the default's, the variants', the traced ones) goes to one set of worker
    processes, the longest first (`longest_first`). With `share_runs`, a run that simulates the
    same network as another of the study (`_core.describe`'s fingerprint, and the same
    replication) is not run again: the first one's tables are stored for each under its own key
    (a failure too), or copied from the store when one is there already."""
    from congsim.sweep.runner import longest_first, started, store_copy

    work = _work(study, out, replications, variants, share_runs)
    stores, traced = work.stores, work.traced
    total = sum(len(store.runs) for store in stores) + len(traced)
    report = on_progress or (lambda *_: None)
    failures: dict[str, str] = {}
    done = total - len(traced) - sum(len(destinations) for destinations in work.executed.values())
    for store, task, source in work.copies:
        store.stored[task.key] = store_copy(store.runs_dir, task, source)
    report(done, total, 0)
    by_key = {task.key: (where, task) for where, task in traced}
    judged: list[_Store] = []
    compared: list[StudyOutcome] = []

    def conclude(store: _Store) -> None:
        """Once every run of `store` is in: its `results.parquet`, comparison and claims; once
        every store's are, `on_compared`."""
        _finish(study, store)
        judged.append(store)
        if len(judged) == len(stores):
            compared.append(_outcome(study, stores))
            if on_compared is not None:
                on_compared(compared[0])

    def finished(key: str, tables: dict[str, Any] | None, error: str | None) -> None:
        nonlocal done
        if key in by_key:
            where, task = by_key[key]
            if tables is None:
                failures[f"traced run {key}"] = error or ""
            else:
                _write_traces(where, tables, task.params)
            done += 1
        else:
            for store, run in work.executed[key]:
                store.record(run, tables, error)
                done += 1
                if store.waiting == 0:
                    conclude(store)
        report(done, total, len(failures) + sum(len(store.failures) for store in stores))

    pending = [task for _, task in traced] + [destinations[0][1] for destinations in work.executed.values()]
    # The stores with every run in are judged here while the others' runs go on in the worker
    # processes (on a study whose runs are all stored, only the traced runs are left).
    with started(longest_first(pending), workers) as collect:
        for store in stores:
            if store.waiting == 0:
                conclude(store)
        collect(finished)
    outcome = compared[0]
    outcome.failures = {**outcome.failures, **failures}
    return outcome


@dataclass
class _Store:
    """The results store of one plan of a study (its default's, or a variant's), as the runs
    of this invocation come in."""

    plan: Plan
    folder: Path
    variant: Variant | None
    runs: list[RunSpec]
    #: Runs of this invocation not finished yet: judged when none is left.
    waiting: int = 0
    #: Runs of this invocation, by key (results.parquet takes them from memory).
    stored: dict[str, pa.Table] = field(default_factory=dict)
    #: Runs that failed in this invocation, by key.
    failures: dict[str, str] = field(default_factory=dict)
    comparison: pd.DataFrame | None = None
    claims: pd.DataFrame | None = None

    @property
    def runs_dir(self) -> Path:
        return self.folder / "runs"

    def record(self, task: Task, tables: dict[str, Any] | None, error: str | None) -> None:
        """Stores a finished run (its tables, or why it failed)."""
        from congsim.sweep.runner import _store

        table = _store(self.runs_dir, task, tables, error)
        if table is not None:
            self.stored[task.key] = table
        else:
            self.failures[task.key] = error or ""
        self.waiting -= 1


@dataclass
class _Work:
    """What a study's invocation has to do."""

    #: The default's store, then each variant's.
    stores: list[_Store]
    #: The traced runs: where each is written, and its task.
    traced: list[tuple[Path, Task]]
    #: Runs to execute, by key: every store and task that takes its tables (the first is the
    #: task that runs; the others simulate the same network).
    executed: dict[str, list[tuple[_Store, Task]]]
    #: Runs copied from a stored one that simulates the same network: store, task, source file.
    copies: list[tuple[_Store, Task, Path]]


def _work(
    study: Study,
    out: Path,
    replications: int | None,
    variants: bool | Collection[str],
    share_runs: bool,
) -> _Work:
    """Prepares the stores of a study's default and variants (`plan.json`, `runs/`) and finds
    which runs to execute, which to copy and which to give another's tables (nothing runs)."""
    from congsim.sweep import load_plan
    from congsim.sweep.runner import prepare_store, tasks

    plan = load_plan(study.plan_path())
    if replications is not None:
        plan = plan.with_replications(replications)
    folder = out / study.name
    plans: list[tuple[Variant | None, Plan, Path]] = [(None, plan, folder)]
    for variant in study.variants:
        if variants if isinstance(variants, bool) else variant.name in variants:
            variant_plan = replace(plan, fixed={**plan.fixed, **variant.overrides})
            if variant.replications and replications is None:
                variant_plan = variant_plan.with_replications(variant.replications)
            plans.append((variant, variant_plan, folder / "variants" / variant.name))
    stores = [_Store(p, where, variant, prepare_store(p, where)) for variant, p, where in plans]
    every = [(store, tasks(store.plan, store.runs)) for store in stores]
    present = [{path.stem for path in store.runs_dir.glob("*.parquet")} for store in stores]
    # With every run stored there is nothing to share (nor to fingerprint).
    missing = [t for (_, ts), keys in zip(every, present, strict=True) for t in ts if t.key not in keys]
    share_runs = share_runs and bool(missing)
    # Runs that give the same tables, first met first: the default's in plan order, then each
    # variant's. A run's identity is its key (which hashes all that shapes it), or with
    # `share_runs` its network's fingerprint and its replication.
    alike: dict[object, list[tuple[_Store, Task, bool]]] = {}
    for (store, store_tasks), keys in zip(every, present, strict=True):
        fingerprints: dict[str, int | None] = {}
        for task in store_tasks:
            identity: object = task.key
            if share_runs:
                if task.overrides_json not in fingerprints:
                    fingerprints[task.overrides_json] = _fingerprint(task)
                if (fingerprint := fingerprints[task.overrides_json]) is not None:
                    identity = (fingerprint, task.replication)
            alike.setdefault(identity, []).append((store, task, task.key in keys))
    executed: dict[str, list[tuple[_Store, Task]]] = {}
    copies: list[tuple[_Store, Task, Path]] = []
    for group in alike.values():
        absent = [(store, task) for store, task, is_stored in group if not is_stored]
        if not absent:
            continue
        source = next((s.runs_dir / f"{t.key}.parquet" for s, t, is_stored in group if is_stored), None)
        if source is not None and _readable(source):
            copies += [(store, task, source) for store, task in absent]
        else:
            executed[absent[0][1].key] = absent
            for store, _ in absent:
                store.waiting += 1
    return _Work(stores, _traced_tasks(study, plan, folder), executed, copies)


def _fingerprint(task: Task) -> int | None:
    """The fingerprint of the network a task simulates (None when its scenario is invalid: the
    run is not shared, and fails on its own)."""
    from congsim import _core

    try:
        return _core.describe(task.scenario_text, task.scenario_source, task.overrides_json)[3]
    except (_core.ScenarioError, TypeError, ValueError):
        return None


def _readable(path: Path) -> bool:
    """Whether a stored run's file can be read (it is written whole or not at all, but a disk
    may still fail): one that cannot is run again instead of copied."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pq.read_schema(path)
    except (OSError, pa.ArrowInvalid):
        return False
    return True


def _traced_tasks(study: Study, plan: Plan, folder: Path) -> list[tuple[Path, Task]]:
    """The traced run of the plan's first configuration (with the study's captures), and with
    `trace_points_by` one of every configuration: where each is written, and its task."""
    from congsim.sweep.runner import Task

    first_replication = [r for r in plan.runs() if r.replication == 0]
    traced_runs = first_replication if study.trace_points_by is not None else []
    traced: list[tuple[Path, Task]] = []
    for index, run in enumerate([first_replication[0], *traced_runs]):
        overrides: list[tuple[str, object]] = [*run.overrides, ("metrics.series_interval", TRACE_INTERVAL)]
        if index == 0 and study.capture_links:
            overrides.append(("captures", [{"file": "traced.pcap", "links": list(study.capture_links)}]))
        where = folder / "traces" if index == 0 else folder / "traces" / "points" / f"{index - 1:03d}"
        text = json.dumps([list(o) for o in overrides])
        traced.append(
            (where, Task(str(index), plan.scenario_text, plan.scenario_source, text, 0, run.params))
        )
    return traced


def _finish(study: Study, store: _Store) -> None:
    """A store whose runs are all in: its `results.parquet`, and unless a run failed its
    comparison and claims."""
    from congsim.sweep.runner import SweepOutcome, write_results

    write_results(store.folder, store.runs, store.stored)
    store.stored = {}
    if not store.failures:
        sweep = SweepOutcome(store.plan, store.folder, store.runs, store.failures, executed=0)
        ns2 = store.variant is None
        judged = study
        if store.variant is not None and store.variant.metrics:
            judged = replace(study, metrics={**study.metrics, **store.variant.metrics})
        store.comparison, store.claims = _judge(judged, sweep, store.plan.parameters, store.folder, ns2)


def _outcome(study: Study, stores: list[_Store]) -> StudyOutcome:
    """The study's outcome once every store is judged (the traced runs may go on)."""
    import pandas as pd  # loaded already by the statistics; here for the type

    default, *others = stores
    failures = dict(default.failures)
    variant_outcomes = []
    for store in others:
        assert store.variant is not None
        failures |= {f"{store.variant.name}: {key}": error for key, error in store.failures.items()}
        if store.comparison is not None:
            variant_outcomes.append(
                VariantOutcome(store.variant, store.folder, store.comparison, store.claims)
            )
    return StudyOutcome(
        study,
        default.folder,
        default.plan.parameters,
        default.comparison if default.comparison is not None else pd.DataFrame(),
        failures,
        default.claims,
        variant_outcomes,
    )


def _judge(
    study: Study, sweep: SweepOutcome, axes: list[str], folder: Path, ns2: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A finished sweep's comparison with the reference (and with ns-2 on the same set-up,
    with `ns2`: not for a variant, which changes the set-up) and its claims, written into
    `folder` as `comparison.csv` and `claims.csv` (the latter when the study has claims)."""
    results = sweep.results()
    comparison = compare(study, sweep.statistics(), axes, results, ns2=ns2)
    write_csv(comparison, folder / "comparison.csv")
    claims = check_claims(study, results) if study.claims else None
    if claims is not None:
        write_csv(claims, folder / "claims.csv")
    return comparison, claims


def _write_traces(folder: Path, tables: dict[str, Any], params: Mapping[str, object]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from congsim.results import Results

    folder.mkdir(parents=True, exist_ok=True)
    results = Results(tables)
    for name in ("flow_series", "link_series", "atm_series", "abr_series"):
        if name in results.names:
            pq.write_table(pa.table(results.columns(name)), folder / f"{name}.parquet")
    for file, data in results.captures.items():
        (folder / file).write_bytes(data)
    (folder / "configuration.json").write_text(json.dumps(params) + "\n", encoding="utf-8")
