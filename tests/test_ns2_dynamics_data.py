"""The committed ns-2 cross-checks of congsim's on/off sources and random link failures
(bench/onoff_ns2.py, bench/link_failures_ns2.py; docs/validation.md): their CSVs are whole and
consistent, and congsim's rows agree with ns-2's by the rule stated there (the two means differ
by no more than their combined 95 % Student-t CI half-width). Reads the data only: no ns-2 run."""

from __future__ import annotations

import csv
import math
import statistics

import pytest
from conftest import ROOT

from congsim.sweep.stats import confidence_half_width

RESULTS = ROOT / "bench" / "results"
#: Replications per side, fixed in the scripts before their first run.
N = 10
#: The ns-2 runs judged (substream k of the RNG) and the diagnostic (seed k), and congsim's.
SIMULATORS = ("ns-2", "ns-2 (seed k)", "congsim")
ONOFF_COLUMNS = [
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
FAILURE_COLUMNS = [
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
ONOFF_MEASURES = ("packets_delivered", "bursts", "packets_per_burst", "mean_idle_s")
FAILURE_MEASURES = (
    "down_events",
    "down_fraction",
    "packets_delivered",
    "packets_lost",
    "lost_per_down_event",
)


def read(name: str) -> tuple[list[str], list[dict[str, str]]]:
    with (RESULTS / name).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def values(rows: list[dict[str, str]], simulator: str, measure: str, **where: str) -> list[float]:
    return [
        float(r[measure])
        for r in rows
        if r["simulator"] == simulator and all(r[k] == v for k, v in where.items())
    ]


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % Student-t CI."""
    return statistics.fmean(xs), confidence_half_width(statistics.stdev(xs), len(xs))


def agree(ours: list[float], theirs: list[float]) -> tuple[bool, str]:
    (a, ha), (b, hb) = interval(ours), interval(theirs)
    return abs(a - b) <= math.hypot(ha, hb), f"congsim {a:.6g} ± {ha:.3g}, ns-2 {b:.6g} ± {hb:.3g}"


def check_runs(rows: list[dict[str, str]], **where: str) -> None:
    """Every simulator has replications 1..N once, each with its version and RNG."""
    for simulator in SIMULATORS:
        mine = [r for r in rows if r["simulator"] == simulator and all(r[k] == v for k, v in where.items())]
        assert sorted(int(r["replication"]) for r in mine) == list(range(1, N + 1)), (simulator, where)
        for r in mine:
            k = int(r["replication"])
            if simulator == "congsim":
                assert r["version"].startswith("congsim "), r
                assert r["rng"] == f"congsim.run(replication={k - 1})", r
            else:
                assert r["version"].startswith("ns-2 2.35"), r
                how = f"seed {k}" if simulator == "ns-2 (seed k)" else f"next-substream x {k}"
                assert r["rng"].endswith(how), r


def test_the_onoff_data_is_whole_and_consistent() -> None:
    columns, rows = read("onoff_ns2.csv")
    assert columns == ONOFF_COLUMNS
    assert len(rows) == 2 * len(SIMULATORS) * N
    for law in ("exponential", "pareto"):
        check_runs(rows, law=law)
    for r in rows:
        sent, delivered, bursts = int(r["packets_sent"]), int(r["packets_delivered"]), int(r["bursts"])
        # A fat link: nothing is lost; 2000 s of a 1 Mb/s source, on half the time.
        assert sent == delivered and 150_000 < sent < 350_000, r
        assert 1000 < bursts < 3000, r
        assert float(r["packets_per_burst"]) == pytest.approx(sent / bursts, rel=1e-5)
        # Mean 0.5 s; Pareto's idle times are at least its scale, 0.5 (1.5 - 1) / 1.5 s.
        low, high = (0.4, 0.6) if r["law"] == "exponential" else (0.5 / 3, 2.0)
        assert low < float(r["mean_idle_s"]) < high, r


@pytest.mark.parametrize("law", ["exponential", "pareto"])
@pytest.mark.parametrize("measure", ONOFF_MEASURES)
def test_congsim_onoff_agrees_with_ns2(law: str, measure: str) -> None:
    _, rows = read("onoff_ns2.csv")
    ok, shown = agree(values(rows, "congsim", measure, law=law), values(rows, "ns-2", measure, law=law))
    assert ok, f"{law} {measure}: {shown}"


def test_the_link_failure_data_is_whole_and_consistent() -> None:
    columns, rows = read("link_failures_ns2.csv")
    assert columns == FAILURE_COLUMNS
    assert len(rows) == len(SIMULATORS) * N
    check_runs(rows)
    for r in rows:
        sent, delivered, lost = (int(r[c]) for c in ("packets_sent", "packets_delivered", "packets_lost"))
        backup, events = int(r["backup_packets"]), int(r["down_events"])
        # 1000 s of one packet every 4 ms; losses are the few packets on the link as it fails.
        assert sent == 250_000 and delivered + lost == sent and 0 < lost < 400, r
        assert float(r["down_fraction"]) == pytest.approx(backup / sent, rel=1e-5)
        assert float(r["lost_per_down_event"]) == pytest.approx(lost / events, rel=1e-5)
        if r["simulator"] == "congsim":
            assert r["down_fraction_exact"] == r["down_events_exact"] == "", r
            continue
        # The packets see a down period only when it holds a send time: never more events than
        # there were, and the fraction within a few sending intervals per event.
        exact_events, exact_fraction = int(r["down_events_exact"]), float(r["down_fraction_exact"])
        assert exact_events - 2 <= events <= exact_events, r
        assert abs(float(r["down_fraction"]) - exact_fraction) <= exact_events * 0.004 / 1000, r


@pytest.mark.parametrize("measure", FAILURE_MEASURES)
def test_congsim_link_failures_agree_with_ns2(measure: str) -> None:
    _, rows = read("link_failures_ns2.csv")
    ok, shown = agree(values(rows, "congsim", measure), values(rows, "ns-2", measure))
    assert ok, f"{measure}: {shown}"


def test_both_sides_are_near_the_expected_down_fraction() -> None:
    """down_mean / (up_mean + down_mean) = 0.2: each side's CI holds it."""
    _, rows = read("link_failures_ns2.csv")
    for simulator in ("ns-2", "congsim"):
        mean, half = interval(values(rows, simulator, "down_fraction"))
        assert abs(mean - 0.2) <= half, (simulator, mean, half)
