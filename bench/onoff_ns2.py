"""congsim's on/off CBR sources against ns-2.35's `Application/Traffic/Exponential` and
`/Pareto` (shape 1.5), written as data: bench/results/onoff_ns2.csv.

One ns-2 Tcl model per law: nodes a and b, a duplex 10 Mb/s, 10 ms DropTail link (nothing is
ever queued or dropped), a UDP agent at a with a LossMonitor at b, and the on/off source at
1 Mb/s while on, 500-byte packets, burst_time_ and idle_time_ 500 ms (shape_ 1.5 for Pareto),
started at 0 and stopped at 2000 s; the run ends at 2001 s. congsim runs the same Tcl model as
`congsim.ns2import.import_script` translates it (a `[[cbr]]` with `on_off = { law, on_mean,
off_mean, shape, stop }`), with `[metrics] sojourn_links = ["a->b"]` added to see every packet.

Each side runs REPLICATIONS (10, fixed before the first run) times. ns-2's replication k (1..10)
draws from substream k of its default RNG (`$defaultRNG next-substream`, called k times, the
ns-2 manual's way to independent replications, section 25.1; the sources' random variables draw
from the default RNG); congsim's is `congsim.run(scenario, replication=k - 1)` (its `[simulation]
seed` left at the default). ns-2 also runs with `$defaultRNG seed k` (simulator `ns-2 (seed k)`
in the CSV), a diagnostic not judged: after `seed k` with a small k, ns-2's MRG32k3a draws a
first uniform k times seed 1's, and its streams are transforms of one another rather than
independent (bench/link_failures_ns2.py shows what that does to rtmodel's draws). Per run: packets sent and
delivered (ns-2: the `+` events of `trace-queue` on a->b and the LossMonitor's `npkts_`;
congsim: the `cbr` table), bursts (ns-2: the `+` times; congsim: the `sojourn` table's times: a
gap between two packets longer than 1.001 sending intervals T = 4 ms starts a burst), packets per
burst, and the mean idle time (the gaps between bursts less T, which is the off time drawn). The
expected packets are rate * 2000 s * on / (on + off) / (8 * 500 B) = 250 000, in bursts of 125
packets.

Agreement, per measure: the means of the two sides differ by no more than their combined 95 %
Student-t CI half-width, sqrt(h_congsim^2 + h_ns2^2). Pareto with shape 1.5 has an infinite
variance, so its spread is wide by nature, and its sample standard deviation understates it.

    python bench/onoff_ns2.py            # runs both sides, writes the CSV, prints the table
    python bench/onoff_ns2.py --table    # the table of the committed CSV, without running
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import math
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_data import ns2_version  # noqa: E402

import congsim  # noqa: E402
from congsim.ns2import import import_script  # noqa: E402
from congsim.sweep.stats import confidence_half_width  # noqa: E402

#: Runs per side and law, fixed before the first run.
REPLICATIONS = 10
DURATION_S = 2000.0
RATE_BPS = 1e6
PACKET_BYTES = 500
ON_S = 0.5
OFF_S = 0.5
SHAPE = 1.5
#: The sending interval while on.
INTERVAL_S = 8 * PACKET_BYTES / RATE_BPS
#: A gap longer than this many intervals starts a burst (ns-2's trace prints microseconds).
BURST_GAP = 1.001
LAWS = {"exponential": "Exponential", "pareto": "Pareto"}
OUT = ROOT / "bench" / "results" / "onoff_ns2.csv"
#: The ns-2 runs: how each draws its replication k (`rng_tcl`); only "ns-2" is judged.
NS2_RUNS = {"ns-2": "substream", "ns-2 (seed k)": "seed"}
COLUMNS = [
    "law",
    "simulator",
    "replication",
    "rng",
    "packets_sent",
    "packets_delivered",
    "bursts",
    "packets_per_burst",
    "mean_idle_s",
    "version",
]
#: The measures judged, in the table's order.
MEASURES = ("packets_delivered", "bursts", "packets_per_burst", "mean_idle_s")


def model(law: str) -> list[str]:
    """The Tcl model both simulators run (after `set ns [new Simulator]`), without its end."""
    lines = [
        "set a [$ns node]",
        "set b [$ns node]",
        "$ns duplex-link $a $b 10Mb 10ms DropTail",
        "set udp [new Agent/UDP]",
        "$ns attach-agent $a $udp",
        "set sink [new Agent/LossMonitor]",
        "$ns attach-agent $b $sink",
        "$ns connect $udp $sink",
        f"set src [new Application/Traffic/{LAWS[law]}]",
        f"$src set packetSize_ {PACKET_BYTES}",
        f"$src set burst_time_ {ON_S * 1000:g}ms",
        f"$src set idle_time_ {OFF_S * 1000:g}ms",
        f"$src set rate_ {RATE_BPS / 1e6:g}Mb",
    ]
    if law == "pareto":
        lines.append(f"$src set shape_ {SHAPE}")
    return [
        *lines,
        "$src attach-agent $udp",
        '$ns at 0.0 "$src start"',
        f'$ns at {DURATION_S} "$src stop"',
    ]


def import_tcl(law: str) -> str:
    """The model as a whole script, for congsim's import."""
    end = [f'$ns at {DURATION_S + 1} "finish"', "proc finish {} { exit 0 }", "$ns run"]
    return "\n".join(["set ns [new Simulator]", *model(law), *end]) + "\n"


def rng_tcl(rng: str, how: str, k: int) -> str:
    """Tcl that sets ns-2's RNG `rng` (`defaultRNG`, `rtglibRNG`) for replication `k`: its
    substream k (`how` "substream") or seed k ("seed")."""
    if how == "seed":
        return f"${rng} seed {k}"
    return f"for {{set j 0}} {{$j < {k}}} {{incr j}} {{ ${rng} next-substream }}"


def rng_text(rng: str, how: str, k: int) -> str:
    """The CSV's `rng` cell of ns-2's replication `k`."""
    return f"${rng} seed {k}" if how == "seed" else f"${rng} next-substream x {k}"


def ns2_tcl(law: str, how: str, k: int, trace: Path) -> str:
    """The model with ns-2's default RNG set for replication `k`, a trace of link a->b and a
    report at the end."""
    lines = [
        "set ns [new Simulator]",
        "global defaultRNG",
        rng_tcl("defaultRNG", how, k),
        *model(law),
        f"set f [open {trace} w]",
        "$ns trace-queue $a $b $f",
        "proc finish {} {",
        "    global sink f",
        "    close $f",
        '    puts "delivered [$sink set npkts_] lost [$sink set nlost_]"',
        "    exit 0",
        "}",
        f'$ns at {DURATION_S + 1} "finish"',
        "$ns run",
    ]
    return "\n".join(lines) + "\n"


def bursts(times: Sequence[float]) -> tuple[int, float]:
    """Bursts in a sorted list of send times and the mean idle time between them."""
    gaps = [b - a for a, b in itertools.pairwise(times)]
    idle = [g - INTERVAL_S for g in gaps if g > BURST_GAP * INTERVAL_S]
    return len(idle) + 1, statistics.fmean(idle) if idle else math.nan


def measures(sent: int, delivered: int, times: Sequence[float]) -> dict[str, float]:
    count, idle = bursts(times)
    return {
        "packets_sent": sent,
        "packets_delivered": delivered,
        "bursts": count,
        "packets_per_burst": sent / count,
        "mean_idle_s": idle,
    }


def ns2(law: str, how: str, k: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        script, trace = Path(tmp) / "onoff.tcl", Path(tmp) / "onoff.tr"
        script.write_text(ns2_tcl(law, how, k, trace))
        out = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True).stdout
        with trace.open() as f:
            times = [float(line.split(" ", 2)[1]) for line in f if line.startswith("+")]
    words = out.split()
    delivered, lost = int(words[words.index("delivered") + 1]), int(words[words.index("lost") + 1])
    if lost or delivered != len(times):
        raise RuntimeError(f"ns-2 lost packets on a link that should lose none: {out}")
    return measures(len(times), delivered, times)


@functools.cache
def scenario(law: str) -> congsim.Scenario:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"onoff_{law}.tcl"
        path.write_text(import_tcl(law))
        imported = import_script(path)
    (cbr,) = imported.document["cbr"]
    on_off = cbr["on_off"]
    expected: dict[str, object] = {"law": law, "on_mean": "500ms", "off_mean": "500ms", "stop": "2000s"}
    if law == "pareto":
        expected["shape"] = SHAPE
    if on_off != expected or cbr["rate"] != "1Mbps" or cbr["packet_size"] != "500B":
        raise RuntimeError(f"the import translated the source unexpectedly: {cbr}")
    return congsim.loads(imported.text, f"onoff_{law}.tcl", {"metrics.sojourn_links": ["a->b"]})


def ours(law: str, replication: int) -> dict[str, float]:
    results = congsim.run(scenario(law), replication=replication)
    row = results.cbr.iloc[0]
    times = results.table("sojourn")["time_s"].to_list()
    return measures(int(row["packets_sent"]), int(row["packets_delivered"]), times)


def congsim_version() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    commit = done.stdout.strip()
    return f"congsim {congsim.__version__}" + (f" ({commit})" if commit else "")


@dataclass(frozen=True)
class Side:
    """One side's replications of one measure: mean, sample standard deviation and the
    half-width of the 95 % Student-t CI."""

    n: int
    mean: float
    sd: float
    half: float

    @staticmethod
    def of(values: Sequence[float]) -> Side:
        sd = statistics.stdev(values)
        return Side(len(values), statistics.fmean(values), sd, confidence_half_width(sd, len(values)))


def agrees(a: Side, b: Side) -> bool:
    """The rule: the means differ by no more than the combined CI half-width."""
    return abs(a.mean - b.mean) <= math.hypot(a.half, b.half)


def sides(rows: Iterable[Mapping[str, str]], measure: str, where: Mapping[str, str]) -> dict[str, Side]:
    """Each simulator's replications of `measure` (non-empty cells) in the rows that have the
    values of `where`."""
    values: dict[str, list[float]] = {}
    for row in rows:
        if all(row[k] == v for k, v in where.items()) and row[measure] != "":
            values.setdefault(row["simulator"], []).append(float(row[measure]))
    return {simulator: Side.of(v) for simulator, v in values.items()}


def number(x: float, digits: int = 4) -> str:
    """`x` for the table: whole from 1000 on, else `digits` significant digits."""
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.{digits}g}"


def table(
    rows: Sequence[Mapping[str, str]],
    groups: Sequence[tuple[str, Mapping[str, str]]],
    names: Sequence[str],
    reference: str = "ns-2",
) -> str:
    """A Markdown table: per group (a label and the column values of its rows) and measure,
    the `reference` simulator's and congsim's mean ± CI (sd), the difference, the combined CI
    and the verdict."""
    out = [
        f"| case | measure | {reference}: mean ± CI (sd) | congsim: mean ± CI (sd) "
        "| difference | combined CI | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, where in groups:
        for measure in names:
            s = sides(rows, measure, where)
            if reference not in s or "congsim" not in s:
                continue
            n, c = s[reference], s["congsim"]
            verdict = "agrees" if agrees(c, n) else "differs"
            out.append(
                f"| {label} | {measure} | {number(n.mean)} ± {number(n.half, 3)} ({number(n.sd, 3)}) "
                f"| {number(c.mean)} ± {number(c.half, 3)} ({number(c.sd, 3)}) "
                f"| {'+' if c.mean >= n.mean else ''}{number(c.mean - n.mean, 3)} "
                f"| {number(math.hypot(c.half, n.half), 3)} | {verdict} |"
            )
    return "\n".join(out)


def write(path: Path, columns: Sequence[str], rows: Sequence[Mapping[str, object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, columns, lineterminator="\n")
        out.writeheader()
        for row in rows:
            out.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true", help="print the committed CSV's table only")
    args = parser.parse_args()
    if not args.table:
        rows: list[dict[str, object]] = []
        ns2_text, congsim_text = ns2_version(), congsim_version()
        for law in LAWS:
            for k in range(1, REPLICATIONS + 1):
                runs = [
                    (simulator, rng_text("defaultRNG", how, k), ns2(law, how, k), ns2_text)
                    for simulator, how in NS2_RUNS.items()
                ]
                runs.append(("congsim", f"congsim.run(replication={k - 1})", ours(law, k - 1), congsim_text))
                for simulator, rng, measured, version in runs:
                    row = {"law": law, "simulator": simulator, "replication": k, "rng": rng}
                    rows.append({**row, **measured, "version": version})
                    print(law, simulator, k, measured["packets_delivered"], measured["bursts"], flush=True)
        write(OUT, COLUMNS, rows)
        print(OUT)
    groups = [(law, {"law": law}) for law in LAWS]
    rows_read = read(OUT)
    print(table(rows_read, groups, MEASURES))
    print("\nDiagnostic, not judged: ns-2 with $defaultRNG seed k")
    print(table(rows_read, groups, MEASURES, "ns-2 (seed k)"))


if __name__ == "__main__":
    main()
