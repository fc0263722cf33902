#!/usr/bin/env bash
# Ecological figures of bakes (issue #28): per species Clark-Evans aggregation, pair
# correlation, minimum pair distance and crown cover in its densest 1 km window, the in-water
# count and riparian profile when the bake has a river, and the understory's density under
# crowns against in gaps (BUILD/bench/ecology_bench, measures in tests/ecology_metrics.h).
# Usage: bench/ecology.sh BUILD [BAKE...]
#   With bakes given, measures them. Without, bakes into a temporary folder (deleted on exit)
#   and measures: the sample world (configs/temperate_mountain.json, which needs samples/world;
#   generated with BUILD/apps/ecosample/ecosample if it is missing), and the real DEMs
#   (bench/configs/grand_canyon.json, bench/configs/puget_forest.json; skipped with a note when
#   ../shared/data/dem is absent). Puget is 58 M instances: about 1 GB on disk while measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 BUILD [BAKE...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
bench=$build/bench/ecology_bench
[[ -x $bench ]] || { echo "$bench is missing: cmake --build $build --target ecology_bench" >&2; exit 1; }

if [[ $# -gt 0 ]]; then
  for bake in "$@"; do
    "$bench" "$bake"
    echo
  done
  exit 0
fi

ecobake=$build/apps/ecobake/ecobake
[[ -x $ecobake ]] || { echo "$ecobake is missing: cmake --build $build --target ecobake" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The heightmap a config names, as an absolute path (config paths are relative to the config).
heightmap() {
  python3 - "$1" <<'PY'
import json, os, sys
c = json.load(open(sys.argv[1]))
print(os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), c["terrain"]["heightmap"])))
PY
}

if [[ ! -f $root/samples/world/heightmap.png ]]; then
  if [[ -x $build/apps/ecosample/ecosample ]]; then
    echo "samples/world is missing: generating it (samples/world/README.md)" >&2
    "$build/apps/ecosample/ecosample" -o "$root/samples/world" --size 1025 --seed 7
  else
    echo "note: samples/world is missing and $build/apps/ecosample/ecosample is not built" >&2
  fi
fi

for config in "$root/configs/temperate_mountain.json" "$root/bench/configs/grand_canyon.json" \
              "$root/bench/configs/puget_forest.json"; do
  name=$(basename "$config" .json)
  hm=$(heightmap "$config")
  if [[ ! -f $hm ]]; then
    echo "## $name: skipped, no $hm (the real DEMs live in ../shared/data/dem)"
    echo
    continue
  fi
  t0=$(date +%s.%N)
  "$ecobake" bake "$config" -o "$out/$name" -q
  awk -v name="$name" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "(%s baked in %.1f s)\n\n", name, t1 - t0 }'
  "$bench" "$out/$name"
  echo
  rm -rf "${out:?}/$name"  # one bake on disk at a time
done
