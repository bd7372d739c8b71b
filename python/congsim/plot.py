"""Plots of a run's time series, as `results.plot.cwnd()`, `.queue()` and `.throughput()`.

Each draws one line per flow or link on a matplotlib `Axes` (a new figure's unless `ax` is
given) and returns it. The series come from the `flow_series` and `link_series` tables, which a
run records when the scenario sets `[metrics] series_interval`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes

    from congsim.results import Results

#: A legend names each line up to this many lines (beyond, it would hide the plot).
LEGEND_LINES = 20

#: What turns a series on, for the message when a run lacks it.
_HOW_TO_RECORD = 'set [metrics] series_interval in the scenario (e.g. series_interval = "100ms")'


class ResultsPlot:
    """The plots of one run (`Results.plot`). Units: time in seconds, cwnd in segments (packets
    in the ns-2 profiles), queues in packets, throughput in Mb/s."""

    def __init__(self, results: Results) -> None:
        self._results = results

    def cwnd(self, flows: str | Iterable[str] | None = None, ax: Axes | None = None) -> Axes:
        """Each TCP flow's congestion window over time (`flow_series.cwnd`), one line per flow
        of `flows` (default: every flow)."""
        return self._draw("cwnd", "flow_series", "flow", "cwnd", flows, ax, "cwnd (segments)", 1.0)

    def throughput(self, flows: str | Iterable[str] | None = None, ax: Axes | None = None) -> Axes:
        """Each TCP flow's goodput over each sampling interval (`flow_series.throughput_bps`),
        in Mb/s, one line per flow of `flows` (default: every flow)."""
        return self._draw(
            "throughput", "flow_series", "flow", "throughput_bps", flows, ax, "throughput (Mb/s)", 1e-6
        )

    def queue(self, links: str | Iterable[str] | None = None, ax: Axes | None = None) -> Axes:
        """Each IP link's queue length over time (`link_series.queue_packets`), in packets, one
        line per link of `links` (names as in the `links` table, `"router->dst"`). Default:
        the links where a queue built up, those whose sampled queue ever held more than one
        packet (every link if none did)."""
        return self._draw("queue", "link_series", "link", "queue_packets", links, ax, "queue (packets)", 1.0)

    def _draw(
        self,
        plot: str,
        table: str,
        key: str,
        column: str,
        names: str | Iterable[str] | None,
        ax: Axes | None,
        ylabel: str,
        scale: float,
        max_points: int | None = None,
    ) -> Axes:
        series = self._series(plot, table, key, column)
        busy = series[column] if key == "link" else None
        chosen = _chosen(series[key], busy, names, key, table)
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        time, values = series["time_s"], series[column]
        handles = []
        for name, rows in chosen:
            if max_points is not None and len(rows) > max_points:
                rows = rows[:: -(-len(rows) // max_points)]
            (line,) = ax.plot(time[rows], values[rows] * scale, label=_plain_label(name))
            handles.append(line)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        if 0 < len(handles) <= LEGEND_LINES:
            # Handles given: a name starting with `_` would otherwise be left out of the legend.
            ax.legend(handles, [str(h.get_label()) for h in handles], fontsize="small")
        return ax

    def _series(self, plot: str, table: str, key: str, column: str) -> dict[str, np.ndarray[Any, Any]]:
        """The columns of `table`; `ValueError` naming the series and how to record it."""
        if table not in self._results.names:
            raise ValueError(
                f"plot.{plot}() needs the {table} table ({table}.{column}), which this run did not "
                f"record: {_HOW_TO_RECORD}"
            )
        columns = self._results.columns(table)
        return {name: columns[name] for name in ("time_s", key, column)}


def _chosen(
    labels: np.ndarray[Any, Any],
    busy: np.ndarray[Any, Any] | None,
    names: str | Iterable[str] | None,
    key: str,
    table: str,
) -> list[tuple[str, np.ndarray[Any, Any]]]:
    """`(name, row indices)` of each flow or link to draw: those of `names` in the order given,
    by default every one in the table's order (with `busy`, those with a value above 1 there,
    unless none has one); `ValueError` for a name the table does not have."""
    import numpy as np

    known, first, inverse = np.unique(labels.astype(str), return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    groups = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(known)))[:-1])
    rows_of = {str(name): rows for name, rows in zip(known, groups, strict=True)}
    in_order = [str(known[i]) for i in np.argsort(first, kind="stable")]
    if names is None:
        if not in_order:
            raise ValueError(f"the {table} table has no rows: this run has no {key} to plot")
        active = [] if busy is None else [n for n in in_order if (busy[rows_of[n]] > 1).any()]
        return [(n, rows_of[n]) for n in active or in_order]
    wanted = [names] if isinstance(names, str) else list(names)
    for name in wanted:
        if not isinstance(name, str):
            raise TypeError(f"{key} names must be str, not {type(name).__name__}")
    missing = [n for n in wanted if n not in rows_of]
    if missing:
        shown = ", ".join(repr(n) for n in in_order[:10]) + (", ..." if len(in_order) > 10 else "")
        raise ValueError(f"no {key} {missing[0]!r} in the {table} table; its {key}s are: {shown or 'none'}")
    return [(n, rows_of[n]) for n in dict.fromkeys(wanted)]


def _plain_label(name: str) -> str:
    """`name` as matplotlib shows it literally: `$` would start mathematical text."""
    return name.replace("$", r"\$")


def cwnd_svg(results: Results, max_flows: int = 8, max_points: int = 200) -> str | None:
    """A small cwnd plot of the first `max_flows` flows as an inline SVG element (text as
    text, lines thinned to `max_points` samples), or None when the run has no cwnd series."""
    if "flow_series" not in results.names:
        return None
    flows = results.columns("flow_series")["flow"]
    if len(flows) == 0:
        return None
    import io
    import re

    import matplotlib
    import pandas as pd
    from matplotlib.figure import Figure

    first = [str(flow) for flow in pd.unique(flows)[:max_flows]]
    with matplotlib.rc_context({"svg.fonttype": "none", "font.size": 8, "font.sans-serif": ["DejaVu Sans"]}):
        figure = Figure(figsize=(5.0, 2.2), layout="constrained")
        ax = figure.add_subplot()
        ResultsPlot(results)._draw(
            "cwnd", "flow_series", "flow", "cwnd", first, ax, "cwnd (segments)", 1.0, max_points
        )
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg[svg.index("<svg") :], flags=re.S)
    svg = re.sub(r">\s+<", "><", svg).replace(" \n", " ")
    # Path coordinates to 0.1 pt: a third of the bytes, no visible change.
    return re.sub(r' d="[^"]*"', lambda m: re.sub(r"(\.\d)\d+", r"\1", m.group(0)), svg)
