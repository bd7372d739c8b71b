"""Writes a study's ns-2 cross-check as data: `python/congsim/studies/data/<study>-ns2.csv`, one
row per row of the study's published-numbers CSV (`<study>.csv`), with the same key columns
(table, the configuration's axes, metric), ns-2's mean over its own replications with a 95 %
Student-t CI, the replication count, the ns-2 version and the command that produced it. The
comparison (`congsim.studies.judge.compare`) reads it and puts it between the paper and congsim.
"""

from __future__ import annotations

import csv
import math
import statistics
import subprocess
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "python" / "congsim" / "studies" / "data"

#: The reference CSV's columns that are not a cell's key.
NOT_KEYS = ("value", "source", "scored", "note")

#: Columns after the key in `<study>-ns2.csv`.
VALUE_COLUMNS = ["value", "ci_low", "ci_high", "n", "ns2_version", "command", "note"]


def ns2_version() -> str:
    """The installed ns-2, as its Debian package names it ("ns-2 2.35+dfsg-5")."""
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True)
    return f"ns-2 {done.stdout.strip() or 'unknown'}"


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % Student-t CI (NaN bounds for one value), as congsim's sweeps compute them."""
    sys.path.insert(0, str(ROOT / "python"))
    from congsim.sweep.stats import confidence_half_width

    mean = statistics.fmean(values)
    half = confidence_half_width(statistics.stdev(values), len(values)) if len(values) > 1 else math.nan
    return mean, mean - half, mean + half


def reference_rows(study: str) -> tuple[list[str], list[dict[str, str]]]:
    with open(DATA / f"{study}.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return [c for c in reader.fieldnames or [] if c not in NOT_KEYS], rows


def write(
    study: str,
    runs: Mapping[Hashable, Sequence[Mapping[str, float]]],
    configuration: Callable[[Mapping[str, str]], Hashable],
    command: str,
    note: str = "",
) -> Path:
    """One row per reference row of `study`: `runs[configuration(row)]` holds ns-2's runs of
    the row's configuration (one dict of metrics per replication); the row's metric is averaged
    over them."""
    keys, rows = reference_rows(study)
    version = ns2_version()
    path = DATA / f"{study}-ns2.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow([*keys, *VALUE_COLUMNS])
        for row in rows:
            samples = [float(run[row["metric"]]) for run in runs[configuration(row)]]
            mean, low, high = interval(samples)
            numbers = [f"{x:.6g}" if x == x else "" for x in (mean, low, high)]
            out.writerow([*(row[k] for k in keys), *numbers, len(samples), version, command, note])
    return path


def command_line() -> str:
    """How the script was run, for the data's `command` column."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = script.relative_to(ROOT)
    except ValueError:
        shown = script
    return " ".join(["python", str(shown), *sys.argv[1:]])
