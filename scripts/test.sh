#!/usr/bin/env bash
# Every check and every test, Rust and Python. Run scripts/install.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --exclude congsim-py --quiet
.venv/bin/ruff check python tests bench
.venv/bin/ruff format --check python tests bench
.venv/bin/mypy
.venv/bin/python -m pytest -q
