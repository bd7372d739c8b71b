"""Declaring a study: its plan, reference table, metrics, claims and variants (the published
numbers are data in `data/`: nothing here computes or copies them)."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

DATA = files("congsim.studies") / "data"


#: The allowance for what differs between the paper's simulator and congsim (a stated
#: constant, the same for every metric and study): a reference value's band is at least this
#: fraction of it either side.
TOLERANCE = 0.10


def printed_unit(text: str) -> float:
    """One unit in the last digit of a number as printed ("0.93": 0.01, "121": 1, "1.5e3":
    100)."""
    from decimal import Decimal

    exponent = Decimal(text.strip()).as_tuple().exponent
    return 10.0 ** int(exponent) if isinstance(exponent, int) else float("nan")


@dataclass(frozen=True)
class Metric:
    """How a reference metric is computed from a run's long table."""

    table: str
    metric: str
    scale: float
    description: str
    #: The largest value the metric can take, in its scaled unit (a fairness index: 1); None
    #: when it has none. Every metric here is at least 0.
    upper: float | None = None

    def clip(self, value: float) -> float:
        """`value` within what the metric can take (a CI's normal approximation can reach past
        a fairness index of 1 or below 0; NaN stays NaN)."""
        if value != value:
            return value
        value = max(value, 0.0)
        return value if self.upper is None else min(value, self.upper)

    def band(self, reference: float, unit: float) -> tuple[float, float]:
        """The values that agree with `reference` printed to `unit` (see `printed_unit`): the
        reference ± the larger of half that unit and `TOLERANCE` of the reference, within what
        the metric can take."""
        half_width = max(unit / 2, TOLERANCE * abs(reference))
        low = max(reference - half_width, 0.0)
        high = reference + half_width
        if self.upper is not None:
            high = min(high, self.upper)
        return low, high


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
    #: The metric of the right side, when it is not `metric` (Reno's throughput against SACK's).
    rhs_metric: str | None = None
    #: An equivalence instead of an ordering: the claim holds when the CI of the ratio of the
    #: means `lhs / rhs` lies inside `(low, high)`, fails when it lies wholly outside, and is
    #: not significant otherwise ("not affected": about (0.95, 1.05)). `factor` is not used.
    ratio_between: tuple[float, float] | None = None
    #: `paper`: a statement of the paper, with its words in `source`; `check`: congsim's own
    #: mechanism check or an expectation the paper does not state.
    origin: str = "paper"
    #: The paper's sentence the claim checks (quoted from the seed).
    source: str = ""
    #: Why the claim does not hold here, where that is known (a deviation, a set-up the paper
    #: leaves unknown, a mechanism); shown beside a claim that does not hold.
    note: str = ""

    def __post_init__(self) -> None:
        if self.origin not in CLAIM_ORIGINS:
            raise ValueError(f"{self.description!r}: origin must be one of {CLAIM_ORIGINS}")
        if self.origin == "paper" and not self.source:
            raise ValueError(f"{self.description!r}: a claim of the paper quotes its source sentence")


#: Where a claim comes from: the paper, or congsim's own checks.
CLAIM_ORIGINS = ("paper", "check")


@dataclass(frozen=True)
class Variant:
    """A set-up run beside a study's default where the evidence says the paper's simulator
    differed from today's defaults, or the paper leaves a setting unknown: its comparison and
    claims are reported beside the default's, never instead of them."""

    name: str
    #: Field paths and values applied to every run of the study's plan.
    overrides: Mapping[str, Any]
    why: str


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    #: Plan file under `congsim/studies/data`.
    plan: str
    #: Reference table under `congsim/studies/data`.
    reference: str | None
    metrics: dict[str, Metric] = field(default_factory=dict)
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
    #: Other set-ups the study runs and reports beside its default.
    variants: tuple[Variant, ...] = ()
    #: How the paper lays out its tables: the axis of the rows, and that of the columns (None:
    #: one column per metric). The report then shows each reference table as printed.
    layout: tuple[str, str | None] | None = None

    def plan_path(self) -> Path:
        return Path(str(DATA / self.plan))

    def reference_rows(self) -> list[dict[str, str]]:
        if self.reference is None:
            return []
        with open(str(DATA / self.reference), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
