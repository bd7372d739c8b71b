"""Compares two builds of congsim-native on one scenario, for speed work.

    python bench/compare_builds.py OLD NEW [--repeat 30] [--scenario scenarios/dumbbell-20.toml]
                                   [--cachegrind]

Runs the two binaries alternately (so that a noisy neighbour on a shared machine slows both
alike) and prints the minimum, first quartile and median wall time of each and the ratios. A
single timing on a virtual machine can be 10-30 % off; interleaved quartiles are steadier.
With --cachegrind it also counts each build's instructions and simulated L1 data-cache misses
(valgrind --tool=cachegrind, 32 KB L1): deterministic figures that show whether a change saved
work or memory traffic even when the wall time cannot tell. Both builds must write the same
tables, which is checked.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed_run(binary: Path, scenario: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(binary), "run", str(scenario), "--quiet", "--out", str(out)], check=True, capture_output=True
    )
    return time.perf_counter() - start


def cache_counts(binary: Path, scenario: Path, out: Path) -> dict[str, int]:
    """Instructions (`I refs`), L1 data misses (`D1 misses`) and last-level data misses
    (`LLd misses`) of one run, by cachegrind with fixed caches (32 KB 8-way L1s, 2 MB 16-way
    last level), so that figures compare across machines."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        "--I1=32768,8,64",
        "--D1=32768,8,64",
        "--LL=2097152,16,64",
        "--cachegrind-out-file=/dev/null",
        str(binary),
        "run",
        str(scenario),
        "--quiet",
        "--out",
        str(out),
    ]
    report = subprocess.run(command, check=True, capture_output=True, text=True).stderr

    def count(label: str) -> int:
        pattern = r"\s+".join(label.split()) + r":\s+([\d,]+)"
        match = re.search(pattern, report)
        if match is None:
            raise RuntimeError(f"cachegrind printed no '{label}' line")
        return int(match.group(1).replace(",", ""))

    return {label: count(label) for label in ("I refs", "D1 misses", "LLd misses")}


def cachegrind(binary: Path, scenario: Path, out: Path) -> tuple[int, int]:
    """Instructions and L1 data misses (reads and writes) of one run."""
    counts = cache_counts(binary, scenario, out)
    return counts["I refs"], counts["D1 misses"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--scenario", type=Path, default=ROOT / "scenarios" / "dumbbell-20.toml")
    parser.add_argument("--cachegrind", action="store_true")
    args = parser.parse_args()

    builds = {"old": args.old, "new": args.new}
    times: dict[str, list[float]] = {name: [] for name in builds}
    with tempfile.TemporaryDirectory() as tmp:
        outs = {name: Path(tmp, name) for name in builds}
        for _ in range(args.repeat):
            for name, binary in builds.items():
                times[name].append(timed_run(binary, args.scenario, outs[name]))
        differing = filecmp.dircmp(outs["old"], outs["new"]).diff_files
        if differing:
            raise SystemExit(f"the builds write different tables: {', '.join(sorted(differing))}")
        for name in builds:
            ts = sorted(times[name])
            quartile, median = ts[len(ts) // 4], statistics.median(ts)
            print(f"{name}  min {ts[0]:.4f} s  q25 {quartile:.4f} s  median {median:.4f} s")
        old, new = sorted(times["old"]), sorted(times["new"])
        print(
            f"new/old  min {new[0] / old[0]:.3f}  q25 {new[len(new) // 4] / old[len(old) // 4]:.3f}  "
            f"median {statistics.median(new) / statistics.median(old):.3f}"
        )
        if args.cachegrind:
            if shutil.which("valgrind") is None:
                raise SystemExit("--cachegrind needs valgrind (apt-get install valgrind)")
            counts = {name: cachegrind(binary, args.scenario, outs[name]) for name, binary in builds.items()}
            for name, (instructions, misses) in counts.items():
                print(
                    f"{name}  {instructions / 1e6:8.1f} M instructions  {misses / 1e6:6.2f} M L1 data misses"
                )


if __name__ == "__main__":
    main()
