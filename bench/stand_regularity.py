#!/usr/bin/env python3
"""How much more ground a bake's stands hide than Beer-Lambert's randomly placed crowns would
(docs/viewer-far-field.md, "Cover and tone apart"): the far field's cover 1 - exp(-depth)
assumes crowns placed at random, and the sampler's trees keep their spacing.

For the densest windows of W x W m (by crown area of the kind's instances), each crown is an
ellipsoid (the species' crown radius across, 0.3 of the tree's height tall, centred at 0.65 of
it, all times the instance's scale) and its shadow is cast along a view of elevation e onto flat
ground, on a raster of 0.5 m. Per e it prints the factor -ln(ground in view) / -ln(what random
crowns leave), the latter the mean over boxes of B m of exp(-the boxes' mean count of shadows
over a point) (so what varies at the far field's texel scale is not counted as regularity).
A factor above 1: the stand hides more than its optical depth says.

Usage: stand_regularity.py BAKE [WINDOWS (default 3)] [--kind tree] [--window 256] [--box 16]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ecobake  # noqa: E402

RASTER = 0.5
ELEVATIONS = (90, 60, 45, 35, 25)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bake")
    ap.add_argument("windows", nargs="?", type=int, default=3)
    ap.add_argument("--kind", default="tree")
    ap.add_argument("--window", type=float, default=256.0)
    ap.add_argument("--box", type=float, default=16.0)
    a = ap.parse_args()
    if a.windows < 1 or not 16 <= a.window <= 4096 or not RASTER < a.box <= a.window:
        ap.error("windows >= 1, window 16-4096 m, box between the raster's 0.5 m and the window")
    try:
        bake = ecobake.open_bake(a.bake)
    except (OSError, ValueError) as e:
        ap.exit(2, f"stand_regularity.py: {e}\n")
    species = bake.species
    positions, scales, ids = [], [], []
    for entry in bake.tiles:
        t = bake.read_tile(entry)
        keep = np.array([species[i].kind == a.kind for i in t.species_ids], dtype=bool)
        if keep.any():
            positions.append(t.positions()[keep])
            scales.append(t.scale()[keep])
            ids.append(t.species_ids[keep])
    if not positions:
        ap.exit(2, f"stand_regularity.py: {a.bake}: no instance of kind '{a.kind}'\n")
    p, s, sid = np.concatenate(positions), np.concatenate(scales), np.concatenate(ids)
    radius = np.array([x.crown_radius for x in species])[sid] * s
    height = np.array([x.mesh_height for x in species])[sid] * s
    w = a.window
    gx, gz = (p[:, 0] // w).astype(int), (p[:, 2] // w).astype(int)
    area = np.zeros((gx.max() + 1, gz.max() + 1))
    np.add.at(area, (gx, gz), np.pi * radius**2)
    for index in np.argsort(-area.ravel())[:a.windows]:
        wx, wz = divmod(int(index), area.shape[1])
        x0, z0 = wx * w, wz * w
        # the window's trees and those whose shadows can reach into it (the longest: 25 degrees)
        reach = float(height.max()) * 1.1 / np.tan(np.radians(min(ELEVATIONS))) + float(radius.max())
        near = (p[:, 0] > x0 - reach) & (p[:, 0] < x0 + w + reach) & (p[:, 2] > z0 - reach) & (p[:, 2] < z0 + w + reach)
        inside = (p[:, 0] >= x0) & (p[:, 0] < x0 + w) & (p[:, 2] >= z0) & (p[:, 2] < z0 + w)
        names = {species[i].name: int((sid[inside] == i).sum()) for i in np.unique(sid[inside])}
        print(f"window {x0:.0f},{z0:.0f} ({w:.0f} m): crown area {area[wx, wz] / w**2:.2f} of the ground, {names}")
        xs = np.arange(x0 + RASTER / 2, x0 + w, RASTER)
        zs = np.arange(z0 + RASTER / 2, z0 + w, RASTER)
        gxs, gzs = np.meshgrid(xs, zs, indexing="ij")
        for e in ELEVATIONS:
            sin_e, cos_e = np.sin(np.radians(e)), np.cos(np.radians(e))
            count = np.zeros(gxs.shape, np.int32)
            for (x, _, z), r, h in zip(p[near], radius[near], height[near]):
                semi = 0.3 * h  # the ellipsoid's half height; its shadow's half length along the view:
                along = np.sqrt(r * r * sin_e * sin_e + semi * semi * cos_e * cos_e) / sin_e
                cz = z + 0.65 * h * cos_e / sin_e
                i0, i1 = np.searchsorted(xs, x - r), np.searchsorted(xs, x + r)
                j0, j1 = np.searchsorted(zs, cz - along), np.searchsorted(zs, cz + along)
                if i1 <= i0 or j1 <= j0:
                    continue
                dx = (gxs[i0:i1, j0:j1] - x) / r
                dz = (gzs[i0:i1, j0:j1] - cz) / along
                count[i0:i1, j0:j1] += dx * dx + dz * dz < 1
            k = int(round(a.box / RASTER))
            n = count.shape[0] // k * k
            boxes = count[:n, :n].reshape(n // k, k, n // k, k).mean(axis=(1, 3))
            random_left = float(np.exp(-boxes).mean())
            left = float((count[:n, :n] == 0).mean())
            factor = np.log(max(left, 1e-6)) / np.log(min(max(random_left, 1e-6), 1 - 1e-9))
            print(f"  elevation {e:2d}: ground in view {left:.3f}, random crowns would leave {random_left:.3f}, "
                  f"factor {factor:.2f}")


if __name__ == "__main__":
    main()
