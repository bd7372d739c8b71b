"""Benchmark: how congsim's cost grows with flows and link rate, beside ns-2 (issue 18).

    python bench/scale.py [--rows 20,200,2000] [--ns2-timeout 300] [--binary PATH]

Runs the benchmark dumbbell (`bench/make_dumbbell.py`: ns-2 Reno flows, 500-byte packets, a
200-packet bottleneck queue per 100 Mbps of rate) at several sizes and rates in
`congsim-native` (built here as a plain release unless `--binary` names one) and, when it is
installed, in ns-2 with the same topology (`bench/ns2_script.py`). Each program runs once per
row, timed as a whole process by `/usr/bin/time` (wall seconds and peak resident memory), so the
figures include set-up. Prints, per row and program: wall time, peak RSS, and nanoseconds per
data packet delivered (the receivers' in-order payload over 500 bytes), and the ratio.

Rows (`--rows` picks them by label): dumbbells of 20, 200, 2 000 and 10 000 flows at 100 Mbps
for 10 s; 200 flows at 1 Gbps for 5 s; 2 000 flows at 10 Gbps for 2 s.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_dumbbell import dumbbell_toml  # noqa: E402
from ns2_script import ns2_script  # noqa: E402

PAYLOAD_BYTES = 500


@dataclass(frozen=True)
class Row:
    label: str
    flows: int
    rate_mbps: int
    duration_s: int


ROWS = [
    Row("20", 20, 100, 10),
    Row("200", 200, 100, 10),
    Row("2000", 2000, 100, 10),
    Row("10000", 10000, 100, 10),
    Row("200@1G", 200, 1000, 5),
    Row("2000@10G", 2000, 10000, 2),
]


def scenario_text(row: Row) -> str:
    """The dumbbell of `row`: every link at its rate, the bottleneck queue scaled with it."""
    text = dumbbell_toml(row.flows)
    text = text.replace('rate = "100Mbps"', f'rate = "{row.rate_mbps}Mbps"')
    text = text.replace('efficiency_max_rate = "100Mbps"', f'efficiency_max_rate = "{row.rate_mbps}Mbps"')
    text = text.replace('duration = "20s"', f'duration = "{row.duration_s}s"')
    limit = 200 * row.rate_mbps // 100
    return text.replace("queue = { limit_packets = 200 }", f"queue = {{ limit_packets = {limit} }}")


@dataclass(frozen=True)
class Timed:
    wall_s: float
    peak_mib: float
    returncode: int
    stdout: str
    stderr: str


def timed(command: list[str], timeout_s: float | None = None) -> Timed | None:
    """Runs `command` under /usr/bin/time; None if it ran past `timeout_s`."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        # A session of its own, so that a run given up is ended with the program it timed.
        process = subprocess.Popen(
            ["/usr/bin/time", "-f", "%e %M", "-o", report.name, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return None
        wall, peak_kib = report.read().split()[-2:]
    return Timed(float(wall), int(peak_kib) / 1024, process.returncode, stdout, stderr)


def native_binary() -> Path:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "congsim-cli"], cwd=ROOT, check=True)
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "congsim-native"


def delivered_packets(out: Path) -> int:
    with (out / "flows.csv").open() as f:
        return sum(int(row["bytes_delivered"]) for row in csv.DictReader(f)) // PAYLOAD_BYTES


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", default=",".join(r.label for r in ROWS))
    parser.add_argument(
        "--ns2-timeout", type=float, default=300.0, help="seconds before an ns-2 run is given up"
    )
    parser.add_argument("--binary", type=Path, help="a congsim-native to time instead of building one")
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        sys.exit("needs /usr/bin/time (Debian: apt-get install time)")
    binary = args.binary or native_binary()
    ns = shutil.which("ns")
    wanted = args.rows.split(",")
    header = f"{'row':<10}{'program':<9}{'wall s':>9}{'peak MiB':>10}{'ns/packet':>11}{'ratio':>8}"
    print(header)
    for row in (r for r in ROWS if r.label in wanted):
        with tempfile.TemporaryDirectory() as tmp:
            scenario = Path(tmp, "scenario.toml")
            scenario.write_text(scenario_text(row))
            out = Path(tmp, "out")
            ours = timed([str(binary), "run", str(scenario), "--quiet", "--out", str(out)])
            assert ours is not None
            if ours.returncode != 0:
                reason = (ours.stderr.strip().splitlines() or ["failed"])[-1]
                print(f"{row.label:<10}{'congsim':<9}  refused: {reason}")
                continue
            packets = delivered_packets(out)
            per_packet = ours.wall_s * 1e9 / packets
            print(f"{row.label:<10}{'congsim':<9}{ours.wall_s:9.2f}{ours.peak_mib:10.1f}{per_packet:11.0f}")
            if ns is None:
                print(f"{row.label:<10}{'ns-2':<9}  not installed (apt-get install ns2)")
                continue
            script = Path(tmp, "scenario.tcl")
            script.write_text(ns2_script(scenario))
            theirs = timed([ns, str(script)], args.ns2_timeout)
            if theirs is None:
                print(f"{row.label:<10}{'ns-2':<9}  over {args.ns2_timeout:g} s: given up")
                continue
            total = re.search(r"total_bytes (\d+)", theirs.stdout)
            ns_packets = int(total.group(1)) // PAYLOAD_BYTES if total else packets
            ns_per_packet = theirs.wall_s * 1e9 / max(ns_packets, 1)
            ratio = theirs.wall_s / max(ours.wall_s, 1e-9)
            print(
                f"{row.label:<10}{'ns-2':<9}{theirs.wall_s:9.2f}{theirs.peak_mib:10.1f}"
                f"{ns_per_packet:11.0f}{ratio:7.1f}x"
            )


if __name__ == "__main__":
    main()
