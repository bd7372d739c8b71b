"""What a study is (a plan, reference values, claims) and how `congsim reproduce` runs and judges one.

A study is a sweep plan plus a reference table (CSV, under version control, each row with its
source) and, for each reference metric, how to compute it from the sweep and how close counts
as agreement. The published numbers are data: nothing in here computes or copies them.
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

    from congsim.sweep.runner import SweepOutcome

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


def judge(low: float, high: float, ci_low: float, ci_high: float, mean: float) -> str:
    """The verdict on a band `[low, high]` from our 95 % CI: `agrees` when the whole CI is inside
    the band, `differs` when the whole CI is outside it, `inconclusive` when it straddles an
    edge (the replications cannot tell). Without a CI (one replication) the mean is judged as a
    point."""
    if ci_low != ci_low or ci_high != ci_high:  # NaN: no CI
        ci_low = ci_high = mean
    if low <= ci_low and ci_high <= high:
        return "agrees"
    if ci_high < low or ci_low > high:
        return "differs"
    return "inconclusive"


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


#: Columns of a study's comparison table (also when it has no reference rows), before the
#: trivial predictors' that `add_baselines` appends.
MEASURED_COLUMNS = [
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
    "scored",
    "note",
    "table",
]

#: The verdicts on a compared value (`judge`); `missing` marks a reference with no run.
VERDICTS = ("agrees", "inconclusive", "differs")

#: The axis a per-variant trivial predictor keys on, when a study has it.
BASELINE_AXIS = "tcp.variant"


def add_baselines(frame: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """Trivial predictors beside each compared value, so that a score means something: a
    constant per metric at its references' mean (`baseline_constant`), and, where the study
    varies `tcp.variant`, one constant per metric and variant (`baseline_variant`). Each is
    judged on the row's band as our mean is, with our CI's width around it (a predictor as
    precise as our replications), so `*_agrees` means the verdict would be `agrees`."""
    import pandas as pd

    frame = frame.copy()
    # The constants are the means of the scored references (a printed number shown a second
    # time, unscored, does not weigh twice).
    references = frame["reference"].astype(float)
    if "scored" in frame:
        references = references.where(_truth(frame["scored"]))
    half_width = ((frame["ci_high"] - frame["ci_low"]) / 2).fillna(0.0)

    def agrees(prediction: pd.Series) -> pd.Series:
        verdicts = [
            judge(low, high, value - half, value + half, value)
            for low, high, value, half in zip(
                frame["band_low"], frame["band_high"], prediction, half_width, strict=True
            )
        ]
        agreeing: pd.Series = pd.Series([v == "agrees" for v in verdicts], index=frame.index, dtype=bool)
        return agreeing

    frame["baseline_constant"] = references.groupby(frame["metric"]).transform("mean")
    frame["baseline_constant_agrees"] = agrees(frame["baseline_constant"])
    if BASELINE_AXIS in axes and frame[BASELINE_AXIS].fillna("").astype(str).str.len().gt(0).any():
        keys = [frame["metric"], frame[BASELINE_AXIS].fillna("").astype(str)]
        frame["baseline_variant"] = references.groupby(keys).transform("mean")
        frame["baseline_variant_agrees"] = agrees(frame["baseline_variant"])
    return frame


@dataclass(frozen=True)
class BaselineScore:
    """How many compared values agree: ours, and each trivial predictor's, overall and per
    metric family."""

    compared: int
    ours: int
    #: Ours neither agree nor differ: the CI straddles a band edge.
    inconclusive: int
    constant: int
    variant: int | None
    #: Metric families where ours agree more often than the constant predictor.
    informative: tuple[str, ...]


def _truth(column: pd.Series) -> pd.Series:
    """A boolean column, also as read back from CSV text ("True"/"False")."""
    return column.astype(str).isin(["True", "true", "1"])


def scored_rows(comparison: pd.DataFrame) -> pd.DataFrame:
    """The rows a study's score counts: compared (not missing) and scored, so that each
    printed number and each configuration counts once. A comparison written before rows could
    be unscored counts every row."""
    compared = comparison["verdict"].isin(VERDICTS)
    if "scored" in comparison:
        compared &= _truth(comparison["scored"])
    rows: pd.DataFrame = comparison[compared]
    return rows


def baseline_score(comparison: pd.DataFrame) -> BaselineScore:
    rows = scored_rows(comparison)
    ours = rows["verdict"] == "agrees"
    constant = _truth(rows["baseline_constant_agrees"])
    variant = _truth(rows["baseline_variant_agrees"]) if "baseline_variant_agrees" in rows else None
    informative = tuple(
        str(metric)
        for metric, group in rows.groupby("metric", sort=True)
        if (group["verdict"] == "agrees").sum() > _truth(group["baseline_constant_agrees"]).sum()
    )
    return BaselineScore(
        compared=len(rows),
        ours=int(ours.sum()),
        inconclusive=int((rows["verdict"] == "inconclusive").sum()),
        constant=int(constant.sum()),
        variant=None if variant is None else int(variant.sum()),
        informative=informative,
    )


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


class _ByMetric:
    """A sweep's long results table, its summary rows (`flow` empty) split once by table and
    metric: a claim or column average then filters a few hundred rows, not the whole table."""

    def __init__(self, results: pd.DataFrame) -> None:
        summary = results[results["flow"] == ""]
        self._parts: dict[tuple[str, str], pd.DataFrame] = dict(
            iter(summary.groupby(["table", "metric"], sort=False))
        )
        self._empty = summary.iloc[0:0]

    def rows(self, table: str, metric: str) -> pd.DataFrame:
        rows: pd.DataFrame = self._parts.get((table, metric), self._empty)
        return rows


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

    def compare(
        self, statistics: pd.DataFrame, axes: list[str], results: pd.DataFrame | None = None
    ) -> pd.DataFrame:
        """Reference value, our mean and confidence interval, the band, and the verdict. Column
        averages (see `average_label`) need the sweep's long `results`."""
        import pandas as pd

        from congsim.sweep.stats import student_t_quantile

        rows = []
        # Split once: filtering the whole long table per reference row cost more than the rest.
        statistics_by_metric = dict(iter(statistics.groupby(["table", "metric"], sort=False)))
        by_metric: _ByMetric | None = None
        for ref in self.reference_rows():
            spec = self.metrics[ref["metric"]]
            value = float(ref["value"])
            low, high = spec.band(value, printed_unit(ref["value"]))
            row: dict[str, object] = {axis: ref.get(axis, "") for axis in axes}
            row |= {"metric": ref["metric"], "reference": value, "band_low": low, "band_high": high}
            row["table"] = ref.get("table", "")
            # A printed number compared a second time (another reading of an unstated set-up,
            # or a configuration the paper prints twice) is shown but not scored.
            row |= {"scored": ref.get("scored", "yes") != "no", "note": ref.get("note", "")}
            if self.average_label is not None and ref.get("label") == self.average_label:
                if results is None:
                    raise ValueError(f"{self.name}: column averages need the sweep's results")
                side = {a: ref[a] for a in axes if a != "label" and ref.get(a, "") != ""}
                by_metric = by_metric or _ByMetric(results)
                values = self._per_replication(by_metric, ref["metric"], side, "column average")
                t = student_t_quantile(0.975, len(values) - 1) if len(values) > 1 else float("nan")
                mean, ci_low, ci_high = _interval(values, t)
                ci_low, ci_high = spec.clip(ci_low), spec.clip(ci_high)
                row |= {"mean": mean, "ci_low": ci_low, "ci_high": ci_high, "n": len(values)}
                row["verdict"] = judge(low, high, ci_low, ci_high, mean)
                row["source"] = ref["source"]
                rows.append(row)
                continue
            match = statistics_by_metric.get((spec.table, spec.metric), statistics.iloc[0:0])
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
                ci_low = spec.clip(float(m["ci_low"]) * spec.scale)
                ci_high = spec.clip(float(m["ci_high"]) * spec.scale)
                row |= {
                    "mean": mean,
                    "ci_low": ci_low,
                    "ci_high": ci_high,
                    "n": int(m["n"]),
                    "verdict": judge(low, high, ci_low, ci_high, mean),
                }
            row["source"] = ref["source"]
            rows.append(row)
        frame: pd.DataFrame = pd.DataFrame(rows, columns=[*axes, *MEASURED_COLUMNS])
        return add_baselines(frame, axes)

    def _per_replication(self, results: _ByMetric, metric: str, side: Side, what: str) -> pd.Series:
        """`metric` (scaled) per replication, averaged over the configurations `side` matches;
        every replication must have the same configurations."""
        spec = self.metrics[metric]
        data = results.rows(spec.table, spec.metric)
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
        by_metric = _ByMetric(results)
        for claim in self.claims:
            what = repr(claim.description)
            measured = claim.rhs if claim.lhs_bound is not None else claim.lhs
            index = self._per_replication(by_metric, claim.metric, measured, what).index
            lhs = (
                pd.Series(claim.lhs_bound, index=index)
                if claim.lhs_bound is not None
                else self._per_replication(by_metric, claim.metric, claim.lhs, what)
            )
            rhs = (
                pd.Series(claim.bound, index=index)
                if claim.bound is not None
                else self._per_replication(by_metric, claim.rhs_metric or claim.metric, claim.rhs, what)
            )
            sides = {"lhs": lhs, "rhs": rhs}
            paired = pd.concat(sides, axis=1, join="inner").dropna()
            a, b = paired["lhs"], paired["rhs"]
            n = len(paired)
            t = student_t_quantile(0.975, n - 1) if n > 1 else float("nan")
            diff_mean, _, diff_high = _interval(claim.factor * a - b, t)
            ratio, ratio_low, ratio_high = _paired_ratio(a, b, t)
            if claim.ratio_between is not None:
                low, high = claim.ratio_between
                if low <= ratio_low and ratio_high <= high:
                    verdict = "holds"
                elif ratio_high < low or ratio_low > high:
                    verdict = "fails"
                else:
                    verdict = "not significant"
            elif diff_high < 0:
                verdict = "holds"
            elif diff_mean < 0:
                verdict = "not significant"
            else:
                verdict = "fails"
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
                    "origin": claim.origin,
                    "source": claim.source,
                    "note": claim.note,
                }
            )
        frame: pd.DataFrame = pd.DataFrame(rows)
        return frame


@dataclass
class VariantOutcome:
    """A variant's comparison and claims, stored in `<study>/variants/<name>/`."""

    variant: Variant
    folder: Path
    comparison: pd.DataFrame
    claims: pd.DataFrame | None


@dataclass
class StudyOutcome:
    study: Study
    folder: Path
    axes: list[str]
    comparison: pd.DataFrame
    failures: dict[str, str]
    claims: pd.DataFrame | None = None
    #: The study's variants, run beside the default (empty when asked not to).
    variants: list[VariantOutcome] = field(default_factory=list)


#: Columns of `scores.csv`, the line per study that `congsim reproduce all` ends with.
SCORE_COLUMNS = [
    "study",
    "variant",
    "compared",
    "agrees",
    "inconclusive",
    "differs",
    "constant_agrees",
    "variant_agrees",
    "informative",
    "claims",
    "claims_hold",
    "claims_not_significant",
    "claims_fail",
    "checks",
    "checks_hold",
    "checks_not_significant",
    "checks_fail",
    "replications",
]


def claim_origins(claims: pd.DataFrame) -> pd.Series:
    """Each claim's origin (`paper` or `check`); claims stored before claims had one are the
    paper's."""
    import pandas as pd

    if "origin" in claims:
        origins: pd.Series = claims["origin"].fillna("paper").astype(str)
    else:
        origins = pd.Series("paper", index=claims.index)
    return origins


def score_rows(outcome: StudyOutcome) -> list[dict[str, object]]:
    """A study's lines of `scores.csv`: its default set-up's, then each variant's."""
    rows = [_score_row(outcome.study.name, "", outcome.comparison, outcome.claims)]
    rows += [_score_row(outcome.study.name, v.variant.name, v.comparison, v.claims) for v in outcome.variants]
    return rows


def _score_row(
    study: str, variant: str, comparison: pd.DataFrame, claims: pd.DataFrame | None
) -> dict[str, object]:
    """One line of `scores.csv`: the verdicts on the scored reference values, the trivial
    predictors' agreements on the same bands, the metric families where ours beat the
    constant, and the claims."""
    row: dict[str, object] = dict.fromkeys(SCORE_COLUMNS, "")
    row["study"] = study
    row["variant"] = variant
    if not comparison.empty:
        score = baseline_score(comparison)
        rows = scored_rows(comparison)
        row |= {
            "compared": score.compared,
            "agrees": score.ours,
            "inconclusive": score.inconclusive,
            "differs": int((rows["verdict"] == "differs").sum()),
            "constant_agrees": score.constant,
            "variant_agrees": "" if score.variant is None else score.variant,
            "informative": " ".join(score.informative),
            "replications": int(rows["n"].max()) if len(rows) else "",
        }
    if claims is not None and not claims.empty:
        # The paper's claims (`claims*`) and congsim's own checks (`checks*`), apart.
        for origin, prefix in (("paper", "claims"), ("check", "checks")):
            of_origin = claims[claim_origins(claims) == origin]
            if of_origin.empty:
                continue
            counts = of_origin["verdict"].value_counts()
            row |= {
                prefix: len(of_origin),
                f"{prefix}_hold": int(counts.get("holds", 0)),
                f"{prefix}_not_significant": int(counts.get("not significant", 0)),
                f"{prefix}_fail": int(counts.get("fails", 0)),
            }
        if row["replications"] == "":
            row["replications"] = int(claims["n"].max())
    return row


#: Sampling interval of the traced run stored beside each study's results.
TRACE_INTERVAL = "100ms"


#: `on_progress(done, total, failed)` of a study: its sweep's runs, then its traced runs.
Progress = Callable[[int, int, int], None]

#: `on_compared(outcome)`: the comparison and claims, as soon as they are computed (the traced
#: runs may still be running; `outcome.failures` holds the sweep's failures only).
Compared = Callable[["StudyOutcome"], None]


def reproduce(
    study: Study,
    out: Path,
    replications: int | None = None,
    workers: int | None = None,
    on_progress: Progress | None = None,
    on_compared: Compared | None = None,
    variants: bool = True,
) -> StudyOutcome:
    """Runs a registered study into `out/<name>` (resuming), compares it with its reference,
    writes `comparison.csv`, and stores a traced run of the plan's first configuration
    (`traces/flow_series.parquet`, `traces/link_series.parquet`) for the report's time series;
    with `trace_points_by`, one of every configuration too. The traced runs share the worker
    processes of the sweep's runs. With `variants`, each of the study's variants is run too,
    into `out/<name>/variants/<variant>/`, and compared the same way."""
    from dataclasses import replace

    from congsim.sweep import load_plan, run_sweep
    from congsim.sweep.runner import Task, started

    plan = load_plan(study.plan_path())
    if replications is not None:
        plan = plan.with_replications(replications)
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
    variant_plans = [
        (variant, replace(plan, fixed={**plan.fixed, **variant.overrides}))
        for variant in (study.variants if variants else ())
    ]
    total = len(plan.runs()) + sum(len(p.runs()) for _, p in variant_plans) + len(traced)
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
        sweep = run_sweep(
            plan, folder, workers, on_progress=lambda runs_done, _, failed: report(runs_done, total, failed)
        )
        done = len(plan.runs())
        failures |= sweep.failures
        comparison, claims = (
            _judge(study, sweep, plan.parameters, folder) if not sweep.failures else (None, None)
        )
        variant_outcomes = []
        for variant, variant_plan in variant_plans:
            where = folder / "variants" / variant.name

            def progress(runs_done: int, _total: int, failed: int, base: int = done) -> None:
                report(base + runs_done, total, failed)

            variant_sweep = run_sweep(variant_plan, where, workers, on_progress=progress)
            done += len(variant_plan.runs())
            failures |= {f"{variant.name}: {key}": error for key, error in variant_sweep.failures.items()}
            if not variant_sweep.failures:
                judged = _judge(study, variant_sweep, variant_plan.parameters, where)
                variant_outcomes.append(VariantOutcome(variant, where, *judged))
        import pandas as pd  # loaded already by the statistics; here for the type

        outcome = StudyOutcome(
            study,
            folder,
            plan.parameters,
            comparison if comparison is not None else pd.DataFrame(),
            dict(failures),
            claims,
            variant_outcomes,
        )
        if on_compared is not None:
            on_compared(outcome)
        collect(finished)
    outcome.failures = failures
    return outcome


def _judge(
    study: Study, sweep: SweepOutcome, axes: list[str], folder: Path
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A finished sweep's comparison with the reference and its claims, written into `folder`
    as `comparison.csv` and `claims.csv` (the latter when the study has claims)."""
    results = sweep.results()
    comparison = study.compare(sweep.statistics(), axes, results)
    comparison.to_csv(folder / "comparison.csv", index=False)
    claims = study.check_claims(results) if study.claims else None
    if claims is not None:
        claims.to_csv(folder / "claims.csv", index=False)
    return comparison, claims


def _write_traces(folder: Path, tables: dict[str, Any], params: Mapping[str, object]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from congsim.results import Results

    folder.mkdir(parents=True, exist_ok=True)
    results = Results(tables)
    for name in ("flow_series", "link_series", "atm_series"):
        if name in results.names:
            pq.write_table(pa.table(results.columns(name)), folder / f"{name}.parquet")
    for file, data in results.captures.items():
        (folder / file).write_bytes(data)
    (folder / "configuration.json").write_text(json.dumps(params) + "\n", encoding="utf-8")
