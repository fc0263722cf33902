#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer) in their
# own folder, replays every saved crash in fuzz/regressions/<target>/, then fuzzes each target
# for a bounded time from its seed corpus in fuzz/corpus/<target>/. Exits non-zero on any
# crash, leak, hang (-timeout), memory blow-up (-rss_limit_mb) or sanitizer report; the
# offending input is left in the artifact folder it prints.
# Usage: scripts/fuzz.sh [TARGET...]   (default: all of image raw config manifest tile geojson gltf tiff)
# Environment: ECO_FUZZ_SECONDS per target (default 60), ECO_FUZZ_TIMEOUT seconds for one
# input (default 10; raise it on a machine busy with other work, where a slow-scheduled input
# can pass 10 s), ECO_FUZZ_BUILD_DIR (default build-fuzz), ECO_FUZZ_WORK (new corpus entries
# and artifacts; default a fresh temp folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ECO_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${ECO_FUZZ_SECONDS:-60}
work=${ECO_FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ecofuzz-run.XXXXXX")}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(image raw config manifest tile geojson gltf tiff)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DECO_FUZZ=ON -DECO_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

# halt_on_error + abort: a sanitizer report is a crash to libFuzzer, which saves the input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
limits=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout="${ECO_FUZZ_TIMEOUT:-10}")

failed=()
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  regressions="$root/fuzz/regressions/$t"
  artifacts="$work/artifacts/$t/"
  mkdir -p "$artifacts" "$work/corpus/$t"
  log="$work/$t.log"
  if compgen -G "$regressions/*" >/dev/null; then
    echo "fuzz $t: replaying $(ls "$regressions" | wc -l) saved crash input(s)"
    if ! "$bin" "${limits[@]}" -artifact_prefix="$artifacts" "$regressions"/* >"$work/$t.replay.log" 2>&1; then
      echo "fuzz $t: FAILED replaying fuzz/regressions/$t (log: $work/$t.replay.log)"
      grep -m3 -E "ERROR|runtime error|SUMMARY|Test unit written|terminate" "$work/$t.replay.log" || true
      failed+=("$t (regression)")
      continue
    fi
  fi
  # New entries go to the scratch corpus (first folder); the committed seeds stay as they are.
  if "$bin" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts" \
      "$work/corpus/$t" "$root/fuzz/corpus/$t" >"$log" 2>&1; then
    runs=$(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
    echo "fuzz $t: ok, $runs runs in ${seconds} s, ${cov:-cov: ?}"
  else
    echo "fuzz $t: FAILED (log: $log; input saved in $artifacts)"
    grep -m5 -E "ERROR|runtime error|SUMMARY|Test unit written|terminate|deadly signal|#[0-9]+ 0x" "$log" || true
    failed+=("$t")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failures in: ${failed[*]}. Reproduce: $build/fuzz/fuzz_TARGET INPUT; keep a crashing input in fuzz/regressions/TARGET/"
  exit 1
fi
echo "fuzz: all targets passed (${seconds} s each)"
[[ -n "${ECO_FUZZ_WORK:-}" ]] || rm -rf "$work"
