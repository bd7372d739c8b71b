"""`congsim report DIR`: one self-contained HTML file for a folder of reproduced studies.

Everything is inline (CSS, and figures as SVG drawn with matplotlib's object API), so the file
opens offline and archives well. Per study: the comparison table with verdicts, one figure per
reference metric (ours with 95 % confidence intervals against the reference values), and the
traced run's total throughput, congestion windows and bottleneck queue over time.
"""

from __future__ import annotations

import html
import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
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

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: .85em; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; }
th { background: #f3f3f3; } td.agrees { background: #e6f4e6; } td.differs { background: #fbe3e3; }
td.inconclusive { background: #fdf3d8; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; } .figure { flex: 1 1 480px; }
.meta { color: #666; font-size: .85em; }
"""


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


def point_figures(points: Path, by: str) -> list[tuple[str, Figure]]:
    """Total TCP throughput over time of every traced configuration: one figure per value of
    `by`, one line per configuration (named by the axes that vary within the figure)."""
    import pandas as pd

    traced = []
    for folder in sorted(p for p in points.iterdir() if p.is_dir()):
        params = json.loads((folder / "configuration.json").read_text())
        flows = pd.read_parquet(folder / "flow_series.parquet")
        total = flows.groupby("time_s", sort=True)["throughput_bps"].sum() / 1e6
        traced.append((params, total))
    figures = []
    for value in dict.fromkeys(str(params.get(by)) for params, _ in traced):
        group = [(params, total) for params, total in traced if str(params.get(by)) == value]
        keys = [k for k in group[0][0] if k != by and len({str(p.get(k)) for p, _ in group}) > 1]
        fig = _new_figure()
        ax = fig.add_subplot()
        for params, total in group:
            # The distinct values that set this configuration apart ("reno", "reno + sack").
            name = " + ".join(dict.fromkeys(str(params[k]) for k in keys if params[k] is not None)) or value
            ax.step(total.index, total.to_numpy(), where="post", label=name, linewidth=1.0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("total TCP throughput (Mbps)")
        ax.legend(fontsize=7)
        figures.append((f"Total TCP throughput over time: {value} (replication 0 of each)", fig))
    return figures


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


def _table(comparison: pd.DataFrame, axes: list[str]) -> str:
    from congsim.studies.judge import uncounted_label

    columns = [*axes, "metric", "reference", "mean", "ci_low", "ci_high", "band_low", "band_high", "verdict"]
    if "ns2_verdict" in comparison:
        # paper | ns-2.35 on the same set-up | ours, then ours against ns-2 (judge.add_ns2).
        at = columns.index("mean")
        columns[at:at] = ["ns2_mean", "ns2_ci_low", "ns2_ci_high", "ns2_n"]
        columns += ["ns2_verdict", "difference"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = []
    for row in comparison.to_dict("records"):
        cells = []
        for c in columns:
            value = row[c]
            text = f"{value:.4g}" if isinstance(value, float) else str(value)
            if c in ("ns2_n", "difference") and _axis_value(value) == "":
                text = ""
            css = f' class="{value}"' if c in ("verdict", "ns2_verdict") else ""
            if c == "verdict" and uncounted_label(row.get("scored")):
                text += f" ({uncounted_label(row.get('scored'))})"
            cells.append(f"<td{css}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _axis_value(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def _column_title(column: tuple[str, str], one_metric: bool, one_value: bool) -> str:
    """A paper-shaped table's column heading: its axis value, its metric, or both."""
    value, metric = column
    if one_value or not value:
        return metric
    return value if one_metric else f"{value} · {metric}"


def _paper_cell(cell: dict[Any, Any] | None) -> str:
    """The paper's number over ours with its 95 % CI, coloured by the verdict."""
    from congsim.studies.judge import uncounted_label

    if cell is None:
        return "<td></td>"
    verdict = html.escape(str(cell["verdict"]))
    ours = f"{float(cell['mean']):.3g} [{float(cell['ci_low']):.3g}, {float(cell['ci_high']):.3g}]"
    label = uncounted_label(cell.get("scored"))
    shown = f" ({label})" if label else ""
    ns2 = ""
    if "ns2_verdict" in cell and _axis_value(cell.get("ns2_mean")) not in ("", "nan"):
        # ns-2.35 on the same set-up between the paper's number and ours, and what a
        # difference from the paper is (judge.add_ns2).
        difference = _axis_value(cell.get("difference"))
        shown += f"; {difference}" if difference else ""
        ns2 = (
            f'<span class="meta">ns-2 {float(cell["ns2_mean"]):.3g} '
            f"(ours: {html.escape(str(cell['ns2_verdict']))})</span><br>"
        )
    return (
        f'<td class="{verdict}" title="{verdict}">{float(cell["reference"]):.4g}<br>{ns2}'
        f'<span class="meta">{html.escape(ours)}{html.escape(shown)}</span></td>'
    )


def _paper_tables(comparison: pd.DataFrame, layout: tuple[str, str | None], anchor: str) -> str:
    """Each reference table laid out as the paper prints it: a row per value of the row axis, a
    column per value of the column axis (and metric, where a table prints several), each cell
    the paper's number over ours with its 95 % CI, coloured by the verdict."""
    import re

    row_axis, column_axis = layout
    out = []
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
        titles = "".join(f"<th>{html.escape(_column_title(c, one_metric, one_value))}</th>" for c in columns)
        body = "".join(
            f'<tr><td style="text-align:left">{html.escape(row)}</td>'
            + "".join(_paper_cell(cells.get((row, column))) for column in columns)
            + "</tr>"
            for row in rows
        )
        name = str(table_id)
        heading = f"Table {name[1:]}" if name[:1] == "T" and name[1:].isdigit() else name
        element_id = html.escape(f"{anchor}-table-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-"))
        out.append(
            f'<h3 id="{element_id}">{html.escape(heading)}</h3>'
            f"<table><thead><tr><th>{html.escape(row_axis)}</th>{titles}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
    if not out:
        return ""
    legend = (
        '<p class="meta">Each cell: the paper\'s number, then ours with its 95 % CI; green agrees '
        "(the CI inside the band), amber inconclusive, red differs.</p>"
    )
    if "ns2_verdict" in comparison:
        legend += (
            '<p class="meta">Between them, ns-2.35 run on the same set-up (its mean over its own '
            "replications) and whether ours agree with it under the same band rule. A difference "
            "from the paper that ns-2 shows too is marked set-up (the paper's unstated set-up or "
            "simulator version), one only ours show model question.</p>"
        )
    return legend + "".join(out)


def _variants_list(folder: Path, study: Study | None) -> str:
    """The study's variants (other set-ups run beside the default): what each changes, why,
    and how it scores, with links to its tables."""
    import pandas as pd

    from congsim.studies.judge import scored_rows
    from congsim.studies.score import claim_origins

    root = folder / "variants"
    if study is None or not root.is_dir():
        return ""
    items = []
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
                f"{int(counts.get('agrees', 0))} of {len(scored)} values agree, "
                f"{int(counts.get('inconclusive', 0))} inconclusive, {int(counts.get('differs', 0))} differ"
            )
        base = f"{html.escape(folder.name)}/variants/{html.escape(variant.name)}"
        links = f'<a href="{base}/comparison.csv">comparison.csv</a>'
        if (where / "claims.csv").exists():
            claims = pd.read_csv(where / "claims.csv")
            paper = claims[claim_origins(claims) == "paper"]
            said.append(
                f"{int((paper['verdict'] == 'holds').sum())} of {len(paper)} claims of the paper hold"
            )
            links += f', <a href="{base}/claims.csv">claims.csv</a>'
        changes = ", ".join(f"{path} = {json.dumps(value)}" for path, value in variant.overrides.items())
        items.append(
            f"<li><b>{html.escape(variant.name)}</b> ({html.escape(changes)}): "
            f"{html.escape('; '.join(said))}. "
            f'<span class="meta">{html.escape(variant.why)} Tables: {links}.</span></li>'
        )
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _claims_table(claims: pd.DataFrame) -> str:
    columns = ("claim", "left side (95 % CI)", "right side (95 % CI)", "ratio (95 % CI)", "verdict")
    head = "".join(f"<th>{c}</th>" for c in columns)
    rows = []
    for row in claims.to_dict("records"):
        lhs = f"{row['factor']:g} x {row['lhs_mean']:.4g} [{row['lhs_ci_low']:.4g}, {row['lhs_ci_high']:.4g}]"
        rhs = f"{row['rhs_mean']:.4g} [{row['rhs_ci_low']:.4g}, {row['rhs_ci_high']:.4g}]"
        ratio = f"{row['ratio']:.3g} [{row['ratio_ci_low']:.3g}, {row['ratio_ci_high']:.3g}]"
        css = "agrees" if row["verdict"] == "holds" else "differs"
        sides = f"{html.escape(str(row['lhs']))} vs {html.escape(str(row['rhs']))}"
        said = ""
        if isinstance(row.get("source"), str) and row["source"]:
            said = f'<br><span class="meta">&ldquo;{html.escape(row["source"])}&rdquo;</span>'
        if row["verdict"] != "holds" and isinstance(row.get("note"), str) and row["note"]:
            said += f'<br><span class="meta">note: {html.escape(row["note"])}</span>'
        cells = [
            f'<td style="text-align:left">{html.escape(str(row["claim"]))}<br>'
            f'<span class="meta">{sides}</span>{said}</td>',
            f"<td>{html.escape(lhs)}</td>",
            f"<td>{html.escape(rhs)}</td>",
            f"<td>{html.escape(ratio)}</td>",
            f'<td class="{css}">{html.escape(str(row["verdict"]))}</td>',
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _study_section(folder: Path, study: Study | None) -> tuple[str, str]:
    """One study: the reference comparison and its figures, the claims, the notes, the traces;
    and its row of the summary at the top."""
    import pandas as pd

    from congsim.studies.judge import baseline_score, ns2_score, scored_rows
    from congsim.studies.score import claim_origins

    comparison = pd.read_csv(folder / "comparison.csv", dtype=str)
    for c in ("reference", "mean", "ci_low", "ci_high", "band_low", "band_high"):
        comparison[c] = comparison[c].astype(float)
    for c in ("ns2_mean", "ns2_ci_low", "ns2_ci_high", "ns2_n"):
        if c in comparison:
            comparison[c] = comparison[c].astype(float)
    axes = list(json.loads((folder / "plan.json").read_text())["runs"][0]["params"])
    title = study.title if study else folder.name
    anchor = f"study-{folder.name}"
    parts = [f'<section id="{html.escape(anchor)}"><h2>{html.escape(folder.name)}: {html.escape(title)}</h2>']
    # The section's own contents, filled in as its parts are known.
    contents: list[tuple[str, str]] = []
    values_text = claims_text = "none"
    baseline_text = "none"
    ns2_text = "none"
    figures: list[tuple[str, Figure]] = []
    if not comparison.empty:
        # The axes the reference names its configurations by.
        axes = [a for a in axes if comparison[a].fillna("").astype(str).str.len().gt(0).any()]
        scored = scored_rows(comparison)
        agree = int((scored["verdict"] == "agrees").sum())
        inconclusive = int((scored["verdict"] == "inconclusive").sum())
        values_text = f"{agree} of {len(scored)} agree, {inconclusive} inconclusive"
        source = html.escape(str(comparison["source"].iloc[0]))
        baseline = ""
        if "baseline_within_table_agrees" in comparison:
            # The trivial predictors' scores on the same bands (studies.judge.add_baselines).
            score = baseline_score(comparison)
            constant = score.constant
            baseline_text = f"{constant} of {score.compared}, table {score.within_table}"
            baseline = (
                f" A constant at each metric's reference mean, as precise as ours, agrees on {constant}, "
                f"the mean of the table's other cells on {score.within_table}"
            )
            if "baseline_variant_agrees" in comparison:
                per_variant = score.variant
                baseline_text += f", per variant {per_variant}"
                baseline += f", one constant per variant {per_variant}"
            informative = ", ".join(score.informative) or "none"
            baseline_text += f"; informative: {informative}"
            baseline += f". Metric families where ours are clearly ahead of both: {informative}."
            baseline += "".join(
                f" {f.metric}: one value lies in every band, so it is judged by order: {f.in_order} "
                f"pairs of a table's cells in the paper's order, {f.reversed} reversed."
                for f in score.families
                if f.flat
            )
        second = ns2_score(comparison)
        if second is not None:
            ns2_text = (
                f"{second.agrees} of {second.compared} agree; differences from the paper: "
                f"{second.setup} set-up, {second.model_questions} model question"
            )
            baseline += (
                f" Against {second.version} run on the same set-up (its own replications, the same "
                f"band rule around its mean) ours agree on {second.agrees} of {second.compared}, "
                f"{second.inconclusive} inconclusive, {second.differs} differ; of the values that "
                f"differ from the paper, {second.setup} differ in ns-2 alike (the set-up's) and "
                f"{second.model_questions} only here (a model question)."
            )
        contents.append((f"{anchor}-values", "reference values"))
        parts.append(
            f'<p id="{html.escape(anchor)}-values">{agree} of {len(scored)} values agree (the 95 % CI '
            f"inside the band), {inconclusive} inconclusive (the CI across an edge of the band)."
            f"{html.escape(baseline)} "
            f'<span class="meta">Reference: {source}; table as '
            f'<a href="{html.escape(folder.name)}/comparison.csv">comparison.csv</a></span></p>'
        )
        shaped = ""
        if study is not None and study.layout is not None and "table" in comparison:
            shaped = _paper_tables(comparison, study.layout, anchor)
        if shaped:
            # The paper's tables as printed, then every row in one long table, folded.
            parts.append(
                shaped + "<details><summary>Every compared value in one table</summary>"
                f"{_table(comparison, axes)}</details>"
            )
        else:
            parts.append(_table(comparison, axes))
        figures += [
            (f"{m} against the reference", metric_figure(comparison, axes, m))
            for m in dict.fromkeys(comparison["metric"])
        ]
    if (folder / "claims.csv").exists():
        claims = pd.read_csv(folder / "claims.csv")
        origins = claim_origins(claims)
        texts = []
        contents.append((f"{anchor}-claims", "claims"))
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
            element_id = f' id="{html.escape(anchor)}-claims"' if origin == "paper" or len(texts) == 1 else ""
            parts.append(
                f"<p{element_id}>{holding} of {len(part)} {label} hold with 95 % confidence (paired over "
                "replications, which share their random streams); "
                f'table as <a href="{html.escape(folder.name)}/claims.csv">claims.csv</a>.</p>'
                + _claims_table(part)
            )
        claims_text = "; ".join(texts)
    variants = _variants_list(folder, study)
    if variants:
        contents.append((f"{anchor}-variants", "variants"))
        parts.append(f'<h3 id="{html.escape(anchor)}-variants">Variants</h3>{variants}')
    if study is not None and study.notes:
        parts.append(f'<p class="meta">{html.escape(study.notes)}</p>')
    if (folder / "traces" / "flow_series.parquet").exists():
        figures += trace_figures(folder / "traces")
    if study is not None and study.trace_points_by and (folder / "traces" / "points").is_dir():
        figures += point_figures(folder / "traces" / "points", study.trace_points_by)
    blocks = "".join(
        f'<div class="figure"><h3>{html.escape(caption)}</h3>{_svg(fig)}</div>' for caption, fig in figures
    )
    if figures:
        contents.append((f"{anchor}-figures", "figures"))
    parts.append(f'<div class="figures" id="{html.escape(anchor)}-figures">{blocks}</div></section>')
    links = " · ".join(f'<a href="#{html.escape(target)}">{text}</a>' for target, text in contents)
    parts.insert(
        1, f'<p class="meta">In this section: {links} · <a href="#summary">back to the summary</a></p>'
    )
    summary = (
        f'<tr><td style="text-align:left"><a href="#{html.escape(anchor)}">'
        f'{html.escape(folder.name)}</a></td><td style="text-align:left">{html.escape(title)}</td>'
        f"<td>{html.escape(values_text)}</td><td>{html.escape(baseline_text)}</td>"
        f"<td>{html.escape(claims_text)}</td><td>{html.escape(ns2_text)}</td></tr>"
    )
    return "".join(parts), summary


def build_report(directory: str | Path, output: str | Path | None = None) -> Path:
    """Writes the report for every study folder in `directory` (default: `report.html` there)."""
    import matplotlib as mpl

    from congsim.studies import STUDIES

    directory = Path(directory)
    folders = sorted(p.parent for p in directory.glob("*/comparison.csv"))
    if not folders:
        raise FileNotFoundError(f"{directory}: no reproduced studies here (run congsim reproduce first)")
    sections = []
    summaries = []
    with mpl.rc_context(STYLE):
        for folder in folders:
            section, summary = _study_section(folder, STUDIES.get(folder.name))
            sections.append(section)
            summaries.append(summary)
    head = "".join(
        f"<th>{c}</th>"
        for c in (
            "study",
            "paper",
            "reference values",
            "trivial baselines agree",
            "claims (95 % confidence)",
            "against ns-2.35 on the same set-up",
        )
    )
    summary_table = (
        '<nav id="summary"><h2>Summary</h2><table class="summary"><thead><tr>'
        f"{head}</tr></thead><tbody>{''.join(summaries)}</tbody></table></nav>"
    )
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>congsim report</title><style>{CSS}</style></head><body>"
        f'<h1>congsim report</h1><p class="meta">{html.escape(str(directory))}, written {stamp}</p>'
        + summary_table
        + "".join(sections)
        + "</body></html>\n"
    )
    target = Path(output) if output is not None else directory / "report.html"
    target.write_text(page, encoding="utf-8")
    return target
