"""Benchmark: what `congsim reproduce STUDY` costs beyond its simulations.

Runs `congsim reproduce STUDY` twice into a fresh folder: first computing every run, then
again on the stored runs (what a user re-running a study, or building its report, pays: the
statistics and the traced runs). Prints wall time and CPU share (user + system time of the
command and its workers over wall time; 200 % is two busy cores) of both.

    python bench/reproduce_cost.py [--study koga2000] [--workers 2] [--python PYTHON]

`--python` picks the interpreter whose congsim is measured, so that two installations (say a
worktree of an older commit with its own venv) can be compared on the same machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU share of `command` with its children."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu / wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--study", default="koga2000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        command = [args.python, "-m", "congsim", "reproduce", args.study, "--out", tmp]
        command += ["--workers", str(args.workers)]
        first = timed(command)
        again = timed(command)
    print(f"congsim reproduce {args.study}, {args.workers} workers ({args.python})")
    print(f"every run computed   {first[0]:7.2f} s wall  {first[1] * 100:5.0f} % CPU")
    print(f"runs already stored  {again[0]:7.2f} s wall  {again[1] * 100:5.0f} % CPU")


if __name__ == "__main__":
    main()
