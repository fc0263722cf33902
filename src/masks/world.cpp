#include "masks/eco_masks.h"

#include <utility>

namespace eco {

World loadWorld(const std::string& configPath) {
  // The same reads and checks as `validate`; the images they decoded are the ones used.
  BiomeInputs inputs;
  BiomeConfig config = loadBiomeConfig(configPath, &inputs);
  return makeWorld(std::move(config), std::move(inputs));
}

World makeWorld(BiomeConfig config, BiomeInputs&& inputs) {
  World world;
  world.config = std::move(config);
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
