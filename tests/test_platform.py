"""The sweep platform under real use, with real processes: Ctrl-C, a killed coordinator, a Dask
cluster reached by its address."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

#: Runs long enough (about 0.5 s each) that a signal always lands while some are in progress.
SLOW_PLAN = """
name = "slow"
scenario = "{scenario}"
replications = 40
[set]
"simulation.duration" = "100s"
"simulation.start_jitter" = "200ms"
"""


def slow_plan(tmp_path: Path, root: Path) -> Path:
    plan = tmp_path / "slow.toml"
    plan.write_text(SLOW_PLAN.format(scenario=root / "scenarios" / "dumbbell-20.toml"))
    return plan


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


def alive(pids: list[int]) -> list[int]:
    """The processes of `pids` that still run (a zombie has ended)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running


def wait_for_runs(store: Path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while len(list((store / "runs").glob("*.parquet"))) < count:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        if time.monotonic() > deadline:
            process.kill()
            process.communicate()
            pytest.fail("the sweep made no progress")
        time.sleep(0.05)


def finish(process: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """`process.communicate(timeout=...)`, but a process still running then is killed (its
    workers end with it): a hang fails the test at once and leaves nothing to slow the next."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"still running {timeout} s after Ctrl-C")


def start(*args: str | Path) -> subprocess.Popen[str]:
    from test_interrupts import ctrl_c_as_in_a_terminal

    command = [sys.executable, "-m", "congsim", *map(str, args)]
    with ctrl_c_as_in_a_terminal():
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("workers", ["2", "1"])
def test_ctrl_c_stops_a_sweep_within_two_seconds_keeping_every_finished_run(tmp_path, root, workers):
    store = tmp_path / "store"
    process = start("sweep", slow_plan(tmp_path, root), "--out", store, "--workers", workers)
    wait_for_runs(store, 2, process)
    workers_before = children(process.pid)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = finish(process, timeout=10)
    assert time.monotonic() - sent < 2.0, "Ctrl-C must stop the sweep within 2 s"
    assert process.returncode == 130
    assert stderr.startswith("interrupted: ") and stderr.count("\n") == 1, stderr
    assert "the same command resumes the sweep" in stderr
    deadline = time.monotonic() + 2
    while alive(workers_before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(workers_before), "worker processes outlived the interrupted sweep"
    stored = sorted((store / "runs").glob("*.parquet"))
    assert 2 <= len(stored) < 40 and not list((store / "runs").glob("*.tmp"))
    for path in stored:  # every stored run is complete
        assert len(pd.read_parquet(path)) > 0
    assert f"{len(stored)} of 40 runs are stored" in stderr


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads process states from /proc")
def test_a_killed_coordinator_leaves_no_worker_behind(tmp_path, root):
    store = tmp_path / "store"
    process = start("sweep", slow_plan(tmp_path, root), "--out", store, "--workers", "2")
    wait_for_runs(store, 1, process)
    workers = children(process.pid)
    assert workers, "the sweep runs in worker processes"
    process.kill()
    process.communicate()
    deadline = time.monotonic() + 5
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(workers), "workers must end when their coordinator dies"


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads process states from /proc")
def test_ctrl_c_stops_a_study_reproduction(tmp_path):
    out = tmp_path / "reproductions"
    process = start("reproduce", "goyal1996", "--out", out, "--workers", "2")
    wait_for_runs(out / "goyal1996", 2, process)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = finish(process, timeout=10)
    assert time.monotonic() - sent < 2.0
    assert process.returncode == 130 and stderr.startswith("interrupted: "), stderr
    assert stderr.count("\n") == 1, stderr


@pytest.fixture
def dask_cluster(tmp_path):
    """A real scheduler and two single-threaded worker processes on localhost, started the
    way a cluster's nodes start them (the `dask` command), not from this process."""
    pytest.importorskip("distributed")
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        pytest.skip("the dask command is not installed")
    address_file = tmp_path / "scheduler.json"
    common = ["--no-dashboard"]
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", address_file, *common],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = subprocess.Popen(
            [dask, "worker", "--scheduler-file", address_file, "--nworkers", "2", "--nthreads", "1", *common],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import json

        address = json.loads(address_file.read_text())["address"]
        yield address
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def test_a_sweep_through_a_dask_scheduler_address_matches_local_processes_byte_for_byte(
    tmp_path, root, dask_cluster
):
    from test_sweep import write_plan

    plan = write_plan(tmp_path, root)
    local, remote = tmp_path / "local", tmp_path / "dask"
    done = subprocess.run(
        [sys.executable, "-m", "congsim", "sweep", plan, "--out", local, "--workers", "2"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    through_dask = ["--executor", "dask", "--scheduler", dask_cluster]
    done = subprocess.run(
        [sys.executable, "-m", "congsim", "sweep", plan, "--out", remote, *through_dask],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "12 runs (12 run now, 0 already stored)" in done.stdout
    files = sorted(p.relative_to(local) for p in local.rglob("*.parquet"))
    assert len(files) == 13
    assert files == sorted(p.relative_to(remote) for p in remote.rglob("*.parquet"))
    for name in files:
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name
    # The Python API takes the address too, in a process with no Dask client of its own.
    code = (
        "import sys; from congsim.sweep import load_plan, run_sweep; "
        f"o = run_sweep(load_plan({str(plan)!r}), {str(tmp_path / 'api')!r}, scheduler={dask_cluster!r}); "
        "sys.exit(1 if o.failures or o.executed != 12 else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "api" / "results.parquet").read_bytes() == (local / "results.parquet").read_bytes()
