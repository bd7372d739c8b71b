"""Judging a study: each reference value against our confidence interval (`compare`), the
trivial predictors on the same bands, and each claim with paired replications
(`check_claims`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from congsim.studies.declare import DATA, Metric, Side, Study, printed_unit

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

#: What a reference row's `scored` says (the reference data's column, `yes` where it has none):
#: `yes`, a printed number that counts; `no`, a printed number shown a second time (another
#: reading of an unstated set-up, a configuration the paper prints twice); `derived`, a number
#: the paper computes from other printed cells (a column average, a sum, the same quantity in
#: another unit). Judging adds `repeat` (see `mark_repeats`). Only `yes` rows are counted;
#: `True` is how comparisons written before `scored` said why read back.
SCORED = ("yes", "no", "derived")
COUNTED = ("yes", "True")

#: How the report and the command mark a row that is shown but not counted.
UNCOUNTED_LABELS = {"no": "unscored", "False": "unscored", "derived": "derived", "repeat": "counted once"}

#: The axis a per-variant trivial predictor keys on, when a study has it.
BASELINE_AXIS = "tcp.variant"

#: The one margin rule: a lead is clear when chance would give it less than one time in twenty
#: (one-sided 5 %, the level of every CI and claim here). See `clearly_ahead`.
Z_ONE_SIDED_95 = 1.645

REPEAT_NOTE = (
    "the model gives the very same result (mean and CI) as an earlier configuration with the "
    "same reference in this table: it cannot tell the two apart, so they count once"
)


def _counted(column: pd.Series) -> pd.Series:
    """Which rows count, from a `scored` column (also as read back from CSV text)."""
    return column.astype(str).isin(COUNTED)


def uncounted_label(scored: object) -> str:
    """How a row that is shown but not counted is marked ("" for a counted row)."""
    return UNCOUNTED_LABELS.get(str(scored), "")


def mark_repeats(frame: pd.DataFrame) -> pd.DataFrame:
    """Configurations the model cannot tell apart count once: a counted row with the same table,
    metric and reference as an earlier counted row, whose mean and CI are the very same numbers
    (the runs gave identical results, as lima2002's six TCP variants at light load, where no
    transfer loses a packet), becomes `scored = repeat`, with a note saying why."""
    frame = frame.copy()
    compared = _counted(frame["scored"]) & frame["verdict"].isin(VERDICTS)
    key = ["table", "metric", "reference", "mean", "ci_low", "ci_high"]
    repeats = frame.loc[compared, key].fillna({"table": ""}).duplicated()
    repeated = repeats[repeats].index
    # Text columns (a frame of only counted rows may hold booleans, one without notes NaN).
    frame["scored"] = frame["scored"].astype(object)
    frame["note"] = frame["note"].astype(object)
    frame.loc[repeated, "scored"] = "repeat"
    frame.loc[repeated, "note"] = REPEAT_NOTE
    return frame


def add_baselines(frame: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """Trivial predictors beside each compared value, so that a score means something, each
    computed from the counted references (`scored = yes`) only: a constant per metric at their
    mean (`baseline_constant`); the mean of the other counted cells of the same metric in the
    same table (`baseline_within_table`, leave-one-out: a table whose cells barely differ is
    predicted by its neighbours; none for a table's only cell); and, where the study varies
    `tcp.variant`, one constant per metric and variant (`baseline_variant`). Each is judged on
    the row's band as our mean is, with our CI's width around it (a predictor as precise as our
    replications), so `*_agrees` means the verdict would be `agrees`."""
    import pandas as pd

    frame = frame.copy()
    counted = _counted(frame["scored"])
    references = frame["reference"].astype(float).where(counted)
    half_width = ((frame["ci_high"] - frame["ci_low"]) / 2).fillna(0.0)

    def agrees(prediction: pd.Series) -> pd.Series:
        verdicts = [
            judge(low, high, value - half, value + half, value)
            for low, high, value, half in zip(
                frame["band_low"], frame["band_high"], prediction, half_width, strict=True
            )
        ]
        # A missing prediction (NaN: a table's only cell) is judged `inconclusive`.
        agreeing: pd.Series = pd.Series([v == "agrees" for v in verdicts], index=frame.index, dtype=bool)
        return agreeing

    frame["baseline_constant"] = references.groupby(frame["metric"]).transform("mean")
    frame["baseline_constant_agrees"] = agrees(frame["baseline_constant"])
    cells = [frame["table"].fillna("").astype(str), frame["metric"]]
    total = references.groupby(cells).transform("sum")
    count = references.groupby(cells).transform("count")
    # A counted cell leaves itself out; a row that is not counted is predicted by all of them.
    others = (total - references.fillna(0.0)) / (count - counted.astype(int))
    frame["baseline_within_table"] = others.where(count - counted.astype(int) > 0)
    frame["baseline_within_table_agrees"] = agrees(frame["baseline_within_table"])
    if BASELINE_AXIS in axes and frame[BASELINE_AXIS].fillna("").astype(str).str.len().gt(0).any():
        keys = [frame["metric"], frame[BASELINE_AXIS].fillna("").astype(str)]
        frame["baseline_variant"] = references.groupby(keys).transform("mean")
        frame["baseline_variant_agrees"] = agrees(frame["baseline_variant"])
    return frame


#: ns-2.35 run on the very networks a study runs (`bench/<study>_ns2.py`), for the studies whose
#: paper used ns-2: `data/<study>-ns2.csv`, one row per cell of the study's reference table with
#: its key columns, then these.
NS2_DATA_COLUMNS = ("value", "ci_low", "ci_high", "n", "ns2_version", "command", "note")

#: Columns a comparison gains where the study has ns-2 data: ns-2's mean, CI and replications,
#: between the paper's number (and its band) and ours ...
NS2_COLUMNS = ["ns2_mean", "ns2_ci_low", "ns2_ci_high", "ns2_n"]
#: ... and after our verdict against the paper: ours against ns-2 under the one band rule
#: (`ns2_verdict`), and what a difference from the paper is (`difference`, `DIFFERENCES`).
NS2_VERDICT_COLUMNS = ["ns2_band_low", "ns2_band_high", "ns2_verdict", "difference", "ns2_version"]

#: What a cell where ours differ from the paper is: `set-up` when ns-2 on the same set-up lies
#: outside the paper's band on the same side (the difference is the set-up's: the paper's
#: unstated parameters or its simulator's version), `model question` when only ours do.
DIFFERENCES = ("set-up", "model question")


def load_ns2(study: Study) -> pd.DataFrame | None:
    """The study's ns-2 data (`data/<study>-ns2.csv`, as text), or None when it has none."""
    import pandas as pd

    source = DATA / f"{study.name}-ns2.csv"
    if not source.is_file():
        return None
    with source.open(encoding="utf-8") as f:
        frame: pd.DataFrame = pd.read_csv(f, dtype=str, keep_default_na=False)
    return frame


def ns2_keys(ns2: pd.DataFrame) -> list[str]:
    """The columns of ns-2 data that name a cell (its table, configuration and metric)."""
    return [c for c in ns2.columns if c not in NS2_DATA_COLUMNS and c != "study"]


def add_ns2(frame: pd.DataFrame, ns2: pd.DataFrame, metrics: dict[str, Metric]) -> pd.DataFrame:
    """ns-2's value of each cell beside the paper's and ours (`NS2_COLUMNS`), ours judged against
    it by the one band rule the paper's numbers get (`Metric.band`: ns-2's mean, known to ± its
    CI's half-width, or half a unit of its last digit without a CI, ± the larger of that and
    `TOLERANCE` of it; `judge` on our CI), and each cell where ours differ from the paper
    labelled (`DIFFERENCES`): `set-up` when ns-2's mean lies outside the paper's band on the
    same side as ours, `model question` otherwise. A cell ns-2 did not run is `missing`."""
    import pandas as pd

    keys = ns2_keys(ns2)
    by_cell = {tuple(row[k] for k in keys): row for row in ns2.to_dict("records")}
    added: dict[str, list[object]] = {c: [] for c in [*NS2_COLUMNS, *NS2_VERDICT_COLUMNS]}
    for row in frame.to_dict("records"):
        cell = by_cell.get(tuple(_axis_text(row.get(k, "")) for k in keys))
        if cell is None or not cell["value"]:
            for column, value in zip(added, [math.nan] * 6 + ["missing", "", ""], strict=True):
                added[column].append(value)
            continue
        ns2_mean = float(cell["value"])
        ns2_low, ns2_high = (float(cell[c]) if cell[c] else math.nan for c in ("ci_low", "ci_high"))
        half = (ns2_high - ns2_low) / 2
        unit = 2 * half if half == half else printed_unit(cell["value"])
        low, high = metrics[str(row["metric"])].band(ns2_mean, unit)
        mean = float(row["mean"])
        verdict = "missing"
        if row["verdict"] in VERDICTS:
            verdict = judge(low, high, float(row["ci_low"]), float(row["ci_high"]), mean)
        difference = ""
        if row["verdict"] == "differs":
            above = mean > float(row["band_high"])
            shared = ns2_mean > float(row["band_high"]) if above else ns2_mean < float(row["band_low"])
            difference = DIFFERENCES[0] if shared else DIFFERENCES[1]
        values = [ns2_mean, ns2_low, ns2_high, int(cell["n"]), low, high, verdict, difference]
        for column, value in zip(added, [*values, cell["ns2_version"]], strict=True):
            added[column].append(value)
    columns = list(frame.columns)
    at = columns.index("band_high") + 1
    columns = columns[:at] + NS2_COLUMNS + columns[at:]
    at = columns.index("verdict") + 1
    columns = columns[:at] + NS2_VERDICT_COLUMNS + columns[at:]
    joined: pd.DataFrame = pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1)[columns]
    return joined


def clearly_ahead(lead: int, deviation: float) -> bool:
    """The one margin rule. `lead` counts items won minus items lost against an uninformed
    predictor, `deviation` is its standard deviation were each item a fair coin; the lead is
    clear when `lead - 1 >= 1.645 deviation` (a one-sided test at 5 %, continuity-corrected):
    a sign test for cells, Kendall's test for pairs in order."""
    return lead - 1 >= Z_ONE_SIDED_95 * deviation


@dataclass(frozen=True)
class FamilyScore:
    """One metric family of a study (a metric over all its tables), on its counted cells."""

    metric: str
    cells: int
    ours: int
    constant: int
    within_table: int
    #: One value lies inside every band of the family, so a constant agrees with every cell:
    #: the family is judged on the order of its cells instead.
    flat: bool
    #: Pairs of cells of one table whose references differ, that our means put in the
    #: references' order, and in the other order (ties in our means are neither).
    in_order: int
    reversed: int
    #: Ours are clearly ahead (`clearly_ahead`) of both the constant and the within-table mean
    #: on the cells, or, for a flat family, of a random order on the pairs.
    informative: bool


@dataclass(frozen=True)
class BaselineScore:
    """How many counted values agree: ours, and each trivial predictor's, overall and per
    metric family."""

    compared: int
    ours: int
    #: Ours neither agree nor differ: the CI straddles a band edge.
    inconclusive: int
    constant: int
    within_table: int
    variant: int | None
    #: Rows shown but not counted: derived from other printed cells, and repeats of a
    #: configuration the model cannot tell apart.
    derived: int
    repeats: int
    families: tuple[FamilyScore, ...]

    @property
    def informative(self) -> tuple[str, ...]:
        """Metric families where ours carry information beyond both trivial predictors."""
        return tuple(f.metric for f in self.families if f.informative)


def _truth(column: pd.Series) -> pd.Series:
    """A boolean column, also as read back from CSV text ("True"/"False")."""
    return column.astype(str).isin(["True", "true", "1"])


def scored_rows(comparison: pd.DataFrame) -> pd.DataFrame:
    """The rows a study's score counts: compared (not missing) and `scored = yes`, so that each
    printed number and each configuration counts once. A comparison written before rows could
    be unscored counts every row."""
    compared = comparison["verdict"].isin(VERDICTS)
    if "scored" in comparison:
        compared &= _counted(comparison["scored"])
    rows: pd.DataFrame = comparison[compared]
    return rows


def _cell_lead(ours: pd.Series, baseline: pd.Series) -> tuple[int, float]:
    """Ours against a baseline on the same cells: cells where only ours agree minus cells
    where only the baseline's do, and the lead's standard deviation were each such cell a coin
    toss (a sign test)."""
    import math

    wins = int((ours & ~baseline).sum())
    losses = int((baseline & ~ours).sum())
    return wins - losses, math.sqrt(wins + losses)


def _order(rows: pd.DataFrame) -> tuple[int, int, float]:
    """Pairs of cells of one table whose references differ, in the references' order by our
    means and in the other, and the standard deviation of their difference under a random
    order (Kendall's, with the references' ties)."""
    import math

    in_order = reversed_ = 0
    variance = 0.0
    for _, table in rows.groupby(rows["table"].fillna("").astype(str)):
        references = table["reference"].astype(float).to_list()
        means = table["mean"].astype(float).to_list()
        for i, (ref_i, mean_i) in enumerate(zip(references, means, strict=True)):
            for ref_j, mean_j in zip(references[i + 1 :], means[i + 1 :], strict=True):
                if ref_i == ref_j or mean_i == mean_j:
                    continue
                if (ref_i < ref_j) == (mean_i < mean_j):
                    in_order += 1
                else:
                    reversed_ += 1
        n = len(references)
        ties = table["reference"].astype(float).value_counts()
        variance += (n * (n - 1) * (2 * n + 5) - sum(t * (t - 1) * (2 * t + 5) for t in ties)) / 18
    return in_order, reversed_, math.sqrt(variance)


def _family_score(metric: str, rows: pd.DataFrame) -> FamilyScore:
    ours = rows["verdict"] == "agrees"
    constant = _truth(rows["baseline_constant_agrees"])
    within = _truth(rows["baseline_within_table_agrees"])
    flat = bool(rows["band_low"].astype(float).max() <= rows["band_high"].astype(float).min())
    in_order, reversed_, deviation = _order(rows)
    if flat:
        informative = clearly_ahead(in_order - reversed_, deviation)
    else:
        informative = all(clearly_ahead(*_cell_lead(ours, baseline)) for baseline in (constant, within))
    return FamilyScore(
        metric=metric,
        cells=len(rows),
        ours=int(ours.sum()),
        constant=int(constant.sum()),
        within_table=int(within.sum()),
        flat=flat,
        in_order=in_order,
        reversed=reversed_,
        informative=informative,
    )


def baseline_score(comparison: pd.DataFrame) -> BaselineScore:
    rows = scored_rows(comparison)
    ours = rows["verdict"] == "agrees"
    constant = _truth(rows["baseline_constant_agrees"])
    within = _truth(rows["baseline_within_table_agrees"])
    variant = _truth(rows["baseline_variant_agrees"]) if "baseline_variant_agrees" in rows else None
    scored = comparison["scored"].astype(str) if "scored" in comparison else None
    return BaselineScore(
        compared=len(rows),
        ours=int(ours.sum()),
        inconclusive=int((rows["verdict"] == "inconclusive").sum()),
        constant=int(constant.sum()),
        within_table=int(within.sum()),
        variant=None if variant is None else int(variant.sum()),
        derived=0 if scored is None else int((scored == "derived").sum()),
        repeats=0 if scored is None else int((scored == "repeat").sum()),
        families=tuple(
            _family_score(str(metric), group) for metric, group in rows.groupby("metric", sort=True)
        ),
    )


@dataclass(frozen=True)
class Ns2Score:
    """The second verdict, on the counted cells ns-2 ran: ours against ns-2 on the same set-up
    (which should agree), overall and per metric family, and how the cells where ours differ
    from the paper split (`DIFFERENCES`)."""

    compared: int
    agrees: int
    inconclusive: int
    differs: int
    #: (metric, cells agreeing with ns-2, cells compared), by metric.
    families: tuple[tuple[str, int, int], ...]
    setup: int
    model_questions: int
    version: str


def ns2_score(comparison: pd.DataFrame) -> Ns2Score | None:
    """The second verdict's counts, or None for a comparison without ns-2 columns."""
    if "ns2_verdict" not in comparison:
        return None
    rows = scored_rows(comparison)
    rows = rows[rows["ns2_verdict"].isin(VERDICTS)]
    verdicts = rows["ns2_verdict"]
    difference = rows["difference"].fillna("").astype(str)
    versions = sorted(set(rows["ns2_version"].dropna().astype(str)) - {""})
    return Ns2Score(
        compared=len(rows),
        agrees=int((verdicts == "agrees").sum()),
        inconclusive=int((verdicts == "inconclusive").sum()),
        differs=int((verdicts == "differs").sum()),
        families=tuple(
            (str(metric), int((group["ns2_verdict"] == "agrees").sum()), len(group))
            for metric, group in rows.groupby("metric", sort=True)
        ),
        setup=int((difference == DIFFERENCES[0]).sum()),
        model_questions=int((difference == DIFFERENCES[1]).sum()),
        version=", ".join(versions),
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
    study: Study,
    statistics: pd.DataFrame,
    axes: list[str],
    results: pd.DataFrame | None = None,
    ns2: bool = True,
) -> pd.DataFrame:
    """Reference value, our mean and confidence interval, the band, and the verdict. Column
    averages (see `average_label`) need the sweep's long `results`. With `ns2`, a study with
    ns-2 data (`load_ns2`) gets its columns (`add_ns2`); a variant, which changes the set-up
    ns-2 ran, does not."""
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
        # or a configuration the paper prints twice) or derived from other printed cells is
        # shown but not counted (see `SCORED`).
        scored = ref.get("scored") or "yes"
        if scored not in SCORED:
            raise ValueError(f"{study.name}: scored = {scored!r}; it must be one of {SCORED}")
        row |= {"scored": scored, "note": ref.get("note", "")}
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
    frame = add_baselines(mark_repeats(frame), axes)
    ns2_data = load_ns2(study) if ns2 else None
    if ns2_data is not None:
        frame = add_ns2(frame, ns2_data, study.metrics)
    return frame


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
