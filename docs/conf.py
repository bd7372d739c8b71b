"""Sphinx configuration of the congsim user guide (`sphinx-build -W -b html docs out/docs`)."""

from __future__ import annotations

import sys
from importlib.metadata import version as installed_version
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "congsim"
author = "the congsim developers"
copyright = "2026, the congsim developers"
# The installed package's version, which maturin takes from the workspace Cargo.toml.
release = installed_version("congsim")
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "congsim_reference",
    "congsim_switcher",
]
# A copy button on every code block; from a console block it copies the commands without their
# `$ ` prompts and without the output shown under them.
copybutton_prompt_text = "$ "
copybutton_only_copy_prompt_lines = True
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["colon_fence", "dollarmath", "substitution"]
myst_substitutions = {"release": release}
myst_heading_anchors = 3
exclude_patterns = [
    "_build",
    "columns.toml",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
]
suppress_warnings = ["myst.header"]

html_theme = "pydata_sphinx_theme"
html_title = f"congsim {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # The version switcher: congsim_switcher writes its list of versions (from CHANGELOG.md) to
    # `json_url` in the built site; the theme reads it there, relative to the version's root.
    # No check at build time, which would read it from the sources or the network.
    "switcher": {"json_url": "_static/switcher.json", "version_match": release},
    "check_switcher": False,
    "navbar_end": ["version-switcher", "theme-switcher", "navbar-icon-links"],
}

autodoc_member_order = "bysource"
autodoc_typehints = "description"

# The tutorial example runs at build time (it is a test of the docs), as matplotlib's Agg backend.
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "abort_on_example_error": True,
    "remove_config_comments": True,
    "run_stale_examples": True,
}
