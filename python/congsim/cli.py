"""The `congsim` command: run, sweep, reproduce, report, plot-sequence, validate, show and schema.

User mistakes (a bad scenario, an unwritable folder) end with one line `error: ...` and exit
status 2, never a traceback. Heavy imports (pandas, pyarrow, rich tables) happen inside the
commands that need them, so `congsim --help` and `congsim validate` start fast. The command
line is Click's: Typer, which we used first, imports pydantic to coerce arguments, which cost
0.1 s on every start.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from congsim import _interrupts
from congsim._core import ScenarioError
from congsim.ns2import.command import import_ns2
from congsim.scenario import printable

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from congsim.studies.run import StudyOutcome


class _NonEmptyPath(click.Path):
    """A path that is not the empty string (which `Path` would read as the current folder)."""

    def convert(
        self, value: str | os.PathLike[str], param: click.Parameter | None, ctx: click.Context | None
    ) -> str | bytes | os.PathLike[str]:
        if value == "":
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)


_PATH = _NonEmptyPath(path_type=Path)
#: Worker processes: 1 runs in this process; more than a machine could start is refused.
_WORKERS = click.IntRange(1, 4096)
#: Replications of a study on the command line (a study's runs are bounded by `plan_runs` too).
MAX_REPLICATIONS = 100_000


class _CommandsInOrder(click.Group):
    """Lists the commands in the order they are defined (run first), not alphabetically. A
    Ctrl-C while the command line is read or a command runs ends here (`_interrupted`), before
    Click turns it into a blank line and `Aborted!` with status 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            _stopped()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _stopped()


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`: `congsim <version> (<commit>)`, the commit the native module was built from."""
    if not value or ctx.resilient_parsing:
        return
    import congsim
    from congsim import _core

    # crates/congsim-py/build.rs bakes the commit in; a native module built before it has none
    # (rebuilding it, scripts/install.sh, adds it).
    commit = getattr(_core, "BUILD_COMMIT", "unknown")
    click.echo(f"congsim {congsim.__version__} ({commit})")
    ctx.exit()


@click.group(
    name="congsim",
    cls=_CommandsInOrder,
    help="A fast, deterministic simulator of TCP congestion control over IP and ATM networks.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the version and the commit it was built from, and exit.",
)
def app() -> None:
    pass


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(2)


def _read_set(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, Any]:
    """`--set FIELD=VALUE` as overrides: a TOML value (`25`, `["a"]`); a bare word or a date, text."""
    import importlib

    tomllib = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    overrides: dict[str, Any] = {}
    for setting in values:
        path, equals, text = (part.strip() for part in setting.partition("="))
        if not (equals and path and text):
            raise click.BadParameter(f"{setting!r}: write FIELD=VALUE (e.g. tcp.variant=tahoe)")
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError as e:
            if text[0] in "[{\"'":
                raise click.BadParameter(f"{setting!r}: {text} is not a TOML value ({e})") from None
            value = text
        overrides[path] = value if isinstance(value, str | int | float | list | dict) else text
    return overrides


_SET = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="FIELD=VALUE",
    callback=_read_set,
    help="Override a field: tcp.variant=tahoe, links[0].queue.limit_packets=25 (TOML). Repeatable.",
)


@app.command()
@click.argument("file", type=_PATH)
@click.option("--out", type=_PATH, help="Write every table as Parquet and CSV into this folder.")
@click.option(
    "--replication",
    type=click.IntRange(0, 2**32 - 1),
    default=0,
    show_default=True,
    help="Replication index (selects the random streams).",
)
@_SET
def run(file: Path, out: Path | None, replication: int, overrides: dict[str, Any]) -> None:
    """Run the scenario FILE (TOML) and print a per-flow summary."""
    import congsim

    try:
        scenario = congsim.load(file, overrides)
    except ValueError as e:  # ScenarioError, or an override no scenario can hold
        _fail(str(e))
    if out is not None:
        # Before the run: a bad --out must not cost the simulation.
        _check_writable_folder(out)
    _on_interrupt(lambda: "the run was stopped; nothing was written")
    with _simulated_time_bar(scenario.name) as progress:
        try:
            results = congsim.run(scenario, replication, progress=progress)
        except (ScenarioError, OverflowError) as e:
            _fail(str(e))
    _print_warnings([f"{file}: {w}" for w in results.warnings])
    _print_summary(scenario.name, results)
    if out is not None:
        # `Results.write` puts every file in place at once (a Ctrl-C meanwhile waits for it):
        # a new file under the first name says it did.
        first = out / f"{results.names[0]}.parquet"
        before = _identity(first)
        _on_interrupt(
            lambda: (
                f"the results are written to {out}"
                if _identity(first) != before
                else "the run was stopped; nothing was written"
            )
        )
        try:
            written = results.write(out)
        except OSError as e:
            _fail(f"{out}: cannot write results: {e.strerror or e}")
        click.echo(f"wrote {len(written)} files to {out}")


def _identity(path: Path) -> tuple[int, int] | None:
    """The file at `path` (device and inode), if there is one."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _check_writable_folder(folder: Path) -> None:
    """Checks that files can be written where the results will go (an existing folder such as
    /sys/kernel may refuse files), so that the run is not lost at the end: into `folder` when
    it exists, else beside it, in its parent (created if needed). `folder` itself is not
    created: it appears with the results (`Results.write`), so an interrupted run leaves none."""
    import errno
    import tempfile

    try:
        where = folder if folder.is_dir() else folder.parent
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as e:
        _fail(f"{folder}: cannot write results: {e.strerror or e}")


def _interrupted(what: str) -> NoReturn:
    """Ctrl-C: one line saying what was kept, and the shell's status for SIGINT (130).

    Leaves at once (`congsim._interrupts.leave`, `os._exit`): every finished run is already
    stored, and a normal exit joins the process pool's result thread, which waits forever when
    a worker was ended half-way through sending its result (the pipe keeps a partial message)."""
    _interrupts.leave(printable(what))


def _stopped() -> NoReturn:
    """Ctrl-C stopped the command: `_interrupted` with what the command says it kept (a
    second Ctrl-C while that is worked out is ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _interrupted(_if_interrupted())


def _default_note() -> str:
    return "the command was stopped before it finished"


#: What `interrupted: ...` says should Ctrl-C stop the command now (`_on_interrupt`).
_if_interrupted: Callable[[], str] = _default_note
#: Set by `_ctrl_c`: a Ctrl-C reached this process, even if some library swallowed the
#: `KeyboardInterrupt` it raised.
_ctrl_c_seen = False


def _on_interrupt(say: Callable[[], str]) -> None:
    """What `interrupted: ...` says, should Ctrl-C stop the command from now on: each command
    tells what it has kept as it goes."""
    global _if_interrupted
    _if_interrupted = say


def _ctrl_c(signum: int, frame: object) -> None:
    """SIGINT: `KeyboardInterrupt`, as Python's own handler, and remembered."""
    global _ctrl_c_seen
    _ctrl_c_seen = True
    raise KeyboardInterrupt


def _take_ctrl_c() -> None:
    """From here on, a Ctrl-C is never lost: `_ctrl_c` remembers it, and one that lands in a
    finalizer (a `__del__` or weakref callback, where Python prints a traceback and drops the
    exception) is sent again, from another thread so that it arrives once the finalizer is
    done. Not when the command started with Ctrl-C ignored (`nohup`, a shell's background job)."""
    import _thread
    import threading

    if callable(signal.getsignal(signal.SIGINT)):
        signal.signal(signal.SIGINT, _ctrl_c)
    previous = sys.unraisablehook

    def again() -> None:
        # A real signal to the main thread: it also wakes a wait for the next finished run.
        main = threading.main_thread().ident
        if hasattr(signal, "pthread_kill") and main is not None:
            signal.pthread_kill(main, signal.SIGINT)
        else:
            _thread.interrupt_main()

    def unraisable(report: Any) -> None:
        if isinstance(report.exc_value, KeyboardInterrupt):
            threading.Thread(target=again, daemon=True, name="ctrl-c-again").start()
        else:
            previous(report)

    sys.unraisablehook = unraisable


def _print_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {printable(warning)}", err=True)


@contextmanager
def _simulated_time_bar(name: str) -> Iterator[Callable[[float, float], None]]:
    """A progress bar over simulated time with an ETA, on a terminal only (logs stay clean)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.3g} of {task.total:.3g} simulated s"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not console.is_terminal, transient=True) as progress:
        task = progress.add_task(name, total=None)

        def update(simulated_s: float, duration_s: float) -> None:
            progress.update(task, completed=simulated_s, total=duration_s)

        yield update


@contextmanager
def _runs_bar(name: str) -> Iterator[Callable[[int, int, int], None]]:
    """A progress bar over the runs of a sweep or study with an ETA, on a terminal only."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task(name, total=None)

        def update(done: int, total: int, failed: int) -> None:
            label = f"{name} ({failed} failed)" if failed else name
            progress.update(task, completed=done, total=total, description=label)

        yield update


#: Flows listed by `congsim run` (a 10 000-flow dumbbell would print 10 000 rows).
SHOWN_FLOWS = 20


def _print_summary(name: str, results: object) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from congsim.results import Results

    assert isinstance(results, Results)
    flows = results.flows
    # Names as plain text: rich would take "[red]" in a flow's name for markup.
    table = Table(title=Text(f"{name}: flows"))
    for column in ("flow", "variant", "profile", "goodput Mbps", "timeouts", "fast retx", "retx pkts"):
        table.add_column(column, justify="left" if column in ("flow", "variant", "profile") else "right")
    for row in flows.head(SHOWN_FLOWS).to_dict("records"):
        table.add_row(
            Text(str(row["flow"])),
            str(row["variant"]),
            str(row["profile"]),
            f"{float(row['goodput_bps']) / 1e6:.3f}",
            str(row["timeouts"]),
            str(row["fast_retransmits"]),
            str(row["retx_pkts"]),
        )
    if len(flows) > SHOWN_FLOWS:
        table.caption = (
            f"the first {SHOWN_FLOWS} of {len(flows)} flows; every flow is in the flows table (--out)"
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
@click.argument("plan", type=_PATH)
@click.option("--out", type=_PATH, help="Results store (default: sweeps/<plan name>). Reused to resume.")
@click.option("--workers", type=_WORKERS, help="Parallel runs, at least 1 (default: all cores).")
@click.option(
    "--executor", default="local", show_default=True, help="Where runs execute: local (processes) or dask."
)
@click.option(
    "--scheduler",
    help="Dask scheduler address (tcp://host:8786, or HOST:PORT) for --executor dask; "
    "CONGSIM_DASK_TIMEOUT seconds to connect (default 5).",
)
def sweep(plan: Path, out: Path | None, workers: int | None, executor: str, scheduler: str | None) -> None:
    """Run every configuration and replication of the sweep PLAN (TOML: base scenario, [set],
    [axes], replications), resuming where a previous run stopped."""
    from congsim.sweep import PlanError, SchedulerError, load_plan, run_sweep

    if executor not in ("local", "dask"):
        _fail(f"--executor {executor!r}: allowed values are local, dask")
    if (executor == "dask") != (scheduler is not None):
        _fail("--executor dask needs --scheduler ADDRESS, and --scheduler needs --executor dask")
    if scheduler is not None:
        # Before the store is touched: a bad address or deadline leaves nothing behind.
        from congsim.sweep.dask_address import parse_scheduler_address, timeout_seconds

        try:
            parse_scheduler_address(scheduler)
            timeout_seconds()
        except SchedulerError as e:
            _fail(str(e))
    try:
        loaded = load_plan(plan)
    except PlanError as e:
        _fail(str(e))
    _print_warnings(list(loaded.warnings))
    store = out if out is not None else Path("sweeps") / loaded.name

    def kept() -> str:
        stored = len(list((store / "runs").glob("*.parquet")))
        return (
            f"{stored} of {len(loaded.runs())} runs are stored in {store}; the same command resumes the sweep"
        )

    _on_interrupt(kept)
    with _runs_bar(loaded.name) as update:
        try:
            outcome = run_sweep(loaded, store, workers, on_progress=update, scheduler=scheduler)
        except SchedulerError as e:
            _fail(str(e))
        except OSError as e:
            _fail(f"{store}: cannot write the results store: {e.strerror or e}")
    stats = outcome.statistics() if outcome.runs else None
    if stats is not None and not stats.empty:
        from congsim.results import write_csv

        write_csv(stats, store / "statistics.csv")
    click.echo(
        f"{len(outcome.runs)} runs ({outcome.executed} run now, {len(outcome.runs) - outcome.executed} "
        f"already stored) in {store}"
    )
    if outcome.failures:
        first = next(iter(outcome.failures.items()))
        _fail(f"{len(outcome.failures)} runs failed (see {store}/runs/*.error.txt); first: {first[1]}")


@app.command()
@click.argument("study")
@click.option(
    "--out",
    type=_PATH,
    default=Path("reproductions"),
    show_default=True,
    help="Results folder; one sub-folder per study, reused to resume.",
)
@click.option(
    "--replications",
    type=click.IntRange(1, MAX_REPLICATIONS),
    help=f"Replications, 1 to {MAX_REPLICATIONS} (default: the study's).",
)
@click.option("--workers", type=_WORKERS, help="Parallel runs, at least 1 (default: all cores).")
@click.option(
    "--variants/--no-variants",
    default=True,
    show_default=True,
    help="Also run each study's variants (other set-ups the paper may have used) beside its default.",
)
@click.option(
    "--variant",
    "only_variants",
    multiple=True,
    metavar="NAME",
    help="Run only this variant of the study beside its default (repeatable; one study, not 'all').",
)
def reproduce(
    study: str,
    out: Path,
    replications: int | None,
    workers: int | None,
    variants: bool,
    only_variants: tuple[str, ...],
) -> None:
    """Run the registered STUDY (or all): each reference value beside ours (CI, band, verdict),
    and each claim of the paper checked with 95 % confidence; then each of the study's
    variants, summed up beside it."""
    from rich.console import Console

    from congsim.studies import STUDIES
    from congsim.studies import reproduce as reproduce_study

    if study != "all" and study not in STUDIES:
        _fail(f"unknown study {study!r}; registered studies are: all, {', '.join(STUDIES)}")
    chosen: bool | tuple[str, ...] = variants
    if only_variants:
        if study == "all" or not variants:
            _fail("--variant picks variants of one study: give a study's name, not with --no-variants")
        known = [v.name for v in STUDIES[study].variants]
        for name in only_variants:
            if name not in known:
                _fail(f"--variant {name!r}: {study} has the variants {', '.join(known) or '(none)'}")
        chosen = only_variants
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and CI: keep table rows on one line
    outcomes: list[StudyOutcome] = []
    for entry in STUDIES.values() if study == "all" else [STUDIES[study]]:
        console.rule(f"{entry.name}: {entry.title}")
        rendered: list[str] = []

        def render(outcome: StudyOutcome, console: Console = console, rendered: list[str] = rendered) -> None:
            # Laid out while the traced runs go on in the workers; written once they end.
            with console.capture() as capture:
                _print_comparison(console, outcome.comparison, outcome.axes)
                if outcome.claims is not None and not outcome.claims.empty:
                    _print_claims(console, outcome.claims)
                _print_variants(console, outcome)
            rendered.append(capture.get())

        def kept(name: str = entry.name) -> str:
            return f"every finished run of {name} is stored in {out / name}; the same command resumes"

        _on_interrupt(kept)
        with _runs_bar(entry.name) as update:
            try:
                result = reproduce_study(
                    entry,
                    out,
                    replications,
                    workers,
                    on_progress=update,
                    on_compared=render,
                    variants=chosen,
                )
            except OSError as e:
                _fail(f"{out / entry.name}: cannot write results: {e.strerror or e}")
        if result.failures:
            _fail(f"{len(result.failures)} runs failed (see {result.folder}/runs/*.error.txt)")
        console.file.write("".join(rendered))
        if entry.notes:
            console.print(entry.notes)
        outcomes.append(result)
    if len(outcomes) > 1:
        _print_studies_summary(console, outcomes, out)


def _print_variants(console: Console, outcome: StudyOutcome) -> None:
    """A line per variant of the study: what it changes, why, and how it scores beside the
    default (its tables are in `variants/<name>/`)."""
    from congsim.studies.score import score_rows

    for variant_outcome, row in zip(outcome.variants, score_rows(outcome)[1:], strict=True):
        variant = variant_outcome.variant
        changes = ", ".join(f"{path} = {json.dumps(value)}" for path, value in variant.overrides.items())
        parts = []
        if row["compared"] != "":
            parts.append(
                f"{row['agrees']} of {row['compared']} values agree, {row['inconclusive']} inconclusive, "
                f"{row['differs']} differ"
            )
        if row["claims"] != "":
            parts.append(f"the paper's claims: {row['claims_hold']} of {row['claims']} hold")
        console.print(
            f"variant {variant.name} ({changes}): {'; '.join(parts)}. Why: {variant.why} "
            f"Tables: {variant_outcome.folder}"
        )


def _print_studies_summary(console: Console, outcomes: list[StudyOutcome], out: Path) -> None:
    """One line per study: its verdicts, the trivial predictors' on the same bands, its
    claims; also written as `scores.csv`."""
    import pandas as pd
    from rich.table import Table

    from congsim.studies.score import SCORE_COLUMNS, score_rows

    scores = pd.DataFrame([row for o in outcomes for row in score_rows(o)], columns=SCORE_COLUMNS)
    table = Table(title="Summary", show_lines=False)
    baselines = "a constant / the table's other cells / a constant per variant"
    # A study's name whole, so that it can be found (the other columns wrap instead).
    table.add_column("study", no_wrap=True)
    for column in ("values agree", "inconclusive", baselines, "informative"):
        table.add_column(column)
    for column in ("the paper's claims", "own checks", "vs ns-2.35: agree; set-up / model"):
        table.add_column(column)
    for row in scores.to_dict("records"):
        values = inconclusive = agreeing = informative = "-"
        if row["compared"] != "":
            values = f"{row['agrees']} of {row['compared']}"
            inconclusive = str(row["inconclusive"])
            variant = row["variant_agrees"] if row["variant_agrees"] != "" else "-"
            agreeing = f"{row['constant_agrees']} / {row['within_table_agrees']} / {variant}"
            informative = str(row["informative"]) or "none"
        claims, checks = (
            f"{row[f'{p}_hold']} holds, {row[f'{p}_not_significant']} not significant, "
            f"{row[f'{p}_fail']} fails"
            if row[p] != ""
            else "-"
            for p in ("claims", "checks")
        )
        # Not in square brackets: rich would take "[name]" for markup and drop it.
        name = f"{row['study']} (variant {row['variant']})" if row["variant"] else str(row["study"])
        ns2 = "-"
        if row["ns2_compared"] != "":
            ns2 = (
                f"{row['ns2_agrees']} of {row['ns2_compared']}; "
                f"{row['setup_differences']} / {row['model_questions']}"
            )
        table.add_row(name, values, inconclusive, agreeing, informative, claims, checks, ns2)
    console.print(table)
    from congsim.results import write_csv

    try:
        write_csv(scores, out / "scores.csv")
    except OSError as e:
        _fail(f"{out / 'scores.csv'}: cannot write: {e.strerror or e}")
    console.print(f"scores: {out / 'scores.csv'}")


def _print_comparison(console: Console, comparison: pd.DataFrame, axes: list[str]) -> None:
    """The reference values beside ours, with the CI, the agreement band and the verdict."""
    from rich.table import Table

    # A comparison stored before rows could be shown uncounted has no `scored` or `note`.
    comparison = comparison.assign(**{c: "" for c in ("scored", "note") if c not in comparison})
    if comparison.empty:
        return
    # The axes the reference names its configurations by.
    axes = [a for a in axes if comparison[a].fillna("").astype(str).str.len().gt(0).any()]
    table = Table(show_lines=False)
    # Axis labels: the last part of the field path (links[0].queue.limit_packets: limit_packets).
    short = [a.split(".")[-1] for a in axes]
    labels = [a if short.count(name) > 1 else name for a, name in zip(axes, short, strict=True)]
    # The verdict comes first and never wraps, so that a narrow terminal folds the other
    # columns rather than cut it off.
    table.add_column("verdict", no_wrap=True, min_width=7)
    # With ns-2 data (judge.add_ns2): paper | ns-2.35 same set-up | ours, and ours against ns-2.
    with_ns2 = "ns2_verdict" in comparison
    middle = ["ns-2.35"] if with_ns2 else []
    for column in [*labels, "metric", "reference", *middle, "ours (95% CI)", "band"]:
        table.add_column(column, justify="right" if column in ("reference", "ns-2.35", "band") else "left")
    if with_ns2:
        table.add_column("vs ns-2", no_wrap=True)
    from congsim.studies.declare import TOLERANCE
    from congsim.studies.judge import VERDICTS, baseline_score, ns2_score, scored_rows, uncounted_label

    scored = scored_rows(comparison)
    for row in comparison.to_dict("records"):
        ours = f"{row['mean']:.4g} [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"
        band = f"{row['band_low']:.4g}..{row['band_high']:.4g}"
        cells = [str(row[a]) for a in axes]
        verdict = str(row["verdict"])
        label = uncounted_label(row["scored"])
        if verdict in VERDICTS and label:
            verdict += f" ({label})"
        ns2_cells = []
        if with_ns2:
            if isinstance(row["difference"], str) and row["difference"]:
                verdict += f": {row['difference']}"
            ns2_cells = [f"{row['ns2_mean']:.4g}"]
        reference = f"{row['reference']:.4g}"
        after = [str(row["ns2_verdict"])] if with_ns2 else []
        table.add_row(verdict, *cells, str(row["metric"]), reference, *ns2_cells, ours, band, *after)
    console.print(table)
    counts = scored["verdict"].value_counts()
    source = comparison["source"].iloc[0]
    console.print(
        f"{int(counts.get('agrees', 0))} of {len(scored)} values agree (95 % CI inside the band), "
        f"{int(counts.get('inconclusive', 0))} inconclusive (CI across an edge), "
        f"{int(counts.get('differs', 0))} differ; bands: the reference ± the larger of half its "
        f"last printed digit and {TOLERANCE:.0%}; reference: {source}"
    )
    second = ns2_score(comparison)
    if second is not None:
        console.print(
            f"against {second.version} on the same set-up (its own replications, the same band rule "
            f"around its mean): {second.agrees} of {second.compared} values agree, {second.inconclusive} "
            f"inconclusive, {second.differs} differ; of the values that differ from the paper, "
            f"{second.setup} differ in ns-2 alike (set-up: the paper's unstated set-up or simulator), "
            f"{second.model_questions} only here (model question)"
        )
    notes = comparison[comparison["note"].fillna("").astype(str) != ""]
    for label, note in dict.fromkeys(zip(notes["scored"].map(uncounted_label), notes["note"], strict=True)):
        console.print(f"{label}: {note}")
    if "baseline_constant_agrees" not in comparison:
        return  # a comparison written before the baselines were
    score = baseline_score(comparison)
    variant = "" if score.variant is None else f", one constant per variant {score.variant}"
    informative = ", ".join(score.informative) or "none"
    ranked = "".join(
        f"; {f.metric} judged by order (every band holds one value): {f.in_order} pairs of a table's "
        f"cells in the paper's order, {f.reversed} reversed"
        for f in score.families
        if f.flat
    )
    console.print(
        f"trivial baselines on the same bands: a constant at each metric's reference mean "
        f"{score.constant} of {score.compared}, the mean of the table's other cells "
        f"{score.within_table}{variant}{ranked}; informative (clearly ahead of both): {informative}"
    )


def _print_claims(console: Console, claims: pd.DataFrame) -> None:
    """The paper's claims, then congsim's own checks: each with both sides' mean and 95 % CI,
    the ratio, and whether it holds (with the known reason where it does not)."""
    from rich.table import Table

    from congsim.studies.score import claim_origins

    origins = claim_origins(claims)
    for origin, title in (("paper", "The paper's claims"), ("check", "congsim's own checks")):
        part = claims[origins == origin]
        if part.empty:
            continue
        table = Table(title=title, show_lines=False)
        table.add_column("verdict", no_wrap=True, min_width=7)
        for column in ("claim", "left side (95% CI)", "right side (95% CI)", "ratio (95% CI)"):
            table.add_column(column)
        for row in part.to_dict("records"):
            lhs_interval = f"[{row['lhs_ci_low']:.4g}, {row['lhs_ci_high']:.4g}]"
            lhs = f"{row['factor']:g} x {row['lhs_mean']:.4g} {lhs_interval}"
            rhs = f"{row['rhs_mean']:.4g} [{row['rhs_ci_low']:.4g}, {row['rhs_ci_high']:.4g}]"
            ratio = f"{row['ratio']:.3g} [{row['ratio_ci_low']:.3g}, {row['ratio_ci_high']:.3g}]"
            claim = str(row["claim"])
            if origin == "paper" and row.get("source"):
                claim += f'\n  "{row["source"]}"'
            if row["verdict"] != "holds" and row.get("note"):
                claim += f"\n  note: {row['note']}"
            table.add_row(str(row["verdict"]), claim, lhs, rhs, ratio)
        console.print(table)
        counts = part["verdict"].value_counts()
        console.print(
            f"{title}: {int(counts.get('holds', 0))} of {len(part)} hold with 95 % confidence, "
            f"{int(counts.get('not significant', 0))} not significant, {int(counts.get('fails', 0))} fail "
            "(paired over replications: the configurations share their random streams)"
        )


@app.command()
@click.argument("directory", type=_PATH)
@click.option("--out", type=_PATH, help="The HTML file (default: DIRECTORY/report.html).")
def report(directory: Path, out: Path | None) -> None:
    """Write one self-contained HTML report (tables, verdicts, figures) for the studies
    reproduced in DIRECTORY (a folder written by congsim reproduce)."""
    from congsim.report import build_report

    try:
        path = build_report(directory, out)
    except FileNotFoundError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{out or directory}: cannot write the report: {e.strerror or e}")
    click.echo(f"wrote {path}")


@app.command("plot-sequence")
@click.argument("directory", type=_PATH)
@click.option("--flow", required=True, help="The flow to draw.")
@click.option("--out", type=_PATH, help="The figure (.svg, .png, .pdf; default DIRECTORY/sequence-FLOW.svg).")
def plot_sequence(directory: Path, flow: str, out: Path | None) -> None:
    """Draw the classic time-sequence figure of one flow from the sequence trace in DIRECTORY
    (a folder written by congsim run --out)."""
    from congsim.report import write_sequence_figure

    try:
        path = write_sequence_figure(directory, flow, out)
    except (FileNotFoundError, KeyError) as e:
        _fail(str(e).strip("'\""))
    except (OSError, ValueError) as e:
        _fail(f"{out or directory}: cannot write the figure: {e}")
    click.echo(f"wrote {path}")


@app.command()
@click.argument("file", type=_PATH)
@click.option("--routes", is_flag=True, help="Also print each flow's path, hop by hop.")
@_SET
def validate(file: Path, routes: bool, overrides: dict[str, Any]) -> None:
    """Check the scenario FILE (TOML); report the first problem with its field path."""
    from congsim import _core
    from congsim.scenario import loads, read_text

    try:
        scenario = loads(read_text(file), str(file), overrides)
        description, warnings = _core.validate(scenario.text, scenario.source, scenario.overrides_json())
        text = scenario.to_toml() if overrides else scenario.text
    except ValueError as e:
        _fail(str(e))
    _print_warnings([f"{file}: {w}" for w in warnings])
    click.echo(printable(f"{file}: ok ({description})"))
    if routes:
        from congsim.network import route_lines

        for line in route_lines(_core.network(text, str(file))):
            click.echo(line)


@app.command()
@click.argument("file", type=_PATH)
@click.option(
    "--out",
    type=_PATH,
    help="Write the drawing here: .dot (Graphviz text), or .svg, .png or .pdf (needs Graphviz's dot).",
)
@_SET
def show(file: Path, out: Path | None, overrides: dict[str, Any]) -> None:
    """Draw the topology of the scenario FILE: Graphviz text on standard output, or a file."""
    import shutil
    import subprocess

    import congsim
    from congsim.network import dot

    try:
        scenario = congsim.load(file, overrides)
    except ValueError as e:
        _fail(str(e))
    text = dot(scenario.network(), scenario.name)
    if out is None:
        click.echo(text, nl=False)
        return
    formats = {".dot": None, ".gv": None, ".svg": "svg", ".png": "png", ".pdf": "pdf"}
    if out.suffix not in formats:
        _fail(f"--out {out}: allowed endings are {', '.join(formats)}")
    try:
        if formats[out.suffix] is None:
            out.write_text(text, encoding="utf-8")
        else:
            program = shutil.which("dot")
            if program is None:
                _fail(
                    f"--out {out}: drawing {out.suffix} needs Graphviz's dot (apt-get install graphviz); "
                    ".dot works without it"
                )
            subprocess.run(
                [program, f"-T{formats[out.suffix]}", "-o", str(out)], input=text, text=True, check=True
            )
    except OSError as e:
        _fail(f"{out}: cannot write: {e.strerror or e}")
    except subprocess.CalledProcessError as e:
        _fail(f"{out}: dot failed with status {e.returncode}")
    click.echo(f"wrote {out}")


@app.command()
@click.option("--out", type=_PATH, help="Write the schema here instead of printing it.")
def schema(out: Path | None) -> None:
    """Print the JSON Schema of the scenario format (for editors)."""
    from congsim import _core

    text = _core.schema()
    if out is None:
        click.echo(text)
        return
    try:
        out.write_text(text + "\n", encoding="utf-8")
    except OSError as e:
        _fail(f"{out}: cannot write: {e.strerror or e}")


app.add_command(import_ns2)


def main() -> None:
    """Entry point of the `congsim` console script. Click's own errors (a bad option value, a
    missing argument) end like every other mistake: one line `error: ...` and status 2. Ctrl-C
    at any moment ends with one line `interrupted: ...` (what was kept) and status 130, unless
    the command had finished and said so."""
    _take_ctrl_c()
    try:
        try:
            app.main(prog_name="congsim", standalone_mode=False)
        except click.UsageError as e:
            if type(e).__name__ == "NoArgsIsHelpError" and e.ctx is not None:  # click >= 8.2
                click.echo(e.ctx.get_help())
                sys.exit(0)
            command = e.ctx.command_path if e.ctx is not None else "congsim"
            _fail(f"{printable(e.format_message()).rstrip('.')} (see {command} --help)")
        except click.ClickException as e:
            _fail(printable(e.format_message()))
        except (click.Abort, KeyboardInterrupt):
            _stopped()
        finally:
            # The command has ended and said so: a Ctrl-C from here on has nothing left to
            # stop, and would only cut the interpreter's clean-up short (status -2, no line).
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:  # just before that
        _stopped()
    if _ctrl_c_seen:  # a KeyboardInterrupt that some library caught and dropped
        _stopped()
