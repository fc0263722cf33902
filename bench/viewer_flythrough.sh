#!/usr/bin/env bash
# Viewer fly-through benchmark (issue #14): a scripted low flight up a valley of a bake (the
# bundled sample by default) at 1280x720 with streaming as the window does it (no settling:
# tiles load in the background, uploads limited per frame, two frames in flight). Reports
# per-frame CPU time (streaming, uploads, recording, submit), GPU time (timestamps), the worst
# frame against the median, bytes uploaded per frame and resident bytes per instance; then the
# resident cost of the bake and of a synthetic world with everything resident, and the largest
# resident count within 2 GiB.
#   bench/viewer_flythrough.sh [BUILD_DIR] [BAKE_DIR] [FRAMES]
set -euo pipefail
build=${1:-build}
bake=${2:-out/sample}
frames=${3:-120}
ecoview="$build/apps/ecoview/ecoview"
[[ -x $ecoview ]] || { echo "missing $ecoview (build the ecoview target)" >&2; exit 1; }
[[ -f $bake/manifest.json ]] || { echo "missing bake $bake (scripts/run-sample.sh makes out/sample)" >&2; exit 1; }
if [[ -z ${VK_ICD_FILENAMES:-} && -z ${VK_DRIVER_FILES:-} ]]; then
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
out=$(mktemp -d)
size=${ECO_BENCH_SIZE:-1280x720}
# sample bake: up the eastern valley, 60-80 m above the floor, 2.5 km
from=${ECO_FLY_FROM:-3200,330,4452,54,-8}
to=${ECO_FLY_TO:-5200,640,3000,54,-8}
"$ecoview" "$bake" --headless --no-settle --frames "$frames" --size "$size" --camera "$from" --camera-to "$to" \
  --stats "$out/fly.json" > "$out/fly.log" 2>&1
n=4000000
"$ecoview" --synthetic $n --synthetic-grid 1025 --headless --frames 2 --size 320x180 --budget 4 \
  --load-radius 1e6 --unload-radius 1e6 --stats "$out/resident.json" > "$out/resident.log" 2>&1
# the bake itself, every tile resident with a budget of its own size (its tiles' page tails)
total=$(python3 -c "import json,sys; print(sum(t['instances'] for t in json.load(open(sys.argv[1]))['tiles']))" "$bake/manifest.json")
"$ecoview" "$bake" --headless --frames 2 --size 320x180 --budget "$(python3 -c "print($total / 1e6 + 1e-3)")" \
  --load-radius 1e6 --unload-radius 1e6 --stats "$out/bake_resident.json" > "$out/bake_resident.log" 2>&1
python3 - "$out" "$size" "$bake" "$from" "$to" <<'PY'
import json, sys, statistics
out, size, bake, start, end = sys.argv[1:]
d = json.load(open(f"{out}/fly.json"))
fr = d["frames"]
def stat(key):
    v = [f[key] for f in fr if f[key] is not None]
    return statistics.median(v), max(v)
cpu_med, cpu_max = stat("cpu_ms")
gpu_med, gpu_max = stat("gpu_ms") if fr[0]["gpu_ms"] is not None else (float("nan"), float("nan"))
wall = [f["cpu_ms"] + f["cpu_wait_ms"] for f in fr]
up = max(f["uploaded_bytes"] for f in fr)
last = fr[-1]
r = json.load(open(f"{out}/resident.json"))["frames"][-1]
bpi = r["resident_bytes_per_instance"]
print(f"Fly-through: {len(fr)} frames at {size}, `{start}` to `{end}` over {bake} ({d['device']}).\n")
print("| metric | median | worst | worst / median |")
print("|---|---|---|---|")
print(f"| CPU ms per frame (streaming, uploads, recording, submit) | {cpu_med:.2f} | {cpu_max:.2f} | {cpu_max / cpu_med:.2f} |")
print(f"| GPU ms per frame (timestamps) | {gpu_med:.0f} | {gpu_max:.0f} | {gpu_max / gpu_med:.2f} |")
print(f"| frame wall ms (CPU + wait for the frame slot) | {statistics.median(wall):.0f} | {max(wall):.0f} | {max(wall) / statistics.median(wall):.2f} |")
worst = sorted(fr, key=lambda f: -f["cpu_ms"])[:5]
print("\nWorst frames by CPU time (frame: ms, KiB uploaded): " +
      ", ".join(f"{f['frame']}: {f['cpu_ms']:.2f}, {f['uploaded_bytes'] >> 10}" for f in worst) + ".")
print(f"\nLargest upload in one frame: {up / 2**20:.2f} MiB (budget 2 MiB and 0.5 ms of CPU). At the end: {last['instances_resident']:,} instances "
      f"resident in {last['tiles_resident']} tiles, {last['resident_bytes_per_instance']:.1f} B per instance "
      f"(the page pool allocated for the 8 M budget).")
b = json.load(open(f"{out}/bake_resident.json"))["frames"][-1]
print(f"\nResident cost, {bake} with every tile resident and a matching budget: {b['resident_bytes_per_instance']:.2f} B per "
      f"instance ({b['instances_resident']:,} instances in {b['tiles_resident']} tiles, shadow cascades' lists included).")
print(f"\nResident cost, synthetic world of {r['instances_resident']:,} instances with a matching budget: "
      f"{bpi:.2f} B per instance ({'staged' if r['staged_uploads'] else 'direct'} uploads); "
      f"2 GiB holds {int(2**31 / bpi):,} instances (64-byte instances: {2**31 // 64:,}).")
PY
rm -rf "$out"
