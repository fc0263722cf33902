#!/usr/bin/env bash
# Export throughput and size per format on a bake: `ecobake export` to CSV, PLY, USD, glTF and
# 3D Tiles (the last three a folder: bytes are the whole folder's) and the Python reader (python/ecobake, reading and verifying every tile), each REPEATS times,
# medians of wall seconds, instances per second, bytes per instance and peak memory.
# Usage: bench/export_bench.sh BUILD BAKE_DIR [REPEATS]   (output goes to $TMPDIR, then is deleted)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 bake=$2 repeats=${3:-3}
source "$root/bench/bake_common.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/eco-export.XXXXXX")
trap 'rm -rf "$out"' EXIT
instances=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['instances'])" "$bake/manifest.json")
python=/usr/bin/python3; [[ -x $python ]] || python=python3

row() {  # name, then the command; prints the median row
  local name=$1; shift
  local secs=() mems=() bytes=0
  for ((i = 0; i < repeats; i++)); do
    rm -rf "$out/file"
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>&1
    read -r s m < "$out/time"
    secs+=("$s") mems+=("$m")
    [[ -e $out/file ]] && bytes=$(du -sb "$out/file" | cut -f1)
  done
  local s m
  s=$(printf '%s\n' "${secs[@]}" | median)
  m=$(printf '%s\n' "${mems[@]}" | median)
  awk -v n="$name" -v s="$s" -v m="$m" -v b="$bytes" -v c="$instances" \
    'BEGIN {printf "| %s | %.2f s | %.2f M/s | %s | %.0f MB |\n", n, s, c / s / 1e6, (b > 0 ? sprintf("%.2f", b / c) : "-"), m / 1024}'
}

echo "$instances instances, $repeats runs each (medians)"
echo "| format | seconds | instances/s | bytes per instance | peak memory |"
echo "|---|---|---|---|---|"
row "CSV (ecobake export)" "$build/apps/ecobake/ecobake" export "$bake" -o "$out/file" -q
row "PLY (ecobake export --format ply)" "$build/apps/ecobake/ecobake" export "$bake" --format ply -o "$out/file" -q
row "USD (--format usd: USDA layers)" "$build/apps/ecobake/ecobake" export "$bake" --format usd -o "$out/file" -q
row "glTF (--format gltf: GLB per tile)" "$build/apps/ecobake/ecobake" export "$bake" --format gltf -o "$out/file" -q
row "3D Tiles (--format 3dtiles: tileset.json over the GLBs)" "$build/apps/ecobake/ecobake" export "$bake" --format 3dtiles -o "$out/file" -q
if command -v blender >/dev/null; then
  row "Blender importer (python/ecobake_blender: every tile, headless, start-up included)" blender -b --factory-startup -noaudio \
    --python-expr "import sys; sys.path.insert(0, '$root/python'); import ecobake_blender as eb; eb.import_bake('$bake')"
fi
row "Python reader (every tile read, verified, positions dequantised)" "$python" -c "
import sys; sys.path.insert(0, '$root/python')
import ecobake
b = ecobake.open_bake('$bake')
for e in b.tiles: b.read_tile(e).positions()"
