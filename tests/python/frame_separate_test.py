#!/usr/bin/env python3
"""bench/frame_separate.py recovers a block's plant cover and the plants' luminance from two
renders over different grounds. Synthetic frames built here from known covers and colours
(every pixel (1 - c) ground + c plants, in floats: no 8-bit rounding), with the expected block
figures computed from those inputs, not through the tool's formula.
Usage: frame_separate_test.py SOURCE_DIR; exits 77 (skip) without numpy."""
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.join(sys.argv[1], "bench"))
import frame_separate  # noqa: E402

rng = np.random.default_rng(7)
h, w = 80, 120  # 2 x 3 blocks of 40 px
ground1 = np.empty((h, w, 3))
ground1[...] = [200, 30, 190]
ground1 *= rng.uniform(0.5, 1.0, (h, w, 1))  # lit and shaded, fogged: any ground colour
ground2 = np.empty((h, w, 3))
ground2[...] = [20, 210, 35]
ground2 *= rng.uniform(0.5, 1.0, (h, w, 1))
cover = rng.uniform(0, 1, (h, w)) * np.linspace(0.1, 1.0, w)[None, :]  # more toward the right
plants = rng.uniform(20, 160, (h, w, 3))
frame1 = (1 - cover[..., None]) * ground1 + cover[..., None] * plants
frame2 = (1 - cover[..., None]) * ground2 + cover[..., None] * plants
got_cover, got_luma = frame_separate.separate(frame1, frame2, ground1, ground2)
weights = np.array([0.2126, 0.7152, 0.0722])
failures = 0
for i in range(2):
    for j in range(3):
        s = np.s_[i * 40:(i + 1) * 40, j * 40:(j + 1) * 40]
        want_cover = cover[s].mean()
        luma = plants[s] @ weights
        want_luma = (cover[s] * luma).sum() / cover[s].sum()  # what the pixels' plants show, by their cover
        if abs(got_cover[i, j] - want_cover) > 1e-9 or abs(got_luma[i, j] - want_luma) > 1e-6:
            print(f"block {i},{j}: cover {got_cover[i, j]:.6f} (want {want_cover:.6f}), "
                  f"plants {got_luma[i, j]:.4f} (want {want_luma:.4f})")
            failures += 1
# where the two grounds are the same colour nothing can be told: the block is left out
same = frame_separate.separate(frame1, frame1, ground1, ground1)[0]
if not np.isnan(same).all():
    print("grounds alike: blocks were judged")
    failures += 1

# Hostile inputs: one line naming the file, exit status 2, no traceback.
import struct  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import zlib  # noqa: E402


def write_png(path, width, height):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + bytes(3 * width) for _ in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


tool = os.path.join(sys.argv[1], "bench", "frame_separate.py")
with tempfile.TemporaryDirectory() as d:
    good, small, text, fifo = (os.path.join(d, n) for n in ("good.png", "small.png", "text.png", "fifo.png"))
    write_png(good, 80, 40)
    write_png(small, 40, 40)
    with open(text, "w") as f:
        f.write("not an image")
    os.mkfifo(fifo)
    cases = {"missing": [good, os.path.join(d, "none.png")] + [good] * 4, "other size": [good, small] + [good] * 4,
             "not a PNG": [good, text] + [good] * 4, "a FIFO": [good, fifo] + [good] * 4}
    for name, args in cases.items():
        r = subprocess.run([sys.executable, tool] + args, capture_output=True, text=True, timeout=30)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or args[1] not in lines[0]:
            print(f"{name}: exit {r.returncode}, stderr {r.stderr!r}")
            failures += 1
    r = subprocess.run([sys.executable, tool, "--json"] + [good] * 6, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        print(f"six readable frames: exit {r.returncode}, {r.stderr!r}")
        failures += 1
sys.exit(1 if failures else 0)
