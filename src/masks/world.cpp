#include "masks/eco_masks.h"

#include <utility>

namespace eco {

World loadWorld(const std::string& configPath) {
  World world;
  // The same reads and checks as `validate`; the images they decoded are the ones used.
  BiomeInputs inputs;
  world.config = loadBiomeConfig(configPath, &inputs);
  const BiomeConfig& c = world.config;
  world.terrain = makeHeightmap(std::move(*inputs.heightmap), c.terrain.mapping);
  if (!c.river.file.empty()) {
    world.river = c.river.source == RiverSource::Mask
                      ? riverFieldFromMask(*inputs.river, world.terrain, c.river.file)
                      : riverFieldFromDistance(std::move(*inputs.river), c.river.distanceScale, world.terrain,
                                               c.river.file);
    world.hasRiver = true;
  }
  world.sunDirXZ = sunDirectionXZ(c.sunAzimuthDeg);
  return world;
}

}  // namespace eco
