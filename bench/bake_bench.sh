#!/usr/bin/env bash
# End-to-end ecobake figures: instances/s, peak memory, bytes/instance, 1 vs 2 threads.
# Usage: bench/bake_bench.sh [BUILD_DIR] [REPEATS] [CONFIG...]
#   (prints one line per run, then medians; default configs: the sample world and, where
#   ../shared/data/dem exists, the Puget Sound DEM at 75.7 M instances)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repeats=${2:-3}
ecobake=$build/apps/ecobake/ecobake
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$root/bench/bake_common.sh"

configs=("${@:3}")
if [[ ${#configs[@]} -eq 0 ]]; then
  configs=("$root/configs/temperate_mountain.json")
  if [[ -f "$root/../shared/data/dem/puget_sound_160m.png" ]]; then
    configs+=("$root/bench/configs/puget_forest.json")
  fi
fi

run=0
for config in "${configs[@]}"; do
  for threads in 1 2; do
    rates=()
    for ((i = 0; i < repeats; i++)); do
      dir=$(run_output "$out" "$run")
      run=$((run + 1))
      log=$("$ecobake" bake "$config" -o "$dir" -j "$threads")
      line=$(grep -E "^[0-9]+ instances in" <<<"$log")
      mem=$(grep "peak memory" <<<"$log")
      echo "$(basename "$config") threads=$threads: $line; $mem"
      echo "  $(grep "^time:" <<<"$log")"
      rates+=("$(sed -E 's/.* ([0-9.]+) M instances\/s.*/\1/' <<<"$line")")
    done
    median=$(printf '%s\n' "${rates[@]}" | median)
    echo "MEDIAN $(basename "$config") threads=$threads: $median M instances/s"
  done
done
