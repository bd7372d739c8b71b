"""Registered studies: what `congsim reproduce` runs and the reference numbers it compares to.

A study is a sweep plan plus a reference table (CSV, under version control, each row with its
source) and, for each reference metric, how to compute it from the sweep and how close counts
as agreement. One module a study; the machinery by job: `declare` (study, metric, claim,
variant), `judge` (verdicts, baselines, claims), `score` (`scores.csv`), `run` (`reproduce`).
The published numbers are data (`data/`): nothing in here computes or copies them.
"""

from __future__ import annotations

from types import ModuleType

from congsim.studies import (
    dumbbell_buffers,
    goyal1996,
    jain1996,
    jain1996_buffers,
    jain1996_multihop,
    koga2000,
    lima2002,
    lima2002_fig4,
    sisalem1995,
    sisalem1995_multihop,
)
from congsim.studies.declare import DATA, Claim, Metric, Study
from congsim.studies.run import StudyOutcome, reproduce

#: Every study's module, by study name, in the order `all` runs them.
MODULES: dict[str, ModuleType] = {
    module.STUDY.name: module
    for module in (
        dumbbell_buffers,
        goyal1996,
        jain1996,
        jain1996_buffers,
        jain1996_multihop,
        lima2002,
        lima2002_fig4,
        sisalem1995,
        sisalem1995_multihop,
        koga2000,
    )
}

#: Every study `congsim reproduce` knows, in the order `all` runs them.
STUDIES: dict[str, Study] = {name: module.STUDY for name, module in MODULES.items()}

__all__ = ["DATA", "MODULES", "STUDIES", "Claim", "Metric", "Study", "StudyOutcome", "reproduce"]
