// openBake: the viewer's Scene over an ecobake output folder (tileio reads and verifies).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/hash.h"
#include "core/species_kind.h"
#include "render/scene.h"
#include "tileio/tileio.h"

namespace eco::render {

Scene openBake(const std::string& dir) {
  auto manifest = std::make_shared<Manifest>(readManifest(dir));
  Scene w;
  w.name = manifest->name;
  w.cellSize = manifest->terrain.cellSize;
  w.tileSize = manifest->tiling.tileSize;
  // readManifest has compared the claimed terrain size with the file; the grid takes the
  // values as read instead of being zero-filled to the claimed size first.
  const int tw = manifest->terrain.width, th = manifest->terrain.height;
  if (tw < 2 || th < 2)
    throw InputError((std::filesystem::path(dir) / "manifest.json").string() +
                     ": terrain.width and terrain.height must be at least 2 for the viewer");
  w.heights.width = tw;
  w.heights.height = th;
  w.heights.values = readTerrainRaw(dir, *manifest);
  if (manifest->species.size() > 256)
    throw InputError((std::filesystem::path(dir) / "manifest.json").string() + ": " +
                     std::to_string(manifest->species.size()) + " species; the viewer draws at most 256");
  w.species = manifest->species;
  w.speciesInstances = manifest->totals.speciesCounts;
  w.bakeDir = dir;
  w.sunAzimuthDeg = manifest->sunAzimuthDeg;
  w.sunElevationDeg = manifest->sunElevationDeg;
  if (manifest->ground) w.ground = *manifest->ground;
  // readManifest has put every layer on the terrain's grid; the read checks size and checksum
  // (InputError naming the file).
  for (const LayerEntry& l : manifest->layers) {
    SceneLayer layer;
    layer.name = l.name;
    layer.kind = l.kind;
    layer.species = l.species;
    layer.unit = l.unit;
    layer.width = l.width;
    layer.height = l.height;
    layer.bytesPerCode = int(layerBytesPerCode(l.encoding));
    layer.codeMax = layerCodeMax(l.encoding);
    layer.valueMin = l.valueMin;
    layer.valueMax = l.valueMax;
    layer.waterDistance = l.kind == "river" ? l.waterDistance : -1.f;
    layer.data = readLayerVerified(dir, l);
    if (l.kind == "river" && w.riverLayer < 0) w.riverLayer = int(w.layers.size());
    w.layers.push_back(std::move(layer));
  }
  for (const TileEntry& e : manifest->tiles) {
    SceneTile t;
    t.x = e.x;
    t.z = e.z;
    t.instances = e.instances;
    t.minX = float(e.x) * w.tileSize;
    t.minZ = float(e.z) * w.tileSize;
    t.maxX = t.minX + w.tileSize;
    t.maxZ = t.minZ + w.tileSize;
    for (uint64_t c : e.speciesCounts) t.speciesCounts.push_back(uint32_t(std::min<uint64_t>(c, UINT32_MAX)));
    w.tiles.push_back(t);
  }
  // readTileVerified checks each tile against the manifest, species table included
  auto read = [dir, manifest](size_t index) {
    TileData data = readTileVerified(dir, *manifest, manifest->tiles[index]);
    for (const Instance& inst : data.instances)
      if (inst.species >= manifest->species.size())
        throw InputError(manifest->tiles[index].file + ": species " + std::to_string(inst.species) + " not in manifest");
    return data;
  };
  w.placedInstances = [read](size_t index) { return read(index).instances; };
  // The records are re-quantized from the decoded values into the file's own box, which gives
  // the file's bytes back (tileio_tile_test checks packRecord against decodeTile).
  w.loadTile = [read, manifest](size_t index) {
    TileData data = read(index);
    return makeLoadedTile(index, data.instances, manifest->species, data.boundsMin, data.boundsMax);
  };
  return w;
}

}  // namespace eco::render
