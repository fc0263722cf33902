"""Read ecobake output from Python: the manifest, the species table and tiles as numpy arrays.

    import sys; sys.path.insert(0, "python")      # this folder of the repository
    import ecobake
    bake = ecobake.open_bake("out/sample")
    for entry in bake.tiles:
        tile = bake.read_tile(entry)              # size and XXH3-64 checked against the manifest
        xyz = tile.positions()                    # (n, 3) float32 metres, x east, y up, z south

Needs Debian's python3-numpy, python3-flatbuffers and python3-xxhash. The FlatBuffers code in
../eco/fb is what flatc --python generates from schemas/tile.fbs (a test checks it matches).
Every file is treated as untrusted: sizes and checksums are checked before anything is decoded,
and a tile's vectors must lie inside its bytes. Errors raise BakeError naming the file.
"""

from __future__ import annotations

import json
import math
import os
import stat
import struct
from dataclasses import dataclass, field

import numpy as np
import xxhash

from eco.fb.Tile import Tile as _FbTile

__all__ = ["BakeError", "Species", "TileEntry", "Layer", "Bake", "TileData", "open_bake", "PACKED_DTYPE",
           "SPECIES_KINDS", "MESH_FORMS", "LAYER_KINDS"]

MANIFEST_FORMAT = "ecobake-manifest"
MANIFEST_VERSION = 2
TILE_VERSION = 1
SPECIES_KINDS = ("tree", "shrub", "grass", "ground_cover")  # core/species_kind.h, tile.fbs SpeciesKind
MESH_FORMS = ("broadleaf", "conifer", "shrub", "grass", "ground_cover")  # core/species_kind.h MeshForm
# The form of each kind when the manifest names none, and the forms a kind may have.
DEFAULT_MESH_FORM = {"tree": "broadleaf", "shrub": "shrub", "grass": "grass", "ground_cover": "ground_cover"}
KIND_MESH_FORMS = {"tree": ("broadleaf", "conifer"), "shrub": ("shrub",), "grass": ("grass",),
                   "ground_cover": ("ground_cover",)}
MAX_MESH_BYTES = 256 << 20
LAYER_KINDS = ("river", "mask", "suitability")  # tileio.h kLayerKinds
LAYER_ENCODINGS = {"unorm8": ("<u1", 255), "unorm16": ("<u2", 65535)}  # numpy dtype, largest code
MAX_LAYERS = 1024
DEFAULT_SUN = (180.0, 40.0)  # azimuth_deg, elevation_deg of a manifest without "sun"
MAX_MANIFEST_BYTES = 256 << 20
MAX_TILE_BYTES = 1 << 30

# One instance as a tile stores it (tile.fbs PackedInstance, 16 bytes, little-endian).
PACKED_DTYPE = np.dtype([("x_q", "<u2"), ("y_q", "<u2"), ("z_q", "<u2"), ("yaw_q", "<u2"),
                         ("scale_q", "<u2"), ("up_oct", "<u2"), ("color", "<u4")])
assert PACKED_DTYPE.itemsize == 16


class BakeError(ValueError):
    """A bake that cannot be read: the message names the file and the problem."""


@dataclass(frozen=True)
class Species:
    id: int
    name: str
    kind: str
    mesh_height: float
    crown_radius: float
    scale_min: float
    scale_max: float
    bounding_center_y: float
    bounding_radius: float
    base_color: tuple  # (r, g, b, a), 0..255
    mesh_asset: str = ""  # the config's mesh.asset; empty: exports use a proxy mesh
    mesh_form: str = ""   # the procedural form ("broadleaf", "conifer", ...): manifest's or the kind's default
    mesh_file: str = ""   # the normalised GLB in the bake ("meshes/3.glb"); empty: none (read with Bake.read_mesh)
    mesh_bytes: int = 0
    mesh_xxh3_64: int = 0


@dataclass(frozen=True)
class TileEntry:
    x: int
    z: int
    file: str
    instances: int
    bytes: int
    xxh3_64: int
    species_counts: tuple


@dataclass(frozen=True)
class Layer:
    """A raster layer on the terrain's grid (docs/tile-format.md "Layers"): code c means
    value_min + c / code_max * (value_max - value_min) in `unit`."""
    name: str
    kind: str          # "river", "mask" or "suitability"
    species: str       # suitability: the species' name; else ""
    file: str
    width: int
    height: int
    encoding: str      # "unorm8" or "unorm16"
    value_min: float
    value_max: float
    unit: str          # "m", "deg" or ""
    xxh3_64: int
    water_distance: float = -1.0  # river: water where the distance is at most this (metres)

    @property
    def code_max(self) -> int:
        return LAYER_ENCODINGS[self.encoding][1]


def _require(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise BakeError(f"{where}: {problem}")


def _read_regular(path: str, limit: int) -> bytes:
    """The whole file, which must be a regular file of at most `limit` bytes: checked on the open
    descriptor before reading (O_NONBLOCK, so a FIFO cannot hang the open; a device or FIFO is
    then refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise BakeError(f"{path}: {e.strerror or e}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        _require(stat.S_ISREG(st.st_mode), path, "not a regular file")
        _require(st.st_size <= limit, path, f"{st.st_size} bytes, over the limit of {limit}")
        data = f.read(limit + 1)
    _require(len(data) <= limit, path, f"grew past the limit of {limit} bytes while being read")
    return data


# Above this a double rounds to infinity as a float32 (FLT_MAX plus half its last step).
_FLOAT32_LIMIT = 3.4028235677973366e38


def _plain_text(text: str, max_bytes: int) -> bool:
    """At most max_bytes of UTF-8 and no control character (below 0x20, or DEL): the C++
    reader's rule for names and units."""
    return len(text.encode("utf-8", "surrogatepass")) <= max_bytes and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)


def _field(obj, key, kind, where):
    _require(isinstance(obj, dict), where, "expected an object")
    _require(key in obj, where, f"missing field \"{key}\"")
    value = obj[key]
    ok = {
        "str": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "num": isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
        "list": isinstance(value, list),
        "dict": isinstance(value, dict),
    }[kind]
    _require(ok, f"{where}/{key}", f"expected {kind}")
    return value


@dataclass
class TileData:
    """One decoded tile. `records` is a view of the file's bytes (no copy) with PACKED_DTYPE;
    the methods dequantise it as the C++ decoder does (tileio/quantize.cpp)."""
    x: int
    z: int
    tile_size: float
    bounds_min: tuple
    bounds_max: tuple
    species: list
    records: np.ndarray
    species_ids: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.records)

    def positions(self) -> np.ndarray:
        lo = np.asarray(self.bounds_min, dtype=np.float64)
        hi = np.asarray(self.bounds_max, dtype=np.float64)
        q = np.stack([self.records["x_q"], self.records["y_q"], self.records["z_q"]], axis=1).astype(np.float64)
        return (lo + q / 65535.0 * (hi - lo)).astype(np.float32)

    def yaw(self) -> np.ndarray:
        """Radians in [0, 2 pi): a turn about the local y axis, +x toward -z."""
        return (self.records["yaw_q"].astype(np.float64) / 65536.0 * 2 * math.pi).astype(np.float32)

    def scale(self) -> np.ndarray:
        lo = np.array([s.scale_min for s in self.species], dtype=np.float64)[self.species_ids]
        hi = np.array([s.scale_max for s in self.species], dtype=np.float64)[self.species_ids]
        return (lo + self.records["scale_q"].astype(np.float64) / 65535.0 * (hi - lo)).astype(np.float32)

    def up(self) -> np.ndarray:
        """Unit up axes (n, 3): octahedral snorm8x2, y the pole, low byte u (x), high byte v (z)."""
        packed = self.records["up_oct"]
        u = np.maximum((packed & 0xFF).astype(np.uint8).view(np.int8).astype(np.float32) / np.float32(127), -1)
        v = np.maximum((packed >> 8).astype(np.uint8).view(np.int8).astype(np.float32) / np.float32(127), -1)
        y = 1 - np.abs(u) - np.abs(v)
        fold = y < 0
        fu = (1 - np.abs(v)) * np.where(u >= 0, 1, -1)
        fv = (1 - np.abs(u)) * np.where(v >= 0, 1, -1)
        u = np.where(fold, fu, u)
        v = np.where(fold, fv, v)
        out = np.stack([u, y, v], axis=1).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def colors(self) -> np.ndarray:
        """RGBA8 (n, 4) uint8, the instance's final colour."""
        c = self.records["color"].astype("<u4")
        return c.view(np.uint8).reshape(-1, 4)


class Bake:
    """A bake folder: manifest.json, terrain.r32f and tiles/."""

    def __init__(self, folder: str):
        self.folder = folder
        path = os.path.join(folder, "manifest.json")
        self._manifest_path = path
        data = _read_regular(path, MAX_MANIFEST_BYTES)
        # the C++ reader's JSON policy: no NUL byte, no key twice in one object
        nul = data.find(b"\0")
        _require(nul < 0, path, f"byte {nul} is a NUL byte; a manifest is JSON text")

        def unique(pairs):
            seen = {}
            for key, value in pairs:
                if key in seen:
                    raise BakeError(f"{path}: key {key!r}: duplicate key (only one value per key; the last would "
                                    "silently win)")
                seen[key] = value
            return seen

        try:
            doc = json.loads(data.decode("utf-8"), object_pairs_hook=unique)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise BakeError(f"{path}: not valid JSON ({e})") from None
        _require(isinstance(doc, dict), path, "expected a JSON object")
        if doc.get("format") == "ecobake-part":
            part = doc.get("part") if isinstance(doc.get("part"), dict) else {}
            raise BakeError(f"{path}: is part {part.get('index', '?')} of {part.get('count', '?')} of a sharded bake, "
                            "not a whole bake; merge all the parts first: ecobake merge PART... -o OUTDIR")
        _require(doc.get("format") == MANIFEST_FORMAT, path, "not an ecobake manifest")
        _require(doc.get("format_version") == MANIFEST_VERSION, path,
                 f"unsupported format_version {doc.get('format_version')!r} (this reader reads {MANIFEST_VERSION})")
        self.manifest = doc
        self.name = _field(doc, "name", "str", path)
        self.seed = _field(doc, "seed", "int", path)
        tiling = _field(doc, "tiling", "dict", path)
        self.tile_size = float(_field(tiling, "tile_size", "num", path + ": /tiling"))
        self.species = []
        for i, s in enumerate(_field(doc, "species", "list", path)):
            where = f"{path}: /species/{i}"
            kind = _field(s, "kind", "str", where)
            _require(kind in SPECIES_KINDS, where + "/kind", f"unknown kind \"{kind}\"")
            _require(_field(s, "id", "int", where) == i, where + "/id", "species must be listed by id from 0")
            color = _field(s, "base_color", "list", where)
            mesh_asset = s.get("mesh_asset", "")
            _require(isinstance(mesh_asset, str), where + "/mesh_asset", "expected a string")
            _require(len(color) == 4 and all(isinstance(c, int) and 0 <= c <= 255 for c in color),
                     where + "/base_color", "expected [r, g, b, a]")
            form = s.get("mesh_form", DEFAULT_MESH_FORM[kind])
            _require(form in KIND_MESH_FORMS[kind], where + "/mesh_form",
                     f"mesh form {form!r} does not suit a {kind}")
            mesh_file, mesh_bytes, mesh_hash = "", 0, 0
            if any(k in s for k in ("mesh_file", "mesh_bytes", "mesh_xxh3_64")):
                # only meshes/<name>.glb: a manifest cannot point outside the bake
                mesh_file = _field(s, "mesh_file", "str", where)
                stem = mesh_file[7:-4] if mesh_file.startswith("meshes/") and mesh_file.endswith(".glb") else ""
                _require(0 < len(stem) <= 89 and all(c.isascii() and (c.isalnum() or c in "_-") for c in stem),
                         where + "/mesh_file", "expected meshes/<name>.glb (letters, digits, _ and - only)")
                mesh_bytes = _field(s, "mesh_bytes", "int", where)
                _require(0 < mesh_bytes <= MAX_MESH_BYTES, where + "/mesh_bytes", "out of range")
                digest = _field(s, "mesh_xxh3_64", "str", where)
                _require(len(digest) == 16 and all(c in "0123456789abcdef" for c in digest),
                         where + "/mesh_xxh3_64", "expected 16 lowercase hex digits")
                mesh_hash = int(digest, 16)
            self.species.append(Species(
                i, _field(s, "name", "str", where), kind,
                *(float(_field(s, k, "num", where)) for k in (
                    "mesh_height", "crown_radius", "scale_min", "scale_max", "bounding_center_y",
                    "bounding_radius")),
                tuple(color), mesh_asset, form, mesh_file, mesh_bytes, mesh_hash))
        terrain = _field(doc, "terrain", "dict", path)
        self.terrain_size = (_field(terrain, "width", "int", path + ": /terrain"),
                             _field(terrain, "height", "int", path + ": /terrain"))
        self.sun = DEFAULT_SUN
        if "sun" in doc:
            sun = _field(doc, "sun", "dict", path)
            az, el = (float(_field(sun, k, "num", path + ": /sun")) for k in ("azimuth_deg", "elevation_deg"))
            _require(0 <= az <= 360 and 0 < el <= 90, path + ": /sun", "azimuth_deg must be in [0, 360] and "
                     "elevation_deg in (0, 90]")
            self.sun = (az, el)
        # The config's ground palette for the viewer (absent: the viewer's temperate default):
        # colour name -> (r, g, b) in 0..255, and "snowline" in metres when there is one.
        self.ground = None
        if "ground" in doc:
            ground = _field(doc, "ground", "dict", path)
            where = path + ": /ground"
            names = ("soil", "grass", "rock", "sand", "snow")
            _require(set(ground) <= set(names) | {"snowline"}, where,
                     f"unknown fields {sorted(set(ground) - set(names) - {'snowline'})}")
            self.ground = {}
            for name in names:
                rgb = _field(ground, name, "list", where)
                _require(len(rgb) == 3 and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255
                                               for c in rgb), f"{where}/{name}", "expected [r, g, b], each in [0, 255]")
                self.ground[name] = tuple(rgb)
            if "snowline" in ground:
                snowline = float(_field(ground, "snowline", "num", where))
                _require(-1e5 <= snowline <= 1e5, f"{where}/snowline", "must be in [-1e5, 1e5]")
                self.ground["snowline"] = snowline
        self.layers = []
        layers = _field(doc, "layers", "list", path) if "layers" in doc else []
        _require(len(layers) <= MAX_LAYERS, path + ": /layers", f"{len(layers)} layers, at most {MAX_LAYERS}")
        for i, l in enumerate(layers):
            self.layers.append(self._layer(l, f"{path}: /layers/{i}"))
        self.tiles = []
        for i, t in enumerate(_field(doc, "tiles", "list", path)):
            where = f"{path}: /tiles/{i}"
            name = _field(t, "file", "str", where)
            _require(name and not os.path.isabs(name) and ".." not in name.split("/"), where + "/file",
                     "must be a relative path inside the bake folder")
            digest = _field(t, "xxh3_64", "str", where)
            _require(len(digest) == 16 and all(c in "0123456789abcdef" for c in digest), where + "/xxh3_64",
                     "expected 16 lowercase hex digits")
            counts = tuple(_field(t, "species_counts", "list", where))
            _require(len(counts) == len(self.species), where + "/species_counts", "one count per species expected")
            self.tiles.append(TileEntry(_field(t, "x", "int", where), _field(t, "z", "int", where), name,
                                        _field(t, "instances", "int", where), _field(t, "bytes", "int", where),
                                        int(digest, 16), counts))

    def _layer(self, l, where: str) -> Layer:
        name = _field(l, "name", "str", where)
        _require(_plain_text(name, 256), where + "/name", "must be at most 256 bytes without control characters")
        kind = _field(l, "kind", "str", where)
        _require(kind in LAYER_KINDS, where + "/kind", f"unknown kind \"{kind}\"")
        species = l.get("species", "")
        _require(isinstance(species, str), where + "/species", "expected a string")
        if kind == "suitability":
            _require(species in [s.name for s in self.species], where + "/species",
                     f"\"{species}\" is not a species of the manifest")
        else:
            _require(species == "", where + "/species", "only a suitability layer names a species")
        file = _field(l, "file", "str", where)
        parts = file.split("/")
        _require(file and not os.path.isabs(file) and ".." not in parts and parts[0] != "tiles", where + "/file",
                 "must be a relative path inside the bake folder, outside tiles/")
        width, height = _field(l, "width", "int", where), _field(l, "height", "int", where)
        _require((width, height) == self.terrain_size, where,
                 f"{width} x {height} layer, but the terrain is {self.terrain_size[0]} x {self.terrain_size[1]}")
        encoding = _field(l, "encoding", "str", where)
        _require(encoding in LAYER_ENCODINGS, where + "/encoding", f"unknown encoding \"{encoding}\"")
        lo, hi = float(_field(l, "value_min", "num", where)), float(_field(l, "value_max", "num", where))
        for key, v in (("value_min", lo), ("value_max", hi)):  # the C++ reader keeps them as float32
            _require(abs(v) < _FLOAT32_LIMIT, f"{where}/{key}", f"out of float range, got {v:g}")
        _require(lo < hi, where, "value_min must be below value_max")
        digest = _field(l, "xxh3_64", "str", where)
        _require(len(digest) == 16 and all(c in "0123456789abcdef" for c in digest), where + "/xxh3_64",
                 "expected 16 lowercase hex digits")
        water = -1.0
        if kind == "river":
            water = float(_field(l, "water_distance", "num", where))
            _require(water >= 0, where + "/water_distance", "must be >= 0")
        _require(name not in [x.name for x in self.layers], where + "/name", f"\"{name}\" is given twice")
        unit = _field(l, "unit", "str", where)
        _require(_plain_text(unit, 32), where + "/unit", "must be at most 32 bytes without control characters")
        return Layer(name, kind, species, file, width, height, encoding, lo, hi, unit, int(digest, 16), water)

    def layer(self, name: str) -> Layer:
        for l in self.layers:
            if l.name == name:
                return l
        raise KeyError(f"{name}: no such layer (the bake has {', '.join(l.name for l in self.layers) or 'none'})")

    def _member(self, file: str) -> str:
        """folder/file, which must lie inside the bake folder once links are resolved (the C++
        readers' bakeMemberPath): a tile, layer or mesh replaced by a link to a file elsewhere
        is a BakeError naming both. A missing file is left to the read to report."""
        path = os.path.join(self.folder, file)
        if not os.path.lexists(path):
            return path
        root = os.path.realpath(self.folder)
        target = os.path.realpath(path)
        _require(os.path.commonpath([root, target]) == root and target != root, path,
                 f"leads to {target}, outside the bake folder {root} (a bake's files lie inside it)")
        return path

    def read_layer_codes(self, layer) -> np.ndarray:
        """The layer's codes as a (height, width) uint8 or uint16 array, after checking the file's
        size and XXH3-64 against the manifest. `layer`: a Layer or its name."""
        layer = self.layer(layer) if isinstance(layer, str) else layer
        path = self._member(layer.file)
        dtype = np.dtype(LAYER_ENCODINGS[layer.encoding][0])
        size = layer.width * layer.height * dtype.itemsize
        data = _read_regular(path, size)
        _require(len(data) == size, path, f"{len(data)} bytes, manifest says {size}")
        actual = xxhash.xxh3_64_intdigest(data)
        _require(actual == layer.xxh3_64, path,
                 f"checksum mismatch (xxh3_64 {actual:016x}, manifest says {layer.xxh3_64:016x})")
        return np.frombuffer(data, dtype=dtype).reshape(layer.height, layer.width)

    def read_layer(self, layer) -> np.ndarray:
        """The layer dequantised to its unit: (height, width) float32, row j at world z = j * cell_size."""
        layer = self.layer(layer) if isinstance(layer, str) else layer
        codes = self.read_layer_codes(layer).astype(np.float64)
        return (layer.value_min + codes / layer.code_max * (layer.value_max - layer.value_min)).astype(np.float32)

    @property
    def instance_count(self) -> int:
        return sum(t.instances for t in self.tiles)

    def read_mesh(self, species: Species) -> bytes:
        """The bytes of a species' mesh file (a self-contained GLB: positions in metres, normals,
        a "bark" and a "foliage" primitive; docs/meshes.md), size and XXH3-64 checked."""
        _require(bool(species.mesh_file), f"{self._manifest_path}: /species/{species.id}", "has no mesh file")
        path = self._member(species.mesh_file)
        data = _read_regular(path, species.mesh_bytes)
        _require(len(data) == species.mesh_bytes, path, f"{len(data)} bytes, manifest says {species.mesh_bytes}")
        actual = xxhash.xxh3_64_intdigest(data)
        _require(actual == species.mesh_xxh3_64, path,
                 f"checksum mismatch (xxh3_64 {actual:016x}, manifest says {species.mesh_xxh3_64:016x})")
        return data

    def read_tile(self, entry: TileEntry, verify: bool = True) -> TileData:
        """Reads and decodes one tile. With verify (the default) its size and XXH3-64 must match
        the manifest entry, and its contents the entry's counts."""
        path = self._member(entry.file)
        data = _read_regular(path, min(entry.bytes, MAX_TILE_BYTES) if verify else MAX_TILE_BYTES)
        if verify:
            _require(len(data) == entry.bytes, path, f"{len(data)} bytes, manifest says {entry.bytes}")
            actual = xxhash.xxh3_64_intdigest(data)
            _require(actual == entry.xxh3_64, path,
                     f"checksum mismatch (xxh3_64 {actual:016x}, manifest says {entry.xxh3_64:016x})")
        tile = decode_tile(data, path, self.species)
        if verify:
            _require((tile.x, tile.z) == (entry.x, entry.z), path, "tile position differs from the manifest's")
            _require(len(tile) == entry.instances, path, f"{len(tile)} instances, manifest says {entry.instances}")
            counts = np.bincount(tile.species_ids, minlength=len(self.species))
            _require(tuple(int(c) for c in counts) == entry.species_counts, path,
                     "species counts differ from the manifest's")
        return tile


def decode_tile(data: bytes, name: str, species: list) -> TileData:
    """Decodes tile bytes (checks identifier, version and that every vector lies inside the
    bytes). `species` is the bake's table (Bake.species): scale and kind come from it."""
    try:
        return _decode_tile(data, name, species)
    except BakeError:
        raise
    except (struct.error, IndexError, OverflowError, TypeError, ValueError) as e:
        # The flatbuffers runtime has no verifier: offsets it followed out of the bytes.
        raise BakeError(f"{name}: corrupt tile ({e})") from None


def _decode_tile(data: bytes, name: str, species: list) -> TileData:
    n = len(data)
    _require(n >= 8 and _FbTile.TileBufferHasIdentifier(data, 0), name, "not an ecobake tile (identifier ECOT)")
    root = int.from_bytes(data[0:4], "little")
    _require(root + 4 <= n, name, "truncated")
    fb = _FbTile.GetRootAs(data, 0)
    tab = fb._tab

    def vector(slot):  # (start, length) of a vector field, bounds-checked
        o = tab.Offset(slot)
        if o == 0:
            return 0, 0
        _require(tab.Pos + o + 4 <= n, name, "truncated")
        start = tab.Vector(o)
        length = tab.VectorLen(o)
        _require(start >= 4 and start <= n, name, "vector outside the file")
        return start, length

    _require(fb.FormatVersion() == TILE_VERSION, name, f"unsupported tile format_version {fb.FormatVersion()}")
    start, count = vector(20)  # instances: field 8
    _require(start + count * PACKED_DTYPE.itemsize <= n, name, "instances run past the end of the file")
    records = np.frombuffer(data, dtype=PACKED_DTYPE, count=count, offset=start) if count else \
        np.zeros(0, dtype=PACKED_DTYPE)
    # Instances are sorted by species; the ranges say which ids.
    rstart, rcount = vector(18)  # ranges: field 7
    _require(rstart + rcount * 12 <= n, name, "ranges run past the end of the file")
    ranges = np.frombuffer(data, dtype=np.dtype([("species", "<u2"), ("pad", "<u2"), ("first", "<u4"),
                                                 ("count", "<u4")]), count=rcount, offset=rstart) if rcount else []
    ids = np.empty(count, dtype=np.uint16)
    covered = 0
    for r in ranges:
        first, length, sid = int(r["first"]), int(r["count"]), int(r["species"])
        _require(first == covered and first + length <= count, name, "species ranges do not cover the instances")
        _require(sid < len(species), name, f"species id {sid} outside the bake's table")
        ids[first:first + length] = sid
        covered += length
    _require(covered == count, name, "species ranges do not cover the instances")
    lo, hi = fb.BoundsMin(), fb.BoundsMax()
    _require(lo is not None and hi is not None, name, "missing bounds")
    return TileData(fb.TileX(), fb.TileZ(), fb.TileSize(), (lo.X(), lo.Y(), lo.Z()), (hi.X(), hi.Y(), hi.Z()),
                    species, records, ids)


def open_bake(folder: str) -> Bake:
    return Bake(folder)
