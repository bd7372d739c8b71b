"""Ctrl-C at any moment of `congsim sweep` and `congsim run --out` (issue 27, point 5): status
130 with one line `interrupted: ...`, no traceback or warning from the command, its workers or
multiprocessing's resource tracker, no process left behind, no partial output; and never lost
(status 0 only when the command had finished and said so).

Ctrl-C is SIGINT sent to the command's whole process group, as a terminal sends it: workers
get it too. The points are chosen by what the command is doing (a number of runs stored, the
results being written), not only by time, so that they land where they should on a slow or
busy machine too. Python's own start-up (before it reads any congsim file) is Python's: a
Ctrl-C there ends with Python's message, and is accepted as such (`python_was_starting`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.skipif(
    not hasattr(os, "killpg") or not Path("/proc").exists(),
    reason="sends SIGINT to a process group, reads process states from /proc",
)

#: 16 short runs on 2 workers: about 1.5 s of runs, long enough for points half-way.
PLAN = """
name = "ctrl-c"
scenario = "{scenario}"
replications = 16
[set]
"simulation.duration" = "20s"
"simulation.start_jitter" = "200ms"
"""
RUNS = 16


@contextmanager
def ctrl_c_as_in_a_terminal() -> Iterator[None]:
    """Processes started in the block get SIGINT's default action, as a command started in a
    terminal does, even when these tests run with it ignored (a shell's background job):
    congsim keeps ignoring a Ctrl-C it was started to ignore."""
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


class Command:
    """`congsim ARGS` in its own session (its own process group), its output read as it
    comes."""

    def __init__(self, *args: str | Path) -> None:
        command = [sys.executable, "-m", "congsim", *map(str, args)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with ctrl_c_as_in_a_terminal():
            self.process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
                env=env,
            )
        self.started = time.monotonic()
        self.lines: list[str] = []
        self._stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.lines), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self._stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def wait_until(self, condition: Callable[[], bool], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.process.poll() is None, f"ended early: {self.finish()}"
            if time.monotonic() > deadline:
                os.killpg(self.process.pid, signal.SIGKILL)
                pytest.fail(f"the command made no progress: {self.finish()}")
            time.sleep(0.002)

    def ctrl_c(self) -> None:
        """SIGINT to the whole process group, as a terminal's Ctrl-C."""
        try:
            os.killpg(self.process.pid, signal.SIGINT)
        except ProcessLookupError:  # everything had ended already
            pass

    def finish(self, timeout: float = 30) -> tuple[int, str, str]:
        """Waits for the command (killing its group after `timeout`, so that a hang fails fast
        and leaves nothing running), then for every process of its group: workers and the
        resource tracker must end with it."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            pytest.fail(f"no exit {timeout} s after Ctrl-C")
        for reader in self._readers:
            reader.join(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        deadline = time.monotonic() + 5
        while group_alive(self.process.pid):
            if time.monotonic() > deadline:
                os.killpg(self.process.pid, signal.SIGKILL)
                pytest.fail("processes of the command outlived it")
            time.sleep(0.02)
        return self.process.returncode, "".join(self.lines), "".join(self._stderr)


def group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs (zombies waiting for their parent apart)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def python_was_starting(status: int, stderr: str) -> bool:
    """A Ctrl-C that came while Python itself started, before it read any congsim file: Python
    ends with its own message (a traceback in runpy or site, or none), status 1 or -SIGINT."""
    return status in (1, -signal.SIGINT) and "congsim" not in stderr


def check_interrupted(status: int, stdout: str, stderr: str, finished: Callable[[], bool]) -> str:
    """The rule for every Ctrl-C: status 130 and exactly one line on stderr, `interrupted: ...`;
    or status 0 when the command had finished (`finished()`: its output complete, and its last
    line printed), with nothing on stderr. Returns which."""
    for noise in ("Traceback", "Aborted!", "leaked", "Warning", "Error"):
        assert noise not in stderr, stderr
    if status == 0:
        assert stderr == "", stderr
        assert finished(), f"status 0, but the command had not finished: {stdout}"
        return "finished"
    assert status == 130, (status, stderr)
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), stderr
    return "interrupted"


# ---- congsim sweep ----------------------------------------------------------------------------


def stored(store: Path) -> list[Path]:
    return sorted((store / "runs").glob("*.parquet"))


def check_store(store: Path) -> None:
    """Only complete files: no temporary one, every run and results.parquet readable."""
    if not store.exists():
        return
    leftovers = [p for p in store.rglob("*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers
    for path in stored(store):
        assert pq.read_table(path).num_rows > 0, path
    if (store / "results.parquet").exists():
        assert pq.read_table(store / "results.parquet").num_rows > 0
    if (store / "plan.json").exists():
        assert len(json.loads((store / "plan.json").read_text())["runs"]) == RUNS


def sweep_finished(store: Path, stdout: str) -> bool:
    return (
        f"{RUNS} runs (" in stdout
        and len(stored(store)) == RUNS
        and (store / "results.parquet").exists()
        and (store / "statistics.csv").exists()
    )


def test_ctrl_c_at_any_moment_of_a_sweep(tmp_path, root):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(scenario=root / "scenarios" / "dumbbell-20.toml"))
    store = tmp_path / "store"
    outcomes: list[tuple[str, str]] = []

    def point(name: str, when: Callable[[Command], None], fresh: bool = False) -> None:
        if fresh and store.exists():
            import shutil

            shutil.rmtree(store)
        before = len(stored(store))
        command = Command("sweep", plan, "--out", store, "--workers", "2")
        when(command)
        command.ctrl_c()
        status, stdout, stderr = command.finish()
        if name.startswith("start") and python_was_starting(status, stderr):
            outcomes.append((name, "python was starting"))
            return
        outcome = check_interrupted(status, stdout, stderr, lambda: sweep_finished(store, stdout))
        if outcome == "interrupted" and store.exists():
            n = len(stored(store))
            assert f"{n} of {RUNS} runs are stored in {store}; the same command resumes" in stderr
        check_store(store)
        assert len(stored(store)) >= before, "a stored run was lost"
        outcomes.append((name, outcome))

    def after(seconds: float) -> Callable[[Command], None]:
        return lambda command: time.sleep(max(0.0, command.started + seconds - time.monotonic()))

    def when_stored(more: int, then: float = 0.0) -> Callable[[Command], None]:
        """Once `more` runs more are stored (all of them: `RUNS`), and `then` seconds on."""

        def wait(command: Command) -> None:
            count = RUNS if more == RUNS else len(stored(store)) + more
            command.wait_until(lambda: len(stored(store)) >= count)
            time.sleep(then)

        return wait

    # Start-up: Python and congsim loading, the plan read, the store made, workers starting.
    for seconds in (0.05, 0.1, 0.2, 0.35, 0.5, 0.8):
        point(f"start +{seconds} s", after(seconds), fresh=True)
    # Half-way, resuming the same store each time, with at least 9 runs to do: just after a
    # run is stored, or between two.
    for more, then in ((1, 0.0), (2, 0.05), (3, 0.0), (5, 0.1)):
        for path in stored(store)[RUNS - 9 - more :]:
            path.unlink()
        point(f"{more} more runs stored +{then} s", when_stored(more, then))
    assert all(o == "interrupted" for name, o in outcomes if "start" not in name), outcomes
    # The end: every run stored, results.parquet and statistics.csv being written, the exit.
    for then in (0.0, 0.02, 0.08, 0.25):
        for path in stored(store)[:2]:
            path.unlink()
        point(f"every run stored +{then} s", when_stored(RUNS, then))
    # After all that, the same command completes the store, with every run once.
    command = Command("sweep", plan, "--out", store, "--workers", "2")
    status, stdout, stderr = command.finish(timeout=60)
    assert status == 0 and stderr == "", stderr
    assert sweep_finished(store, stdout)
    check_store(store)
    results = pq.read_table(store / "results.parquet").to_pandas()
    assert results["run"].nunique() == RUNS
    interrupted = [name for name, o in outcomes if o == "interrupted"]
    assert len(interrupted) >= 12, outcomes


# ---- congsim run --out ------------------------------------------------------------------------


def traced_scenario(tmp_path: Path, root: Path) -> Path:
    """dumbbell-20 with time series every 5 ms: tables that take a while to write."""
    text = (root / "scenarios" / "dumbbell-20.toml").read_text()
    text = text.replace('duration = "20s"', 'duration = "8s"')
    text = text.replace("[metrics]\n", '[metrics]\nseries_interval = "5ms"\n', 1)
    path = tmp_path / "traced.toml"
    path.write_text(text)
    return path


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every file under `folder` (hidden ones too) with its size, inode and modification time."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_ino, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    }


def partial_folders(tmp_path: Path) -> list[Path]:
    return [p for p in tmp_path.rglob("*.partial")]


def test_ctrl_c_at_any_moment_of_a_run_leaves_its_out_folder_whole_or_as_it_was(tmp_path, root):
    scenario = traced_scenario(tmp_path, root)
    reference = tmp_path / "reference"
    command = Command("run", scenario, "--out", reference)
    status, _, stderr = command.finish(timeout=120)
    assert status == 0 and stderr == "", stderr
    tables = {p.name: p.read_bytes() for p in reference.iterdir()}
    assert {"flow_series.csv", "link_series.parquet", "summary.csv"} <= set(tables)

    def complete(out: Path) -> bool:
        names = {p.name for p in out.iterdir()} if out.is_dir() else set()
        return set(tables) <= names and all((out / n).read_bytes() == tables[n] for n in tables)

    outcomes: list[tuple[str, str]] = []

    def point(name: str, out: Path, when: Callable[[Command], None]) -> str:
        before = snapshot(out) if out.exists() else None
        command = Command("run", scenario, "--out", out)
        when(command)
        command.ctrl_c()
        status, stdout, stderr = command.finish()
        if name.startswith("start") and python_was_starting(status, stderr):
            outcomes.append((name, "python was starting"))
            return "python was starting"
        outcome = check_interrupted(status, stdout, stderr, lambda: "files to" in stdout and complete(out))
        if outcome == "interrupted" and f"the results are written to {out}" in stderr:
            assert complete(out), name  # the Ctrl-C came as the files were renamed into place
        elif outcome == "interrupted":
            # As it was: absent, or every file the same (no new, no half-replaced one).
            assert (snapshot(out) if out.exists() else None) == before, name
        assert not partial_folders(tmp_path), name
        outcomes.append((name, outcome))
        return outcome

    def after(seconds: float) -> Callable[[Command], None]:
        return lambda command: time.sleep(max(0.0, command.started + seconds - time.monotonic()))

    def writing(where: Path, then: float) -> Callable[[Command], None]:
        """Once the results are being written: their temporary folder exists."""

        def wait(command: Command) -> None:
            command.wait_until(lambda: any(where.glob(".*.partial")))
            time.sleep(then)

        return wait

    # A new folder: start-up, the run, the tables being written.
    for seconds in (0.05, 0.2, 0.5):
        point(f"start +{seconds} s", tmp_path / "new", after(seconds))
    for then in (0.0, 0.05, 0.15):
        out = tmp_path / f"new-{then}"
        point(f"writing +{then} s", out, writing(tmp_path, then))
        if out.exists():
            assert complete(out)
    assert [o for name, o in outcomes if name == "writing +0.0 s"] == ["interrupted"], outcomes
    # A folder that holds an earlier run: its tables, a file of the user's, a stale table.
    out = tmp_path / "existing"
    out.mkdir()
    for name, data in tables.items():
        (out / name).write_bytes(data)
    (out / "notes.txt").write_text("mine\n")
    (out / "sequence.csv").write_text("stale\n")
    for then in (0.0, 0.1):
        if point(f"writing into a folder +{then} s", out, writing(out, then)) == "finished":
            assert complete(out) and (out / "notes.txt").exists() and not (out / "sequence.csv").exists()
    assert sum(o == "interrupted" for _, o in outcomes) >= 5, outcomes
