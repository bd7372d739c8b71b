"""The `congsim` command: run, sweep, validate and schema.

User mistakes (a bad scenario, an unwritable folder) end with one line `error: ...` and exit
status 2, never a traceback. Heavy imports (pandas, pyarrow, rich tables) happen inside the
commands that need them, so `congsim --help` and `congsim validate` start fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from congsim._core import ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

app = typer.Typer(
    name="congsim",
    help="A fast, deterministic simulator of TCP congestion control over IP and ATM networks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    out: Annotated[
        Path | None, typer.Option(help="Write every table as Parquet and CSV into this folder.")
    ] = None,
    replication: Annotated[int, typer.Option(help="Replication index (selects the random streams).")] = 0,
) -> None:
    """Run a scenario and print a per-flow summary."""
    import congsim

    try:
        scenario = congsim.load(file)
        results = congsim.run(scenario, replication)
    except (ScenarioError, OverflowError) as e:
        _fail(str(e))
    _print_summary(scenario.name, results)
    if out is not None:
        try:
            written = results.write(out)
        except OSError as e:
            _fail(f"{out}: cannot write results: {e.strerror or e}")
        typer.echo(f"wrote {len(written)} files to {out}")


def _print_summary(name: str, results: object) -> None:
    from rich.console import Console
    from rich.table import Table

    from congsim.results import Results

    assert isinstance(results, Results)
    flows = results.flows
    table = Table(title=f"{name}: flows")
    for column in ("flow", "variant", "profile", "goodput Mbps", "timeouts", "fast retx", "retx pkts"):
        table.add_column(column, justify="left" if column in ("flow", "variant", "profile") else "right")
    for row in flows.to_dict("records"):
        table.add_row(
            str(row["flow"]),
            str(row["variant"]),
            str(row["profile"]),
            f"{float(row['goodput_bps']) / 1e6:.3f}",
            str(row["timeouts"]),
            str(row["fast_retransmits"]),
            str(row["retx_pkts"]),
        )
    console = Console()
    if len(flows):
        console.print(table)
    s = results.summary.iloc[0]
    efficiency = "" if s["efficiency"] != s["efficiency"] else f"  efficiency {s['efficiency']:.4f}"
    if len(flows):
        console.print(
            f"total goodput {s['total_goodput_bps'] / 1e6:.3f} Mbps{efficiency}  Jain {s['jain_index']:.4f}"
            f"  CoV {s['cov']:.4f}  timeouts {s['timeouts']}"
        )
    if "cbr" in results.names:
        cbr = results.cbr
        console.print(
            f"{len(cbr)} CBR sources: {cbr['throughput_bps'].sum() / 1e6:.3f} Mbps delivered, "
            f"{int(cbr['packets_dropped'].sum())} packets dropped"
        )
    if "transfers" in results.names:
        console.print(
            f"{int(s['transfers_measured'])} transfers measured, {int(s['transfers_completed'])} completed: "
            f"mean {s['transfer_timeouts_mean']:.3f} RTOs, RTT {s['transfer_rtt_mean_s'] * 1e3:.1f} ms, "
            f"bandwidth {s['transfer_bandwidth_mean_bps'] / 1e3:.1f} kbps"
        )
    console.print(f"drops {s['drops']}  events {s['events']}")


@app.command()
def sweep(
    plan: Annotated[
        Path, typer.Argument(help="Sweep plan (TOML): base scenario, [set], [axes], replications.")
    ],
    out: Annotated[
        Path | None, typer.Option(help="Results store (default: sweeps/<plan name>). Reused to resume.")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Parallel runs (default: all cores).")] = None,
    executor: Annotated[str, typer.Option(help="Where runs execute: local (processes) or dask.")] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (tcp://host:8786) for --executor dask.")
    ] = None,
) -> None:
    """Run every configuration and replication of a plan, resuming where a previous run stopped."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from congsim.sweep import PlanError, SchedulerError, load_plan, run_sweep

    if executor not in ("local", "dask"):
        _fail(f"--executor {executor!r}: allowed values are local, dask")
    if (executor == "dask") != (scheduler is not None):
        _fail("--executor dask needs --scheduler ADDRESS, and --scheduler needs --executor dask")
    try:
        loaded = load_plan(plan)
    except PlanError as e:
        _fail(str(e))
    store = out if out is not None else Path("sweeps") / loaded.name
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task(loaded.name, total=len(loaded.runs()))

        def update(done: int, total: int, failed: int) -> None:
            label = f"{loaded.name} ({failed} failed)" if failed else loaded.name
            progress.update(task, completed=done, total=total, description=label)

        try:
            outcome = run_sweep(loaded, store, workers, on_progress=update, scheduler=scheduler)
        except SchedulerError as e:
            _fail(str(e))
        except OSError as e:
            _fail(f"{store}: cannot write the results store: {e.strerror or e}")
    stats = outcome.statistics() if outcome.runs else None
    if stats is not None and not stats.empty:
        stats.to_csv(store / "statistics.csv", index=False)
    typer.echo(
        f"{len(outcome.runs)} runs ({outcome.executed} run now, {len(outcome.runs) - outcome.executed} "
        f"already stored) in {store}"
    )
    if outcome.failures:
        first = next(iter(outcome.failures.items()))
        _fail(f"{len(outcome.failures)} runs failed (see {store}/runs/*.error.txt); first: {first[1]}")


@app.command()
def reproduce(
    study: Annotated[str, typer.Argument(help="A registered study, or all.")],
    out: Annotated[
        Path, typer.Option(help="Results folder; one sub-folder per study, reused to resume.")
    ] = Path("reproductions"),
    replications: Annotated[int | None, typer.Option(help="Replications (default: the study's).")] = None,
    workers: Annotated[int | None, typer.Option(help="Parallel runs (default: all cores).")] = None,
) -> None:
    """Run registered studies: each reference value beside ours (CI, band, verdict), and each
    claim of the paper checked with 95 % confidence."""
    from rich.console import Console

    from congsim.studies import STUDIES
    from congsim.studies import reproduce as reproduce_study

    if study != "all" and study not in STUDIES:
        _fail(f"unknown study {study!r}; registered studies are: all, {', '.join(STUDIES)}")
    if replications is not None and replications < 1:
        _fail("--replications must be at least 1")
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and CI: keep table rows on one line
    for entry in STUDIES.values() if study == "all" else [STUDIES[study]]:
        console.rule(f"{entry.name}: {entry.title}")
        if entry.pending is not None:
            console.print(f"not reproducible yet: {entry.pending}")
            continue
        try:
            result = reproduce_study(entry, out, replications, workers)
        except OSError as e:
            _fail(f"{out / entry.name}: cannot write results: {e.strerror or e}")
        if result.failures:
            _fail(f"{len(result.failures)} runs failed (see {result.folder}/runs/*.error.txt)")
        _print_comparison(console, result.comparison, result.axes)
        if result.claims is not None and not result.claims.empty:
            _print_claims(console, result.claims)
        if entry.notes:
            console.print(entry.notes)


def _print_comparison(console: Console, comparison: pd.DataFrame, axes: list[str]) -> None:
    """The reference values beside ours, with the CI, the agreement band and the verdict."""
    from rich.table import Table

    if comparison.empty:
        return
    # The axes the reference names its configurations by.
    axes = [a for a in axes if comparison[a].fillna("").astype(str).str.len().gt(0).any()]
    table = Table(show_lines=False)
    # Axis labels: the last part of the field path (links[0].queue.limit_packets: limit_packets).
    short = [a.split(".")[-1] for a in axes]
    labels = [a if short.count(name) > 1 else name for a, name in zip(axes, short, strict=True)]
    for column in [*labels, "metric", "reference", "ours (95% CI)", "band", "verdict"]:
        table.add_column(column, justify="right" if column in ("reference", "band") else "left", no_wrap=True)
    for row in comparison.to_dict("records"):
        ours = f"{row['mean']:.4g} [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"
        band = f"{row['band_low']:.4g}..{row['band_high']:.4g}"
        cells = [str(row[a]) for a in axes]
        table.add_row(*cells, str(row["metric"]), f"{row['reference']:.4g}", ours, band, str(row["verdict"]))
    console.print(table)
    agreeing = int((comparison["verdict"] == "agrees").sum())
    source = comparison["source"].iloc[0]
    console.print(f"{agreeing} of {len(comparison)} values inside the band; reference: {source}")


def _print_claims(console: Console, claims: pd.DataFrame) -> None:
    """Each claim with both sides' mean and 95 % CI and whether it holds."""
    from rich.table import Table

    table = Table(show_lines=False)
    for column in ("claim", "left side (95% CI)", "right side (95% CI)", "ratio (95% CI)", "verdict"):
        table.add_column(column)
    for row in claims.to_dict("records"):
        lhs = f"{row['factor']:g} x {row['lhs_mean']:.4g} [{row['lhs_ci_low']:.4g}, {row['lhs_ci_high']:.4g}]"
        rhs = f"{row['rhs_mean']:.4g} [{row['rhs_ci_low']:.4g}, {row['rhs_ci_high']:.4g}]"
        ratio = f"{row['ratio']:.3g} [{row['ratio_ci_low']:.3g}, {row['ratio_ci_high']:.3g}]"
        table.add_row(str(row["claim"]), lhs, rhs, ratio, str(row["verdict"]))
    console.print(table)
    holding = int((claims["verdict"] == "holds").sum())
    console.print(
        f"{holding} of {len(claims)} claims hold with 95 % confidence "
        "(paired over replications: the configurations share their random streams)"
    )


@app.command()
def report(
    directory: Annotated[Path, typer.Argument(help="A folder written by congsim reproduce.")],
    out: Annotated[Path | None, typer.Option(help="The HTML file (default: DIR/report.html).")] = None,
) -> None:
    """Write one self-contained HTML report (tables, verdicts, figures) for reproduced studies."""
    from congsim.report import build_report

    try:
        path = build_report(directory, out)
    except FileNotFoundError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{out or directory}: cannot write the report: {e.strerror or e}")
    typer.echo(f"wrote {path}")


@app.command("plot-sequence")
def plot_sequence(
    directory: Annotated[Path, typer.Argument(help="A folder written by congsim run --out.")],
    flow: Annotated[str, typer.Option(help="The flow to draw.")],
    out: Annotated[
        Path | None, typer.Option(help="The figure (.svg, .png, .pdf; default DIR/sequence-FLOW.svg).")
    ] = None,
) -> None:
    """Draw the classic time-sequence figure of one flow from a run's sequence trace."""
    from congsim.report import write_sequence_figure

    try:
        path = write_sequence_figure(directory, flow, out)
    except (FileNotFoundError, KeyError) as e:
        _fail(str(e).strip("'\""))
    except (OSError, ValueError) as e:
        _fail(f"{out or directory}: cannot write the figure: {e}")
    typer.echo(f"wrote {path}")


@app.command()
def validate(file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")]) -> None:
    """Check a scenario file; report the first problem with its field path."""
    from congsim import _core

    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        _fail(f"{file}: cannot read the file: {e.strerror or e}")
    try:
        description = _core.validate(text, str(file))
    except ScenarioError as e:
        _fail(str(e))
    typer.echo(f"{file}: ok ({description})")


@app.command()
def schema(
    out: Annotated[Path | None, typer.Option(help="Write the schema here instead of printing it.")] = None,
) -> None:
    """Print the JSON Schema of the scenario format (for editors)."""
    from congsim import _core

    text = _core.schema()
    if out is None:
        typer.echo(text)
        return
    try:
        out.write_text(text + "\n", encoding="utf-8")
    except OSError as e:
        _fail(f"{out}: cannot write: {e.strerror or e}")


def main() -> None:
    """Entry point of the `congsim` console script."""
    sys.exit(app())
