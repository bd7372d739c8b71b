#!/usr/bin/env bash
# Builds congsim's wheel with maturin, installs it into a fresh virtual environment whose PATH
# holds no Rust toolchain, and runs the quick start from it: `congsim --version`, a scenario,
# `validate --routes`, a small sweep and the Python API. Run scripts/install.sh first.
#
# The wheel reuses install.sh's build: the same CARGO_TARGET_DIR, the release profile, the same
# interpreter (so the same PyO3 configuration) and the same RUSTFLAGS, so on a warm cache Cargo
# compiles nothing and maturin only packs the module. Any difference would cost a full release
# build (minutes), not a wrong result.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/congsim-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

# install.sh passes "${RUSTFLAGS:-} $(bash scripts/pgo.sh)": the profile-use flag when pgo.sh
# finds an llvm-profdata of rustc's LLVM version. The same test here, reusing the profile that
# pgo.sh wrote instead of training again.
target="${CARGO_TARGET_DIR:-$root/target}"
llvm=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
pgo_flags=""
for candidate in "llvm-profdata-$llvm" llvm-profdata; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" --version 2>/dev/null | grep -q "LLVM version $llvm\." \
        && [ -f "$target/pgo/congsim.profdata" ]; then
        pgo_flags="-Cprofile-use=$target/pgo/congsim.profdata"
        break
    fi
done

started=$(date +%s)
RUSTFLAGS="${RUSTFLAGS:-} $pgo_flags" .venv/bin/maturin build --release \
    --interpreter "$root/.venv/bin/python" --out "$work/dist" >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; echo "wheel check: maturin build failed" >&2; exit 1; }
wheels=("$work"/dist/congsim-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] \
    || { echo "wheel check: expected one wheel in $work/dist" >&2; exit 1; }
wheel=${wheels[0]}
compiled=$(grep -c "Compiling " "$work/build.log" || true)
echo "wheel check: built $(basename "$wheel") in $(( $(date +%s) - started )) s" \
    "(Cargo compiled $compiled crates; 0 on a warm cache after install.sh at this commit)"

# One version: the workspace Cargo.toml's is the wheel's.
version=$(.venv/bin/python - "$wheel" <<'EOF'
import re
import sys
import zipfile

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

with open("Cargo.toml", "rb") as f:
    cargo = tomllib.load(f)["workspace"]["package"]["version"]
with zipfile.ZipFile(sys.argv[1]) as wheel:
    [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    found = re.search(r"^Version: (.+)$", wheel.read(metadata).decode(), re.MULTILINE)
assert found, "the wheel's METADATA has no Version"
assert found.group(1) == cargo, f"the wheel says {found.group(1)}, Cargo.toml says {cargo}"
print(cargo)
EOF
)

# A fresh environment, and a PATH without cargo, rustc or rustup: nothing can fall back to
# building from source (--only-binary for the dependencies too).
started=$(date +%s)
clean_path="$work/venv/bin:/usr/bin:/bin"
for tool in cargo rustc rustup; do
    if found=$(PATH=$clean_path command -v "$tool"); then
        echo "wheel check: $found is on the clean PATH ($clean_path)" >&2
        exit 1
    fi
done
.venv/bin/python -m venv "$work/venv"
clean() { env -u VIRTUAL_ENV PATH="$clean_path" "$@"; }
# --no-compile: the quick start compiles what it imports; the rest would be compiled for nothing
# (two thirds of the install's time).
clean python -m pip install --quiet --disable-pip-version-check --no-compile --only-binary=:all: "$wheel"
echo "wheel check: installed into a fresh environment in $(( $(date +%s) - started )) s"

# The quick start, from a folder outside the source tree.
started=$(date +%s)
mkdir "$work/run"
cd "$work/run"
shown=$(clean congsim --version)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ "$shown" = "congsim $version ($commit)" ] \
    || { echo "wheel check: congsim --version says '$shown', not 'congsim $version ($commit)'" >&2; exit 1; }
clean congsim run "$root/scenarios/single-flow.toml" --out out/single-flow >/dev/null
[ -s out/single-flow/flows.csv ] || { echo "wheel check: no flows.csv" >&2; exit 1; }
clean congsim validate --routes "$root/scenarios/single-flow.toml" >/dev/null
clean congsim sweep "$root/plans/reno-vs-tahoe-buffers.toml" --out out/sweep >/dev/null
clean python - "$root/scenarios/single-flow.toml" "$work/venv" <<'EOF'
import sys

import congsim
from congsim import _core

for module in (congsim, _core):
    assert module.__file__.startswith(sys.argv[2]), f"{module.__name__} from {module.__file__}"
scenario = congsim.load(sys.argv[1], overrides={"tcp.variant": "newreno"})
flows = congsim.run(scenario).flows
assert len(flows) == 1 and flows["goodput_bps"].iloc[0] > 0, flows
EOF
echo "wheel check: $shown ran the quick start from the wheel in $(( $(date +%s) - started )) s"
