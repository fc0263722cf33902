#!/usr/bin/env python3
"""Writes the structure-aware seeds of the TIFF fuzz target into fuzz/corpus/tiff/: classic
little-endian TIFFs written field by field (no libtiff), each prefixed with the target's
channel byte. Valid files of each layout, and the damaged tables issue #30 found: one
StripOffsets entry for many strips, one TileOffsets entry for many tiles, a 1 GiB strip claim
with 64 bytes present, tiles sharing bytes, a short and an empty strip.
    python3 fuzz/make_tiff_seeds.py
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tiff")


def tiff(width, height, bits, fmt, spp, layout, offsets, counts, payload, planar=1, extra=None):
    """layout: ("strips", rows_per_strip) or ("tiles", side). Offsets of None point at the payload."""
    entries = [(256, 4, [width]), (257, 4, [height]), (258, 3, [bits] * spp), (259, 3, [1]),
               (262, 3, [1 if spp < 3 else 2]), (277, 3, [spp]), (284, 3, [planar]), (339, 3, [fmt] * spp)]
    if extra:
        entries.append((338, 3, extra))
    table_offsets = 273 if layout[0] == "strips" else 324
    table_counts = 279 if layout[0] == "strips" else 325
    if layout[0] == "strips":
        entries.append((278, 4, [layout[1]]))
    else:
        entries += [(322, 4, [layout[1]]), (323, 4, [layout[1]])]
    entries += [(table_offsets, 4, offsets), (table_counts, 4, counts)]
    entries.sort()
    directory = 8
    after = directory + 2 + 12 * len(entries) + 4
    arrays = {}
    for tag, typ, values in entries:
        size = (2 if typ == 3 else 4) * len(values)
        if size > 4:
            arrays[tag] = after
            after += size
    payload_at = after
    out = bytearray(b"II" + struct.pack("<HI", 42, directory) + struct.pack("<H", len(entries)))
    resolved = {}
    for tag, typ, values in entries:
        values = [payload_at if v is None else v for v in values]
        resolved[tag] = (typ, values)
        out += struct.pack("<HHI", tag, typ, len(values))
        if tag in arrays:
            out += struct.pack("<I", arrays[tag])
        elif typ == 3:
            out += struct.pack("<" + "H" * len(values), *values).ljust(4, b"\0")
        else:
            out += struct.pack("<I", values[0])
    out += struct.pack("<I", 0)
    for tag, typ, values in entries:
        if tag in arrays:
            typ, values = resolved[tag]
            out += struct.pack("<" + ("H" if typ == 3 else "I") * len(values), *values)
    assert len(out) == payload_at
    return bytes(out) + payload


def floats(n, start=100.0):
    return b"".join(struct.pack("<f", start + k) for k in range(n))


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    # valid: 16 x 16 float32, 16 strips of one row, in order
    head = len(tiff(16, 16, 32, 3, 1, ("strips", 1), [0] * 16, [64] * 16, b""))
    seeds["f32_strips_valid"] = tiff(16, 16, 32, 3, 1, ("strips", 1), [head + 64 * r for r in range(16)], [64] * 16,
                                     floats(256))
    # valid: 32 x 32 float32 in four 16 x 16 tiles
    head = len(tiff(32, 32, 32, 3, 1, ("tiles", 16), [0] * 4, [1024] * 4, b""))
    seeds["f32_tiles_valid"] = tiff(32, 32, 32, 3, 1, ("tiles", 16), [head + 1024 * t for t in range(4)], [1024] * 4,
                                    floats(1024))
    # valid: 8 x 8 uint16 RGBA, chunky, two strips of 4 rows
    head = len(tiff(8, 8, 16, 1, 4, ("strips", 4), [0] * 2, [256] * 2, b"", extra=[2]))
    seeds["u16_rgba_valid"] = tiff(8, 8, 16, 1, 4, ("strips", 4), [head, head + 256], [256] * 2,
                                   bytes(range(256)) * 2, extra=[2])
    # valid: 8 x 8 int16 planar, two samples (gray + alpha), one strip per plane
    head = len(tiff(8, 8, 16, 2, 2, ("strips", 8), [0] * 2, [128] * 2, b"", planar=2, extra=[2]))
    seeds["i16_planar_valid"] = tiff(8, 8, 16, 2, 2, ("strips", 8), [head, head + 128], [128] * 2,
                                     bytes(range(128)) * 2, planar=2, extra=[2])
    # damaged tables
    seeds["one_strip_entry"] = tiff(16, 16, 32, 3, 1, ("strips", 1), [None], [64], floats(256))
    seeds["one_tile_entry"] = tiff(32, 32, 32, 3, 1, ("tiles", 16), [None], [1024], floats(1024))
    seeds["huge_claim"] = tiff(16384, 16384, 32, 3, 1, ("strips", 16384), [None], [1 << 30], floats(16))
    seeds["shared_tiles"] = tiff(256, 256, 32, 3, 1, ("tiles", 16), [None] * 256, [1024] * 256, floats(256))
    seeds["short_strip"] = tiff(16, 16, 32, 3, 1, ("strips", 4), [None] * 4, [256, 256, 200, 256], floats(256))
    seeds["empty_strip"] = tiff(16, 16, 32, 3, 1, ("strips", 4), [None] * 4, [256, 0, 256, 256], floats(256))
    for name, data in sorted(seeds.items()):
        for channel in (0, 1):  # single channel, then r
            with open(os.path.join(OUT, f"{name}_c{channel}.tif"), "wb") as f:
                f.write(bytes([channel]) + data)


if __name__ == "__main__":
    main()
