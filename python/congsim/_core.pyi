"""Type stub of the native module built from crates/congsim-py."""

from collections.abc import Callable
from typing import Any

class ScenarioError(ValueError): ...

#: The tables a run produces on request or when the scenario has what they describe, in order.
OPTIONAL_TABLES: list[str]

def validate(text: str, file: str, overrides: str | None = None) -> tuple[str, list[str]]:
    """A one-line description and the warnings (`field: message`), after `overrides`."""

def describe(text: str, file: str, overrides: str | None = None) -> tuple[str, int, int, int]: ...
def run(
    text: str,
    file: str,
    replication: int = 0,
    overrides: str | None = None,
    progress: Callable[[float, float], object] | None = None,
) -> dict[str, Any]:
    """`{table: {column: values}}`, plus `"captures": {file: pcap bytes}` when asked for.
    Ctrl-C stops it within about 100 ms; `progress(simulated_s, duration_s)` is called as
    often."""

def schema() -> str: ...
def limits() -> list[tuple[str, int, str]]:
    """The resource limits in force (`CONGSIM_LIMITS` applied): name, value, what it counts."""

def effective_toml(text: str, file: str, overrides: str | None = None) -> str: ...
def network(text: str, file: str, overrides: str | None = None) -> dict[str, Any]:
    """`{"nodes": [...], "links": [{from, to, rate_bps, delay_s, queue, atm}],
    "paths": [{name, kind, direction, links: [link index]}]}`."""
