"""Reference pages generated from the code: the scenario format from its JSON Schema and the
output tables from the columns congsim writes (described in `docs/columns.toml`).

Sphinx runs `generate()` before reading the sources (`builder-inited`); `tests/test_docs.py`
calls the same functions, so a column without a description fails the tests, not only the
docs build.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
GENERATED = DOCS / "generated"

# ---------------------------------------------------------------------------------------------
# Scenario reference


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _strip_null(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` (an optional field) is X."""
    options = node.get("anyOf")
    if isinstance(options, list):
        rest = [o for o in options if o.get("type") != "null"]
        if len(rest) == 1:
            return {**rest[0], **{k: v for k, v in node.items() if k != "anyOf"}}
    return node


def _is_table(definition: dict[str, Any]) -> bool:
    """A table of fields, or a choice of tables by their `kind`."""
    options = definition.get("oneOf", [definition])
    return all("properties" in option for option in options)


def _is_list(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _enum_values(definition: dict[str, Any]) -> list[tuple[str, str]] | None:
    """Allowed values of a string enum and their descriptions, or None for another type."""
    if "enum" in definition:
        return [(str(v), "") for v in definition["enum"]]
    options = definition.get("oneOf")
    if not isinstance(options, list):
        return None
    values = []
    for option in options:
        if "const" in option:
            values.append((str(option["const"]), option.get("description", "")))
        elif "enum" in option:
            values += [(str(v), option.get("description", "")) for v in option["enum"]]
        else:
            return None
    return values


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _type_of(node: dict[str, Any], defs: dict[str, Any], anchors: dict[str, str]) -> str:
    node = _strip_null(node)
    name = _ref_name(node)
    if name is not None:
        definition = defs[name]
        values = _enum_values(definition)
        if values is not None:
            return " \\| ".join(f"`{v}`" for v, _ in values)
        if name.endswith("Text"):
            example = (definition.get("examples") or [""])[0]
            kind = name.removesuffix("Text").lower()
            return f'{kind} (`"{example}"`)' if example else kind
        if name in anchors:
            return f"table, see [`{anchors[name]}`](#{_anchor(anchors[name])})"
        return name
    kind = node.get("type")
    if _is_list(node):
        items = node.get("items", {})
        return f"list of {_type_of(items, defs, anchors)}"
    if isinstance(kind, list):
        kind = "/".join(k for k in kind if k != "null")
    if kind == "object" and "additionalProperties" in node:
        values = node["additionalProperties"]
        # `true`: any fields (a queue_params event's `queue`, checked against the link's kind).
        return "table" if values is True else f"table of {_type_of(values, defs, anchors)}"
    return str(kind or "any")


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _default(node: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in node or node["default"] is None:
        return "\N{EN DASH}"
    value = node["default"]
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str | int | float):
        return f"`{value}`"
    return "\N{EN DASH}"


# The order a reader meets the file's tables in; each is followed by the tables inside it.
READING_ORDER = (
    "simulation",
    "links",
    "topology",
    "tcp",
    "flows",
    "cbr",
    "transfers",
    "metrics",
    "drops",
    "captures",
    "atm",
    "vbr",
)


def _sections(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(TOML heading, definition name, definition) for every table of the format: the file,
    then its tables in `READING_ORDER`, each followed by the tables inside it."""
    defs = schema["$defs"]
    seen: set[str] = {"file"}

    def child_of(node: dict[str, Any]) -> tuple[str | None, bool]:
        node = _strip_null(node)
        is_list = _is_list(node)
        name = _ref_name(node.get("items", {}) if is_list else node)
        if name is None or not _is_table(defs[name]):
            return None, is_list
        return name, is_list

    headings: set[str] = set()

    def walk(key: str, node: dict[str, Any], within: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """The sections of field `key`; `within` names the kind of the table it is in, to tell
        apart two kinds' tables of the same name (a priority and a CBQ queue's `classes`)."""
        name, is_list = child_of(node)
        if name is None or name in seen:
            return
        seen.add(name)
        heading = f"[[{key}]]" if is_list else f"[{key}]"
        if heading in headings and within:
            heading = f"{heading} ({within})"
        # A table whose `kind` picks its fields: a section per kind.
        options = defs[name].get("oneOf") or [defs[name]]
        for option in options:
            kind = option.get("properties", {}).get("kind", {})
            tag = kind.get("const", (kind.get("enum") or [None])[0])
            titled = f'{heading} kind = "{tag}"' if "oneOf" in defs[name] else heading
            headings.add(titled)
            yield titled, name, option
            for field, inner in option.get("properties", {}).items():
                yield from walk(f"{key}.{field}", inner, f'kind = "{tag}"' if tag else within)

    yield "file", "file", schema
    fields = schema["properties"]
    for key in sorted(fields, key=lambda k: (READING_ORDER.index(k) if k in READING_ORDER else 99, k)):
        yield from walk(key, fields[key], "")


def scenario_reference(schema: dict[str, Any]) -> str:
    defs = schema["$defs"]
    sections = list(_sections(schema))
    anchors: dict[str, str] = {}
    for heading, name, _ in sections:
        anchors.setdefault(name, heading)
    out = [
        "# Scenario file reference",
        "",
        "Generated from the JSON Schema of the format (`congsim schema`, "
        "`schema/scenario.schema.json`), which the Rust core derives from the types it "
        "deserialises: every field below is exactly what `congsim validate` accepts. "
        'Durations, rates and sizes are strings with units (`"10ms"`, `"10Mbps"`, '
        '`"1500B"`). See [Scenario files](../scenarios.md) for a guided tour with examples.',
        "",
    ]
    for heading, _, definition in sections:
        title = "The file" if heading == "file" else heading
        out += [f"## {title}", ""]
        if definition.get("description") and heading != "file":
            out += [_one_line(definition["description"]), ""]
        required = set(definition.get("required", []))
        out += ["| Field | Type | Default | Meaning |", "|---|---|---|---|"]
        for field, node in definition.get("properties", {}).items():
            description = _one_line(_strip_null(node).get("description", ""))
            values = None
            name = _ref_name(_strip_null(node))
            if name is not None:
                values = _enum_values(defs[name])
            if values and any(text for _, text in values):
                description += (
                    " " + "; ".join(f"`{v}`: {_one_line(t).rstrip('.')}" for v, t in values if t) + "."
                )
            out.append(
                f"| `{field}` | {_type_of(node, defs, anchors)} | "
                f"{_default(node, field in required)} | {description} |"
            )
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Output tables


def column_descriptions() -> dict[str, Any]:
    with (DOCS / "columns.toml").open("rb") as f:
        return tomllib.load(f)


def _observation_scenarios() -> Iterator[Any]:
    """Scenarios that between them make every table and every column congsim writes: each
    example and study network with every optional output on (3 s of simulated time, or its own
    duration when that is shorter), and a small network with two TCP variants, one of them
    traced change by change, and a self-defeating setting."""
    import congsim
    from congsim.sweep.runner import duration_seconds

    on = {
        "metrics.series_interval": "1s",
        "metrics.tcp_events": True,
        "metrics.sequence_trace": True,
        "metrics.flow_monitor": True,
    }
    data = ROOT / "python" / "congsim" / "studies" / "data"
    for path in sorted((ROOT / "scenarios").glob("*.toml")) + sorted(data.glob("*-network.toml")):
        with path.open("rb") as f:
            scenario = tomllib.load(f)
        # A scenario with [[events]] keeps its own duration and measurement window: cut to 3 s,
        # its later events would be refused ("not before the end of the run"). One shorter than
        # 3 s keeps its own (the 1 Gbps fat tree's 0.2 s: 3 s of it took 40 s).
        window: dict[str, str] = {}
        seconds = duration_seconds(scenario["simulation"]["duration"])
        assert seconds is not None, f"{path}: a duration congsim_reference cannot read"
        if "events" not in scenario and seconds > 3:
            window = {
                "simulation.duration": "3s",
                "simulation.measure_from": "0s",
                "simulation.measure_until": "3s",
            }
        yield congsim.load(path, {**on, **window})
    yield congsim.Scenario.from_dict(
        {
            "nodes": ["a", "r", "b"],
            "simulation": {"duration": "1s"},
            "links": [
                {"from": "a", "to": "r", "rate": "10Mbps", "delay": "1ms"},
                {"from": "r", "to": "b", "rate": "1Mbps", "delay": "5ms"},
            ],
            "flows": [
                {"from": "a", "to": "b", "tcp": {"variant": "reno"}},
                {"from": "a", "to": "b", "tcp": {"variant": "sack"}},
            ],
            "drops": [{"from": "b", "to": "r", "flow": "flow0", "packet": 1}],
            "metrics": {"tcp_changes": ["flow0"]},
        },
        source="two-variants",
    )


def observed_columns() -> dict[str, list[str]]:
    """Every table's columns, in the order the code writes them, over the scenarios above."""
    import congsim

    tables: dict[str, list[str]] = {}
    for scenario in _observation_scenarios():
        results = congsim.run(scenario)
        names = [*results.names, "warnings"]
        for name in names:
            frame = results.table(name)
            columns = tables.setdefault(name, [])
            for column in frame.columns:
                if column not in columns:
                    columns.append(str(column))
    return tables


def _pattern(key: str) -> re.Pattern[str]:
    return re.compile(
        "^"
        + re.sub(r"<[a-z_]+>", "[a-z0-9_]+?", re.escape(key).replace(r"\<", "<").replace(r"\>", ">"))
        + "$"
    )


def describe(table: dict[str, Any], column: str) -> str | None:
    """The description of `column` (an exact key first, then a `<...>` pattern)."""
    columns: dict[str, str] = table["columns"]
    if column in columns:
        return columns[column]
    for key, text in columns.items():
        if "<" in key and _pattern(key).match(column):
            return text
    return None


def coverage_problems(observed: dict[str, list[str]], described: dict[str, Any]) -> list[str]:
    """What the code writes that `columns.toml` does not describe, and the reverse."""
    problems = []
    for table, columns in observed.items():
        if table not in described:
            problems.append(f"table {table!r} has no entry in docs/columns.toml")
            continue
        problems += [
            f"{table}.{c}: no description in docs/columns.toml"
            for c in columns
            if describe(described[table], c) is None
        ]
    for table, entry in described.items():
        if table not in observed:
            problems.append(f"docs/columns.toml describes table {table!r}, which no scenario wrote")
            continue
        for key in entry["columns"]:
            pattern = _pattern(key)
            if not any(pattern.match(c) for c in observed[table]):
                problems.append(f"docs/columns.toml describes {table}.{key}, which the code does not write")
    return problems


def tables_reference(observed: dict[str, list[str]], described: dict[str, Any]) -> str:
    out = [
        "# Output table reference",
        "",
        "Generated from the code: the columns are those congsim writes, in its order, "
        "collected by running scenarios that produce every table; the descriptions come from "
        "`docs/columns.toml` (a test fails when the two disagree). `congsim run --out DIR` writes "
        "each table as `DIR/<table>.parquet` and `.csv`; from Python, `results.table(name)` "
        "or `results.flows`, `results.links`, ... give pandas DataFrames. Counters cover the "
        "measurement window (`simulation.measure_from` .. `measure_until`) unless a description "
        "says otherwise.",
        "",
    ]
    for table, entry in described.items():
        out += [
            f"## `{table}`",
            "",
            f"Rows: {entry['rows']}. Written: {entry['when']}.",
            "",
            "| Column | Meaning |",
            "|---|---|",
        ]
        shown: set[str] = set()
        for column in observed.get(table, []):
            key = column if column in entry["columns"] else None
            if key is None:
                key = next(k for k in entry["columns"] if "<" in k and _pattern(k).match(column))
            if key in shown:
                continue
            shown.add(key)
            out.append(f"| `{key}` | {_one_line(entry['columns'][key])} |")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Study scores

#: What `congsim reproduce all` wrote last (`out/reproductions/scores.csv`), committed: the scores
#: table of docs/reproduce.md is rendered from it, never typed.
SCORES = DOCS / "scores.csv"


def scores_table(path: Path) -> str:
    """The scores of every study as a Markdown table."""
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = [
        "| Study | values agree | inconclusive | differ | shown, not counted: derived / repeats "
        "| a constant agrees | the table's other cells' mean agrees | a constant per variant "
        "| judged by order: pairs in order / reversed | informative (clearly ahead of both) "
        "| the paper's claims: hold / not significant / fail "
        "| own checks: hold / not significant / fail | replications "
        "| against ns-2.35 on the same set-up: agree; differences from the paper: set-up / model question |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    dash = "\u2013"  # an empty cell

    def ns2(row: dict[str, str]) -> str:
        """The second verdict (ns-2.35 on the same set-up), where the study has ns-2 data."""
        if not row.get("ns2_compared"):
            return dash
        return (
            f"{row['ns2_agrees']} of {row['ns2_compared']}; "
            f"{row['setup_differences']} / {row['model_questions']}"
        )

    for row in rows:

        def of(key: str, row: dict[str, str] = row) -> str:
            return f"{row[key]} of {row['compared']}" if row[key] else dash

        def claims(prefix: str, row: dict[str, str] = row) -> str:
            if not row[prefix]:
                return dash
            outcomes = " / ".join(row[f"{prefix}_{k}"] for k in ("hold", "not_significant", "fail"))
            return f"{outcomes} of {row[prefix]}"

        name = f"`{row['study']}`" + (f" variant `{row['variant']}`" if row["variant"] else "")
        informative = row["informative"].replace(" ", ", ") or ("none" if row["compared"] else dash)
        uncounted = f"{row['derived']} / {row['repeats']}" if row["compared"] else dash
        ranked = ", ".join(
            f"{metric}: {in_order} / {reversed_}"
            for metric, in_order, reversed_ in (entry.split(":") for entry in row["ranked"].split())
        )
        out.append(
            f"| {name} | {of('agrees')} | {row['inconclusive'] or dash} | "
            f"{row['differs'] or dash} | {uncounted} | {of('constant_agrees')} | "
            f"{of('within_table_agrees')} | {of('variant_agrees')} | {ranked or dash} | "
            f"{informative} | {claims('claims')} | {claims('checks')} | {row['replications']} | "
            f"{ns2(row)} |"
        )
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Resource limits


def limits_table() -> str:
    """The default resource limits (`CONGSIM_LIMITS` unset) as a Markdown table."""
    import os

    from congsim import _core

    saved = os.environ.pop("CONGSIM_LIMITS", None)
    try:
        limits = _core.limits()
    finally:
        if saved is not None:
            os.environ["CONGSIM_LIMITS"] = saved
    out = ["| limit | default | what it counts |", "|---|---|---|"]
    for name, value, counts in limits:
        grouped = f"{value:_}".replace("_", " ")
        out.append(f"| `{name}` | {grouped} | {counts} |")
    return "\n".join(out) + "\n"


def generate() -> None:
    import congsim

    GENERATED.mkdir(exist_ok=True)
    (GENERATED / "limits.md").write_text(limits_table())
    (GENERATED / "scores.md").write_text(scores_table(SCORES))
    (GENERATED / "scenario-reference.md").write_text(scenario_reference(congsim.schema()))
    (GENERATED / "tables-reference.md").write_text(
        tables_reference(observed_columns(), column_descriptions())
    )


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", lambda _app: generate())
    return {"parallel_read_safe": True}
