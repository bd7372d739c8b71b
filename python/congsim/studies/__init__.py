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
from collections.abc import Mapping
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

    def plan_path(self) -> Path:
        assert self.plan is not None
        return Path(str(DATA / self.plan))

    def reference_rows(self) -> list[dict[str, str]]:
        if self.reference is None:
            return []
        with open(str(DATA / self.reference), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def compare(self, statistics: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
        """Reference value, our mean and confidence interval, the band, and the verdict."""
        import pandas as pd

        rows = []
        for ref in self.reference_rows():
            spec = self.metrics[ref["metric"]]
            match = statistics[(statistics["table"] == spec.table) & (statistics["metric"] == spec.metric)]
            for axis in axes:
                match = match[match[axis].astype(str) == ref[axis]]
            value = float(ref["value"])
            low, high = value * (1 - spec.relative_tolerance), value * (1 + spec.relative_tolerance)
            row: dict[str, object] = {axis: ref[axis] for axis in axes}
            row |= {"metric": ref["metric"], "reference": value, "band_low": low, "band_high": high}
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
        frame: pd.DataFrame = pd.DataFrame(rows)
        return frame


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
            "goyal1996",
            "TCP over UBR+ with fast retransmit and recovery (seed 000)",
            None,
            None,
            pending="needs ATM cells and UBR+ switches (issue 6)",
        ),
        Study(
            "jain1996",
            "Buffer requirements for TCP over ABR (seed 001)",
            None,
            None,
            pending="needs ATM ABR with ERICA (issue 7)",
        ),
        Study(
            "lima2002",
            "TCP loss recovery mechanisms with web and FTP traffic over RED (seed 002)",
            None,
            None,
            pending="needs SACK (issue 4) and RED, CBR and web traffic (issue 5)",
        ),
        Study(
            "sisalem1995",
            "Binary congestion notification vs Reno and Tahoe (seed 003)",
            None,
            None,
            pending="needs BCN and RED marking (issues 4, 5) and EPRCA (issue 7)",
        ),
        Study(
            "koga2000",
            "TCP implementations in a CBQ network (seed 004)",
            None,
            None,
            pending="needs SACK (issue 4) and CBQ with CBR traffic (issue 5)",
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


#: Sampling interval of the traced run stored beside each study's results.
TRACE_INTERVAL = "100ms"


def reproduce(
    study: Study, out: Path, replications: int | None = None, workers: int | None = None
) -> StudyOutcome:
    """Runs a registered study into `out/<name>` (resuming), compares it with its reference,
    writes `comparison.csv`, and stores a traced run of the plan's first configuration
    (`traces/flow_series.parquet`, `traces/link_series.parquet`) for the report's time series."""
    from dataclasses import replace

    from congsim import _core
    from congsim.sweep import load_plan, run_sweep

    if study.pending is not None:
        raise ValueError(f"{study.name} is not reproducible yet: {study.pending}")
    plan = load_plan(study.plan_path())
    if replications is not None:
        plan = replace(plan, replications=replications)
    folder = out / study.name
    outcome = run_sweep(plan, folder, workers)
    comparison = study.compare(outcome.statistics(), plan.parameters) if not outcome.failures else None
    if comparison is not None:
        comparison.to_csv(folder / "comparison.csv", index=False)
    first = plan.runs()[0]
    traced: list[tuple[str, object]] = [*first.overrides, ("metrics.series_interval", TRACE_INTERVAL)]
    if study.capture_links:
        traced.append(("captures", [{"file": "traced.pcap", "links": list(study.capture_links)}]))
    tables = _core.run(plan.scenario_text, plan.scenario_source, 0, json.dumps([list(o) for o in traced]))
    _write_traces(folder / "traces", tables, first.params)
    import pandas as pd

    return StudyOutcome(
        study,
        folder,
        plan.parameters,
        comparison if comparison is not None else pd.DataFrame(),
        outcome.failures,
    )


def _write_traces(folder: Path, tables: dict[str, Any], params: Mapping[str, object]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for name in ("flow_series", "link_series"):
        pq.write_table(pa.table(tables[name]), folder / f"{name}.parquet")
    for file, data in tables.get("captures", {}).items():
        (folder / file).write_bytes(data)
    (folder / "configuration.json").write_text(json.dumps(params) + "\n", encoding="utf-8")
