#!/usr/bin/env bash
# Cost of the viewer's look (issue #20): GPU time per frame along a fly-through of a bake (the
# bundled sample by default) with everything on, without shadows, without the far field and
# without both; medians over the flight and ratios to the plain frame, all from one run. Frames
# wait for streaming (--settle is the default), so every mode draws the same instances; the
# modes run interleaved, ROUNDS times each, and the medians take every frame of every round.
#   bench/viewer_look_bench.sh [BUILD_DIR] [BAKE_DIR] [FRAMES] [SIZE] [ROUNDS]
set -euo pipefail
build=${1:-build}
bake=${2:-out/sample}
frames=${3:-16}
size=${4:-960x540}
rounds=${5:-2}
ecoview="$build/apps/ecoview/ecoview"
[[ -x $ecoview ]] || { echo "missing $ecoview (build the ecoview target)" >&2; exit 1; }
[[ -f $bake/manifest.json ]] || { echo "missing bake $bake (scripts/run-sample.sh makes out/sample)" >&2; exit 1; }
if [[ -z ${VK_ICD_FILENAMES:-} && -z ${VK_DRIVER_FILES:-} ]]; then
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# sample bake: up the eastern valley, 60-80 m above the floor, 2.5 km
from=${ECO_FLY_FROM:-3200,330,4452,54,-8}
to=${ECO_FLY_TO:-5200,640,3000,54,-8}
declare -A modes=([all]="" [no_shadows]="--no-shadows" [no_far_field]="--no-far-field"
                  [neither]="--no-shadows --no-far-field")
for round in $(seq "$rounds"); do
  for mode in all no_shadows no_far_field neither; do
    # shellcheck disable=SC2086
    "$ecoview" "$bake" --headless --frames "$frames" --size "$size" --camera "$from" --camera-to "$to" \
      ${modes[$mode]} --stats "$out/$mode.$round.json" > "$out/$mode.$round.log" 2>&1
  done
done
python3 - "$out" "$size" "$bake" "$frames" "$rounds" <<'PY'
import json, sys, statistics
out, size, bake, frames, rounds = sys.argv[1:]
def load(mode, r):
    return json.load(open(f"{out}/{mode}.{r}.json"))
def med(mode, key):
    v = [f[key] for r in range(1, int(rounds) + 1) for f in load(mode, r)["frames"] if f.get(key) is not None]
    return statistics.median(v) if v else float("nan")
d = load("all", 1)
print(f"{frames} frames at {size} along the fly-through over {bake}, {rounds} interleaved rounds "
      f"({d['device']}); medians.\n")
print("| frame | GPU ms | ratio to neither | shadow pass ms | colour pass ms | shadow casters drawn |")
print("|---|---|---|---|---|---|")
base = med("neither", "gpu_ms")
for mode, label in [("all", "shadows + far field"), ("no_shadows", "far field, no shadows"),
                    ("no_far_field", "shadows, no far field"), ("neither", "neither")]:
    print(f"| {label} | {med(mode, 'gpu_ms'):.0f} | {med(mode, 'gpu_ms') / base:.2f} | {med(mode, 'gpu_shadow_ms'):.0f} "
          f"| {med(mode, 'gpu_color_ms'):.0f} | {med(mode, 'shadow_instances'):,.0f} |")
print(f"\nShadows cost {med('all', 'gpu_ms') / med('no_shadows', 'gpu_ms'):.2f}x the frame with the far field on; "
      f"the far field {med('all', 'gpu_ms') / med('no_far_field', 'gpu_ms'):.2f}x with shadows on.")
PY
