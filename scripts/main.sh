#!/usr/bin/env bash
# The main job: reproduce every registered study (on its embedded defaults) and write the HTML
# report, then run every example scenario. Results go under out/.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/congsim reproduce all --out out/reproductions
.venv/bin/congsim report out/reproductions
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    .venv/bin/congsim run "$scenario" --out "out/scenarios/$name"
done
