"""The ns-2 column (`congsim.studies.judge.add_ns2`): ns-2.35 on the same set-up between the
paper and congsim, congsim judged against it by the one band rule, and each difference from
the paper labelled the set-up's or a model question; and the ns-2 data files themselves."""

from __future__ import annotations

import pandas as pd
import pytest

from congsim.studies import STUDIES
from congsim.studies.declare import Metric
from congsim.studies.judge import (
    DIFFERENCES,
    NS2_COLUMNS,
    NS2_VERDICT_COLUMNS,
    add_ns2,
    judge,
    load_ns2,
    ns2_keys,
    ns2_score,
)
from congsim.studies.score import SCORE_COLUMNS, _score_row

METRICS = {"x": Metric("summary", "x", 1.0, "a metric")}


def comparison(means: list[float]) -> pd.DataFrame:
    """Cells of metric `x`, each with a paper value of 100 (band 90-110) in table T1, one
    configuration `c` each, our CI `mean ± 1`, judged as `compare` judges them."""
    n = len(means)
    frame = pd.DataFrame(
        {
            "c": [str(i) for i in range(n)],
            "metric": ["x"] * n,
            "reference": [100.0] * n,
            "band_low": [90.0] * n,
            "band_high": [110.0] * n,
            "mean": means,
            "ci_low": [m - 1 for m in means],
            "ci_high": [m + 1 for m in means],
            "n": [5] * n,
            "scored": ["yes"] * n,
            "note": [""] * n,
            "table": ["T1"] * n,
        }
    )
    frame["verdict"] = [judge(90.0, 110.0, m - 1, m + 1, m) for m in means]
    judged: pd.DataFrame = frame
    return judged


def ns2_data(values: list[float | None], half_width: float = 2.0) -> pd.DataFrame:
    """ns-2 data as `bench/ns2_data.py` writes it (read back as text), for cells `c` = 0, 1, ...;
    None leaves the cell out."""
    rows = [
        {
            "study": "s",
            "table": "T1",
            "c": str(i),
            "metric": "x",
            "value": f"{v:g}",
            "ci_low": f"{v - half_width:g}",
            "ci_high": f"{v + half_width:g}",
            "n": "5",
            "ns2_version": "ns-2 2.35+dfsg-5",
            "command": "python bench/s_ns2.py",
            "note": "",
        }
        for i, v in enumerate(values)
        if v is not None
    ]
    text: pd.DataFrame = pd.DataFrame(rows).astype(str)
    return text


def test_a_difference_ns2_shares_is_the_set_ups_and_one_only_congsim_shows_is_a_model_question() -> None:
    """Paper 100 (band 90-110). Congsim 130 and ns-2 131: both differ on the same side, the
    set-up's. Congsim 130, ns-2 101: only congsim differs, a model question. Congsim 130 and
    ns-2 70: ns-2 differs on the other side, so it does not share congsim's difference. Congsim
    and ns-2 agree with the paper: no label. Congsim inconclusive: no label either."""
    frame = add_ns2(comparison([130, 130, 130, 100, 110]), ns2_data([131, 101, 70, 100, 112]), METRICS)
    assert list(frame["verdict"]) == ["differs", "differs", "differs", "agrees", "inconclusive"]
    assert list(frame["difference"]) == ["set-up", "model question", "model question", "", ""]
    # Congsim against ns-2, by the paper's band rule around ns-2's mean: 131 ± max(2, 13.1).
    assert list(frame["ns2_verdict"]) == ["agrees", "differs", "differs", "agrees", "agrees"]
    assert (frame["ns2_band_low"].iloc[0], frame["ns2_band_high"].iloc[0]) == pytest.approx((117.9, 144.1))
    # Between the paper and congsim in the table, the verdict against ns-2 after ours.
    columns = list(frame.columns)
    assert columns[columns.index("band_high") + 1 : columns.index("mean")] == NS2_COLUMNS
    assert columns[columns.index("verdict") + 1 : columns.index("verdict") + 6] == NS2_VERDICT_COLUMNS
    score = ns2_score(frame)
    assert score is not None
    assert (score.compared, score.agrees, score.inconclusive, score.differs) == (5, 3, 0, 2)
    assert (score.setup, score.model_questions) == (1, 2)
    assert score.families == (("x", 3, 5),)
    assert score.version == "ns-2 2.35+dfsg-5"
    # Read back from comparison.csv text, as the report reads it, the counts are the same.
    assert ns2_score(frame.astype(str)) == score


def test_ns2_s_ci_widens_its_band_and_a_cell_without_ns2_is_missing() -> None:
    """ns-2 known to ± 20 (few replications) is known no better than that: 100 ± 20 holds 118.
    The label still reads ns-2's mean: 118 differs from the paper (90-110) where ns-2's 100 does
    not, a model question. A cell ns-2 did not run is shown `missing` and counts in neither
    verdict."""
    frame = add_ns2(comparison([118, 130]), ns2_data([100, None], half_width=20.0), METRICS)
    assert list(frame["ns2_verdict"]) == ["agrees", "missing"]
    assert frame["ns2_mean"].isna().iloc[1] and frame["difference"].iloc[1] == ""
    score = ns2_score(frame)
    assert score is not None and (score.compared, score.agrees, score.model_questions) == (1, 1, 1)


def test_scores_gain_the_second_verdict_only_where_the_study_has_ns2_data() -> None:
    frame = comparison([130, 100])
    from congsim.studies.judge import add_baselines

    plain = add_baselines(frame, [])
    row = _score_row("s", "", plain, None)
    assert list(row) == SCORE_COLUMNS
    assert all(row[c] == "" for c in SCORE_COLUMNS[SCORE_COLUMNS.index("ns2_compared") :])
    with_ns2 = _score_row("s", "", add_ns2(plain, ns2_data([131, 100]), METRICS), None)
    assert (with_ns2["ns2_compared"], with_ns2["ns2_agrees"], with_ns2["ns2_families"]) == (2, 2, "x:2:2")
    assert (with_ns2["setup_differences"], with_ns2["model_questions"]) == (1, 0)
    # The first verdict is the same with or without ns-2.
    assert {k: row[k] for k in SCORE_COLUMNS[:22]} == {k: with_ns2[k] for k in SCORE_COLUMNS[:22]}


#: The studies whose paper used ns-2 and that have cells to compare (lima2002-fig4 has no
#: reference table: its figure did not survive extraction, only its claims are checked).
NS2_STUDIES = ("dumbbell-buffers", "lima2002", "koga2000")


@pytest.mark.parametrize("name", NS2_STUDIES)
def test_the_ns2_data_parses_and_covers_every_counted_cell(name: str) -> None:
    study = STUDIES[name]
    ns2 = load_ns2(study)
    assert ns2 is not None, f"data/{name}-ns2.csv: run bench's cross-check for {name}"
    keys = ns2_keys(ns2)
    assert "metric" in keys and "table" in keys
    cells = {tuple(row[k] for k in keys): row for row in ns2.to_dict("records")}
    counted = [r for r in study.reference_rows() if (r.get("scored") or "yes") == "yes"]
    assert counted
    for ref in counted:
        cell = cells.get(tuple(ref.get(k, "") for k in keys))
        assert cell is not None, (name, ref)
        value, low, high = (float(cell[c]) for c in ("value", "ci_low", "ci_high"))
        assert low <= value <= high, cell
        assert int(cell["n"]) >= 2
        assert cell["ns2_version"].startswith("ns-2 2.35"), cell["ns2_version"]
        assert cell["command"].startswith("python bench/"), cell["command"]
    assert set(ns2["study"]) == {name}


def test_studies_without_ns2_data_have_none() -> None:
    assert STUDIES["lima2002-fig4"].reference is None
    for name in set(STUDIES) - set(NS2_STUDIES) - {"lima2002-fig4"}:
        assert load_ns2(STUDIES[name]) is None, name
    assert DIFFERENCES == ("set-up", "model question")
