"""Importing ns-2 scripts: `congsim import-ns2 SCRIPT.tcl` and `import_script(path)`.

The script runs in a real Tcl interpreter (Python's bundled Tcl, `tkinter.Tcl()`) against a
stand-in for ns-2 that records what it builds; the recording becomes a congsim scenario. What is
translated and what is refused: docs/ns-mapping.md, "Importing an ns-2 script".

Importing this package is cheap (the `congsim` command registers `import-ns2` from it): the
stand-in and the translation load when `import_script` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from congsim.ns2import.errors import Ns2ImportError
    from congsim.ns2import.run import Imported, import_script

__all__ = ["Imported", "Ns2ImportError", "import_script"]


def __getattr__(name: str) -> Any:
    if name in ("Imported", "import_script"):
        from congsim.ns2import import run

        return getattr(run, name)
    if name == "Ns2ImportError":
        from congsim.ns2import import errors

        return errors.Ns2ImportError
    raise AttributeError(f"module 'congsim.ns2import' has no attribute {name!r}")
