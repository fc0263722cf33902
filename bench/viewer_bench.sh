#!/usr/bin/env bash
# Viewer benchmark on the current Vulkan driver (lavapipe unless VK_ICD_FILENAMES says otherwise):
# frame and culling time for 1, 5 and 20 million resident instances, GPU culling versus drawing
# everything (no frustum, occlusion or draw-distance culling; LOD still by distance), for a
# ground-level and an aerial camera. Writes a markdown table to stdout.
#   bench/viewer_bench.sh [BUILD_DIR] [COUNTS_IN_MILLIONS...]
set -euo pipefail
build=${1:-build}
shift || true
counts=${*:-"1 5 20"}
ecoview="$build/apps/ecoview/ecoview"
[[ -x $ecoview ]] || { echo "missing $ecoview (build the ecoview target)" >&2; exit 1; }
if [[ -z ${VK_ICD_FILENAMES:-} && -z ${VK_DRIVER_FILES:-} ]]; then
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
out=$(mktemp -d)
size=${ECO_BENCH_SIZE:-640x360}
frames=${ECO_BENCH_FRAMES:-3}
# 4 km x 4 km world (1025 x 1025 samples, 4 m cells), 256 tiles, ridge through x = 2048 m
declare -A cams=([ground]="2048,60,3900,0,0" [aerial]="2048,1500,4600,0,-40")
for n in $counts; do
  for cam in ground aerial; do
    for mode in culled everything; do
      flags=()
      [[ $mode == everything ]] && flags=(--no-frustum --no-occlusion --no-draw-distance)
      "$ecoview" --synthetic $((n * 1000000)) --synthetic-grid 1025 --headless --size "$size" --frames "$frames" \
        --camera "${cams[$cam]}" --load-radius 1e6 --unload-radius 1e6 --budget $((n + 1)) "${flags[@]}" \
        --stats "$out/$n-$cam-$mode.json" \
        > "$out/$n-$cam-$mode.log" 2>&1
    done
  done
done
python3 - "$out" "$counts" "$size" <<'PY'
import json, sys, statistics
out, counts, size = sys.argv[1], sys.argv[2].split(), sys.argv[3]
def load(n, cam, mode):
    d = json.load(open(f"{out}/{n}-{cam}-{mode}.json"))
    fr = d["frames"][1:] or d["frames"]  # drop the first (pipeline warm-up) frame
    med = lambda k: statistics.median(f[k] for f in fr if f[k] is not None) if fr[0][k] is not None else float("nan")
    return d["device"], {k: med(k) for k in ("gpu_ms", "gpu_cull_ms", "gpu_vegetation_ms", "cpu_ms")}, fr[-1]
print(f"Resolution {size}, median of frames after the first.\n")
print("| instances | camera | culled frame ms | everything frame ms | frame ratio (everything / culled) | cull ms | cull / frame | visible after frustum | after occlusion | visible fraction |")
print("|---|---|---|---|---|---|---|---|---|---|")
device = ""
for n in counts:
    for cam in ("ground", "aerial"):
        device, c, cf = load(n, cam, "culled")
        _, e, ef = load(n, cam, "everything")
        res = cf["instances_resident"]
        print(f"| {n}M | {cam} | {c['gpu_ms']:.0f} | {e['gpu_ms']:.0f} | {e['gpu_ms'] / c['gpu_ms']:.1f}x | "
              f"{c['gpu_cull_ms']:.0f} | {c['gpu_cull_ms'] / c['gpu_ms']:.2f} | {cf['visible_after_frustum']} | "
              f"{cf['visible_after_occlusion']} | {cf['visible_after_occlusion'] / res:.3%} |")
print(f"\nDevice: {device}")
PY
rm -rf "$out"
