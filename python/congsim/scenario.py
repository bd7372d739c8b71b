"""Scenario files: loading and validation (the Rust core holds the one schema)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from congsim import _core


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: its TOML text, where it came from, and the overrides applied to it
    (field path and value, in order, as in sweep plans)."""

    text: str
    source: str
    name: str
    replications: int
    seed: int
    overrides: tuple[tuple[str, Any], ...] = ()

    def overrides_json(self) -> str | None:
        return json.dumps([[path, value] for path, value in self.overrides]) if self.overrides else None

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], source: str = "<dict>", overrides: Mapping[str, Any] | None = None
    ) -> Scenario:
        """A scenario built in Python: `data` has the layout of a scenario file (`nodes`,
        `[simulation]`, `[[links]]`, `[[flows]]`, ...), with units as strings (`"10Mbps"`). It
        is validated exactly as a file is, with the same messages (`source` labels them; line
        numbers refer to `to_toml()`'s text)."""
        import tomli_w

        try:
            text = tomli_w.dumps(dict(data))
        except TypeError as e:
            raise _core.ScenarioError(f"{source}: cannot be written as TOML: {e}") from None
        return loads(text, source, overrides)

    def to_toml(self) -> str:
        """The scenario as TOML text, overrides applied: what `congsim run` would read."""
        return _core.effective_toml(self.text, self.source, self.overrides_json())

    def network(self) -> dict[str, Any]:
        """The resolved network: node names, links (`from`, `to`, `rate_bps`, `delay_s`,
        `queue`, `atm`) and each traffic source's path as link indices (`paths`: `name`,
        `kind`, `direction` data or acks, `links`)."""
        return _core.network(self.text, self.source, self.overrides_json())

    def __repr__(self) -> str:
        return (
            f"Scenario({self.name!r} from {self.source}, seed={self.seed}, replications={self.replications})"
        )


def loads(text: str, source: str = "<string>", overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Validates scenario TOML `text` after `overrides` (`{"tcp.variant": "tahoe",
    "links[0].queue.limit_packets": 25}`); `source` labels error messages.

    Raises `congsim.ScenarioError` (a `ValueError`) naming the field and what is allowed.
    """
    pairs = tuple((overrides or {}).items())
    scenario = Scenario(text=text, source=source, name="", replications=0, seed=0, overrides=pairs)
    name, replications, seed = _core.describe(text, source, scenario.overrides_json())
    return replace(scenario, name=name, replications=replications, seed=seed)


def read_text(path: Path) -> str:
    """The text of a scenario or plan file; `ScenarioError` for a file that cannot be read or
    is not UTF-8 text (TOML is UTF-8), naming the file and where decoding failed."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise _core.ScenarioError(f"{path}: cannot read the file: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(
            f"{path}: not a UTF-8 text file (byte {e.start} is 0x{data[e.start]:02x}); "
            "scenario files are TOML, which is UTF-8"
        ) from None


def load(path: str | Path, overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Reads and validates the scenario file at `path`, after `overrides`."""
    p = Path(path)
    return loads(read_text(p), str(p), overrides)


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format."""
    result: dict[str, Any] = json.loads(_core.schema())
    return result
