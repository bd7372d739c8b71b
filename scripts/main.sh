#!/usr/bin/env bash
# The main job: run every scenario in scenarios/ and write its tables under out/<name>/.
set -euo pipefail
cd "$(dirname "$0")/.."
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    .venv/bin/congsim run "$scenario" --out "out/$name"
done
