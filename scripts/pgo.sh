#!/usr/bin/env bash
# Profile-guided optimisation of congsim's native code. Builds an instrumented congsim-native
# (rustc -Cprofile-generate) in its own target directory, runs every example scenario with it,
# merges the profile with the llvm-profdata of rustc's own LLVM version, and prints the RUSTFLAGS
# that build with it (install.sh and bench/dumbbell.py pass them to their release builds).
# Without a matching llvm-profdata (Debian: apt-get install llvm-<version>) it prints nothing
# and says so on stderr: the build is then a plain release build, about 12 % slower.
# CARGO_TARGET_DIR, if set, is honoured (the profile lives in $CARGO_TARGET_DIR/pgo).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
llvm=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
profdata=""
for candidate in "llvm-profdata-$llvm" llvm-profdata; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" --version 2>/dev/null | grep -q "LLVM version $llvm\."; then
        profdata="$candidate"
        break
    fi
done
if [ -z "$profdata" ]; then
    echo "pgo: no llvm-profdata for LLVM $llvm (apt-get install llvm-$llvm); plain release build" >&2
    exit 0
fi
dir="$target/pgo"
mkdir -p "$dir"
RUSTFLAGS="-Cprofile-generate=$dir/raw" CARGO_TARGET_DIR="$dir/train" \
    cargo build --release --quiet -p congsim-cli >&2
# The profile is kept while the instrumented binary, the scenarios and llvm-profdata are the
# ones it came from: a new profile (its weights come from wall times, so it is never the same
# file twice) would make Cargo rebuild every crate built with it, minutes for an unchanged tree.
key=$( { sha256sum "$dir/train/release/congsim-native" scenarios/*.toml; "$profdata" --version; } \
    | sha256sum | cut -d' ' -f1)
if [ -f "$dir/congsim.profdata" ] && [ "$(cat "$dir/congsim.profdata.key" 2>/dev/null)" = "$key" ]; then
    echo "-Cprofile-use=$dir/congsim.profdata"
    exit 0
fi
rm -rf "$dir/raw" "$dir/out" "$dir/scenarios" "$dir/congsim.profdata.key"
mkdir -p "$dir/raw" "$dir/scenarios"
# One profile per scenario, weighted by the inverse of its run time, so that each example
# counts about the same and the longest (ATM ABR) does not decide alone what is hot.
inputs=()
times=()
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    started=$(date +%s%N)
    "$dir/train/release/congsim-native" run "$scenario" --quiet --out "$dir/out" >/dev/null
    times+=($(( ($(date +%s%N) - started) / 1000000 + 1 )))
    "$profdata" merge -o "$dir/scenarios/$name.profdata" "$dir/raw"
    rm -rf "$dir/raw"/*
    inputs+=("$dir/scenarios/$name.profdata")
done
longest=$(printf '%s\n' "${times[@]}" | sort -n | tail -1)
weighted=()
for i in "${!inputs[@]}"; do
    weight=$(( longest / times[i] ))
    weight=$(( weight < 1 ? 1 : weight > 100 ? 100 : weight ))
    weighted+=("--weighted-input=$weight,${inputs[i]}")
done
"$profdata" merge -o "$dir/congsim.profdata" "${weighted[@]}"
echo "$key" > "$dir/congsim.profdata.key"
echo "-Cprofile-use=$dir/congsim.profdata"
