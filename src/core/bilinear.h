#pragma once
// Bilinear interpolation of a row-major float raster, positions clamped to its border. Inline:
// the terrain lookups and the sampler's density lookup (the bake's hottest) share these bits.
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace eco {

// Continuous pixel coordinate clamped to the raster, split into a cell index and a fraction.
struct Lerp {
  int i0 = 0, i1 = 0;
  float t = 0;
};

inline Lerp lerpPixel(float pixel, int size) {
  float f = std::clamp(pixel, 0.f, float(size - 1));
  if (std::isnan(f)) f = 0;  // pin a NaN position to the origin instead of indexing garbage
  int i0 = std::min(int(f), std::max(size - 2, 0));
  return {i0, std::min(i0 + 1, size - 1), f - float(i0)};
}

inline float bilinear(const float* values, int width, Lerp u, Lerp v) {
  const float* row0 = values + size_t(v.i0) * size_t(width);
  const float* row1 = values + size_t(v.i1) * size_t(width);
  float top = row0[u.i0] + (row0[u.i1] - row0[u.i0]) * u.t;
  float bottom = row1[u.i0] + (row1[u.i1] - row1[u.i0]) * u.t;
  return top + (bottom - top) * v.t;
}

// A raster whose pixel (i, j) sits at world (i, j) / invCellSize.
struct RasterView {
  const float* values = nullptr;
  int width = 0, height = 0;
  float invCellSize = 1.f;
};

inline float bilinearScaled(const RasterView& r, float x, float z) {
  return bilinear(r.values, r.width, lerpPixel(x * r.invCellSize, r.width), lerpPixel(z * r.invCellSize, r.height));
}

}  // namespace eco
