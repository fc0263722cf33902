#!/usr/bin/env bash
# The cost of checking a GeoJSON exclusion (issue #30): a world-sized polygon with N small
# square holes in a grid (the worst layout for the old z-band check: a band held a whole row of
# holes), for N = 5,000, 20,000 and 81,000 (16 MB). Times `ecobake validate` (which parses and
# checks every ring, the hole-in-ring test and self-intersection) and `ecobake bake` of a
# 1025 x 1025 world under it; median of 3 runs each. Prints one markdown row per N.
# Usage: bench/geojson_bench.sh BUILD
set -euo pipefail
build=$(cd "$1" && pwd)
ecobake=$build/apps/ecobake/ecobake
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work" <<'PY'
import json, struct, sys, zlib
work = sys.argv[1]
n = 1025
raw = b''.join(b'\x00' + struct.pack('>H', 30000) * n for _ in range(n))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
open(f'{work}/h.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', n, n, 16, 0, 0, 0, 0)) +
                                  chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
W = 4096.0
for N in (5000, 20000, 81000):
    g = int(N ** 0.5) + 1
    step = (W - 20) / g
    holes = []
    for i in range(N):
        cx, cz, s = 10 + (i % g + 0.5) * step, 10 + (i // g + 0.5) * step, step * 0.2
        holes.append([[cx - s, cz - s], [cx - s, cz + s], [cx + s, cz + s], [cx + s, cz - s], [cx - s, cz - s]])
    outer = [[1, 1], [W - 1, 1], [W - 1, W - 1], [1, W - 1], [1, 1]]
    json.dump({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
               "geometry": {"type": "Polygon", "coordinates": [outer] + holes}}]}, open(f'{work}/holes{N}.geojson', 'w'))
    json.dump({"name": "holes", "terrain": {"heightmap": "h.png", "cell_size": 4, "min_elevation": 0, "max_elevation": 1000},
               "tiling": {"tile_size": 512}, "seed": 3, "vector_exclusions": [{"file": f"holes{N}.geojson"}],
               "species": [{"name": "oak", "kind": "tree", "radius": 6, "max_radius_factor": 3,
                            "elevation": {"min": 0, "opt_low": 0, "opt_high": 1000, "max": 1100},
                            "mesh": {"height": 15, "crown_radius": 4}}]}, open(f'{work}/c{N}.json', 'w'))
PY
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
seconds() { local s; s=$(date +%s.%N); "$@" > /dev/null 2>&1; awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }'; }
echo "| holes | file | validate (s) | bake (s) |"
echo "|---|---|---|---|"
for N in 5000 20000 81000; do
  size=$(du -m "$work/holes$N.geojson" | cut -f1)
  v=$(for r in 1 2 3; do seconds "$ecobake" validate "$work/c$N.json"; done | median)
  b=$(for r in 1 2 3; do seconds "$ecobake" bake "$work/c$N.json" -o "$work/out" -q; done | median)
  echo "| $N | $size MB | $v | $b |"
done
