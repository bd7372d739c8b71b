"""Scoring a study against trivial predictors (`congsim.studies.judge`): the within-table
baseline, rows shown but not counted, the one margin rule, and families judged by order."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd
import pytest

from congsim.studies.judge import (
    add_baselines,
    baseline_score,
    clearly_ahead,
    judge,
    mark_repeats,
    scored_rows,
)

ROOT = Path(__file__).resolve().parent.parent


def comparison(
    references: list[float],
    means: list[float],
    tables: list[str] | None = None,
    scored: list[str] | None = None,
    half_width: float = 0.01,
) -> pd.DataFrame:
    """A comparison as `compare` writes it, of one metric `x`: bands of ±10 %, our CI
    `mean ± half_width`, the verdict from them, then the repeats and the baselines."""
    n = len(references)
    frame = pd.DataFrame(
        {
            "table": tables or ["T1"] * n,
            "metric": ["x"] * n,
            "reference": references,
            "band_low": [0.9 * r for r in references],
            "band_high": [1.1 * r for r in references],
            "mean": means,
            "ci_low": [m - half_width for m in means],
            "ci_high": [m + half_width for m in means],
            "scored": scored or ["yes"] * n,
            "note": [""] * n,
        }
    )
    frame["verdict"] = [
        judge(low, high, ci_low, ci_high, mean)
        for low, high, ci_low, ci_high, mean in zip(
            *(frame[c] for c in ("band_low", "band_high", "ci_low", "ci_high", "mean")), strict=True
        )
    ]
    return add_baselines(mark_repeats(frame), [])


def test_the_within_table_mean_leaves_the_cell_out_and_agrees_where_the_constant_cannot():
    """A table whose cells barely differ is predicted by its other cells: 100, 104 and 96 by
    100, 98 and 102, all inside their bands, where the constant (55, the mean over both tables)
    agrees nowhere. A table's only cell has no other cells to predict it."""
    references = [100.0, 104.0, 96.0, 10.0, 11.0, 9.0, 500.0]
    frame = comparison(references, references, tables=["A", "A", "A", "B", "B", "B", "C"])
    assert list(frame["baseline_within_table"][:6]) == pytest.approx([100.0, 98.0, 102.0, 10.0, 9.5, 10.5])
    assert math.isnan(frame["baseline_within_table"].iloc[6])
    assert list(frame["baseline_within_table_agrees"]) == [True, True, True, True, False, False, False]
    assert not frame["baseline_constant_agrees"].any()
    score = baseline_score(frame)
    assert (score.compared, score.ours, score.constant, score.within_table) == (7, 7, 0, 4)
    # Ours agree on all seven cells, the within-table mean on four: a lead of three cells with
    # none lost is not clear (a coin would give it one time in eight).
    assert score.informative == ()
    family = score.families[0]
    assert (family.flat, family.ours, family.within_table) == (False, 7, 4)


def test_a_derived_cell_is_shown_but_counts_nowhere():
    """A column average (`scored = derived`) is compared and shown, but neither counts in the
    score nor pulls a baseline: the counted cells' constant and within-table means stay 10 and
    the other cell, whatever the derived number is."""
    frame = comparison([8.0, 12.0, 1000.0], [8.0, 12.0, 1.0], scored=["yes", "yes", "derived"])
    assert list(frame["baseline_constant"]) == [10.0, 10.0, 10.0]
    assert list(frame["baseline_within_table"]) == [12.0, 8.0, 10.0]
    assert frame["verdict"].iloc[2] == "differs", "shown, with its verdict"
    score = baseline_score(frame)
    assert (score.compared, score.ours, score.derived) == (2, 2, 1)
    assert list(scored_rows(frame)["reference"]) == [8.0, 12.0]
    # Read back from CSV text, as the report reads it, the same rows count.
    as_text = frame.astype(str)
    assert len(scored_rows(as_text)) == 2 and baseline_score(as_text).derived == 1


def test_configurations_the_model_cannot_tell_apart_count_once():
    """Rows with the same table, metric and reference whose means and CIs are the very same
    numbers (identical runs) count once; the same reference with another result still counts,
    and so does the same result against another reference."""
    frame = comparison([6.0, 6.0, 6.0, 3.0], [7.44, 7.44, 7.30, 7.44])
    assert list(frame["scored"]) == ["yes", "repeat", "yes", "yes"]
    assert "cannot tell the two apart" in frame["note"].iloc[1]
    score = baseline_score(frame)
    assert (score.compared, score.repeats) == (3, 1)
    # A repeat does not weigh twice in the baselines either: (6 + 6 + 3) / 3.
    assert frame["baseline_constant"].iloc[0] == 5.0


def test_the_margin_rule_at_its_edge():
    """One rule for every lead: `lead - 1 >= 1.645 sd`, sd the lead's standard deviation were
    each item a coin toss. With no cell lost, five cells won is clear (a coin: 1 in 32) and
    four are not (1 in 16); with cells lost, 10 won and 3 lost is clear, 9 and 3 not."""
    assert clearly_ahead(5, math.sqrt(5)) and not clearly_ahead(4, math.sqrt(4))
    assert clearly_ahead(10 - 3, math.sqrt(13)) and not clearly_ahead(9 - 3, math.sqrt(12))
    assert not clearly_ahead(0, 0.0)
    # Through a study: cells far apart, each alone in its table (no within-table mean), the
    # constant in none of the bands; ours agree on the first `k` and differ on the others.
    references = [10.0 * 3**i for i in range(8)]
    for k, informative in ((5, True), (4, False)):
        means = [r if i < k else 2 * r for i, r in enumerate(references)]
        frame = comparison(references, means, tables=[f"T{i}" for i in range(8)])
        score = baseline_score(frame)
        assert (score.ours, score.constant, score.within_table) == (k, 0, 0)
        assert score.informative == (("x",) if informative else ()), k


def test_the_margin_is_against_the_better_baseline():
    """Ours must be clearly ahead of both baselines: far ahead of the constant but level with
    the within-table mean is not informative."""
    references = [100.0, 104.0, 96.0, 102.0, 98.0, 101.0, 10.0, 11.0, 9.0, 10.2]
    tables = ["A"] * 6 + ["B"] * 4
    frame = comparison(references, references, tables=tables)
    score = baseline_score(frame)
    assert (score.ours, score.constant, score.within_table) == (10, 0, 8)
    assert score.informative == ()


def test_a_family_whose_bands_share_a_value_is_judged_by_order():
    """Where one value lies inside every band (koga2000's throughput: 73-81 Mb/s, bands of
    ±10 %), a constant agrees with every cell, so the family is judged on the order of its cells
    within each table instead: pairs our means put in the references' order, against a random
    order (Kendall's test, the same margin rule)."""
    references = [78.4, 78.6, 81.0, 76.9, 78.2, 80.8]
    tables = ["T3"] * 3 + ["T6"] * 3
    in_order = comparison(references, [r - 0.5 for r in references], tables=tables)
    score = baseline_score(in_order)
    family = score.families[0]
    assert family.flat and (family.ours, family.constant) == (6, 6)
    assert (family.in_order, family.reversed) == (6, 0)
    assert score.informative == ("x",)
    # The same cells in reversed order agree as often (every band is wide), but show nothing.
    reversed_means = [160.0 - r for r in references]
    backwards = baseline_score(comparison(references, reversed_means, tables=tables)).families[0]
    assert backwards.flat and (backwards.in_order, backwards.reversed) == (0, 6)
    assert not backwards.informative
    # Three cells in order are not enough (a random order: one time in six).
    three = baseline_score(comparison(references[:3], references[:3], tables=tables[:3]))
    assert three.families[0].flat and three.informative == ()
    # Tied references make no pair, and narrow bands keep a family on its cells.
    tied = baseline_score(comparison([1.0, 1.0, 0.99], [0.97, 0.98, 0.99])).families[0]
    assert (tied.in_order, tied.reversed) == (0, 2)
    assert not baseline_score(comparison([10.0, 20.0], [10.0, 20.0])).families[0].flat


#: The metric families where each study's default set-up is clearly ahead of both trivial
#: predictors in the committed scores (docs/scores.csv): a study that changes category fails
#: here until this and docs/reproduce.md say why.
INFORMATIVE = {
    "dumbbell-buffers": "timeouts total_throughput_mbps",
    "goyal1996": "efficiency fairness",
    "jain1996": "",
    "lima2002": "",
    "koga2000": "throughput_mbps",
}


def test_the_committed_scores_keep_each_study_in_its_category():
    with open(ROOT / "docs" / "scores.csv", newline="", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(f) if not row["variant"] and row["compared"]]
    assert {row["study"]: row["informative"] for row in rows} == INFORMATIVE
