#!/usr/bin/env bash
# Raster layers (issue #20): what writing them costs on a bake. Bakes CONFIG (default: the
# sample world, which has a river, so every bake writes the river layer) without and with
# `--layers masks`, interleaved, REPEATS times each, and prints per run the end-to-end
# seconds, the layers' own seconds and bytes as `ecobake bake` reports them, then the medians
# and the ratio of the two bakes' times as a Markdown table (README "Benchmarks").
# Usage: bench/layers_bench.sh [BUILD_DIR] [REPEATS] [THREADS] [CONFIG]
#   defaults: build, 5, 2, configs/temperate_mountain.json. Output goes under $TMPDIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repeats=${2:-5}
threads=${3:-2}
config=${4:-$root/configs/temperate_mountain.json}
ecobake=$build/apps/ecobake/ecobake
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$root/bench/bake_common.sh"

# One bake; appends "seconds layer_seconds layer_bytes total_bytes" to the named file.
bake_once() {
  local file=$1 dir=$2
  shift 2
  local log
  log=$("$ecobake" bake "$config" -o "$dir" -j "$threads" "$@" 2>"$out/log") || { cat "$out/log" >&2; exit 1; }
  local seconds layer_seconds
  seconds=$(sed -n 's/.*, \([0-9.]*\) s, [0-9.]* M instances\/s$/\1/p' <<<"$log")
  layer_seconds=$(sed -n 's/.*, layers \([0-9.]*\) s (.*/\1/p' <<<"$log")
  bytes() { find "$1" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
  echo "$seconds ${layer_seconds:-0} $(bytes "$dir/layers") $(bytes "$dir")" >>"$file"
}

for ((i = 0; i < repeats; i++)); do
  bake_once "$out/plain" "$(run_output "$out" "p$i")"
  bake_once "$out/masks" "$(run_output "$out" "m$i")" --layers masks
  echo "run $i: plain $(tail -1 "$out/plain"), masks $(tail -1 "$out/masks")" >&2
done

col() { awk -v c="$2" '{print $c}' "$1" | median; }
printf '| bake | runs | seconds, median | layers seconds, median | layer bytes | bake bytes |\n|---|---|---|---|---|---|\n'
for kind in plain masks; do
  printf '| %s | %d | %.2f | %.3f | %s | %s |\n' "$([[ $kind == plain ]] && echo "without --layers masks" || echo "--layers masks")" \
    "$repeats" "$(col "$out/$kind" 1)" "$(col "$out/$kind" 2)" "$(col "$out/$kind" 3)" "$(col "$out/$kind" 4)"
done
awk -v a="$(col "$out/masks" 1)" -v b="$(col "$out/plain" 1)" 'BEGIN {printf "ratio of medians (masks / plain): %.3f\n", a / b}'
