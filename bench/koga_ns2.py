"""Seed 004 (Koga, Hori, Oie 2000) in ns-2.35 on the koga2000 study's network: the ns-2 column
of the study's comparison.

Every configuration of the `koga2000` study (five CBR cases for Reno, NewReno and SACK, and the
10 Reno + 10 SACK mix for the first three cases) in ns-2.35 with CBQ at Node 1 (CBR class 30 %,
priority 1; TCP class 70 %, priority 2; both may borrow; 200 packets each) and the ns2_2000
switches. By default it runs as many replications as the study (5), each with its own seed:
flow i starts at a time drawn from U(0, 10 ms) (the study's `start_jitter`) and ns-2's RNG is
seeded with the replication's number (the fluctuation pattern's jitter), and writes every cell of
the study's reference table (python/congsim/studies/data/koga2000.csv) to
python/congsim/studies/data/koga2000-ns2.csv: mean and 95 % CI over the replications, the
replication count, the ns-2 version and this command. ns-2's counters: throughput from the
sinks' in-order `bytes_` over 20 s, timeouts the senders' `nrexmit_`, fast recoveries the
senders' window cuts that were not timeouts (`ncwndcuts_ - nrexmit_`), the CoV of the 20 flows'
throughputs (population standard deviation over the mean, as congsim's `cov`). `--side-by-side`
prints congsim's mean beside one ns-2 run instead. Needs ns-2 (`apt-get install ns2`).

Two CBR patterns translate approximately. Burst: every 10 ms the UDP agent sends 7500 bytes,
which ns-2 splits into 15 back-to-back 500-byte packets, as congsim's burst does. Fluctuation:
ns-2's `random_ 1` jitters each interval by U(-T/2, T/2) (cumulative), where congsim delays each
packet of the grid by U(0, T) (deviation D18); both keep the mean rate.

    python bench/koga_ns2.py [--replications 5]
    python bench/koga_ns2.py --side-by-side
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
#: The receiver window, read from the study's network (guess G42).
WINDOW_PACKETS = int(
    tomllib.loads((ROOT / "python/congsim/studies/data/koga2000-network.toml").read_text())["tcp"]["window"]
)
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import NS2_2000_SETTINGS  # noqa: E402

import congsim  # noqa: E402
from congsim.studies import STUDIES  # noqa: E402
from congsim.sweep import load_plan  # noqa: E402

CASES = ("only-tcp", "large-cbr", "multiple-cbr", "fluctuation", "burst")
AGENTS = {
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
}
# The mix runs flows 1-10 with Reno and 11-20 with SACK (Table 5), for the first three cases.
MIX = "reno+sack"
MIX_CASES = CASES[:3]


def configurations() -> list[tuple[str, str]]:
    """(case, variant) of every koga2000 configuration, in the study's order."""
    return [(c, v) for c in CASES for v in AGENTS] + [(c, MIX) for c in MIX_CASES]


def agents(variant: str, flow: int) -> tuple[str, str]:
    if variant == MIX:
        return AGENTS["sack" if flow >= 10 else "reno"]
    return AGENTS[variant]


def cbr_schedule(case: str) -> list[tuple[float, list[tuple[float, float]]]]:
    """(rate in Mbps, on periods) of each CBR stream of a case, as the koga2000 plan sets them."""
    if case == "large-cbr":
        return [(30.0, [(0.0, 6.0), (14.0, 20.0)])]
    if case in ("multiple-cbr", "fluctuation", "burst"):
        return [(6.0, [(2.0 * i, 2.0 * i + 12.0)]) for i in range(5)]
    return []


def cbr_tcl(k: int, case: str, mbps: float, periods: list[tuple[float, float]]) -> list[str]:
    """Drives UDP agent `udp{k}`: a CBR application (jittered for fluctuation), or for burst
    7500 bytes every 10 ms, which the agent sends as 15 back-to-back packets."""
    if case == "burst":
        burst_bytes = round(mbps * 1e6 / 8 * 0.010)
        out = []
        for start, stop in periods:
            for slot in range(round((stop - start) / 0.010)):
                out.append(f'$ns at {start + 0.010 * slot:.3f} "$udp{k} send {burst_bytes}"')
        return out
    out = [
        f"set cbr{k} [new Application/Traffic/CBR]",
        f"$cbr{k} set packetSize_ 500",
        f"$cbr{k} set rate_ {mbps}Mb",
        f"$cbr{k} attach-agent $udp{k}",
    ]
    if case == "fluctuation":
        out.append(f"$cbr{k} set random_ 1")
    for start, stop in periods:
        out += [f'$ns at {start} "$cbr{k} start"', f'$ns at {stop} "$cbr{k} stop"']
    return out


def tcl(case: str, variant: str, seed: int | None = None) -> str:
    """The Tcl script of one run; `seed` None starts flow i at 0.5 i ms (one deterministic run),
    else at U(0, 10 ms) drawn from `seed`, with ns-2's RNG seeded by it."""
    starts = random.Random(seed)
    rate = "82Mb" if case == "only-tcp" else "100Mb"
    out = [
        "set ns [new Simulator]",
        NS2_2000_SETTINGS,
        *([] if seed is None else ["global defaultRNG", f"$defaultRNG seed {seed}"]),
        "Agent/TCP set packetSize_ 500",
        f"Agent/TCP set window_ {WINDOW_PACKETS}",
        "set n1 [$ns node]",
        "set n2 [$ns node]",
        f"$ns simplex-link $n1 $n2 {rate} 5ms CBQ",
        f"$ns simplex-link $n2 $n1 {rate} 5ms DropTail",
        "set cbq [$ns link $n1 $n2]",
        "set top [new CBQClass]",
        "$top setparams none 0 1.0 auto 8 2 0",
        "set cbrc [new CBQClass]",
        "$cbrc setparams $top true 0.3 auto 1 1 0",
        "set tcpc [new CBQClass]",
        "$tcpc setparams $top true 0.7 auto 2 1 0",
        "set q1 [new Queue/DropTail]",
        "$q1 set limit_ 200",
        "$cbrc install-queue $q1",
        "set q2 [new Queue/DropTail]",
        "$q2 set limit_ 200",
        "$tcpc install-queue $q2",
        "$cbq insert $top",
        "$cbq insert $cbrc",
        "$cbq insert $tcpc",
        "$cbq bind $cbrc 1",
        "$cbq bind $tcpc 2",
        "set sinks {}",
        "set senders {}",
    ]
    for i in range(20):
        delay = 3.0 + 4.0 * i / 19.0
        agent, sink = agents(variant, i)
        out += [
            f"set s{i} [$ns node]",
            f"set d{i} [$ns node]",
            f"$ns duplex-link $s{i} $n1 100Mb {delay:.9f}ms DropTail",
            f"$ns duplex-link $n2 $d{i} 100Mb 5ms DropTail",
            f"set tcp{i} [new {agent}]",
            f"$tcp{i} set fid_ 2",
            f"$ns attach-agent $s{i} $tcp{i}",
            f"set sink{i} [new {sink}]",
            f"$ns attach-agent $d{i} $sink{i}",
            f"$ns connect $tcp{i} $sink{i}",
            f"lappend sinks $sink{i}",
            f"lappend senders $tcp{i}",
            f"set ftp{i} [$tcp{i} attach-app FTP]",
            f'$ns at {0.01 * i / 20 if seed is None else starts.uniform(0, 0.010):.9f} "$ftp{i} start"',
        ]
    for k, (mbps, periods) in enumerate(cbr_schedule(case)):
        out += [
            f"set c{k} [$ns node]",
            f"set e{k} [$ns node]",
            f"$ns duplex-link $c{k} $n1 100Mb 5ms DropTail",
            f"$ns duplex-link $n2 $e{k} 100Mb 5ms DropTail",
            f"set udp{k} [new Agent/UDP]",
            f"$udp{k} set fid_ 1",
            f"$ns attach-agent $c{k} $udp{k}",
            f"set null{k} [new Agent/Null]",
            f"$ns attach-agent $e{k} $null{k}",
            f"$ns connect $udp{k} $null{k}",
            f"$udp{k} set packetSize_ 500",
        ]
        out += cbr_tcl(k, case, mbps, periods)
    out += [
        "proc finish {} {",
        "    global sinks senders",
        "    set total 0",
        "    foreach s $sinks { set total [expr {$total + [$s set bytes_]}] }",
        "    set timeouts 0",
        "    foreach t $senders { set timeouts [expr {$timeouts + [$t set nrexmit_]}] }",
        '    puts "total_bytes $total"',
        '    puts "timeouts $timeouts"',
        "    set i 0",
        "    foreach s $sinks t $senders {",
        '        puts "flow $i [$s set bytes_] [$t set nrexmit_] [$t set ncwndcuts_]"',
        "        incr i",
        "    }",
        "    exit 0",
        "}",
        '$ns at 20.0 "finish"',
        "$ns run",
    ]
    return "\n".join(out) + "\n"


def ns2(case: str, variant: str, seed: int | None = None) -> tuple[dict[str, float], float]:
    """One ns-2 run's cells (each metric of the study) and the time it took."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "koga.tcl"
        path.write_text(tcl(case, variant, seed))
        started = time.perf_counter()
        out = subprocess.run(["ns", str(path)], capture_output=True, text=True, check=True).stdout
        elapsed = time.perf_counter() - started
    flows = [[float(x) for x in line.split()[2:]] for line in out.splitlines() if line.startswith("flow ")]
    mbps = [b * 8 / 20.0 / 1e6 for b, _, _ in flows]
    timeouts = sum(t for _, t, _ in flows)
    return {
        "throughput_mbps": sum(mbps),
        "reno_mbps": sum(mbps[:10]),
        "sack_mbps": sum(mbps[10:]),
        "cov": statistics.pstdev(mbps) / statistics.fmean(mbps),
        "timeouts": timeouts,
        "fast_recoveries": sum(c for _, _, c in flows) - timeouts,
    }, elapsed


def ours(case: str, variant: str) -> tuple[dict[str, float], float]:
    plan = load_plan(STUDIES["koga2000"].plan_path())
    mixed = variant == MIX
    runs = [
        r
        for r in plan.runs()
        if r.params.get("label") == case
        and r.params.get("tcp.variant") == ("reno" if mixed else variant)
        and (r.params.get("flows[10].tcp.variant") == "sack") == mixed
    ]
    rows, first_run_s = [], 0.0
    for run in runs:
        scenario = congsim.loads(plan.scenario_text, plan.scenario_source, dict(run.overrides))
        started = time.perf_counter()
        results = congsim.run(scenario, replication=run.replication)
        if run.replication == 0:
            first_run_s = time.perf_counter() - started
        rows.append(results.summary.iloc[0])
    n = len(rows)
    return {
        "throughput_mbps": sum(r["total_goodput_bps"] for r in rows) / n / 1e6,
        "timeouts": sum(r["timeouts"] for r in rows) / n,
    }, first_run_s


def side_by_side() -> None:
    have_ns2 = shutil.which("ns") is not None
    print(f"{'case':13} {'variant':9} {'Mbps':>7} {'TO':>6} | ns-2: {'Mbps':>7} {'TO':>6}")
    ours_s = ns2_s = 0.0
    for case, variant in configurations():
        mine, t = ours(case, variant)
        ours_s += t
        line = f"{case:13} {variant:9} {mine['throughput_mbps']:7.1f} {mine['timeouts']:6.1f} |"
        if have_ns2:
            theirs, t = ns2(case, variant)
            ns2_s += t
            line += f"       {theirs['throughput_mbps']:7.1f} {theirs['timeouts']:6.0f}"
        print(line, flush=True)
    print(f"one run of each configuration: congsim {ours_s:.2f} s", end="")
    print(f", ns-2 {ns2_s:.2f} s ({ns2_s / ours_s:.1f}x)" if have_ns2 else "")


def configuration_of(row: Mapping[str, str]) -> tuple[str, str]:
    """The (case, variant) a reference row of koga2000.csv names."""
    mixed = row["flows[10].tcp.variant"] == "sack"
    return row["label"], MIX if mixed else row["tcp.variant"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=5, help="ns-2 runs per configuration")
    parser.add_argument("--side-by-side", action="store_true", help="congsim beside one ns-2 run")
    args = parser.parse_args()
    if args.side_by_side:
        side_by_side()
        return
    import ns2_data

    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    started = time.perf_counter()
    for case, variant in configurations():
        runs[case, variant] = [ns2(case, variant, seed)[0] for seed in range(1, args.replications + 1)]
        print(
            case,
            variant,
            {
                k: round(statistics.fmean(r[k] for r in runs[case, variant]), 3)
                for k in runs[case, variant][0]
            },
            flush=True,
        )
    note = (
        f"{args.replications} runs per configuration (seeds 1-{args.replications}: flow starts "
        "U(0, 10 ms), ns-2's RNG); fast recoveries are ncwndcuts_ - nrexmit_"
    )
    path = ns2_data.write("koga2000", runs, configuration_of, ns2_data.command_line(), note)
    print(f"{path} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
