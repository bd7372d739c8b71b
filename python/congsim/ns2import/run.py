"""`import_script`: an ns-2 script in, a congsim scenario (document and TOML text) out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from congsim.ns2import.errors import Ns2ImportError
from congsim.ns2import.standin import Recorder
from congsim.ns2import.translate import translate
from congsim.ns2import.writer import dumps


@dataclass(frozen=True)
class Imported:
    """A translated script: the scenario as a document (the layout of a scenario file, for
    `congsim.Scenario.from_dict`) and as TOML text (with the warnings as comments at its
    top), and the warnings: what was ignored or left out, each naming its script line."""

    document: dict[str, Any]
    text: str
    warnings: tuple[str, ...]


def import_script(path: str | Path) -> Imported:
    """Runs the ns-2 script at `path` in Tcl against the recording stand-in and translates
    what it built. Raises `Ns2ImportError` (a `ValueError`) with one line naming the script
    line of a command the import refuses, or of a Tcl error. The scenario is not validated
    here: `congsim.loads(imported.text)` does that."""
    from congsim._core import ScenarioError
    from congsim.scenario import read_text

    shown = str(path)
    p = Path(path)
    try:
        read_text(p)  # a missing, unreadable, huge or non-UTF-8 file gets its one line here
    except ScenarioError as e:
        raise Ns2ImportError(str(e)) from None
    try:
        rec = Recorder(p, shown)
    except ImportError:
        raise Ns2ImportError(
            "the import runs scripts in Python's bundled Tcl, and this Python has no tkinter "
            "(on Debian: apt-get install python3-tk)"
        ) from None
    try:
        rec.execute()
        document, warnings = translate(rec)
    finally:
        rec.close()
    comments = [
        f"Imported from {p.name} by congsim import-ns2 (ns-2.35 semantics; see docs/ns-mapping.md).",
        *[f"warning: {w}" for w in warnings],
    ]
    return Imported(document, dumps(document, comments), tuple(warnings))
