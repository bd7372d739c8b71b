"""Seed 002 (Lima, Fonseca, Rezende 2002) in ns-2.35 on the lima2002 study's network: the ns-2
column of the study's comparison, and its FTP experiment beside congsim.

The `lima2002` study's network (S1, S2, S3 -> R -> D; RED on the 10 Mbps / 20 ms bottleneck with
ns-2's automatic parameters, gentle, limit 50; two 0.5 Mbps CBR sources) with transfers from S1
arriving as a Poisson process at the load's rate, each a new ns-2 connection (Reno, NewReno or
Sack1, with and without Limited Transmit, ns-2 `singledup_`), under the ns2_2002 switches (spec
tcp.md section 6).

By default it runs the study's reference cells: web objects (congsim's size law, spec ip.md
5.3) at TCP loads 0.2-0.8, the mean cwnd over every data segment the transfers that started after
the 20 s warm-up sent, and writes them to python/congsim/studies/data/lima2002-ns2.csv with the
mean and 95 % CI over ns-2's own replications (each seed draws its own arrivals, sizes and CBR
phases). One ns-2 run of 200 s takes 17 s at load 0.2 and 100 s at load 0.8, so the replications
are 2 (chosen before running), not the study's 10: about 45 minutes.

`--ftp` prints instead, per configuration of the FTP experiment (exponential sizes, mean 512 KB),
the mean RTOs per transfer (ours: the study's replications; ns-2: as many runs with other seeds)
and the ratio with / without Limited Transmit, which is what the paper's claims are about.
Needs ns-2 (`apt-get install ns2`).

    python bench/lima_ns2.py [--replications 2]
    python bench/lima_ns2.py --ftp [--replications 10]
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
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

AGENTS = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1"}
SINKS = {"reno": "Agent/TCPSink", "newreno": "Agent/TCPSink", "sack": "Agent/TCPSink/Sack1"}
DURATION_S, WARM_UP_S = 200.0, 20.0
CAPACITY_BPS, MEAN_SIZE_BYTES, SEGMENT_BYTES = 10e6, 524_288, 1000
CBR_BPS, CBR_PACKET_BYTES = 0.5e6, 500


# Seed 002's web objects as congsim draws them (spec ip.md 5.3, crates/congsim/src/transfers.rs):
# a lognormal body (weight 0.88, mean 7247 B, sigma 1.318) or a Pareto tail (mean 10 558 B,
# alpha 1.1), draws above 10 MB drawn again.
WEB_BODY, WEB_SIGMA, WEB_ALPHA, WEB_MAX_BYTES = 0.88, 1.318, 1.1, 10e6
WEB_MU = math.log(7247) - WEB_SIGMA**2 / 2
WEB_K = 10_558 * (WEB_ALPHA - 1) / WEB_ALPHA


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def web_mean_bytes() -> float:
    """The truncated mixture's mean, which sets the arrival rate (spec ip.md 5.6)."""
    ln_max = math.log(WEB_MAX_BYTES)
    body_mass = _normal_cdf((ln_max - WEB_MU) / WEB_SIGMA)
    body_partial = math.exp(WEB_MU + WEB_SIGMA**2 / 2) * _normal_cdf(
        (ln_max - WEB_MU - WEB_SIGMA**2) / WEB_SIGMA
    )
    tail_mass = 1 - (WEB_K / WEB_MAX_BYTES) ** WEB_ALPHA
    tail_partial = (
        WEB_ALPHA
        * WEB_K**WEB_ALPHA
        * (WEB_K ** (1 - WEB_ALPHA) - WEB_MAX_BYTES ** (1 - WEB_ALPHA))
        / (WEB_ALPHA - 1)
    )
    mass = WEB_BODY * body_mass + (1 - WEB_BODY) * tail_mass
    return (WEB_BODY * body_partial + (1 - WEB_BODY) * tail_partial) / mass


def web_size(rng: random.Random) -> float:
    while True:
        if rng.random() < WEB_BODY:
            x = math.exp(rng.gauss(WEB_MU, WEB_SIGMA))
        else:
            x = WEB_K / (1 - rng.random()) ** (1 / WEB_ALPHA)
        if x <= WEB_MAX_BYTES:
            return x


def transfers(load: float, seed: int, sizes: str = "exponential") -> list[tuple[float, int]]:
    """(start time, segments) of each transfer: Poisson arrivals at the load's rate (spec
    ip.md 5.6), exponential FTP sizes or web objects, rounded up to whole segments."""
    rng = random.Random(seed)
    mean = MEAN_SIZE_BYTES if sizes == "exponential" else web_mean_bytes()
    rate = load * CAPACITY_BPS / (8 * mean)
    out, t = [], rng.expovariate(rate)
    while t < DURATION_S:
        size = rng.expovariate(1 / MEAN_SIZE_BYTES) if sizes == "exponential" else web_size(rng)
        out.append((t, max(1, math.ceil(size / SEGMENT_BYTES))))
        t += rng.expovariate(rate)
    return out


def tcl(
    variant: str,
    limited_transmit: bool,
    load: float,
    seed: int,
    sizes: str = "exponential",
    trace: Path | None = None,
) -> str:
    """One run's Tcl. With `trace`, each transfer's `cwnd_` and `ndatapack_` (one line per data
    segment sent) are traced into `trace`/cwnd.tr (what `cwnd_at_sends` reads)."""
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
        *(
            []
            if trace is None
            else [
                f"set cwndtrace [open {trace / 'cwnd.tr'} w]",
            ]
        ),
        "set index 0",
        "proc transfer {segments} {",
        "    global ns s1 d senders index cwndtrace",
        f"    set tcp [new {AGENTS[variant]}]",
        "    $ns attach-agent $s1 $tcp",
        *(
            []
            if trace is None
            else ["    $tcp attach $cwndtrace", "    $tcp trace cwnd_", "    $tcp trace ndatapack_"]
        ),
        "    incr index",
        f"    set sink [new {SINKS[variant]}]",
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
    out += [f'$ns at {t:.9f} "transfer {n}"' for t, n in transfers(load, seed, sizes)]
    out += [
        "proc finish {} {",
        "    global senders",
        *([] if trace is None else ["    global cwndtrace", "    close $cwndtrace"]),
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


def cwnd_at_sends(trace: Path, measured_from: int) -> float:
    """Mean `cwnd_` over every data segment sent by the transfers numbered `measured_from` on
    (those that started after the warm-up), as congsim's `transfer_cwnd_mean`: each
    `ndatapack_` increment is one segment sent, at the `cwnd_` traced last before it. Transfer i
    is the agent on S1's port i; the first packet each sends is its SYN, not counted."""
    cwnd: dict[int, float] = {}
    seen: set[int] = set()
    total, count = 0.0, 0
    with open(trace, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            port, name, value = int(fields[2]), fields[5], float(fields[6])
            if port < measured_from:
                continue
            if name == "cwnd_":
                cwnd[port] = value
            elif name == "ndatapack_" and value >= 1:
                if port not in seen:
                    seen.add(port)  # the SYN
                    continue
                total += cwnd[port]
                count += 1
    return total / count


def ns2_web_cwnd(variant: str, limited_transmit: bool, load: float, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "lima.tcl"
        path.write_text(tcl(variant, limited_transmit, load, seed, "web", folder))
        subprocess.run(["ns", str(path)], capture_output=True, text=True, check=True)
        started = transfers(load, seed, "web")
        measured_from = next(i for i, (t, _) in enumerate(started) if t >= WARM_UP_S)
        return cwnd_at_sends(folder / "cwnd.tr", measured_from)


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def web_cells(replications: int) -> None:
    """The study's reference cells (web objects: mean cwnd at every load, variant and Limited
    Transmit) in ns-2, written to python/congsim/studies/data/lima2002-ns2.csv."""
    import time

    import ns2_data

    started = time.perf_counter()
    runs: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    for load in ("0.2", "0.4", "0.6", "0.8"):
        for variant in AGENTS:
            for lt in (False, True):
                values = [ns2_web_cwnd(variant, lt, float(load), seed) for seed in range(1, replications + 1)]
                runs[load, variant, str(lt)] = [{"cwnd": v} for v in values]
                print(f"{load} {variant:8} LT {lt!s:5} cwnd {mean(values):.3f} {values}", flush=True)
    note = (
        f"{replications} runs per configuration (seeds 1-{replications}: arrivals, sizes, CBR phases "
        "and ns-2's RNG), pre-chosen because one run at load 0.8 takes 100 s; cwnd is cwnd_ at each "
        "data segment sent by the transfers that started after 20 s"
    )

    def configuration(row: Mapping[str, str]) -> tuple[str, str, str]:
        return row["transfers[0].load"], row["tcp.variant"], row["tcp.limited_transmit"]

    path = ns2_data.write("lima2002", runs, configuration, ns2_data.command_line(), note)
    print(f"{path} in {time.perf_counter() - started:.0f} s")


def ftp_side_by_side(replications: int) -> None:
    have_ns2 = shutil.which("ns") is not None
    print(f"{'TCP load':8} {'variant':8} {'LT':5} {'RTOs':>6} | ns-2: {'RTOs':>6}")
    for load in (0.6, 0.8):
        for variant in ("reno", "newreno"):
            row: dict[bool, tuple[float, float]] = {}
            for lt in (False, True):
                mine = mean(ours_mean_rtos(variant, lt, load, replications))
                theirs = math.nan
                if have_ns2:
                    jobs = [(variant, lt, load, seed) for seed in range(1, replications + 1)]
                    with ThreadPoolExecutor(max_workers=2) as pool:
                        theirs = mean(list(pool.map(lambda job: ns2_mean_rtos(*job), jobs)))
                row[lt] = (mine, theirs)
                print(f"{load:<8} {variant:8} {lt!s:5} {mine:6.3f} |       {theirs:6.3f}", flush=True)
            ratio_ours = row[True][0] / row[False][0]
            ratio_ns2 = row[True][1] / row[False][1]
            print(f"{'':8} {variant:8} {'ratio':5} {ratio_ours:6.3f} |       {ratio_ns2:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=None, help="ns-2 runs per configuration")
    parser.add_argument("--ftp", action="store_true", help="the FTP RTOs beside congsim's instead")
    args = parser.parse_args()
    if args.ftp:
        ftp_side_by_side(args.replications or 10)
    else:
        web_cells(args.replications or 2)


if __name__ == "__main__":
    main()
