#!/usr/bin/env bash
# Builds ecobake with GCC and with clang (Release, folders build-cmp-gcc and build-cmp-clang)
# and bakes one config with each, with every raster layer (--layers masks): the two bakes must
# be byte-identical (tiles, manifest, terrain, layers). Two ecobake-only builds; scripts/test.sh runs it (ECO_SKIP_COMPILERS=1 skips).
# Usage: scripts/compare-compilers.sh [CONFIG]   (default: the sample world)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-$root/configs/temperate_mountain.json}
out=$(mktemp -d "${TMPDIR:-/tmp}/eco-cmp.XXXXXX")
trap 'rm -rf "$out"' EXIT
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
for cc in gcc clang; do
  cxx=$([[ $cc == gcc ]] && echo g++ || echo clang++)
  build=$root/build-cmp-$cc
  # ECO_BUILD_VIEWER=OFF must not need Vulkan or GLFW: finding them is disabled here, so a
  # dependency of the bake on the viewer's packages fails this configure.
  CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DECO_WERROR=ON -DECO_BUILD_TESTS=OFF \
    -DECO_BUILD_VIEWER=OFF -DECO_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_glfw3=ON "${launcher[@]}" >/dev/null
  cmake --build "$build" -j"$(nproc)" --target ecobake
  "$build/apps/ecobake/ecobake" bake "$config" -o "$out/$cc" --layers masks >/dev/null
done
if diff -r "$out/gcc" "$out/clang" >/dev/null; then
  echo "compare-compilers: identical ($(find "$out/gcc" -type f | wc -l) files)"
else
  diff -rq "$out/gcc" "$out/clang" | head -20
  echo "compare-compilers: GCC and clang bakes differ" >&2
  exit 1
fi
