"""`ecobake diff --json` against an independent computation: two partial bakes of the sample
world (seeds 1 and 2) read with python/ecobake, each plant binned with numpy by the terrain
under it (nearest sample; elevation in ten bands of the world's range; slope and aspect from
central differences), and the shares compared with diff's.

    python3 tests/python/diff_test.py ECOBAKE SOURCE_DIR SCRATCH_DIR

Exit 77 where numpy, flatbuffers or xxhash cannot be imported.
"""
import json
import os
import shutil
import subprocess
import sys


def main() -> int:
    ecobake, source, scratch = sys.argv[1:4]
    sys.path.insert(0, os.path.join(source, "python"))
    try:
        import numpy as np
        import ecobake as eb
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import terrain_bins
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    config = os.path.join(source, "configs", "temperate_mountain.json")
    bakes = []
    for seed in (1, 2):
        out = os.path.join(scratch, f"seed{seed}")
        subprocess.run([ecobake, "bake", config, "-o", out, "--tiles", "10,10,15,14", "--seed", str(seed), "-q"], check=True)
        bakes.append(out)
    result = subprocess.run([ecobake, "diff", bakes[0], bakes[1], "--json"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    diff = json.loads(result.stdout)

    def bins(folder):
        bake = eb.open_bake(folder)
        t = bake.manifest["terrain"]
        w, h, cell = t["width"], t["height"], t["cell_size"]
        heights = np.fromfile(os.path.join(folder, t["file"]), dtype="<f4").reshape(h, w).astype(np.float64)
        lo, hi = bake.manifest["world"]["min_y"], bake.manifest["world"]["max_y"]
        out = {s.name: {"elevation": np.zeros(10), "slope": np.zeros(6), "aspect": np.zeros(9)} for s in bake.species}
        for entry in bake.tiles:
            tile = bake.read_tile(entry)
            p = tile.positions().astype(np.float64)
            elevation, slope_bin, aspect = terrain_bins.bins_of_points(heights, cell, lo, hi, p[:, 0], p[:, 2])
            for s in bake.species:
                m = tile.species_ids == s.id
                out[s.name]["elevation"] += np.bincount(elevation[m], minlength=10)
                out[s.name]["slope"] += np.bincount(slope_bin[m], minlength=6)
                out[s.name]["aspect"] += np.bincount(aspect[m], minlength=9)
        return out

    a, b = bins(bakes[0]), bins(bakes[1])
    failures = []
    compared = 0
    for entry in diff["species"]:
        for side, counts in (("a", a[entry["name"]]), ("b", b[entry["name"]])):
            total = entry[f"count_{side}"]
            for mask in ("elevation", "slope", "aspect"):
                ours = counts[mask]
                if ours.sum() != total:
                    failures.append(f"{entry['name']} {side} {mask}: {ours.sum()} binned, count {total}")
                theirs = np.array([x[f"share_{side}_pct"] for x in entry["bins"][mask]])
                expected = 100 * ours / total if total else np.zeros_like(ours)
                # a plant on a bin's edge may round either way in float32 and float64
                worst = np.max(np.abs(theirs - expected))
                if worst > 100 * 2 / max(total, 1) + 1e-9:
                    failures.append(f"{entry['name']} {side} {mask}: shares differ by {worst:.3f} pts")
                compared += len(theirs)
    for f in failures[:20]:
        print("FAIL:", f)
    print(f"diff bins: {compared} shares compared, {len(failures)} failures")
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
