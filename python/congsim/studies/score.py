"""Scoring a study: its line (and each variant's) of `scores.csv`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from congsim.studies.judge import baseline_score, ns2_score, scored_rows

if TYPE_CHECKING:
    import pandas as pd

    from congsim.studies.run import StudyOutcome

#: Columns of `scores.csv`, the line per study that `congsim reproduce all` ends with.
SCORE_COLUMNS = [
    "study",
    "variant",
    "compared",
    "derived",
    "repeats",
    "agrees",
    "inconclusive",
    "differs",
    "constant_agrees",
    "within_table_agrees",
    "variant_agrees",
    "informative",
    "ranked",
    "claims",
    "claims_hold",
    "claims_not_significant",
    "claims_fail",
    "checks",
    "checks_hold",
    "checks_not_significant",
    "checks_fail",
    "replications",
    # The second verdict, where the study has ns-2 data (judge.add_ns2): ours against ns-2.35 on
    # the same set-up, on the counted cells; per family `metric:agree:compared`; the cells where
    # ours differ from the paper that ns-2 shares (the set-up's) and that only ours show.
    "ns2_compared",
    "ns2_agrees",
    "ns2_inconclusive",
    "ns2_differs",
    "ns2_families",
    "setup_differences",
    "model_questions",
    "ns2_version",
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
    """One line of `scores.csv`: the verdicts on the counted reference values, the rows shown
    but not counted, the trivial predictors' agreements on the same bands, the metric families
    where ours are clearly ahead of both (`informative`), the families judged on the order of
    their cells (`ranked`: `metric:in order:reversed`, pairs of cells), the second verdict
    against ns-2 where the study has ns-2 data (`judge.ns2_score`), and the claims."""
    row: dict[str, object] = dict.fromkeys(SCORE_COLUMNS, "")
    row["study"] = study
    row["variant"] = variant
    if not comparison.empty:
        score = baseline_score(comparison)
        rows = scored_rows(comparison)
        row |= {
            "compared": score.compared,
            "derived": score.derived,
            "repeats": score.repeats,
            "agrees": score.ours,
            "inconclusive": score.inconclusive,
            "differs": int((rows["verdict"] == "differs").sum()),
            "constant_agrees": score.constant,
            "within_table_agrees": score.within_table,
            "variant_agrees": "" if score.variant is None else score.variant,
            "informative": " ".join(score.informative),
            "ranked": " ".join(f"{f.metric}:{f.in_order}:{f.reversed}" for f in score.families if f.flat),
            "replications": int(rows["n"].max()) if len(rows) else "",
        }
        second = ns2_score(comparison)
        if second is not None:
            row |= {
                "ns2_compared": second.compared,
                "ns2_agrees": second.agrees,
                "ns2_inconclusive": second.inconclusive,
                "ns2_differs": second.differs,
                "ns2_families": " ".join(f"{m}:{a}:{n}" for m, a, n in second.families),
                "setup_differences": second.setup,
                "model_questions": second.model_questions,
                "ns2_version": second.version,
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
