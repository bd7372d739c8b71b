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

import functools
import json
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim import _core
from congsim._interrupts import HeldCtrlC
from congsim.sweep.dask_address import SchedulerError as SchedulerError  # re-exported: its old home
from congsim.sweep.dask_address import connect as connect_scheduler
from congsim.sweep.dask_address import not_a_scheduler, parse_scheduler_address
from congsim.sweep.plan import Plan, RunSpec, Value
from congsim.sweep.stats import summarize

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run: plain data only (it crosses process boundaries)."""

    key: str
    scenario_text: str
    scenario_source: str
    #: `[[path, value], ...]` as JSON, applied to the scenario before the run.
    overrides_json: str
    replication: int
    #: The swept parameters of the run, as the result tables record them.
    params: dict[str, Value | None]


#: What a worker sends back: the run's tables as the native module encodes them
#: (`congsim.results.decode`), and any captures.
Tables = dict[str, Any]

#: Called in the coordinator as each task ends: `(key, tables, None)` or `(key, None, error)`.
Finished = Callable[[str, "Tables | None", "str | None"], None]


def _long_table(tables: Tables, run: Task) -> pa.Table:
    """The run's numeric results (`Results.numbers`, the same tables `congsim.run` returns) as a
    long Arrow table with the run's key, parameters, replication and seed (this runs in the
    coordinator for every run, beside the workers, so it must be cheap)."""
    from congsim.results import Results

    results = Results(tables)
    table_col, flow_col, metric_col, value_col = results.numbers()
    seed = int(results.columns("summary")["seed"][0])
    rows = len(value_col)
    numbers = {"seed": [seed] * rows, "table": table_col, "flow": flow_col, "metric": metric_col}
    return _labelled(run, numbers | {"value": value_col}, rows)


#: The columns of a run's long table that its simulation gives (the others say which run it is).
SIMULATED_COLUMNS = ("seed", "table", "flow", "metric", "value")


def _labelled(run: Task, simulated: dict[str, Any], rows: int) -> pa.Table:
    """A long table: `run`, one column per swept parameter and `replication` (from `run`), then
    the `SIMULATED_COLUMNS`."""
    import pyarrow as pa

    data: dict[str, Any] = {"run": [run.key] * rows}
    for path, value in run.params.items():
        data[path] = [value] * rows
    data["replication"] = [run.replication] * rows
    return pa.table(data | simulated)


def relabelled(table: pa.Table, run: Task) -> pa.Table:
    """A stored run's long table as `run`'s: its key, parameters and replication, with the
    simulated columns as they are (for a run that simulates the same network, so gives the
    same tables)."""
    return _labelled(run, {name: table.column(name) for name in SIMULATED_COLUMNS}, table.num_rows)


def execute(task: Task) -> tuple[str, Tables | None, str | None]:
    """Runs one task where it is called (a local process or a Dask worker); returns
    `(key, tables, None)` or `(key, None, error)`. Workers import only the native module and
    touch no files: the caller builds and writes the store."""
    try:
        tables = _core.run(task.scenario_text, task.scenario_source, task.replication, task.overrides_json)
        return task.key, tables, None
    except Exception as e:  # a failing run is recorded, and the sweep goes on
        return task.key, None, f"{type(e).__name__}: {e}"


def _store(runs_dir: Path, task: Task, tables: Tables | None, error: str | None) -> pa.Table | None:
    """Writes a finished run atomically (a result file that exists is complete); returns it."""
    if tables is None:
        (runs_dir / f"{task.key}.error.txt").write_text(f"{error}\n", encoding="utf-8")
        return None
    table = _long_table(tables, task)
    _write_run(runs_dir, task.key, table)
    return table


def store_copy(runs_dir: Path, task: Task, source: Path) -> pa.Table:
    """Stores `task`'s run as a copy of the stored run `source` (a run that simulates the same
    network: `relabelled`); returns it. `OSError` or `pyarrow.ArrowInvalid` when `source`
    cannot be read."""
    import pyarrow.parquet as pq

    table = relabelled(pq.read_table(source), task)
    _write_run(runs_dir, task.key, table)
    return table


def _write_run(runs_dir: Path, key: str, table: pa.Table) -> None:
    import pyarrow.parquet as pq

    temporary = runs_dir / f"{key}.parquet.tmp"
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, runs_dir / f"{key}.parquet")
    finally:
        temporary.unlink(missing_ok=True)
    (runs_dir / f"{key}.error.txt").unlink(missing_ok=True)


def tasks(plan: Plan, runs: list[RunSpec]) -> list[Task]:
    """What a worker needs for each run: plain data only."""
    return [
        Task(r.key, plan.scenario_text, plan.scenario_source, r.overrides_json(), r.replication, r.params)
        for r in runs
    ]


def longest_first(pending: Sequence[Task]) -> list[Task]:
    """`pending` with the longest runs first (`simulated_seconds`; equal ones in the given order),
    so that the last runs to start are short ones and the workers finish about together."""
    return sorted(pending, key=lambda task: -simulated_seconds(task))


def simulated_seconds(task: Task) -> float:
    """A task's simulated duration, its estimated cost: the last `simulation.duration` override,
    else the scenario's own (0 when neither can be read: such a run goes last)."""
    duration = _scenario_duration(task.scenario_text)
    for path, value in json.loads(task.overrides_json):
        if path == "simulation.duration":
            duration = value
    seconds = duration_seconds(duration) if isinstance(duration, str) else None
    return seconds if seconds is not None else 0.0


def duration_seconds(duration: str) -> float | None:
    """A duration as scenarios write it ("10s", "2.5ms") in seconds; None when it is not one."""
    match = _DURATION.fullmatch(duration)
    return float(match[1]) * _SECONDS_PER[match[2]] if match else None


#: A duration as scenarios write it ("10s", "2.5ms"), and the seconds of each unit.
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|ms|us|µs|ns|ps)\s*")
_SECONDS_PER = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}


@functools.lru_cache(maxsize=16)
def _scenario_duration(text: str) -> object:
    """`simulation.duration` of a scenario's text (None when it has none, or is not TOML)."""
    try:
        simulation = tomllib.loads(text).get("simulation")
    except tomllib.TOMLDecodeError:
        return None
    return simulation.get("duration") if isinstance(simulation, dict) else None


#: How often a worker process checks that the process that started it is still there.
PARENT_CHECK_INTERVAL_S = 0.2


def _watch_parent(parent: int) -> None:
    """Ends this worker once its parent is gone (a SIGKILLed coordinator cannot end it)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_INTERVAL_S)
    os._exit(1)


def _worker_start(parent: int) -> None:
    """Initializer of a local worker process. Ctrl-C in a terminal reaches the whole process
    group: the coordinator alone answers it (it ends the workers), so that a worker never dies
    half-way through reporting a result. The worker started with SIGINT blocked (`_local_pool`);
    it is ignored too, for systems without signal masks. A thread watches the parent, since a
    run holds the worker's main thread in native code for as long as it lasts."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="watch-parent").start()


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Cancels what has not started and ends the worker processes at once: a run in native code
    cannot be interrupted, and `shutdown(wait=True)` would wait for every one of them. Then
    waits (2 s at most) for the pool's manager thread, which cleans up once the workers are
    gone: its objects are released here, not in that thread while this process exits (the
    semaphores of a queue released half-way draw the resource tracker's "leaked semaphore"
    warning). A second Ctrl-C meanwhile waits until it is done."""
    with HeldCtrlC():
        # The executor has no public way to end its processes; `_processes` is stable since
        # 3.2, `_executor_manager_thread` since 3.9.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=2)
        if manager is not None:
            manager.join(timeout=2)
        del manager  # here, in this thread


#: Hands each result to `finished` as the tasks end, in the order they end.
Collect = Callable[[Finished], None]


@contextmanager
def _workers_skip_main_module() -> Iterator[None]:
    """While worker processes start: a spawned worker re-imports the parent's `__main__`,
    which runs a script's top level again, and a script or notebook cell that calls
    `run_sweep` without an `if __name__ == "__main__":` guard then fails in every worker.
    Workers run only congsim's own functions on plain data, so they need none of it."""
    main = sys.modules["__main__"]
    saved: dict[str, Any] = {
        name: main.__dict__[name] for name in ("__file__", "__spec__") if name in main.__dict__
    }
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


@contextmanager
def _local_pool(pending: Sequence[Task], workers: int) -> Iterator[Collect]:
    # spawn, not fork: the native module may hold threads, and workers get only plain data.
    context = multiprocessing.get_context("spawn")
    count = min(workers, len(pending))
    pool = ProcessPoolExecutor(
        max_workers=count, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),)
    )
    try:
        # Spawn starts a worker per submitted task until there are `count`, with Ctrl-C held
        # here: they begin with SIGINT blocked, so that the Ctrl-C a terminal sends to the whole
        # process group never reaches one, not even while it imports (it would die of it with a
        # traceback); here, the Ctrl-C takes effect once they are started.
        with _workers_skip_main_module():
            with HeldCtrlC(children=True):
                futures: list[Future[tuple[str, Tables | None, str | None]]] = [
                    pool.submit(execute, t) for t in pending[:count]
                ]
            futures += [pool.submit(execute, t) for t in pending[count:]]

        def collect(finished: Finished) -> None:
            for future in as_completed(futures):
                finished(*future.result())

        yield collect
    except BaseException:
        _end_workers(pool)
        raise
    with HeldCtrlC():  # which frees the pool's queues: their finalizers unlink its semaphores
        pool.shutdown()


@contextmanager
def _dask_cluster(scheduler: str | Any, pending: Sequence[Task]) -> Iterator[Collect]:
    # A malformed address is refused first: that needs no connection, nor Dask installed.
    address = parse_scheduler_address(scheduler) if isinstance(scheduler, str) else None
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise SchedulerError("the dask executor needs the dask extra: pip install 'congsim[dask]'") from None
    if address is not None:
        # Within CONGSIM_DASK_TIMEOUT seconds (default 5); every failure is one SchedulerError line.
        client = connect_scheduler(address)
    elif isinstance(scheduler, Client):
        client = scheduler
    else:
        raise not_a_scheduler(scheduler)
    futures: list[Any] = []
    try:
        # pure=False: equal tasks are still distinct runs; the keys are ours, not Dask's.
        futures = client.map(execute, pending, pure=False)

        def collect(finished: Finished) -> None:
            # The client is not the default one: as_completed must be given its loop.
            for future in dask_completed(futures, loop=client.loop):
                finished(*future.result())

        yield collect
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        if isinstance(scheduler, str):
            client.close()


@contextmanager
def started(
    pending: Sequence[Task], workers: int | None = None, scheduler: str | Any | None = None
) -> Iterator[Collect]:
    """Starts `pending` and yields `collect(finished)`, which calls `finished` in this thread as
    each task ends (in the order they end). The caller may work in between: the tasks run
    meanwhile. Locally on `workers` processes (default: all cores; 1 runs them in this process,
    when collected), or on a Dask cluster (`scheduler`: an address or a `distributed.Client`).

    Ctrl-C (KeyboardInterrupt), or any error, inside the block stops the tasks promptly: queued
    ones are cancelled and local worker processes are ended, and the exception goes on;
    whatever `finished` was given before stays. Local workers also end on their own when this
    process dies."""
    if scheduler is not None:
        with _dask_cluster(scheduler, pending) as collect:
            yield collect
    elif (workers or os.cpu_count() or 1) == 1 or len(pending) <= 1:

        def in_this_process(finished: Finished) -> None:
            for task in pending:
                finished(*execute(task))

        yield in_this_process
    else:
        with _local_pool(pending, workers or os.cpu_count() or 1) as collect:
            yield collect


def execute_all(
    pending: Sequence[Task],
    finished: Finished,
    workers: int | None = None,
    scheduler: str | Any | None = None,
) -> None:
    """Runs `pending` to the end (see `started`), calling `finished` as each task ends."""
    with started(pending, workers, scheduler) as collect:
        collect(finished)


@dataclass
class SweepOutcome:
    plan: Plan
    out: Path
    runs: list[RunSpec]
    #: Runs that failed in this invocation: key → message.
    failures: dict[str, str]
    #: Runs executed by this invocation (the others were already in the store).
    executed: int
    _results: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def results(self) -> pd.DataFrame:
        """The long table of every finished run, in plan order (read once, then kept)."""
        import pandas as pd

        if self._results is not None:
            return self._results

        frames = [
            pd.read_parquet(path)
            for spec in self.runs
            if (path := self.out / "runs" / f"{spec.key}.parquet").exists()
        ]
        combined: pd.DataFrame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        self._results = combined
        return combined

    def statistics(self, level: float = 0.95) -> pd.DataFrame:
        """Mean, standard deviation and confidence interval over replications."""
        by = [*self.plan.parameters, "table", "flow", "metric"]
        return summarize(self.results(), by, level)

    def _repr_html_(self) -> str:
        """A notebook's view: the sweep's runs and the first rows of `statistics()`."""
        from congsim.notebook import sweep_html

        return sweep_html(self)


#: Worker processes a sweep may start (the command line allows the same).
MAX_WORKERS = 4096


def _check_arguments(
    plan: object, out: object, workers: object, on_progress: object, scheduler: object
) -> None:
    """`TypeError` or `ValueError` saying what `run_sweep` expected of the argument at fault."""
    if not isinstance(plan, Plan):
        kind = type(plan).__name__
        raise TypeError(f"plan must be a congsim.sweep.Plan (load_plan or plan_of), not {kind}")
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out must be a folder's path, not {type(out).__name__}")
    if str(out) == "":
        raise ValueError("out must not be empty (the store would be the current folder)")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int):
            raise TypeError(f"workers must be an int or None, not {type(workers).__name__}")
        if not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"workers must be 1 to {MAX_WORKERS}, not {workers}")
    if on_progress is not None and not callable(on_progress):
        kind = type(on_progress).__name__
        raise TypeError(f"on_progress must be a function of (done, total, failed), not {kind}")
    if scheduler is not None and not isinstance(scheduler, str) and not hasattr(scheduler, "map"):
        kind = type(scheduler).__name__
        raise TypeError(f"scheduler must be a Dask scheduler's address or a distributed.Client, not {kind}")


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
    _check_arguments(plan, out, workers, on_progress, scheduler)
    out = Path(out)
    runs_dir = out / "runs"
    runs = prepare_store(plan, out)
    pending = [t for t in tasks(plan, runs) if not (runs_dir / f"{t.key}.parquet").exists()]
    done = len(runs) - len(pending)
    failures: dict[str, str] = {}
    report = on_progress or (lambda *_: None)
    report(done, len(runs), 0)

    task_by_key = {task.key: task for task in pending}
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

    execute_all(pending, finished, workers, scheduler)
    write_results(out, runs, stored)
    return SweepOutcome(plan, out, runs, failures, executed=len(pending))


#: Schema metadata of `results.parquet`: the keys of the runs it holds, in order.
RESULTS_KEYS = b"congsim.runs"


def prepare_store(plan: Plan, out: Path) -> list[RunSpec]:
    """Makes `out/runs/` and writes `out/plan.json` (the expanded plan); returns the runs."""
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    runs = plan.runs()
    snapshot = {
        "name": plan.name,
        "plan": plan.source,
        "scenario": plan.scenario_source,
        "runs": [{"key": r.key, "params": r.params, "replication": r.replication} for r in runs],
    }
    plan_json = out / "plan.json.tmp"
    try:  # under a temporary name and renamed, as every file of the store
        plan_json.write_text(json.dumps(snapshot, indent=1) + "\n", encoding="utf-8")
        os.replace(plan_json, out / "plan.json")
    finally:
        plan_json.unlink(missing_ok=True)
    return runs


def write_results(out: Path, runs: list[RunSpec], stored: dict[str, pa.Table]) -> None:
    """`results.parquet`: every finished run in plan order; runs of this invocation come from
    memory, earlier ones from the store. Left as it is when it already holds exactly these
    runs (a study re-run on a complete store)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    finished = [r.key for r in runs if r.key in stored or (out / "runs" / f"{r.key}.parquet").exists()]
    if not finished:
        return
    keys = json.dumps(finished).encode()
    target = out / "results.parquet"
    if not stored and target.exists():
        try:
            if (pq.read_schema(target).metadata or {}).get(RESULTS_KEYS) == keys:
                return
        except (OSError, pa.ArrowInvalid):
            pass  # unreadable: written again below
    parts = [stored[k] if k in stored else pq.read_table(out / "runs" / f"{k}.parquet") for k in finished]
    # Points that leave a field out have a null column there: promote to the common type.
    table = pa.concat_tables(parts, promote_options="default")
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), RESULTS_KEYS: keys})
    temporary = out / "results.parquet.tmp"
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, target)
    finally:  # interrupted or failed: no half-written file left behind
        temporary.unlink(missing_ok=True)
