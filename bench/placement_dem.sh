#!/usr/bin/env bash
# Placement quality on a real DEM (issue #15): bakes CONFIG with the pool and with Bridson and
# prints, per species, the pool's count as a ratio to Bridson's, the worst twin share, the
# tile-border profile and the folded tile map (build/bench/placement_bench), then the same for
# the Bridson bake. Needs ../shared/data/dem.
# Usage: bench/placement_dem.sh BUILD [CONFIG...]   (default: the Grand Canyon and Puget configs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
configs=("$@")
[[ ${#configs[@]} -gt 0 ]] || configs=("$root/bench/configs/grand_canyon.json" "$root/bench/configs/puget_forest.json")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for config in "${configs[@]}"; do
  name=$(basename "$config" .json)
  # Both methods from one config: a copy with absolute paths and the method set.
  for method in pool bridson; do
    python3 - "$config" "$method" "$out/$name-$method.json" <<'PY'
import json, os, sys
src, method, dst = sys.argv[1:]
c = json.load(open(src))
base = os.path.dirname(os.path.abspath(src))
for block, key in (("terrain", "heightmap"), ("river", "distance"), ("river", "mask")):
    if block in c and key in c[block]:
        c[block][key] = os.path.normpath(os.path.join(base, c[block][key]))
c.setdefault("sampling", {})["method"] = method
c.pop("$schema", None)
json.dump(c, open(dst, "w"))
PY
    "$build/apps/ecobake/ecobake" bake "$out/$name-$method.json" -o "$out/$name-$method" -q
  done
  echo "== $name: pool (counts / Bridson)"
  "$build/bench/placement_bench" "$out/$name-pool" "$out/$name-bridson"
  echo "== $name: Bridson"
  "$build/bench/placement_bench" "$out/$name-bridson"
done
