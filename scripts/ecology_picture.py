#!/usr/bin/env python3
"""Top-down picture of a bake's plants in one region, for docs/ecology.md: every instance a
disc of its crown (species crown radius x scale) in its species' colour, larger plants on top
and trees half transparent (the understory under them shows), the river layer's water in
blue, over a light hillshade of the bake's terrain.

    scripts/ecology_picture.py BAKE X0 Z0 SIDE OUT.png [PIXELS_PER_METRE]

Reads the bake with the project's Python reader (python/ecobake: checksums verified). Needs
Debian's python3-numpy, python3-flatbuffers, python3-xxhash and python3-pil.
"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ecobake  # noqa: E402

# One colour per kind, shaded by species index so species of a kind stay apart.
KIND_COLOURS = {"tree": (34, 92, 34), "shrub": (120, 140, 40), "grass": (170, 190, 90), "ground_cover": (90, 130, 60)}


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    bake = ecobake.open_bake(sys.argv[1])
    x0, z0, side = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    out = sys.argv[5]
    ppm = float(sys.argv[6]) if len(sys.argv) > 6 else 4.0
    n = int(side * ppm)
    # Ground: the terrain's heights (terrain.r32f) as a hillshade lit from the north-west.
    m = bake.manifest
    w, h, cell = m["terrain"]["width"], m["terrain"]["height"], m["terrain"]["cell_size"]
    heights = np.fromfile(os.path.join(sys.argv[1], "terrain.r32f"), dtype="<f4").reshape(h, w)
    xs = x0 + (np.arange(n) + 0.5) / ppm
    zs = z0 + (np.arange(n) + 0.5) / ppm
    ix = np.clip((xs / cell).astype(int), 1, w - 2)
    iz = np.clip((zs / cell).astype(int), 1, h - 2)
    gx = (heights[iz[:, None], ix[None, :] + 1] - heights[iz[:, None], ix[None, :] - 1]) / (2 * cell)
    gz = (heights[iz[:, None] + 1, ix[None, :]] - heights[iz[:, None] - 1, ix[None, :]]) / (2 * cell)
    shade = np.clip(0.75 + 0.6 * (-gx - gz) / np.sqrt(1 + gx * gx + gz * gz), 0.4, 1.0)
    ground = np.stack([200 * shade, 185 * shade, 150 * shade], axis=2)
    # Water: the river layer's rule, nearest pixel (a picture, not a measure).
    river = next((l for l in bake.layers if l.kind == "river"), None)
    if river is not None:
        dist = bake.read_layer(river).reshape(river.height, river.width)
        wet = dist[np.clip((zs / cell + 0.5).astype(int), 0, h - 1)[:, None],
                   np.clip((xs / cell + 0.5).astype(int), 0, w - 1)[None, :]] <= river.water_distance
        ground[wet] = (70, 110, 170)
    img = Image.fromarray(ground.astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    # Trees on a layer of their own, half transparent, so the understory under them shows.
    crowns = Image.new("RGBA", img.size, (0, 0, 0, 0))
    crownDraw = ImageDraw.Draw(crowns)
    plants = []
    for entry in bake.tiles:
        if (entry.x + 1) * m["tiling"]["tile_size"] < x0 or entry.x * m["tiling"]["tile_size"] > x0 + side:
            continue
        if (entry.z + 1) * m["tiling"]["tile_size"] < z0 or entry.z * m["tiling"]["tile_size"] > z0 + side:
            continue
        tile = bake.read_tile(entry)
        if not len(tile):
            continue
        p = tile.positions()
        s = tile.scale()
        for k in range(len(tile)):
            sp = tile.species[tile.species_ids[k]]
            x, z = float(p[k, 0]), float(p[k, 2])
            r = sp.crown_radius * float(s[k])
            if x0 - r <= x <= x0 + side + r and z0 - r <= z <= z0 + side + r:
                plants.append((r, x, z, sp))
    plants.sort(key=lambda q: q[0])
    for r, x, z, sp in plants:
        base = KIND_COLOURS.get(sp.kind, (60, 120, 60))
        tint = 0.8 + 0.4 * ((sp.id * 37) % 7) / 6
        col = tuple(int(min(255, c * tint)) for c in base)
        cx, cz, rr = (x - x0) * ppm, (z - z0) * ppm, max(0.7, r * ppm)
        box = [cx - rr, cz - rr, cx + rr, cz + rr]
        if sp.kind == "tree":
            crownDraw.ellipse(box, fill=col + (110,), outline=(10, 40, 10, 255), width=2)
        else:
            draw.ellipse(box, fill=col)
    img = Image.alpha_composite(img.convert("RGBA"), crowns).convert("RGB")
    img.save(out)
    print(f"{out}: {len(plants)} plants in {side:g} m x {side:g} m at ({x0:g}, {z0:g})")


if __name__ == "__main__":
    main()
