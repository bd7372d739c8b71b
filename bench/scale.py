"""Benchmark: how congsim's cost grows with flows, link rate and fabric, beside ns-2 and htsim
(issue 18).

    python bench/scale.py [--rows 20,200,...] [--htsim CHECKOUT] [--peer-timeout 300]
                          [--binary PATH] [--csv PATH] [--repeat N]

Rows (`--rows` picks them by label):
- `20`, `200`, `2000`, `10000`: the benchmark dumbbell (`bench/make_dumbbell.py`: ns-2 Reno
  flows, 500-byte packets, a 200-packet bottleneck queue per 100 Mbps of rate) at 100 Mbps for
  10 s; `200@1G` at 1 Gbps for 5 s; `2000@10G` at 10 Gbps for 2 s.
- `100000`, `1000000` (issue 32): the same dumbbell at 100 Mbps for 10 s with 100 000 and
  1 000 000 flows, written as a `[topology] kind = "dumbbell"` that congsim generates (the same
  network as make_dumbbell's lists, whose 1 000 000-flow file would be 220 MB of TOML), run
  with `CONGSIM_LIMITS=nodes=4e6,links=4e6` (2 000 002 nodes, 2 000 001 link entries: above the
  defaults, which keep validation within 4 GiB of address space). ns-2 does not run them; htsim
  does. The target: 1 000 000 flows of 10 s in under 60 s and 4 GiB.
- `ft8-stride`: a k = 8 fat tree (128 hosts, 80 switches, ECMP) at 1 Gbps with 5 us links and
  100-packet queues, host i sending to host i + 64, for 1 s; `ft8-all`: every ordered pair of
  hosts (16 256 flows) for 0.1 s. TCP as htsim's: NewReno, 1500-byte packets, an initial window
  of 10, no delayed ACKs, a 250 ms RTO floor, starts spread over the first millisecond.
- `200-codel`, `200-fq_codel`, `200-pie`, `200-fq_pie` (issue 30): the `200` dumbbell with
  CoDel, FQ-CoDel, PIE or FQ-PIE (their defaults: RFC 8289/8290/8033 and Linux) at the
  bottleneck, both directions, against the `200` row's DropTail: the cost of the discipline per
  packet (no peer: ns-2.35 and htsim have none of them).
- `ft8-dctcp`: `ft8-stride` with DCTCP (issue 29): every 100-packet queue marks CE at K = 20
  packets on the instantaneous queue (the DCTCP paper's K at 1 Gbps; in congsim a RED with
  min_th = max_th = K, w_q = 1 and marking above max_th) and every sender runs DCTCP, with the
  same NewReno recovery as htsim's DCTCPSrc (a TcpSrc) and no delayed ACKs, its receiver echoing
  each packet's CE as htsim's TcpSink does. htsim runs its DCTCPSrc over its ECNQueue. The
  two mark alike but not equally: congsim on arrival at K or more packets queued, dropping
  packets that are not ECN-capable (ACKs, retransmissions) there as RED's forced drop; htsim
  on departure above K packets queued, marking ACKs too. congsim's flows so lose ACKs at the
  step and time out more, delivering about 12 % fewer packets.

Each program runs once per row, timed as a whole process by `/usr/bin/time` (wall seconds and
peak resident memory), so the figures include set-up: `congsim-native` (built here as a plain
release unless `--binary` names one); ns-2 from Debian when installed (`bench/ns2_script.py`;
dumbbells only: ns-2 has no per-flow ECMP); htsim when `--htsim` names a checkout of
Broadcom/csg-htsim (the script builds its `sim/libhtsim.a` and `bench/htsim_peer.cpp`, which
builds the same shapes from htsim's queues, pipes and TCP). Prints, per row and program: wall
time, peak RSS, nanoseconds per data packet delivered (in-order payload over the packet size),
and the ratio of the peer's wall time to congsim's. The TCPs differ between programs (ns-2 Reno
of 2000; htsim's NewReno), so a row's programs deliver similar, not equal, numbers of packets:
compare ns per packet as well as wall time. With `--cachegrind`, congsim also runs under
valgrind's cachegrind (32 KB L1s, a 2 MB last level: `bench/compare_builds.py`) and prints
instructions, L1 data misses and last-level data misses per delivered packet. With `--csv PATH`,
the timed lines are also written to PATH (row, program, wall s, peak MiB, packets, ns per
packet, peer's time over congsim's; with `--repeat N` every row runs in each of N passes, one
after another, and the CSV has per row and program the median wall time and peak memory, with
ns per packet and the ratio from the median): bench/results/scale_dctcp.csv is `--rows ft8-dctcp` so written,
bench/results/scale_aqm.csv `--rows 200,200-codel,200-fq_codel,200-pie,200-fq_pie` (as the
median of several runs: docs/performance.md).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from compare_builds import cache_counts  # noqa: E402
from make_dumbbell import dumbbell_toml  # noqa: E402
from ns2_script import ns2_script  # noqa: E402


@dataclass(frozen=True)
class Row:
    label: str
    shape: str  # "dumbbell" or "fat_tree"
    size: int  # flows of a dumbbell, k of a fat tree
    rate_mbps: int
    duration_s: float
    traffic: str = ""  # a fat tree's: "stride" or "all_to_all"
    dctcp_k: int = 0  # 0: NewReno over DropTail; else DCTCP, every queue marking at K packets
    queue_kind: str = ""  # a dumbbell's bottleneck discipline other than DropTail, with its defaults
    generated: bool = False  # a dumbbell written as a [topology] for congsim to generate

    @property
    def packet_bytes(self) -> int:
        return 500 if self.shape == "dumbbell" else 1500

    @property
    def queue_packets(self) -> int:
        return 200 * self.rate_mbps // 100 if self.shape == "dumbbell" else 100


ROWS = [
    Row("20", "dumbbell", 20, 100, 10),
    Row("200", "dumbbell", 200, 100, 10),
    Row("2000", "dumbbell", 2000, 100, 10),
    Row("10000", "dumbbell", 10000, 100, 10),
    Row("100000", "dumbbell", 100_000, 100, 10, generated=True),
    Row("1000000", "dumbbell", 1_000_000, 100, 10, generated=True),
    Row("200@1G", "dumbbell", 200, 1000, 5),
    Row("2000@10G", "dumbbell", 2000, 10000, 2),
    Row("ft8-stride", "fat_tree", 8, 1000, 1, "stride"),
    Row("ft8-all", "fat_tree", 8, 1000, 0.1, "all_to_all"),
    Row("ft8-dctcp", "fat_tree", 8, 1000, 1, "stride", dctcp_k=20),
    Row("200-codel", "dumbbell", 200, 100, 10, queue_kind="codel"),
    Row("200-fq_codel", "dumbbell", 200, 100, 10, queue_kind="fq_codel"),
    Row("200-pie", "dumbbell", 200, 100, 10, queue_kind="pie"),
    Row("200-fq_pie", "dumbbell", 200, 100, 10, queue_kind="fq_pie"),
]

FAT_TREE_LINK_DELAY_US = 5


# Above the default node and link limits (a generated row's 2N + 2 nodes and 2N + 1 links); a
# CONGSIM_LIMITS of the caller's own comes after, so it still decides.
GENERATED_LIMITS = "nodes=4e6,links=4e6"


def congsim_environment(row: Row) -> dict[str, str] | None:
    """The environment of congsim's run of `row`: this one, with the limits a generated row needs."""
    if not row.generated:
        return None
    own = os.environ.get("CONGSIM_LIMITS", "")
    return {**os.environ, "CONGSIM_LIMITS": ",".join(filter(None, [GENERATED_LIMITS, own]))}


def generated_dumbbell_text(row: Row) -> str:
    """The benchmark dumbbell of `row` as a `[topology]`: what `dumbbell_toml` writes out node by
    node and link by link (sender i's access delay 3 + 4(i-1)/(n-1) ms to the nanosecond, 5 ms
    receiver links, the bottleneck both ways with the row's DropTail queue), for congsim to
    generate."""
    return f"""name = "dumbbell-{row.size}"
description = "{row.size} persistent ns-2 Reno flows, generated"

[simulation]
duration = "{row.duration_s:g}s"
seed = 1

[topology]
kind = "dumbbell"
pairs = {row.size}
access_rate = "{row.rate_mbps}Mbps"
access_delay = "3ms"
access_delay_max = "7ms"
receiver_delay = "5ms"
bottleneck_rate = "{row.rate_mbps}Mbps"
bottleneck_delay = "5ms"
bottleneck_queue = {{ limit_packets = {row.queue_packets} }}

[tcp]
profile = "ns2_2000"
variant = "reno"
packet_size = "{row.packet_bytes}B"
window = 10000

[metrics]
efficiency_max_rate = "{row.rate_mbps}Mbps"
"""


def scenario_text(row: Row) -> str:
    """The scenario of `row`: a dumbbell with every link at its rate and the bottleneck queue
    scaled with it, or a fat tree with TCP set as htsim's (DCTCP over step marking when the row
    has a K)."""
    if row.generated:
        return generated_dumbbell_text(row)
    if row.shape == "fat_tree":
        queue = f"{{ limit_packets = {row.queue_packets} }}"
        congestion = ""
        if row.dctcp_k:
            k = row.dctcp_k
            queue = (
                f'{{ kind = "red", limit_packets = {row.queue_packets}, min_th = {k}, max_th = {k}, '
                "w_q = 1.0, ecn_marking = true, mark_above_max_th = true, ns2_quirks = false }"
            )
            congestion = 'congestion_control = "dctcp"\n'
        return f"""name = "fat-tree-k{row.size}-{row.traffic}{"-dctcp" if row.dctcp_k else ""}"
[simulation]
duration = "{row.duration_s}s"
start_jitter = "1ms"
[topology]
kind = "fat_tree"
k = {row.size}
rate = "{row.rate_mbps}Mbps"
delay = "{FAT_TREE_LINK_DELAY_US}us"
queue = {queue}
traffic = "{row.traffic}"
[tcp]
profile = "rfc"
variant = "newreno"
{congestion}packet_size = "{row.packet_bytes}B"
header_bytes = 0
initial_window = 10
delayed_ack = "off"
min_rto = "250ms"
"""
    text = dumbbell_toml(row.size)
    text = text.replace('rate = "100Mbps"', f'rate = "{row.rate_mbps}Mbps"')
    text = text.replace('efficiency_max_rate = "100Mbps"', f'efficiency_max_rate = "{row.rate_mbps}Mbps"')
    text = text.replace('duration = "20s"', f'duration = "{row.duration_s:g}s"')
    queue = f"{{ limit_packets = {row.queue_packets} }}"
    if row.queue_kind:
        queue = f'{{ kind = "{row.queue_kind}" }}'
    return text.replace("queue = { limit_packets = 200 }", f"queue = {queue}")


@dataclass(frozen=True)
class Timed:
    wall_s: float
    peak_mib: float
    returncode: int
    stdout: str
    stderr: str


def timed(
    command: list[str], timeout_s: float | None = None, env: dict[str, str] | None = None
) -> Timed | None:
    """Runs `command` under /usr/bin/time (in `env`, when given); None if it ran past `timeout_s`."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        # A session of its own, so that a run given up is ended with the program it timed.
        process = subprocess.Popen(
            ["/usr/bin/time", "-f", "%e %M", "-o", report.name, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            env=env,
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


def delivered_packets(out: Path, packet_bytes: int) -> int:
    with (out / "flows.csv").open() as f:
        return sum(int(row["bytes_delivered"]) for row in csv.DictReader(f)) // packet_bytes


def cache_misses(binary: Path, scenario: Path, out: Path, packet_bytes: int) -> str:
    """congsim's instructions and data-cache misses per delivered packet (`compare_builds`)."""
    counts = cache_counts(binary, scenario, out)
    packets = max(delivered_packets(out, packet_bytes), 1)
    return (
        f"instructions/packet {counts['I refs'] / packets:.0f}, "
        f"D1 misses/packet {counts['D1 misses'] / packets:.1f}, "
        f"LL data misses/packet {counts['LLd misses'] / packets:.2f}"
    )


def htsim_peer(checkout: Path, build_dir: Path) -> Path:
    """Builds htsim's library in `checkout` (when it is not built yet) and our driver against it."""
    sim = checkout / "sim"
    if not (sim / "libhtsim.a").exists():
        subprocess.run(["make", "-C", str(sim), "-j2", "libhtsim.a"], check=True, capture_output=True)
    peer = build_dir / "htsim_peer"
    subprocess.run(
        [
            "g++",
            "-O3",
            "-std=c++14",
            f"-I{sim}",
            str(ROOT / "bench" / "htsim_peer.cpp"),
            str(sim / "libhtsim.a"),
            "-o",
            str(peer),
        ],
        check=True,
    )
    return peer


def htsim_command(peer: Path, row: Row) -> list[str]:
    common = [
        str(row.size),
        str(row.rate_mbps),
        f"{row.duration_s:g}",
        str(row.queue_packets),
        str(row.packet_bytes),
    ]
    if row.shape == "dumbbell":
        return [str(peer), "dumbbell", *common]
    marking = ["dctcp", str(row.dctcp_k)] if row.dctcp_k else []
    return [str(peer), "fat_tree", *common, str(FAT_TREE_LINK_DELAY_US), row.traffic, *marking]


CSV_HEADER = ["row", "program", "wall_s", "peak_mib", "packets", "ns_per_packet", "ratio"]


def line(
    label: str, program: str, run: Timed, packets: int, ours: Timed | None, results: list[list[str]]
) -> str:
    """The printed line of one timed run; its fields are also appended to `results`."""
    per_packet = run.wall_s * 1e9 / max(packets, 1)
    text = f"{label:<11}{program:<9}{run.wall_s:9.2f}{run.peak_mib:10.1f}{packets:12d}{per_packet:11.0f}"
    ratio = ""
    if ours is not None:
        ratio = f"{run.wall_s / max(ours.wall_s, 1e-9):.2f}"
        text += f"{run.wall_s / max(ours.wall_s, 1e-9):7.1f}x"
    results.append(
        [label, program, f"{run.wall_s:.2f}", f"{run.peak_mib:.1f}", str(packets), f"{per_packet:.0f}", ratio]
    )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", default=",".join(r.label for r in ROWS))
    parser.add_argument(
        "--peer-timeout", type=float, default=300.0, help="seconds before an ns-2 or htsim run is given up"
    )
    parser.add_argument(
        "--htsim", type=Path, help="a checkout of github.com/Broadcom/csg-htsim to build and run"
    )
    parser.add_argument("--binary", type=Path, help="a congsim-native to time instead of building one")
    parser.add_argument("--csv", type=Path, help="also write the timed lines to this CSV file")
    parser.add_argument(
        "--cachegrind", action="store_true", help="also count congsim's cache misses per packet (valgrind)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the rows this many times, one pass after another; the CSV then has the medians",
    )
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        sys.exit("needs /usr/bin/time (Debian: apt-get install time)")
    wanted = args.rows.split(",")
    unknown = [w for w in wanted if w not in {r.label for r in ROWS}]
    if unknown:
        sys.exit(f"unknown rows {unknown}; rows are {[r.label for r in ROWS]}")
    binary = args.binary or native_binary()
    ns = shutil.which("ns")
    passes: list[list[list[str]]] = []
    with tempfile.TemporaryDirectory() as build:
        peer = htsim_peer(args.htsim, Path(build)) if args.htsim else None
        head = f"{'row':<11}{'program':<9}{'wall s':>9}{'peak MiB':>10}"
        for number in range(max(args.repeat, 1)):
            if args.repeat > 1:
                print(f"pass {number + 1} of {args.repeat}")
            print(f"{head}{'packets':>12}{'ns/packet':>11}{'ratio':>8}")
            results: list[list[str]] = []
            for row in (r for r in ROWS if r.label in wanted):
                run_row(row, binary, ns, peer, args.peer_timeout, args.cachegrind, results)
            passes.append(results)
    results = passes[0] if len(passes) == 1 else medians(passes)
    if len(passes) > 1:
        print(f"medians of {len(passes)} passes")
        print(f"{head}{'packets':>12}{'ns/packet':>11}{'ratio':>8}")
        for label, program, wall, peak, packets, per_packet, ratio in results:
            times = f"{float(ratio):7.1f}x" if ratio else ""
            print(
                f"{label:<11}{program:<9}{float(wall):9.2f}{float(peak):10.1f}{int(packets):12d}{int(per_packet):11d}{times}"
            )
    if args.csv is not None:
        with args.csv.open("w", newline="") as f:
            csv.writer(f).writerows([CSV_HEADER, *results])


def medians(passes: list[list[list[str]]]) -> list[list[str]]:
    """Per row and program, the median wall time and peak memory over the passes (CSV_HEADER's
    fields), ns per packet and the peer's ratio recomputed from the median wall times. Every
    program delivers the same packets in each pass (all three are deterministic)."""
    keyed: dict[tuple[str, str], list[list[str]]] = {}
    for results in passes:
        for fields in results:
            keyed.setdefault((fields[0], fields[1]), []).append(fields)
    walls = {key: statistics.median(float(f[2]) for f in runs) for key, runs in keyed.items()}
    out = []
    for (label, program), runs in keyed.items():
        wall = walls[(label, program)]
        peak = statistics.median(float(f[3]) for f in runs)
        packets = int(runs[0][4])
        ours = walls.get((label, "congsim"))
        ratio = f"{wall / max(ours, 1e-9):.2f}" if program != "congsim" and ours else ""
        out.append(
            [
                label,
                program,
                f"{wall:.2f}",
                f"{peak:.1f}",
                str(packets),
                f"{wall * 1e9 / max(packets, 1):.0f}",
                ratio,
            ]
        )
    return out


def run_row(
    row: Row,
    binary: Path,
    ns: str | None,
    peer: Path | None,
    peer_timeout: float,
    cachegrind: bool,
    results: list[list[str]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp, "scenario.toml")
        scenario.write_text(scenario_text(row))
        out = Path(tmp, "out")
        command = [str(binary), "run", str(scenario), "--quiet", "--out", str(out)]
        ours = timed(command, env=congsim_environment(row))
        assert ours is not None
        if ours.returncode != 0:
            reason = (ours.stderr.strip().splitlines() or ["failed"])[-1]
            print(f"{row.label:<11}{'congsim':<9}  refused: {reason}")
            return
        print(line(row.label, "congsim", ours, delivered_packets(out, row.packet_bytes), None, results))
        if cachegrind:
            misses = cache_misses(binary, scenario, Path(tmp, "cg"), row.packet_bytes)
            print(f"{row.label:<11}{'congsim':<9}  {misses}")
        if row.queue_kind:
            # The row measures congsim's queue against its own DropTail row (`200`).
            print(f"{row.label:<11}{'peers':<9}  not run: ns-2.35 and htsim have no {row.queue_kind}")
            return
        if row.shape != "dumbbell":
            print(f"{row.label:<11}{'ns-2':<9}  not run: ns-2 has no per-flow ECMP")
        elif row.generated:
            print(f"{row.label:<11}{'ns-2':<9}  not run: beyond ns-2 (10 000 flows take over 60 s)")
        elif ns is None:
            print(f"{row.label:<11}{'ns-2':<9}  not installed (apt-get install ns2)")
        else:
            script = Path(tmp, "scenario.tcl")
            script.write_text(ns2_script(scenario))
            theirs = timed([ns, str(script)], peer_timeout)
            if theirs is None:
                print(f"{row.label:<11}{'ns-2':<9}  over {peer_timeout:g} s: given up")
            else:
                total = re.search(r"total_bytes (\d+)", theirs.stdout)
                packets = int(total.group(1)) // row.packet_bytes if total else 0
                print(line(row.label, "ns-2", theirs, packets, ours, results))
        if peer is not None:
            theirs = timed(htsim_command(peer, row), peer_timeout)
            total = re.search(r"delivered_bytes (\d+)", theirs.stdout) if theirs else None
            if theirs is None:
                print(f"{row.label:<11}{'htsim':<9}  over {peer_timeout:g} s: given up")
            elif theirs.returncode != 0 or total is None:
                print(f"{row.label:<11}{'htsim':<9}  failed: {theirs.stderr.strip()[-200:]}")
            else:
                packets = int(total.group(1)) // row.packet_bytes
                print(line(row.label, "htsim", theirs, packets, ours, results))


if __name__ == "__main__":
    main()
