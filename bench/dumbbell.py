"""Benchmark: dumbbell-20 in congsim and, when installed, in ns-2 and ns-3, timed as whole
processes.

    python bench/dumbbell.py [--repeat N] [--scenario scenarios/dumbbell-20.toml]

Prints congsim's wall time, events/s and packets/s (link transmissions), ns-2's and ns-3's wall
times and the speed ratios, the runs' total throughput, and the extra start-up of the Python CLI.
ns-3 (Debian `ns3 libns3-dev`) runs bench/ns3_dumbbell.cc, compiled here with g++ -O2; its runs
are long, so it is timed best of min(N, 3).
congsim runs through its native runner (`congsim-native`, built here with cargo --release and,
as install.sh builds congsim, profile-guided optimisation when scripts/pgo.sh can do it);
the best of N runs is reported for each program.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import ns2_script, seconds  # noqa: E402
from ns3_scenario import SOURCE as NS3_SOURCE  # noqa: E402
from ns3_scenario import ns3_input  # noqa: E402

NS3_MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")


def best_of(repeat: int, command: list[str], stdin: str | None = None) -> tuple[float, str]:
    """Smallest wall time of `repeat` runs, and the output of the last one."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - start)
        out = done.stdout
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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenario", type=Path, default=ROOT / "scenarios" / "dumbbell-20.toml")
    args = parser.parse_args()

    runner, pgo = native_runner()
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
