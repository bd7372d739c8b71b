"""The documentation cannot go stale: every Python block it shows runs, every citation and
link resolves, and the generated references cover what the code writes. The commands of its
console blocks, and the output they show, are checked by tests/test_docs_console.py."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import congsim_reference  # noqa: E402

#: The pages whose examples are run: the README and the user guide (the specifications under
#: docs/spec/ describe models and show no commands).
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def fenced_blocks(page: Path, language: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every fenced block of `language` on the page."""
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == f"```{language}":
            start = i + 1
            end = next(j for j in range(start, len(lines)) if lines[j].strip() == "```")
            yield start + 1, "\n".join(lines[start:end])
            i = end
        i += 1


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that looks like the repository's root to the examples (they name
    `scenarios/...` and `plans/...`) and takes what they write."""
    work = tmp_path_factory.mktemp("docs")
    for name in ("scenarios", "plans", "python", "examples"):
        (work / name).symlink_to(ROOT / name)
    (work / "out").mkdir()
    return work


def test_every_python_block_runs(workdir: Path) -> None:
    """The Python blocks of a page run in order in one namespace, as a reader would type them."""
    skipped = []
    for page in PAGES:
        namespace: dict[str, object] = {"__name__": "__docs__"}
        for line, code in fenced_blocks(page, "python"):
            if code.startswith("# not run by the docs test:"):
                skipped.append(f"{page.name}:{line}")
                continue
            cwd = os.getcwd()
            os.chdir(workdir)
            try:
                exec(compile(code, f"{page.relative_to(ROOT)}:{line}", "exec"), namespace)
            finally:
                os.chdir(cwd)
    assert [name.split(":")[0] for name in skipped] == ["sweeps.md"], "only the SLURM example is skipped"


def test_shown_files_are_the_files() -> None:
    """A TOML block that starts with `# <path>` shows that file: the same document (comments
    aside, which the docs add to explain lines)."""
    for page in PAGES:
        for line, block in fenced_blocks(page, "toml"):
            first = block.splitlines()[0]
            match = re.fullmatch(r"# ((?:scenarios|plans)/[\w.-]+\.toml)", first)
            if match:
                actual = tomllib.loads((ROOT / match.group(1)).read_text(encoding="utf-8"))
                assert tomllib.loads(block) == actual, f"{page.name}:{line} differs from {match.group(1)}"


CITATION = re.compile(r"\b(tcp|ip|atm)\.md(?:`)?(?: §| section | )?(\d+(?:\.\d+)*)?")


def cited_sections() -> Iterator[tuple[str, str, str | None]]:
    """(where, spec file, section or None) for every citation of a specification."""
    roots = ["crates", "python", "tests", "bench", "scenarios", "docs", "plans", "schema", "scripts"]
    files = [ROOT / "README.md", ROOT / "DEVIATIONS.md"]
    for name in roots:
        files += [
            p
            for p in (ROOT / name).rglob("*")
            if p.suffix in {".rs", ".py", ".md", ".toml", ".json", ".sh", ".tcl"}
            and "generated" not in p.parts
            and "auto_examples" not in p.parts
        ]
    for path in files:
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in CITATION.finditer(text):
                yield f"{path.relative_to(ROOT)}:{n}", match.group(1), match.group(2)


def spec_sections(name: str) -> set[str]:
    text = (ROOT / "docs" / "spec" / f"{name}.md").read_text(encoding="utf-8")
    return set(re.findall(r"^#+ (\d+(?:\.\d+)*)\.? ", text, flags=re.MULTILINE))


def test_every_cited_spec_section_exists() -> None:
    sections = {name: spec_sections(name) for name in ("tcp", "ip", "atm")}
    citations = list(cited_sections())
    assert len(citations) > 50
    missing = [
        f"{where}: {name}.md {section}"
        for where, name, section in citations
        if section is not None and section.rstrip(".") not in sections[name]
    ]
    assert missing == []


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_relative_link_resolves() -> None:
    pages = [*PAGES, ROOT / "DEVIATIONS.md", *sorted((ROOT / "docs" / "spec").glob("*.md"))]
    generated = {"scenario-reference.md", "tables-reference.md"}
    broken = []
    for page in pages:
        for n, text in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(text):
                if target.startswith(("http://", "https://", "#", "mailto:")):
                    continue
                path = target.split("#", 1)[0]
                resolved = (page.parent / path).resolve()
                if resolved.parent.name == "generated" and resolved.name in generated:
                    continue
                # The gallery's pages are built from examples/<name>.py.
                if (
                    resolved.parent.name == "auto_examples"
                    and (ROOT / "examples" / f"{resolved.name}.py").exists()
                ):
                    continue
                if not resolved.exists():
                    broken.append(f"{page.relative_to(ROOT)}:{n}: {target}")
    assert broken == []


def test_every_output_column_is_described() -> None:
    observed = congsim_reference.observed_columns()
    assert set(observed) >= {"flows", "links", "summary", "sequence", "atm_vcs", "transfers"}
    assert congsim_reference.coverage_problems(observed, congsim_reference.column_descriptions()) == []


def test_a_stale_description_is_reported() -> None:
    described = congsim_reference.column_descriptions()
    described["links"]["columns"]["drops_by_moonlight"] = "no such counter"
    observed = {"links": ["link", "drops"]}
    problems = congsim_reference.coverage_problems(observed, {"links": described["links"]})
    assert "docs/columns.toml describes links.drops_by_moonlight, which the code does not write" in problems
    assert "links.link: no description in docs/columns.toml" not in problems


def test_the_scenario_reference_covers_every_field() -> None:
    import congsim

    schema = congsim.schema()
    page = congsim_reference.scenario_reference(schema)
    for definition in schema["$defs"].values():
        for option in definition.get("oneOf", [definition]):
            for field in option.get("properties", {}):
                assert f"| `{field}` |" in page, field
    assert "## [links.queue]" in page and "## [[links.queue.classes]]" in page
    assert '## [topology] kind = "dumbbell"' in page and "| `pairs` |" in page


REPO_PATH = re.compile(
    r"`((?:bench|scenarios|plans|scripts|python|crates|tests|docs|schema|examples)/[\w./-]+)`"
)


def test_every_file_the_docs_name_exists() -> None:
    """A path the docs name in code font (`bench/scale.py`) is a file or folder of the
    repository; placeholders (`<study>`) and globs are not paths."""
    pages = [*PAGES, ROOT / "DEVIATIONS.md", *sorted((ROOT / "docs" / "spec").glob("*.md"))]
    missing = []
    named = 0
    for page in pages:
        for n, text in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for path in REPO_PATH.findall(text):
                named += 1
                if not (ROOT / path.rstrip("/")).exists():
                    missing.append(f"{page.relative_to(ROOT)}:{n}: {path}")
    assert named > 30
    assert missing == []


def test_the_scores_table_is_the_last_runs_and_matches_the_studies() -> None:
    """docs/reproduce.md's scores come from `docs/scores.csv`, which `congsim reproduce all`
    writes: one row per runnable study, with as many counted values (and repeats of a
    configuration the model cannot tell apart) as the study has scored reference rows, as many
    derived rows as it marks, and as many claims as it checks (so reference data or claims that
    changed since the file was written fail here), rendered without a number typed by hand."""
    import csv

    from congsim.studies import STUDIES
    from congsim.studies.score import SCORE_COLUMNS

    with open(ROOT / "docs" / "scores.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == SCORE_COLUMNS
        everything = list(reader)
    rows = {row["study"]: row for row in everything if not row["variant"]}
    assert list(rows) == list(STUDIES)
    variants = [(row["study"], row["variant"]) for row in everything if row["variant"]]
    assert variants == [(name, v.name) for name, study in STUDIES.items() for v in study.variants]
    for name, row in rows.items():
        study = STUDIES[name]
        scored = [r for r in study.reference_rows() if (r.get("scored") or "yes") == "yes"]
        derived = [r for r in study.reference_rows() if r.get("scored") == "derived"]
        assert int(row["compared"] or 0) + int(row["repeats"] or 0) == len(scored), name
        assert int(row["derived"] or 0) == len(derived), name
        paper = [c for c in study.claims if c.origin == "paper"]
        assert int(row["claims"] or 0) == len(paper), name
        assert int(row["checks"] or 0) == len(study.claims) - len(paper), name
        if row["compared"]:
            counts = [int(row[k]) for k in ("agrees", "inconclusive", "differs")]
            assert sum(counts) == int(row["compared"]), name
    table = congsim_reference.scores_table(ROOT / "docs" / "scores.csv")
    assert all(f"| `{name}` |" in table for name in rows)
    assert "generated/scores.md" in (ROOT / "docs" / "reproduce.md").read_text(encoding="utf-8")
