#!/usr/bin/env python3
"""Separates a frame's plants from its ground: how much of the ground they hide and how bright
they are, per 40 x 40 px block, for a frame under test against the frame drawn with every
instance (bench/farfield_separate.sh renders the six inputs).

frame_compare.py says by how much a block's mean luminance is off, not why: too little cover
over dark soil and crowns too light read the same. Each frame is rendered twice, over two
ground palettes (magenta and green: every ground colour of the manifest replaced), and the
ground alone once per palette. Pixels average finished colours, so a pixel whose plants hide a
share c of the ground is P = (1 - c) T + c V, with T the ground alone and V the plants' colour;
the two palettes give c = 1 - (P1 - P2).(T1 - T2) / |T1 - T2|^2 and then c V = P1 - (1 - c) T1.
Shadows break it (the ground alone has no plants' shadows): render all six with --no-shadows.

Usage: frame_separate.py [--json] FRAME1 FRAME2 REF1 REF2 GROUND1 GROUND2 (1: magenta, 2: green)
Prints per block "cover frame/ref" and the plants' luminance difference (frame - ref, levels of
255; where the reference's cover is at least 0.1: below, a few pixels' plants), then the medians
over the blocks whose reference cover is 0.1-0.95: the frame's optical depth over the
reference's (-ln(1 - c)) and the plants' luminance difference. An unreadable input or images of
different sizes: one line naming it, exit status 2.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frame_compare import read_png  # noqa: E402

BLOCK = 40
LUMA = np.array([0.2126, 0.7152, 0.0722])


def separate(p1, p2, t1, t2):
    """Per block: mean cover (nan where the palettes do not differ) and the plants' luminance."""
    dt = t1 - t2
    n2 = (dt * dt).sum(-1)
    ok = n2 > 400  # the two grounds differ by at least 20 levels (fog can wash them together)
    c = np.clip(1 - ((p1 - p2) * dt).sum(-1) / np.maximum(n2, 1), 0, 1)
    plant = (p1 - (1 - c[..., None]) * t1) @ LUMA  # c x the plants' luminance
    rows, cols = c.shape[0] // BLOCK, c.shape[1] // BLOCK
    cover = np.full((rows, cols), np.nan)
    luma = np.full((rows, cols), np.nan)
    for i in range(rows):
        for j in range(cols):
            s = np.s_[i * BLOCK:(i + 1) * BLOCK, j * BLOCK:(j + 1) * BLOCK]
            m = ok[s]
            if m.mean() < 0.5:
                continue
            cover[i, j] = c[s][m].mean()
            if c[s][m].sum() > 20:  # some 20 pixels' worth of plants
                luma[i, j] = plant[s][m].sum() / c[s][m].sum()
    return cover, luma


def fail(message):
    print(f"frame_separate.py: {message}", file=sys.stderr)
    sys.exit(2)


def read(path, shape):
    if not os.path.isfile(path):  # missing, or a FIFO or device that a read would wait on
        fail(f"{path}: not a regular file")
    try:
        image = read_png(path)[..., :3].astype(float)
    except (Exception, SystemExit) as e:  # truncated or foreign (read_png exits on a non-PNG)
        fail(str(e) if str(e).startswith(path) else f"{path}: {e}")
    if shape is not None and image.shape != shape:
        fail(f"{path}: {image.shape[1]}x{image.shape[0]}, the first image is {shape[1]}x{shape[0]}")
    return image


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) != 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    first = read(args[0], None)
    f1, f2, r1, r2, t1, t2 = [first] + [read(p, first.shape) for p in args[1:]]
    cf, lf = separate(f1, f2, t1, t2)
    cr, lr = separate(r1, r2, t1, t2)
    judged = (cr >= 0.1) & (cr <= 0.95) & ~np.isnan(cf)
    depth = np.log(1 - np.clip(cf[judged], 0, 0.999)) / np.log(1 - cr[judged])
    luma = (lf - lr)[judged & ~np.isnan(lf) & ~np.isnan(lr)]
    summary = {
        "blocks": int(judged.sum()),
        "optical_depth_ratio": round(float(np.median(depth)), 3) if depth.size else None,
        "cover_difference": round(float(np.median(cf[judged] - cr[judged])), 3) if depth.size else None,
        "plant_luminance_difference": round(float(np.median(luma)), 2) if luma.size else None,
    }
    if "--json" in sys.argv:
        print(json.dumps(summary))
        return
    print("per 40 px block (every other column): cover frame/ref, then the plants' luminance frame - ref")
    for i in range(cr.shape[0]):
        cells = range(0, cr.shape[1], 2)
        if all(np.isnan(cr[i, j]) or cr[i, j] < 0.03 for j in cells):
            continue
        print("%3d " % (i * BLOCK) + " ".join(
            "    .    " if np.isnan(cr[i, j]) or cr[i, j] < 0.03 else "%.2f/%.2f" % (cf[i, j], cr[i, j]) for j in cells))
        print("    " + " ".join(
            "    .    " if np.isnan(lf[i, j]) or np.isnan(lr[i, j]) or cr[i, j] < 0.1 else "  %+6.1f " % (lf[i, j] - lr[i, j])
            for j in cells))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
