"""`ecobake report` against an independent computation on the Python reader's arrays: counts
against the reader's own, the Clark-Evans ratio and mean nearest distance of each species in
its densest tile (scipy's k-d tree, the tile's neighbours as the buffer), and crown cover
(crowns rasterised by numpy at another pitch, across tile edges).

    python3 tests/python/report_test.py ECOBAKE SOURCE_DIR SCRATCH_DIR

Exit 77 where numpy, scipy, flatbuffers or xxhash cannot be imported.
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
        from scipy.spatial import cKDTree
        import ecobake as eb
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import terrain_bins
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    bake_dir, out = os.path.join(scratch, "bake"), os.path.join(scratch, "report")
    config = os.path.join(source, "configs", "temperate_mountain.json")
    subprocess.run([ecobake, "bake", config, "-o", bake_dir, "--tiles", "10,10,15,14", "--layers", "masks", "-q"], check=True)
    subprocess.run([ecobake, "report", bake_dir, "-o", out, "-q"], check=True)
    report = json.load(open(os.path.join(out, "report.json")))
    bake = eb.open_bake(bake_dir)
    size = bake.tile_size
    tiles = {(e.x, e.z): bake.read_tile(e) for e in bake.tiles}
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    world = bake.manifest["world"]
    # the region baked: the rectangle of the bake's tiles
    tx0, tz0 = min(x for x, _ in tiles), min(z for _, z in tiles)
    tx1, tz1 = max(x for x, _ in tiles) + 1, max(z for _, z in tiles) + 1
    rx0, rz0 = tx0 * size, tz0 * size
    rx1, rz1 = min(tx1 * size, world["size_x"]), min(tz1 * size, world["size_z"])
    area = (rx1 - rx0) * (rz1 - rz0)
    check(report["region"]["tiles"] == [tx0, tz0, tx1 - 1, tz1 - 1], f"region {report['region']['tiles']}")
    check(abs(report["region"]["area_ha"] - area / 1e4) < 1e-9, f"region area {report['region']['area_ha']} ha, {area / 1e4}")
    for s, entry in zip(bake.species, report["species"]):
        check(entry["name"] == s.name, f"species order: {entry['name']} vs {s.name}")
        count = sum(int(np.sum(t.species_ids == s.id)) for t in tiles.values())
        check(entry["count"] == count, f"{s.name}: count {entry['count']}, the reader {count}")
        if count == 0:
            continue
        # crowns at 0.2 m over the baked tiles' square (edges included), against the report's 0.25 m per tile
        x0 = min(x for x, _ in tiles) * size
        z0 = min(z for _, z in tiles) * size
        nx = int((max(x for x, _ in tiles) + 1) * size - x0) * 5
        nz = int((max(z for _, z in tiles) + 1) * size - z0) * 5
        covered = np.zeros((nz, nx), dtype=bool)
        for t in tiles.values():
            m = t.species_ids == s.id
            p, r = t.positions()[m], s.crown_radius * t.scale()[m]
            for (x, _, z), rr in zip(p, r):
                i0, i1 = int((x - rr - x0) * 5), int((x + rr - x0) * 5) + 1
                j0, j1 = int((z - rr - z0) * 5), int((z + rr - z0) * 5) + 1
                i0, j0, i1, j1 = max(i0, 0), max(j0, 0), min(i1, nx), min(j1, nz)
                if i0 >= i1 or j0 >= j1:
                    continue
                ii = (np.arange(i0, i1) + 0.5) / 5 + x0 - x
                jj = (np.arange(j0, j1) + 0.5) / 5 + z0 - z
                covered[j0:j1, i0:i1] |= (ii[None, :] ** 2 + jj[:, None] ** 2) <= rr * rr
        cover = covered.sum() * 0.04 / area
        check(abs(entry["cover"] - cover) <= 0.03 * cover + 1e-6, f"{s.name}: cover {entry['cover']:.5f}, numpy {cover:.5f}")
        # Clark-Evans in the densest tile with its neighbours as the buffer
        if entry["pattern"] is None:
            continue
        tx, tz = entry["pattern"]["tile"]
        pts = np.concatenate([t.positions()[t.species_ids == s.id][:, [0, 2]] for (x, z), t in tiles.items()
                              if abs(x - tx) <= 1 and abs(z - tz) <= 1]).astype(np.float64)
        inside = (pts[:, 0] >= tx * size) & (pts[:, 0] < (tx + 1) * size) & (pts[:, 1] >= tz * size) & (pts[:, 1] < (tz + 1) * size)
        dist, _ = cKDTree(pts).query(pts[inside], k=2)
        mean_nearest = dist[:, 1].mean()
        intensity = inside.sum() / (size * size)
        ce = mean_nearest / (0.5 / np.sqrt(intensity))
        check(entry["pattern"]["points"] == int(inside.sum()), f"{s.name}: {entry['pattern']['points']} points in the window, scipy {inside.sum()}")
        check(abs(entry["pattern"]["mean_nearest_m"] - mean_nearest) <= 1e-6 * mean_nearest,
              f"{s.name}: mean nearest {entry['pattern']['mean_nearest_m']}, scipy {mean_nearest}")
        check(abs(entry["pattern"]["clark_evans"] - ce) <= 1e-6 * ce, f"{s.name}: Clark-Evans {entry['pattern']['clark_evans']}, scipy {ce}")
    # the rule beside the result: each species' suitability layer summed by terrain bin, as shares
    t = bake.manifest["terrain"]
    w, h, cell = t["width"], t["height"], t["cell_size"]
    heights = np.fromfile(os.path.join(bake_dir, t["file"]), dtype="<f4").reshape(h, w).astype(np.float64)
    lo, hi = world["min_y"], world["max_y"]
    jj, ii = np.mgrid[0:h, 0:w]
    elevation, slope_bin, aspect = terrain_bins.bins_at(heights, cell, lo, hi, ii, jj)
    inside = (ii * cell >= rx0) & (ii * cell <= rx1) & (jj * cell >= rz0) & (jj * cell <= rz1)
    for s, entry in zip(bake.species, report["species"]):
        suit = bake.read_layer("suitability_" + s.name).astype(np.float64) * inside
        for mask, bins, nbins in (("elevation", elevation, 10), ("slope", slope_bin, 6), ("aspect", aspect, 9)):
            total = suit.sum()  # 0 where the region holds none of the species' ground: shares 0
            ours = 100 * np.bincount(bins.ravel(), weights=suit.ravel(), minlength=nbins) / total if total > 0 else np.zeros(nbins)
            theirs = np.array([b["suitability_share_pct"] for b in entry["terrain_shares"][mask]])
            check(np.max(np.abs(ours - theirs)) < 0.05, f"{s.name} {mask}: suitability shares differ by {np.max(np.abs(ours - theirs)):.3f} pts")
    # moisture, the fourth mask with the layers: plants by the layer's nearest sample, and the rule
    moist = bake.read_layer("moisture").astype(np.float64)
    moist_bin = np.clip((moist * 10).astype(int), 0, 9)
    for s, entry in zip(bake.species, report["species"]):
        counts = np.zeros(10)
        for t in tiles.values():
            p = t.positions()[t.species_ids == s.id].astype(np.float64)
            i = np.clip(np.floor(p[:, 0] / cell + 0.5).astype(int), 0, w - 1)
            j = np.clip(np.floor(p[:, 2] / cell + 0.5).astype(int), 0, h - 1)
            counts += np.bincount(moist_bin[j, i], minlength=10)
        total = counts.sum()
        theirs = np.array([b["share_pct"] for b in entry["terrain_shares"]["moisture"]])
        if total:
            worst = np.max(np.abs(theirs - 100 * counts / total))
            check(worst <= 100 * 2 / total + 1e-9, f"{s.name} moisture: plant shares differ by {worst:.3f} pts")
        suit = bake.read_layer("suitability_" + s.name).astype(np.float64) * inside
        rule = 100 * np.bincount(moist_bin.ravel(), weights=suit.ravel(), minlength=10) / suit.sum() if suit.sum() > 0 else np.zeros(10)
        theirs = np.array([b["suitability_share_pct"] for b in entry["terrain_shares"]["moisture"]])
        check(np.max(np.abs(theirs - rule)) < 0.05, f"{s.name} moisture: suitability shares differ by {np.max(np.abs(theirs - rule)):.3f} pts")
    for f in failures[:20]:
        print("FAIL:", f)
    print(f"report: {len(report['species'])} species checked, {len(failures)} failures")
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
