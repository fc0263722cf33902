#!/usr/bin/env bash
# Far field against the frame drawn with every instance (issue #29's measure): for each world
# and distance, four ecoview frames of one camera at 960x540 (defaults; every instance resident
# and drawn: --load-radius past the world --no-draw-distance; vegetation hidden, with and
# without fog for the sky mask), all at one fixed exposure (--no-auto-exposure), compared by
# bench/frame_compare.py: per 40x40 block of ground the mean luminance difference (worst,
# median, and the median over the blocks with plants), the skyline's RMS difference in pixels,
# and the grain (the median over vegetated blocks of the pixel-scale contrast over the reference's).
# Prints one markdown row per view.
# Usage: [SUN=AZ,EL] bench/farfield_bench.sh BUILD [ECOVIEW ARGS...]
# SUN: light every world from this sun instead of its config's (azimuth clockwise from north,
# elevation, degrees; the bake's manifest is edited, so the plants stand where the config's sun
# put them): views the far field was not tuned on, e.g. SUN=90,40 (from the east) or 180,70.
# Extra arguments go to the frame under test only (the reference and the masks stay as they
# are), e.g. `--far-trees 0` and `--far-trees 262144` for the far trees' columns of docs/viewer-far-field.md.
# Worlds: the bundled sample; the Grand Canyon DEM (bench/configs/grand_canyon.json) where
# ../shared/data/dem is present. Vulkan: Mesa lavapipe unless VK_ICD_FILENAMES is set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 BUILD [ECOVIEW ARGS...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
extra=("$@")
ecobake=$build/apps/ecobake/ecobake
ecoview=$build/apps/ecoview/ecoview
python=/usr/bin/python3
source "$root/bench/farfield_common.sh"
use_vulkan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n ${SUN:-} ]] && ! { [[ $SUN =~ ^[0-9]+([.][0-9]+)?,[0-9]+([.][0-9]+)?$ ]] &&
  awk -F, '{ exit !($1 <= 360 && $2 > 0 && $2 <= 90) }' <<<"$SUN"; }; then
  echo "SUN is not AZ,EL in degrees (azimuth 0-360, elevation above 0, at most 90): '$SUN'" >&2
  exit 2
fi

# relight BAKE: with SUN set, the bake's manifest names that sun (a linked copy of the bake)
relight() {
  [[ -n ${SUN:-} ]] || return 0
  mv "$1" "$1.baked"
  cp -al "$1.baked" "$1"
  rm "$1/manifest.json"
  "$python" - "$1.baked/manifest.json" "$1/manifest.json" "$SUN" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
az, el = (float(v) for v in sys.argv[3].split(","))
m["sun"] = {"azimuth_deg": az, "elevation_deg": el}
json.dump(m, open(sys.argv[2], "w"))
EOF
}

# view NAME BAKE CAMERA: one row
view() {
  local name=$1 bake=$2 camera=$3
  local hide
  hide=$(bake_species "$bake")
  local o=(--headless --size 960x540 --camera "$camera" --no-auto-exposure)
  "$ecoview" "$bake" "${o[@]}" "${extra[@]}" --screenshot "$work/frame.png" 2>/dev/null
  "$ecoview" "$bake" "${o[@]}" --load-radius 1e6 --unload-radius 1e6 --no-draw-distance --screenshot "$work/ref.png" 2>/dev/null
  "$ecoview" "$bake" "${o[@]}" --hide "$hide" --no-far-field --screenshot "$work/terrain.png" 2>/dev/null
  "$ecoview" "$bake" "${o[@]}" --hide "$hide" --no-far-field --no-fog --screenshot "$work/clear.png" 2>/dev/null
  "$python" "$root/bench/frame_compare.py" --json "$work"/{frame,ref,terrain,clear}.png |
    "$python" -c "import json,sys; r=json.load(sys.stdin); print(f\"| $name | \`$camera\` | {r['blocks']} | {r['worst']:.1f} | {r['median']:.1f} | {r['vegetated_blocks']} | {r['median_vegetated']:.1f} | {r['skyline_rms_px']:.1f} | {r['contrast_ratio']:.2f} |\")"
}

echo "| view | camera (x,y,z,yaw,pitch) | ground blocks | worst block (levels) | median block | vegetated blocks | their median | skyline RMS (px) | pixel contrast / reference's |"
echo "|---|---|---|---|---|---|---|---|---|"
"$ecobake" bake "$root/configs/temperate_mountain.json" -o "$work/sample" -q
relight "$work/sample"
for km in 1.5 3 6; do view "sample, $km km" "$work/sample" "$(forest_camera $km)"; done
dem=$root/../shared/data/dem/grand_canyon_62m.png
if [[ -f $dem ]]; then
  "$ecobake" bake "$root/bench/configs/grand_canyon.json" -o "$work/canyon" -q
  relight "$work/canyon"
  # the pinyon-juniper woodland on the south rim (crown cover 3-13 % per 512 m tile: the densest
  # of this world), from the north, 15 degrees down
  for km in 1.5 3 6; do
    y=$(awk "BEGIN { print 2300 + 200 * $km }")
    z=$(awk "BEGIN { print 13500 - 1000 * $km }")
    view "Grand Canyon, $km km" "$work/canyon" "2000,$y,$z,180,-15"
  done
else
  echo "(Grand Canyon rows skipped: $dem is absent)" >&2
fi
