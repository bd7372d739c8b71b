"""Running a sweep: one process per run, each finished run written at once to the results store.

Store layout under the output folder:

* `runs/<key>.parquet`: one finished run, as a long table (`run`, one column per swept
  parameter, `replication`, `seed`, `table`, `flow`, `metric`, `value`). Written to a temporary
  name and renamed, so a file that exists is complete.
* `runs/<key>.error.txt`: why a run failed (it is retried by the next invocation).
* `plan.json`: the expanded plan; `results.parquet`: every run, in plan order.

Starting a sweep again runs only the keys without a result file: nothing finished is lost or
recomputed. A run's key hashes the simulator build, the scenario text, its overrides and its
replication: a sweep resumed after congsim changed runs again.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim import _core
from congsim.sweep.plan import Plan, RunSpec, Value
from congsim.sweep.stats import summarize

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: `(key, scenario text, scenario source, overrides JSON, replication, params, runs folder)`.
Task = tuple[str, str, str, str, int, dict[str, Value | None], str]

#: What a worker sends back: the run's tables as column lists.
Tables = dict[str, dict[str, list[Any]]]


def _long_table(tables: Tables, run: Task) -> pa.Table:
    """The run's numeric results as a long Arrow table, built column-wise (this runs in the
    coordinator for every run, beside the workers, so it must be cheap)."""
    import pyarrow as pa

    key, _, _, _, replication, params, _ = run
    seed = tables["summary"]["seed"][0]
    table_col: list[str] = []
    flow_col: list[str] = []
    metric_col: list[str] = []
    value_col: list[float] = []
    for table, flow_column in (("summary", None), ("flows", "flow")):
        columns = tables[table]
        n = len(next(iter(columns.values())))
        flows = [""] * n if flow_column is None else [str(f) for f in columns[flow_column]]
        for name, values in columns.items():
            if not values or not isinstance(values[0], int | float) or name in ("seed", "replication"):
                continue
            table_col += [table] * n
            flow_col += flows
            metric_col += [name] * n
            value_col += [float(v) for v in values]
    rows = len(value_col)
    data: dict[str, Any] = {"run": [key] * rows}
    for path, value in params.items():
        data[path] = [value] * rows
    data |= {
        "replication": [replication] * rows,
        "seed": [seed] * rows,
        "table": table_col,
        "flow": flow_col,
        "metric": metric_col,
        "value": value_col,
    }
    return pa.table(data)


def execute(task: Task) -> tuple[str, Tables | None, str | None]:
    """Runs one task where it is called (a local process or a Dask worker); returns
    `(key, tables, None)` or `(key, None, error)`. Workers import only the native module and
    touch no files: the caller builds and writes the store."""
    key, text, source, overrides, replication, _, _ = task
    try:
        return key, _core.run(text, source, replication, overrides), None
    except Exception as e:  # a failing run is recorded, and the sweep goes on
        return key, None, f"{type(e).__name__}: {e}"


def _store(runs_dir: Path, task: Task, tables: Tables | None, error: str | None) -> pa.Table | None:
    """Writes a finished run atomically (a result file that exists is complete); returns it."""
    import pyarrow.parquet as pq

    key = task[0]
    if tables is None:
        (runs_dir / f"{key}.error.txt").write_text(f"{error}\n", encoding="utf-8")
        return None
    table = _long_table(tables, task)
    temporary = runs_dir / f"{key}.parquet.tmp"
    pq.write_table(table, temporary)
    os.replace(temporary, runs_dir / f"{key}.parquet")
    (runs_dir / f"{key}.error.txt").unlink(missing_ok=True)
    return table


def tasks(plan: Plan, runs: list[RunSpec], runs_dir: Path) -> list[Task]:
    """What a worker needs for each run: plain data only."""
    scenario = (plan.scenario_text, plan.scenario_source)
    return [(r.key, *scenario, r.overrides_json(), r.replication, r.params, str(runs_dir)) for r in runs]


class SchedulerError(ConnectionError):
    """The Dask scheduler could not be reached."""


def _run_on_dask(
    scheduler: str | Any, pending: list[Task], finished: Callable[[str, Tables | None, str | None], None]
) -> None:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise SchedulerError("the dask executor needs the dask extra: pip install 'congsim[dask]'") from None
    if isinstance(scheduler, str):
        try:
            client = Client(scheduler, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    else:
        client = scheduler
    try:
        # pure=False: equal tasks are still distinct runs; the keys are ours, not Dask's.
        futures = client.map(execute, pending, pure=False)
        for future in dask_completed(futures):
            finished(*future.result())
    finally:
        if isinstance(scheduler, str):
            client.close()


@dataclass
class SweepOutcome:
    plan: Plan
    out: Path
    runs: list[RunSpec]
    #: Runs that failed in this invocation: key → message.
    failures: dict[str, str]
    #: Runs executed by this invocation (the others were already in the store).
    executed: int

    def results(self) -> pd.DataFrame:
        """The long table of every finished run, in plan order."""
        import pandas as pd

        frames = [
            pd.read_parquet(path)
            for spec in self.runs
            if (path := self.out / "runs" / f"{spec.key}.parquet").exists()
        ]
        combined: pd.DataFrame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        return combined

    def statistics(self, level: float = 0.95) -> pd.DataFrame:
        """Mean, standard deviation and confidence interval over replications."""
        by = [*self.plan.parameters, "table", "flow", "metric"]
        return summarize(self.results(), by, level)


def run_sweep(
    plan: Plan,
    out: str | Path,
    workers: int | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
    scheduler: str | Any | None = None,
) -> SweepOutcome:
    """Runs every run of `plan` whose result is not in `out` yet.

    Locally, `workers` processes run at once (default: all cores; 1 runs in this process).
    With `scheduler` (a Dask scheduler address, or a `distributed.Client`) the runs go to that
    cluster instead; results are identical either way. `on_progress(done, total, failed)` is
    called as runs finish.
    """
    out = Path(out)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    runs = plan.runs()
    snapshot = {
        "name": plan.name,
        "plan": plan.source,
        "scenario": plan.scenario_source,
        "runs": [{"key": r.key, "params": r.params, "replication": r.replication} for r in runs],
    }
    (out / "plan.json").write_text(json.dumps(snapshot, indent=1) + "\n", encoding="utf-8")
    pending = [t for t in tasks(plan, runs, runs_dir) if not (runs_dir / f"{t[0]}.parquet").exists()]
    done = len(runs) - len(pending)
    failures: dict[str, str] = {}
    report = on_progress or (lambda *_: None)
    report(done, len(runs), 0)

    task_by_key = {task[0]: task for task in pending}
    stored: dict[str, pa.Table] = {}

    def finished(key: str, tables: Tables | None, error: str | None) -> None:
        nonlocal done
        table = _store(runs_dir, task_by_key[key], tables, error)
        if table is not None:
            stored[key] = table
        done += 1
        if error is not None:
            failures[key] = error
        report(done, len(runs), len(failures))

    if scheduler is not None:
        _run_on_dask(scheduler, pending, finished)
    elif (workers or os.cpu_count() or 1) == 1 or len(pending) <= 1:
        for task in pending:
            finished(*execute(task))
    else:
        # spawn, not fork: the native module may hold threads, and workers get only plain data.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            max_workers=min(workers or os.cpu_count() or 1, len(pending)), mp_context=context
        ) as pool:
            futures = [pool.submit(execute, t) for t in pending]
            for future in as_completed(futures):
                finished(*future.result())
    _write_results(out, runs, stored)
    return SweepOutcome(plan, out, runs, failures, executed=len(pending))


def _write_results(out: Path, runs: list[RunSpec], stored: dict[str, pa.Table]) -> None:
    """`results.parquet`: every finished run in plan order; runs of this invocation come from
    memory, earlier ones from the store."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = []
    for r in runs:
        path = out / "runs" / f"{r.key}.parquet"
        if r.key in stored:
            parts.append(stored[r.key])
        elif path.exists():
            parts.append(pq.read_table(path))
    if parts:
        # Points that leave a field out have a null column there: promote to the common type.
        pq.write_table(pa.concat_tables(parts, promote_options="default"), out / "results.parquet")
