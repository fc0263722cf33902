#include "masks/masks.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "core/noise.h"

namespace eco {

float moistureAt(const World& world, float x, float z) {
  const MoistureConfig& m = world.config.moisture;
  float noise = fbmNoise01(hashCombine(world.config.seed, 0x6d6f6973u), x, z, m.noiseWavelength, m.noiseOctaves);
  if (!world.hasRiver) return noise;
  float river = std::exp(-world.river.distanceAt(x, z) / m.riverFalloff);
  return m.riverWeight * river + (1.f - m.riverWeight) * noise;
}

Environment environmentAt(const World& world, float x, float z) {
  SurfaceSample s = surfaceAt(world.terrain, x, z, world.sunDirXZ);
  Environment env;
  env.height = world.terrain.heightAt(x, z);
  env.slopeDeg = s.slopeDeg;
  env.sunExposure = s.sunExposure;
  env.normal = s.normal;
  env.moisture = moistureAt(world, x, z);
  return env;
}

MaskWeights speciesWeights(const SpeciesConfig& sp, const Environment& env) {
  MaskWeights w;
  w.elevation = elevationWeight(sp.elevation, env.height);
  w.slope = slopeWeight(sp, env.slopeDeg);
  w.sun = sunWeight(sp, env.sunExposure);
  w.moisture = moistureWeight(sp, env.moisture);
  w.suitability = sp.density * w.elevation * w.slope * w.sun * w.moisture;
  return w;
}

}  // namespace eco
