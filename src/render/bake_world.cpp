// openBake: the viewer's World over an ecobake output folder (tileio reads and verifies).
#include <algorithm>
#include <memory>

#include "core/error.h"
#include "render/world.h"
#include "tileio/manifest.h"

namespace eco::render {

World openBake(const std::string& dir) {
  auto manifest = std::make_shared<Manifest>(readManifest(dir));
  World w;
  w.name = manifest->name;
  w.cellSize = manifest->terrain.cellSize;
  w.tileSize = manifest->tiling.tileSize;
  w.heights = Grid(manifest->terrain.width, manifest->terrain.height);
  w.heights.values = readTerrainRaw(dir, *manifest);
  for (const SpeciesRecord& s : manifest->species)
    w.species.push_back({uint8_t(std::min<unsigned>(s.kind, gpu::KIND_COUNT - 1)), s.meshHeight, s.crownRadius});
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
  std::vector<SpeciesShape> species = w.species;
  w.loadTile = [dir, manifest, species](size_t index) {
    TileData data = readTileVerified(dir, manifest->tiles[index]);
    LoadedTile out;
    out.tile = index;
    out.instances.reserve(data.instances.size());
    for (const Instance& inst : data.instances) {
      if (inst.species >= species.size())
        throw InputError(manifest->tiles[index].file + ": species " + std::to_string(inst.species) + " not in manifest");
      const SpeciesShape& shape = species[inst.species];
      PlacedInstance p{inst.position, inst.species, inst.yaw, inst.scale, inst.up, inst.color};
      out.instances.push_back(packInstance(p, shape));
      out.kindCounts[shape.kind]++;
    }
    return out;
  };
  return w;
}

}  // namespace eco::render
