"""Running scenarios."""

from __future__ import annotations

from congsim import _core
from congsim.results import Results
from congsim.scenario import Scenario


def run(scenario: Scenario, replication: int = 0) -> Results:
    """Runs one replication of `scenario` in the Rust core (the GIL is released meanwhile)."""
    tables = _core.run(scenario.text, scenario.source, replication, scenario.overrides_json())
    return Results(tables)
