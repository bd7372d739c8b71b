from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> list[str]:
    """The `congsim` command, run through the interpreter that runs the tests."""
    return [sys.executable, "-m", "congsim"]
