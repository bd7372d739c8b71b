"""Lock-out on the `200` benchmark dumbbell: congsim against ns-2.35 on the same network.

bench/scale.py's row `200` is the benchmark dumbbell (bench/make_dumbbell.py) with 200
persistent ns-2 Reno flows (profile ns2_2000, 500-byte packets, window 10000), 100 Mbps access
links with delays 3-7 ms, a 100 Mbps / 5 ms bottleneck with a 200-packet DropTail queue, 10 s.
This runs that scenario, as `scale.scenario_text` writes it, in congsim (Python API) and in
ns-2.35 (the same document translated by bench/ns2_script.py, with the ns2_2000 switches), and
compares how the flows share the bottleneck.

The row has no start jitter: every flow starts at 0, and each simulator's run is then one fixed
run (the only draws are each sender's tick-clock phase, ns-2's `boot_time_` from its default
RNG, congsim's `boot_phase` from replication 0's streams: deviation D5). So each side runs that
unjittered run, and REPLICATIONS (5, fixed before the first run) jittered ones, flow i starting
at a time drawn from U(0, 10 ms):
- `congsim`: `simulation.start_jitter = "10ms"`, `congsim.run(..., replication=k)`, k = 1..5;
- `ns-2`: the starts drawn in Python with `random.Random(k)` as bench/dumbbell_ns2.py draws them
  and written into the Tcl script;
- `congsim (ns-2 starts)`: congsim with exactly ns-2's start times of replication k
  (`flows[i].start`, replication 0), a paired run: the two then differ only in themselves and
  in their draws of the tick-clock phases.
Then the unjittered run over 60 s on each side (skipped with `--no-long`).

Per run, from the flows' goodputs (congsim: `goodput_bps`, in-order payload; ns-2: the sinks'
in-order `bytes_` over the duration, which with `useHeaders_ false` is payload too): Jain's
fairness index, the largest flow's share of the total goodput (and which flow it is), Jain's
index of the other 199 flows, the number of flows below 10 % of the fair share (the total
goodput over 200), the total goodput in Mbps, and the timeouts (congsim: the flows' `timeouts`;
ns-2: the senders' `nrexmit_`, as bench/dumbbell_ns2.py and bench/koga_ns2.py count them).

The phase test. With the bottleneck busy and its queue full, a slot frees every T = 40 us (one
500-byte packet at 100 Mbps), and DropTail gives it to the first packet that arrives after it.
A flow's packet arrives at the bottleneck a fixed time after its own previous packet left it:
the 20 ms of bottleneck and receiver propagation both ways, two 40 us data transmissions (r2-d,
s-r1), three 3.2 us transmissions of the 40-byte ACK, and twice the access delay. That time
modulo T (`phase_ns`) is the flow's place in the 40 us cycle; the flow with the smallest phase
arrives first after a departure, wins the freed slot whenever it contends, and is predicted to
take the largest share (Floyd and Jacobson's phase effects). The script prints the prediction
and checks it in two unjittered 10 s runs per side with one access delay changed: tcp153
+10 us (its phase from 152 ns to 20 152 ns: tcp154, at 354 ns, predicted to win) and tcp1
+15.225 us (its phase from 9600 ns to 50 ns: tcp1 predicted to win).

Writes one row per simulator and run, and the means over the 5 jittered replications, to
bench/results/lockout_ns2.csv, and prints them side by side. Needs ns-2 (`apt-get install
ns2`); about a minute in all.

    python bench/lockout_ns2.py [--no-long]
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from dumbbell_ns2 import JITTER_S  # noqa: E402
from make_dumbbell import access_delay_ns  # noqa: E402
from ns2_data import ns2_version  # noqa: E402
from ns2_script import ns2_script_from_document  # noqa: E402
from onoff_ns2 import congsim_version  # noqa: E402
from scale import ROWS, scenario_text  # noqa: E402

import congsim  # noqa: E402

ROW = next(row for row in ROWS if row.label == "200")
#: Jittered replications per side, fixed before the first run.
REPLICATIONS = 5
LONG_S = 60.0
OUT = ROOT / "bench" / "results" / "lockout_ns2.csv"

#: One bottleneck slot: a 500-byte packet at 100 Mbps, in ns.
SLOT_NS = ROW.packet_bytes * 8 * 1000 // ROW.rate_mbps
#: A flow's loop from its packet leaving the bottleneck to its next packet arriving there, less
#: twice its access delay: 4 x 5 ms of propagation, the data packet's transmissions on r2-d and
#: s-r1 and the 40-byte ACK's on d-r2, r2-r1 and r1-s, all at 100 Mbps.
LOOP_NS = 4 * 5_000_000 + 2 * SLOT_NS + 3 * 40 * 8 * 1000 // ROW.rate_mbps
#: The phase test: (name, {flow: extra access delay in ns}).
SHIFTS: list[tuple[str, dict[int, int]]] = [("tcp153 +10us", {153: 10_000}), ("tcp1 +15.225us", {1: 15_225})]

#: Appended to ns2_script's Tcl: the `finish` it schedules first prints every flow's in-order
#: sink bytes, timeouts and window cuts, then does what it did.
PER_FLOW_TCL = """
rename finish finish_totals
proc finish {} {
    global sinks senders
    set i 0
    foreach s $sinks t $senders {
        puts "flow $i [$s set bytes_] [$t set nrexmit_] [$t set ncwndcuts_]"
        incr i
    }
    finish_totals
}
"""


@dataclass(frozen=True)
class Run:
    simulator: str
    duration_s: float
    run: str  # "unjittered", "1".."5", "mean 1-5", or a phase test's name
    starts: str
    jain_index: float
    largest_share: float
    largest_flow: str
    jain_rest: float
    flows_below_10pct: float
    total_goodput_mbps: float
    timeouts: float
    wall_s: float
    version: str


COLUMNS = [f.name for f in fields(Run)]
MEANS = ["jain_index", "largest_share", "jain_rest", "flows_below_10pct", "total_goodput_mbps", "timeouts"]


def jain(x: Sequence[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def measures(goodputs_bps: Sequence[float], timeouts: float) -> dict[str, Any]:
    """The sharing measures of one run from its flows' goodputs (in flow order, tcp1 first)."""
    total, n = sum(goodputs_bps), len(goodputs_bps)
    largest = max(range(n), key=lambda i: goodputs_bps[i])
    return {
        "jain_index": jain(goodputs_bps),
        "largest_share": goodputs_bps[largest] / total,
        "largest_flow": f"tcp{largest + 1}",
        "jain_rest": jain([x for i, x in enumerate(goodputs_bps) if i != largest]),
        "flows_below_10pct": float(sum(x < 0.1 * total / n for x in goodputs_bps)),
        "total_goodput_mbps": total / 1e6,
        "timeouts": timeouts,
    }


def phase_ns(flow: int, shift_ns: int = 0) -> int:
    """Where in the bottleneck's 40 us cycle flow `flow`'s (1-based) next packet arrives."""
    return (LOOP_NS + 2 * (access_delay_ns(flow, ROW.size) + shift_ns)) % SLOT_NS


def predicted_winner(shifts: Mapping[int, int]) -> str:
    flows = range(1, ROW.size + 1)
    return f"tcp{min(flows, key=lambda i: phase_ns(i, shifts.get(i, 0)))}"


def drawn_starts(seed: int) -> list[str]:
    """Replication `seed`'s start times, drawn as bench/dumbbell_ns2.py draws them."""
    starts = random.Random(seed)
    return [f"{starts.uniform(0, JITTER_S):.9f}s" for _ in range(ROW.size)]


def text(duration_s: float) -> str:
    return scenario_text(ROW).replace(f'duration = "{ROW.duration_s:g}s"', f'duration = "{duration_s:g}s"')


def changes(
    duration_s: float, starts: Sequence[str] = (), shifts: Mapping[int, int] | None = None
) -> dict[str, str]:
    """Start times and access delays to change, as congsim overrides (paths into the scenario)."""
    doc = tomllib.loads(text(duration_s))
    out = {f"flows[{i}].start": s for i, s in enumerate(starts)}
    for flow, shift in (shifts or {}).items():
        k = next(k for k, link in enumerate(doc["links"]) if link["from"] == f"s{flow}")
        out[f"links[{k}].delay"] = f"{access_delay_ns(flow, ROW.size) + shift}ns"
    return out


def ns2(duration_s: float, overrides: Mapping[str, str]) -> tuple[dict[str, Any], float]:
    doc = tomllib.loads(text(duration_s))
    for where, value in overrides.items():
        table, index, key = where.replace("[", ".").replace("]", "").split(".")
        doc[table][int(index)][key] = value
    script = ns2_script_from_document(doc)
    assert script.endswith("$ns run\n")
    script = script.removesuffix("$ns run\n") + PER_FLOW_TCL + "$ns run\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lockout.tcl"
        path.write_text(script)
        started = time.perf_counter()
        done = subprocess.run(["ns", str(path)], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
    flows = [
        [int(x) for x in line.split()[2:]] for line in done.stdout.splitlines() if line.startswith("flow ")
    ]
    assert len(flows) == ROW.size, done.stdout[-500:]
    goodputs = [b * 8 / duration_s for b, _, _ in flows]
    return measures(goodputs, float(sum(t for _, t, _ in flows))), wall


def ours(
    duration_s: float, overrides: Mapping[str, str], replication: int = 0
) -> tuple[dict[str, Any], float]:
    scenario = congsim.loads(text(duration_s), f"{ROW.label}.toml", dict(overrides))
    started = time.perf_counter()
    flows = congsim.run(scenario, replication=replication).flows
    wall = time.perf_counter() - started
    return measures(flows["goodput_bps"].tolist(), float(flows["timeouts"].sum())), wall


def mean_row(runs: Sequence[Run]) -> Run:
    numbers = {name: statistics.fmean(getattr(r, name) for r in runs) for name in [*MEANS, "wall_s"]}
    first = runs[0]
    return Run(
        first.simulator, first.duration_s, f"mean 1-{len(runs)}", first.starts.split(":")[0], **numbers,
        largest_flow=" ".join(r.largest_flow for r in runs), version=first.version,
    )  # fmt: skip


HEADER = (
    f"{'simulator':22} {'s':>3} {'run':15} {'Jain':>6} {'largest':>7} {'rest':>6} {'<10%':>4} "
    f"{'Mbps':>6} {'timeouts':>8} {'wall s':>6}  largest flow"
)


def line(r: Run) -> str:
    return (
        f"{r.simulator:22} {r.duration_s:3g} {r.run:15} {r.jain_index:6.4f} {r.largest_share:7.3f} "
        f"{r.jain_rest:6.3f} {r.flows_below_10pct:4.1f} {r.total_goodput_mbps:6.2f} {r.timeouts:8.1f} "
        f"{r.wall_s:6.2f}  {r.largest_flow}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-long", action="store_true", help=f"skip the {LONG_S:g} s runs")
    parser.add_argument(
        "--replications",
        type=int,
        default=REPLICATIONS,
        help=f"jittered replications (default {REPLICATIONS}, pre-registered; more is exploratory)",
    )
    parser.add_argument("--csv", type=Path, default=OUT, help=f"where to write the runs (default {OUT})")
    args = parser.parse_args()
    versions = {"ns-2": ns2_version(), "congsim": congsim_version()}
    duration = float(ROW.duration_s)
    rows: list[Run] = []

    def record(simulator: str, d: float, run: str, starts: str, got: tuple[dict[str, Any], float]) -> Run:
        version = versions["ns-2" if simulator == "ns-2" else "congsim"]
        row = Run(simulator, d, run, starts, **got[0], wall_s=got[1], version=version)
        rows.append(row)
        print(line(row), flush=True)
        return row

    print(f"predicted largest flow: {predicted_winner({})} (phase {phase_ns(153)} ns)")
    print(HEADER)
    record("congsim", duration, "unjittered", "all at 0", ours(duration, {}))
    record("ns-2", duration, "unjittered", "all at 0", ns2(duration, {}))
    jitter = f"U(0, {JITTER_S * 1e3:g} ms)"
    on_jitter = {"simulation.start_jitter": f"{JITTER_S * 1e3:g}ms"}
    jittered: dict[str, list[Run]] = {"congsim": [], "ns-2": [], "congsim (ns-2 starts)": []}
    for k in range(1, args.replications + 1):
        drawn = changes(duration, drawn_starts(k))
        by_python = f"{jitter}: random.Random({k})"
        runs = [
            ("congsim", f"{jitter}: start_jitter, replication {k}", ours(duration, on_jitter, k)),
            ("ns-2", by_python, ns2(duration, drawn)),
            ("congsim (ns-2 starts)", by_python, ours(duration, drawn)),
        ]
        for simulator, starts, got in runs:
            jittered[simulator].append(record(simulator, duration, str(k), starts, got))
    for name, shifts in SHIFTS:
        print(f"{name}: predicted largest flow {predicted_winner(shifts)}")
        moved = changes(duration, shifts=shifts)
        record("congsim", duration, name, "all at 0", ours(duration, moved))
        record("ns-2", duration, name, "all at 0", ns2(duration, moved))
    if not args.no_long:
        record("congsim", LONG_S, "unjittered", "all at 0", ours(LONG_S, {}))
        record("ns-2", LONG_S, "unjittered", "all at 0", ns2(LONG_S, {}))
    means = [mean_row(runs) for runs in jittered.values()]
    rows += means
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with args.csv.open("w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        out.writeheader()
        for r in rows:
            out.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in asdict(r).items()})
    print(f"\nMeans over the {args.replications} jittered replications ({duration:g} s):")
    print(HEADER)
    for r in means:
        print(line(r))
    # Paired: congsim and ns-2 on the same start times, replication by replication.
    differences = [
        float(congsim_run.timeouts - ns2_run.timeouts)
        for congsim_run, ns2_run in zip(jittered["congsim (ns-2 starts)"], jittered["ns-2"], strict=True)
    ]
    if len(differences) > 1:
        error = statistics.stdev(differences) / len(differences) ** 0.5
        print(
            f"timeouts, congsim (ns-2 starts) - ns-2, paired: {statistics.mean(differences):+.1f} "
            f"(standard error {error:.1f}; {sum(d > 0 for d in differences)} of {len(differences)} higher)"
        )
    print(args.csv)


if __name__ == "__main__":
    main()
