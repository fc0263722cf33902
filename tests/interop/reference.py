"""Writes the reference for export_interop.mjs: every instance of a bake as python/ecobake
decodes it (an implementation independent of the C++ exporters), as JSON.

    python3 tests/interop/reference.py SOURCE_DIR BAKE_DIR OUT_JSON

Exit 77 where numpy, flatbuffers or xxhash cannot be imported.
"""
import json
import os
import sys


def main() -> int:
    source, bake_dir, out = sys.argv[1:4]
    sys.path.insert(0, os.path.join(source, "python"))
    try:
        import ecobake as eb
    except ImportError as e:
        print(f"skipped: {e} (install python3-numpy python3-flatbuffers python3-xxhash)")
        return 77
    bake = eb.open_bake(bake_dir)
    tiling = bake.manifest["tiling"]
    doc = {
        "tiles_x": tiling["tiles_x"],
        "species": [{"id": s.id, "name": s.name, "kind": s.kind, "mesh_height": s.mesh_height, "crown_radius": s.crown_radius}
                    for s in bake.species],
        "tiles": [],
    }
    for entry in bake.tiles:
        tile = bake.read_tile(entry)
        doc["tiles"].append({
            "x": entry.x, "z": entry.z,
            # float32 values as Python floats (exact); colours as RGBA bytes
            "position": tile.positions().astype(float).tolist(),
            "yaw": tile.yaw().astype(float).tolist(),
            "scale": tile.scale().astype(float).tolist(),
            "up": tile.up().astype(float).tolist(),
            "color": tile.colors().astype(int).tolist(),
            "species": tile.species_ids.astype(int).tolist(),
        })
    with open(out, "w") as f:
        json.dump(doc, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
