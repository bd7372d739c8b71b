"""Benchmark: dumbbell-20 in congsim and, when installed, in ns-2 and ns-3, timed as whole
processes.

    python bench/dumbbell.py [--repeat N] [--scenario scenarios/dumbbell-20.toml] [--binary PATH]
        [--flows N] [--duration S]

Prints congsim's wall time, events/s and packets/s (link transmissions), ns-2's and ns-3's wall
times and the speed ratios, the runs' total throughput, and the extra start-up of the Python CLI.
ns-3 (Debian `ns3 libns3-dev`) runs bench/ns3_dumbbell.cc, compiled here with g++ -O2; its runs
are long, so it is timed best of min(N, 3).
congsim runs through its native runner (`congsim-native`, built here with cargo --release and,
as install.sh builds congsim, profile-guided optimisation when scripts/pgo.sh can do it);
the best of N runs is reported for each program. `--binary PATH` times that congsim-native
instead of building one; `--flows N` runs the benchmark dumbbell of N flows as
bench/make_dumbbell.py writes it, `--duration S` sets the simulated time.

    python bench/dumbbell.py --congestion bbr --flows 100 [--repeat N] [--csv PATH]

runs the dumbbell with every flow on BBR v1 (10 s simulated unless `--duration`), in congsim and
ns-3 only (ns-2 has no BBR), as whole processes alternately after one warm-up pair (congsim,
ns-3, congsim, ...; N pairs, default 5), and prints each program's wall time (median, min, max),
data packets delivered (payload in whole segments), nanoseconds per delivered packet, packets
and events per second (the events are each simulator's own and do not measure alike), goodput,
and ns-3's time over congsim's, per pair (median, min, max), as wall time and per delivered
packet. `--csv PATH` writes those rows (bench/results/dumbbell_bbr.csv).

The BBR dumbbell is the benchmark dumbbell (same nodes, links, queues, 500-byte IP packets,
flows all starting at 0) with [tcp] changed where BBR needs it: the `rfc` profile (byte
sequence numbers), variant `sack` (RFC 6675 recovery: BBR's model needs SACK-like loss
recovery) and `congestion_control = "bbr"` (pacing implied); the switches the `rfc` profile sets
otherwise are set back to the benchmark's ns2_2000 values (BBR_TCP): `packet_size = "460B"` (the
MSS: 500-byte IP packets with 40 header bytes), `receiver_buffer = "4600000B"` (the 10 000-packet
window), `initial_window = 1`, `delayed_ack = "off"`, `tick = "100ms"` (RTT samples on a 100 ms
clock), `min_rto = "200ms"`. ns-3 runs bench/ns3_dumbbell.cc with `param congestion bbr`
(bench/ns3_scenario.py writes it): ns3::TcpBbr on every flow, as ns-3.37 ships it, with the
Reno row's settings otherwise (segments, window, initial window 1, no delayed ACKs, no
timestamps, window scaling, SACK, 100 ms clock granularity, 200 ms RTO floor). What still
differs between the two programs:
- BBR itself: congsim's follows TcpBbr's algorithm (docs/tcp.md) but not ns-3.37's defects
  (bench/bbr_ns3.py lists them): after a retransmission timeout ns-3.37's rate sampler feeds
  TcpBbr samples of about 1 kbit/s and the flow paces near zero for good (D39), ns-3's RTprop is
  a minimum of smoothed RTTs (D38), and ns-3 cuts and restores the window in recovery as D37
  says; every ns-3 TcpBbr draws its PROBE_BW start phase from stream 4 (flows draw alike),
  congsim's each from its own stream.
- Loss recovery: congsim's RFC 6675 sender (pipe from the scoreboard, NextSeg) under BBR's
  packet conservation; ns-3's SACK scoreboard in TcpSocketBase, no recovery algorithm for a
  congestion control with CongControl.
- Start: ns-3 opens every connection with a SYN exchange (one round trip before the first data
  segment, which gives TcpBbr its first RTT); congsim's `rfc` flows send at once. ns-3's initial
  window leaves unpaced (PaceInitialWindow false).
- Buffers: ns-3's send buffer is its default 128 KB (as in the Reno row); congsim's sources have
  none (the window is the receiver's).
- Links as in the Reno row: ns-3 adds a 2-byte PPP header on the wire (its devices run at the
  link's rate, so an IP packet takes 502 bytes' time).
The programs therefore deliver different numbers of packets: ns per delivered packet is the
fair comparison.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_dumbbell import dumbbell_toml  # noqa: E402
from ns2_script import ns2_script, seconds  # noqa: E402
from ns3_scenario import SOURCE as NS3_SOURCE  # noqa: E402
from ns3_scenario import ns3_input  # noqa: E402

NS3_MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")

# The benchmark's [tcp] (bench/make_dumbbell.py) and the BBR dumbbell's: what BBR needs (byte
# sequence numbers, SACK recovery, the controller), the rest set back to the benchmark's values.
RENO_TCP = """[tcp]
profile = "ns2_2000"
variant = "reno"
packet_size = "500B"
window = 10000
"""
BBR_TCP = """[tcp]
profile = "rfc"
variant = "sack"
congestion_control = "bbr"
packet_size = "460B"
receiver_buffer = "4600000B"
initial_window = 1
delayed_ack = "off"
tick = "100ms"
min_rto = "200ms"
"""
BBR_DURATION_S = 10.0
BBR_CSV_HEADER = [
    "program",
    "flows",
    "duration_s",
    "runs",
    "wall_s",
    "wall_s_min",
    "wall_s_max",
    "packets",
    "ns_per_packet",
    "packets_per_s",
    "events",
    "events_per_s",
    "goodput_mbps",
    "ratio",
    "ratio_min",
    "ratio_max",
    "ratio_per_packet",
    "ratio_per_packet_min",
    "ratio_per_packet_max",
]


def best_of(repeat: int, command: list[str], stdin: str | None = None) -> tuple[float, str]:
    """Smallest wall time of `repeat` runs, and the output of the last one."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        wall, out = timed(command, stdin)
        best = min(best, wall)
    return best, out


def ns3_runner() -> Path | None:
    """bench/ns3_dumbbell.cc built against the installed ns-3, or None without ns-3 or g++."""
    gxx, pkg_config = shutil.which("g++"), shutil.which("pkg-config")
    if gxx is None or pkg_config is None:
        return None
    cflags = subprocess.run([pkg_config, "--cflags", "ns3-core"], capture_output=True, text=True)
    if cflags.returncode != 0:
        return None
    binary = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "ns3-bench" / "dumbbell"
    binary.parent.mkdir(parents=True, exist_ok=True)
    # The modules' own libraries only: Debian's .pc files also name libgsl.so, which only
    # libgsl-dev installs and nothing here needs.
    libraries = [f"-lns3-{module}" for module in NS3_MODULES]
    build = [gxx, "-O2", "-std=c++17", "-o", str(binary), str(NS3_SOURCE), *cflags.stdout.split(), *libraries]
    subprocess.run(build, check=True)
    return binary


def timed(command: list[str], stdin: str | None = None) -> tuple[float, str]:
    """Wall time of one whole-process run, and its output."""
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def scenario_text(args: argparse.Namespace) -> str | None:
    """The scenario `--flows`, `--congestion` and `--duration` ask for, or None for the
    `--scenario` file as it is."""
    if args.flows is None and args.congestion == "reno" and args.duration is None:
        return None
    text = dumbbell_toml(args.flows) if args.flows is not None else args.scenario.read_text()
    duration = args.duration
    if args.congestion == "bbr":
        if RENO_TCP not in text:
            raise SystemExit(f"--congestion bbr rewrites the benchmark's [tcp], not found in {args.scenario}")
        text = text.replace(RENO_TCP, BBR_TCP).replace("ns-2 Reno flows", "BBR flows")
        text = re.sub(r'^name = "(.*)"$', r'name = "\1-bbr"', text, count=1, flags=re.MULTILINE)
        duration = BBR_DURATION_S if duration is None else duration
    if duration is not None:
        text = re.sub(r'^duration = ".*"$', f'duration = "{duration:g}s"', text, count=1, flags=re.MULTILINE)
    return text


def ns3_counts(out: str) -> dict[str, int]:
    return {words[0]: int(words[1]) for words in map(str.split, out.splitlines()) if len(words) == 2}


def bbr_row(runner: Path, scenario: Path, pairs: int, csv_path: Path | None) -> None:
    """The BBR dumbbell in congsim and ns-3, timed alternately (see the module's text)."""
    sc = tomllib.loads(scenario.read_text())
    duration = seconds(sc["simulation"]["duration"])
    segment = int(sc["tcp"]["packet_size"].rstrip("B"))
    flows = len(sc["flows"])
    print(f"scenario          {scenario.name}  ({flows} BBR flows, {duration:g} s simulated)")
    print("ns-2              has no BBR: not run")
    ns3 = ns3_runner()
    ns3_stdin = ns3_input(scenario) if ns3 is not None else None
    walls: dict[str, list[float]] = {"congsim": [], "ns-3": []}
    with tempfile.TemporaryDirectory() as tmp:
        ours = [str(runner), "run", str(scenario), "--quiet", "--out", tmp]
        ns3_out = ""
        for pair in range(pairs + 1):  # the first pair warms up and is not counted
            wall, _ = timed(ours)
            if pair:
                walls["congsim"].append(wall)
            if ns3 is not None:
                wall, ns3_out = timed([str(ns3)], stdin=ns3_stdin)
                if pair:
                    walls["ns-3"].append(wall)
        summary = next(csv.DictReader(io.StringIO(Path(tmp, "summary.csv").read_text())))
        flow_rows = list(csv.DictReader(io.StringIO(Path(tmp, "flows.csv").read_text())))
    payload = sum(int(f["bytes_delivered"]) for f in flow_rows)
    results = {"congsim": (payload // segment, payload, int(summary["events"]))}
    if ns3 is not None:
        counts = ns3_counts(ns3_out)
        packet_bytes = segment + 40
        ns3_packets = counts["total_bytes"] // packet_bytes
        results["ns-3"] = (
            ns3_packets,
            ns3_packets * segment + counts["total_bytes"] % packet_bytes,
            counts["events"],
        )
    else:
        print("ns-3              not installed (apt-get install ns3 libns3-dev): congsim alone")

    rows: list[list[str]] = []
    print(
        f"{'program':<10}{'wall s':>8}{'min':>8}{'max':>8}{'packets':>10}{'ns/packet':>11}"
        f"{'M pkts/s':>10}{'events':>11}{'M ev/s':>8}{'Mbps':>8}"
    )
    for program, (packets, payload_bytes, events) in results.items():
        wall = statistics.median(walls[program])
        goodput = payload_bytes * 8 / duration / 1e6
        print(
            f"{program:<10}{wall:8.3f}{min(walls[program]):8.3f}{max(walls[program]):8.3f}{packets:10d}"
            f"{wall * 1e9 / packets:11.0f}{packets / wall / 1e6:10.3f}{events:11d}{events / wall / 1e6:8.2f}"
            f"{goodput:8.2f}"
        )
        rows.append(
            [
                program,
                str(flows),
                f"{duration:g}",
                str(len(walls[program])),
                f"{wall:.3f}",
                f"{min(walls[program]):.3f}",
                f"{max(walls[program]):.3f}",
                str(packets),
                f"{wall * 1e9 / packets:.0f}",
                f"{packets / wall:.0f}",
                str(events),
                f"{events / wall:.0f}",
                f"{goodput:.2f}",
            ]
        )
    if ns3 is not None:
        ratios = [theirs / ours for ours, theirs in zip(walls["congsim"], walls["ns-3"], strict=True)]
        per_packet = results["congsim"][0] / results["ns-3"][0]  # packets are the same every run
        spread = [statistics.median(ratios), min(ratios), max(ratios)]
        print(
            f"ns-3 / congsim    {spread[0]:.2f}x wall time (median of {len(ratios)} pairs; "
            f"{spread[1]:.2f}-{spread[2]:.2f}), {spread[0] * per_packet:.2f}x per delivered packet "
            f"({spread[1] * per_packet:.2f}-{spread[2] * per_packet:.2f})"
        )
        rows[1] += [f"{r:.2f}" for r in spread] + [f"{r * per_packet:.2f}" for r in spread]
    rows[0] += [""] * 6
    if csv_path is not None:
        with csv_path.open("w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(BBR_CSV_HEADER)
            writer.writerows(rows)
        print(f"wrote {csv_path}")


def native_runner() -> tuple[Path, bool]:
    """The native runner built as install.sh builds congsim: with profile-guided optimisation
    when scripts/pgo.sh finds rustc's llvm-profdata. Returns it and whether PGO was used."""
    pgo = subprocess.run(["bash", "scripts/pgo.sh"], cwd=ROOT, check=True, capture_output=True, text=True)
    flags = pgo.stdout.strip()
    env = dict(os.environ, RUSTFLAGS=f"{os.environ.get('RUSTFLAGS', '')} {flags}")
    build = ["cargo", "build", "--release", "--quiet", "-p", "congsim-cli"]
    subprocess.run(build, cwd=ROOT, check=True, env=env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "congsim-native", bool(flags)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per program (pairs with BBR)")
    parser.add_argument("--scenario", type=Path, default=ROOT / "scenarios" / "dumbbell-20.toml")
    parser.add_argument("--flows", type=int, help="the benchmark dumbbell of N flows instead")
    parser.add_argument("--congestion", choices=("reno", "bbr"), default="reno")
    parser.add_argument("--duration", type=float, help="simulated seconds (BBR: 10)")
    parser.add_argument("--binary", type=Path, help="this congsim-native, not built here")
    parser.add_argument("--csv", type=Path, help="with --congestion bbr: write the rows here")
    args = parser.parse_args()

    generated = scenario_text(args)
    if generated is None:
        run_benchmark(args)
        return
    with tempfile.TemporaryDirectory() as folder:
        name = re.search(r'^name = "(.*)"$', generated, flags=re.MULTILINE)
        args.scenario = Path(folder, f"{name.group(1) if name else 'dumbbell'}.toml")
        args.scenario.write_text(generated)
        run_benchmark(args)


def run_benchmark(args: argparse.Namespace) -> None:
    if args.binary is not None:
        runner, pgo = args.binary.resolve(), None
    else:
        runner, pgo = native_runner()
    if args.congestion == "bbr":
        bbr_row(runner, args.scenario, args.repeat, args.csv)
        return
    with tempfile.TemporaryDirectory() as tmp:
        wall, _ = best_of(args.repeat, [str(runner), "run", str(args.scenario), "--quiet", "--out", tmp])
        summary = next(csv.DictReader(io.StringIO(Path(tmp, "summary.csv").read_text())))
        links = list(csv.DictReader(io.StringIO(Path(tmp, "links.csv").read_text())))
        flows = list(csv.DictReader(io.StringIO(Path(tmp, "flows.csv").read_text())))
    events = int(summary["events"])
    packets = sum(int(link["departures"]) for link in links)
    duration = float(summary["duration_s"])
    # ns-2's sink counts whole packets: compare wire throughput.
    congsim_mbps = sum(float(f["wire_throughput_bps"]) for f in flows) / 1e6
    print(f"scenario          {args.scenario.name}  ({duration:g} s simulated)")
    if pgo is None:
        build = f"as given ({runner})"
    else:
        build = "profile-guided (scripts/pgo.sh)" if pgo else "plain release (no llvm-profdata for PGO)"
    print(f"congsim build     {build}")
    rates = f"{events / wall / 1e6:7.2f} M events/s   {packets / wall / 1e6:6.2f} M packets/s"
    print(f"congsim           {wall:8.3f} s   {rates}")
    print(f"congsim total     {congsim_mbps:8.3f} Mbps")

    ns = shutil.which("ns")
    if ns is None:
        print("ns-2              not installed (apt-get install ns2): no side-by-side run")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp, "scenario.tcl")
            script.write_text(ns2_script(args.scenario))
            ns_wall, out = best_of(args.repeat, [ns, str(script)])
        ns_counts = dict(line.split() for line in out.splitlines() if line.split()[:1])
        total_bytes = int(ns_counts["total_bytes"])
        ns_mbps = total_bytes * 8 / seconds(f"{duration}s") / 1e6
        print(f"ns-2              {ns_wall:8.3f} s")
        difference = 100 * (congsim_mbps / ns_mbps - 1)
        print(f"ns-2 total        {ns_mbps:8.3f} Mbps   (congsim differs by {difference:+.2f} %)")
        print(f"speed-up          {ns_wall / wall:8.1f} x")
        ours = {"timeouts": int(summary["timeouts"]), "retx_pkts": int(summary["retx_pkts"])}
        for counter, value in ours.items():
            print(f"{counter:<17} congsim {value:6d}   ns-2 {int(ns_counts[counter]):6d}")

    ns3 = ns3_runner()
    if ns3 is None:
        print("ns-3              not installed (apt-get install ns3 libns3-dev): no side-by-side run")
    else:
        ns3_wall, out = best_of(min(args.repeat, 3), [str(ns3)], stdin=ns3_input(args.scenario))
        ns3_bytes = int(dict(line.split() for line in out.splitlines())["total_bytes"])
        ns3_mbps = ns3_bytes * 8 / duration / 1e6
        print(f"ns-3              {ns3_wall:8.3f} s")
        difference = 100 * (congsim_mbps / ns3_mbps - 1)
        print(f"ns-3 total        {ns3_mbps:8.3f} Mbps   (congsim differs by {difference:+.2f} %)")
        print(f"speed-up vs ns-3  {ns3_wall / wall:8.1f} x")

    cli = shutil.which("congsim") or str(Path(sys.executable).parent / "congsim")
    if Path(cli).exists():
        py_wall, _ = best_of(args.repeat, [cli, "validate", str(args.scenario)])
        native_validate, _ = best_of(args.repeat, [str(runner), "validate", str(args.scenario)])
        extra = py_wall - native_validate
        print(f"Python CLI start  {extra:8.3f} s extra (congsim validate vs congsim-native validate)")


if __name__ == "__main__":
    main()
