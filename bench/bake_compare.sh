#!/usr/bin/env bash
# Two ecobake builds on one config, runs interleaved (A, B, A, B, ...) so the shared VM's
# drift hits both alike. Prints each run, then per build the median seconds and instances/s
# and the ratio of medians (B's seconds / A's seconds). Each run bakes into a fresh folder under
# $TMPDIR (default /tmp, on disk); TMPDIR=/dev/shm takes the disk out of the figures.
# Usage: bench/bake_compare.sh BUILD_A BUILD_B [REPEATS] [THREADS] [CONFIG] [CONFIG_B]
# CONFIG_B (default CONFIG): B's config, to time a release against the previous one when the
# config itself changed (the old build given the old config).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
a=$1
b=$2
repeats=${3:-5}
threads=${4:-2}
config=${5:-$root/configs/temperate_mountain.json}
configB=${6:-$config}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$root/bench/bake_common.sh"

declare -A secs rates
run=0
for ((i = 0; i < repeats; i++)); do
  for build in "$a" "$b"; do
    dir=$(run_output "$out" "$run")
    run=$((run + 1))
    c=$config
    [[ $build == "$b" ]] && c=$configB
    line=$("$build/apps/ecobake/ecobake" bake "$c" -o "$dir" -j "$threads" | grep -E "^[0-9]+ instances in")
    s=$(sed -E 's/.*, ([0-9.]+) s, .*/\1/' <<<"$line")
    r=$(sed -E 's/.* ([0-9.]+) M instances\/s.*/\1/' <<<"$line")
    echo "$build: $s s, $r M instances/s"
    secs[$build]+="$s "
    rates[$build]+="$r "
  done
done
declare -A medianSecs
for build in "$a" "$b"; do
  medianSecs[$build]=$(tr ' ' '\n' <<<"${secs[$build]}" | grep . | median)
  echo "MEDIAN $build: ${medianSecs[$build]} s, $(tr ' ' '\n' <<<"${rates[$build]}" | grep . | median) M instances/s"
done
echo "RATIO seconds B / A: $(awk -v a="${medianSecs[$a]}" -v b="${medianSecs[$b]}" 'BEGIN {printf "%.3f", b / a}')"
