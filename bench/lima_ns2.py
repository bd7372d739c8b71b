"""Seed 002's FTP experiment (Lima, Fonseca, Rezende 2002) in congsim and in ns-2, side by side.

The `lima2002` study's network (S1, S2, S3 -> R -> D; RED on the 10 Mbps / 20 ms bottleneck with
ns-2's automatic parameters, gentle, limit 50; two 0.5 Mbps CBR sources) with FTP transfers of
exponential size (mean 512 KB) from S1 arriving as a Poisson process, for Reno and NewReno with
and without Limited Transmit (ns-2 `singledup_`). ns-2.35 runs with the ns2_2002 switches (spec
tcp.md section 6). Both simulators draw their own arrivals and sizes, so they agree
statistically: the script prints, per configuration, the mean RTOs per transfer that started
after the 20 s warm-up (ours: the study's replications; ns-2: as many runs with other seeds) and
the ratio with / without Limited Transmit, which is what the paper's claims are about.
Needs ns-2 (`apt-get install ns2`) for its columns.

    python bench/lima_ns2.py [--replications N]
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import NS2_2000_SETTINGS  # noqa: E402

import congsim  # noqa: E402
from congsim.studies import STUDIES  # noqa: E402
from congsim.sweep import load_plan  # noqa: E402

# ns2_2002 where it differs from ns2_2000 (spec tcp.md section 6), as ns-2.35 bindings.
NS2_2002_SETTINGS = """
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ 1.0
Agent/TCP set rfc2988_ true
Agent/TCP set windowInit_ 2
Agent/TCP set syn_ true
Agent/TCP set delay_growth_ true
Agent/TCP set useHeaders_ true
Agent/TCP set timerfix_ true
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 20
"""

AGENTS = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}
DURATION_S, WARM_UP_S = 200.0, 20.0
CAPACITY_BPS, MEAN_SIZE_BYTES, SEGMENT_BYTES = 10e6, 524_288, 1000
CBR_BPS, CBR_PACKET_BYTES = 0.5e6, 500


def transfers(load: float, seed: int) -> list[tuple[float, int]]:
    """(start time, segments) of each FTP transfer: Poisson arrivals at the load's rate (spec
    ip.md 5.6), exponential sizes rounded up to whole segments."""
    rng = random.Random(seed)
    rate = load * CAPACITY_BPS / (8 * MEAN_SIZE_BYTES)
    out, t = [], rng.expovariate(rate)
    while t < DURATION_S:
        size = rng.expovariate(1 / MEAN_SIZE_BYTES)
        out.append((t, max(1, math.ceil(size / SEGMENT_BYTES))))
        t += rng.expovariate(rate)
    return out


def tcl(variant: str, limited_transmit: bool, load: float, seed: int) -> str:
    rng = random.Random(seed + 1_000_003)
    interval = CBR_PACKET_BYTES * 8 / CBR_BPS
    out = [
        "set ns [new Simulator]",
        NS2_2000_SETTINGS,
        NS2_2002_SETTINGS,
        f"Agent/TCP set singledup_ {int(limited_transmit)}",
        "global defaultRNG",
        f"$defaultRNG seed {seed}",
        "Queue/RED set bytes_ false",
        "Queue/RED set queue_in_bytes_ false",
        "Queue/RED set thresh_ 0",
        "Queue/RED set maxthresh_ 0",
        "Queue/RED set q_weight_ -1",
        "Queue/RED set linterm_ 10",
        "Queue/RED set gentle_ true",
        "Queue/RED set wait_ true",
        "Queue/RED set mean_pktsize_ 500",
        "Queue/RED set use_mark_p_ false",
        "Queue/RED set adaptive_ 0",
        "Queue/RED set cautious_ 0",
        "foreach n {s1 s2 s3 r d} { set $n [$ns node] }",
        "$ns duplex-link $s1 $r 100Mb 1ms DropTail",
        "$ns duplex-link $s2 $r 100Mb 1ms DropTail",
        "$ns duplex-link $s3 $r 100Mb 1ms DropTail",
        "$ns simplex-link $r $d 10Mb 20ms RED",
        "$ns simplex-link $d $r 10Mb 20ms DropTail",
        "$ns queue-limit $r $d 50",
        "set senders {}",
        "proc transfer {segments} {",
        "    global ns s1 d senders",
        f"    set tcp [new {AGENTS[variant]}]",
        "    $ns attach-agent $s1 $tcp",
        "    set sink [new Agent/TCPSink]",
        "    $ns attach-agent $d $sink",
        "    $ns connect $tcp $sink",
        "    lappend senders [list [$ns now] $tcp]",
        "    $tcp advanceby $segments",
        "}",
    ]
    for k, source in enumerate(("s2", "s3")):
        out += [
            f"set udp{k} [new Agent/UDP]",
            f"$ns attach-agent ${source} $udp{k}",
            f"set null{k} [new Agent/Null]",
            f"$ns attach-agent $d $null{k}",
            f"$ns connect $udp{k} $null{k}",
            f"set cbr{k} [new Application/Traffic/CBR]",
            f"$cbr{k} set packetSize_ {CBR_PACKET_BYTES}",
            f"$cbr{k} set rate_ {CBR_BPS}",
            f"$cbr{k} attach-agent $udp{k}",
            f'$ns at {rng.uniform(0, interval):.9f} "$cbr{k} start"',
        ]
    out += [f'$ns at {t:.9f} "transfer {n}"' for t, n in transfers(load, seed)]
    out += [
        "proc finish {} {",
        "    global senders",
        "    foreach s $senders {",
        f'        if {{[lindex $s 0] >= {WARM_UP_S}}} {{ puts "rtos [[lindex $s 1] set nrexmit_]" }}',
        "    }",
        "    exit 0",
        "}",
        f'$ns at {DURATION_S} "finish"',
        "$ns run",
    ]
    return "\n".join(out) + "\n"


def ns2_mean_rtos(variant: str, limited_transmit: bool, load: float, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lima.tcl"
        path.write_text(tcl(variant, limited_transmit, load, seed))
        out = subprocess.run(["ns", str(path)], capture_output=True, text=True, check=True).stdout
    rtos = [float(line.split()[1]) for line in out.splitlines() if line.startswith("rtos ")]
    return sum(rtos) / len(rtos)


def ours_mean_rtos(variant: str, limited_transmit: bool, load: float, replications: int) -> list[float]:
    plan = load_plan(STUDIES["lima2002"].plan_path())
    values = []
    for run in plan.runs():
        p = run.params
        if (
            p["transfers[0].sizes"] == "exponential"
            and float(p["transfers[0].load"]) == load
            and p["tcp.variant"] == variant
            and bool(p["tcp.limited_transmit"]) == limited_transmit
            and run.replication < replications
        ):
            scenario = congsim.loads(plan.scenario_text, plan.scenario_source, dict(run.overrides))
            summary = congsim.run(scenario, replication=run.replication).summary.iloc[0]
            values.append(float(summary["transfer_timeouts_mean"]))
    return values


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=10)
    args = parser.parse_args()
    have_ns2 = shutil.which("ns") is not None
    print(f"{'TCP load':8} {'variant':8} {'LT':5} {'RTOs':>6} | ns-2: {'RTOs':>6}")
    for load in (0.6, 0.8):
        for variant in AGENTS:
            row: dict[bool, tuple[float, float]] = {}
            for lt in (False, True):
                mine = mean(ours_mean_rtos(variant, lt, load, args.replications))
                theirs = math.nan
                if have_ns2:
                    jobs = [(variant, lt, load, seed) for seed in range(1, args.replications + 1)]
                    with ThreadPoolExecutor(max_workers=2) as pool:
                        theirs = mean(list(pool.map(lambda job: ns2_mean_rtos(*job), jobs)))
                row[lt] = (mine, theirs)
                print(f"{load:<8} {variant:8} {lt!s:5} {mine:6.3f} |       {theirs:6.3f}", flush=True)
            ratio_ours = row[True][0] / row[False][0]
            ratio_ns2 = row[True][1] / row[False][1]
            print(f"{'':8} {variant:8} {'ratio':5} {ratio_ours:6.3f} |       {ratio_ns2:6.3f}")


if __name__ == "__main__":
    main()
