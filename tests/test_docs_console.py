"""Every console block of the docs shows what its commands print.

The convention, for the README and every page of `docs/`:

- Commands a reader types are in ```` ```console ```` blocks, each on a line that starts with
  `$ `; the lines after it, up to the next prompt, are its output as a terminal shows it
  (standard output and standard error). A command that prints something shows it.
- A line that is `...` alone stands for any number of lines left out (none included); `...`
  inside a line stands for any text (a value that changes from run to run, such as a wall-clock
  time, or the long rule of a heading). Without a leading `...` the output shown must be where
  the real output starts, without a trailing one where it ends; between two `...` lines the
  lines shown are consecutive. Trailing spaces do not count.
- Each page's commands run in order, in a fresh folder that looks like the repository's root
  (`scenarios/`, `plans/`, `examples/`, `python/`, `.venv/` linked, `out/` empty), with the
  test's virtual environment first on `PATH`; a later command may read what an earlier one
  wrote.
- Commands in `NOT_RUN` are not run (too long, or they need a cluster or a fresh machine); a
  `congsim` command among them is still parsed by the command line, so a renamed option fails
  here, a script among them must exist, and none of them shows output (nothing is shown that
  is not checked).
- Lines with another prompt (`head$ `, `node$ `) are commands on other machines of a cluster:
  not run, and they show no output either.
- ```` ```bash ```` blocks hold commands to copy (no prompt, no output) and are not run here.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The README and the user guide (the specifications under docs/spec/ show no commands).
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Commands shown but not run, by their exact text after the prompt, each with the reason.
NOT_RUN = {
    "bash scripts/install.sh": "builds the native module into a new .venv: about 2 minutes; CI runs it",
    ".venv/bin/congsim reproduce koga2000 --out out/reproductions": (
        "the study's 5 replications and its 4 variants, a minute or two: the tutorial runs it with "
        "2 replications and no variants, and shows the output"
    ),
    ".venv/bin/congsim report out/reproductions": "reads the reproduction above, which is not run",
    "congsim sweep plans/reno-vs-tahoe-buffers.toml --out sweeps/buffers --executor dask "
    "--scheduler tcp://head:8786": "needs a Dask scheduler there (tests/test_platform.py runs a real one)",
}

#: Another machine's prompt (`head$ `, `laptop$ `).
OTHER_MACHINE = re.compile(r"^[\w.-]+\$ ")

#: What one page's commands may take together.
PAGE_TIMEOUT_S = 240


@dataclass
class Command:
    page: str
    line: int
    text: str
    shown: list[str] = field(default_factory=list)
    other_machine: bool = False

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def fenced(page: Path, language: str) -> list[tuple[int, list[str]]]:
    """(line number of the first line, lines) of every fenced block of `language`."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == f"```{language}":
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            blocks.append((i + 2, lines[i + 1 : end]))
            i = end
        i += 1
    return blocks


def console_commands(page: Path) -> list[Command]:
    """Every command of the page's console blocks, with the output shown under it."""
    name = str(page.relative_to(ROOT))
    commands: list[Command] = []
    for first, lines in fenced(page, "console"):
        current: Command | None = None
        for k, line in enumerate(lines):
            if line.startswith("$ "):
                current = Command(name, first + k, line[2:].strip())
                commands.append(current)
            elif OTHER_MACHINE.match(line):
                current = Command(name, first + k, line.split("$ ", 1)[1].strip(), other_machine=True)
                commands.append(current)
            elif current is None:
                raise AssertionError(f"{name}:{first + k}: output before any command in a console block")
            else:
                current.shown.append(line)
    return commands


def _line_pattern(shown: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in shown.rstrip().split("...")]
    return re.compile(".*".join(parts))


def output_problem(shown: list[str], actual: list[str]) -> str | None:
    """None when `actual` is what `shown` shows (the module docstring's rules), else why not."""
    actual = [line.rstrip() for line in actual]
    chunks: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)

    def matches_at(chunk: list[str], at: int) -> bool:
        return (
            0 <= at
            and at + len(chunk) <= len(actual)
            and all(
                _line_pattern(s).fullmatch(a)
                for s, a in zip(chunk, actual[at : at + len(chunk)], strict=True)
            )
        )

    if len(chunks) == 1:
        if len(shown) == len(actual) and matches_at(shown, 0):
            return None
        return f"shows {len(shown)} lines, prints {len(actual)}, and they differ (mark left-out parts `...`)"
    position = 0
    for index, chunk in enumerate(chunks):
        if not chunk:
            continue
        if index == 0:
            candidates = [0]
        elif index == len(chunks) - 1:
            candidates = [len(actual) - len(chunk)]
        else:
            candidates = list(range(position, len(actual) - len(chunk) + 1))
        found = next((at for at in candidates if at >= position and matches_at(chunk, at)), None)
        if found is None:
            place = "at the start" if index == 0 else "at the end" if index == len(chunks) - 1 else "in order"
            return f"these lines are not {place} of the output:\n  " + "\n  ".join(chunk)
        position = found + len(chunk)
    return None


def workdir_for(tmp: Path) -> Path:
    """A folder that looks like the repository's root to the commands."""
    for name in ("scenarios", "plans", "python", "examples"):
        (tmp / name).symlink_to(ROOT / name)
    (tmp / ".venv").symlink_to(Path(sys.prefix))
    (tmp / "out").mkdir()
    return tmp


def check_not_run(command: Command) -> None:
    """A command that is not run still names what exists: a script of the repository, or a
    congsim subcommand with options it takes."""
    from congsim.cli import app

    words = shlex.split(command.text, comments=True)
    if words[0] == "bash":
        assert (ROOT / words[1]).is_file(), f"{command.where}: no such script"
        return
    assert Path(words[0]).name == "congsim", f"{command.where}: neither a script nor congsim"
    argv = words[1:]
    group = app.make_context("congsim", list(argv))
    name, sub, rest = app.resolve_command(group, argv)
    assert sub is not None and name is not None, command.where
    sub.make_context(name, rest, parent=group)


def run_shown(command: Command, cwd: Path, deadline: float) -> list[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",
    }
    done = subprocess.run(
        ["bash", "-c", command.text],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        timeout=max(1.0, deadline - time.monotonic()),
    )
    assert done.returncode == 0, f"{command.where}: exit status {done.returncode}\n{done.stdout[-3000:]}"
    return done.stdout.splitlines()


PAGES_WITH_COMMANDS = [page for page in PAGES if console_commands(page)]


def test_the_docs_show_console_blocks() -> None:
    shown = [c for page in PAGES for c in console_commands(page)]
    assert len(shown) >= 10
    assert sum(1 for c in shown if c.shown) >= 8


def test_every_exemption_is_shown() -> None:
    """An entry of NOT_RUN that no page shows any more is stale."""
    texts = {c.text for page in PAGES for c in console_commands(page)}
    assert sorted(set(NOT_RUN) - texts) == []


def test_no_prompt_hides_in_a_bash_block() -> None:
    """Commands with output go in console blocks; a bash block holds commands to copy."""
    for page in PAGES:
        for language in ("bash", "sh", "shell"):
            for first, lines in fenced(page, language):
                for k, line in enumerate(lines):
                    where = f"{page.relative_to(ROOT)}:{first + k}"
                    assert not line.startswith("$ "), f"{where}: a prompt belongs in a console block"


@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_console_block_shows_its_output(page: Path, tmp_path: Path) -> None:
    workdir = workdir_for(tmp_path)
    deadline = time.monotonic() + PAGE_TIMEOUT_S
    problems = []
    for command in console_commands(page):
        if command.other_machine or command.text in NOT_RUN:
            assert command.shown == [], f"{command.where}: not run here, so it shows no output"
            if command.text in NOT_RUN:
                check_not_run(command)
            continue
        actual = run_shown(command, workdir, deadline)
        problem = output_problem(command.shown, actual)
        if problem is not None:
            problems.append(f"{command.where}\n{problem}\nit printed:\n" + "\n".join(actual[:60]))
    assert problems == [], "\n\n".join(problems)


@pytest.mark.parametrize(
    ("shown", "actual", "ok"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b  "], ["a  ", "b"], True),
        (["a"], ["a", "b"], False),
        (["b"], ["a", "b"], False),
        (["a", "..."], ["a", "b", "c"], True),
        (["...", "c"], ["a", "b", "c"], True),
        (["a", "...", "c"], ["a", "c"], True),
        (["a", "...", "c"], ["a", "b", "c", "d"], False),
        (["...", "b", "..."], ["a", "b", "c"], True),
        (["...", "c", "b", "..."], ["a", "b", "c"], False),
        (["took ... s", "done"], ["took 4.2 s", "done"], True),
        (["took ... s"], ["took 4.2 ms"], False),
        (["x"], [], False),
        ([], [], True),
        ([], ["x"], False),
    ],
)
def test_the_output_rules(shown: list[str], actual: list[str], ok: bool) -> None:
    assert (output_problem(shown, actual) is None) == ok
