"""The Fall & Floyd table of docs/validation.md is generated: congsim's columns must equal a fresh run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fall_floyd", ROOT / "bench" / "fall_floyd.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fall_floyd"] = module
    spec.loader.exec_module(module)
    return module


def test_published_table_matches_a_fresh_run() -> None:
    bench = load_bench()
    page = bench.DOC.read_text()
    start = page.index(bench.DOC_BEGIN) + len(bench.DOC_BEGIN)
    published = page[start : page.index(bench.DOC_END)].strip().splitlines()
    # Our columns come first; the ns-2 columns need ns-2 and are not re-checked here.
    ours_only = [line.split("|")[1:7] for line in published]
    fresh = [line.split("|")[1:7] for line in bench.table(with_ns2=False).splitlines()]
    assert ours_only[2:] == fresh[2:]
    assert len(fresh) == 2 + 4 * len(bench.VARIANTS)
