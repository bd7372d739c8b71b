"""The list of versions behind the version switcher (pydata-sphinx-theme's `version-switcher`
navbar component), generated from CHANGELOG.md on every build, so it cannot go stale.

Every released `## [x.y.z]` heading of the changelog is an entry, and so is `dev`, the docs of the
`[Unreleased]` work; the running release (`release` in conf.py, the theme's `version_match`) is
always one of them. The list is written, after the build, where conf.py's `json_url` points in
the built site. Entry urls are relative (`../0.1.0/`): the versions are published side by side as
`<site>/<version>/`, `dev` included. `tests/test_docs_switcher.py` calls `switcher_entries()`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = ROOT / "CHANGELOG.md"
#: The entry (and the folder of the published site) of the docs built from unreleased work.
DEV = "dev"

_HEADING = re.compile(r"^## \[([^\]]+)\]", re.MULTILINE)
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?")

# The theme joins an entry's url and the page's path (`../0.1.0/` + `auto_examples/x.html`) into
# a link relative to the page; on a page in a folder, this prefixes the way up to the root of the
# version (`data-content_root`), so a url relative to that root works from every page.
ROOTED_LINKS_JS = """
document.addEventListener("DOMContentLoaded", () => {
  const root = document.documentElement.dataset.content_root || "";
  const absolute = /^([a-z][a-z0-9+.-]*:|\\/)/i;
  const fix = (menu) => menu.querySelectorAll("a").forEach((a) => {
    const href = a.getAttribute("href");
    if (root && href && !a.dataset.congsimRooted && !absolute.test(href)) {
      a.setAttribute("href", root + href);
      a.dataset.congsimRooted = "1";
    }
  });
  document.querySelectorAll(".version-switcher__menu").forEach((menu) => {
    fix(menu);
    new MutationObserver(() => fix(menu)).observe(menu, { childList: true });
  });
});
"""


def released_versions(changelog_text: str) -> list[str]:
    """The versions of the changelog's `## [x.y.z]` headings, in its order (newest first),
    without `[Unreleased]`; a heading that is not a version, or a repeated one, is an error."""
    versions = [v for v in _HEADING.findall(changelog_text) if v.lower() != "unreleased"]
    for v in versions:
        if not _VERSION.fullmatch(v):
            raise ValueError(f"CHANGELOG.md: heading [{v}] is neither a version nor [Unreleased]")
    if len(set(versions)) != len(versions):
        raise ValueError(f"CHANGELOG.md lists a version twice: {versions}")
    return versions


def switcher_entries(release: str, changelog: Path = CHANGELOG) -> list[dict[str, Any]]:
    """The switcher's entries: `dev`, then every released version, newest first (the preferred
    one). A running release the changelog does not list yet is the `dev` entry's version, so
    that `version_match` (the release) always selects an entry."""
    released = released_versions(changelog.read_text(encoding="utf-8"))
    if release in released:
        dev = {"name": DEV, "version": DEV, "url": f"../{DEV}/"}
    else:
        dev = {"name": f"{DEV} ({release})", "version": release, "url": f"../{DEV}/"}
    entries: list[dict[str, Any]] = [dev]
    for v in released:
        entries.append({"name": v, "version": v, "url": f"../{v}/"})
    if released:
        entries[1]["preferred"] = True  # the newest release
    return entries


def write_switcher(outdir: Path, json_url: str, release: str, changelog: Path = CHANGELOG) -> Path:
    """Writes the entries to `json_url`, a path relative to the root of the built site."""
    if urlparse(json_url).scheme or json_url.startswith("/"):
        raise ValueError(f"switcher json_url {json_url!r} must be relative to the built site")
    path = outdir / json_url
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(switcher_entries(release, changelog), indent=2) + "\n", encoding="utf-8")
    return path


def _switcher_option(app: Any) -> dict[str, Any]:
    switcher = app.config.html_theme_options.get("switcher")
    if not isinstance(switcher, dict) or "json_url" not in switcher:
        raise ValueError("congsim_switcher needs html_theme_options['switcher']['json_url']")
    return switcher


def setup(app: Any) -> dict[str, Any]:
    # Read the changelog before the build too, so that a malformed heading fails it at once.
    app.connect("builder-inited", lambda app: switcher_entries(app.config.release))

    def build_finished(app: Any, exception: Exception | None) -> None:
        if exception is None and app.builder.format == "html":
            write_switcher(Path(app.outdir), _switcher_option(app)["json_url"], app.config.release)

    app.connect("build-finished", build_finished)
    app.add_js_file(None, body=ROOTED_LINKS_JS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
