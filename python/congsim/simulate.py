"""Running scenarios."""

from __future__ import annotations

from collections.abc import Callable

from congsim import _core
from congsim.results import Results
from congsim.scenario import Scenario

#: `progress(simulated_s, duration_s)`, called about every 100 ms of wall time during a run.
Progress = Callable[[float, float], None]


def run(scenario: Scenario, replication: int = 0, progress: Progress | None = None) -> Results:
    """Runs one replication of `scenario` in the Rust core (the GIL is released meanwhile).

    `replication` is any index from 0 on: it selects the run's random streams
    (`simulation.replications` only sets how many a sweep runs). Ctrl-C stops the run within
    about 100 ms with `KeyboardInterrupt`; `progress` reports how far the simulated clock is."""
    if replication < 0:
        raise ValueError(f"replication must be 0 or more, not {replication}")
    tables = _core.run(scenario.text, scenario.source, replication, scenario.overrides_json(), progress)
    return Results(tables)
