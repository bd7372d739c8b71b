from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Files whose tests take longest, started first: under pytest-xdist each file runs on one
#: worker (pyproject.toml's `--dist loadfile`), so the others fill the rest of the time.
LONGEST_FIRST = (
    "test_reproduce.py",
    "test_wheel.py",
    "test_digests.py",
    "test_bad_inputs.py",
    "test_docs_console.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each file's tests keep their order


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> list[str]:
    """The `congsim` command, run through the interpreter that runs the tests."""
    return [sys.executable, "-m", "congsim"]


def run_congsim(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs the `congsim` command through the interpreter that runs the tests."""
    command = [sys.executable, "-m", "congsim", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
