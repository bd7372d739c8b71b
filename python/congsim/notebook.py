"""How scenarios, results and sweeps show themselves in a notebook (`_repr_html_`): a compact
summary with a few capped tables. Every value from a scenario or a run is HTML-escaped (names
are free text: a flow may be called `<b>&`)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from congsim.network import delay_text, rate_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

if TYPE_CHECKING:
    import numpy as np

    from congsim.results import Results
    from congsim.scenario import Scenario
    from congsim.sweep.runner import SweepOutcome

#: Rows shown of each table; the rest are counted in a note under it.
MAX_ROWS = 10
#: Rows shown of a sweep's statistics.
MAX_STATISTICS_ROWS = 25

_STYLE = "font-size:smaller;margin:0.3em 0 0.6em 0"


def _cell(value: object) -> str:
    """A value as table text: integers grouped in thousands, floats to 4 significant digits,
    NaN as a dash."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}".replace(",", "\u202f")
    if isinstance(value, float):
        return "\u2014" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    total: int,
    what: str,
    max_rows: int = MAX_ROWS,
) -> str:
    """An HTML table of at most `max_rows` of `rows`, with a note of how many of `total` (the
    rows there are, `what` they are) it leaves out."""
    shown = [row for _, row in zip(range(max_rows), rows, strict=False)]
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in row) + "</tr>" for row in shown)
    out = f'<table style="{_STYLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    if total > len(shown):
        out += f'<p style="{_STYLE}">\u2026 {total - len(shown)} more {escape(what)}</p>'
    return out


def _plural(n: int, word: str) -> str:
    return f"{_cell(n)} {word}{'' if n == 1 else 's'}"


def _item(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


# Scenario ------------------------------------------------------------------------------------


def _queue_texts(document: dict[str, Any], network: dict[str, Any]) -> list[str]:
    """Each link's queue: its kind, and its limit when the scenario's `[[links]]` (`document`)
    set one (links a `[topology]` generates show their kind only: `Scenario.network()` does not
    give limits)."""
    limits: dict[tuple[str, str], str] = {}
    for spec in document.get("links", []):
        queue = spec.get("queue", {}) if isinstance(spec, dict) else {}
        if not isinstance(queue, dict):
            continue
        limit = (
            f"{queue['limit_packets']} pkts"
            if "limit_packets" in queue
            else str(queue["limit_bytes"])
            if "limit_bytes" in queue
            else "per class"
            if "classes" in queue
            else "default limit"
        )
        ends = [(spec.get("from"), spec.get("to"))]
        if spec.get("duplex", True):
            ends.append((spec.get("to"), spec.get("from")))
        for a, b in ends:
            limits.setdefault((str(a), str(b)), limit)
    texts = []
    for link in network["links"]:
        kind = "ATM" if link["atm"] else str(link["queue"])
        known = limits.get((link["from"], link["to"]))
        texts.append(f"{kind}, {known}" if known else kind)
    return texts


def scenario_html(scenario: Scenario) -> str:
    """The scenario's name, duration and counts, and tables of its links and flows."""
    network = scenario.network()
    document = tomllib.loads(scenario.to_toml())
    links = network["links"]
    data = [path for path in network["paths"] if path["direction"] == "data"]
    kinds: dict[str, int] = {}
    for path in data:
        kinds[path["kind"]] = kinds.get(path["kind"], 0) + 1
    duration = str(document.get("simulation", {}).get("duration", "?"))
    sources = ", ".join(_plural(n, f"{kind.upper()} flow") for kind, n in kinds.items()) or "no flows"
    line = (
        f"<strong>congsim scenario</strong> <code>{escape(scenario.name)}</code> from "
        f"<code>{escape(scenario.source)}</code>: {escape(duration)} simulated, seed {scenario.seed}, "
        f"{_plural(scenario.replications, 'replication')}; {_plural(len(network['nodes']), 'node')}, "
        f"{_plural(len(links), 'link')}, {escape(sources)}"
    )
    if scenario.overrides:
        shown = "; ".join(f"{path} = {value!r}" for path, value in scenario.overrides)
        line += f"<br>overrides: <code>{escape(shown)}</code>"
    queues = _queue_texts(document, network)
    link_rows = (
        (f"{link['from']}->{link['to']}", rate_text(link["rate_bps"]), delay_text(link["delay_s"]), queue)
        for link, queue in zip(links, queues, strict=True)
    )
    flow_rows = []
    for path in data:
        hops = [links[i] for i in path["links"]]
        route = " \u2192 ".join([hops[0]["from"], *(hop["to"] for hop in hops)]) if hops else "no route"
        bottleneck = rate_text(min(hop["rate_bps"] for hop in hops)) if hops else "\u2014"
        delay = delay_text(sum(hop["delay_s"] for hop in hops)) if hops else "\u2014"
        flow_rows.append((path["name"], path["kind"], route, bottleneck, delay))
    return (
        f"<div>{line}"
        + table(("link", "rate", "delay", "queue"), link_rows, len(links), "links")
        + table(("flow", "kind", "route", "bottleneck", "propagation"), flow_rows, len(data), "flows")
        + "</div>"
    )


# Results -------------------------------------------------------------------------------------


def _columns(results: Results, name: str) -> dict[str, np.ndarray[Any, Any]]:
    """Table `name`'s columns, none when the run does not have it."""
    return results.columns(name) if name in results.names else {}


def _rows(
    columns: dict[str, np.ndarray[Any, Any]], spec: Sequence[tuple[str, str, float]]
) -> tuple[list[str], list[list[object]]]:
    """Headers and rows of the columns of `spec` (column, header, scale) the table has."""
    present = [(column, header, scale) for column, header, scale in spec if column in columns]
    n = min((len(columns[c]) for c, _, _ in present), default=0)
    rows = [
        [_item(columns[c][i]) * scale if scale != 1.0 else _item(columns[c][i]) for c, _, scale in present]
        for i in range(min(n, MAX_ROWS))
    ]
    return [header for _, header, _ in present], rows


_FLOW_COLUMNS = (
    ("flow", "flow", 1.0),
    ("variant", "variant", 1.0),
    ("goodput_bps", "goodput (Mb/s)", 1e-6),
    ("retx_pkts", "retransmits", 1.0),
    ("timeouts", "timeouts", 1.0),
    ("rtt_mean_s", "mean RTT (ms)", 1e3),
    ("final_cwnd", "final cwnd (segments)", 1.0),
)
_LINK_COLUMNS = (
    ("link", "link", 1.0),
    ("rate_bps", "rate (Mb/s)", 1e-6),
    ("drops", "drops", 1.0),
    ("marks", "marks", 1.0),
    ("max_queue_packets", "max queue (pkts)", 1.0),
    ("utilization", "utilization", 1.0),
)


def results_html(results: Results, wall_s: float | None) -> str:
    """What ran, the flows, the links that dropped packets, a cwnd plot and the warnings."""
    import numpy as np

    summary = _columns(results, "summary")
    first = {name: _item(values[0]) for name, values in summary.items() if len(values)}
    facts = []
    if "scenario" in first:
        facts.append(f"scenario <code>{escape(str(first['scenario']))}</code>")
    if "duration_s" in first:
        facts.append(f"{escape(_cell(float(first['duration_s'])))} s simulated")
    if "events" in first:
        facts.append(escape(_plural(int(first["events"]), "event")))
    if wall_s is not None:
        facts.append(f"{escape(_cell(float(wall_s)))} s of wall time")
    if "total_goodput_bps" in first:
        facts.append(f"total goodput {escape(_cell(float(first['total_goodput_bps']) * 1e-6))} Mb/s")
    if "jain_index" in first:
        facts.append(f"Jain index {escape(_cell(float(first['jain_index'])))}")
    line = "<strong>congsim results</strong>" + (": " + ", ".join(facts) if facts else "")
    line += f"<br>tables: {escape(', '.join(results.names) or 'none')}"

    flows = _columns(results, "flows")
    headers, rows = _rows(flows, _FLOW_COLUMNS)
    total = len(next(iter(flows.values()), []))
    parts = [
        line,
        f"<div>{_plural(total, 'flow')}</div>" if not total else table(headers, rows, total, "flows"),
    ]

    links = _columns(results, "links")
    if "drops" in links and len(links["drops"]):
        dropped = np.flatnonzero(links["drops"] > 0)
        picked = {name: values[dropped] for name, values in links.items()}
        headers, rows = _rows(picked, _LINK_COLUMNS)
        parts.append(
            f"<div>Links with drops ({len(dropped)} of {len(links['drops'])}):</div>"
            + table(headers, rows, len(dropped), "links with drops")
            if len(dropped)
            else "<div>No link dropped a packet.</div>"
        )

    from congsim.plot import cwnd_svg

    try:
        svg = cwnd_svg(results)
    except Exception as e:  # a view shows what it can: the tables above stay useful
        parts.append(f"<div>(no cwnd plot: {escape(f'{type(e).__name__}: {e}')})</div>")
    else:
        if svg is not None:
            parts.append(f'<div style="max-width:40em">{svg}</div>')
    warnings = results.warnings
    if warnings:
        shown = "".join(f"<li>{escape(w)}</li>" for w in warnings[:MAX_ROWS])
        more = f"<li>\u2026 {len(warnings) - MAX_ROWS} more</li>" if len(warnings) > MAX_ROWS else ""
        parts.append(f'<div>Warnings:</div><ul style="{_STYLE}">{shown}{more}</ul>')
    return "<div>" + "".join(parts) + "</div>"


# Sweeps --------------------------------------------------------------------------------------


def sweep_html(outcome: SweepOutcome) -> str:
    """The sweep's runs, the metrics equal in every run, and the first rows of the statistics
    of the others (run-level rows first)."""
    line = (
        f"<strong>congsim sweep</strong> <code>{escape(outcome.plan.name)}</code> in "
        f"<code>{escape(str(outcome.out))}</code>: {_plural(len(outcome.runs), 'run')}, "
        f"{_cell(outcome.executed)} executed now, {_plural(len(outcome.failures), 'failure')}"
    )
    results = outcome.results()
    if results.empty:
        return f"<div>{line}<div>No finished runs.</div></div>"
    stats = outcome.statistics()
    # A metric with one value in every run (the duration, a count of flows) is named, not listed.
    key = stats["table"].astype(str) + "." + stats["metric"].astype(str)
    same = stats.groupby(key, sort=False).agg(
        means=("mean", lambda m: m.nunique(dropna=False)), spread=("std", lambda d: d.fillna(0).abs().max())
    )
    constant = same.index[(same["means"] <= 1) & (same["spread"] == 0)]
    values = {k: float(stats["mean"][key == k].iloc[0]) for k in constant}
    stats = stats[~key.isin(constant)]
    # The run-level (`summary`) rows first: a glance shows each point's totals.
    stats = stats.iloc[stats["table"].ne("summary").to_numpy().argsort(kind="stable")]
    headers = [*outcome.plan.parameters, "table", "flow", "metric", "n", "mean", "std", "95 % CI"]
    rows = [
        [
            *(_item(row[p]) for p in outcome.plan.parameters),
            row["table"],
            row["flow"],
            row["metric"],
            int(row["n"]),
            float(row["mean"]),
            float(row["std"]),
            f"{_cell(float(row['ci_low']))} \u2026 {_cell(float(row['ci_high']))}"
            if not math.isnan(row["ci_low"])
            else "\u2014",
        ]
        for _, row in stats.head(MAX_STATISTICS_ROWS).iterrows()
    ]
    if values:
        named = ", ".join(f"{k} = {_cell(v)}" for k, v in list(values.items())[:MAX_ROWS])
        more = f" and {len(values) - MAX_ROWS} more" if len(values) > MAX_ROWS else ""
        line += f"<br>the same in every run: {escape(named + more)}"
    what = "rows: outcome.statistics() has them all"
    shown = table(headers, rows, len(stats), what, MAX_STATISTICS_ROWS)
    return f"<div>{line}{shown}</div>"
