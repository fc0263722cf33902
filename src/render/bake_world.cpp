// openBake: the viewer's World over an ecobake output folder (tileio reads and verifies).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/hash.h"
#include "core/species_kind.h"
#include "render/world.h"
#include "tileio/manifest.h"

namespace eco::render {

World openBake(const std::string& dir) {
  auto manifest = std::make_shared<Manifest>(readManifest(dir));
  World w;
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
  for (const TileEntry& e : manifest->tiles) {
    WorldTile t;
    t.x = e.x;
    t.z = e.z;
    t.instances = e.instances;
    t.minX = float(e.x) * w.tileSize;
    t.minZ = float(e.z) * w.tileSize;
    t.maxX = t.minX + w.tileSize;
    t.maxZ = t.minZ + w.tileSize;
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

void writeSyntheticBake(const std::string& dir, const SyntheticOptions& options) {
  World world = makeSyntheticWorld(options);
  Manifest m;
  m.name = "synthetic";
  m.seed = options.seed;
  float size = float(world.heights.width - 1) * world.cellSize;
  auto [lo, hi] = std::minmax_element(world.heights.values.begin(), world.heights.values.end());
  m.world = {size, size, *lo, *hi};
  m.terrain.width = world.heights.width;
  m.terrain.height = world.heights.height;
  m.terrain.cellSize = world.cellSize;
  m.tiling.tileSize = world.tileSize;
  for (const WorldTile& t : world.tiles) {
    m.tiling.tilesX = std::max(m.tiling.tilesX, t.x + 1);
    m.tiling.tilesZ = std::max(m.tiling.tilesZ, t.z + 1);
  }
  m.species = world.species;
  m.hashes = {hex64(options.seed), hex64(0), ""};
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    const WorldTile& wt = world.tiles[i];
    TileData tile;
    tile.tileX = wt.x;
    tile.tileZ = wt.z;
    tile.tileSize = world.tileSize;
    tile.species = m.species;
    TileEntry e;
    e.x = wt.x;
    e.z = wt.z;
    e.speciesCounts.assign(m.species.size(), 0);
    tile.instances = syntheticTileInstances(world, options.seed, i);
    for (const Instance& inst : tile.instances) e.speciesCounts[inst.species]++;
    if (tile.instances.empty()) continue;
    std::vector<uint8_t> bytes = encodeTile(tile);
    e.file = "tiles/" + std::to_string(wt.x) + "_" + std::to_string(wt.z) + ".ecot";
    e.instances = tile.instances.size();
    e.bytes = bytes.size();
    e.checksum = checksum64(bytes);
    writeFileAtomic(dir + "/" + e.file, bytes.data(), bytes.size());
    m.tiles.push_back(e);
  }
  std::sort(m.tiles.begin(), m.tiles.end(), [](const TileEntry& a, const TileEntry& b) {
    return a.z != b.z ? a.z < b.z : a.x < b.x;
  });
  computeTotals(m);
  writeTerrainRaw(dir, world.heights);
  writeManifest(dir, m);
}

}  // namespace eco::render
