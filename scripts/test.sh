#!/usr/bin/env bash
# Every check and every test, Rust and Python. Run scripts/install.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
# The crates' API documentation, warnings (a link to a private item, a broken link) as errors.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --exclude congsim-py --quiet
.venv/bin/ruff check python tests bench docs examples
.venv/bin/ruff format --check python tests bench docs examples
.venv/bin/mypy
# One test per core (pytest-xdist): the study reproductions dominate and run side by side.
.venv/bin/python -m pytest -q -n auto
# The user guide, warnings as errors; it runs the example gallery (examples/plot_*.py).
.venv/bin/sphinx-build -W --keep-going -q -b html docs out/docs
