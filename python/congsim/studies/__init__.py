"""Registered studies: what `congsim reproduce` runs and the reference numbers it compares to.

A study is a sweep plan plus a reference table (CSV, under version control, each row with its
source) and, for each reference metric, how to compute it from the sweep and how close counts
as agreement. The published numbers are data: nothing in here computes or copies them.

The five seed papers are registered as pending until the issue that builds their models
registers the study; `congsim reproduce` says which.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

DATA = files("congsim.studies") / "data"


@dataclass(frozen=True)
class Metric:
    """How a reference metric is computed from a run's long table, and its tolerance."""

    table: str
    metric: str
    scale: float
    #: Agreement band: reference value times (1 +- relative_tolerance).
    relative_tolerance: float
    description: str


#: A side of a claim: axis path to the value it takes, or to the values it may take (the side
#: then averages its configurations replication by replication, as a paper's column average).
Side = Mapping[str, "str | tuple[str, ...]"]


@dataclass(frozen=True)
class Claim:
    """An ordering a paper reports, checked with 95 % confidence: `factor · lhs < rhs`, where
    `lhs` and `rhs` are one metric in two sets of configurations (axis path to value or values;
    axes left out are free). A side that matches several configurations stands for their
    average, taken replication by replication; `rhs` may instead be a constant `bound`. The
    claim holds when the paired difference is below zero with 95 % confidence."""

    description: str
    metric: str
    lhs: Side
    rhs: Side = field(default_factory=dict)
    factor: float = 1.0
    #: Compare with this constant instead of `rhs`.
    bound: float | None = None
    #: Compare this constant (times `factor`) instead of `lhs` (then give `lhs={}`).
    lhs_bound: float | None = None


#: Columns of a study's comparison table (also when it has no reference rows).
COMPARISON_COLUMNS = [
    "metric",
    "reference",
    "band_low",
    "band_high",
    "mean",
    "ci_low",
    "ci_high",
    "n",
    "verdict",
    "source",
]


def _interval(x: pd.Series, t: float) -> tuple[float, float, float]:
    """Mean of `x` and its CI with Student quantile `t` (NaN bounds for fewer than 2 values)."""
    import math

    n = len(x)
    half = t * float(x.std()) / math.sqrt(n) if n > 1 else float("nan")
    return float(x.mean()), float(x.mean()) - half, float(x.mean()) + half


def _paired_ratio(a: pd.Series, b: pd.Series, t: float) -> tuple[float, float, float]:
    """`mean(a) / mean(b)` of paired samples, with a CI from the delta method on the log ratio
    (the covariance of the pairs included)."""
    import math

    n = len(a)
    ma, mb = float(a.mean()), float(b.mean())
    ratio = ma / mb if mb else float("nan")
    if n < 2 or ma <= 0 or mb <= 0:
        return ratio, float("nan"), float("nan")
    var_log = (float(a.var()) / ma**2 + float(b.var()) / mb**2 - 2 * float(a.cov(b)) / (ma * mb)) / n
    spread = t * math.sqrt(max(var_log, 0.0))
    return ratio, ratio * math.exp(-spread), ratio * math.exp(spread)


def _side_text(side: Side) -> str:
    """A claim side for the claims table: `variant=reno, policy=epd|fba`."""
    return ", ".join(
        f"{k.split('.')[-1]}={'|'.join(v) if isinstance(v, tuple) else v}" for k, v in side.items()
    )


def _axis_text(value: object) -> str:
    """An axis value as the reference and claim tables write it (empty for a point that leaves
    the field out)."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value)


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    #: Plan file under `congsim/studies/data`, or None while the study is pending.
    plan: str | None
    #: Reference table under `congsim/studies/data`.
    reference: str | None
    metrics: dict[str, Metric] = field(default_factory=dict)
    #: Why the study cannot run yet.
    pending: str | None = None
    #: Links captured (pcap) in the traced run, e.g. a sender's access link both ways.
    capture_links: tuple[str, ...] = ()
    #: Orderings the paper reports, checked with 95 % confidence.
    claims: tuple[Claim, ...] = ()
    #: Why the configuration is what it is, where the paper leaves it open.
    notes: str = ""
    #: Trace every configuration (replication 0), for figures of total throughput over time per
    #: configuration (seed 004's Figures 2-10), grouped by this axis (one figure per value).
    trace_points_by: str | None = None
    #: Reference rows with this `label` are column averages: they compare with the mean over
    #: every label of the configurations their other axes name (seed 000's tables).
    average_label: str | None = None

    def plan_path(self) -> Path:
        assert self.plan is not None
        return Path(str(DATA / self.plan))

    def reference_rows(self) -> list[dict[str, str]]:
        if self.reference is None:
            return []
        with open(str(DATA / self.reference), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def compare(
        self, statistics: pd.DataFrame, axes: list[str], results: pd.DataFrame | None = None
    ) -> pd.DataFrame:
        """Reference value, our mean and confidence interval, the band, and the verdict. Column
        averages (see `average_label`) need the sweep's long `results`."""
        import pandas as pd

        from congsim.sweep.stats import student_t_quantile

        rows = []
        for ref in self.reference_rows():
            spec = self.metrics[ref["metric"]]
            value = float(ref["value"])
            low, high = value * (1 - spec.relative_tolerance), value * (1 + spec.relative_tolerance)
            row: dict[str, object] = {axis: ref.get(axis, "") for axis in axes}
            row |= {"metric": ref["metric"], "reference": value, "band_low": low, "band_high": high}
            if self.average_label is not None and ref.get("label") == self.average_label:
                if results is None:
                    raise ValueError(f"{self.name}: column averages need the sweep's results")
                side = {a: ref[a] for a in axes if a != "label" and ref.get(a, "") != ""}
                values = self._per_replication(results, ref["metric"], side, "column average")
                t = student_t_quantile(0.975, len(values) - 1) if len(values) > 1 else float("nan")
                mean, ci_low, ci_high = _interval(values, t)
                row |= {"mean": mean, "ci_low": ci_low, "ci_high": ci_high, "n": len(values)}
                row["verdict"] = "agrees" if low <= mean <= high else "differs"
                row["source"] = ref["source"]
                rows.append(row)
                continue
            match = statistics[(statistics["table"] == spec.table) & (statistics["metric"] == spec.metric)]
            # The reference names its configuration by the axes it has columns for.
            for axis in (a for a in axes if a in ref):
                match = match[match[axis].map(_axis_text) == ref[axis]]
            if match.empty:
                row |= {
                    "mean": float("nan"),
                    "ci_low": float("nan"),
                    "ci_high": float("nan"),
                    "verdict": "missing",
                }
            else:
                m = match.iloc[0]
                mean = float(m["mean"]) * spec.scale
                row |= {
                    "mean": mean,
                    "ci_low": float(m["ci_low"]) * spec.scale,
                    "ci_high": float(m["ci_high"]) * spec.scale,
                    "n": int(m["n"]),
                    "verdict": "agrees" if low <= mean <= high else "differs",
                }
            row["source"] = ref["source"]
            rows.append(row)
        frame: pd.DataFrame = pd.DataFrame(rows, columns=[*axes, *COMPARISON_COLUMNS])
        return frame

    def _per_replication(self, results: pd.DataFrame, metric: str, side: Side, what: str) -> pd.Series:
        """`metric` (scaled) per replication, averaged over the configurations `side` matches;
        every replication must have the same configurations."""
        spec = self.metrics[metric]
        data = results[
            (results["table"] == spec.table) & (results["metric"] == spec.metric) & (results["flow"] == "")
        ]
        for axis, value in side.items():
            accepted = value if isinstance(value, tuple) else (value,)
            data = data[data[axis].map(_axis_text).isin(accepted)]
        counts = data.groupby("replication")["run"].nunique()
        if data.empty or counts.nunique() != 1:
            raise ValueError(
                f"{self.name}: {what}: the side {dict(side)} must match the same configurations in "
                f"every replication ({data['run'].nunique()} runs)"
            )
        values: pd.Series = data.groupby("replication")["value"].mean().astype(float) * spec.scale
        return values

    def check_claims(self, results: pd.DataFrame) -> pd.DataFrame:
        """One row per claim, from a sweep's long results table: both sides' mean and 95 % CI,
        the ratio of the means with its CI, and the verdict.

        Every configuration of a plan draws replication r from the same random streams, so the
        two sides are compared replication by replication (common random numbers): the claim
        holds when the upper end of the 95 % CI of the paired difference `factor · lhs - rhs` is
        below zero, is "not significant" when only its mean is, and fails otherwise."""
        import pandas as pd

        from congsim.sweep.stats import student_t_quantile

        rows = []
        for claim in self.claims:
            what = repr(claim.description)
            measured = claim.rhs if claim.lhs_bound is not None else claim.lhs
            index = self._per_replication(results, claim.metric, measured, what).index
            lhs = (
                pd.Series(claim.lhs_bound, index=index)
                if claim.lhs_bound is not None
                else self._per_replication(results, claim.metric, claim.lhs, what)
            )
            rhs = (
                pd.Series(claim.bound, index=index)
                if claim.bound is not None
                else self._per_replication(results, claim.metric, claim.rhs, what)
            )
            sides = {"lhs": lhs, "rhs": rhs}
            paired = pd.concat(sides, axis=1, join="inner").dropna()
            a, b = paired["lhs"], paired["rhs"]
            n = len(paired)
            t = student_t_quantile(0.975, n - 1) if n > 1 else float("nan")
            diff_mean, _, diff_high = _interval(claim.factor * a - b, t)
            if diff_high < 0:
                verdict = "holds"
            elif diff_mean < 0:
                verdict = "not significant"
            else:
                verdict = "fails"
            ratio, ratio_low, ratio_high = _paired_ratio(a, b, t)
            (lhs_mean, lhs_low, lhs_high), (rhs_mean, rhs_low, rhs_high) = _interval(a, t), _interval(b, t)
            rows.append(
                {
                    "claim": claim.description,
                    "metric": claim.metric,
                    "factor": claim.factor,
                    "n": n,
                    "lhs": _side_text(claim.lhs) if claim.lhs_bound is None else f"{claim.lhs_bound:g}",
                    "lhs_mean": lhs_mean,
                    "lhs_ci_low": lhs_low,
                    "lhs_ci_high": lhs_high,
                    "rhs": _side_text(claim.rhs) if claim.bound is None else f"{claim.bound:g}",
                    "rhs_mean": rhs_mean,
                    "rhs_ci_low": rhs_low,
                    "rhs_ci_high": rhs_high,
                    "ratio": ratio,
                    "ratio_ci_low": ratio_low,
                    "ratio_ci_high": ratio_high,
                    "verdict": verdict,
                }
            )
        frame: pd.DataFrame = pd.DataFrame(rows)
        return frame


def _sisalem_claims(variant: str) -> list[Claim]:
    """Seed 003's claims for one TCP variant: marking gateways cut the drops to near zero and
    keep the link busy; DropTail is less fair than RED."""

    def config(gateway: str, marks: str) -> dict[str, str]:
        return {"tcp.variant": variant, "tcp.congestion_marks": marks, "links[0].queue.kind": gateway}

    red_drop = config("red", "off")
    claims = []
    for marks, name in (("ecn", "ECN (Floyd 1994)"), ("bcn", "BCN-TCP")):
        claims += [
            Claim(
                f"{variant}: {name} at a marking RED gateway drops under a tenth of what a "
                "dropping RED gateway drops",
                "drops",
                config("red", marks),
                red_drop,
                10.0,
            ),
            Claim(
                f"{variant}: {name} keeps at least 95 % of the dropping gateway's throughput",
                "throughput_mbps",
                red_drop,
                config("red", marks),
                0.95,
            ),
        ]
    claims.append(
        Claim(
            f"{variant}: DropTail is less fair than RED (lock-out and RTT bias)",
            "jain",
            config("droptail", "off"),
            red_drop,
        )
    )
    return claims


def _sisalem_abr_claims(variant: str) -> list[Claim]:
    """Seed 003's ABR claims for one TCP variant: a small UNI buffer loses more TCP packets than
    a large one, and BCN-TCP (answering the EPRCA switch's CI) avoids the UNI losses."""

    def config(uni: str, marks: str) -> dict[str, str]:
        return {"tcp.variant": variant, "tcp.congestion_marks": marks, "atm.uni_buffer": uni}

    return [
        Claim(
            f"{variant} over ABR: a 5 KB UNI buffer loses more packets than a 25 KB one",
            "uni_drops",
            config("25000B", "off"),
            config("5000B", "off"),
        ),
        *(
            Claim(
                f"{variant} over ABR, {uni[:-4]} KB UNI buffer: BCN-TCP loses under a tenth of "
                "the packets plain TCP loses there",
                "uni_drops",
                config(uni, "bcn"),
                config(uni, "off"),
                10.0,
            )
            for uni in ("25000B", "5000B")
        ),
    ]


def _lima_claims() -> list[Claim]:
    """Seed 002's claims: Limited Transmit cuts the RTOs of Reno and NewReno under web and FTP
    traffic; FTP transfers suffer several times the RTOs of web objects."""

    def config(sizes: str, load: str, variant: str, lt: bool) -> dict[str, str]:
        return {
            "transfers[0].sizes": sizes,
            "transfers[0].load": load,
            "tcp.variant": variant,
            "tcp.limited_transmit": str(lt),
        }

    published = {
        ("web", "reno"): 26,
        ("web", "newreno"): 30,
        ("exponential", "reno"): 26,
        ("exponential", "newreno"): 29,
    }
    claims = []
    for (sizes, variant), cut in published.items():
        traffic = "web" if sizes == "web" else "FTP"
        for load, total in (("0.6", "0.7"), ("0.8", "0.9")):
            claims.append(
                Claim(
                    f"{traffic}, load {total}: {variant}-lt has fewer RTOs than {variant} "
                    f"(paper: {cut} % fewer)",
                    "rtos",
                    config(sizes, load, variant, True),
                    config(sizes, load, variant, False),
                )
            )
    # congsim's account of the FTP result, not the paper's claims: Limited Transmit does what
    # it is for, but Reno's next loss in the same window then times out anyway.
    claims += [
        Claim(
            "FTP, load 0.9 (mechanism): reno-lt has under half reno's timeouts with one or two "
            "duplicate ACKs",
            "rtos_few_dupacks",
            config("exponential", "0.8", "reno", True),
            config("exponential", "0.8", "reno", False),
            2.0,
        ),
        Claim(
            "FTP, load 0.9 (mechanism): reno-lt has more timeouts than reno in windows a fast "
            "retransmit began to repair",
            "rtos_after_fast_retransmit",
            config("exponential", "0.8", "reno", False),
            config("exponential", "0.8", "reno", True),
        ),
    ]
    claims.append(
        Claim(
            "load 0.9: FTP transfers suffer at least twice the RTOs of web objects "
            "(paper: up to seven times)",
            "rtos",
            config("web", "0.8", "reno", False),
            config("exponential", "0.8", "reno", False),
            2.0,
        )
    )
    return claims


def _koga_claims() -> list[Claim]:
    """Seed 004's orderings in every CBR case: SACK > NewReno > Reno in total throughput, and
    Reno times out many times as often as NewReno."""
    claims = []
    for case in ("only-tcp", "large-cbr", "multiple-cbr", "fluctuation", "burst"):

        def config(variant: str, case: str = case) -> dict[str, str]:
            return {"label": case, "tcp.variant": variant, "flows[10].tcp.variant": ""}

        claims += [
            Claim(
                f"{case}: NewReno gets more throughput than Reno",
                "throughput_mbps",
                config("reno"),
                config("newreno"),
            ),
            Claim(
                f"{case}: SACK gets more throughput than NewReno",
                "throughput_mbps",
                config("newreno"),
                config("sack"),
            ),
            Claim(
                f"{case}: Reno times out more than ten times as often as NewReno",
                "timeouts",
                config("newreno"),
                config("reno"),
                10.0,
            ),
        ]
    return claims


def _goyal_claims() -> list[Claim]:
    """Seed 000's conclusions, on column averages (the eight network configurations): EPD with
    fast retransmit beats plain UBR in efficiency and fairness; plain UBR wastes much of a LAN;
    Selective Drop and FBA are fairer than EPD without fast retransmit."""

    def side(frr: bool, policy: str, labels: tuple[str, ...] = ()) -> dict[str, str | tuple[str, ...]]:
        config: dict[str, str | tuple[str, ...]] = {"tcp.fast_retransmit": str(frr), "atm.policy": policy}
        return config | ({"label": labels} if labels else {})

    lan = ("LAN-5-1000", "LAN-5-3000", "LAN-15-1000", "LAN-15-3000")
    claims = [
        Claim(
            f"with FRR, EPD raises the average {metric} over plain UBR",
            metric,
            side(True, "tail_drop"),
            side(True, "epd"),
        )
        for metric in ("efficiency", "fairness")
    ]
    claims += [
        Claim(
            f"{'with' if frr else 'without'} FRR, plain UBR's average LAN efficiency is below 0.8 "
            f"(paper: {0.69 if frr else 0.34:g})",
            "efficiency",
            side(frr, "tail_drop", lan),
            bound=0.8,
        )
        for frr in (False, True)
    ]
    claims += [
        Claim(
            f"without FRR, {name} is fairer than EPD on average",
            "fairness",
            side(False, "epd"),
            side(False, policy),
        )
        for policy, name in (("selective_drop", "Selective Drop"), ("fba", "FBA"))
    ]
    return claims


def _jain_claims() -> list[Claim]:
    """Seed 001's conclusions: with modified ERICA no cell is lost with a buffer of 4 round
    trips (5, 10, 15 sources, every RTT, VBR at 30 and 100 ms); VBR at 10 ms and 1 ms makes the
    ERICA queue diverge;
    ERICA+ keeps it bounded and below ERICA's. In a finite run a diverging queue ends where the
    TCP windows stop it (15 x 1 MB here, about 34 round trips); a controlled one stays within a
    few round trips, so 10 round trips separates the two."""
    claims = [
        Claim(
            f"{label}: the queue stays below 4 round trips (so a 4 x RTT buffer loses no cell)",
            "max_queue_rtts",
            {"label": label},
            bound=4.0,
        )
        for label in ("A-N5", "A-N10", "A-N15", "A-RTT15", "A-RTT6", "A-RTT1.5", "A-V30", "A-V100")
    ]
    claims += [
        Claim(
            f"{label}: VBR on/off at {period} makes the ERICA queue diverge (beyond 10 round trips)",
            "max_queue_rtts",
            lhs={},
            rhs={"label": label},
            lhs_bound=10.0,
        )
        for label, period in (("A-V10", "10 ms"), ("A-V1", "1 ms"))
    ]
    claims += [
        Claim(
            f"ERICA+ with VBR at {period} keeps its queue bounded (within 10 round trips)",
            "max_queue_rtts",
            {"label": f"A-SOL-E+ (VBR {period})"},
            bound=10.0,
        )
        for period in ("30 ms", "10 ms")
    ]
    claims.append(
        Claim(
            "ERICA+ holds a smaller queue than ERICA with VBR at 30 ms",
            "max_queue_cells",
            {"label": "A-SOL-E+ (VBR 30 ms)"},
            {"label": "A-V30"},
        )
    )
    return claims


STUDIES: dict[str, Study] = {
    study.name: study
    for study in [
        Study(
            name="dumbbell-buffers",
            title="Reno vs Tahoe on dumbbell-20 across bottleneck buffers, against ns-2 (platform study)",
            plan="dumbbell-buffers.toml",
            reference="dumbbell-buffers.csv",
            metrics={
                "total_throughput_mbps": Metric(
                    "summary", "total_goodput_bps", 1e-6, 0.05, "total throughput (ns2_2000: wire = payload)"
                ),
                "timeouts": Metric("summary", "timeouts", 1.0, 0.35, "retransmission timeouts, all flows"),
            },
            capture_links=("s1->r1", "r1->s1"),
        ),
        Study(
            name="goyal1996",
            title="TCP over UBR+ with fast retransmit and recovery (seed 000)",
            plan="goyal1996.toml",
            reference="goyal1996.csv",
            metrics={
                "efficiency": Metric(
                    "summary", "efficiency", 1.0, 0.15, "total throughput / 125.2 Mbps (the cell ceiling)"
                ),
                "fairness": Metric("summary", "jain_index", 1.0, 0.15, "Jain fairness index of the N flows"),
            },
            claims=tuple(_goyal_claims()),
            average_label="average",
            notes=(
                "The N-source configuration as spec atm.md 8.1 reads seed 000: 155.52 Mbps cells "
                "without SONET overhead, 4.3BSD Reno with a 100 ms clock and a 2-tick RTO floor, "
                "EPD/Selective Drop/FBA at R = 0.9 K and Z = 0.8 with partial packet discard after "
                "an overflow, plain UBR without it; the VCs of one cell time draw for a full "
                "buffer's last free place (deviation D25). The paper starts every source at once with "
                "nothing random, which synchronises them; here each replication starts each source "
                "up to 1 ms late (deviation D19), so a table cell is a mean over 5 runs of a "
                "chaotic system the paper sampled once. Column averages are the mean of the eight "
                "rows, per replication."
            ),
        ),
        Study(
            name="jain1996",
            title="Buffer requirements for TCP over ABR (seed 001)",
            plan="jain1996.toml",
            reference="jain1996.csv",
            metrics={
                "max_queue_cells": Metric(
                    "summary", "atm_max_queue_cells", 1.0, 0.35, "maximum queue at the bottleneck, cells"
                ),
                "max_queue_rtts": Metric(
                    "summary", "atm_max_queue_rtts", 1.0, 0.35, "the same in round trips of the path"
                ),
                "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, 0.1, "total TCP throughput"),
                "efficiency_percent": Metric(
                    "summary", "efficiency", 100.0, 0.1, "throughput / 125.2 Mbps (75.12 with VBR), %"
                ),
                "fairness": Metric("summary", "jain_index", 1.0, 0.05, "Jain fairness index"),
            },
            claims=tuple(_jain_claims()),
            notes=(
                "Seed 001 on spec atm.md 8.2's reading: 155.52 Mbps cells, infinite buffers, modified "
                "ERICA (one ER per VC per interval, the slow-VC clamp, the max-min step inside the "
                "delta band, immediate, bidirectional and decayed VC counting) at U = 0.9 over "
                "min(100 cells, 1 ms), TM 4.0 sources with seed 001's parameters, 4.3BSD TCP with "
                "16 x 64 KB windows, 10 s runs, 15 sources where the seed does not say, VBR at 0.8 "
                "of the link in 50 % on/off from 2 ms. The seed prints only one set of numbers for "
                "each VBR 'solution'; both 30 ms and 10 ms VBR periods run against it. A source slowed "
                "by VBR sends a forward RM cell only every 32 cells, so ERICA's CCR table goes "
                "stale and CCR/z would hand the old rate back: modified ERICA counts a CCR as at "
                "most the last ER given until the next FRM, ERICA+ always (deviation D24). The "
                "queues then stay within a few round trips without VBR and beside 30 ms VBR, 10 "
                "and 1 ms VBR diverge, and ERICA+ bounds them, as in the paper; the long-access "
                "rows (FB1, FB3) queue about 5 round trips (paper about 1). The 70 % target "
                "bounds 30 ms VBR, not 10 ms."
            ),
        ),
        Study(
            name="lima2002",
            title="TCP loss recovery with web and FTP traffic over RED: Limited Transmit (seed 002)",
            plan="lima2002.toml",
            reference="lima2002.csv",
            metrics={
                "rtos": Metric(
                    "summary", "transfer_timeouts_mean", 1.0, 0.0, "retransmission timeouts per transfer"
                ),
                "rtos_few_dupacks": Metric(
                    "summary",
                    "transfer_timeouts_few_dupacks_mean",
                    1.0,
                    0.0,
                    "timeouts per transfer with one or two duplicate ACKs in",
                ),
                "rtos_after_fast_retransmit": Metric(
                    "summary",
                    "transfer_timeouts_after_fast_retransmit_mean",
                    1.0,
                    0.0,
                    "timeouts per transfer in a window a fast retransmit began to repair",
                ),
                "cwnd": Metric(
                    "summary",
                    "transfer_cwnd_mean",
                    1.0,
                    0.35,
                    "mean cwnd (segments) over the transfers' transmissions",
                ),
                "rtt_ms": Metric("summary", "transfer_rtt_mean_s", 1e3, 0.0, "mean RTT per transfer"),
                "bandwidth_kbps": Metric(
                    "summary", "transfer_bandwidth_mean_bps", 1e-3, 0.0, "mean bandwidth per transfer"
                ),
            },
            claims=tuple(_lima_claims()),
            notes=(
                "The paper omits link rates, RED parameters, run length and the CBR rates; the "
                "study uses spec ip.md's assumptions (10 Mbps / 20 ms bottleneck, ns-2.1b9a RED "
                "defaults with automatic parameters, 2 x 5 % CBR, 200 s runs with 20 s warm-up, 10 "
                "replications; loads are the TCP share, total minus 0.1). The paper's reductions of "
                "RTOs by Limited Transmit (26 % Reno and 30 % NewReno for web traffic, 26 % and 29 % "
                "for FTP) are reported beside each claim's ratio; they are averages over loads, "
                "the claims check the two highest loads. The mean cwnd weighs every segment sent "
                "alike (the per-transfer mean of web objects stays near 3 at every load). Under "
                "FTP, Reno's Limited Transmit does not cut RTOs here: it removes most timeouts "
                "with one or two duplicate ACKs, but most of Reno's FTP timeouts are second "
                "losses in a window a fast retransmit began to repair (ns-2 bugFix_ allows one "
                "fast retransmit per window), and those grow as often as the others shrink; "
                "NewReno, which repairs them, keeps the gain. The two mechanism claims check this, "
                "and ns-2.35 on the same network finds the same ratios (bench/lima_ns2.py); the "
                "paper's FTP windows must have lost fewer segments each."
            ),
        ),
        Study(
            name="sisalem1995",
            title="Binary congestion notification vs Reno and Tahoe over a RED gateway (seed 003, IP part)",
            plan="sisalem1995.toml",
            reference=None,
            metrics={
                "throughput_mbps": Metric(
                    "summary", "total_goodput_bps", 1e-6, 0.0, "total goodput after 5 s"
                ),
                "jain": Metric("summary", "jain_index", 1.0, 0.0, "Jain fairness index of the ten flows"),
                "drops": Metric("summary", "drops", 1.0, 0.0, "packets dropped in the network"),
                "timeouts": Metric("summary", "timeouts", 1.0, 0.0, "retransmission timeouts, all flows"),
                "uni_drops": Metric(
                    "summary", "atm_uni_drops", 1.0, 0.0, "datagrams lost at the UNI buffers"
                ),
            },
            claims=tuple(
                claim
                for variant in ("tahoe", "reno")
                for claim in (*_sisalem_claims(variant), *_sisalem_abr_claims(variant))
            ),
            notes=(
                "Only the reference list of seed 003 survives, so the study checks the paper's "
                "claims rather than its lost figures; the configuration is chosen in "
                "sisalem1995-network.toml and sisalem1995.toml (ten sources, 10 Mbps, 500-byte "
                "packets, the RED paper's parameters, a marking gateway that marks every "
                "ECN-capable packet above max_th, 4.3BSD TCP with a 10 ms clock and a 200 ms RTO "
                "floor so that the 200 ms delayed-ACK timer does not cause spurious timeouts). "
                "The one published number, a Jain index of 0.89, belongs to a multi-hop "
                "configuration with a larger decrease factor that cannot be reconstructed. The ABR "
                "part runs the same sources over ATM with an EPRCA switch and binary feedback "
                "(choices in sisalem1995-network.toml): UNI buffers lose TCP packets although the "
                "ATM network loses none, and BCN-TCP answering the switch's CI avoids those losses. "
                "The paper's Tahoe-over-Reno result over ABR does not show here: the 10 Mbps ATM "
                "link runs full whichever variant recovers the UNI losses."
            ),
        ),
        Study(
            name="koga2000",
            title="TCP implementations in a QoS network with CBR traffic (seed 004)",
            plan="koga2000.toml",
            reference="koga2000.csv",
            metrics={
                "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, 0.05, "total TCP throughput"),
                "cov": Metric("summary", "cov", 1.0, 0.35, "coefficient of variation of per-flow throughput"),
                "timeouts": Metric("summary", "timeouts", 1.0, 0.5, "retransmission timeouts, all TCP flows"),
                "fast_recoveries": Metric(
                    "summary", "fast_recoveries", 1.0, 0.35, "fast recoveries, all TCP flows"
                ),
                "reno_mbps": Metric(
                    "summary", "total_goodput_bps_reno", 1e-6, 0.05, "the 10 Reno flows' throughput"
                ),
                "sack_mbps": Metric(
                    "summary", "total_goodput_bps_sack", 1e-6, 0.05, "the 10 SACK flows' throughput"
                ),
            },
            claims=tuple(_koga_claims()),
            trace_points_by="label",
            notes=(
                "Node 1 is ns-2's CBQ as the paper set it up (CBR 30 % at priority 1, TCP 70 % at "
                "priority 2, both borrowing, 200 packets each; spec ip.md 4.4). "
                "Unstated values follow spec tcp.md 7.5 (window 64, access delays 3-7 ms, CBR access "
                "links at 100 Mbps, 500-byte packets, the 'multiple CBR' staircase). As ns-2.35 in "
                "the spec's evidence, Reno makes about half the paper's fast recoveries and a few "
                "more timeouts: the paper's ns-2 allowed a second fast retransmit per window "
                "(bugFix_ off), which the ns2_2000 profile does not. Tables 3 and 6 ('multiple CBR' "
                "and 'hard shaper') describe one configuration with different published values."
            ),
        ),
    ]
}


@dataclass
class StudyOutcome:
    study: Study
    folder: Path
    axes: list[str]
    comparison: pd.DataFrame
    failures: dict[str, str]
    claims: pd.DataFrame | None = None


#: Sampling interval of the traced run stored beside each study's results.
TRACE_INTERVAL = "100ms"


#: `on_progress(done, total, failed)` of a study: its sweep's runs, then its traced runs.
Progress = Callable[[int, int, int], None]


def reproduce(
    study: Study,
    out: Path,
    replications: int | None = None,
    workers: int | None = None,
    on_progress: Progress | None = None,
) -> StudyOutcome:
    """Runs a registered study into `out/<name>` (resuming), compares it with its reference,
    writes `comparison.csv`, and stores a traced run of the plan's first configuration
    (`traces/flow_series.parquet`, `traces/link_series.parquet`) for the report's time series;
    with `trace_points_by`, one of every configuration too. The traced runs share the worker
    processes of the sweep's runs."""
    from dataclasses import replace

    import pandas as pd

    from congsim.sweep import load_plan, run_sweep
    from congsim.sweep.runner import Task, started

    if study.pending is not None:
        raise ValueError(f"{study.name} is not reproducible yet: {study.pending}")
    plan = load_plan(study.plan_path())
    if replications is not None:
        plan = replace(plan, replications=replications)
    folder = out / study.name
    first_replication = [r for r in plan.runs() if r.replication == 0]
    traced_runs = first_replication if study.trace_points_by is not None else []
    traced: list[tuple[Path, Task]] = []
    for index, run in enumerate([first_replication[0], *traced_runs]):
        overrides: list[tuple[str, object]] = [*run.overrides, ("metrics.series_interval", TRACE_INTERVAL)]
        if index == 0 and study.capture_links:
            overrides.append(("captures", [{"file": "traced.pcap", "links": list(study.capture_links)}]))
        where = folder / "traces" if index == 0 else folder / "traces" / "points" / f"{index - 1:03d}"
        text = json.dumps([list(o) for o in overrides])
        traced.append(
            (where, Task(str(index), plan.scenario_text, plan.scenario_source, text, 0, run.params))
        )
    total = len(plan.runs()) + len(traced)
    report = on_progress or (lambda *_: None)
    done = 0
    failures: dict[str, str] = {}
    by_key = {task.key: (where, task) for where, task in traced}

    def finished(key: str, tables: dict[str, Any] | None, error: str | None) -> None:
        nonlocal done
        where, task = by_key[key]
        if tables is None:
            failures[f"traced run {key}"] = error or ""
        else:
            _write_traces(where, tables, task.params)
        done += 1
        report(done, total, len(failures))

    # The traced runs start first and go on in their worker processes while the sweep's runs
    # are stored or read back and the comparison is computed here (on a study whose runs are
    # all stored, that is all there is to do).
    with started([task for _, task in traced], workers) as collect:
        outcome = run_sweep(
            plan, folder, workers, on_progress=lambda runs_done, _, failed: report(runs_done, total, failed)
        )
        done = len(plan.runs())
        failures |= outcome.failures
        statistics = outcome.statistics() if not outcome.failures else None
        results = outcome.results() if statistics is not None else None
        comparison = study.compare(statistics, plan.parameters, results) if statistics is not None else None
        claims = study.check_claims(results) if results is not None else None
        if comparison is not None:
            comparison.to_csv(folder / "comparison.csv", index=False)
        if claims is not None and study.claims:
            claims.to_csv(folder / "claims.csv", index=False)
        collect(finished)
    return StudyOutcome(
        study,
        folder,
        plan.parameters,
        comparison if comparison is not None else pd.DataFrame(),
        failures,
        claims,
    )


def _write_traces(folder: Path, tables: dict[str, Any], params: Mapping[str, object]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for name in ("flow_series", "link_series", "atm_series"):
        if name in tables:
            pq.write_table(pa.table(tables[name]), folder / f"{name}.parquet")
    for file, data in tables.get("captures", {}).items():
        (folder / file).write_bytes(data)
    (folder / "configuration.json").write_text(json.dumps(params) + "\n", encoding="utf-8")
