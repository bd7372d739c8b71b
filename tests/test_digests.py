"""Every example scenario and every study's network give the same tables as when the digests
were stored: a refactoring or speed change that alters a single value fails here.

The digests are in `tests/table_digests.json`. When a change is meant to alter results (a new
column, a fixed model), regenerate them and say so in the commit:

    CONGSIM_UPDATE_DIGESTS=1 .venv/bin/python -m pytest tests/test_digests.py
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import congsim

ROOT = Path(__file__).resolve().parent.parent
DIGESTS = Path(__file__).resolve().parent / "table_digests.json"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml")) + sorted(
    (ROOT / "python" / "congsim" / "studies" / "data").glob("*-network.toml")
)


#: Columns that count the simulator's work, not what it simulates: a shortcut that saves events
#: changes them and nothing else (the hop-fusion tests compare every other column).
WORK_COLUMNS = {"summary": {"events"}}


def table_digests(path: Path, overrides: list[tuple[str, object]] | None = None) -> dict[str, str]:
    """sha256 of each table of replication 0 (columns in order, values as JSON: floats keep
    every bit through `repr`), without the work columns."""
    results = congsim.run(congsim.load(path, dict(overrides or [])))
    digests = {}
    for name in results.names:
        columns = {c: v for c, v in results.columns(name).items() if c not in WORK_COLUMNS.get(name, set())}
        text = json.dumps([(column, values.tolist()) for column, values in columns.items()], allow_nan=True)
        digests[name] = hashlib.sha256(text.encode()).hexdigest()[:16]
    for file, data in sorted(results.captures.items()):
        digests[file] = hashlib.sha256(data).hexdigest()[:16]
    return digests


def study_points() -> dict[str, tuple[Path, list[tuple[str, object]]]]:
    """The first and the last configuration of every study's plan."""
    from congsim.sweep import load_plan

    points = {}
    for plan_path in sorted((ROOT / "python" / "congsim" / "studies" / "data").glob("*.toml")):
        # Networks and claims files sit beside the plans.
        if plan_path.name.endswith(("-network.toml", "-claims.toml")) or plan_path.name == "dumbbell-20.toml":
            continue
        plan = load_plan(plan_path)
        runs = [r for r in plan.runs() if r.replication == 0]
        for label, run in (("first", runs[0]), ("last", runs[-1])):
            points[f"{plan_path.relative_to(ROOT)} {label}"] = (Path(plan.scenario_source), run.overrides)
    return points


def test_every_example_gives_the_stored_tables():
    got = {str(p.relative_to(ROOT)): table_digests(p) for p in SCENARIOS}
    got |= {name: table_digests(path, overrides) for name, (path, overrides) in study_points().items()}
    if os.environ.get("CONGSIM_UPDATE_DIGESTS") == "1":
        DIGESTS.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.skip("digests written")
    stored = json.loads(DIGESTS.read_text())
    assert sorted(got) == sorted(stored), "scenario files added or removed: regenerate the digests"
    changed = [
        f"{scenario}: {table}"
        for scenario, tables in got.items()
        for table in sorted(set(tables) | set(stored[scenario]))
        if tables.get(table) != stored[scenario].get(table)
    ]
    assert not changed, f"tables changed: {changed}"
