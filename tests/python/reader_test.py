"""python/ecobake against the CLI's CSV export of the same bake, and against corrupt files.

    python3 tests/python/reader_test.py ECOBAKE SOURCE_DIR SCRATCH_DIR

Skips (exit 77) where numpy, flatbuffers or xxhash cannot be imported.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

SKIP = 77


def main() -> int:
    ecobake, source, scratch = sys.argv[1:4]
    sys.path.insert(0, os.path.join(source, "python"))
    try:
        import numpy as np
        import ecobake as eb
    except ImportError as e:
        print(f"skipped: {e} (install python3-numpy python3-flatbuffers python3-xxhash)")
        return SKIP

    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    bake_dir = os.path.join(scratch, "bake")
    config = os.path.join(source, "configs", "temperate_mountain.json")
    subprocess.run([ecobake, "bake", config, "-o", bake_dir, "--tiles", "10,10,13,12", "--layers", "masks", "-q"],
                   check=True)
    csv_path = os.path.join(scratch, "instances.csv")
    subprocess.run([ecobake, "export", bake_dir, "--format", "csv", "-o", csv_path], check=True,
                   stdout=subprocess.DEVNULL)

    bake = eb.open_bake(bake_dir)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    check(bake.instance_count == len(rows), f"count {bake.instance_count} vs CSV {len(rows)}")
    check(len(bake.tiles) == 12, f"{len(bake.tiles)} tiles, expected 12")
    # CSV order: manifest order, then tile order. Printed with 3 / 5 / 4 decimals.
    i = 0
    for entry in bake.tiles:
        tile = bake.read_tile(entry)
        check(tile.records.base is not None, "records copied instead of viewing the file's bytes")
        p, yaw, scale = tile.positions(), tile.yaw(), tile.scale()
        up, colors = tile.up(), tile.colors()
        check(np.all(np.abs(np.linalg.norm(up, axis=1) - 1) < 1e-5), "up vectors not unit")
        check(np.all(up[:, 1] > 0), "an up vector points down")
        check(np.all(colors[:, 3] == 255), "alpha not opaque")
        lo, hi = entry.x * bake.tile_size, (entry.x + 1) * bake.tile_size
        check(np.all((p[:, 0] >= lo - 1e-3) & (p[:, 0] <= hi + 1e-3)), f"tile {entry.file}: x outside the tile")
        expected = rows[i:i + len(tile)]
        i += len(tile)
        ref = np.array([[float(r["x"]), float(r["y"]), float(r["z"])] for r in expected], dtype=np.float64)
        check(np.max(np.abs(p - ref)) <= 0.0005 + 1e-6 * np.max(np.abs(ref)), f"{entry.file}: positions differ")
        check(np.max(np.abs(yaw - np.array([float(r["yaw"]) for r in expected]))) <= 5e-6 + 1e-6,
              f"{entry.file}: yaw differs")
        check(np.max(np.abs(scale - np.array([float(r["scale"]) for r in expected]))) <= 5e-5 + 1e-6,
              f"{entry.file}: scale differs")
        check(list(tile.species_ids) == [int(r["species_id"]) for r in expected], f"{entry.file}: species differ")
        check([bake.species[s].name for s in tile.species_ids[:3]] == [r["species"] for r in expected[:3]],
              f"{entry.file}: species names differ")

    # pandas (Debian's python3-pandas) reads the CSV as its users would: the whole instance,
    # transform from the quaternion columns against one built here from yaw and up (Rodrigues,
    # not transform.h), the linear tint against the colours, ids from tile and index.
    try:
        import pandas as pd
    except ImportError:
        pd = None
        print("pandas not installed: the CSV's pandas check is skipped (python3-pandas)")
    if pd is not None:
        frame = pd.read_csv(csv_path)
        check(list(frame.columns) == ["x", "y", "z", "yaw", "scale", "species", "species_id", "qx", "qy", "qz", "qw",
                                      "r", "g", "b", "id"], f"pandas columns {list(frame.columns)}")
        check(frame["id"].dtype == np.int64 and frame["species_id"].dtype == np.int64, "pandas: ids are not integers")
        start = 0
        for entry in bake.tiles:
            tile = bake.read_tile(entry)
            part = frame.iloc[start:start + len(tile)]
            start += len(tile)
            q = part[["qx", "qy", "qz", "qw"]].to_numpy()
            x, y, z, w = q.T
            matrix = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                               2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                               2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=1).reshape(-1, 3, 3)
            yaw, up = tile.yaw().astype(np.float64), tile.up().astype(np.float64)
            c, s_ = np.cos(yaw), np.sin(yaw)  # turn about +y, +x toward -z
            spin = np.zeros((len(yaw), 3, 3))
            spin[:, 0, 0], spin[:, 0, 2], spin[:, 1, 1], spin[:, 2, 0], spin[:, 2, 2] = c, s_, 1, -s_, c
            axis = np.stack([up[:, 2], np.zeros(len(up)), -up[:, 0]], axis=1)  # +y x up
            sin_a = np.linalg.norm(axis, axis=1)
            k = axis / np.maximum(sin_a, 1e-12)[:, None]
            kx = np.zeros((len(up), 3, 3))
            kx[:, 0, 1], kx[:, 0, 2], kx[:, 1, 0], kx[:, 1, 2], kx[:, 2, 0], kx[:, 2, 1] = \
                -k[:, 2], k[:, 1], k[:, 2], -k[:, 0], -k[:, 1], k[:, 0]
            cos_a = up[:, 1]
            tilt = np.eye(3) + sin_a[:, None, None] * kx + (1 - cos_a)[:, None, None] * (kx @ kx)
            expected = tilt @ spin
            check(np.max(np.abs(matrix - expected)) < 2e-5, f"{entry.file}: pandas: rotation differs by "
                  f"{np.max(np.abs(matrix - expected)):.2g}")
            tint = part[["r", "g", "b"]].to_numpy()
            check(np.max(np.abs(tint - tile.colors()[:, :3] / 255.0)) <= 5e-5, f"{entry.file}: pandas: tint differs")
            tile_number = entry.z * bake.manifest["tiling"]["tiles_x"] + entry.x
            ids = (tile_number << 26) + np.arange(len(tile), dtype=np.int64)
            check(np.array_equal(part["id"].to_numpy(), ids), f"{entry.file}: pandas: ids differ")

    # Raster layers: the river's distance and, with --layers masks, the masks and suitability.
    check(bake.sun == (180.0, 40.0), f"sun {bake.sun}")
    # The config's ground: the temperate preset's soil (0.25, 0.19, 0.13 of 255, rounded) and
    # the snow line it sets, as the C++ reader has them.
    check(bake.ground is not None and bake.ground["soil"] == (64, 48, 33) and bake.ground["snowline"] == 2250.0
          and all(len(bake.ground[k]) == 3 for k in ("grass", "rock", "sand", "snow")), f"ground {bake.ground}")
    names = [l.name for l in bake.layers]
    check(names[:6] == ["river_distance", "elevation", "slope", "aspect", "sun_exposure", "moisture"],
          f"layers {names}")
    check(len(names) == 6 + len(bake.species), f"{len(names)} layers")
    river = bake.layer("river_distance")
    check(river.kind == "river" and river.unit == "m" and river.water_distance == 6.0, f"river layer {river}")
    codes = bake.read_layer_codes(river)
    check(codes.dtype == np.uint16 and codes.shape == (1025, 1025), f"river codes {codes.dtype} {codes.shape}")
    raw = np.fromfile(os.path.join(bake_dir, river.file), dtype="<u2").reshape(1025, 1025)
    check(np.array_equal(codes, raw), "river codes differ from the file")
    distance = bake.read_layer("river_distance")
    check(distance.dtype == np.float32 and distance.min() == 0 and abs(distance.max() - river.value_max) < 1e-3,
          f"river distance range {distance.min()} .. {distance.max()}")
    check(0 < np.mean(distance <= river.water_distance) < 0.1, "water covers no or too much of the world")
    # The elevation layer against terrain.r32f (what the viewer draws), within half a code step.
    heights = np.fromfile(os.path.join(bake_dir, "terrain.r32f"), dtype="<f4").reshape(1025, 1025)
    elevation = bake.layer("elevation")
    step = (elevation.value_max - elevation.value_min) / 255
    check(np.max(np.abs(bake.read_layer(elevation) - heights)) <= step / 2 * 1.001 + 1e-3, "elevation layer differs")
    for l in bake.layers[1:]:
        values = bake.read_layer(l)
        check(values.shape == (1025, 1025) and values.min() >= l.value_min - 1e-4 and
              values.max() <= l.value_max + 1e-4, f"{l.name}: values outside its range")
    check(bake.layers[-1].species == bake.species[-1].name, "the last suitability layer is not the last species'")
    # A damaged layer file is a BakeError naming it.
    slope_path = os.path.join(bake_dir, bake.layer("slope").file)
    slope_bytes = open(slope_path, "rb").read()
    with open(slope_path, "wb") as f:
        f.write(slope_bytes[:-1] + bytes([slope_bytes[-1] ^ 1]))
    try:
        bake.read_layer("slope")
        check(False, "a damaged layer was read")
    except eb.BakeError as e:
        check("layers/slope.r8: checksum mismatch" in str(e), f"unexpected message: {e}")
    # A layer escaping the bake folder, or off the terrain's grid, is refused when opening.
    manifest_path = os.path.join(bake_dir, "manifest.json")
    good_manifest = open(manifest_path).read()
    # (as the C++ reader: a range past float32, a name or unit with a control character, are refused)
    for key, value, expected in (("file", "../outside.r8", "/layers/2/file"), ("width", 7, "7 x 1025 layer"),
                                 ("encoding", "float", "unknown encoding"), ("value_max", -5, "value_min must be below"),
                                 ("value_min", -1e308, "/layers/2/value_min: out of float range"),
                                 ("value_max", 1e308, "/layers/2/value_max: out of float range"),
                                 ("name", "slope\x1b[2J", "/layers/2/name: must be at most 256 bytes without control"),
                                 ("name", "n" * 257, "/layers/2/name: must be at most 256 bytes"),
                                 ("unit", "deg\x7f", "/layers/2/unit: must be at most 32 bytes without control")):
        doc = json.loads(good_manifest)
        doc["layers"][2][key] = value
        with open(manifest_path, "w") as f:
            json.dump(doc, f)
        try:
            eb.open_bake(bake_dir)
            check(False, f"a manifest with layer {key} {value!r} was opened")
        except eb.BakeError as e:
            check(expected in str(e), f"unexpected message: {e}")
    with open(manifest_path, "w") as f:
        f.write(good_manifest)

    # Corrupt data: a flipped byte fails the checksum; garbage fails the decoder; both as BakeError.
    entry = bake.tiles[0]
    path = os.path.join(bake_dir, entry.file)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x40
    open(path, "wb").write(bytes(data))
    try:
        bake.read_tile(entry)
        check(False, "a corrupt tile was read")
    except eb.BakeError as e:
        check("checksum mismatch" in str(e) and entry.file in str(e), f"unexpected message: {e}")
    rng = np.random.default_rng(1)
    for n in range(300):
        junk = bytes(data[:8]) + rng.integers(0, 256, size=int(rng.integers(0, 4000)), dtype=np.uint8).tobytes()
        try:
            eb.decode_tile(junk, "junk.ecot", bake.species)
        except eb.BakeError:
            pass
    # A truncated tile, then a FIFO in its place: errors naming the file, never a hang (a
    # FIFO's open must not wait for a writer; ctest's timeout catches a regression).
    open(path, "wb").write(bytes(data[: len(data) // 2]))
    try:
        bake.read_tile(entry)
        check(False, "a truncated tile was read")
    except eb.BakeError as e:
        check(entry.file in str(e), f"unexpected message: {e}")
    os.remove(path)
    os.mkfifo(path)
    try:
        bake.read_tile(entry)
        check(False, "a FIFO was read as a tile")
    except eb.BakeError as e:
        check("not a regular file" in str(e), f"unexpected message: {e}")
    manifest = os.path.join(bake_dir, "manifest.json")
    for text in ("[" * 100000 + "]" * 100000, '{"format": "ecobake-manifest", "format_version": 2, "name": 1}'):
        with open(manifest, "w") as f:
            f.write(text)
        try:
            eb.open_bake(bake_dir)
            check(False, "a malformed manifest was opened")
        except eb.BakeError as e:
            check("manifest.json" in str(e), f"unexpected message: {e}")
    os.remove(manifest)
    os.mkfifo(manifest)
    try:
        eb.open_bake(bake_dir)
        check(False, "a FIFO was read as a manifest")
    except eb.BakeError as e:
        check("not a regular file" in str(e), f"unexpected message: {e}")
    os.remove(manifest)
    with open(manifest, "w") as f:
        f.write('{"format": "something-else"}')
    try:
        eb.open_bake(bake_dir)
        check(False, "a foreign manifest was opened")
    except eb.BakeError as e:
        check("not an ecobake manifest" in str(e), f"unexpected message: {e}")
    # A lone part of a sharded bake (ecobake bake --shard) is refused with what to do.
    part_dir = os.path.join(scratch, "part")
    subprocess.run([ecobake, "bake", config, "-o", part_dir, "--shard", "2/3", "-q"], check=True)
    try:
        eb.open_bake(part_dir)
        check(False, "a part of a sharded bake was opened as a bake")
    except eb.BakeError as e:
        check("is part 2 of 3 of a sharded bake" in str(e) and "ecobake merge" in str(e), f"unexpected message: {e}")

    # The mesh fields: arid_canyon draws two species with the sample GLBs (samples/world/meshes).
    arid_dir = os.path.join(scratch, "arid")
    subprocess.run([ecobake, "bake", os.path.join(source, "configs", "arid_canyon.json"), "-o", arid_dir,
                    "--tiles", "10,10,11,11", "-q"], check=True)
    arid = eb.open_bake(arid_dir)
    forms = {s.name: (s.mesh_form, s.mesh_file) for s in arid.species}
    check(forms["fremont_cottonwood"] == ("broadleaf", "meshes/0.glb"), f"cottonwood: {forms['fremont_cottonwood']}")
    check(forms["pinyon_pine"] == ("conifer", "meshes/2.glb"), f"pinyon: {forms['pinyon_pine']}")
    check(forms["utah_juniper"] == ("conifer", ""), f"juniper: {forms['utah_juniper']}")
    check(forms["big_sagebrush"] == ("shrub", ""), f"sagebrush: {forms['big_sagebrush']}")
    glb = arid.read_mesh(arid.species[0])
    with open(os.path.join(source, "samples", "world", "meshes", "cottonwood.glb"), "rb") as f:
        check(glb == f.read(), "the bake's cottonwood.glb differs from the sample's")
    with open(os.path.join(arid_dir, "meshes", "2.glb"), "ab") as f:
        f.write(b"!")
    try:
        arid.read_mesh(arid.species[2])
        check(False, "a tampered mesh file was read")
    except eb.BakeError as e:
        check("2.glb" in str(e), f"unexpected message: {e}")
    manifest_path = os.path.join(arid_dir, "manifest.json")
    with open(manifest_path) as f:
        doc = json.load(f)
    doc["species"][0]["mesh_file"] = "../../etc/passwd.glb"
    with open(manifest_path, "w") as f:
        json.dump(doc, f)
    try:
        eb.open_bake(arid_dir)
        check(False, "a mesh_file outside the bake was accepted")
    except eb.BakeError as e:
        check("/species/0/mesh_file" in str(e), f"unexpected message: {e}")

    # Files outside the bake (issue #30): the same hostile corpus for both readers. Each of a
    # tile, a layer and a mesh file is replaced by a link to an identical copy outside the bake
    # folder (size and checksum still match, so only the containment check can refuse it):
    # the Python reader raises BakeError and `ecobake inspect` (which verifies every tile,
    # layer and mesh) exits 2, both naming the file. A link to a copy inside the bake, and the
    # bake reached through a link to its folder, are read by both.
    links_dir = os.path.join(scratch, "links")
    subprocess.run([ecobake, "bake", os.path.join(source, "configs", "arid_canyon.json"), "-o", links_dir,
                    "--tiles", "10,10,11,11", "--layers", "masks", "-q"], check=True)
    linked = eb.open_bake(links_dir)
    corpus = [("tile", linked.tiles[0].file, lambda b: b.read_tile(b.tiles[0])),
              ("layer", linked.layers[0].file, lambda b: b.read_layer(b.layers[0])),
              ("mesh", linked.species[0].mesh_file, lambda b: b.read_mesh(b.species[0]))]
    outside_dir = os.path.join(scratch, "outside")
    os.makedirs(outside_dir)
    inside_dir = os.path.join(links_dir, "copies")
    for what, rel, read in corpus:
        member = os.path.join(links_dir, rel)
        for where, folder in (("outside", outside_dir), ("inside", inside_dir)):
            os.makedirs(folder, exist_ok=True)
            copy = os.path.join(folder, what + os.path.splitext(rel)[1])
            shutil.copyfile(member + ".orig" if os.path.exists(member + ".orig") else member, copy)
            if not os.path.exists(member + ".orig"):
                os.rename(member, member + ".orig")
            if os.path.lexists(member):
                os.remove(member)
            os.symlink(copy, member)
            cli = subprocess.run([ecobake, "inspect", links_dir], capture_output=True, text=True)
            try:
                read(eb.open_bake(links_dir))
                py_error = ""
            except eb.BakeError as e:
                py_error = str(e)
            if where == "outside":
                check("outside the bake folder" in py_error and rel in py_error,
                      f"{what} linked outside: Python read it ({py_error or 'no error'})")
                check(cli.returncode == 2 and "outside the bake folder" in cli.stderr and rel in cli.stderr,
                      f"{what} linked outside: inspect exit {cli.returncode}: {cli.stderr.strip()}")
            else:
                check(py_error == "", f"{what} linked inside the bake: Python refused it: {py_error}")
                check(cli.returncode == 0, f"{what} linked inside the bake: inspect exit {cli.returncode}: {cli.stderr.strip()}")
        os.remove(member)
        os.rename(member + ".orig", member)
    shutil.rmtree(inside_dir)
    # The manifest under the JSON policy of every input, in both readers: a NUL byte (which
    # ended the C++ parse early) and a key given twice (the last silently won in both).
    manifest_path = os.path.join(links_dir, "manifest.json")
    with open(manifest_path, "rb") as f:
        good = f.read()
    text = good.decode("utf-8")
    duplicated = text.replace('"seed":', '"seed": 99, "seed":', 1)
    for name, damaged, expected in (("NUL", good + b"\0{}", "is a NUL byte"),
                                    ("duplicate key", duplicated.encode("utf-8"), "duplicate key")):
        with open(manifest_path, "wb") as f:
            f.write(damaged)
        cli = subprocess.run([ecobake, "inspect", links_dir], capture_output=True, text=True)
        check(cli.returncode == 2 and expected in cli.stderr, f"manifest with a {name}: inspect exit {cli.returncode}: {cli.stderr.strip()}")
        try:
            eb.open_bake(links_dir)
            check(False, f"manifest with a {name}: Python opened it")
        except eb.BakeError as e:
            check(expected in str(e), f"manifest with a {name}: unexpected message: {e}")
    with open(manifest_path, "wb") as f:
        f.write(good)
    via = os.path.join(scratch, "via-link")
    os.symlink(links_dir, via)
    cli = subprocess.run([ecobake, "inspect", via], capture_output=True, text=True)
    check(cli.returncode == 0, f"a bake reached through a link to its folder: inspect exit {cli.returncode}: {cli.stderr.strip()}")
    try:
        b = eb.open_bake(via)
        b.read_tile(b.tiles[0])
        b.read_layer(b.layers[0])
    except eb.BakeError as e:
        check(False, f"a bake reached through a link to its folder: {e}")

    shutil.rmtree(scratch, ignore_errors=True)
    for f in failures[:20]:
        print("FAIL:", f)
    print(f"python reader: {bake.instance_count} instances in {len(bake.tiles)} tiles, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
