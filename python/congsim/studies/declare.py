"""Declaring a study: its plan, reference table, metrics, claims and variants (the published
numbers are data in `data/`: nothing here computes or copies them)."""

from __future__ import annotations

import csv
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

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
        one band rule (`band`), within what the metric can take."""
        low, high = band(reference, unit / 2)
        low = max(low, 0.0)
        if self.upper is not None:
            high = min(high, self.upper)
        return low, high


def band(reference: float, half_unit: float) -> tuple[float, float]:
    """The one band rule, for a printed number and for a magnitude a paper prints alike: the
    values that agree with `reference`, known to ± `half_unit` (half a unit in its last printed
    digit), are the reference ± the larger of that and `TOLERANCE` of the reference."""
    half_width = max(half_unit, TOLERANCE * abs(reference))
    return reference - half_width, reference + half_width


#: A side of a claim: axis path to the value it takes, or to the values it may take (the side
#: then averages its configurations replication by replication, as a paper's column average).
Side = Mapping[str, "str | tuple[str, ...]"]


@dataclass(frozen=True)
class Claim:
    """An ordering a paper reports, checked with 95 % confidence: `factor · lhs < rhs`, where
    `lhs` and `rhs` are one metric in two sets of configurations (axis path to value or values;
    axes left out are free). A side that matches several configurations stands for their
    average, taken replication by replication; `rhs` may instead be a constant `bound`. The
    claim holds when the paired difference is below zero with 95 % confidence. Studies read
    their claims from data (`load_claims`)."""

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
    #: not significant otherwise (a magnitude the paper prints: `magnitude_band`). `factor` is
    #: not used.
    ratio_between: tuple[float, float] | None = None
    #: `paper`: a statement of the paper, with its words in `source`; `check`: congsim's own
    #: mechanism check or an expectation the paper does not state.
    origin: str = "paper"
    #: The paper's sentence the claim checks (quoted from the seed).
    source: str = ""
    #: How the claim reads its sentence (what it says, what is tested, why so), and why it does
    #: not hold here where that is known (a deviation, a set-up the paper leaves unknown, a
    #: mechanism); shown beside a claim that does not hold.
    note: str = ""
    #: The numbers the claim tests as the paper prints them (a bound, the sides of a
    #: magnitude), each found in its sentence or in the study's reference table.
    printed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.origin not in CLAIM_ORIGINS:
            raise ValueError(f"{self.description!r}: origin must be one of {CLAIM_ORIGINS}")
        if self.origin == "paper" and not self.source:
            raise ValueError(f"{self.description!r}: a claim of the paper quotes its source sentence")


#: Where a claim comes from: the paper, or congsim's own checks.
CLAIM_ORIGINS = ("paper", "check")

#: How a magnitude says which way it goes, beside its size: the band then stops at 1 on that
#: side (a paper's "decreases slightly from 0.92 to 0.89" is a ratio below 1 as well as 0.97).
DIRECTIONS = ("below", "above")

#: The ways a claim gives the magnitude it tests (see `load_claims`).
MAGNITUDE_KEYS = frozenset({"same", "paper_sides", "paper_ratio", "paper_change", "paper_value"})

#: The keys of a claim in a claims file (see `load_claims`).
CLAIM_KEYS = frozenset(
    {
        *("description", "metric", "lhs", "rhs", "rhs_metric", "origin", "sentence", "reading", "why"),
        *("factor", "bound", "lhs_bound", "direction", "outside", "each"),
        *MAGNITUDE_KEYS,
    }
)

#: One printed number or several, whose mean the side stands for (a LAN average of four cells).
Printed = str | list[str]


def printed_number(text: str) -> tuple[float, float]:
    """A number as the paper prints it and half a unit in its last digit: "0.89" is 0.89 ±
    0.005, "26 %" is 0.26 ± 0.005."""
    text = text.strip()
    scale = 0.01 if text.endswith("%") else 1.0
    digits = text.removesuffix("%").strip()
    return float(digits) * scale, printed_unit(digits) * scale / 2


def _printed_mean(cells: Printed) -> tuple[float, float]:
    """The mean of printed cells and half a unit of the coarsest."""
    numbers = [printed_number(c) for c in ([cells] if isinstance(cells, str) else cells)]
    return sum(v for v, _ in numbers) / len(numbers), max(h for _, h in numbers)


def magnitude_band(center: float, half_unit: float, direction: str | None = None) -> tuple[float, float]:
    """The ratios that agree with a ratio the paper prints (or computes from printed numbers),
    known to ± `half_unit`: the one band rule (`band`), and where the paper also says which
    way it goes (`DIRECTIONS`), no further than 1 on the other side."""
    low, high = band(center, half_unit)
    if direction == "below":
        high = min(high, 1.0)
    elif direction == "above":
        low = max(low, 1.0)
    elif direction is not None:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    return low, high


def _magnitude(
    entry: Mapping[str, Any], metric: Metric
) -> tuple[tuple[float, float] | None, float | None, tuple[str, ...]]:
    """A claim entry's ratio band, the constant its left side is measured against (a printed
    value), and the printed numbers both come from."""
    direction = entry.get("direction")
    if "paper_sides" in entry:
        (a, half_a), (b, half_b) = (_printed_mean(side) for side in entry["paper_sides"])
        ratio = a / b
        # Half a printed unit on each side, carried into the ratio (first order).
        cells = [c for side in entry["paper_sides"] for c in ([side] if isinstance(side, str) else side)]
        return magnitude_band(ratio, ratio * (half_a / a + half_b / b), direction), None, tuple(cells)
    if "paper_ratio" in entry:
        ratio, half = printed_number(entry["paper_ratio"])
        return magnitude_band(ratio, half, direction), None, (entry["paper_ratio"],)
    if "paper_change" in entry:
        change, half = printed_number(entry["paper_change"])
        return magnitude_band(1.0 + change, half, direction), None, (entry["paper_change"],)
    if "paper_value" in entry:
        value, half = _printed_mean(entry["paper_value"])
        low, high = (v / value for v in metric.band(value, 2 * half))
        cells = entry["paper_value"]
        printed = tuple([cells] if isinstance(cells, str) else cells)
        # A side the value is not: wholly below (or above) its band.
        outside = entry.get("outside")
        if outside == "below":
            return (0.0, low), value, printed
        if outside == "above":
            return (high, math.inf), value, printed
        if outside is not None:
            raise ValueError(f"outside must be one of {DIRECTIONS}, not {outside!r}")
        return (low, high), value, printed
    if entry.get("same", False):
        return magnitude_band(1.0, 0.0, direction), None, ()
    return None, None, ()


_PLACEHOLDER = re.compile(r"\{([\w-]+)\}")


def _filled(value: Any, row: Mapping[str, Any]) -> Any:
    """`value` with each `{name}` of `row` replaced (a string that is only a placeholder takes
    the row's value as it is: a list of labels stays a list); other braces stay."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole and whole[1] in row:
            return row[whole[1]]
        return _PLACEHOLDER.sub(lambda m: str(row[m[1]]) if m[1] in row else m[0], value)
    if isinstance(value, list):
        return [_filled(v, row) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, row) for k, v in value.items()}
    return value


def _texts(value: Any) -> list[str]:
    """Every string in a claim entry (its sides' values, its lists)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _texts(v)]
    return []


def _side(where: str, table: Mapping[str, Any]) -> dict[str, str | tuple[str, ...]]:
    side: dict[str, str | tuple[str, ...]] = {}
    for axis, value in table.items():
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            side[axis] = tuple(value)
        elif isinstance(value, str):
            side[axis] = value
        else:
            raise ValueError(f"{where}: {axis}: give the axis value as text, or a list of texts")
    return side


def _number(text: Any, where: str) -> float:
    if not isinstance(text, str):
        raise ValueError(f"{where}: give numbers as text, as printed ({text!r})")
    return printed_number(text)[0]


def _claim(
    where: str, entry: Mapping[str, Any], sentences: Mapping[str, str], metrics: Mapping[str, Metric]
) -> Claim:
    unknown = sorted(set(entry) - CLAIM_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; a claim has {', '.join(sorted(CLAIM_KEYS))}")
    origin = entry.get("origin", "paper")
    reading = entry.get("reading", "")
    if origin == "paper" and not reading:
        raise ValueError(f"{where}: a claim of the paper records how it reads its sentence (`reading`)")
    if origin == "paper" and "factor" in entry:
        raise ValueError(
            f"{where}: a claim of the paper tests what it prints (a bound, a magnitude), not a factor"
        )
    magnitudes = sorted(MAGNITUDE_KEYS & set(entry))
    if len(magnitudes) > 1:
        raise ValueError(f"{where}: one magnitude a claim, not {' and '.join(magnitudes)}")
    if "direction" in entry and magnitudes in ([], ["paper_value"]):
        raise ValueError(f"{where}: `direction` goes with a ratio the paper prints, or `same`")
    if "outside" in entry and magnitudes != ["paper_value"]:
        raise ValueError(f"{where}: `outside` goes with `paper_value`")
    unfilled = sorted({m[1] for text in _texts(entry) for m in _PLACEHOLDER.finditer(text)} - {"band"})
    if unfilled:
        raise ValueError(f"{where}: nothing fills {{{unfilled[0]}}}")
    metric = entry["metric"]
    if metric not in metrics:
        raise ValueError(f"{where}: unknown metric {metric!r}")
    ratio_between, value, printed = _magnitude(entry, metrics[metric])
    bounds = {k: _number(entry[k], where) for k in ("bound", "lhs_bound") if k in entry}
    printed += tuple(entry[k] for k in ("bound", "lhs_bound") if k in entry)
    description = entry["description"]
    if ratio_between is not None:
        # The band in the side's own unit where the paper prints a value of it.
        low, high = (r * value for r in ratio_between) if value is not None else ratio_between
        text = f"below {high:.3g}" if low == 0 else f"above {low:.3g}" if high == math.inf else ""
        description = description.replace("{band}", text or f"{low:.3g}-{high:.3g}")
    why = entry.get("why", "")
    return Claim(
        description=description,
        metric=metric,
        lhs=_side(where, entry.get("lhs", {})),
        rhs=_side(where, entry.get("rhs", {})),
        factor=_number(entry.get("factor", "1"), where),
        bound=value if value is not None else bounds.get("bound"),
        lhs_bound=bounds.get("lhs_bound"),
        rhs_metric=entry.get("rhs_metric"),
        ratio_between=ratio_between,
        origin=origin,
        source=sentences[entry["sentence"]] if "sentence" in entry else "",
        note=" ".join(part for part in (why, f"Reading: {reading}" if reading else "") if part),
        printed=printed,
    )


def load_claims(file: str, metrics: Mapping[str, Metric]) -> tuple[Claim, ...]:
    """A study's claims, from `file` under `congsim/studies/data`: its `[sentences]` (the
    paper's words, each quoted from the seed), its `[texts]` (shared words, filled in as
    `{name}`) and one `[[claims]]` entry per claim, or per row of the entry's `each` (its
    `{name}`s filled from the row). An entry names its metric and
    sides, the sentence it checks and how it reads it, and what it tests: an ordering (with a
    `bound` the paper prints, or a `factor` for congsim's own checks), or a magnitude the
    paper prints, tested as a ratio band by the one band rule (`magnitude_band`): the paper's
    values of both sides (`paper_sides`), a ratio (`paper_ratio`, "40 %"), a change
    (`paper_change`, "-26 %"), a value of the left side (`paper_value`; with `outside`, a value
    the left side lies wholly below or above), or no difference (`same`); `direction` says on
    which side of 1 a ratio lies where the paper says so. Every number is text, as the paper
    prints it."""
    doc = tomllib.loads((DATA / file).read_text(encoding="utf-8"))
    sentences: dict[str, str] = doc.get("sentences", {})
    texts: dict[str, str] = doc.get("texts", {})
    claims = []
    for number, entry in enumerate(doc.get("claims", []), start=1):
        for row in entry.get("each", [{}]):
            filled = {k: _filled(_filled(v, row), texts) for k, v in entry.items() if k != "each"}
            claims.append(_claim(f"{file}: claim {number}", filled, sentences, metrics))
    descriptions = [c.description for c in claims]
    repeated = sorted({d for d in descriptions if descriptions.count(d) > 1})
    if repeated:
        raise ValueError(f"{file}: two claims are described alike: {repeated[0]!r}")
    return tuple(claims)


@dataclass(frozen=True)
class Variant:
    """A set-up run beside a study's default where the evidence says the paper's simulator
    differed from today's defaults, or the paper leaves a setting unknown: its comparison and
    claims are reported beside the default's, never instead of them."""

    name: str
    #: Field paths and values applied to every run of the study's plan.
    overrides: Mapping[str, Any]
    why: str
    #: Replications of each configuration, where the variant is the plan run longer (an
    #: exploratory run beside the pre-registered count; `--replications` overrides it too).
    replications: int | None = None
    #: Metrics read another way than the study's, by name: the variant judges its runs, and
    #: the claims on those metrics, by these. A variant with no overrides then judges the
    #: default's very runs (`reproduce` runs them once).
    metrics: Mapping[str, Metric] = field(default_factory=dict)


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
