"""What bench/cubic_ns3.py, bench/dctcp_ns3.py and bench/bbr_ns3.py share: building their ns-3
program with g++, running it, the line that names the versions, congsim's [[links]] blocks, the
CSV, the numbers they tabulate (formatting, Jain's index, nearest-rank percentiles) and the
agreement rule.

bench/ is not a package: the scripts put their own folder on sys.path and import this file by
name, as bench/dumbbell.py imports ns2_script and ns3_scenario.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COMMON_HEADER = ROOT / "bench" / "ns3_common.h"
NS3_MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")


def ns3_binary(source: Path, name: str, needs: str = "core-module.h") -> Path:
    """`source` built with g++ -O2 against the installed ns-3 as $CARGO_TARGET_DIR/ns3-bench/
    `name` (rebuilt when older than the source or bench/ns3_common.h). Debian's pkg-config files
    for ns-3 name an include path `/usr\\;` and libgsl, which only libgsl-dev installs: the
    headers are in /usr/include/ns3 (the compiler's own path) and the modules' libraries are
    linked by name. `needs` is a header under /usr/include/ns3 the program cannot do without."""
    binary = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "ns3-bench" / name
    newest = max(source.stat().st_mtime, COMMON_HEADER.stat().st_mtime)
    if binary.exists() and binary.stat().st_mtime >= newest:
        return binary
    if not (Path("/usr/include/ns3") / needs).exists():
        sys.exit("ns-3 is not installed: apt-get install ns3 libns3-dev")
    binary.parent.mkdir(parents=True, exist_ok=True)
    libraries = [f"-lns3-{module}" for module in NS3_MODULES]
    build = ["g++", "-O2", "-std=c++17", "-o", str(binary), str(source), *libraries]
    subprocess.run(build, check=True)
    return binary


def ns3_version() -> str:
    done = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "libns3-dev"], capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def print_versions(congsim_version: str) -> None:
    """One line: ns-3's and congsim's versions, the commit, the machine and Python."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"ns-3 {ns3_version()} (Debian libns3-dev), congsim {congsim_version} at {commit}, "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )


def run_program(command: list[str]) -> tuple[str, float]:
    """The program's standard output and its wall time (s); a failure raises."""
    started = time.monotonic()
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return out, time.monotonic() - started


def pairs(words: Sequence[str]) -> dict[str, str]:
    """`key value key value …` as a dict."""
    return dict(zip(words[::2], words[1::2], strict=True))


def toml_link(a: str, b: str, rate: str, delay: str, queue: str) -> list[str]:
    """A congsim [[links]] block (delay with its unit, queue an inline table), and a blank line."""
    return [
        "[[links]]",
        f'from = "{a}"',
        f'to = "{b}"',
        f'rate = "{rate}"',
        f'delay = "{delay}"',
        f"queue = {queue}",
        "",
    ]


def fmt(value: float | None, digits: int) -> str:
    """`digits` decimals; empty for None or NaN."""
    return "" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def jain(values: list[float]) -> float:
    squares = sum(v * v for v in values)
    return sum(values) ** 2 / (len(values) * squares) if squares > 0 else math.nan


def nearest_rank(values: list[float], fraction: float) -> float:
    """The smallest sample with at least `fraction` of the samples at or below it (as
    bench/ns3_dctcp.cc computes it)."""
    ordered = sorted(values)
    return ordered[max(math.ceil(fraction * len(ordered)), 1) - 1]


def arguments(doc: str | None, only: str, jobs: int) -> argparse.ArgumentParser:
    """The options both scripts take: --out, --only (`only` says what it selects) and --jobs
    (ns-3 runs at once, `jobs` by default)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the table as CSV here")
    parser.add_argument("--only", help=only)
    parser.add_argument("--jobs", type=int, default=jobs, help="ns-3 runs at once")
    return parser


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}")


def run_flags(
    rate_bps: float, access_rate_bps: float, access_queue: int, duration_s: float, from_s: float
) -> list[str]:
    """The options of bench/ns3_common.h's Run: the bottleneck's and every other link's rate
    (bit/s of IP packets), every other link's queue (packets), the simulated seconds and the
    start of the measurement window (s)."""
    return [
        f"--rate={rate_bps:.0f}",
        f"--accessRate={access_rate_bps:.0f}",
        f"--accessQueue={access_queue}",
        f"--duration={duration_s}",
        f"--from={from_s}",
    ]


def tcp_flags(segment: int, initial_cwnd: int, buffers: int, sack: bool, del_ack_count: int = 2) -> list[str]:
    """The options of bench/ns3_common.h's Tcp: segment (payload bytes), initial window
    (segments), send and receive buffers (bytes), SACK, delayed ACK every `del_ack_count`
    segments."""
    return [
        f"--segment={segment}",
        f"--initialCwnd={initial_cwnd}",
        f"--buffers={buffers}",
        f"--sack={str(sack).lower()}",
        f"--delAckCount={del_ack_count}",
    ]


# The agreement rule of the ns-3 cross-checks (docs/validation.md, issue #29): each flow's goodput
# within 5 % of ns-3's, the bottleneck's mean queue within 10 %; anything else is a registered
# deviation or a failure.
GOODPUT_TOLERANCE = 0.05
QUEUE_TOLERANCE = 0.10


def within(value: float, reference: float, tolerance: float) -> bool:
    """Whether `value` is within `tolerance` (a fraction) of `reference`; against a reference of 0
    only 0 is."""
    if reference == 0:
        return value == 0
    return abs(value / reference - 1) <= tolerance + 1e-12


def agreement(
    ns3_goodputs: Sequence[float],
    congsim_goodputs: Sequence[float],
    ns3_queue_mean: float,
    congsim_queue_mean: float,
) -> tuple[list[bool], bool, str]:
    """The agreement rule for one case: per flow whether congsim's goodput is within
    GOODPUT_TOLERANCE of ns-3's, whether the mean queue is within QUEUE_TOLERANCE, and a verdict,
    "pass" or "fail: " and what is off (flow i and the queue, in % of ns-3's)."""

    def off(value: float, reference: float) -> str:
        return f"{100 * (value / reference - 1):+.1f} %" if reference else f"{value:g} against 0"

    flows = [within(c, n, GOODPUT_TOLERANCE) for n, c in zip(ns3_goodputs, congsim_goodputs, strict=True)]
    queue = within(congsim_queue_mean, ns3_queue_mean, QUEUE_TOLERANCE)
    failures = [
        f"flow {i} {off(c, n)}"
        for i, (ok, n, c) in enumerate(zip(flows, ns3_goodputs, congsim_goodputs, strict=True))
        if not ok
    ]
    if not queue:
        failures.append(f"queue {off(congsim_queue_mean, ns3_queue_mean)}")
    return flows, queue, "pass" if not failures else "fail: " + ", ".join(failures)
