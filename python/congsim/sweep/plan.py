"""Sweep plans (TOML) and their expansion into runs with content-addressed keys.

```toml
name = "buffers"
scenario = "../scenarios/dumbbell-20.toml"   # relative to this file
replications = 5                             # default: the scenario's simulation.replications

[set]                                        # overrides applied to every run
"simulation.duration" = "10s"

[axes]                                       # full factorial over these values
"tcp.variant" = ["tahoe", "reno"]
"links[0].queue.limit_packets" = [25, 50, 100, 200, 400]
```

Instead of (or besides) `[axes]`, a plan may list its configurations one by one:

```toml
points = [
    { "tcp.variant" = "reno", "links[0].queue.limit_packets" = 50 },
    { "tcp.variant" = "newreno", "links[0].queue.limit_packets" = 100 },
]
```

With both, every listed point is crossed with every combination of the axes (an axis may not
repeat a field a point sets). A path may address every entry of a list at once:
`"links[*].delay" = "5ms"`.

A point may leave out fields others set (a DropTail point has no RED thresholds): the field then
keeps the scenario's value and is empty (null) in that point's rows of the result tables. A point
may carry a `label` (a name for the configuration, kept as the `label` column and overriding
nothing), and list or table values are recorded in the tables as their JSON text.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from congsim import _core
from congsim.scenario import Scenario, grouped, overrides_json, printable, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

#: Values an override may take (what TOML and JSON share).
Value = str | int | float | bool | list[Any] | dict[str, Any]


class PlanError(ValueError):
    """A sweep plan is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: a point of the parameter grid and a replication."""

    key: str
    #: Every swept field path (and `label`); None where a listed point leaves the field out; lists
    #: and tables as their JSON text.
    params: dict[str, Value | None]
    replication: int
    overrides: list[tuple[str, Value]]

    def overrides_json(self) -> str:
        return overrides_json(self.overrides)


@dataclass(frozen=True)
class Plan:
    name: str
    source: str
    scenario_text: str
    scenario_source: str
    replications: int
    fixed: dict[str, Value] = field(default_factory=dict)
    axes: dict[str, list[Value]] = field(default_factory=dict)
    #: Configurations listed one by one (crossed with `axes` when both are given).
    listed: list[dict[str, Value]] = field(default_factory=list)
    #: Axes or listed points whose values simulate the same network (`plan: axes.x: ...`).
    warnings: tuple[str, ...] = ()

    @property
    def parameters(self) -> list[str]:
        """The swept field paths, in order."""
        return list(dict.fromkeys([*(path for point in self.listed for path in point), *self.axes]))

    def points(self) -> list[dict[str, Value]]:
        """Every listed configuration (or one empty one) crossed with every combination of axis
        values in axis order (the last axis varies fastest)."""
        names = list(self.axes)
        combos = [dict(zip(names, combo, strict=True)) for combo in itertools.product(*self.axes.values())]
        return [dict(point) | combo for point in (self.listed or [{}]) for combo in combos]

    def with_replications(self, replications: int) -> Plan:
        """This plan with another number of replications, checked as a plan file's are."""
        if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
            raise _fail(self.source, "replications", "must be a whole number of at least 1")
        _check_run_count(self.source, self.listed, self.axes, replications)
        return replace(self, replications=replications)

    def runs(self) -> list[RunSpec]:
        """Every run, with a key that changes whenever anything that shapes the run changes."""
        runs = []
        for point in self.points():
            # The scenario must allow every replication the plan asks for.
            fields = [(path, value) for path, value in point.items() if path != LABEL]
            shaping = [*self.fixed.items(), *fields]
            overrides = [*shaping, ("simulation.replications", self.replications)]
            # A field a listed point leaves out keeps the scenario's value: None in the tables.
            params = {path: _recorded(point.get(path)) for path in self.parameters}
            for replication in range(self.replications):
                # How many replications there are shapes no run (a run's tables are those of its
                # own replication), so it stays out of the key: more replications into a store
                # run only the new ones, fewer reuse theirs.
                identity = json.dumps(
                    [build_fingerprint(), self.scenario_text, shaping, replication], sort_keys=True
                )
                key = hashlib.sha256(identity.encode()).hexdigest()[:20]
                runs.append(RunSpec(key, params, replication, overrides))
        return runs


@functools.cache
def build_fingerprint() -> str:
    """A hash of the simulator that runs here (the native module's bytes): a run's key includes it,
    so a sweep resumed after congsim changed recomputes its runs instead of reusing results the
    old simulator wrote."""
    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:20]


#: The key of a listed point that names it instead of overriding a field.
LABEL = "label"


def _recorded(value: Value | None) -> Value | None:
    """A parameter value as the result tables keep it: scalars as they are, lists and tables
    as JSON text (the tables group by these columns)."""
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return value


def _fail(source: str, where: str, message: str) -> PlanError:
    text = f"{source}: {where}: {message}" if where else f"{source}: {message}"
    return PlanError(printable(text))


def loads_plan(text: str, source: str = "<string>", base_dir: Path | None = None) -> Plan:
    """Parses and checks a plan; every run's scenario is validated before anything runs."""
    _expect("text", text, str)
    _expect("source", source, str)
    if base_dir is not None and not isinstance(base_dir, str | os.PathLike):
        raise TypeError(f"base_dir must be a folder's path or None, not {type(base_dir).__name__}")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _fail(source, "", f"not valid TOML: {e}") from None
    allowed = {"name", "scenario", "replications", "set", "axes", "points"}
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise _fail(source, unknown[0], f"unknown key; allowed keys are: {', '.join(sorted(allowed))}")
    scenario = doc.get("scenario")
    if not isinstance(scenario, str):
        raise _fail(source, "scenario", "give the path of the base scenario file as a string")
    scenario_path = (base_dir or Path.cwd()) / scenario
    try:
        scenario_text = read_text(scenario_path)
    except _core.ScenarioError as e:
        reason = str(e).removeprefix(f"{scenario_path}: ")
        raise _fail(source, "scenario", f"cannot read {scenario_path}: {reason}") from None
    return _checked_plan(doc, source, scenario_text, str(scenario_path))


def plan_of(
    scenario: Scenario,
    *,
    axes: dict[str, list[Value]] | None = None,
    fixed: dict[str, Value] | None = None,
    points: list[dict[str, Value]] | None = None,
    replications: int | None = None,
    name: str | None = None,
) -> Plan:
    """A plan over a scenario loaded or built in Python (`congsim.Scenario.from_dict`), with
    the same parts and checks as a plan file: `fixed` is the file's `[set]`, `axes` its
    `[axes]`, `points` its listed configurations. The scenario's own overrides are applied
    first."""
    _expect("scenario", scenario, Scenario)
    _expect("axes", axes, dict, optional=True)
    _expect("fixed", fixed, dict, optional=True)
    _expect("points", points, list, optional=True)
    _expect("name", name, str, optional=True)
    for point in points or []:
        _expect("points: each point", point, dict)
    tables: list[tuple[dict[Any, Any], str]] = [(axes or {}, "axes"), (fixed or {}, "fixed")]
    tables += [(point, "points") for point in points or []]
    for table, what in tables:
        for path in table:
            if not isinstance(path, str):
                raise TypeError(f"{what}: a field path must be a str, not {type(path).__name__}")
    doc: dict[str, Any] = {"set": fixed or {}, "axes": axes or {}, "points": points or []}
    if replications is not None:
        doc["replications"] = replications
    doc["name"] = name or scenario.name or "plan"
    return _checked_plan(doc, f"plan of {scenario.source}", scenario.to_toml(), scenario.source)


def _checked_plan(doc: dict[str, Any], source: str, scenario_text: str, scenario_path: str) -> Plan:
    fixed = doc.get("set", {})
    axes = doc.get("axes", {})
    if not isinstance(fixed, dict):
        raise _fail(source, "set", "must be a table of field path = value")
    if not isinstance(axes, dict):
        raise _fail(source, "axes", "must be a table of field path = [values]")
    for path, values in axes.items():
        if not isinstance(values, list) or not values:
            raise _fail(source, f"axes.{path}", "must be a non-empty list of values")
    listed = doc.get("points", [])
    if not isinstance(listed, list) or not all(isinstance(p, dict) and p for p in listed):
        raise _fail(source, "points", "must be a list of tables of field path = value")
    for where, paths in (("set", fixed), ("axes", axes), *(("points", p) for p in listed)):
        if any(not isinstance(path, str) or not path.strip() for path in paths):
            raise _fail(source, where, "a field path must not be empty (write it like links[0].delay)")
    crossed = sorted(set(axes) & {k for p in listed for k in p})
    if crossed:
        raise _fail(source, f"axes.{crossed[0]}", "is also set by a listed point")
    both = sorted(set(fixed) & (set(axes) | {k for p in listed for k in p}))
    if both:
        raise _fail(source, both[0], "is both fixed in [set] and varied in [axes]")
    _, scenario_replications, _, _ = _validated(scenario_text, scenario_path, list(fixed.items()), source)
    replications = doc.get("replications", scenario_replications)
    if not isinstance(replications, int) or isinstance(replications, bool) or replications < 1:
        raise _fail(source, "replications", "must be a whole number of at least 1")
    _check_run_count(source, listed, axes, replications)
    name = doc.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise _fail(source, "name", "must be a string")
    problem = path_component_problem(name)
    if problem is not None:
        raise _fail(source, "name", f"{problem} (the default results store is sweeps/<name>)")
    plan = Plan(
        name=name,
        source=source,
        scenario_text=scenario_text,
        scenario_source=scenario_path,
        replications=replications,
        fixed=fixed,
        axes=axes,
        listed=listed,
    )
    fingerprints = []
    for point in plan.points():
        if LABEL in point and not isinstance(point[LABEL], str):
            raise _fail(source, "points", "a label must be a string")
        fields = [(path, value) for path, value in point.items() if path != LABEL]
        fingerprints.append(_validated(scenario_text, scenario_path, [*fixed.items(), *fields], source)[3])
    return replace(plan, warnings=tuple(_same_simulations(plan, fingerprints)))


def _same_simulations(plan: Plan, fingerprints: list[int]) -> list[str]:
    """Warnings for each axis (and the listed points) with values that simulate the same network
    at every setting of the rest: their runs would be copies under different labels (a field every
    flow sets for itself, a rate spelt two ways, a parameter the queue kind ignores)."""
    names = list(plan.axes)
    # Point p of `plan.points()` sits at index_of[p]: (listed point, then one index per axis).
    shape = [max(len(plan.listed), 1), *(len(plan.axes[name]) for name in names)]
    index_of = list(itertools.product(*(range(size) for size in shape)))
    dimensions: list[tuple[int, str, list[str]]] = []
    if len(plan.listed) > 1:
        labels = [str(point.get(LABEL, f"points[{i}]")) for i, point in enumerate(plan.listed)]
        dimensions.append((0, "points", labels))
    for d, name in enumerate(names, start=1):
        dimensions.append((d, f"axes.{name}", [json.dumps(v, sort_keys=True) for v in plan.axes[name]]))
    warnings = []
    for d, where, labels in dimensions:
        if len(labels) < 2:
            continue
        # A value's signature: the fingerprints of its runs at every setting of the rest, in order.
        same: dict[tuple[int, ...], list[str]] = {}
        for k, label in enumerate(labels):
            signature = tuple(fp for fp, index in zip(fingerprints, index_of, strict=True) if index[d] == k)
            same.setdefault(signature, []).append(label)
        if len(same) == 1:
            warnings.append(
                f"{plan.source}: {where}: changes nothing: every value simulates the same network"
            )
            continue
        for group in same.values():
            if len(group) > 1:
                alike = f"{', '.join(group[:-1])} and {group[-1]}"
                warnings.append(f"{plan.source}: {where}: {alike} simulate the same network")
    return [printable(w) for w in warnings]


def _expect(name: str, value: object, kind: type | tuple[type, ...], optional: bool = False) -> None:
    """`TypeError` naming the argument unless `value` is a `kind` (or None when `optional`)."""
    if (optional and value is None) or isinstance(value, kind):
        return
    expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
    raise TypeError(f"{name} must be a {expected}, not {type(value).__name__}")


def plan_runs_limit() -> int:
    """The `plan_runs` limit in force (`CONGSIM_LIMITS`)."""
    return next(value for name, value, _ in _core.limits() if name == "plan_runs")


def _check_run_count(
    source: str, listed: list[dict[str, Value]], axes: dict[str, list[Value]], replications: int
) -> None:
    """Counts the runs from the plan's sizes, before expanding it: a plan of 40 two-valued axes
    is refused at once instead of filling memory."""
    configurations = max(len(listed), 1) * math.prod(len(values) for values in axes.values())
    runs = configurations * replications
    limit = plan_runs_limit()
    if runs > limit:
        sizes = " x ".join(str(len(v)) for v in axes.values()) or "1"
        raise _fail(
            source,
            "axes" if axes else "replications",
            f"{max(len(listed), 1)} listed point(s) x axes of {sizes} values x {replications} replications "
            f"make {grouped(runs)} runs; the plan_runs limit is {grouped(limit)} "
            "(CONGSIM_LIMITS=plan_runs=N raises it)",
        )


def path_component_problem(name: str) -> str | None:
    """Why `name` cannot be one folder name inside another (None when it can): it must not be
    empty, `.` or `..`, hold a path separator or a control character, or pass 100 characters."""
    if not name.strip():
        return "must not be empty"
    if name in (".", ".."):
        return f"must not be {name!r}"
    if "/" in name or "\\" in name:
        return "must be one folder name: no / or \\"
    if any(not ch.isprintable() for ch in name):
        return "must not contain control characters"
    if len(name) > 100:
        return "must be at most 100 characters"
    return None


def _validated(
    text: str, scenario_source: str, overrides: list[tuple[str, Any]], plan_source: str
) -> tuple[str, int, int, int]:
    """The scenario's name, replications, seed and simulation fingerprint after `overrides`."""
    try:
        return _core.describe(text, scenario_source, overrides_json(overrides))
    except (_core.ScenarioError, TypeError, ValueError) as e:
        raise PlanError(printable(f"{plan_source}: a run of this plan is invalid: {e}")) from None


def load_plan(path: str | Path) -> Plan:
    """Reads and checks the plan file at `path` (its scenario path is relative to it)."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"load_plan expects the path of a plan file, not {type(path).__name__}")
    p = Path(path)
    try:
        text = read_text(p)
    except _core.ScenarioError as e:
        raise PlanError(str(e).replace("cannot read the file", "cannot read the plan")) from None
    return loads_plan(text, str(p), p.parent)
