#!/usr/bin/env bash
# Installs congsim and its development tools into ./.venv (created if missing).
# Needs: Python >= 3.10 with venv, and a Rust toolchain (cargo) for the native module.
# CARGO_TARGET_DIR, if set, is honoured, so a cache outside the clone makes rebuilds incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "maturin>=1.9,<2"
# Build the native module in release mode, with profile-guided optimisation when rustc's
# llvm-profdata is installed (scripts/pgo.sh), and install the package in editable mode, with
# the development and documentation tools.
pgo_flags=$(bash scripts/pgo.sh)
RUSTFLAGS="${RUSTFLAGS:-} $pgo_flags" .venv/bin/python -m pip install --quiet --editable ".[dev,docs]"
.venv/bin/congsim --help > /dev/null
echo "congsim installed in .venv (run: .venv/bin/congsim --help)"
