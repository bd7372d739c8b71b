"""Running a sweep: one process per run, each finished run written at once to the results store.

Store layout under the output folder:

* `runs/<key>.parquet`: one finished run, as a long table (`run`, one column per swept
  parameter, `replication`, `seed`, `table`, `flow`, `metric`, `value`). Written to a temporary
  name and renamed, so a file that exists is complete.
* `runs/<key>.error.txt`: why a run failed (it is retried by the next invocation).
* `plan.json`: the expanded plan; `results.parquet`: every run, in plan order.

Starting a sweep again runs only the keys without a result file: nothing finished is lost or
recomputed. A run's key hashes the scenario text, its overrides and its replication.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim import _core
from congsim.sweep.plan import Plan, RunSpec, Value
from congsim.sweep.stats import summarize

if TYPE_CHECKING:
    import pandas as pd

#: `(key, scenario text, scenario source, overrides JSON, replication, params, runs folder)`.
Task = tuple[str, str, str, str, int, dict[str, Value], str]


def _long_table(tables: dict[str, dict[str, list[Any]]], run: Task) -> pd.DataFrame:
    import pandas as pd

    key, _, _, _, replication, params, _ = run
    seed = tables["summary"]["seed"][0]
    rows: list[dict[str, Any]] = []
    for table, flow_column in (("summary", None), ("flows", "flow")):
        columns = tables[table]
        n = len(next(iter(columns.values())))
        for name, values in columns.items():
            if not values or not isinstance(values[0], int | float) or name in ("seed", "replication"):
                continue
            for i in range(n):
                flow = "" if flow_column is None else str(columns[flow_column][i])
                rows.append({"table": table, "flow": flow, "metric": name, "value": float(values[i])})
    frame = pd.DataFrame(rows, columns=["table", "flow", "metric", "value"])
    for position, (path, value) in enumerate(params.items()):
        frame.insert(position, path, [value] * len(frame))
    frame.insert(0, "run", key)
    frame.insert(1 + len(params), "replication", replication)
    frame.insert(2 + len(params), "seed", seed)
    result: pd.DataFrame = frame
    return result


def execute(task: Task) -> tuple[str, str | None]:
    """Runs one task and stores its result; returns `(key, error or None)`. Runs in a worker."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    key, text, source, overrides, replication, _, runs_dir = task
    folder = Path(runs_dir)
    try:
        tables = _core.run(text, source, replication, overrides)
        frame = _long_table(tables, task)
        temporary = folder / f"{key}.parquet.tmp"
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), temporary)
        os.replace(temporary, folder / f"{key}.parquet")
    except Exception as e:  # a failing run is recorded, and the sweep goes on
        (folder / f"{key}.error.txt").write_text(f"{type(e).__name__}: {e}\n", encoding="utf-8")
        return key, str(e)
    (folder / f"{key}.error.txt").unlink(missing_ok=True)
    return key, None


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
        by = [*self.plan.axes, "table", "flow", "metric"]
        return summarize(self.results(), by, level)


def run_sweep(
    plan: Plan,
    out: str | Path,
    workers: int | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
) -> SweepOutcome:
    """Runs every run of `plan` whose result is not in `out` yet.

    `workers` processes run at once (default: all cores; 1 runs in this process).
    `on_progress(done, total, failed)` is called as runs finish.
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
    pending: list[Task] = [
        (
            r.key,
            plan.scenario_text,
            plan.scenario_source,
            r.overrides_json(),
            r.replication,
            r.params,
            str(runs_dir),
        )
        for r in runs
        if not (runs_dir / f"{r.key}.parquet").exists()
    ]
    done = len(runs) - len(pending)
    failures: dict[str, str] = {}
    report = on_progress or (lambda *_: None)
    report(done, len(runs), 0)

    def finished(key: str, error: str | None) -> None:
        nonlocal done
        done += 1
        if error is not None:
            failures[key] = error
        report(done, len(runs), len(failures))

    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(pending) <= 1:
        for task in pending:
            finished(*execute(task))
    else:
        # spawn, not fork: the native module may hold threads, and workers get only plain data.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=context) as pool:
            futures: list[Future[tuple[str, str | None]]] = [pool.submit(execute, t) for t in pending]
            for future in as_completed(futures):
                finished(*future.result())
    outcome = SweepOutcome(plan, out, runs, failures, executed=len(pending))
    results = outcome.results()
    if not results.empty:
        results.to_parquet(out / "results.parquet", index=False)
    return outcome
