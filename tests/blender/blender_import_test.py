"""The Blender importer (python/ecobake_blender) against the CLI's CSV export of the same bakes.

    blender -b --factory-startup --python tests/blender/blender_import_test.py -- ECOBAKE REPO WORKDIR

Bakes a few tiles of the temperate config (all four kinds, tilted instances), of the arid one
(species with mesh files) and one 384 m tile of the temperate world (29,440 instances), imports
them, evaluates the depsgraph and checks every instance Blender makes:
- the instance count per tile and species equals the manifest's (and, with --region, the CLI's);
- each instance's world matrix equals the transform built here from the CSV export's
  x,y,z,qx,qy,qz,qw,scale mapped to Blender's axes ((x, y, z) -> (x, -z, y)), within the
  CSV's printed precision, and the transform built from the reader's yaw and up axis with the
  shaders/transform.h formulas (no quaternion) within float32 rounding;
- the point attributes (colour, id) equal the CSV's;
- an importer with the quaternion order, the handedness, the axis mapping, the yaw sign or
  the Euler order broken on purpose fails the same comparison.
Prints the import and evaluation seconds of the 29,440-instance tile. Exit 77 where Blender's
Python lacks numpy, flatbuffers or xxhash; 1 on a failure.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import time

SKIP = 77
ID_BITS = 26
# Bake frame (x east, y up, z south) -> Blender (x, -z, y), as Blender's glTF importer.
AXES = ((1, 0, 0), (0, 0, -1), (0, 1, 0))

failures = []
quiet_failures = [False]  # True while a broken importer is compared: failures expected, not printed


def check(cond, what):
    if not cond:
        failures.append(what)
        if not quiet_failures[0]:
            print("FAIL:", what)
    return cond


def main(argv):
    if len(argv) != 3:
        print("usage: blender -b --factory-startup --python blender_import_test.py -- ECOBAKE REPO WORKDIR")
        return 2
    ecobake_bin, repo, work = (os.path.abspath(a) for a in argv)
    try:
        import numpy as np  # noqa: F401
        import flatbuffers  # noqa: F401
        import xxhash  # noqa: F401
    except ImportError as e:
        print(f"skipped: Blender's Python {sys.version.split()[0]} lacks {e.name} "
              "(Debian: python3-numpy python3-flatbuffers python3-xxhash)")
        return SKIP
    import bpy
    print(f"Blender {bpy.app.version_string}, Python {sys.version.split()[0]}")
    sys.path.insert(0, os.path.join(repo, "python"))
    import ecobake as eb
    import ecobake_blender as addon

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def run(*args):
        subprocess.run([ecobake_bin, *args, "-q"], check=True, stdout=subprocess.DEVNULL)

    def bake(config, name, tiles):
        out = os.path.join(work, name)
        run("bake", config, "-o", out, "--tiles", *tiles.split(","), "-j", "2")
        return out

    def export_csv(bake_dir, name, *filters):
        path = os.path.join(work, name)
        run("export", bake_dir, "--format", "csv", "-o", path, *filters)
        with open(path, newline="") as f:
            return list(csv.DictReader(f))

    # The sample's 128 m tiles hold at most 4.4 k instances; a 384 m tiling of the same world
    # gives tiles of 30 k. The copy names the inputs by absolute path.
    temperate = os.path.join(repo, "configs", "temperate_mountain.json")
    with open(temperate) as f:
        doc = json.load(f)
    doc.pop("$schema", None)
    base = os.path.dirname(temperate)
    doc["terrain"]["heightmap"] = os.path.normpath(os.path.join(base, doc["terrain"]["heightmap"]))
    doc["river"]["distance"] = os.path.normpath(os.path.join(base, doc["river"]["distance"]))
    doc["tiling"]["tile_size"] = 384
    big_config = os.path.join(work, "temperate_384.json")
    with open(big_config, "w") as f:
        json.dump(doc, f)

    bakes = {
        # the tree line: spruce, mountain pine, meadow grass, moss; tilted up to 60 degrees
        "temperate": bake(temperate, "temperate", "19,9,22,11"),
        # cottonwood (a mesh file) with reeds and crust
        "arid": bake(os.path.join(repo, "configs", "arid_canyon.json"), "arid", "13,30,14,30"),
        "big": bake(big_config, "big", "7,3,7,3"),
    }
    csvs = {name: export_csv(path, name + ".csv") for name, path in bakes.items()}

    for obj in list(bpy.data.objects):  # the factory scene's cube, camera and light
        bpy.data.objects.remove(obj)

    # ---- imports
    imports = []  # (label, result, bake, csv rows, exact: counts must equal the manifest's)
    t0 = time.perf_counter()
    big = addon.import_bake(bakes["big"])
    big_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = sum(1 for inst in depsgraph.object_instances if inst.is_instance)
    big_eval_seconds = time.perf_counter() - t0
    imports.append(("384 m tile 7_3", big, eb.open_bake(bakes["big"]), csvs["big"], True))
    temperate_rows = export_csv(bakes["temperate"], "tiles.csv", "--tiles", "19", "9", "20", "10")
    imports.append(("temperate tiles 19..20 x 9..10", addon.import_bake(bakes["temperate"], tiles=(19, 9, 20, 10)),
                    eb.open_bake(bakes["temperate"]), temperate_rows, True))
    imports.append(("arid (mesh files)", addon.import_bake(bakes["arid"]), eb.open_bake(bakes["arid"]),
                    csvs["arid"], True))
    region = (2600.5, 1210.0, 2800.0, 1330.25)
    region_rows = export_csv(bakes["temperate"], "region.csv", "--region", *(str(v) for v in region),
                             "--species", "norway_spruce,feather_moss")
    imports.append(("temperate region, two species",
                    addon.import_bake(bakes["temperate"], region=region, species=["norway_spruce", "feather_moss"],
                                      collection_name="region"),
                    eb.open_bake(bakes["temperate"]), region_rows, False))

    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    by_parent = instances_by_parent(depsgraph)

    worst = {"csv_lin": 0.0, "csv_pos": 0.0, "ref_lin": 0.0, "ref_pos": 0.0}
    for label, result, bk, rows, exact in imports:
        compare(label, result, bk, rows, exact, by_parent, worst)
        check(big["collection"].children[0].name.endswith("prototypes"), "no prototypes collection")

    # ---- prototypes: a mesh file's vertices, else a proxy of the species' size
    arid = imports[2][2]
    for sid, obj in imports[2][1]["prototypes"].items():
        sp = arid.species[sid]
        co = mesh_coordinates(obj.data)
        if sp.mesh_file:
            v, _, _ = addon.glb_mesh(arid.read_mesh(sp))
            check(len(co) == len(v), f"{sp.name}: prototype has {len(co)} vertices, the GLB {len(v)}")
            check(len(co) == len(v) and np.max(np.abs(co - addon.blender_vectors(v))) < 1e-5,
                  f"{sp.name}: prototype vertices differ from the GLB's")
        else:
            check(abs(co[:, 2].max() - sp.mesh_height) < 1e-4 * sp.mesh_height and abs(co[:, 2].min()) < 1e-6,
                  f"{sp.name}: proxy height {co[:, 2].min()}..{co[:, 2].max()}, expected 0..{sp.mesh_height}")
            radius = np.hypot(co[:, 0], co[:, 1]).max()
            check(abs(radius - sp.crown_radius) < 1e-4 * sp.crown_radius,
                  f"{sp.name}: proxy radius {radius}, expected {sp.crown_radius}")
    check(any(arid.species[s].mesh_file for s in imports[2][1]["prototypes"]), "no species with a mesh file imported")

    # ---- broken on purpose: each must fail the same comparison
    np_ = np
    breaks = {
        "quaternion read as (w, x, y, z)": ("blender_quaternions",
                                            lambda q: np_.roll(good["blender_quaternions"](q), 1, axis=1)),
        "quaternion handedness (x, z, y), no sign flip": ("blender_quaternions",
                                                          lambda q: np_.stack([q[:, 0], q[:, 2], q[:, 1], q[:, 3]], 1)),
        "inverse rotation (conjugate)": ("blender_quaternions",
                                         lambda q: good["blender_quaternions"](q) * np_.array([-1, -1, -1, 1.0])),
        "yaw turned the other way": ("instance_quaternions",
                                     lambda yaw, up: good["instance_quaternions"](-np_.asarray(yaw), up)),
        "Euler order ZYX stored as XYZ": ("euler_xyz", lambda r: good["euler_xyz"](r)[:, ::-1]),
        "axes (x, z, y): a mirror": ("blender_vectors",
                                     lambda v: np_.stack([np_.asarray(v)[:, 0], np_.asarray(v)[:, 2],
                                                          np_.asarray(v)[:, 1]], 1)),
    }
    good = {name: getattr(addon, name) for name in ("blender_quaternions", "euler_xyz", "blender_vectors",
                                                      "instance_quaternions")}
    temperate = imports[1][2]
    for what, (name, broken) in breaks.items():
        setattr(addon, name, broken)
        try:
            result = addon.import_bake(bakes["temperate"], tiles=[(19, 9)], collection_name="broken")
        finally:
            setattr(addon, name, good[name])
        bpy.context.view_layer.update()
        parents = instances_by_parent(bpy.context.evaluated_depsgraph_get())
        before = len(failures)
        quiet_failures[0] = True
        compare("broken: " + what, result, temperate, csvs["temperate"], True, parents, {}, quiet=True)
        quiet_failures[0] = False
        check(len(failures) > before, f"an importer with {what} passed the comparison")
        del failures[before:]
        remove_import(result)

    total = sum(r[1]["instances"] for r in imports)
    print(f"{total} instances in {sum(len(r[1]['objects']) for r in imports)} objects, "
          f"counts equal the bake's and the CSV's")
    print(f"max error vs CSV (its 3/6/4 decimals): linear {worst['csv_lin']:.3g}, position {worst['csv_pos']:.3g} m; "
          f"vs reader + transform.h: linear {worst['ref_lin']:.3g}, position {worst['ref_pos']:.3g} m")
    print(f"biggest tile: {big['instances']} instances in {len(big['objects'])} objects; import {big_seconds:.3f} s, "
          f"depsgraph evaluation {big_eval_seconds:.3f} s, {evaluated} instances evaluated")
    print(f"{len(breaks)} broken importers fail the comparison")
    print(f"FAILED: {len(failures)} problems" if failures else "blender importer: all checks passed")
    return 1 if failures else 0


def instances_by_parent(depsgraph):
    """Instances made by each tile object: parent name -> [(persistent id, 4x4 world matrix)]."""
    import numpy as np
    out = {}
    for inst in depsgraph.object_instances:
        if not inst.is_instance or inst.parent is None:
            continue
        m = inst.matrix_world
        out.setdefault(inst.parent.name, []).append(
            (inst.persistent_id[0], inst.instance_object.name if inst.instance_object else "",
             np.array([m[0][:], m[1][:], m[2][:]], dtype=np.float64)))
    return out


def mesh_coordinates(mesh):
    import numpy as np
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def point_attribute(mesh, name, width, dtype):
    import numpy as np
    attr = mesh.attributes[name]
    key = {"FLOAT_VECTOR": "vector", "FLOAT_COLOR": "color"}.get(attr.data_type, "value")
    out = np.empty(len(mesh.vertices) * width, dtype=dtype)
    attr.data.foreach_get(key, out)
    return out.reshape(len(mesh.vertices), width) if width > 1 else out


def csv_transforms(rows):
    """(linear (n, 3, 3), translation (n, 3)) in Blender's frame from CSV rows: written here,
    apart from the add-on: R(q) from the quaternion's textbook matrix, then A R A^T s."""
    import numpy as np
    p = np.array([[float(r["x"]), float(r["y"]), float(r["z"])] for r in rows], dtype=np.float64)
    q = np.array([[float(r["qx"]), float(r["qy"]), float(r["qz"]), float(r["qw"])] for r in rows], dtype=np.float64)
    s = np.array([float(r["scale"]) for r in rows], dtype=np.float64)
    x, y, z, w = q.T
    rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                    [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                    [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]).transpose(2, 0, 1)
    a = np.array(AXES, dtype=np.float64)
    return a @ rot @ a.T * s[:, None, None], p @ a.T


def reference_transforms(tile, index):
    """The same from the reader's decode (float32 values, exact) with transform.h's formulas:
    placeInstancePoint(p) = position + tilt(up, rotateYaw(yaw, p * scale)), as matrices."""
    import numpy as np
    yaw = tile.yaw()[index].astype(np.float64)
    up = tile.up()[index].astype(np.float64)
    c, s = np.cos(yaw), np.sin(yaw)
    n = len(index)
    spin = np.zeros((n, 3, 3))
    spin[:, 0, 0], spin[:, 0, 2], spin[:, 1, 1], spin[:, 2, 0], spin[:, 2, 2] = c, s, 1, -s, c
    # tilt(u, v) = u.y v + k x v + k (k.v) / (1 + u.y), k = (u.z, 0, -u.x)
    k = np.stack([up[:, 2], np.zeros(n), -up[:, 0]], axis=1)
    cross = np.zeros((n, 3, 3))
    cross[:, 0, 1], cross[:, 0, 2] = -k[:, 2], k[:, 1]
    cross[:, 1, 0], cross[:, 1, 2] = k[:, 2], -k[:, 0]
    cross[:, 2, 0], cross[:, 2, 1] = -k[:, 1], k[:, 0]
    tilt = up[:, 1, None, None] * np.eye(3) + cross + k[:, :, None] * k[:, None, :] / (1 + up[:, 1])[:, None, None]
    down = up[:, 1] <= -0.9999
    tilt[down] = np.diag([1.0, -1.0, -1.0])
    a = np.array(AXES, dtype=np.float64)
    scale = tile.scale()[index].astype(np.float64)
    return a @ (tilt @ spin) @ a.T * scale[:, None, None], tile.positions()[index].astype(np.float64) @ a.T


def compare(label, result, bake, rows, exact, by_parent, worst, quiet=False):
    """Every object of an import against the CSV rows of its tile and species, instance by instance."""
    import numpy as np
    say = (lambda *a: None) if quiet else print
    tiles_x = bake.manifest["tiling"]["tiles_x"]
    entries = {(e.x, e.z): e for e in bake.tiles}
    # CSV rows by (tile number, species id), in file order (the tile's order)
    groups = {}
    for r in rows:
        groups.setdefault((int(r["id"]) >> ID_BITS, int(r["species_id"])), []).append(r)
    seen = set()
    tiles_read = {}
    for obj in result["objects"]:
        x, z = obj["ecobake_tile"]
        sid = obj["ecobake_species_id"]
        key = (z * tiles_x + x, sid)
        seen.add(key)
        expected = groups.get(key, [])
        n = len(obj.data.vertices)
        where = f"{label}: {obj.name}"
        if exact:
            check(n == entries[(x, z)].species_counts[sid], f"{where}: {n} points, manifest says "
                                                             f"{entries[(x, z)].species_counts[sid]}")
        if not check(n == len(expected), f"{where}: {n} points, CSV has {len(expected)}"):
            continue
        made = by_parent.get(obj.name, [])
        if not check(len(made) == n, f"{where}: the evaluated depsgraph has {len(made)} instances, expected {n}"):
            continue
        check(all(m[1] == result["prototypes"][sid].name for m in made), f"{where}: instances of another object")
        order = np.argsort([m[0] for m in made], kind="stable")
        got = np.array([made[i][2] for i in order])
        ids = np.array([int(r["id"]) for r in expected], dtype=np.int64)
        id_tile = point_attribute(obj.data, "id_tile", 1, np.int32).astype(np.int64)
        id_index = point_attribute(obj.data, "id_index", 1, np.int32).astype(np.int64)
        check(np.array_equal((id_tile << ID_BITS) + id_index, ids), f"{where}: ids differ from the CSV's")
        color = point_attribute(obj.data, "color", 4, np.float32)
        rgb = np.array([[float(r["r"]), float(r["g"]), float(r["b"])] for r in expected])
        check(np.max(np.abs(color[:, :3] - rgb)) <= 5e-5 + 1e-6, f"{where}: colours differ from the CSV's")
        # against the CSV: its decimals (position 3, quaternion 6, scale 4) bound the error
        lin, pos = csv_transforms(expected)
        s = np.array([float(r["scale"]) for r in expected])
        lin_err = np.max(np.abs(got[:, :, :3] - lin), axis=(1, 2))
        pos_err = np.max(np.abs(got[:, :, 3] - pos), axis=1)
        lin_ok = np.all(lin_err <= 1e-4 * np.maximum(s, 0.5))
        pos_ok = np.all(pos_err <= 5e-4 + 1e-6 * np.max(np.abs(pos), axis=1))
        check(lin_ok, f"{where}: rotation x scale differs from the CSV's by {lin_err.max():.3g} (instance "
                      f"{int(np.argmax(lin_err))})")
        check(pos_ok, f"{where}: position differs from the CSV's by {pos_err.max():.3g} m")
        # against transform.h's formulas on the reader's exact values: float32 rounding only
        if (x, z) not in tiles_read:
            tiles_read[(x, z)] = bake.read_tile(entries[(x, z)])
        ref_lin, ref_pos = reference_transforms(tiles_read[(x, z)], id_index)
        ref_lin_err = np.max(np.abs(got[:, :, :3] - ref_lin), axis=(1, 2)) / np.maximum(s, 1e-3)
        ref_pos_err = np.max(np.abs(got[:, :, 3] - ref_pos), axis=1)
        check(np.all(ref_lin_err <= 1e-5), f"{where}: rotation x scale differs from transform.h's by "
                                           f"{ref_lin_err.max():.3g} relative")
        check(np.all(ref_pos_err <= 1e-6 * np.max(np.abs(ref_pos), axis=1) + 1e-6),
              f"{where}: position differs from the decoded one by {ref_pos_err.max():.3g} m")
        if worst:
            worst["csv_lin"] = max(worst["csv_lin"], float(lin_err.max()))
            worst["csv_pos"] = max(worst["csv_pos"], float(pos_err.max()))
            worst["ref_lin"] = max(worst["ref_lin"], float(ref_lin_err.max()))
            worst["ref_pos"] = max(worst["ref_pos"], float(ref_pos_err.max()))
    wanted = {k for k, v in groups.items() if v}
    if not quiet:
        check(seen == wanted, f"{label}: imported (tile, species) {sorted(seen - wanted)} not in the CSV, "
                              f"missing {sorted(wanted - seen)}")
    say(f"{label}: {result['instances']} instances in {len(result['objects'])} objects checked "
        f"({result['seconds']:.3f} s)")
    if not exact:
        check(result["instances"] == sum(len(v) for v in groups.values()),
              f"{label}: {result['instances']} instances, the CLI's filter keeps {len(rows)}")


def remove_import(result):
    import bpy
    for obj in result["objects"]:
        mesh = obj.data
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
    for obj in result["prototypes"].values():
        mesh = obj.data
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
    for child in list(result["collection"].children):
        bpy.data.collections.remove(child)
    bpy.data.collections.remove(result["collection"])


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    try:
        code = main(args)
    except SystemExit:
        raise
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.exit(code)
