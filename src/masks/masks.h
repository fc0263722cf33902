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
  // The clamped ends without the division (what the formula gives there, exactly): most
  // pixels of most species sit outside a rule's edges.
  if (x <= e0) return 0.f;
  if (x >= e1) return 1.f;
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

// What the suitability rule reads at the heightmap's pixels, for every species at once: the
// height, slope, sun exposure and moisture (16 bytes a pixel), and per species the maximum of
// its suitability over blocks of 8 x 8 pixels (1/16 byte a pixel). Beyond kRasterBudget this is
// all a bake keeps instead of a float raster per species, so its memory stops growing with the
// species: the sampler fills its class's pixels around each tile when it places it (fill) and
// takes its bounds from the blocks (a 63-species config held 353 MB of rasters and pyramids on
// the 1025^2 sample).
class SuitabilityField {
 public:
  static constexpr int kBlockLevel = 3;  // blocks of 2^3 pixels a side
  // With `rows` = [j0, j1), only those rows of pixels are computed and the rest read as 0: a
  // sharded bake's band and the halo its sampler reads (bake.cpp), when no mask layers are
  // written. Rows are independent, so any thread count gives the same values.
  SuitabilityField(const World& world, int threads, std::optional<std::array<int, 2>> rows = {});

  int species() const { return int(blocks_.size()); }
  // The heightmap's pixels and scale, as a raster of any species would have them.
  RasterView shape() const { return {nullptr, width_, height_, invCellSize_}; }
  int blocksX() const { return blocksX_; }
  int blocksZ() const { return blocksZ_; }
  // Species s's suitability at pixels [i0, i1) x [j0, j1), row-major into out.
  void fill(int s, int i0, int j0, int i1, int j1, float* out) const;
  float pixel(int s, int i, int j) const;
  // The max of species s's suitability over block (bi, bj); all of them, row-major.
  float blockMax(int s, int bi, int bj) const { return blocks_[size_t(s)][size_t(bj) * size_t(blocksX_) + size_t(bi)]; }
  const float* blocks(int s) const { return blocks_[size_t(s)].data(); }
  // Species s's whole raster (the values fill gives), where every species' raster fits in
  // kRasterBudget; else nullptr.
  const float* raster(int s) const { return rasters_.empty() ? nullptr : rasters_[size_t(s)].data(); }
  // Below this, the field keeps each species' raster: a unit then reads it in place instead
  // of filling its window (the sample's 7 species: 29 MB, about 9 % faster to bake).
  static constexpr double kRasterBudget = 64.0 * 1024 * 1024;
  static bool keepsRasters(size_t species, double pixels) { return double(species) * pixels * sizeof(float) <= kRasterBudget; }
  // The bytes a field holds for `species` over `pixels` heightmap pixels (the estimate's model).
  static double bytes(size_t species, double pixels) {
    const double blocks = double(species) * pixels * sizeof(float) / double(1 << (2 * kBlockLevel));
    return pixels * sizeof(Site) + blocks + (keepsRasters(species, pixels) ? double(species) * pixels * sizeof(float) : 0.0);
  }
  // Bilinear at (x, z), and its bound over a rectangle (pyramidSpan's rule), as a raster of
  // the species would give them; one pixel at a time (the sampler's fallback off its window).
  float at(int s, float x, float z) const;
  float maxIn(int s, float x0, float z0, float x1, float z1) const;

 private:
  const World* world_;
  int width_ = 0, height_ = 0, blocksX_ = 0, blocksZ_ = 0;
  float cellSize_ = 1, invCellSize_ = 1;
  int rowFirst_ = 0, rowEnd_ = 0;
  struct Site {
    float height, slopeDeg, sunExposure, moisture;
  };
  static float rule(const SpeciesConfig& sp, const Site& site);
  float extras(int s, int i, int j, float w) const;
  std::vector<Site> sites_;                // rows [rowFirst_, rowEnd_)
  std::vector<std::vector<float>> blocks_;  // per species, blocksX_ x blocksZ_
  std::vector<std::vector<float>> rasters_;  // per species, width_ x height_, or none
  std::vector<uint8_t> painted_;           // per species: has painted maps
  bool extras_ = false;                    // nodata, shapes or painted maps
};

// Every species' suitability raster at the heightmap's samples (mask layers, previews):
// SuitabilityField::fill over the whole world.
struct SuitabilityRasters {
  float cellSize = 1, invCellSize = 1;
  std::vector<Grid> species;  // indexed by species id
};
SuitabilityRasters computeSuitability(const World& world, int threads);

}  // namespace eco
