"""One version: the workspace Cargo.toml's. The package metadata (maturin takes it from the
crate), the native module, `congsim.__version__`, `congsim --version`, CITATION.cff and the
changelog all say the same, and nothing else holds a copy."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from conftest import run_congsim

import congsim

ROOT = Path(__file__).resolve().parent.parent


def cargo_version() -> str:
    with open(ROOT / "Cargo.toml", "rb") as f:
        return tomllib.load(f)["workspace"]["package"]["version"]


def test_cargo_toml_is_the_only_source():
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert "version" not in project and "version" in project["dynamic"]
    for manifest in sorted(ROOT.glob("crates/*/Cargo.toml")):
        with open(manifest, "rb") as f:
            assert tomllib.load(f)["package"]["version"] == {"workspace": True}, manifest


def test_the_package_says_the_cargo_version():
    from congsim import _core

    assert congsim.__version__ == cargo_version()
    assert getattr(_core, "__version__", None) == cargo_version(), (
        "the native module predates its __version__ or another Cargo.toml: rebuild it (scripts/install.sh)"
    )


def test_the_command_prints_version_and_commit():
    done = run_congsim("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"congsim {cargo_version()} ("), done.stdout
    match = re.fullmatch(r"congsim \S+ \((\w+)\)\n", done.stdout)
    assert match, done.stdout
    commit = match.group(1)
    assert commit == "unknown" or re.fullmatch(r"[0-9a-f]{7,40}", commit), commit
    if os.environ.get("CI") and (ROOT / ".git").exists():
        # install.sh has just built the module from this checkout, so it carries HEAD.
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert commit == head


def test_citation_and_changelog_name_the_version():
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: \"?{re.escape(cargo_version())}\"?$", citation, re.MULTILINE)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert re.search(rf"^## \[{re.escape(cargo_version())}\]", changelog, re.MULTILINE), (
        f"CHANGELOG.md has no section for {cargo_version()}"
    )
