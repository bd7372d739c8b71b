"""The dumbbell-buffers study in ns-2.35 with its own replications: the ns-2 column of the
study's comparison (python/congsim/studies/data/dumbbell-buffers-ns2.csv).

The study's reference (dumbbell-buffers.csv, bench/ns2_reference.py) is one deterministic ns-2
run per configuration, every flow starting at 0. This runs the very network the study runs
(scenarios' dumbbell-20 through bench/ns2_script.py, Reno and Tahoe, bottleneck buffers 25-400
packets) as many times as the study replicates it (5), each replication starting flow i at a
time drawn from U(0, 10 ms) with its own seed (the study's `simulation.start_jitter`), and
writes the mean and 95 % CI of the total throughput and of the timeouts. Needs ns-2
(`apt-get install ns2`).

    python bench/dumbbell_ns2.py [--replications 5]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import ns2_data  # noqa: E402
from ns2_script import ns2_script_from_document, seconds  # noqa: E402

SCENARIO = ROOT / "python" / "congsim" / "studies" / "data" / "dumbbell-20.toml"
VARIANTS = ["tahoe", "reno"]
BUFFERS = [25, 50, 100, 200, 400]
JITTER_S = 0.010


def run(variant: str, buffer: int, seed: int) -> dict[str, float]:
    doc = tomllib.loads(SCENARIO.read_text())
    doc["tcp"]["variant"] = variant
    doc["links"][0]["queue"]["limit_packets"] = buffer
    starts = random.Random(seed)
    for flow in doc["flows"]:
        flow["start"] = f"{starts.uniform(0, JITTER_S):.9f}s"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run.tcl"
        script.write_text(ns2_script_from_document(doc))
        done = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True)
    counts = dict(line.split() for line in done.stdout.splitlines() if line.split()[:1])
    duration = seconds(doc["simulation"]["duration"])
    return {
        "total_throughput_mbps": int(counts["total_bytes"]) * 8 / duration / 1e6,
        "timeouts": float(counts["timeouts"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=5, help="ns-2 runs per configuration")
    args = parser.parse_args()
    started = time.perf_counter()
    runs = {
        (variant, str(buffer)): [run(variant, buffer, seed) for seed in range(1, args.replications + 1)]
        for variant in VARIANTS
        for buffer in BUFFERS
    }
    note = (
        f"{args.replications} runs per configuration (seeds 1-{args.replications}: flow starts "
        "U(0, 10 ms)), dumbbell-20 via bench/ns2_script.py (ns2_2000 switches), 20 s"
    )

    def configuration(row: Mapping[str, str]) -> tuple[str, str]:
        return row["tcp.variant"], row["links[0].queue.limit_packets"]

    path = ns2_data.write("dumbbell-buffers", runs, configuration, ns2_data.command_line(), note)
    print(f"{path} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
