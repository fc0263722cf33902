#!/usr/bin/env bash
# The cost of the inputs from terrain tools: the sample world baked as it is and with a
# 10,000-segment road network (vector_exclusions) plus a full-resolution (1025 x 1025) density
# map per species, runs interleaved (plain, inputs, plain, inputs, ...) so the shared VM's drift
# hits both alike. The maps hold 1.0 everywhere, so the two bakes differ only by the roads'
# keep-out and the time is the cost of the lookups. Prints each run, the medians and the ratio
# of median seconds (with inputs / without). Each run bakes into a fresh folder under $TMPDIR.
# Usage: bench/inputs_bench.sh BUILD [REPEATS] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
repeats=${2:-5}
threads=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/bench/bake_common.sh"
ecobake="$build/apps/ecobake/ecobake"

# Inputs: roads.geojson (100 random-walk roads of 100 segments, 4-10 m wide, in the sample's
# 6144 m world), density_<i>.png per species, and the config using them.
python3 - "$root/configs/temperate_mountain.json" "$work" <<'EOF'
import json, os, random, struct, sys, zlib
config_path, work = sys.argv[1], sys.argv[2]
config = json.load(open(config_path))
folder = os.path.dirname(os.path.abspath(config_path))
def absolute(p): return os.path.normpath(os.path.join(folder, p))
config["terrain"]["heightmap"] = absolute(config["terrain"]["heightmap"])
for key in ("distance", "mask"):
    if key in config.get("river", {}): config["river"][key] = absolute(config["river"][key])
config.pop("$schema", None)
json.dump(config, open(os.path.join(work, "plain.json"), "w"), indent=1)

extent = 6144.0
random.seed(18)
features = []
for road in range(100):
    x, z = random.uniform(0, extent), random.uniform(0, extent)
    line = [[x, z]]
    for k in range(100):
        x = min(max(x + random.uniform(-25, 25), 0), extent)
        z = min(max(z + random.uniform(-25, 25), 0), extent)
        line.append([x, z])
    features.append({"type": "Feature", "properties": {"width": random.uniform(4, 10)},
                     "geometry": {"type": "LineString", "coordinates": line}})
json.dump({"type": "FeatureCollection", "features": features}, open(os.path.join(work, "roads.geojson"), "w"))

def png(path, w, h, value):
    raw = b"".join(b"\0" + bytes([value]) * w for _ in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
for i, species in enumerate(config["species"]):
    path = os.path.join(work, "density_%d.png" % i)
    png(path, 1025, 1025, 255)
    species["density_map"] = path
config["vector_exclusions"] = [{"file": os.path.join(work, "roads.geojson")}]
json.dump(config, open(os.path.join(work, "inputs.json"), "w"), indent=1)
EOF

"$ecobake" validate "$work/inputs.json" >/dev/null
declare -A secs counts inputs masks scatter
run=0
for ((i = 0; i < repeats; i++)); do
  for kind in plain inputs; do
    dir=$(run_output "$work" "$run")
    run=$((run + 1))
    report=$("$ecobake" bake "$work/$kind.json" -o "$dir" -j "$threads")
    line=$(grep -E "^[0-9]+ instances in" <<<"$report")
    phases=$(grep -E "^time: inputs" <<<"$report")
    s=$(sed -E 's/.*, ([0-9.]+) s, .*/\1/' <<<"$line")
    n=$(sed -E 's/^([0-9]+) instances.*/\1/' <<<"$line")
    in=$(sed -E 's/^time: inputs ([0-9.]+) s.*/\1/' <<<"$phases")
    ma=$(sed -E 's/.*masks ([0-9.]+) s.*/\1/' <<<"$phases")
    sc=$(sed -E 's/.*scatter and write ([0-9.]+) s.*/\1/' <<<"$phases")
    echo "$kind: $s s (inputs $in s, masks $ma s, scatter and write $sc s), $n instances"
    secs[$kind]+="$s "
    inputs[$kind]+="$in "
    masks[$kind]+="$ma "
    scatter[$kind]+="$sc "
    counts[$kind]=$n
  done
done
declare -A med
m() { tr ' ' '\n' <<<"$1" | grep . | median; }
for kind in plain inputs; do
  med[$kind]=$(m "${secs[$kind]}")
  echo "MEDIAN $kind: ${med[$kind]} s (inputs $(m "${inputs[$kind]}") s, masks $(m "${masks[$kind]}") s," \
       "scatter and write $(m "${scatter[$kind]}") s), ${counts[$kind]} instances"
done
echo "RATIO seconds inputs / plain: $(awk -v a="${med[plain]}" -v b="${med[inputs]}" 'BEGIN {printf "%.3f", b / a}')"
