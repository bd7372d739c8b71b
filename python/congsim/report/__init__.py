"""`congsim report DIR`: one self-contained HTML file for a folder of reproduced studies.

The page is rendered from the Jinja2 templates in `templates/` with autoescape on, so every
value that comes from the data (a study's title, a claim, a label, an axis value) is escaped
where it lands. Everything is inline (CSS, the few lines of script behind the configuration
picker, and figures as SVG drawn with matplotlib's object API), so the file opens offline and
archives well. Per study: the comparison table with verdicts, one figure per reference metric
(ours with 95 % confidence intervals against the reference values), and the traced run's total
throughput, congestion windows and bottleneck queue over time; where every configuration was
traced, a picker shows the chosen configuration's figures.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import pandas as pd
    from jinja2 import Environment
    from matplotlib.figure import Figure

    from congsim.studies import Study

#: One look for every figure.
STYLE: dict[Any, Any] = {
    "figure.figsize": (6.4, 3.6),
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
    "svg.fonttype": "none",
}


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _new_figure() -> Figure:
    from matplotlib.figure import Figure

    return Figure(layout="constrained")


def metric_figure(comparison: pd.DataFrame, axes: list[str], metric: str) -> Figure:
    """Ours (mean, 95 % CI) against the reference and its agreement band (shaded): over the last
    axis, one line per value of the other axes, when that axis is numeric; otherwise one point
    per configuration."""
    import pandas as pd

    data = comparison[comparison["metric"] == metric]
    fig = _new_figure()
    ax = fig.add_subplot()
    x_axis, series_axes = axes[-1], axes[:-1]
    numeric = pd.to_numeric(data[x_axis], errors="coerce")
    if numeric.notna().all() and numeric.nunique() > 1:
        groups = data.groupby(series_axes, sort=False) if series_axes else [((), data)]
        for label, group in groups:
            name = ", ".join(str(v) for v in (label if isinstance(label, tuple) else (label,)))
            x = group[x_axis].astype(float)
            line = ax.errorbar(
                x,
                group["mean"],
                yerr=[group["mean"] - group["ci_low"], group["ci_high"] - group["mean"]],
                marker="o",
                capsize=3,
                label=f"congsim {name}".strip(),
            )
            ax.plot(
                x,
                group["reference"],
                linestyle="--",
                marker="s",
                fillstyle="none",
                color=line[0].get_color(),
                label=f"reference {name}".strip(),
            )
            ax.fill_between(x, group["band_low"], group["band_high"], color=line[0].get_color(), alpha=0.12)
        values = sorted(set(numeric))
        if values[0] > 0 and values[-1] / values[0] > 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(values, [f"{v:g}" for v in values])
        ax.minorticks_off()
        ax.set_xlabel(x_axis)
    else:
        # Name each configuration by the axes that vary among these rows.
        varying = [a for a in axes if data[a].fillna("").astype(str).nunique() > 1]
        names = [
            "/".join(str(v) for v in row if str(v) not in ("", "nan"))
            for row in data[varying].itertuples(index=False)
        ]
        x = list(range(len(data)))
        ax.errorbar(
            x,
            data["mean"],
            yerr=[data["mean"] - data["ci_low"], data["ci_high"] - data["mean"]],
            marker="o",
            linestyle="none",
            capsize=3,
            label="congsim",
        )
        ax.plot(x, data["reference"], linestyle="none", marker="s", fillstyle="none", label="reference")
        ax.bar(
            x,
            data["band_high"] - data["band_low"],
            bottom=data["band_low"],
            width=0.6,
            color="grey",
            alpha=0.2,
            label="agreement band",
        )
        ax.set_xticks(x, names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel(metric)
    ax.legend(fontsize=7)
    return fig


def trace_figures(traces: Path) -> list[tuple[str, Figure]]:
    """Total throughput, congestion windows of the first flows, and the busiest queue, over
    time."""
    import pandas as pd

    figures: list[tuple[str, Figure]] = []
    flows = pd.read_parquet(traces / "flow_series.parquet")
    if flows.empty:  # only random transfers (lima2002): no declared flow to follow
        return _traced_run_named(traces, _queue_figures(traces))
    total = flows.groupby("time_s", sort=True)["throughput_bps"].sum() / 1e6
    fig = _new_figure()
    ax = fig.add_subplot()
    ax.step(total.index, total.to_numpy(), where="post")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total throughput (Mbps)")
    figures.append(("Total throughput over time", fig))
    fig = _new_figure()
    ax = fig.add_subplot()
    for name in list(dict.fromkeys(flows["flow"]))[:4]:
        one = flows[flows["flow"] == name]
        ax.step(one["time_s"], one["cwnd"], where="post", label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    figures.append(("Congestion window of the first flows", fig))
    return _traced_run_named(traces, figures + _queue_figures(traces))


def _traced_run_named(traces: Path, figures: list[tuple[str, Figure]]) -> list[tuple[str, Figure]]:
    """The figures of the traced run, each caption naming its configuration and replication."""
    path = traces / "configuration.json"
    params = json.loads(path.read_text()) if path.exists() else {}
    # Flow counts only shape a labelled configuration (jain1996's N5 leaves flows out): the
    # label names it.
    setting = ", ".join(f"{k} = {v}" for k, v in params.items() if v is not None and not k.endswith(".count"))
    suffix = f" ({setting + '; ' if setting else ''}replication 0)"
    return [(caption + suffix, fig) for caption, fig in figures]


def _queue_figures(traces: Path) -> list[tuple[str, Figure]]:
    """The busiest queue over time: an IP link's in packets, else an ATM switch port's in cells
    (a host's adapter holds what its source may not send yet, not a network queue)."""
    import pandas as pd

    for name, column, unit in (
        ("link_series", "queue_packets", "packets"),
        ("atm_series", "queue_cells", "cells"),
    ):
        path = traces / f"{name}.parquet"
        links = pd.read_parquet(path) if path.exists() else pd.DataFrame()
        if "kind" in links and (links["kind"] == "switch").any():
            links = links[links["kind"] == "switch"]
        if links.empty:
            continue
        busiest = links.groupby("link")[column].mean().idxmax()
        one = links[links["link"] == busiest]
        fig = _new_figure()
        ax = fig.add_subplot()
        ax.step(one["time_s"], one[column], where="post")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"queue on {busiest} ({unit})")
        return [(f"Queue length on {busiest}", fig)]
    return []


def traced_points(points: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The traced run of every configuration (`traces/points/NNN/`) and its parameters."""
    return [
        (folder, json.loads((folder / "configuration.json").read_text()))
        for folder in sorted(p for p in points.iterdir() if p.is_dir())
        if (folder / "configuration.json").exists()
    ]


def _point_name(params: dict[str, Any], group: list[dict[str, Any]], by: str | None) -> str:
    """The distinct values that set a configuration apart within its group ("reno",
    "reno + sack"), or its `by` value when none do."""
    keys = [k for k in params if k != by and len({str(p.get(k)) for p in group}) > 1]
    name = " + ".join(dict.fromkeys(str(params[k]) for k in keys if params[k] is not None))
    return name or ("" if by is None else str(params.get(by)))


def point_figures(points: Path, by: str) -> list[tuple[str, Figure]]:
    """Total TCP throughput over time of every traced configuration: one figure per value of
    `by`, one line per configuration (named by the axes that vary within the figure)."""
    import pandas as pd

    traced = []
    for folder, params in traced_points(points):
        flows = pd.read_parquet(folder / "flow_series.parquet")
        total = flows.groupby("time_s", sort=True)["throughput_bps"].sum() / 1e6
        traced.append((params, total))
    figures = []
    for value in dict.fromkeys(str(params.get(by)) for params, _ in traced):
        group = [(params, total) for params, total in traced if str(params.get(by)) == value]
        fig = _new_figure()
        ax = fig.add_subplot()
        for params, total in group:
            name = _point_name(params, [p for p, _ in group], by)
            ax.step(total.index, total.to_numpy(), where="post", label=name, linewidth=1.0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("total TCP throughput (Mbps)")
        ax.legend(fontsize=7)
        figures.append((f"Total TCP throughput over time: {value} (replication 0 of each)", fig))
    return figures


def configuration_names(traced: list[tuple[Path, dict[str, Any]]], by: str | None) -> list[str]:
    """A short name for each traced configuration, as the picker lists it: its `by` value and
    what sets it apart within that value's group ("only-tcp: reno + sack")."""
    everything = [params for _, params in traced]
    names = []
    for folder, params in traced:
        if by is None:
            names.append(_point_name(params, everything, None) or folder.name)
            continue
        value = str(params.get(by))
        within = _point_name(params, [p for p in everything if str(p.get(by)) == value], by)
        names.append(value if within == value else f"{value}: {within}")
    return names


def sequence_figure(trace: pd.DataFrame, flow: str) -> Figure:
    """The classic time-sequence figure of one flow from a `sequence` table: segments sent
    (dots), retransmitted (crosses) and dropped (rings), the cumulative ACK (steps) with its SACK
    blocks (bars); below, cwnd, ssthresh and (SACK) pipe at every event."""
    rows = trace[trace["flow"] == flow]
    if rows.empty:
        raise KeyError(
            f"flow {flow!r} is not in the trace; flows are: {', '.join(sorted(set(trace['flow'])))}"
        )
    fig = _new_figure()
    seq_ax, win_ax = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    marks = {"send": ("k", "."), "retransmit": ("tab:red", "x"), "drop": ("tab:red", "o")}
    for event, (colour, marker) in marks.items():
        part = rows[rows["event"] == event]
        if part.empty:
            continue
        if event == "drop":
            seq_ax.scatter(
                part["time_s"], part["seq"], s=30, facecolors="none", edgecolors=colour, label=event
            )
        else:
            seq_ax.scatter(part["time_s"], part["seq"], s=12, color=colour, marker=marker, label=event)
    acks = rows[rows["event"] == "ack"]
    if not acks.empty:
        seq_ax.step(acks["time_s"], acks["ack"], where="post", color="tab:blue", linewidth=0.8, label="ack")
        sacked = acks[acks["sack"] != ""]
        for t, blocks in zip(sacked["time_s"], sacked["sack"], strict=True):
            for block in blocks.split():
                left, right = (float(v) for v in block.split("-"))
                seq_ax.vlines(t, left, right, color="tab:green", linewidth=1.5)
        if not sacked.empty:
            seq_ax.plot([], [], color="tab:green", label="SACK")
        win_ax.plot(acks["time_s"], acks["cwnd"], label="cwnd")
        win_ax.plot(acks["time_s"], acks["ssthresh"], label="ssthresh", linestyle="--")
        if acks["pipe"].notna().any():
            win_ax.plot(acks["time_s"], acks["pipe"], label="pipe", linestyle=":")
    seq_ax.set_ylabel("sequence number")
    seq_ax.set_title(f"time-sequence of {flow}")
    seq_ax.legend(loc="upper left", fontsize=7)
    win_ax.set_xlabel("time (s)")
    win_ax.set_ylabel("segments")
    win_ax.legend(loc="upper left", fontsize=7)
    return fig


def write_sequence_figure(directory: str | Path, flow: str, output: str | Path | None = None) -> Path:
    """Draws `sequence_figure` from `DIR/sequence.parquet` (written by `congsim run --out DIR`
    with `metrics.sequence_trace`); SVG, PNG or PDF by the output's suffix."""
    import pandas as pd

    source = Path(directory) / "sequence.parquet"
    if not source.exists():
        raise FileNotFoundError(
            f"{source}: no time-sequence trace; run a scenario with [metrics] sequence_trace = true"
        )
    # A flow's name may hold "/" or "..": the default file name keeps it inside DIRECTORY.
    safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in flow).lstrip(".")
    out = Path(output) if output is not None else Path(directory) / f"sequence-{safe}.svg"
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = sequence_figure(pd.read_parquet(source), flow)
        fig.savefig(out)
    return out


# What the page shows, as plain values: the templates lay them out and escape every one.


@cache
def _environment() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("congsim.report", "templates"),
        # Every value a template prints is escaped, whatever the file's name; only the HTML
        # made here (matplotlib's SVG) is marked safe, in the templates, where it is used.
        autoescape=select_autoescape(("html",), default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _macro(name: str, *args: object) -> str:
    """One macro of `study.html`, rendered (as an escaped HTML fragment)."""
    return str(getattr(_environment().get_template("study.html").module, name)(*args))


#: A verdict in words, as a paper-shaped cell's tooltip says it.
VERDICT_WORDS = {
    "agrees": "ours agree with the reference (our 95 % CI inside the band)",
    "inconclusive": "inconclusive (our 95 % CI across an edge of the band)",
    "differs": "ours differ from the reference (our 95 % CI outside the band)",
}


@dataclass(frozen=True)
class FigureView:
    caption: str
    #: matplotlib's own SVG output, inlined as is.
    svg: str


@dataclass(frozen=True)
class CellView:
    text: str
    #: The cell's class: its verdict, "n" for a number, or none.
    css: str = ""


@dataclass(frozen=True)
class TableView:
    """Every compared value of a study, a row each."""

    columns: list[str]
    rows: list[list[CellView]]


@dataclass(frozen=True)
class PaperCellView:
    verdict: str
    words: str
    reference: str
    ours: str
    ns2: str = ""
    ns2_verdict: str = ""


@dataclass(frozen=True)
class PaperTableView:
    """One reference table as the paper prints it."""

    element_id: str
    heading: str
    row_axis: str
    titles: list[str]
    rows: list[tuple[str, list[PaperCellView | None]]]


@dataclass(frozen=True)
class ClaimView:
    claim: str
    lhs_name: str
    rhs_name: str
    source: str
    note: str
    lhs: str
    rhs: str
    ratio: str
    verdict: str
    css: str


@dataclass(frozen=True)
class ClaimsView:
    """The claims of one origin (the paper's, or congsim's own checks)."""

    element_id: str
    sentence: str
    link: str
    rows: list[ClaimView]


@dataclass(frozen=True)
class VariantView:
    name: str
    changes: str
    said: str
    why: str
    links: list[tuple[str, str]]


@dataclass(frozen=True)
class ConfigurationView:
    """One traced configuration, as the picker shows it."""

    element_id: str
    name: str
    figures: list[FigureView]


@dataclass
class StudyView:
    anchor: str
    name: str
    title: str
    #: The section's parts: (element id, link text).
    contents: list[tuple[str, str]] = field(default_factory=list)
    values: str = ""
    baselines: list[str] = field(default_factory=list)
    #: Metric families judged by the order of their cells (one value lies in every band).
    orders: list[str] = field(default_factory=list)
    ns2_sentence: str = ""
    source: str = ""
    comparison_link: str = ""
    paper_tables: list[PaperTableView] = field(default_factory=list)
    ns2: bool = False
    table: TableView | None = None
    claims: list[ClaimsView] = field(default_factory=list)
    variants: list[VariantView] = field(default_factory=list)
    notes: str = ""
    figures: list[FigureView] = field(default_factory=list)
    configurations: list[ConfigurationView] = field(default_factory=list)
    # The summary row.
    values_text: str = "none"
    baseline_text: str = "none"
    claims_text: str = "none"
    ns2_text: str = "none"


def _figure_views(figures: list[tuple[str, Figure]]) -> list[FigureView]:
    return [FigureView(caption, _svg(fig)) for caption, fig in figures]


def _link(base: str, *parts: str) -> str:
    """A link to a file of the results folder, relative to the page."""
    return quote(base + "/".join(parts), safe="/")


def _table_view(comparison: pd.DataFrame, axes: list[str]) -> TableView:
    from congsim.studies.judge import uncounted_label

    columns = [*axes, "metric", "reference", "mean", "ci_low", "ci_high", "band_low", "band_high", "verdict"]
    if "ns2_verdict" in comparison:
        # paper | ns-2.35 on the same set-up | ours, then ours against ns-2 (judge.add_ns2).
        at = columns.index("mean")
        columns[at:at] = ["ns2_mean", "ns2_ci_low", "ns2_ci_high", "ns2_n"]
        columns += ["ns2_verdict", "difference"]
    rows = []
    for row in comparison.to_dict("records"):
        cells = []
        for c in columns:
            value = row[c]
            text = f"{value:.4g}" if isinstance(value, float) else str(value)
            if c in ("ns2_n", "difference") and _axis_value(value) == "":
                text = ""
            css = "n" if isinstance(value, float) else ""
            if c in ("verdict", "ns2_verdict"):
                css = str(value)
            if c == "verdict" and uncounted_label(row.get("scored")):
                text += f" ({uncounted_label(row.get('scored'))})"
            cells.append(CellView(text, css))
        rows.append(cells)
    return TableView(columns, rows)


def _table(comparison: pd.DataFrame, axes: list[str]) -> str:
    """Every compared value in one table, as HTML."""
    return _macro("long_table", _table_view(comparison, axes))


def _axis_value(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def _column_title(column: tuple[str, str], one_metric: bool, one_value: bool) -> str:
    """A paper-shaped table's column heading: its axis value, its metric, or both."""
    value, metric = column
    if one_value or not value:
        return metric
    return value if one_metric else f"{value} · {metric}"


def _paper_cell(cell: dict[Any, Any] | None) -> PaperCellView | None:
    """The paper's number over ours with its 95 % CI, coloured by the verdict."""
    from congsim.studies.judge import uncounted_label

    if cell is None:
        return None
    verdict = str(cell["verdict"])
    ours = f"{float(cell['mean']):.3g} [{float(cell['ci_low']):.3g}, {float(cell['ci_high']):.3g}]"
    label = uncounted_label(cell.get("scored"))
    ours += f" ({label})" if label else ""
    ns2 = ns2_verdict = ""
    if "ns2_verdict" in cell and _axis_value(cell.get("ns2_mean")) not in ("", "nan"):
        # ns-2.35 on the same set-up between the paper's number and ours, and what a
        # difference from the paper is (judge.add_ns2).
        difference = _axis_value(cell.get("difference"))
        ours += f"; {difference}" if difference else ""
        ns2 = f"{float(cell['ns2_mean']):.3g}"
        ns2_verdict = str(cell["ns2_verdict"])
    return PaperCellView(
        verdict=verdict,
        words=VERDICT_WORDS.get(verdict, verdict),
        reference=f"{float(cell['reference']):.4g}",
        ours=ours,
        ns2=ns2,
        ns2_verdict=ns2_verdict,
    )


def _paper_table_views(
    comparison: pd.DataFrame, layout: tuple[str, str | None], anchor: str
) -> list[PaperTableView]:
    import re

    row_axis, column_axis = layout
    views = []
    for table_id, table in comparison.groupby("table", sort=False):
        records: list[dict[Any, Any]] = table.to_dict("records")
        keyed = [
            (
                _axis_value(r[row_axis]),
                (_axis_value(r[column_axis]) if column_axis else "", str(r["metric"])),
                r,
            )
            for r in records
        ]
        rows = list(dict.fromkeys(row for row, _, _ in keyed))
        columns = list(dict.fromkeys(column for _, column, _ in keyed))
        cells: dict[tuple[str, tuple[str, str]], dict[Any, Any]] = {}
        for row, column, record in keyed:
            cells.setdefault((row, column), record)
        one_metric = len({metric for _, metric in columns}) == 1
        one_value = len({value for value, _ in columns}) == 1
        name = str(table_id)
        views.append(
            PaperTableView(
                element_id=f"{anchor}-table-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-"),
                heading=f"Table {name[1:]}" if name[:1] == "T" and name[1:].isdigit() else name,
                row_axis=row_axis,
                titles=[_column_title(c, one_metric, one_value) for c in columns],
                rows=[(row, [_paper_cell(cells.get((row, column))) for column in columns]) for row in rows],
            )
        )
    return views


def _paper_tables(comparison: pd.DataFrame, layout: tuple[str, str | None], anchor: str) -> str:
    """Each reference table laid out as the paper prints it: a row per value of the row axis, a
    column per value of the column axis (and metric, where a table prints several), each cell
    the paper's number over ours with its 95 % CI, coloured by the verdict."""
    views = _paper_table_views(comparison, layout, anchor)
    return _macro("paper_tables", views, "ns2_verdict" in comparison) if views else ""


def _variant_views(folder: Path, study: Study | None, base: str) -> list[VariantView]:
    """The study's variants (other set-ups run beside the default): what each changes, why,
    and how it scores, with links to its tables."""
    import pandas as pd

    from congsim.studies.judge import scored_rows
    from congsim.studies.score import claim_origins

    root = folder / "variants"
    if study is None or not root.is_dir():
        return []
    views = []
    for variant in study.variants:
        where = root / variant.name
        if not (where / "comparison.csv").exists():
            continue
        comparison = pd.read_csv(where / "comparison.csv")
        scored = scored_rows(comparison) if not comparison.empty else comparison
        counts = scored["verdict"].value_counts() if not scored.empty else pd.Series(dtype=int)
        said = []
        if not scored.empty:
            said.append(
                f"{int(counts.get('agrees', 0))} of {len(scored)} values agree with the reference, "
                f"{int(counts.get('inconclusive', 0))} inconclusive, {int(counts.get('differs', 0))} differ"
            )
        links = [(_link(base, folder.name, "variants", variant.name, "comparison.csv"), "comparison.csv")]
        if (where / "claims.csv").exists():
            claims = pd.read_csv(where / "claims.csv")
            paper = claims[claim_origins(claims) == "paper"]
            said.append(
                f"{int((paper['verdict'] == 'holds').sum())} of {len(paper)} claims of the paper hold"
            )
            links.append((_link(base, folder.name, "variants", variant.name, "claims.csv"), "claims.csv"))
        views.append(
            VariantView(
                name=variant.name,
                changes=", ".join(
                    f"{path} = {json.dumps(value)}" for path, value in variant.overrides.items()
                ),
                said="; ".join(said),
                why=variant.why,
                links=links,
            )
        )
    return views


def _claim_views(claims: pd.DataFrame) -> list[ClaimView]:
    views = []
    for row in claims.to_dict("records"):
        source = row.get("source")
        note = row.get("note")
        views.append(
            ClaimView(
                claim=str(row["claim"]),
                lhs_name=str(row["lhs"]),
                rhs_name=str(row["rhs"]),
                source=source if isinstance(source, str) else "",
                note=note if row["verdict"] != "holds" and isinstance(note, str) else "",
                lhs=(
                    f"{row['factor']:g} x {row['lhs_mean']:.4g} "
                    f"[{row['lhs_ci_low']:.4g}, {row['lhs_ci_high']:.4g}]"
                ),
                rhs=f"{row['rhs_mean']:.4g} [{row['rhs_ci_low']:.4g}, {row['rhs_ci_high']:.4g}]",
                ratio=f"{row['ratio']:.3g} [{row['ratio_ci_low']:.3g}, {row['ratio_ci_high']:.3g}]",
                verdict=str(row["verdict"]),
                css="agrees" if row["verdict"] == "holds" else "differs",
            )
        )
    return views


def _baseline_words(comparison: pd.DataFrame, scored: pd.DataFrame) -> tuple[list[str], list[str], str]:
    """What the trivial predictors score on the same bands (studies.judge.add_baselines), in
    sentences for the section, with a line per metric judged by order, and in short for the
    summary."""
    import pandas as pd

    from congsim.studies.judge import baseline_score

    score = baseline_score(comparison)
    # The table's other cells predict only a table's cells that have neighbours.
    neighboured = (
        int(pd.to_numeric(scored["baseline_within_table"], errors="coerce").notna().sum())
        if "baseline_within_table" in scored
        else score.compared
    )
    variant = (
        ""
        if score.variant is None
        else f"one constant per TCP variant on {score.variant} of {score.compared}"
    )
    informative = ", ".join(score.informative)
    ahead = (
        f"clearly ahead of every guess on {informative}"
        if informative
        else "clearly ahead of every guess on no metric"
    )
    summary = "; ".join(
        part
        for part in (
            f"a constant guess agrees on {score.constant} of {score.compared} cells",
            f"the table's other cells agree on {score.within_table} of {neighboured}",
            variant,
            f"ours {ahead}",
        )
        if part
    )
    sentences = [
        f"How much that says: a constant guess (each metric's mean reference value) agrees on "
        f"{score.constant} of {score.compared} cells, the mean of the table's other cells on "
        f"{score.within_table} of {neighboured}"
        + (f", {variant}" if variant else "")
        + ", each guess as precise as ours.",
        f"Ours are {ahead}.",
    ]
    orders = [
        f"{f.metric}: ours put {f.in_order} pairs of a table's cells in the paper's order, "
        f"{f.reversed} in the reverse order"
        for f in score.families
        if f.flat
    ]
    return sentences, orders, summary


def _ns2_words(comparison: pd.DataFrame) -> tuple[str, str] | None:
    """Ours against ns-2 on the same set-up (judge.add_ns2), for the section and the summary."""
    from congsim.studies.judge import ns2_score

    second = ns2_score(comparison)
    if second is None:
        return None
    version = second.version or "ns-2"
    sentence = (
        f"Against {version} run on the same set-up (its own replications, the same band rule around "
        f"its mean) ours agree on {second.agrees} of {second.compared}, {second.inconclusive} are "
        f"inconclusive and {second.differs} differ; of the values that differ from the paper, "
        f"{second.setup} differ in ns-2 alike (the set-up's) and {second.model_questions} only here "
        "(a model question)."
    )
    summary = (
        f"ours agree with ns-2 on {second.agrees} of {second.compared}; of the differences from the "
        f"paper, {second.setup} show in ns-2 too (set-up), {second.model_questions} only here "
        "(model question)"
    )
    return sentence, summary


def _configuration_views(points: Path, by: str | None, anchor: str) -> list[ConfigurationView]:
    """The figures of every traced configuration, for the picker."""
    traced = [(f, p) for f, p in traced_points(points) if (f / "flow_series.parquet").exists()]
    return [
        ConfigurationView(f"{anchor}-configuration-{folder.name}", name, _figure_views(trace_figures(folder)))
        for (folder, _), name in zip(traced, configuration_names(traced, by), strict=True)
    ]


def _study_view(folder: Path, study: Study | None, base: str = "") -> StudyView:
    """One study: the reference comparison and its figures, the claims, the variants, the
    notes, the traces; and its row of the summary at the top. `base` leads every link to a
    file of the results folder from the page."""
    import pandas as pd

    from congsim.studies.judge import scored_rows
    from congsim.studies.score import claim_origins

    comparison = pd.read_csv(folder / "comparison.csv", dtype=str)
    for c in ("reference", "mean", "ci_low", "ci_high", "band_low", "band_high"):
        comparison[c] = comparison[c].astype(float)
    for c in ("ns2_mean", "ns2_ci_low", "ns2_ci_high", "ns2_n"):
        if c in comparison:
            comparison[c] = comparison[c].astype(float)
    axes = list(json.loads((folder / "plan.json").read_text())["runs"][0]["params"])
    view = StudyView(
        anchor=f"study-{folder.name}", name=folder.name, title=study.title if study else folder.name
    )
    anchor = view.anchor
    figures: list[tuple[str, Figure]] = []
    if not comparison.empty:
        # The axes the reference names its configurations by.
        axes = [a for a in axes if comparison[a].fillna("").astype(str).str.len().gt(0).any()]
        scored = scored_rows(comparison)
        agree = int((scored["verdict"] == "agrees").sum())
        inconclusive = int((scored["verdict"] == "inconclusive").sum())
        differs = int((scored["verdict"] == "differs").sum())
        view.values_text = f"{agree} of {len(scored)} agree, {inconclusive} inconclusive, {differs} differ"
        view.values = (
            f"{agree} of {len(scored)} values agree with the reference (our 95 % CI inside the agreement "
            f"band), {inconclusive} are inconclusive (the CI across an edge of the band) and "
            f"{differs} differ (the CI outside the band)."
        )
        view.source = str(comparison["source"].iloc[0])
        view.comparison_link = _link(base, folder.name, "comparison.csv")
        if "baseline_within_table_agrees" in comparison:
            view.baselines, view.orders, view.baseline_text = _baseline_words(comparison, scored)
        ns2 = _ns2_words(comparison)
        if ns2 is not None:
            view.ns2_sentence, view.ns2_text = ns2
            view.ns2 = True
        view.contents.append((f"{anchor}-values", "reference values"))
        if study is not None and study.layout is not None and "table" in comparison:
            view.paper_tables = _paper_table_views(comparison, study.layout, anchor)
        view.table = _table_view(comparison, axes)
        figures += [
            (f"{m} against the reference", metric_figure(comparison, axes, m))
            for m in dict.fromkeys(comparison["metric"])
        ]
    if (folder / "claims.csv").exists():
        claims = pd.read_csv(folder / "claims.csv")
        origins = claim_origins(claims)
        texts = []
        view.contents.append((f"{anchor}-claims", "claims"))
        for origin, label in (("paper", "claims of the paper"), ("check", "of congsim's own checks")):
            part = claims[origins == origin]
            if part.empty:
                continue
            holding = int((part["verdict"] == "holds").sum())
            counts = part["verdict"].value_counts()
            texts.append(
                f"{holding} of {len(part)} {label.removeprefix('of ')} hold"
                + "".join(f", {int(counts[v])} {v}" for v in ("not significant", "fails") if v in counts)
            )
            view.claims.append(
                ClaimsView(
                    element_id=f"{anchor}-claims" if origin == "paper" or len(texts) == 1 else "",
                    sentence=(
                        f"{holding} of {len(part)} {label} hold with 95 % confidence (paired over "
                        "replications, which share their random streams)"
                    ),
                    link=_link(base, folder.name, "claims.csv"),
                    rows=_claim_views(part),
                )
            )
        view.claims_text = "; ".join(texts)
    view.variants = _variant_views(folder, study, base)
    if view.variants:
        view.contents.append((f"{anchor}-variants", "variants"))
    if study is not None and study.notes:
        view.notes = study.notes
    points = folder / "traces" / "points"
    if points.is_dir():
        # Every configuration traced: the picker shows each one's run (the first of them is
        # the configuration traced alone otherwise), the grid their throughput side by side.
        view.configurations = _configuration_views(points, study.trace_points_by if study else None, anchor)
        if study is not None and study.trace_points_by:
            figures += point_figures(points, study.trace_points_by)
    if not view.configurations and (folder / "traces" / "flow_series.parquet").exists():
        figures += trace_figures(folder / "traces")
    view.figures = _figure_views(figures)
    if view.figures:
        view.contents.append((f"{anchor}-figures", "figures"))
    if view.configurations:
        view.contents.append((f"{anchor}-configurations", "traced configurations"))
    return view


def _study_section(folder: Path, study: Study | None, base: str = "") -> tuple[str, str]:
    """One study's section and its row of the summary, as HTML."""
    view = _study_view(folder, study, base)
    return _macro("section", view), _macro("summary_row", view)


def build_report(directory: str | Path, output: str | Path | None = None) -> Path:
    """Writes the report for every study folder in `directory` (default: `report.html` there)."""
    import matplotlib as mpl

    from congsim.studies import STUDIES

    directory = Path(directory)
    folders = sorted(p.parent for p in directory.glob("*/comparison.csv"))
    if not folders:
        raise FileNotFoundError(f"{directory}: no reproduced studies here (run congsim reproduce first)")
    target = Path(output) if output is not None else directory / "report.html"
    # Links to the results' files are relative to the page, and the page names the results
    # folder by its name only: no path of this machine is written into it. A page whose only
    # way to the folder is through the file system's root links as if it sat in the folder.
    results, page_folder = directory.resolve(), target.resolve().parent
    try:
        common = Path(os.path.commonpath([results, page_folder]))
        relative = Path(os.path.relpath(results, page_folder)).as_posix()
    except ValueError:  # another drive (Windows)
        common, relative = Path(results.anchor), "."
    if common == Path(common.anchor):
        relative = "."
    base = "" if relative == "." else relative + "/"
    with mpl.rc_context(STYLE):
        studies = [_study_view(folder, STUDIES.get(folder.name), base) for folder in folders]
    page = (
        _environment()
        .get_template("report.html")
        .render(
            results=results.name or "the results folder",
            stamp=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            studies=studies,
            picker=any(s.configurations for s in studies),
        )
    )
    target.write_text(page, encoding="utf-8")
    return target
