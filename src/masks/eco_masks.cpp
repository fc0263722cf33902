#include "masks/eco_masks.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "masks/noise.h"

namespace eco {

float smoothstep(float e0, float e1, float x) {
  if (e1 <= e0) return x >= e0 ? 1.f : 0.f;
  float t = std::clamp((x - e0) / (e1 - e0), 0.f, 1.f);
  return t * t * (3.f - 2.f * t);
}

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

float elevationWeight(const ElevationBand& b, float height) {
  return smoothstep(b.min, b.optLow, height) * (1.f - smoothstep(b.optHigh, b.max, height));
}

float slopeWeight(const SpeciesConfig& sp, float slopeDeg) {
  return 1.f - smoothstep(sp.maxSlopeDeg - sp.slopeFalloffDeg, sp.maxSlopeDeg, slopeDeg);
}

float sunWeight(const SpeciesConfig& sp, float sunExposure) {
  const float p = sp.sunPreference;
  return std::clamp((1.f + p * sunExposure) / (1.f + std::fabs(p)), 0.f, 1.f);
}

float moistureWeight(const SpeciesConfig& sp, float moisture) {
  return 1.f - smoothstep(0.f, sp.moistureTolerance, std::fabs(moisture - sp.moistureOptimum));
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
