"""Running scenarios."""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from os import PathLike

from congsim import _core
from congsim.results import Results
from congsim.scenario import Scenario

#: The largest replication index: it selects random streams by a 32-bit number.
MAX_REPLICATION = 2**32 - 1

#: `progress(simulated_s, duration_s)`, called about every 100 ms of wall time during a run.
Progress = Callable[[float, float], None]


def run(scenario: Scenario, replication: int = 0, progress: Progress | None = None) -> Results:
    """Runs one replication of `scenario` in the Rust core (the GIL is released meanwhile).

    `replication` is any index from 0 on: it selects the run's random streams
    (`simulation.replications` only sets how many a sweep runs). Ctrl-C stops the run within
    about 100 ms with `KeyboardInterrupt`; `progress` reports how far the simulated clock is."""
    if not isinstance(scenario, Scenario):
        hint = (
            "; for a file, congsim.run(congsim.load(path))"
            if isinstance(scenario, str | PathLike)
            else "; for a dict, congsim.run(congsim.Scenario.from_dict(data))"
            if isinstance(scenario, dict)
            else ""
        )
        raise TypeError(
            f"run expects a congsim.Scenario (from congsim.load or congsim.loads), "
            f"not {type(scenario).__name__}{hint}"
        )
    if isinstance(replication, bool):
        raise TypeError("replication must be an int, not bool")
    try:
        replication = operator.index(replication)  # an int, or a NumPy integer
    except TypeError:
        raise TypeError(f"replication must be an int, not {type(replication).__name__}") from None
    if not 0 <= replication <= MAX_REPLICATION:
        raise ValueError(f"replication must be 0 to {MAX_REPLICATION}, not {replication}")
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a function of (simulated_s, duration_s), not {type(progress).__name__}"
        )
    started = time.perf_counter()
    tables = _core.run(scenario.text, scenario.source, replication, scenario.overrides_json(), progress)
    return Results(tables, wall_s=time.perf_counter() - started)
