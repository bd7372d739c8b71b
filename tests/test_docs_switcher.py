"""The docs' version switcher lists every released version of CHANGELOG.md and the running
release, and conf.py puts it in the navbar and selects the running release. The list is made by
docs/_ext/congsim_switcher.py, called here directly (no Sphinx build)."""

from __future__ import annotations

import json
import re
import runpy
import sys
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import congsim_switcher  # noqa: E402

RELEASE = installed_version("congsim")


def changelog_releases(text: str) -> list[str]:
    """Read here without the module's parser: `## [x.y.z] - date` headings, newest first."""
    return re.findall(r"^## \[(\d+\.\d+\.\d+[^\]]*)\]", text, re.M)


RELEASED = changelog_releases((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def conf() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "docs" / "conf.py"))


def check_well_formed(entries: list[dict[str, Any]]) -> None:
    assert isinstance(entries, list) and entries
    for entry in entries:
        assert set(entry) <= {"name", "version", "url", "preferred"}, entry
        for key in ("name", "version", "url"):
            assert isinstance(entry[key], str) and entry[key], entry
        # A version's root, relative to another's: `<site>/<version>/` side by side.
        assert re.fullmatch(r"\.\./[^/\s]+/", entry["url"]), entry
    versions = [e["version"] for e in entries]
    urls = [e["url"] for e in entries]
    assert len(set(versions)) == len(versions), versions
    assert len(set(urls)) == len(urls), urls
    assert json.loads(json.dumps(entries)) == entries


def test_the_changelog_has_a_released_version():
    assert RELEASED, "no `## [x.y.z]` heading in CHANGELOG.md"


def test_switcher_lists_every_released_version_and_the_running_release():
    entries = congsim_switcher.switcher_entries(RELEASE)
    check_well_formed(entries)
    by_version = {e["version"]: e for e in entries}
    for v in RELEASED:
        assert v in by_version, f"released version {v} missing from the switcher"
        assert by_version[v]["url"] == f"../{v}/"
    # The running release is selected by exactly one entry; if the changelog has not released
    # it yet, that entry is the dev docs.
    assert [e["version"] for e in entries].count(RELEASE) == 1
    if RELEASE not in RELEASED:
        assert by_version[RELEASE]["url"] == "../dev/"
    # The dev docs (the [Unreleased] section) are listed first; the newest release is preferred.
    assert entries[0]["url"] == "../dev/"
    assert [e["version"] for e in entries[1:]] == RELEASED
    assert [e["version"] for e in entries if e.get("preferred")] == RELEASED[:1]


def test_an_unreleased_running_version_is_the_dev_entry(tmp_path):
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(
        "# Changelog\n\n## [Unreleased]\n\n- x\n\n## [0.2.0] - 2026-12-01\n\n## [0.1.0] - 2026-11-26\n",
        encoding="utf-8",
    )
    entries = congsim_switcher.switcher_entries("0.3.0", changelog)
    check_well_formed(entries)
    assert [(e["version"], e["url"]) for e in entries] == [
        ("0.3.0", "../dev/"),
        ("0.2.0", "../0.2.0/"),
        ("0.1.0", "../0.1.0/"),
    ]
    released = congsim_switcher.switcher_entries("0.2.0", changelog)
    assert [e["version"] for e in released] == ["dev", "0.2.0", "0.1.0"]


def test_a_malformed_changelog_heading_is_an_error(tmp_path):
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("## [Unreleased]\n\n## [next]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="next"):
        congsim_switcher.switcher_entries("0.1.0", changelog)


def test_conf_enables_the_switcher_for_the_running_release(conf):
    assert "congsim_switcher" in conf["extensions"]
    assert conf["release"] == RELEASE
    options = conf["html_theme_options"]
    assert "version-switcher" in options["navbar_end"]
    assert options["check_switcher"] is False  # the build reads nothing from the network
    switcher = options["switcher"]
    assert switcher["version_match"] == conf["release"]
    json_url = switcher["json_url"]
    assert not urlparse(json_url).scheme and not json_url.startswith("/")
    versions = [e["version"] for e in congsim_switcher.switcher_entries(conf["release"])]
    assert versions.count(switcher["version_match"]) == 1


def test_the_build_writes_the_list_where_conf_points(conf, tmp_path):
    json_url = conf["html_theme_options"]["switcher"]["json_url"]
    path = congsim_switcher.write_switcher(tmp_path, json_url, conf["release"])
    assert path == tmp_path / json_url
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == congsim_switcher.switcher_entries(conf["release"])
