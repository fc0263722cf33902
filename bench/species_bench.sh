#!/usr/bin/env bash
# Bake cost against the number of species (issue #32): the sample world as it is (7 species)
# and with every species cloned K times (bench/clone_species.py: K x 7 species, radii x sqrt(K),
# about the same instances), each baked REPEATS times interleaved with the 7-species bake.
# Prints per config: instances, median seconds, microseconds per instance, peak memory, and the
# ratios to the 7-species bake (per-instance time, memory).
# Usage: bench/species_bench.sh BUILD [REPEATS] [THREADS] [K...]   (default 3 runs, 1 thread, K = 9)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
repeats=${2:-3}
threads=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
ks=("$@")
[[ ${#ks[@]} -gt 0 ]] || ks=(9)
source "$root/bench/bake_common.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/eco-species.XXXXXX")
trap 'rm -rf "$out"' EXIT
python=/usr/bin/python3; [[ -x $python ]] || python=python3
configs=("$root/configs/temperate_mountain.json")
for k in "${ks[@]}"; do
  "$python" "$root/bench/clone_species.py" "$root/configs/temperate_mountain.json" "$k" "$out/x$k.json" >/dev/null
  configs+=("$out/x$k.json")
done

declare -A secs mems counts
run=0
for ((i = 0; i < repeats; i++)); do
  for c in "${configs[@]}"; do
    dir=$(run_output "$out" "$run")
    run=$((run + 1))
    /usr/bin/time -f "%e %M" -o "$out/time" "$build/apps/ecobake/ecobake" bake "$c" -o "$dir" -j "$threads" -q
    read -r s m < "$out/time"
    secs[$c]+="$s "
    mems[$c]+="$m "
    counts[$c]=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['instances'])" "$dir/manifest.json")
  done
done
echo "| species | instances | seconds (median of $repeats, -j $threads) | µs per instance | peak memory | per-instance time / 7 species | memory / 7 species |"
echo "|---|---|---|---|---|---|---|"
base=${configs[0]}
bs=$(tr ' ' '\n' <<<"${secs[$base]}" | grep . | median)
bm=$(tr ' ' '\n' <<<"${mems[$base]}" | grep . | median)
for c in "${configs[@]}"; do
  s=$(tr ' ' '\n' <<<"${secs[$c]}" | grep . | median)
  m=$(tr ' ' '\n' <<<"${mems[$c]}" | grep . | median)
  n=$("$python" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['species']))" "$c")
  awk -v n="$n" -v c="${counts[$c]}" -v s="$s" -v m="$m" -v bs="$bs" -v bm="$bm" -v bc="${counts[$base]}" \
    'BEGIN {printf "| %d | %.2f M | %.2f s | %.2f | %.0f MB | %.2f | %.2f |\n", n, c / 1e6, s, s / c * 1e6, m / 1024, (s / c) / (bs / bc), m / bm}'
done
