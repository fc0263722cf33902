#!/usr/bin/env bash
# Regression check for the generated sources: configures a fresh build folder and builds the
# code generators' outputs one job at a time (-j1 once failed: generated/ did not exist yet
# when the pool tool wrote into it). Usage: scripts/check-fresh-build.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$(mktemp -d "${TMPDIR:-/tmp}/eco-fresh.XXXXXX")}
trap 'rm -rf "$build"' EXIT
rm -rf "$build"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DECO_BUILD_TESTS=OFF -DECO_BUILD_VIEWER=OFF \
  -DECO_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j1 --target eco_pool_data
cmake --build "$build" -j1 --target eco_schemas
for f in pool_data.cpp tile_generated.h; do
  [[ -s "$build/generated/$f" ]] || { echo "check-fresh-build: generated/$f missing" >&2; exit 1; }
done
echo "check-fresh-build: ok"
