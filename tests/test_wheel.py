"""The wheel installs and runs without Rust: scripts/wheel_check.sh builds it with maturin
(reusing install.sh's build, so a warm cache compiles nothing), installs it into a fresh virtual
environment with no Rust toolchain on PATH, and runs the quick start from it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_and_runs_without_rust():
    if not (ROOT / ".venv" / "bin" / "maturin").exists():
        if os.environ.get("CI"):
            pytest.fail("CI must install maturin into .venv (scripts/install.sh)")
        pytest.skip("no .venv/bin/maturin (scripts/install.sh installs it)")
    # A cold Cargo cache builds the whole release (a few minutes on 2 cores); a warm one, nothing.
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "wheel_check.sh")],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    print(done.stdout)
    assert "ran the quick start from the wheel" in done.stdout
