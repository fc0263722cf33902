#pragma once
#include <array>
#include <optional>
// Eco-masks: per-species suitability in [0, 1] from elevation, slope, sun exposure and
// moisture. Combination rule (also in README "Eco-masks"):
//   W_elev  = smoothstep(H_min, H_opt_low, H) * (1 - smoothstep(H_opt_high, H_max, H))
//   W_slope = 1 - smoothstep(max_slope - falloff, max_slope, slope)
//   W_sun   = (1 + p * e) / (1 + |p|)    p = sun_preference in [-1, 1], e = sun exposure
//   W_moist = 1 - smoothstep(0, tolerance, |m - optimum|)
//   suitability = density * W_elev * W_slope * W_sun * W_moist
// Moisture m = w * exp(-river_distance / falloff) + (1 - w) * fbm_noise(seed), in [0, 1].
// slope = SurfaceSample::slopeDeg (terrain.h pixelSlopeTangent), the bake's exact check's slope.
#include <algorithm>
#include <cmath>
#include <vector>

#include "config/config.h"
#include "core/bilinear.h"
#include "core/types.h"
#include "terrain/terrain.h"

namespace eco {

struct Environment {
  float height = 0;
  float slopeDeg = 0;
  float sunExposure = 0;
  float moisture = 0;
  Vec3 normal{0, 1, 0};
};

struct MaskWeights {
  float elevation = 0, slope = 0, sun = 0, moisture = 0;
  float suitability = 0;
};

// Hermite smoothstep; a degenerate edge (e0 == e1) is a step at e0.
inline float smoothstep(float e0, float e1, float x) {
  if (e1 <= e0) return x >= e0 ? 1.f : 0.f;
  const float t = std::clamp((x - e0) / (e1 - e0), 0.f, 1.f);
  return t * t * (3.f - 2.f * t);
}

float moistureAt(const World& world, float x, float z);
Environment environmentAt(const World& world, float x, float z);
MaskWeights speciesWeights(const SpeciesConfig& species, const Environment& env);

// The four weights of the rule above, one by one (speciesWeights multiplies them in order).
// Inline: the suitability rasters evaluate them per pixel and species.
inline float elevationWeight(const ElevationBand& b, float height) {
  return smoothstep(b.min, b.optLow, height) * (1.f - smoothstep(b.optHigh, b.max, height));
}
inline float slopeWeight(const SpeciesConfig& sp, float slopeDeg) {
  return 1.f - smoothstep(sp.maxSlopeDeg - sp.slopeFalloffDeg, sp.maxSlopeDeg, slopeDeg);
}
inline float sunWeight(const SpeciesConfig& sp, float sunExposure) {
  const float p = sp.sunPreference;
  return std::clamp((1.f + p * sunExposure) / (1.f + std::fabs(p)), 0.f, 1.f);
}
inline float moistureWeight(const SpeciesConfig& sp, float moisture) {
  return 1.f - smoothstep(0.f, sp.moistureTolerance, std::fabs(moisture - sp.moistureOptimum));
}

// Suitability of every species sampled at the heightmap's pixels, for fast bilinear lookup
// during sampling. Same resolution and extent as the heightmap.
struct SuitabilityRasters {
  float cellSize = 1, invCellSize = 1;
  std::vector<Grid> species;  // indexed by species id
  // Per species, level l holds the max of 2^l x 2^l pixels of species[s] (level 0 not stored).
  std::vector<std::vector<Grid>> maxLevels;
  // A multiply by the inverse cell size instead of two divisions; maxIn finds pixels the same
  // way, so its bound holds exactly.
  float at(int s, float x, float z) const { return bilinearScaled(view(s), x, z); }
  RasterView view(int s) const {
    const Grid& g = species[size_t(s)];
    return {g.values.data(), g.width, g.height, invCellSize};
  }
  // Upper bound of at() over the rectangle [x0, x1] x [z0, z1].
  float maxIn(int species, float x0, float z0, float x1, float z1) const;
};

// Every species' suitability raster at the heightmap's samples. With `rows` = [j0, j1), only
// those rows of samples are computed and the rest are 0: a sharded bake's band and the halo its
// sampler reads (bake.cpp), when no mask layers are written.
SuitabilityRasters computeSuitability(const World& world, int threads, std::optional<std::array<int, 2>> rows = {});

}  // namespace eco
