"""Benchmark: the cost of the sweep machinery.

Runs a plan of 64 short runs back to back in this process (the runs alone), and as a sweep on
N worker processes (default 2), each `--repeat` times (best time kept, as for the other
benchmarks). Prints both and the ratio of the sweep's wall time to the ideal, back-to-back
time divided by N. The target is at most 1.15.

    python bench/sweep_overhead.py [--workers N] [--duration 20s] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import congsim
from congsim.sweep import load_plan, run_sweep
from congsim.sweep.runner import execute, tasks

ROOT = Path(__file__).resolve().parent.parent

PLAN = """
name = "overhead"
scenario = "{scenario}"
replications = 8
[set]
"simulation.duration" = "{duration}"
"simulation.start_jitter" = "100ms"
[axes]
"tcp.variant" = ["tahoe", "reno"]
"links[0].queue.limit_packets" = [25, 50, 100, 200]
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", default="20s")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plan_path = Path(tmp) / "overhead.toml"
        scenario = ROOT / "scenarios" / "dumbbell-20.toml"
        plan_path.write_text(PLAN.format(scenario=scenario, duration=args.duration))
        plan = load_plan(plan_path)
        runs = plan.runs()
        work = tasks(plan, runs)
        back_to_back = sweep = float("inf")
        for attempt in range(args.repeat):
            start = time.perf_counter()
            for task in work:
                execute(task)
            back_to_back = min(back_to_back, time.perf_counter() - start)
            start = time.perf_counter()
            outcome = run_sweep(plan, Path(tmp) / f"store-{attempt}", workers=args.workers)
            sweep = min(sweep, time.perf_counter() - start)
    if outcome.failures:
        sys.exit(f"{len(outcome.failures)} runs failed")
    ideal = back_to_back / args.workers
    print(f"congsim {congsim.__version__}: {len(runs)} runs of {args.duration} (dumbbell-20)")
    print(f"back to back      {back_to_back:8.2f} s  ({back_to_back / len(runs) * 1000:.0f} ms per run)")
    print(f"sweep, {args.workers} workers  {sweep:8.2f} s")
    print(f"ratio to ideal    {sweep / ideal:8.3f}   (target <= 1.15)")


if __name__ == "__main__":
    main()
