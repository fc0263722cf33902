#!/usr/bin/env bash
# The LOD step: where instances turn LOD 1 (40 bounding radii from the eye), does the stand
# keep its tone and mass? For each camera, two frames with every instance resident and drawn
# (--load-radius past the world), one with LOD selection (--no-draw-distance) and one with
# LOD 0 everywhere (--no-lod), compared per 40x40 block of ground by bench/frame_compare.py
# (worst and median block, levels of 255). Prints one markdown row per camera.
#   bench/lod_step_bench.sh BUILD BAKE [CAMERA...]
# Default cameras: the sample's beech forest from 300 m to 2 km, the eye-level frame and the
# fly-through's start (bench/viewer_views_bench.sh). Vulkan: lavapipe unless VK_ICD_FILENAMES is set.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 BUILD BAKE [CAMERA...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
ecoview=$1/apps/ecoview/ecoview
bake=$2
shift 2
[[ -x $ecoview ]] || { echo "missing $ecoview (build the ecoview target)" >&2; exit 1; }
[[ -f $bake/manifest.json ]] || { echo "missing bake $bake (scripts/run-sample.sh makes out/sample)" >&2; exit 1; }
cameras=("$@")
[[ ${#cameras[@]} -gt 0 ]] || cameras=("2000,900,4600,0,-12" "1050,338,3850,0,0" "3200,330,4452,54,-8")
python=/usr/bin/python3
source "$root/bench/farfield_common.sh"
use_vulkan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hide=$(bake_species "$bake")
echo "| camera (x,y,z,yaw,pitch) | ground blocks | worst block (levels) | median block |"
echo "|---|---|---|---|"
for camera in "${cameras[@]}"; do
  o=(--headless --size 960x540 --camera "$camera" --no-auto-exposure --load-radius 1e6 --unload-radius 1e6)
  quiet "$ecoview" "$bake" "${o[@]}" --no-draw-distance --screenshot "$work/frame.png"
  quiet "$ecoview" "$bake" "${o[@]}" --no-lod --screenshot "$work/ref.png"
  quiet "$ecoview" "$bake" "${o[@]}" --hide "$hide" --no-far-field --screenshot "$work/terrain.png"
  quiet "$ecoview" "$bake" "${o[@]}" --hide "$hide" --no-far-field --no-fog --screenshot "$work/clear.png"
  "$python" "$root/bench/frame_compare.py" --json "$work"/{frame,ref,terrain,clear}.png |
    "$python" -c "import json,sys; r=json.load(sys.stdin); print(f\"| \`$camera\` | {r['blocks']} | {r['worst']:.1f} | {r['median']:.1f} |\")"
done
