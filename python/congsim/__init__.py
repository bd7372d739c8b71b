"""congsim: a fast, deterministic simulator of TCP congestion control over IP and ATM networks.

>>> import congsim
>>> scenario = congsim.load("scenarios/single-flow.toml")      # doctest: +SKIP
>>> results = congsim.run(scenario)                             # doctest: +SKIP
>>> results.flows[["flow", "goodput_bps", "timeouts"]]          # doctest: +SKIP

Importing the package is cheap: pandas and pyarrow load only when results are built, and
`congsim.sweep` and `__version__` only when first used (sweep workers import this package).
"""

from __future__ import annotations

# First, before anything slow: in the `congsim` command, a Ctrl-C while it is still loading
# ends it with one line (`congsim._interrupts.guard_command_start`).
from congsim import _interrupts  # noqa: F401

# isort: split
from typing import TYPE_CHECKING, Any

from congsim._core import ScenarioError
from congsim.results import Results
from congsim.scenario import Scenario, load, loads, schema
from congsim.simulate import run

if TYPE_CHECKING:
    from congsim import sweep

__all__ = ["Results", "Scenario", "ScenarioError", "__version__", "load", "loads", "run", "schema", "sweep"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        # One source: the workspace Cargo.toml, which maturin writes into the package's
        # metadata and compiles into the native module.
        try:
            return version("congsim")
        except PackageNotFoundError:  # a source tree on sys.path, not installed
            from congsim import _core

            # A native module built before it carried `__version__` has none; rebuilding it
            # (scripts/install.sh) adds it.
            return getattr(_core, "__version__", "0+unknown")
    if name == "sweep":
        import importlib

        return importlib.import_module("congsim.sweep")
    raise AttributeError(f"module 'congsim' has no attribute {name!r}")
