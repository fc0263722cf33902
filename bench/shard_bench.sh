#!/usr/bin/env bash
# Sharded bakes (issue #19): the CPU that N shards cost together against one process, the
# slowest shard, and the merge, on one machine with every process single-threaded (-j 1), so
# CPU seconds are comparable whatever else the machine runs.
# Usage: bench/shard_bench.sh [BUILD_DIR] [REPEATS] [CONFIG] [N...]
#   default: 3 repeats of the Puget Sound DEM config (bench/configs/puget_forest.json, needs
#   ../shared/data/dem) with N = 2 4 8. Prints one line per run, then the medians as a
#   Markdown table (README "Sharded bakes"; its figures with TMPDIR=/dev/shm). Every merge,
#   copied and --link, is compared with the one-process bake (diff -r); a difference stops the
#   script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repeats=${2:-3}
config=${3:-$root/bench/configs/puget_forest.json}
counts=("${@:4}")
[[ ${#counts[@]} -gt 0 ]] || counts=(2 4 8)
ecobake=$build/apps/ecobake/ecobake
if [[ ! -f "$config" || ( "$config" == */puget_forest.json && ! -f "$root/../shared/data/dem/puget_sound_160m.png" ) ]]; then
  echo "shard_bench: $config or its DEM (../shared/data/dem) is missing; skipped" >&2
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$root/bench/bake_common.sh"

# Runs a command; appends "wall user+sys" seconds to the named file.
timed() {
  local file=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$out/time" "$@" >/dev/null
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$out/time" >>"$file"
}

same_files() {  # every file of two folders equal, none missing on either side
  diff -r -q "$1" "$2" >/dev/null || { echo "shard_bench: $2 differs from $1" >&2; exit 1; }
}

for ((rep = 0; rep < repeats; rep++)); do
  rm -rf "$out"/full "$out"/parts "$out"/merged
  : >"$out/one"
  timed "$out/one" "$ecobake" bake "$config" -o "$out/full" -j 1 -q
  read -r wall cpu <"$out/one"
  echo "run $rep: one process: $cpu s CPU, $wall s"
  echo "$cpu" >>"$out/one-cpu"
  for n in "${counts[@]}"; do
    rm -rf "$out"/parts "$out"/merged
    : >"$out/shards"
    for ((i = 1; i <= n; i++)); do
      timed "$out/shards" "$ecobake" bake "$config" -o "$out/parts/$i" -j 1 -q --shard "$i/$n"
    done
    : >"$out/merge"
    sync
    timed "$out/merge" "$ecobake" merge "$out/parts" -o "$out/merged" -q
    same_files "$out/full" "$out/merged"
    rm -rf "$out/merged"
    : >"$out/link"
    timed "$out/link" "$ecobake" merge --link "$out/parts" -o "$out/merged" -q
    same_files "$out/full" "$out/merged"
    total=$(awk '{s += $2} END {printf "%.2f", s}' "$out/shards")
    slowest=$(awk '$2 > m {m = $2} END {printf "%.2f", m}' "$out/shards")
    read -r mwall mcpu <"$out/merge"
    read -r lwall lcpu <"$out/link"
    overhead=$(awk -v t="$total" -v o="$cpu" 'BEGIN {printf "%+.1f", (t / o - 1) * 100}')
    balance=$(awk -v s="$slowest" -v t="$total" -v n="$n" 'BEGIN {printf "%.2f", s / (t / n)}')
    echo "run $rep: N=$n: shards $total s CPU ($overhead %), slowest shard $slowest s (x$balance of the mean), merge $mwall s, merge --link $lwall s"
    echo "$total $overhead $slowest $balance $mwall $lwall" >>"$out/n$n"
  done
done

bytes=$(du -sb "$out/full" | cut -f1)
echo
echo "medians of $repeats runs, $(basename "$config"), every process -j 1, $(awk '{printf "%.0f", $1 / 1e6}' <<<"$bytes") MB of output:"
echo
echo "| shards N | CPU of all shards | overhead vs one process | slowest shard (CPU) | slowest / mean | merge (wall) | merge --link (wall) |"
echo "|---|---|---|---|---|---|---|"
one=$(median <"$out/one-cpu")
echo "| 1 (plain bake) | $one s | - | $one s | 1.00 | - | - |"
for n in "${counts[@]}"; do
  col() { awk -v c="$1" '{print $c}' "$out/n$n" | median; }
  echo "| $n | $(col 1) s | $(col 2 | awk '{printf "%+.1f", $1}') % | $(col 3) s | $(col 4) | $(col 5) s | $(col 6) s |"
done
