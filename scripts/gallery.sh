#!/usr/bin/env bash
# Regenerates the viewer's pictures in docs/images from fixed cameras: the README's four
# (ecoview-*.jpg, each with the command its caption gives) and the distance series
# (gallery-forest-*.jpg: the sample's valley forest from 1.5, 3 and 6 km, and at eye level in
# it). Bakes the sample world (with --layers masks) and the arid canyon into a temporary folder.
# Usage: scripts/gallery.sh BUILD      (BUILD/apps/ecobake/ecobake and BUILD/apps/ecoview/ecoview)
# Vulkan: Mesa lavapipe unless VK_ICD_FILENAMES is set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD" >&2; exit 2; }
build=$(cd "$1" && pwd)
ecobake=$build/apps/ecobake/ecobake
ecoview=$build/apps/ecoview/ecoview
for tool in "$ecobake" "$ecoview"; do
  [[ -x $tool ]] || { echo "$tool is missing: cmake --build $build" >&2; exit 1; }
done
source "$root/bench/farfield_common.sh"
use_vulkan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
images=$root/docs/images

"$ecobake" bake "$root/configs/temperate_mountain.json" -o "$work/sample" --layers masks -q
"$ecobake" bake "$root/configs/arid_canyon.json" -o "$work/arid" -q

shot() {  # BAKE OUTPUT [ecoview options...]
  local bake=$1 out=$2
  shift 2
  echo "ecoview $bake --headless --size 960x540 $* --screenshot $out"
  "$ecoview" "$bake" --headless --size 960x540 "$@" --screenshot "$out" 2>/dev/null
}

# The README's pictures (their captions give these cameras). A camera height of 0 is raised to
# 2 m above the ground there.
shot "$work/sample" "$images/ecoview-ground.jpg" --camera 1050,0,3300,180,-3
shot "$work/arid" "$images/ecoview-river.jpg" --camera 2796,380,4330,-15,-25
shot "$work/sample" "$images/ecoview-overlay.jpg" --ui --overlay suitability_european_beech --camera 3300,2400,6900,0,-35
shot "$work/sample" "$images/ecoview-default.jpg"

# The beech forest seen from the south at about 1.5, 3 and 6 km (bench/farfield_common.sh, the
# far-field bench's cameras), and at eye level inside the stand.
for km in 1.5 3 6; do shot "$work/sample" "$images/gallery-forest-${km}km.jpg" --camera "$(forest_camera $km)"; done
shot "$work/sample" "$images/gallery-forest-eye.jpg" --camera 1050,0,3850,0,0
echo "gallery: pictures written to $images"
