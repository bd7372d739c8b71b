"""Running a study: its sweep, its variants' and its traced runs, judged and written into
`out/<study>/` (`congsim reproduce`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim.results import write_csv
from congsim.studies.declare import Study, Variant
from congsim.studies.judge import check_claims, compare

if TYPE_CHECKING:
    import pandas as pd

    from congsim.sweep.runner import SweepOutcome


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


#: `on_progress(done, total, failed)` of a study: its sweep's runs, then its traced runs.
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
) -> StudyOutcome:
    """Runs a registered study into `out/<name>` (resuming), compares it with its reference,
    writes `comparison.csv`, and stores a traced run of the plan's first configuration
    (`traces/flow_series.parquet`, `traces/link_series.parquet`) for the report's time series;
    with `trace_points_by`, one of every configuration too. The traced runs share the worker
    processes of the sweep's runs. With `variants`, each of the study's variants is run too,
    into `out/<name>/variants/<variant>/`, and compared the same way; a collection of names
    runs only those variants."""
    from dataclasses import replace

    from congsim.sweep import load_plan, run_sweep
    from congsim.sweep.runner import Task, started

    plan = load_plan(study.plan_path())
    if replications is not None:
        plan = plan.with_replications(replications)
    folder = out / study.name
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
    variant_plans = [
        (variant, replace(plan, fixed={**plan.fixed, **variant.overrides}))
        for variant in study.variants
        if (variants if isinstance(variants, bool) else variant.name in variants)
    ]
    variant_plans = [
        (v, p.with_replications(v.replications) if v.replications and replications is None else p)
        for v, p in variant_plans
    ]
    total = len(plan.runs()) + sum(len(p.runs()) for _, p in variant_plans) + len(traced)
    report = on_progress or (lambda *_: None)
    done = 0
    failures: dict[str, str] = {}
    by_key = {task.key: (where, task) for where, task in traced}

    def finished(key: str, tables: dict[str, Any] | None, error: str | None) -> None:
        nonlocal done
        where, task = by_key[key]
        if tables is None:
            failures[f"traced run {key}"] = error or ""
        else:
            _write_traces(where, tables, task.params)
        done += 1
        report(done, total, len(failures))

    # The traced runs start first and go on in their worker processes while the sweep's runs
    # are stored or read back and the comparison is computed here (on a study whose runs are
    # all stored, that is all there is to do).
    with started([task for _, task in traced], workers) as collect:
        sweep = run_sweep(
            plan, folder, workers, on_progress=lambda runs_done, _, failed: report(runs_done, total, failed)
        )
        done = len(plan.runs())
        failures |= sweep.failures
        comparison, claims = (
            _judge(study, sweep, plan.parameters, folder) if not sweep.failures else (None, None)
        )
        variant_outcomes = []
        for variant, variant_plan in variant_plans:
            where = folder / "variants" / variant.name

            def progress(runs_done: int, _total: int, failed: int, base: int = done) -> None:
                report(base + runs_done, total, failed)

            variant_sweep = run_sweep(variant_plan, where, workers, on_progress=progress)
            done += len(variant_plan.runs())
            failures |= {f"{variant.name}: {key}": error for key, error in variant_sweep.failures.items()}
            if not variant_sweep.failures:
                judged = _judge(study, variant_sweep, variant_plan.parameters, where, ns2=False)
                variant_outcomes.append(VariantOutcome(variant, where, *judged))
        import pandas as pd  # loaded already by the statistics; here for the type

        outcome = StudyOutcome(
            study,
            folder,
            plan.parameters,
            comparison if comparison is not None else pd.DataFrame(),
            dict(failures),
            claims,
            variant_outcomes,
        )
        if on_compared is not None:
            on_compared(outcome)
        collect(finished)
    outcome.failures = failures
    return outcome


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
    for name in ("flow_series", "link_series", "atm_series"):
        if name in results.names:
            pq.write_table(pa.table(results.columns(name)), folder / f"{name}.parquet")
    for file, data in results.captures.items():
        (folder / file).write_bytes(data)
    (folder / "configuration.json").write_text(json.dumps(params) + "\n", encoding="utf-8")
