#!/usr/bin/env bash
# Installs what is missing, builds Release and bakes the bundled sample world.
# Usage: scripts/run-sample.sh [CONFIG] [OUTDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-$root/configs/temperate_mountain.json}
out=${2:-$root/out/sample}
build=${ECO_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DECO_BUILD_TESTS=OFF -DECO_BUILD_BENCH=OFF
cmake --build "$build" --target ecobake -j"$(nproc)"
"$build/apps/ecobake/ecobake" bake "$config" -o "$out"
echo "bake written to: $out"
