#!/usr/bin/env bash
# GPU time per frame of the viewer's fixed views of a bake (the far-field benchmark's 1.5, 3 and
# 6 km views of the sample's valley forest, an eye-level frame inside it and the fly-through's
# first camera), default settings, 960x540. With a second build, the two run interleaved,
# ROUNDS times each view, and each row gives both medians and their ratio: issue #29 asks the
# look to cost no more than the build it was filed on (git worktree add ../old 30ed658).
#   bench/viewer_views_bench.sh BUILD BAKE [BASELINE_BUILD] [ROUNDS]
# Medians over frames 3-6 of every round (the first two settle streaming and exposure).
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 BUILD BAKE [BASELINE_BUILD] [ROUNDS]" >&2; exit 2; }
build=$1
bake=$2
baseline=${3:-}
rounds=${4:-3}
python=/usr/bin/python3
ecoview="$build/apps/ecoview/ecoview"
[[ -x $ecoview ]] || { echo "missing $ecoview (build the ecoview target)" >&2; exit 1; }
[[ -z $baseline || -x $baseline/apps/ecoview/ecoview ]] || { echo "missing $baseline/apps/ecoview/ecoview" >&2; exit 1; }
[[ -f $bake/manifest.json ]] || { echo "missing bake $bake (scripts/run-sample.sh makes out/sample)" >&2; exit 1; }
if [[ -z ${VK_ICD_FILENAMES:-} && -z ${VK_DRIVER_FILES:-} ]]; then
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 700 "$XDG_RUNTIME_DIR"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

views=("1.5 km:2000,1330,4850,0,-25" "3 km:2000,1960,6200,0,-25" "6 km:2000,3220,8900,0,-25"
       "eye level:1050,338,3850,0,0" "fly-through start:3200,330,4452,54,-8")
builds=(new)
[[ -n $baseline ]] && builds=(old new)
for round in $(seq "$rounds"); do
  for i in "${!views[@]}"; do
    camera=${views[$i]#*:}
    for b in "${builds[@]}"; do
      ev=$ecoview
      [[ $b == old ]] && ev=$baseline/apps/ecoview/ecoview
      "$ev" "$bake" --headless --frames 6 --size 960x540 --camera "$camera" --stats "$out/$b.$i.$round.json" \
        >/dev/null 2>&1
    done
  done
done
"$python" - "$out" "$rounds" "${#views[@]}" "${builds[*]}" "${views[@]}" <<'PY'
import json, statistics, sys
out, rounds, count, builds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
names = [v.split(":")[0] for v in sys.argv[5:5 + count]]
cams = [v.split(":", 1)[1] for v in sys.argv[5:5 + count]]
def frames(b, i):
    return [f for r in range(1, rounds + 1) for f in json.load(open(f"{out}/{b}.{i}.{r}.json"))["frames"][2:]]
def med(fs, k):
    return statistics.median(f[k] for f in fs)
if "old" in builds:
    print("| view | camera | baseline GPU ms | this build GPU ms | ratio | shadow pass ms | colour pass ms | shadow casters |")
    print("|---|---|---|---|---|---|---|---|")
else:
    print("| view | camera | GPU ms | shadow pass ms | colour pass ms | shadow casters |")
    print("|---|---|---|---|---|---|")
for i, (name, cam) in enumerate(zip(names, cams)):
    new = frames("new", i)
    tail = f"{med(new, 'gpu_shadow_ms'):.0f} | {med(new, 'gpu_color_ms'):.0f} | {new[-1]['shadow_instances']:,} |"
    if "old" in builds:
        old = frames("old", i)
        print(f"| {name} | `{cam}` | {med(old, 'gpu_ms'):.0f} | {med(new, 'gpu_ms'):.0f} | "
              f"{med(new, 'gpu_ms') / med(old, 'gpu_ms'):.2f} | {tail}")
    else:
        print(f"| {name} | `{cam}` | {med(new, 'gpu_ms'):.0f} | {tail}")
PY
