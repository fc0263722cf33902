#!/usr/bin/env bash
# Why a far-field block is off (issue #29): how much ground its plants hide and how bright they
# are, against the frame drawn with every instance, for the sample's views of
# bench/farfield_bench.sh (bench/frame_separate.py says how). Each view is rendered over two
# ground palettes (a copy of the bake whose manifest paints all ground magenta, one green; the
# tiles hard-linked), without shadows, which the ground-alone frames cannot hold.
# Usage: bench/farfield_separate.sh BUILD [KM...] [-- ECOVIEW ARGS...]   (KM default: 1.5 3 6)
# Extra ecoview arguments go to the frame under test only; ECO_SHADER_DIR, where set, too.
# CONFIG=FILE bakes another config over the same cameras (the sample world's) instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 BUILD [KM...] [-- ECOVIEW ARGS...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
kms=()
while [[ $# -gt 0 && $1 != -- ]]; do kms+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
extra=("$@")
[[ ${#kms[@]} -gt 0 ]] || kms=(1.5 3 6)
python=/usr/bin/python3
source "$root/bench/farfield_common.sh"
use_vulkan
shaders=${ECO_SHADER_DIR:-}
unset ECO_SHADER_DIR
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for km in "${kms[@]}"; do forest_camera "$km" > /dev/null || exit 2; done

"$build/apps/ecobake/ecobake" bake "${CONFIG:-$root/configs/temperate_mountain.json}" -o "$work/sample" -q
for palette in magenta green; do
  cp -al "$work/sample" "$work/$palette"
  rm "$work/$palette/manifest.json"
  "$python" - "$work/sample/manifest.json" "$work/$palette/manifest.json" "$palette" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
colour = {"magenta": [255, 0, 255], "green": [0, 255, 0]}[sys.argv[3]]
for k in ("soil", "grass", "rock", "sand", "snow"):
    m["ground"][k] = colour
json.dump(m, open(sys.argv[2], "w"))
EOF
done
hide=$(bake_species "$work/sample")
for km in "${kms[@]}"; do
  o=(--headless --size 960x540 --camera "$(forest_camera "$km")" --no-auto-exposure --no-shadows)
  for palette in magenta green; do
    ECO_SHADER_DIR=$shaders "$build/apps/ecoview/ecoview" "$work/$palette" "${o[@]}" "${extra[@]}" --screenshot "$work/frame_$palette.png" 2>/dev/null
    "$build/apps/ecoview/ecoview" "$work/$palette" "${o[@]}" --load-radius 1e6 --unload-radius 1e6 --no-draw-distance --screenshot "$work/ref_$palette.png" 2>/dev/null
    "$build/apps/ecoview/ecoview" "$work/$palette" "${o[@]}" --hide "$hide" --no-far-field --screenshot "$work/ground_$palette.png" 2>/dev/null
  done
  echo "## sample, $km km"
  "$python" "$root/bench/frame_separate.py" "$work"/{frame,ref,ground}_{magenta,green}.png
done
