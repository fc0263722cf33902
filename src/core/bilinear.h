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

[[gnu::always_inline]] inline Lerp lerpPixel(float pixel, int size) {
  float f = std::clamp(pixel, 0.f, float(size - 1));
  if (std::isnan(f)) f = 0;  // pin a NaN position to the origin instead of indexing garbage
  int i0 = std::min(int(f), std::max(size - 2, 0));
  return {i0, std::min(i0 + 1, size - 1), f - float(i0)};
}

[[gnu::always_inline]] inline float bilinear(const float* values, int width, Lerp u, Lerp v) {
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

// An upper bound of a raster's bilinear values over a rectangle from a max pyramid (level l
// holds the max of aligned blocks of 2^l x 2^l pixels, clipped to the raster): the entries of
// the level where the pixels the rectangle's bilinear support reads span at most 2 x 2. The
// sampler's density bounds; any source of the same entries (a whole pyramid, a window of
// pixels, coarse blocks) gives the same bound, so where the pixels are kept does not change
// what the sampler does.
struct PyramidSpan {
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;  // the pixels the bilinear support reads, inclusive
  int level = 0;
  int x0 = 0, x1 = 0, z0 = 0, z1 = 0;  // entries at `level`, inclusive
};

// The top level: halvings (rounding up) until one pixel.
inline int pyramidLevels(int width, int height) {
  int levels = 0;
  for (; width > 1 || height > 1; ++levels) width = (width + 1) / 2, height = (height + 1) / 2;
  return levels;
}

inline PyramidSpan pyramidSpan(float x0, float z0, float x1, float z1, const RasterView& r) {
  // Pixel range whose bilinear support covers [a, b] (lerpPixel reads i0 and i0 + 1).
  auto first = [&](float v, int size) { return std::min(int(std::clamp(v * r.invCellSize, 0.f, float(size - 1))), size - 2); };
  const int i0 = first(x0, r.width), i1 = first(x1, r.width) + 1;
  const int j0 = first(z0, r.height), j1 = first(z1, r.height) + 1;
  int level = 0;
  while ((i1 >> level) - (i0 >> level) > 1 || (j1 >> level) - (j0 >> level) > 1) ++level;
  level = std::min(level, pyramidLevels(r.width, r.height));
  const int w = ((r.width - 1) >> level) + 1, h = ((r.height - 1) >> level) + 1;  // entries at the level
  return {i0, i1, j0, j1, level, i0 >> level, std::min(i1 >> level, w - 1), j0 >> level, std::min(j1 >> level, h - 1)};
}

// The bound over `span`: entry (I, J) at level l is the max of pixel(i, j) over its block for
// l < blockLevel, else of block(I', J') over the blocks of 2^blockLevel pixels it holds
// (`blocksX` x `blocksZ` of them).
template <typename Pixel, typename Block>
float pyramidMax(const PyramidSpan& s, int width, int height, int blockLevel, int blocksX, int blocksZ, Pixel&& pixel,
                 Block&& block) {
  float v = 0.f;
  if (s.level < blockLevel) {
    const int x0 = s.x0 << s.level, z0 = s.z0 << s.level;
    const int x1 = std::min((s.x1 + 1) << s.level, width), z1 = std::min((s.z1 + 1) << s.level, height);
    for (int j = z0; j < z1; ++j)
      for (int i = x0; i < x1; ++i) v = std::max(v, pixel(i, j));
  } else {
    const int k = s.level - blockLevel;
    const int x0 = s.x0 << k, z0 = s.z0 << k;
    const int x1 = std::min((s.x1 + 1) << k, blocksX), z1 = std::min((s.z1 + 1) << k, blocksZ);
    for (int j = z0; j < z1; ++j)
      for (int i = x0; i < x1; ++i) v = std::max(v, block(i, j));
  }
  return v;
}

}  // namespace eco
