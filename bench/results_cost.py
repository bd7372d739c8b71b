"""What a run's results cost on their way into Python (issue 19's "Arrow from Rust if faster").

    python bench/results_cost.py SCENARIO core|frames

Loads SCENARIO with 10 ms time series and the TCP event trace on, runs it through the native
module (`_core.run`, which hands every column over as bytes) and, with `frames`, builds
every table's DataFrame as `congsim.run(...).table(name)` does. Prints the seconds of each step
and the rows. Time whole processes against each other (and against `congsim-native run` of the
same scenario) with an external timer to see what the lists and the DataFrames add.
"""

from __future__ import annotations

import sys
import time

import congsim
from congsim import _core


def main() -> None:
    path, mode = sys.argv[1], sys.argv[2]
    scenario = congsim.load(path, {"metrics.series_interval": "10ms", "metrics.tcp_events": True})
    started = time.perf_counter()
    tables = _core.run(scenario.text, scenario.source, 0, scenario.overrides_json(), None)
    ran = time.perf_counter()
    if mode == "frames":
        results = congsim.Results(tables)
        for name in results.names:
            results.table(name)
    framed = time.perf_counter()
    results = congsim.Results(tables)
    rows = sum(len(next(iter(results.columns(name).values()))) for name in results.names)
    print(f"run and hand-over {ran - started:.3f} s, DataFrames {framed - ran:.3f} s, {rows} rows")


if __name__ == "__main__":
    main()
