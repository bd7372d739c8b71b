"""The guess register and the studies name each other (issue #31 item 3).

Every value a study sets that its paper does not print is a row `G<n>` of DEVIATIONS.md's
"Guesses" table, and the comment beside the value in the study's files (its plan, its network,
its module) names the row. The test fails when a file names a row that does not exist (a typo, a
deleted row), when a row is named by no file of its studies (a stale row, a reference removed or
put in another study's file), and when a row's sensitivity names a variant its studies do not run.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from congsim.studies import MODULES, STUDIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
REGISTER = ROOT / "DEVIATIONS.md"
DATA = ROOT / "python" / "congsim" / "studies" / "data"


#: The register table's header, as DEVIATIONS.md writes it.
HEADER = "| Id | Study | Parameter | Value | Why this value a priori | What it drives | Sensitivity |"

#: A guess id wherever it stands in a comment.
GUESS_ID = re.compile(r"\bG\d+\b")

#: A variant a row's sensitivity says runs (`variant `name``), as opposed to one it plans.
RUNNING_VARIANT = re.compile(r"\bvariant `([^`]+)`")


@dataclass(frozen=True)
class Guess:
    id: str
    studies: tuple[str, ...]
    parameter: str
    value: str
    why: str
    drives: str
    sensitivity: str


def guesses(register: str) -> list[Guess]:
    """The rows of the register's "Guesses" table, in order."""
    section = register.split("\n## Guesses\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    assert HEADER in lines, "the Guesses table's header changed"
    rows = []
    for line in lines[lines.index(HEADER) + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 7, f"a row of the Guesses table has {len(cells)} cells: {line[:60]}"
        id_, study, *rest = cells
        rows.append(Guess(id_, tuple(s.strip() for s in study.split(",")), *rest))
    return rows


def toml_comments(text: str) -> str:
    """The comments of a TOML document (a `#` outside a string to the end of its line)."""
    comments = []
    for line in text.splitlines():
        quote: str | None = None
        for i, char in enumerate(line):
            if quote is None and char == "#":
                comments.append(line[i + 1 :])
                break
            if char in "\"'" and quote in (None, char):
                quote = None if quote == char else char
    return "\n".join(comments)


def python_comments(text: str) -> str:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return "\n".join(t.string[1:] for t in tokens if t.type == tokenize.COMMENT)


def study_files() -> dict[str, tuple[str, set[str]]]:
    """Each file of a study (its plan, the plan's network, its module), by its path from the
    repository: its comments, and the studies it belongs to."""
    files: dict[str, tuple[str, set[str]]] = {}

    def add(path: Path, name: str) -> None:
        text = path.read_text(encoding="utf-8")
        comments = python_comments(text) if path.suffix == ".py" else toml_comments(text)
        files.setdefault(str(path.relative_to(ROOT)), (comments, set()))[1].add(name)

    for name, study in STUDIES.items():
        plan = DATA / study.plan
        add(plan, name)
        add(DATA / tomllib.loads(plan.read_text(encoding="utf-8"))["scenario"], name)
        add(Path(str(MODULES[name].__file__)), name)
    return files


def problems(register: list[Guess], files: Mapping[str, tuple[str, set[str]]]) -> list[str]:
    """Where the register and the studies' files disagree."""
    found = []
    ids = [g.id for g in register]
    expected = [f"G{n}" for n in range(1, len(register) + 1)]
    if ids != expected:
        found.append(f"the register's ids are not G1..G{len(register)} in order: {ids}")
    by_id = {g.id: g for g in register}
    named_by: dict[str, set[str]] = {}
    for path, (comments, owners) in sorted(files.items()):
        for id_ in GUESS_ID.findall(comments):
            if id_ not in by_id:
                found.append(f"{path} names {id_}, which is not a row of DEVIATIONS.md's Guesses")
                continue
            named_by.setdefault(id_, set()).add(path)
            if not owners & set(by_id[id_].studies):
                found.append(f"{path} (of {sorted(owners)}) names {id_}, a guess of {by_id[id_].studies}")
    for guess in register:
        unknown = [s for s in guess.studies if s not in STUDIES]
        if unknown:
            found.append(f"{guess.id}: no study {unknown}")
        if not all((guess.parameter, guess.value, guess.why, guess.drives, guess.sensitivity)):
            found.append(f"{guess.id}: a cell is empty")
        if guess.id not in named_by:
            found.append(f"{guess.id} is named by no file of {', '.join(guess.studies)}")
        if not guess.sensitivity.startswith(("variant", "none")):
            found.append(f"{guess.id}: the sensitivity says neither a variant nor none")
        variants = {v.name for s in guess.studies if s in STUDIES for v in STUDIES[s].variants}
        for name in RUNNING_VARIANT.findall(guess.sensitivity):
            if name not in variants:
                found.append(f"{guess.id}: no study of {guess.studies} runs a variant {name!r}")
    return found


def test_every_guess_is_registered_and_every_registered_guess_is_named() -> None:
    register = guesses(REGISTER.read_text(encoding="utf-8"))
    assert len(register) >= 40
    assert problems(register, study_files()) == []
    # The guesses issue #31 names, with a sensitivity variant that runs or a planned one.
    assert {g.id for g in register if "goyal1996" in g.studies and "variant `" in g.sensitivity} >= {
        "G2",
        "G3",
    }
    koga = {g.id: g.sensitivity for g in register if g.studies == ("koga2000",)}
    assert "variant `access-whole-ms`" in koga["G41"] and "variant `cbr-phase-zero`" in koga["G40"]
    lima = {g.id: g.sensitivity for g in register if "lima2002" in g.studies}
    assert "variant `web-sigma-1`" in lima["G21"] and "variant `web-alpha-1.5`" in lima["G22"]
    assert "variant `cwnd-per-transfer`" in lima["G23"]


def test_a_deleted_row_a_mistyped_id_or_a_missing_variant_fails() -> None:
    """The check catches real drift: each mutation of the real register or files is reported."""
    text = REGISTER.read_text(encoding="utf-8")
    register = guesses(text)
    files = study_files()
    assert problems(register, files) == []

    # A row deleted from the register: the files that name it now name nothing.
    deleted = guesses(re.sub(r"^\| G41 \|.*\n", "", text, flags=re.MULTILINE))
    assert any("names G41, which is not a row" in p for p in problems(deleted, files))

    # A mistyped id in a study file, and the row it should have named left unnamed.
    path = "python/congsim/studies/data/koga2000-network.toml"
    comments, owners = files[path]
    typo = {**files, path: (comments.replace("guess G42", "guess G420"), owners)}
    found = problems(register, typo)
    assert any("names G420" in p for p in found) and "G42 is named by no file of koga2000" in found

    # A guess named in another study's file.
    path = "python/congsim/studies/data/goyal1996-network.toml"
    comments, owners = files[path]
    moved = {**files, path: (comments + "\n guess G41", owners)}
    assert any("names G41, a guess of ('koga2000',)" in p for p in problems(register, moved))

    # A row whose sensitivity names a variant no study runs.
    renamed = guesses(text.replace("variant `window-64`", "variant `window-256`"))
    assert "G42: no study of ('koga2000',) runs a variant 'window-256'" in problems(renamed, files)

    # Rows out of order (a duplicated or skipped id).
    skipped = guesses(text.replace("| G44 |", "| G45 |"))
    assert any("not G1..G44 in order" in p for p in problems(skipped, files))
