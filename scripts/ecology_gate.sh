#!/usr/bin/env bash
# The CI job of docs/ci.md: every biome config of a change validated, a region of each baked
# with the change (and reported: OUT_DIR/NAME.report/index.html) and with the base branch's
# version of it, and the two compared by `ecobake diff` with a threshold (the moved density in
# OUT_DIR/NAME.moved/index.html). Exit 0: every config valid and no species moved more than
# the threshold; 3: one did (the diff tables say which); 2: a config or bake is bad.
# Usage: scripts/ecology_gate.sh ECOBAKE BASE_DIR HEAD_DIR OUT_DIR [PCT] [TILES]
#   BASE_DIR, HEAD_DIR: folders of configs (*.json) before and after the change (a checkout of
#   the base branch and the working tree); configs new in HEAD are validated and baked only.
#   PCT: --fail-on (default 2); TILES: the region to bake, X0,Z0,X1,Z1 (default 10,10,17,17).
set -uo pipefail
ecobake=$1 base=$2 head=$3 out=$4 pct=${5:-2} tiles=${6:-10,10,17,17}
mkdir -p "$out"
status=0
for config in "$head"/*.json; do
  name=$(basename "$config" .json)
  echo "== $name"
  if ! "$ecobake" validate "$config" >"$out/$name.validate.txt" 2>&1; then
    cat "$out/$name.validate.txt"
    status=2
    continue
  fi
  "$ecobake" bake "$config" -o "$out/$name.head" --tiles "$tiles" -q || { status=2; continue; }
  "$ecobake" report "$out/$name.head" -o "$out/$name.report" -q || { status=2; continue; }
  if [[ ! -f $base/$name.json ]]; then
    echo "(new config: nothing to compare with)"
    continue
  fi
  "$ecobake" bake "$base/$name.json" -o "$out/$name.base" --tiles "$tiles" -q || { status=2; continue; }
  "$ecobake" diff "$out/$name.base" "$out/$name.head" --fail-on "$pct" --report "$out/$name.moved" | tee "$out/$name.diff.txt"
  rc=${PIPESTATUS[0]}
  "$ecobake" diff "$out/$name.base" "$out/$name.head" --json >"$out/$name.diff.json" || true
  if ((rc == 3)); then
    ((status == 0)) && status=3
  elif ((rc != 0)); then
    status=2
  fi
done
exit $status
