from __future__ import annotations

import subprocess
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


def run_congsim(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs the `congsim` command through the interpreter that runs the tests."""
    command = [sys.executable, "-m", "congsim", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
