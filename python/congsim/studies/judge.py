"""Judging a study: each reference value against our confidence interval (`compare`), the
trivial predictors on the same bands, and each claim with paired replications
(`check_claims`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from congsim.studies.declare import Side, Study, printed_unit

if TYPE_CHECKING:
    import pandas as pd


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


def _interval(x: pd.Series) -> tuple[float, float, float]:
    """Mean of `x` and its 95 % CI (NaN bounds for fewer than 2 values), as a sweep's
    statistics compute it."""
    from congsim.sweep.stats import confidence_half_width

    half = confidence_half_width(float(x.std()), len(x)) if len(x) > 1 else float("nan")
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


def compare(
    study: Study, statistics: pd.DataFrame, axes: list[str], results: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Reference value, our mean and confidence interval, the band, and the verdict. Column
    averages (see `average_label`) need the sweep's long `results`."""
    import pandas as pd

    rows = []
    # Split once: filtering the whole long table per reference row cost more than the rest.
    statistics_by_metric = dict(iter(statistics.groupby(["table", "metric"], sort=False)))
    by_metric: _ByMetric | None = None
    for ref in study.reference_rows():
        spec = study.metrics[ref["metric"]]
        value = float(ref["value"])
        low, high = spec.band(value, printed_unit(ref["value"]))
        row: dict[str, object] = {axis: ref.get(axis, "") for axis in axes}
        row |= {"metric": ref["metric"], "reference": value, "band_low": low, "band_high": high}
        row["table"] = ref.get("table", "")
        # A printed number compared a second time (another reading of an unstated set-up,
        # or a configuration the paper prints twice) is shown but not scored.
        row |= {"scored": ref.get("scored", "yes") != "no", "note": ref.get("note", "")}
        if study.average_label is not None and ref.get("label") == study.average_label:
            if results is None:
                raise ValueError(f"{study.name}: column averages need the sweep's results")
            side = {a: ref[a] for a in axes if a != "label" and ref.get(a, "") != ""}
            by_metric = by_metric or _ByMetric(results)
            values = _per_replication(study, by_metric, ref["metric"], side, "column average")
            mean, ci_low, ci_high = _interval(values)
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


def _per_replication(study: Study, results: _ByMetric, metric: str, side: Side, what: str) -> pd.Series:
    """`metric` (scaled) per replication, averaged over the configurations `side` matches;
    every replication must have the same configurations."""
    spec = study.metrics[metric]
    data = results.rows(spec.table, spec.metric)
    for axis, value in side.items():
        accepted = value if isinstance(value, tuple) else (value,)
        data = data[data[axis].map(_axis_text).isin(accepted)]
    counts = data.groupby("replication")["run"].nunique()
    if data.empty or counts.nunique() != 1:
        raise ValueError(
            f"{study.name}: {what}: the side {dict(side)} must match the same configurations in "
            f"every replication ({data['run'].nunique()} runs)"
        )
    values: pd.Series = data.groupby("replication")["value"].mean().astype(float) * spec.scale
    return values


def check_claims(study: Study, results: pd.DataFrame) -> pd.DataFrame:
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
    for claim in study.claims:
        what = repr(claim.description)
        measured = claim.rhs if claim.lhs_bound is not None else claim.lhs
        index = _per_replication(study, by_metric, claim.metric, measured, what).index
        lhs = (
            pd.Series(claim.lhs_bound, index=index)
            if claim.lhs_bound is not None
            else _per_replication(study, by_metric, claim.metric, claim.lhs, what)
        )
        rhs = (
            pd.Series(claim.bound, index=index)
            if claim.bound is not None
            else _per_replication(study, by_metric, claim.rhs_metric or claim.metric, claim.rhs, what)
        )
        sides = {"lhs": lhs, "rhs": rhs}
        paired = pd.concat(sides, axis=1, join="inner").dropna()
        a, b = paired["lhs"], paired["rhs"]
        n = len(paired)
        t = student_t_quantile(0.975, n - 1) if n > 1 else float("nan")
        diff_mean, _, diff_high = _interval(claim.factor * a - b)
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
        (lhs_mean, lhs_low, lhs_high), (rhs_mean, rhs_low, rhs_high) = _interval(a), _interval(b)
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
