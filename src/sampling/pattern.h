#pragma once
// Natural point patterns inside the sampler (docs/ecology.md): the survival factor of a
// candidate from its class's clumps, gaps and canopy response. Internal to sampling.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sampling/sampling.h"

namespace eco::sampling {

// The crowns of the classes that shade one class, around one tile: a bucket grid of
// (x, z, radius) so a query reads the few crowns near it. Rebuilt per unit.
struct CanopyGrid {
  struct Crown {
    float x, z, r2;
  };
  float x0 = 0, z0 = 0, cell = 1, invCell = 1;
  int nx = 0, nz = 0;
  std::vector<uint32_t> start;  // nx * nz + 1 offsets into crowns
  std::vector<Crown> crowns;
  std::vector<uint32_t> cellOf;  // scratch
  // Crowns reaching [bx0, bx1) x [bz0, bz1); maxCrown bounds every radius.
  void build(const std::vector<Crown>& all, float bx0, float bz0, float bx1, float bz1, float maxCrown);
  bool shaded(float x, float z) const;
};

// A patch field's pixels over a rectangle, as bits (insidePatch for each pixel, cached per
// unit: one load per candidate instead of the discs of 9 cells).
struct PatchRaster {
  bool field = false;  // false: the class has no such field
  float pixel = 1, invPixel = 1;
  int64_t i0 = 0, j0 = 0;  // global pixel index of bit (0, 0)
  int nx = 0, nz = 0, words = 0;
  std::vector<uint64_t> bits;
  // Covers every pixel meeting [x0, x1] x [z0, z1]; built on the first at() (most units of
  // a sparse class never ask).
  void prepare(const PatchField& f, uint64_t seed, float x0, float z0, float x1, float z1) {
    field = f.active();
    pending = {f, seed, x0, z0, x1, z1};
    built = false;
  }
  bool at(float x, float z) {
    if (!built) build();
    return bitAt(x, z);
  }

 private:
  struct Pending {
    PatchField f;
    uint64_t seed;
    float x0, z0, x1, z1;
  } pending{};
  bool built = false;
  void build();
  bool bitAt(float x, float z) const {
    const int64_t i = int64_t(std::floor(x * invPixel)) - i0, j = int64_t(std::floor(z * invPixel)) - j0;
    return (bits[size_t(j) * size_t(words) + (size_t(i) >> 6)] >> (size_t(i) & 63)) & 1u;
  }
};

// Survival factor of a candidate at (x, z) from its patches: min(1, keep / patternMean), at
// most kClumpSurvival in a clump and `between` times that outside, 0 in a gap. Inline: the
// pool calls it for most points of a patterned class.
inline float patchFactor(const SampleClass& k, PatchRaster& clumps, PatchRaster& gaps, float x, float z) {
  if (gaps.field && gaps.at(x, z)) return 0.f;
  float f = std::min(1.f, k.keep / k.patternMean);
  if (clumps.field) {
    f = std::min(f, kClumpSurvival);
    if (!clumps.at(x, z)) f *= k.between;
  }
  return f;
}
// patchFactor times the canopy's (`canopy` null when the class does not respond to it).
inline float patternFactor(const SampleClass& k, PatchRaster& clumps, PatchRaster& gaps, const CanopyGrid* canopy,
                           float x, float z) {
  float f = patchFactor(k, clumps, gaps, x, z);
  if (canopy && f > 0.f) f *= canopy->shaded(x, z) ? k.underCrown : k.inOpen;
  return f;
}
// Its largest value anywhere (a candidate whose survival draw is above it is out at once).
inline float patternBound(const SampleClass& k) {
  float f = std::min(1.f, k.keep / k.patternMean);
  if (k.clumps.active()) f = std::min(f, kClumpSurvival);
  if (k.respondsToCanopy()) f *= std::max(k.underCrown, k.inOpen);
  return f;
}

// True when the class has any pattern beyond the packed set.
inline bool hasPattern(const SampleClass& k) {
  return k.keep < 1.f || k.clumps.active() || k.gaps.active() || k.respondsToCanopy();
}

}  // namespace eco::sampling
