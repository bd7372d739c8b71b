"""Where in an ns-2 script something happened, and the one-line messages that name it."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Where every refusal points: the page that lists what the import translates.
SEE = "see docs/ns-mapping.md"

#: Commands longer than this are cut in messages (a message is one line).
SHOWN_CHARACTERS = 100


class Ns2ImportError(ValueError):
    """A script the import refuses, or a Tcl error in it: one line naming the script and the
    line (`script.tcl:12: "$ns namtrace-all $nf" is not supported: ...`)."""


@dataclass(frozen=True)
class Location:
    """A command of the script: its file, its line (None when Tcl cannot tell) and its text as
    written (`$ns duplex-link $n0 $n1 10Mb 2ms DropTail`), on one line."""

    file: str
    line: int | None
    command: str

    def prefix(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def quoted(self) -> str:
        return f'"{self.command}"'


def one_line(text: str) -> str:
    """`text` with its runs of white space (newlines too) made one space, cut to a readable
    length."""
    flat = re.sub(r"\s+", " ", re.sub(r"\\\n", " ", text)).strip()
    return flat if len(flat) <= SHOWN_CHARACTERS else flat[: SHOWN_CHARACTERS - 3] + "..."


def refused(where: Location, reason: str) -> Ns2ImportError:
    """The refusal of the command at `where`: `file:line: "command" is not supported: reason`."""
    return Ns2ImportError(f"{where.prefix()}: {where.quoted()} is not supported: {reason} ({SEE})")


def wrong(where: Location, reason: str) -> Ns2ImportError:
    """A command the import understands but whose arguments it cannot read."""
    return Ns2ImportError(f"{where.prefix()}: {where.quoted()}: {reason}")
