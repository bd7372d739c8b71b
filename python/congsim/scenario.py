"""Scenario files: loading and validation (the Rust core holds the one schema)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
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

    def __post_init__(self) -> None:
        if not isinstance(self.overrides, tuple) or not all(
            isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in self.overrides
        ):
            raise TypeError("overrides must be a tuple of (field path, value) pairs")

    def overrides_json(self) -> str | None:
        return overrides_json(self.overrides) if self.overrides else None

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], source: str = "<dict>", overrides: Mapping[str, Any] | None = None
    ) -> Scenario:
        """A scenario built in Python: `data` has the layout of a scenario file (`nodes`,
        `[simulation]`, `[[links]]`, `[[flows]]`, ...), with units as strings (`"10Mbps"`). It
        is validated exactly as a file is, with the same messages (`source` labels them; line
        numbers refer to `to_toml()`'s text)."""
        import tomli_w

        if not isinstance(data, Mapping):
            raise TypeError(f"from_dict expects a mapping laid out as a scenario file, not {_kind(data)}")
        _check_str("source", source)
        try:
            text = tomli_w.dumps(dict(data))
        except (TypeError, ValueError) as e:
            raise _core.ScenarioError(f"{source}: cannot be written as TOML: {e}") from None
        except RecursionError:
            raise _core.ScenarioError(
                f"{source}: cannot be written as TOML: a table contains itself"
            ) from None
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

    def _repr_html_(self) -> str:
        """A notebook's view: name, duration, counts, and tables of the links and flows."""
        from congsim.notebook import scenario_html

        return scenario_html(self)


def loads(text: str, source: str = "<string>", overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Validates scenario TOML `text` after `overrides` (`{"tcp.variant": "tahoe",
    "links[0].queue.limit_packets": 25}`); `source` labels error messages.

    Raises `congsim.ScenarioError` (a `ValueError`) naming the field and what is allowed.
    """
    if not isinstance(text, str):
        hint = " (decode bytes first, or use congsim.load for a file)" if isinstance(text, bytes) else ""
        raise TypeError(f"loads expects the scenario's TOML text as a str, not {_kind(text)}{hint}")
    _check_str("source", source)
    pairs = _override_pairs(overrides)
    scenario = Scenario(text=text, source=source, name="", replications=0, seed=0, overrides=pairs)
    name, replications, seed, _ = _core.describe(text, source, scenario.overrides_json())
    return replace(scenario, name=name, replications=replications, seed=seed)


def printable(text: str) -> str:
    """`text` with control characters and bidirectional formatting characters escaped
    (`\\x1b`, `\\u202e`), as the native module escapes its messages: names and values from
    a file reach terminals and logs, where an escape sequence would act."""
    return "".join(ascii(ch)[1:-1] if _unsafe(ch) else ch for ch in text)


def _unsafe(ch: str) -> bool:
    return (not ch.isprintable() and ch != " ") or "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069"


def _plain_value(value: object) -> object:
    """NumPy scalars as the Python numbers they hold (`json` knows only the latter)."""
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        return item()
    raise TypeError(f"{type(value).__name__} is not a value a scenario can hold")


def overrides_json(pairs: Sequence[tuple[str, Any]]) -> str:
    """`[[path, value], ...]` as JSON for the native module; `TypeError` or `ValueError`
    naming the field whose value a scenario cannot hold (NaN, infinity, an object, a list that
    contains itself)."""
    for path, value in pairs:
        try:
            json.dumps(value, allow_nan=False, default=_plain_value)
        except ValueError as e:
            if "Circular" not in str(e):
                reason = "NaN and infinity are not numbers a scenario can hold"
                raise ValueError(f"overrides: {printable(path)}: {reason}") from None
            raise TypeError(f"overrides: {printable(path)}: a value contains itself") from None
        except (TypeError, RecursionError) as e:
            reason = "a value contains itself" if isinstance(e, RecursionError) else str(e)
            raise TypeError(
                f"overrides: {printable(path)}: values must be TOML values (text, numbers, booleans, "
                f"lists, tables): {reason}"
            ) from None
    return json.dumps([[path, value] for path, value in pairs], default=_plain_value)


def _kind(value: object) -> str:
    """What a value is, for messages: its type, and the value when short."""
    shown = repr(value)
    return type(value).__name__ + (f" {shown}" if len(shown) <= 40 else "")


def _check_str(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {_kind(value)}")


def _override_pairs(overrides: object) -> tuple[tuple[str, Any], ...]:
    """Overrides as (field path, value) pairs, from a mapping of field path to value."""
    if overrides is None:
        return ()
    if not isinstance(overrides, Mapping):
        raise TypeError(
            "overrides must be a mapping of field path to value "
            f'(e.g. {{"tcp.variant": "reno"}}), not {_kind(overrides)}'
        )
    for path in overrides:
        if not isinstance(path, str):
            raise TypeError(f"overrides: a field path must be a str, not {_kind(path)}")
    return tuple(overrides.items())


def grouped(n: int) -> str:
    """A number with thousands separators, as the native module writes limits."""
    return f"{n:,}".replace(",", " ")


def file_bytes_limit() -> int:
    """The `file_bytes` limit in force (`CONGSIM_LIMITS`)."""
    return next(value for name, value, _ in _core.limits() if name == "file_bytes")


def read_text(path: Path) -> str:
    """The text of a scenario or plan file; `ScenarioError` for a file that cannot be read, is
    larger than the `file_bytes` limit (read no further than that: `/dev/zero` is refused) or
    is not UTF-8 text (TOML is UTF-8), naming the file and where decoding failed."""
    limit = file_bytes_limit()
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as e:
        raise _core.ScenarioError(printable(f"{path}: cannot read the file: {e.strerror or e}")) from None
    if len(data) > limit:
        raise _core.ScenarioError(
            f"{printable(str(path))}: is larger than the file_bytes limit of {grouped(limit)} bytes "
            "(CONGSIM_LIMITS=file_bytes=N raises it)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(
            f"{printable(str(path))}: not a UTF-8 text file (byte {e.start} is 0x{data[e.start]:02x}); "
            "scenario files are TOML, which is UTF-8"
        ) from None


def load(path: str | Path, overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Reads and validates the scenario file at `path`, after `overrides`."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"load expects the path of a scenario file, not {_kind(path)}")
    p = Path(path)
    return loads(read_text(p), str(p), overrides)


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format."""
    result: dict[str, Any] = json.loads(_core.schema())
    return result
