#!/usr/bin/env bash
# Installs what is missing (test extras included), builds everything and runs the test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ECO_BUILD_DIR:-$root/build-tests}

"$root/scripts/install-deps.sh" --tests
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DECO_WERROR=ON
cmake --build "$build" -j"$(nproc)"
# The npm packages of the export interop test (tests/interop/package.json, exact versions in
# its lock file) go into the build folder; without them that test skips.
if command -v npm >/dev/null; then
  mkdir -p "$build/interop-npm"
  cp "$root/tests/interop/package.json" "$root/tests/interop/package-lock.json" "$build/interop-npm/"
  (cd "$build/interop-npm" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "test.sh: npm ci failed in $build/interop-npm; the export interop test will skip" >&2
fi
# Vulkan tests run on Mesa lavapipe unless the caller picked a driver.
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 700 "$XDG_RUNTIME_DIR"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
# Output bytes must not depend on the compiler: the sample bake built with GCC and with clang,
# compared file by file (two ecobake-only builds, a few minutes). ECO_SKIP_COMPILERS=1 skips it.
if [[ "${ECO_SKIP_COMPILERS:-0}" != 1 ]]; then
  "$root/scripts/compare-compilers.sh"
fi
# Fuzzing under ASan + UBSan in its own clang build folder: ECO_FUZZ_SECONDS per target
# (default 30; five targets), ECO_SKIP_FUZZ=1 to leave it out.
if [[ "${ECO_SKIP_FUZZ:-0}" != 1 ]]; then
  ECO_FUZZ_SECONDS=${ECO_FUZZ_SECONDS:-30} "$root/scripts/fuzz.sh"
fi
