#!/usr/bin/env python3
"""Compares two ecoview screenshots of one camera, block by block (issue #29's far-field measure).

Usage: frame_compare.py FRAME REFERENCE TERRAIN TERRAIN_NO_FOG [--block 40] [--json]

FRAME     the picture under test (ecoview's defaults: instances near, far field beyond)
REFERENCE the same camera with every instance drawn (--load-radius past the world,
          --no-draw-distance)
TERRAIN   the same camera with no vegetation at all (--hide every species --no-far-field);
          above its skyline everything is sky, so any pixel there that differs in a frame is
          a plant standing against the sky
TERRAIN_NO_FOG  the same with --no-fog: the sky is the pixels both terrain frames share (fog
          changes every terrain pixel far enough away to meet the sky)

Prints, per 40 x 40 px block (whole blocks at least half ground), the mean luminance (Rec. 709 weights on the
8-bit values) of FRAME minus that of REFERENCE: the worst and the median absolute difference (also the
median over the vegetated blocks: those where REFERENCE differs from TERRAIN by a level);
and the skyline (per column, the first row from the top that differs from the sky) RMS
difference in pixels; and the grain: over the vegetated blocks, the median of FRAME's
pixel-scale contrast (each pixel's luminance less its 5 x 5 neighbourhood's mean, its spread
over the block) over REFERENCE's. Reads 8-bit RGB/RGBA PNGs (what ecoview writes) with zlib + numpy only.
"""
import json
import struct
import sys
import zlib

import numpy as np


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, chunk = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            if depth != 8 or colour not in (2, 6) or chunk[12] != 0:
                sys.exit(f"{path}: only 8-bit RGB/RGBA, non-interlaced PNGs")
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    bpp = 4 if colour == 6 else 3
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        elif f == 1:  # each channel a running sum along the row
            cur = np.cumsum(line.reshape(width, bpp), axis=0).reshape(stride) & 255
        else:  # average and Paeth depend on the reconstructed left neighbour: per pixel
            cur = line.copy()
            for x in range(stride):
                a = int(cur[x - bpp]) if x >= bpp else 0
                b = int(prev[x])
                if f == 3:
                    cur[x] = (cur[x] + ((a + b) >> 1)) & 255
                else:
                    c = int(prev[x - bpp]) if x >= bpp else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out[y] = cur
        prev = cur.astype(np.int32)
    return out.reshape(height, width, bpp)[:, :, :3].astype(np.float64)


def luminance(rgb):
    return 0.2126 * rgb[:, :, 0] + 0.7152 * rgb[:, :, 1] + 0.0722 * rgb[:, :, 2]


def block_means(lum, block):
    h, w = lum.shape[0] // block, lum.shape[1] // block
    return lum[:h * block, :w * block].reshape(h, block, w, block).mean(axis=(1, 3))


def block_contrast(lum, block):
    """Per block, the pixel-scale contrast: the standard deviation of each pixel's luminance
    less the mean of the 5 x 5 pixels around it (the grain of plants a pixel or two wide; a
    far field drawn as a smooth mean has next to none and reads as paint)."""
    pad = np.pad(lum, 2, mode="edge")
    c = np.pad(np.cumsum(np.cumsum(pad, 0), 1), ((1, 0), (1, 0)))
    box = (c[5:, 5:] - c[:-5, 5:] - c[5:, :-5] + c[:-5, :-5]) / 25.0
    d = lum - box
    h, w = lum.shape[0] // block, lum.shape[1] // block
    return d[:h * block, :w * block].reshape(h, block, w, block).std(axis=(1, 3))


def skyline(frame, terrain, sky_rows):
    """Per column, the first row from the top where the frame differs from the terrain-only
    frame by more than 12 levels (summed over r, g, b) within the terrain-only frame's sky, or
    the terrain's own skyline."""
    diff = np.abs(frame - terrain).sum(axis=2) > 12
    rows = np.arange(frame.shape[0])[:, None]
    above = diff & (rows < sky_rows[None, :])
    first = np.where(above.any(axis=0), above.argmax(axis=0), sky_rows)
    return first


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    block = 40
    if "--block" in sys.argv:
        block = int(sys.argv[sys.argv.index("--block") + 1])
        args.remove(str(block))
    if len(args) != 4:
        sys.exit(__doc__)
    frame, ref, terrain, clear = (read_png(p) for p in args)
    if not (frame.shape == ref.shape == terrain.shape == clear.shape):
        sys.exit("the three pictures differ in size")
    diff = np.abs(block_means(luminance(frame), block) - block_means(luminance(ref), block))
    # the terrain's skyline: per column the first row where the fogged and clear frames differ
    step = np.abs(terrain - clear).sum(axis=2) > 0
    sky_rows = np.where(step.any(axis=0), step.argmax(axis=0), terrain.shape[0])
    # judged: blocks at least half ground (in the terrain frame, below its skyline)
    ground = (np.arange(terrain.shape[0])[:, None] >= sky_rows[None, :]).astype(np.float64)
    judged = block_means(ground, block) >= 0.5
    # vegetated: the reference's block differs from the bare terrain's by a level or more (the
    # median over all ground blocks is trivially 0 where most ground has no plants)
    planted = np.abs(block_means(luminance(ref), block) - block_means(luminance(terrain), block)) >= 1.0
    vegetated = diff[judged & planted]
    # the grain: over the vegetated blocks whose reference has pixel-scale contrast a level
    # above the bare terrain's, the median of frame's over reference's
    c_frame, c_ref = block_contrast(luminance(frame), block), block_contrast(luminance(ref), block)
    grainy = judged & planted & (c_ref > block_contrast(luminance(terrain), block) + 1.0)
    contrast = float(np.median(c_frame[grainy] / c_ref[grainy])) if grainy.any() else 0.0
    diff = diff[judged]
    line_f, line_r = skyline(frame, terrain, sky_rows), skyline(ref, terrain, sky_rows)
    has_sky = sky_rows > 0
    rms = float(np.sqrt(np.mean((line_f[has_sky] - line_r[has_sky]) ** 2))) if has_sky.any() else 0.0
    result = {
        "blocks": int(diff.size),
        "worst": round(float(diff.max()), 2),
        "median": round(float(np.median(diff)), 2),
        "vegetated_blocks": int(vegetated.size),
        "median_vegetated": round(float(np.median(vegetated)), 2) if vegetated.size else 0.0,
        "mean_frame": round(float(luminance(frame).mean()), 2),
        "mean_reference": round(float(luminance(ref).mean()), 2),
        "skyline_rms_px": round(rms, 2),
        "contrast_ratio": round(contrast, 2),
        "contrast_blocks": int(grainy.sum()),
        "skyline_columns": int(has_sky.sum()),
    }
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        print(" ".join(f"{k} {v}" for k, v in result.items()))
        np.set_printoptions(linewidth=200, precision=0, suppress=True)
        print("signed block difference (frame - reference):")
        print(block_means(luminance(frame), block) - block_means(luminance(ref), block))


if __name__ == "__main__":
    main()
