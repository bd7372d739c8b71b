"""congsim: a fast, deterministic simulator of TCP congestion control over IP and ATM networks.

>>> import congsim
>>> scenario = congsim.load("scenarios/single-flow.toml")      # doctest: +SKIP
>>> results = congsim.run(scenario)                             # doctest: +SKIP
>>> results.flows[["flow", "goodput_bps", "timeouts"]]          # doctest: +SKIP

Importing the package is cheap: pandas and pyarrow load only when results are built.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from congsim import sweep
from congsim._core import ScenarioError
from congsim.results import Results
from congsim.scenario import Scenario, load, loads, schema
from congsim.simulate import run

try:
    __version__ = version("congsim")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = ["Results", "Scenario", "ScenarioError", "__version__", "load", "loads", "run", "schema", "sweep"]
