"""Blender importer for ecobake bakes: each tile and species becomes one point cloud (a mesh
with a vertex per instance) drawn by a Geometry Nodes "Instance on Points" modifier, so a
tile of 30,000 instances is one object, not 30,000.

    blender -b --python-expr "import sys; sys.path.insert(0, 'python'); \\
        import ecobake_blender as eb; eb.import_bake('out/sample', tiles=(10, 10, 13, 12))"

or, in the UI, File > Import > ecobake bake (manifest.json) once the add-on is enabled
(docs/blender.md says how to install it). Reads the bake with the project's Python reader
(`python/ecobake`: numpy, flatbuffers, xxhash; every tile's size and XXH3-64 checked against
the manifest).

Frames. The bake is y up, x east, z south (right-handed, metres); Blender is z up, right-handed.
The mapping is the one Blender's glTF importer uses: (x, y, z) bake -> (x, -z, y) Blender, a
+90 degree turn about x (no mirror). A rotation quaternion (x, y, z, w) maps to
(x, -z, y, w) the same way, a mesh vertex like a position.

Per instance, as the viewer, the glTF export's ROTATION and the CSV export's qx..qw
(shaders/transform.h instanceOrientation): the rotation q = arc * spin, spin a turn of `yaw`
about +y (+x toward -z) and arc the shortest arc from +y to the instance's up axis (a half
turn about x when the up axis points straight down), then a uniform scale of the species'
mesh at its size in metres. Blender 3.4 has no quaternion attribute, so the rotation is stored
as Euler XYZ angles (Blender's convention: R = Rz * Ry * Rx), computed in float64 from the
quaternion's matrix; Euler angles rebuild the same matrix to float32 rounding at every angle,
gimbal lock included.

Point attributes of each tile object's mesh (vertex = instance, in the tile's file order):
  rotation  FLOAT_VECTOR  Euler XYZ radians, Blender frame
  scale     FLOAT         uniform scale of the prototype
  color     FLOAT_COLOR   the instance's linear tint: RGBA8 / 255 (the glTF export's _COLOR_0);
                          the foliage material reads it through an Attribute node (Instancer)
  id_tile   INT           tile number z * tiles_x + x
  id_index  INT           index in the tile file; the instance id (docs/export.md) is
                          id_tile * 2^26 + id_index, an int64 that an INT attribute cannot hold
Vertex positions are tile-local (position - tile origin, exact in float32) and the object sits
at the tile origin, so positions keep sub-millimetre steps far from the world origin.
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
import time

bl_info = {
    "name": "ecobake bake importer",
    "author": "ecobake",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > ecobake bake (manifest.json)",
    "description": "Imports ecobake vegetation tiles as Geometry Nodes instances (one point cloud per tile and species)",
    "category": "Import-Export",
}

ID_INDEX_BITS = 26  # docs/export.md "Instance ids"
BARK_COLOR = (0.30, 0.22, 0.15)  # shaders/shared.h BARK_COLOR, linear


class EcobakeImportError(RuntimeError):
    """A bake that cannot be imported, or a Python without the reader's modules."""


# ---------------------------------------------------------------------------------------------
# The reader: python/ecobake beside this package in the repository, or beside it in Blender's
# add-ons folder (the zip of docs/blender.md), or where ECOBAKE_PYTHON_PATH points.

def _reader():
    """The `ecobake` reader module, importing numpy, flatbuffers and xxhash with it; raises
    EcobakeImportError saying what is missing."""
    here = os.path.dirname(os.path.realpath(__file__))  # realpath: a symlinked add-on finds the repo
    candidates = [os.environ.get("ECOBAKE_PYTHON_PATH", ""), os.path.dirname(here)]
    try:
        import bpy  # noqa: F401
        prefs = bpy.context.preferences.addons.get(__name__)
        if prefs is not None and getattr(prefs.preferences, "reader_path", ""):
            candidates.insert(0, bpy.path.abspath(prefs.preferences.reader_path))
    except Exception:  # no bpy (plain Python) or no preferences yet
        pass
    for path in candidates:
        if path and os.path.isfile(os.path.join(path, "ecobake", "__init__.py")) and path not in sys.path:
            sys.path.insert(0, path)
            break
    try:
        import numpy  # noqa: F401
        import ecobake
    except ImportError as e:
        raise EcobakeImportError(
            f"the ecobake reader cannot be imported in Blender's Python {sys.version.split()[0]} ({e}). It needs "
            "numpy, flatbuffers and xxhash (Debian: python3-numpy python3-flatbuffers python3-xxhash) and the "
            "repository's python/ folder (python/ecobake, python/eco) beside this add-on, in ECOBAKE_PYTHON_PATH "
            "or in the add-on's preferences") from None
    return ecobake


# ---------------------------------------------------------------------------------------------
# Transforms (numpy, one call per tile: no Python loop per instance)

def instance_quaternions(yaw, up):
    """(n, 4) float64 unit quaternions (x, y, z, w) in the bake's frame: shaders/transform.h
    instanceOrientation(up, yaw) = arc * spin."""
    import numpy as np
    yaw = np.asarray(yaw, dtype=np.float64)
    up = np.asarray(up, dtype=np.float64)
    half = 0.5 * yaw
    sy, cy = np.sin(half), np.cos(half)  # spin = (0, sy, 0, cy)
    # arc = normalise(up.z, 0, -up.x, 1 + up.y); straight down: (1, 0, 0, 0)
    ax, az, aw = up[:, 2], -up[:, 0], 1.0 + up[:, 1]
    n = np.sqrt(ax * ax + az * az + aw * aw)
    down = up[:, 1] <= -0.9999
    n = np.where(down, 1.0, n)
    ax, az, aw = np.where(down, 1.0, ax / n), np.where(down, 0.0, az / n), np.where(down, 0.0, aw / n)
    # Hamilton product arc * spin with arc = (ax, 0, az, aw), spin = (0, sy, 0, cy)
    qx = aw * 0 + ax * cy + 0 * 0 - az * sy
    qy = aw * sy - ax * 0 + 0 * cy + az * 0
    qz = aw * 0 + ax * sy - 0 * 0 + az * cy
    qw = aw * cy - ax * 0 - 0 * sy - az * 0
    return np.stack([qx, qy, qz, qw], axis=1)


def blender_vectors(v):
    """Positions or directions (n, 3), bake frame (x east, y up, z south) -> Blender (x, -z, y)."""
    import numpy as np
    v = np.asarray(v)
    return np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)


def blender_quaternions(q):
    """Quaternions (n, 4) as (x, y, z, w), bake frame -> Blender frame, still (x, y, z, w)."""
    import numpy as np
    q = np.asarray(q)
    return np.stack([q[:, 0], -q[:, 2], q[:, 1], q[:, 3]], axis=1)


def quaternion_matrices(q):
    """(n, 3, 3) rotation matrices (row-major, column vectors) of unit quaternions (x, y, z, w)."""
    import numpy as np
    x, y, z, w = (np.asarray(q, dtype=np.float64)[:, i] for i in range(4))
    r = np.empty((len(x), 3, 3))
    r[:, 0, 0] = 1 - 2 * (y * y + z * z)
    r[:, 0, 1] = 2 * (x * y - z * w)
    r[:, 0, 2] = 2 * (x * z + y * w)
    r[:, 1, 0] = 2 * (x * y + z * w)
    r[:, 1, 1] = 1 - 2 * (x * x + z * z)
    r[:, 1, 2] = 2 * (y * z - x * w)
    r[:, 2, 0] = 2 * (x * z - y * w)
    r[:, 2, 1] = 2 * (y * z + x * w)
    r[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def euler_xyz(r):
    """Blender Euler XYZ angles (n, 3) of rotation matrices (n, 3, 3): r = Rz(c) Ry(b) Rx(a).
    At gimbal lock (cos b = 0) c is 0 and a takes the whole turn about the remaining axis."""
    import numpy as np
    cb = np.hypot(r[:, 0, 0], r[:, 1, 0])
    locked = cb < 1e-12
    a = np.where(locked, np.arctan2(-r[:, 1, 2], r[:, 1, 1]), np.arctan2(r[:, 2, 1], r[:, 2, 2]))
    b = np.arctan2(-r[:, 2, 0], cb)
    c = np.where(locked, 0.0, np.arctan2(r[:, 1, 0], r[:, 0, 0]))
    return np.stack([a, b, c], axis=1)


def instance_eulers(yaw, up):
    """Blender Euler XYZ rotation (n, 3) float64 of each instance, from its yaw and up axis."""
    return euler_xyz(quaternion_matrices(blender_quaternions(instance_quaternions(yaw, up))))


# ---------------------------------------------------------------------------------------------
# Prototype meshes, in the bake's frame (y up, base at the origin, metres at scale 1)

def _lathe(profile, segments, y_offset=0.0):
    """A closed surface of revolution about y from (radius, y) points, bottom to top; a radius
    of 0 is a pole. Returns (vertices (n, 3), triangles (m, 3)), counter-clockwise outside."""
    import numpy as np
    verts, rings = [], []
    angles = np.arange(segments) * (2 * math.pi / segments)
    for r, y in profile:
        if r == 0:
            rings.append([len(verts)])
            verts.append((0.0, y + y_offset, 0.0))
        else:
            rings.append(list(range(len(verts), len(verts) + segments)))
            verts.extend((r * math.cos(t), y + y_offset, -r * math.sin(t)) for t in angles)
    tris = []
    for lo, hi in zip(rings, rings[1:]):
        for k in range(segments):
            k1 = (k + 1) % segments
            if len(lo) == 1 and len(hi) == 1:
                continue
            if len(lo) == 1:
                tris.append((lo[0], hi[k], hi[k1]))
            elif len(hi) == 1:
                tris.append((lo[k], hi[0], lo[k1]))
            else:
                tris.append((lo[k], hi[k], hi[k1]))
                tris.append((lo[k], hi[k1], lo[k1]))
    return np.array(verts, dtype=np.float64), np.array(tris, dtype=np.int64)


def _ellipsoid(radius, half_height, centre_y, segments=12, rings=7):
    profile = [(radius * math.sin(math.pi * i / rings), centre_y - half_height * math.cos(math.pi * i / rings))
               for i in range(rings + 1)]
    profile[0], profile[-1] = (0.0, profile[0][1]), (0.0, profile[-1][1])
    return _lathe(profile, segments)


def proxy_mesh(form, crown_radius, height):
    """A simple stand-in for a species without a mesh file, at its size (crown radius, height):
    returns (vertices (n, 3) bake frame, triangles (m, 3), part per triangle: 0 bark, 1 foliage).
    Rotationally symmetric, unlike the viewer's procedural forms (docs/meshes.md)."""
    import numpy as np
    r, h = max(crown_radius, 1e-4), max(height, 1e-4)
    parts = []
    if form == "conifer":
        trunk = min(0.05 * h, 0.25 * r)
        parts.append((_lathe([(0, 0), (trunk, 0), (trunk, 0.25 * h), (0, 0.25 * h)], 8), 0))
        parts.append((_lathe([(0, 0.15 * h), (r, 0.15 * h), (0, h)], 12), 1))
    elif form == "broadleaf":
        crown = min(max(2.4 * r, 0.25 * h), 0.77 * h)  # the procedural broadleaf's crown length
        trunk = min(0.04 * h, 0.2 * r)
        parts.append((_lathe([(0, 0), (trunk, 0), (trunk, h - 0.6 * crown), (0, h - 0.6 * crown)], 8), 0))
        parts.append((_ellipsoid(r, 0.5 * crown, h - 0.5 * crown), 1))
    elif form == "shrub":
        parts.append((_ellipsoid(r, 0.5 * h, 0.5 * h), 1))
    elif form == "grass":  # a tuft widening upward
        parts.append((_lathe([(0, 0), (0.25 * r, 0), (r, h), (0, 0.9 * h)], 9), 1))
    else:  # ground_cover: a low dome
        parts.append((_lathe([(0, 0), (r, 0), (0.6 * r, 0.7 * h), (0, h)], 12), 1))
    verts, tris, kinds, base = [], [], [], 0
    for (v, t), kind in parts:
        verts.append(v)
        tris.append(t + base)
        kinds.append(np.full(len(t), kind, dtype=np.int64))
        base += len(v)
    return np.concatenate(verts), np.concatenate(tris), np.concatenate(kinds)


_GLB_COMPONENTS = {5121: "<u1", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_GLB_WIDTH = {"SCALAR": 1, "VEC3": 3}


def glb_mesh(data, name="mesh"):
    """(vertices (n, 3) bake frame, triangles (m, 3), part per triangle) of a bake's mesh file
    (docs/meshes.md: a GLB with positions in metres, transforms applied, triangle primitives
    whose material's name says bark or foliage)."""
    import numpy as np

    def fail(problem):
        raise EcobakeImportError(f"{name}: {problem}")

    if len(data) < 20 or data[:4] != b"glTF":
        fail("not a GLB file")
    _, _, total = struct.unpack_from("<4sII", data, 0)
    offset, doc, binary = 12, None, b""
    while offset + 8 <= min(total, len(data)):
        length, kind = struct.unpack_from("<II", data, offset)
        chunk = data[offset + 8:offset + 8 + length]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk.decode("utf-8"))
        elif kind == 0x004E4942:
            binary = chunk
        offset += 8 + length
    if doc is None:
        fail("no JSON chunk")

    def accessor(index, expect):
        acc = doc["accessors"][index]
        view = doc["bufferViews"][acc["bufferView"]]
        dtype = np.dtype(_GLB_COMPONENTS.get(acc["componentType"], "V1"))
        width = _GLB_WIDTH.get(acc["type"], 0)
        if dtype.kind == "V" or width != expect:
            fail(f"accessor {index}: unsupported type")
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        stride = view.get("byteStride", 0) or dtype.itemsize * width
        count = acc["count"]
        end = start + (count - 1) * stride + dtype.itemsize * width if count else start
        if end > view.get("byteOffset", 0) + view["byteLength"] or end > len(binary):
            fail(f"accessor {index} runs past its buffer")
        raw = np.frombuffer(binary, dtype=np.uint8, count=end - start, offset=start) if count else \
            np.zeros(0, np.uint8)
        if stride == dtype.itemsize * width:
            return raw.view(dtype).reshape(count, width).astype(np.float64 if dtype.kind == "f" else np.int64)
        rows = np.lib.stride_tricks.as_strided(raw, shape=(count, dtype.itemsize * width), strides=(stride, 1))
        return np.ascontiguousarray(rows).view(dtype).reshape(count, width).astype(
            np.float64 if dtype.kind == "f" else np.int64)

    materials = doc.get("materials", [])
    verts, tris, kinds, base = [], [], [], 0
    for mesh in doc.get("meshes", []):
        for prim in mesh.get("primitives", []):
            if prim.get("mode", 4) != 4:
                continue
            pos = accessor(prim["attributes"]["POSITION"], 3)
            idx = accessor(prim["indices"], 1).ravel() if "indices" in prim else np.arange(len(pos))
            if len(idx) % 3 or (len(idx) and (idx.min() < 0 or idx.max() >= len(pos))):
                fail("bad indices")
            mat = materials[prim["material"]] if "material" in prim and prim["material"] < len(materials) else {}
            mat_name = mat.get("name", "").lower()
            bark = "bark" in mat_name or "trunk" in mat_name or mat.get("extras", {}).get("ecobake_tint") is False
            verts.append(pos)
            tris.append(idx.reshape(-1, 3) + base)
            kinds.append(np.full(len(idx) // 3, 0 if bark else 1, dtype=np.int64))
            base += len(pos)
    if not verts:
        fail("no triangles")
    return np.concatenate(verts), np.concatenate(tris), np.concatenate(kinds)


# ---------------------------------------------------------------------------------------------
# Blender data

def _material(name, color, instance_tint):
    """A Principled material: a constant colour, or (foliage) the instances' `color` attribute."""
    import bpy
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = (*color, 1.0)  # the solid viewport's colour
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next((n for n in nodes if n.bl_idname == "ShaderNodeBsdfPrincipled"), None)
    if bsdf is None:
        return mat
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    if instance_tint:
        attr = nodes.new("ShaderNodeAttribute")
        attr.attribute_type = "INSTANCER"  # the instance's attribute, from the point it was made from
        attr.attribute_name = "color"
        attr.location = (bsdf.location.x - 250, bsdf.location.y)
        links.new(attr.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def _mesh_from_triangles(name, verts_bake, tris, kinds, materials):
    import bpy
    import numpy as np
    mesh = bpy.data.meshes.new(name)
    v = blender_vectors(verts_bake).astype(np.float64)
    mesh.from_pydata(v.tolist(), [], tris.tolist())
    for mat in materials:
        mesh.materials.append(mat)
    mesh.polygons.foreach_set("material_index", kinds.astype(np.int32))
    mesh.polygons.foreach_set("use_smooth", np.ones(len(tris), dtype=bool))
    mesh.update()
    return mesh


def _new_socket(group, name, in_out, socket_type):
    """A node group interface socket: Blender 4's interface API, else 3.x's inputs/outputs."""
    if hasattr(group, "interface"):
        return group.interface.new_socket(name=name, in_out=in_out, socket_type=socket_type)
    return (group.inputs if in_out == "INPUT" else group.outputs).new(socket_type, name)


def _output_of_type(node, socket_type):
    """The output of a Named Attribute node for its data type: Blender 3.x has one output per
    type (the others unavailable), 4.x one output that changes type."""
    for s in node.outputs:
        if s.type == socket_type and getattr(s, "enabled", True):
            return s
    for s in node.outputs:
        if s.type == socket_type:
            return s
    return node.outputs[0]


def instancer_node_group(name, prototype):
    """Geometry Nodes: the points, instanced with `prototype` (as an instance, not realized),
    rotated by the `rotation` attribute (Euler XYZ) and scaled by `scale`."""
    import bpy
    group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    _new_socket(group, "Geometry", "INPUT", "NodeSocketGeometry")
    _new_socket(group, "Geometry", "OUTPUT", "NodeSocketGeometry")
    if hasattr(group, "is_modifier"):
        group.is_modifier = True
    nodes, links = group.nodes, group.links
    group_in = nodes.new("NodeGroupInput")
    group_out = nodes.new("NodeGroupOutput")
    info = nodes.new("GeometryNodeObjectInfo")
    info.transform_space = "ORIGINAL"
    info.inputs["Object"].default_value = prototype
    info.inputs["As Instance"].default_value = True
    rotation = nodes.new("GeometryNodeInputNamedAttribute")
    rotation.data_type = "FLOAT_VECTOR"
    rotation.inputs["Name"].default_value = "rotation"
    scale = nodes.new("GeometryNodeInputNamedAttribute")
    scale.data_type = "FLOAT"
    scale.inputs["Name"].default_value = "scale"
    instance = nodes.new("GeometryNodeInstanceOnPoints")
    group_in.location, info.location, rotation.location, scale.location = (-500, 0), (-300, -150), (-300, -350), (-300, -500)
    instance.location, group_out.location = (0, 0), (250, 0)
    links.new(group_in.outputs[0], instance.inputs["Points"])
    links.new(info.outputs["Geometry"], instance.inputs["Instance"])
    euler = _output_of_type(rotation, "VECTOR")
    if instance.inputs["Rotation"].type == "ROTATION":  # Blender 4: a rotation socket; say Euler XYZ outright
        try:
            to_rotation = nodes.new("FunctionNodeEulerToRotation")
            to_rotation.location = (-150, -350)
            links.new(euler, to_rotation.inputs[0])
            euler = to_rotation.outputs[0]
        except RuntimeError:  # no such node: the vector -> rotation link converts as Euler XYZ too
            pass
    links.new(euler, instance.inputs["Rotation"])
    links.new(_output_of_type(scale, "VALUE"), instance.inputs["Scale"])
    links.new(instance.outputs["Instances"], group_out.inputs[0])
    return group


def _set_point_attribute(mesh, name, kind, key, values):
    attr = mesh.attributes.new(name, kind, "POINT")
    attr.data.foreach_set(key, values.ravel())


# ---------------------------------------------------------------------------------------------
# Filters

def _tile_filter(tiles):
    """None, a rectangle (x0, z0, x1, z1) inclusive like `ecobake --tiles`, or (x, z) pairs."""
    if tiles is None:
        return None
    if isinstance(tiles, str):
        tiles = tuple(int(v) for v in tiles.replace(" ", "").split(","))
    tiles = tuple(tiles)
    if len(tiles) == 4 and all(isinstance(v, int) for v in tiles):
        x0, z0, x1, z1 = tiles
        return lambda x, z: x0 <= x <= x1 and z0 <= z <= z1
    pairs = {(int(x), int(z)) for x, z in tiles}
    return lambda x, z: (x, z) in pairs


def _species_filter(bake, species):
    if species is None:
        return {s.id for s in bake.species}
    if isinstance(species, str):
        species = [s for s in species.replace(" ", "").split(",") if s]
    chosen = set()
    for s in species:
        match = [sp.id for sp in bake.species if sp.name == s or (isinstance(s, int) and sp.id == s)]
        if not match:
            raise EcobakeImportError(f"species {s!r} is not in the bake (it has {', '.join(x.name for x in bake.species)})")
        chosen.update(match)
    return chosen


def _region(region):
    if region is None:
        return None
    if isinstance(region, str):
        region = tuple(float(v) for v in region.replace(" ", "").split(","))
    if len(region) != 4 or not (region[0] <= region[2] and region[1] <= region[3]):
        raise EcobakeImportError(f"region {region!r}: expected MINX, MINZ, MAXX, MAXZ (metres, min <= max)")
    return tuple(float(v) for v in region)


# ---------------------------------------------------------------------------------------------
# The importer

def import_bake(folder, tiles=None, species=None, region=None, collection_name=None, verify=True, scene=None):
    """Imports the bake in `folder` (holding manifest.json) into a new collection of `scene`
    (default: the current scene). Filters as `ecobake export`: `tiles` a rectangle
    (x0, z0, x1, z1), "x0,z0,x1,z1" or a list of (x, z) pairs; `species` names (or ids);
    `region` (min_x, min_z, max_x, max_z) in the bake's metres, edges included. Returns a dict:
    collection, objects (one per tile and species), instances, seconds."""
    import bpy
    reader = _reader()
    start = time.perf_counter()
    if os.path.basename(folder) == "manifest.json":
        folder = os.path.dirname(folder)
    try:
        bake = reader.open_bake(folder)
    except reader.BakeError as e:
        raise EcobakeImportError(str(e)) from None
    scene = scene or bpy.context.scene
    keep_tile = _tile_filter(tiles)
    keep_species = _species_filter(bake, species)
    region = _region(region)
    tiles_x = int(bake.manifest["tiling"].get("tiles_x", 0))

    root = bpy.data.collections.new(collection_name or f"ecobake {bake.name}")
    scene.collection.children.link(root)
    root["ecobake_folder"] = os.path.abspath(folder)
    protos = bpy.data.collections.new(f"{root.name} prototypes")
    root.children.link(protos)
    # Excluded from the view layer: the prototypes draw only through the instances.
    for layer in scene.view_layers:
        found = _find_layer_collection(layer.layer_collection, protos)
        if found is not None:
            found.exclude = True
    protos.hide_render = True

    bark = _material(f"{root.name} bark", BARK_COLOR, False)
    prototypes, groups = {}, {}

    def group_for(sp):
        if sp.id in groups:
            return groups[sp.id]
        if sp.mesh_file:
            verts, tris, kinds = glb_mesh(bake.read_mesh(sp), os.path.join(folder, sp.mesh_file))
        else:
            verts, tris, kinds = proxy_mesh(sp.mesh_form, sp.crown_radius, sp.mesh_height)
        color = tuple(c / 255.0 for c in sp.base_color[:3])
        foliage = _material(f"{root.name} {sp.name}", color, True)
        mesh = _mesh_from_triangles(f"{sp.name} prototype", verts, tris, kinds, [bark, foliage])
        obj = bpy.data.objects.new(f"{sp.name} prototype", mesh)
        obj["ecobake_species"] = sp.name
        obj["ecobake_species_id"] = sp.id
        protos.objects.link(obj)
        prototypes[sp.id] = obj
        groups[sp.id] = instancer_node_group(f"{root.name} {sp.name}", obj)
        return groups[sp.id]

    objects, total = [], 0
    try:
        total = _import_tiles(bake, reader, root, objects, group_for, keep_tile, keep_species, region, tiles_x, verify)
    except BaseException:  # leave nothing half-imported behind
        _remove(root, objects, prototypes, groups, [bark])
        raise
    return {"collection": root, "objects": objects, "prototypes": prototypes, "instances": total,
            "seconds": time.perf_counter() - start}


def _remove(root, objects, prototypes, groups, materials):
    import bpy
    materials = list(materials) + [m for obj in prototypes.values() for m in obj.data.materials if m]
    for obj in list(objects) + list(prototypes.values()):
        mesh = obj.data
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
    for group in groups.values():
        bpy.data.node_groups.remove(group)
    for mat in set(materials):
        if mat.users == 0:
            bpy.data.materials.remove(mat)
    for child in list(root.children):
        bpy.data.collections.remove(child)
    bpy.data.collections.remove(root)


def _import_tiles(bake, reader, root, objects, group_for, keep_tile, keep_species, region, tiles_x, verify):
    """One object per tile and species into `root` (appended to `objects`); returns the instances."""
    import bpy
    import numpy as np
    tile_size = bake.tile_size
    total = 0
    for entry in bake.tiles:
        if keep_tile is not None and not keep_tile(entry.x, entry.z):
            continue
        if region is not None and not (entry.x * tile_size <= region[2] and (entry.x + 1) * tile_size >= region[0]
                                       and entry.z * tile_size <= region[3] and (entry.z + 1) * tile_size >= region[1]):
            continue
        if not any(entry.species_counts[s] for s in keep_species):
            continue
        try:
            tile = bake.read_tile(entry, verify=verify)
        except reader.BakeError as e:
            raise EcobakeImportError(str(e)) from None
        positions = tile.positions()
        keep = np.isin(tile.species_ids, np.fromiter(keep_species, dtype=np.int64))
        if region is not None:
            keep &= (positions[:, 0] >= region[0]) & (positions[:, 0] <= region[2]) & \
                    (positions[:, 2] >= region[1]) & (positions[:, 2] <= region[3])
        if not keep.any():
            continue
        index = np.flatnonzero(keep)
        origin = np.array([entry.x * tile_size, 0.0, entry.z * tile_size], dtype=np.float32)
        local = blender_vectors(positions[index] - origin).astype(np.float32)
        euler = instance_eulers(tile.yaw()[index], tile.up()[index]).astype(np.float32)
        scale = tile.scale()[index].astype(np.float32)
        color = tile.colors()[index].astype(np.float32) / np.float32(255)
        sids = tile.species_ids[index]
        tile_number = entry.z * tiles_x + entry.x
        if tile_number >= 2 ** 31:
            raise EcobakeImportError(f"tile {entry.x}_{entry.z}: tile number {tile_number} does not fit an INT attribute")
        origin_b = blender_vectors(origin[None, :].astype(np.float64))[0]
        for sid in np.unique(sids):
            sp = bake.species[int(sid)]
            rows = np.flatnonzero(sids == sid)
            n = len(rows)
            name = f"{entry.x}_{entry.z} {sp.name}"
            mesh = bpy.data.meshes.new(name)
            mesh.vertices.add(n)
            mesh.vertices.foreach_set("co", local[rows].ravel())
            _set_point_attribute(mesh, "rotation", "FLOAT_VECTOR", "vector", euler[rows])
            _set_point_attribute(mesh, "scale", "FLOAT", "value", scale[rows])
            _set_point_attribute(mesh, "color", "FLOAT_COLOR", "color", color[rows])
            _set_point_attribute(mesh, "id_tile", "INT", "value", np.full(n, tile_number, dtype=np.int32))
            _set_point_attribute(mesh, "id_index", "INT", "value", index[rows].astype(np.int32))
            mesh.update()
            obj = bpy.data.objects.new(name, mesh)
            obj.location = tuple(float(c) for c in origin_b)
            obj["ecobake_tile"] = [entry.x, entry.z]
            obj["ecobake_species"] = sp.name
            obj["ecobake_species_id"] = sp.id
            obj["ecobake_instances"] = n
            modifier = obj.modifiers.new("ecobake instances", "NODES")
            modifier.node_group = group_for(sp)
            root.objects.link(obj)
            objects.append(obj)
            total += n
    return total


def _find_layer_collection(layer_collection, collection):
    if layer_collection.collection == collection:
        return layer_collection
    for child in layer_collection.children:
        found = _find_layer_collection(child, collection)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------------------------
# The add-on: File > Import, preferences

try:
    import bpy
    from bpy.props import StringProperty, BoolProperty
    from bpy_extras.io_utils import ImportHelper
except ImportError:  # plain Python: the functions above still import
    bpy = None

if bpy is not None:
    class EcobakePreferences(bpy.types.AddonPreferences):
        bl_idname = __name__
        reader_path: StringProperty(
            name="Reader folder",
            description="The repository's python/ folder (holding ecobake/ and eco/), when it is not beside the add-on",
            subtype="DIR_PATH", default="")

        def draw(self, context):
            self.layout.prop(self, "reader_path")

    class IMPORT_OT_ecobake(bpy.types.Operator, ImportHelper):
        """Import an ecobake bake: one Geometry Nodes point instancer per tile and species"""
        bl_idname = "import_scene.ecobake"
        bl_label = "Import ecobake bake"
        bl_options = {"REGISTER", "UNDO"}
        filename_ext = ".json"
        filter_glob: StringProperty(default="manifest.json", options={"HIDDEN"})
        tiles: StringProperty(name="Tiles", description="X0,Z0,X1,Z1 (inclusive); empty: every tile", default="")
        region: StringProperty(name="Region", description="MINX,MINZ,MAXX,MAXZ in metres; empty: everywhere",
                               default="")
        species: StringProperty(name="Species", description="Comma-separated species names; empty: all", default="")
        verify: BoolProperty(name="Verify checksums", description="Check each tile's size and XXH3-64 against the manifest",
                             default=True)

        def execute(self, context):
            folder = self.filepath if os.path.isdir(self.filepath) else os.path.dirname(self.filepath)
            try:
                result = import_bake(folder, tiles=self.tiles or None, species=self.species or None,
                                     region=self.region or None, verify=self.verify, scene=context.scene)
            except (EcobakeImportError, ValueError) as e:
                self.report({"ERROR"}, str(e))
                return {"CANCELLED"}
            self.report({"INFO"}, f"ecobake: {result['instances']} instances in {len(result['objects'])} objects, "
                                  f"{result['seconds']:.2f} s")
            return {"FINISHED"}

    def _menu(self, context):
        self.layout.operator(IMPORT_OT_ecobake.bl_idname, text="ecobake bake (manifest.json)")

    _classes = (EcobakePreferences, IMPORT_OT_ecobake)

    def register():
        for cls in _classes:
            bpy.utils.register_class(cls)
        bpy.types.TOPBAR_MT_file_import.append(_menu)

    def unregister():
        bpy.types.TOPBAR_MT_file_import.remove(_menu)
        for cls in reversed(_classes):
            bpy.utils.unregister_class(cls)
else:
    def register():
        raise RuntimeError("ecobake_blender: register() needs Blender")

    def unregister():
        pass
