#include "masks/eco_masks.h"

#include <filesystem>

namespace eco {

namespace {

Image loadAnyImage(const std::string& path, const TerrainConfig& t) {
  auto ext = std::filesystem::path(path).extension().string();
  if (ext == ".r16") return loadRaw(path, RawFormat::R16, t.rawWidth, t.rawHeight);
  if (ext == ".r32f" || ext == ".r32") return loadRaw(path, RawFormat::R32F, t.rawWidth, t.rawHeight);
  return loadImage(path);
}

}  // namespace

World loadWorld(const std::string& configPath) {
  World world;
  world.config = loadBiomeConfig(configPath);
  const BiomeConfig& c = world.config;
  world.terrain = makeHeightmap(loadAnyImage(c.terrain.heightmap, c.terrain), c.terrain.mapping);
  if (!c.river.file.empty()) {
    Image river = loadImage(c.river.file);
    world.river = c.river.source == RiverSource::Mask
                      ? riverFieldFromMask(river, world.terrain, c.river.file)
                      : riverFieldFromDistance(river, c.river.distanceScale, world.terrain, c.river.file);
    world.hasRiver = true;
  }
  world.sunDirXZ = sunDirectionXZ(c.sunAzimuthDeg);
  return world;
}

}  // namespace eco
