"""`congsim import-ns2 SCRIPT.tcl [--out FILE]`, registered by `congsim.cli`."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("import-ns2")
@click.argument("script", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the scenario (TOML) here instead of to standard output.",
)
def import_ns2(script: Path, out: Path | None) -> None:
    """Translate the ns-2 Tcl SCRIPT into a congsim scenario: the script runs in Tcl against a
    stand-in for ns-2 that records what it builds (nothing is simulated, written or executed);
    what is translated and what is refused is in docs/ns-mapping.md. The scenario is validated
    before it is written."""
    import congsim
    from congsim._core import ScenarioError
    from congsim.ns2import.errors import Ns2ImportError
    from congsim.ns2import.run import import_script
    from congsim.scenario import printable

    if str(script) == "" or (out is not None and str(out) == ""):
        raise click.UsageError("paths must not be empty")
    try:
        imported = import_script(script)
    except Ns2ImportError as e:
        raise click.ClickException(str(e)) from None
    for warning in imported.warnings:
        click.echo(f"warning: {printable(warning)}", err=True)
    label = str(out) if out is not None else f"{script} (imported)"
    try:
        congsim.loads(imported.text, label)
    except ScenarioError as e:
        raise click.ClickException(f"the scenario imported from {script} does not validate: {e}") from None
    if out is None:
        click.echo(imported.text, nl=False)
        return
    try:
        out.write_text(imported.text, encoding="utf-8")
    except OSError as e:
        raise click.ClickException(f"{out}: cannot write: {e.strerror or e}") from None
    click.echo(f"wrote {out}")
