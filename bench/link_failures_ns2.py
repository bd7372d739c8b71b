"""congsim's `link_failures` event against ns-2.35's `$ns rtmodel Exponential {up down} $n1 $n2`,
written as data: bench/results/link_failures_ns2.csv.

One ns-2 Tcl model: nodes src, p1, b1, b2, dst; duplex 10 Mb/s, 5 ms DropTail links src-p1-dst
(the short path, 2 hops) and src-b1-b2-dst (the backup, 3 hops); a 1 Mb/s CBR of 500-byte packets
(one every T = 4 ms) from src to a LossMonitor at dst, sent from 0 to 1000 s; the run ends at
1001 s. `$ns rtmodel Exponential {8 2} $src $p1`: ns-2 (tcl/rtglib/dynamics.tcl, set-parms) reads
two parameters as the mean up time and the mean down time in seconds, starts the process at its
default 0.5 s with the link up, takes both directions down after an exponential up time and up
again after an exponential down time, drawing from `$rtglibRNG`. `$ns rtproto Session`: ns-2's
centralized routing, recomputed at the instant a link goes down or up, as congsim recomputes its
routes (DV would converge through its own updates, losing packets meanwhile). congsim runs the
same Tcl model as `congsim.ns2import.import_script` translates it (one `link_failures` event at
500 ms on src->p1, up_mean 8 s, down_mean 2 s; the script checks the translation), with `[metrics]
sojourn_links = ["src->b1"]` added to see each packet that takes the backup.

Each side runs REPLICATIONS (10, fixed before the first run) times. ns-2's replication k (1..10)
draws from substream k of `$rtglibRNG` (`next-substream` called k times: the ns-2 manual's way to
independent replications, section 25.1); only rtglibRNG draws here, an RNG of ns-2's routing
library that the library seeds with 1 itself, so `$defaultRNG seed` does not reach it. congsim's
replication k is `congsim.run(scenario, replication=k - 1)`. ns-2 also runs with `$rtglibRNG seed
k` (simulator `ns-2 (seed k)` in the CSV), a diagnostic not judged: after `seed k` with a small k
the first uniform drawn is k times seed 1's, so the first exponential is 7.99 - ln k (the first up
time is 7.99, 7.30, 6.90, ... times its mean), and the ten streams are transforms of one another,
not independent (every ns-2 run that does not seed rtglibRNG has its first down at 0.5 s + 7.99
up_mean). Per run, measured alike on both sides from the packets: sent (ns-2: `+` events of
`trace-queue` on src->p1 and src->b1; congsim: the `cbr` table), delivered (LossMonitor `npkts_`;
the `cbr` table), lost (sent less delivered), backup packets (sent on src->b1), the fraction of
time down (backup packets over sent, the primary's down time seen on the CBR's 4 ms clock) and the
down events (runs of consecutive backup packets: a gap longer than 1.5 T ends one; a down period
shorter than T may hold no packet and go unseen). ns-2 also writes its link-state changes (`$model
trace`), from which the exact down events before 1000 s and the exact down fraction of [0, 1000 s]
are added (congsim has no table of link-state changes). Expected: a down fraction of 2 / (8 + 2) =
0.2 and about 100 down events.

Agreement, per measure, as in bench/onoff_ns2.py: the means of the two sides differ by no more
than their combined 95 % Student-t CI half-width.

    python bench/link_failures_ns2.py           # runs both sides, writes the CSV, prints the table
    python bench/link_failures_ns2.py --table   # the table of the committed CSV, without running
"""

from __future__ import annotations

import argparse
import functools
import itertools
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_data import ns2_version  # noqa: E402
from onoff_ns2 import NS2_RUNS, congsim_version, number, read, rng_tcl, rng_text, sides, table, write  # noqa: E402

import congsim  # noqa: E402
from congsim.ns2import import import_script  # noqa: E402

#: Runs per side, fixed before the first run.
REPLICATIONS = 10
DURATION_S = 1000.0
UP_MEAN_S = 8.0
DOWN_MEAN_S = 2.0
RATE_BPS = 1e6
PACKET_BYTES = 500
INTERVAL_S = 8 * PACKET_BYTES / RATE_BPS
OUT = ROOT / "bench" / "results" / "link_failures_ns2.csv"
COLUMNS = [
    "simulator",
    "replication",
    "rng",
    "packets_sent",
    "packets_delivered",
    "packets_lost",
    "backup_packets",
    "down_fraction",
    "down_events",
    "lost_per_down_event",
    "down_fraction_exact",
    "down_events_exact",
    "version",
]
#: The measures judged, in the table's order.
MEASURES = ("down_events", "down_fraction", "packets_delivered", "packets_lost", "lost_per_down_event")
LINKS = (("src", "p1"), ("p1", "dst"), ("src", "b1"), ("b1", "b2"), ("b2", "dst"))


def model() -> list[str]:
    """The Tcl model both simulators run (after `set ns [new Simulator]`), without its end."""
    return [
        "$ns rtproto Session",
        "foreach n {src p1 b1 b2 dst} { set $n [$ns node] }",
        *(f"$ns duplex-link ${a} ${b} 10Mb 5ms DropTail" for a, b in LINKS),
        "set udp [new Agent/UDP]",
        "$ns attach-agent $src $udp",
        "set sink [new Agent/LossMonitor]",
        "$ns attach-agent $dst $sink",
        "$ns connect $udp $sink",
        "set cbr [new Application/Traffic/CBR]",
        f"$cbr set packetSize_ {PACKET_BYTES}",
        f"$cbr set rate_ {RATE_BPS / 1e6:g}Mb",
        "$cbr attach-agent $udp",
        f"set model [$ns rtmodel Exponential {{{UP_MEAN_S:g} {DOWN_MEAN_S:g}}} $src $p1]",
        '$ns at 0.0 "$cbr start"',
        f'$ns at {DURATION_S} "$cbr stop"',
    ]


def import_tcl() -> str:
    """The model as a whole script, for congsim's import."""
    end = [f'$ns at {DURATION_S + 1} "finish"', "proc finish {} { exit 0 }", "$ns run"]
    return "\n".join(["set ns [new Simulator]", *model(), *end]) + "\n"


def ns2_tcl(how: str, k: int, folder: Path) -> str:
    """The model with rtmodel's RNG set for replication `k` (`rng_tcl`), traces of both first
    hops and of the link states, and a report at the end."""
    lines = [
        "set ns [new Simulator]",
        "global rtglibRNG",
        rng_tcl("rtglibRNG", how, k),
        *model(),
        f"set fp [open {folder / 'primary.tr'} w]",
        "$ns trace-queue $src $p1 $fp",
        f"set fb [open {folder / 'backup.tr'} w]",
        "$ns trace-queue $src $b1 $fb",
        f"set fd [open {folder / 'dynamics.tr'} w]",
        "$model trace $ns $fd",
        "proc finish {} {",
        "    global sink fp fb fd",
        "    close $fp",
        "    close $fb",
        "    close $fd",
        '    puts "delivered [$sink set npkts_]"',
        "    exit 0",
        "}",
        f'$ns at {DURATION_S + 1} "finish"',
        "$ns run",
    ]
    return "\n".join(lines) + "\n"


def sent_times(trace: Path) -> list[float]:
    with trace.open() as f:
        return [float(line.split(" ", 2)[1]) for line in f if line.startswith("+")]


def down_periods(trace: Path) -> list[tuple[float, float]]:
    """ns-2's down periods of src->p1 (node 0 to node 1), from its `v ... link-down T 0 1`
    lines, the last one closed at the end of the run."""
    periods: list[tuple[float, float]] = []
    down: float | None = None
    with trace.open() as f:
        for line in f:
            words = line.split()
            if words[0] != "v" or words[3:5] != ["0", "1"]:
                continue
            when = float(words[1])
            if words[2] == "link-down":
                down = when
            elif words[2] == "link-up" and down is not None:
                periods.append((down, when))
                down = None
    if down is not None:
        periods.append((down, DURATION_S + 1))
    return periods


def measures(sent: int, delivered: int, backup: Sequence[float]) -> dict[str, float]:
    """What both sides measure from the packets: `backup` holds the send times of the packets
    that took the backup path."""
    gaps = sum(1 for a, b in itertools.pairwise(backup) if b - a > 1.5 * INTERVAL_S)
    events = gaps + 1 if backup else 0
    return {
        "packets_sent": sent,
        "packets_delivered": delivered,
        "packets_lost": sent - delivered,
        "backup_packets": len(backup),
        "down_fraction": len(backup) / sent,
        "down_events": events,
        "lost_per_down_event": (sent - delivered) / events,
    }


def ns2(how: str, k: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        script = folder / "failures.tcl"
        script.write_text(ns2_tcl(how, k, folder))
        out = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True).stdout
        primary, backup = sent_times(folder / "primary.tr"), sent_times(folder / "backup.tr")
        periods = down_periods(folder / "dynamics.tr")
    words = out.split()
    delivered = int(words[words.index("delivered") + 1])
    down_s = sum(max(0.0, min(b, DURATION_S) - a) for a, b in periods if a < DURATION_S)
    return {
        **measures(len(primary) + len(backup), delivered, backup),
        "down_fraction_exact": down_s / DURATION_S,
        "down_events_exact": sum(1 for a, _ in periods if a < DURATION_S),
    }


@functools.cache
def scenario() -> congsim.Scenario:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "link_failures.tcl"
        path.write_text(import_tcl())
        imported = import_script(path)
    # ns-2 starts the process at 0.5 s when the parameters give no start.
    expected = {
        "at": "500ms",
        "action": "link_failures",
        "link": "src->p1",
        "up_mean": f"{UP_MEAN_S:g}s",
        "down_mean": f"{DOWN_MEAN_S:g}s",
    }
    if imported.document["events"] != [expected]:
        raise RuntimeError(f"the import translated the rtmodel unexpectedly: {imported.document['events']}")
    return congsim.loads(imported.text, "link_failures.tcl", {"metrics.sojourn_links": ["src->b1"]})


def ours(replication: int) -> dict[str, float | str]:
    results = congsim.run(scenario(), replication=replication)
    row = results.cbr.iloc[0]
    backup = results.table("sojourn")["time_s"].to_list()
    measured = measures(int(row["packets_sent"]), int(row["packets_delivered"]), backup)
    if measured["packets_lost"] != int(row["packets_dropped"]):
        raise RuntimeError(f"congsim's sent, delivered and dropped do not add up: {row.to_dict()}")
    return {**measured, "down_fraction_exact": "", "down_events_exact": ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true", help="print the committed CSV's table only")
    args = parser.parse_args()
    if not args.table:
        rows: list[dict[str, object]] = []
        ns2_text, congsim_text = ns2_version(), congsim_version()
        for k in range(1, REPLICATIONS + 1):
            runs: list[tuple[str, str, dict[str, float | str], str]] = [
                (simulator, rng_text("rtglibRNG", how, k), {**ns2(how, k)}, ns2_text)
                for simulator, how in NS2_RUNS.items()
            ]
            runs.append(("congsim", f"congsim.run(replication={k - 1})", ours(k - 1), congsim_text))
            for simulator, rng, measured, version in runs:
                row = {"simulator": simulator, "replication": k, "rng": rng}
                rows.append({**row, **measured, "version": version})
                print(simulator, k, {m: measured[m] for m in MEASURES}, flush=True)
        write(OUT, COLUMNS, rows)
        print(OUT)
    rows_read = read(OUT)
    print(table(rows_read, [("failures", {})], MEASURES))
    print("\nDiagnostic, not judged: ns-2 with $rtglibRNG seed k")
    print(table(rows_read, [("failures", {})], MEASURES, "ns-2 (seed k)"))
    # ns-2's exact counts beside its packet-seen ones: what the 4 ms clock misses.
    for simulator in NS2_RUNS:
        for seen, exact in (("down_events", "down_events_exact"), ("down_fraction", "down_fraction_exact")):
            a, b = (sides(rows_read, m, {})[simulator] for m in (seen, exact))
            shown = (f"{number(x.mean)} ± {number(x.half, 3)}" for x in (a, b))
            print(f"{simulator} {seen}: seen on the packets {next(shown)}, exact {next(shown)}")


if __name__ == "__main__":
    main()
