"""Scenario files: loading and validation (the Rust core holds the one schema)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from congsim import _core


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: its TOML text and where it came from."""

    text: str
    source: str
    name: str
    replications: int
    seed: int

    def __repr__(self) -> str:
        return (
            f"Scenario({self.name!r} from {self.source}, seed={self.seed}, replications={self.replications})"
        )


def loads(text: str, source: str = "<string>") -> Scenario:
    """Validates scenario TOML `text`; `source` labels error messages.

    Raises `congsim.ScenarioError` (a `ValueError`) naming the field and what is allowed.
    """
    name, replications, seed = _core.describe(text, source)
    return Scenario(text=text, source=source, name=name, replications=replications, seed=seed)


def load(path: str | Path) -> Scenario:
    """Reads and validates the scenario file at `path`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise _core.ScenarioError(f"{p}: cannot read the file: {e.strerror or e}") from None
    return loads(text, str(p))


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format."""
    result: dict[str, Any] = json.loads(_core.schema())
    return result
