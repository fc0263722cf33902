#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <string>
#include <utility>

#include "core/bilinear.h"
#include "core/error.h"
#include "terrain/terrain.h"

namespace eco {
namespace {

inline Lerp lerpCoordinate(float world, float cellSize, int size) { return lerpPixel(world / cellSize, size); }

// Whether pixel m along the axis through (i, j) is nodata.
inline bool missing(const Grid& g, const uint8_t* noData, int i, int j, bool alongX, int m) {
  return noData[alongX ? size_t(j) * size_t(g.width) + size_t(m) : size_t(m) * size_t(g.width) + size_t(i)] != 0;
}

// Per-pixel derivative along one axis: central difference, one-sided at the border and next
// to a nodata pixel (noData may be null: none), 0 at a nodata pixel or between two.
float pixelDerivative(const Grid& g, int i, int j, bool alongX, float cellSize, const uint8_t* noData = nullptr) {
  int size = alongX ? g.width : g.height;
  int k = alongX ? i : j;
  if (size < 2) return 0;
  int lo = std::max(k - 1, 0), hi = std::min(k + 1, size - 1);
  if (noData) {
    if (missing(g, noData, i, j, alongX, k)) return 0;
    if (missing(g, noData, i, j, alongX, lo)) lo = k;
    if (missing(g, noData, i, j, alongX, hi)) hi = k;
    if (lo == hi) return 0;
  }
  float a = alongX ? g.at(lo, j) : g.at(i, lo);
  float b = alongX ? g.at(hi, j) : g.at(i, hi);
  return (b - a) / (float(hi - lo) * cellSize);
}

// The slope's steepness along one axis (pixelSlopeTangent): the mean magnitude of the two
// one-sided differences. Where the heights run one way along the axis it equals the central
// difference's magnitude and is computed as that, bit for bit; only where they fold (a valley
// floor or ridge crest along the axis) does it differ, reading the walls instead of their
// cancellation. One-sided at the border, like pixelDerivative.
float pixelSteepness(const Grid& g, int i, int j, bool alongX, float cellSize, const uint8_t* noData) {
  const int size = alongX ? g.width : g.height;
  const int k = alongX ? i : j;
  const float central = std::fabs(pixelDerivative(g, i, j, alongX, cellSize, noData));
  if (k == 0 || k + 1 >= size) return central;
  if (noData && (missing(g, noData, i, j, alongX, k - 1) || missing(g, noData, i, j, alongX, k) ||
                 missing(g, noData, i, j, alongX, k + 1)))
    return central;
  const float h = g.at(i, j);
  const float down = h - (alongX ? g.at(i - 1, j) : g.at(i, j - 1)), up = (alongX ? g.at(i + 1, j) : g.at(i, j + 1)) - h;
  if (!(down * up < 0.f)) return central;
  return (std::fabs(down) + std::fabs(up)) / (2.f * cellSize);
}

// Both axes' interpolation coordinates, shared by the height and the gradient.
struct Footprint {
  Lerp u, v;
};

Footprint footprint(const Grid& g, float cellSize, float x, float z) {
  return {lerpCoordinate(x, cellSize, g.width), lerpCoordinate(z, cellSize, g.height)};
}

float bilinear(const Grid& g, Footprint f) { return eco::bilinear(g.values.data(), g.width, f.u, f.v); }

Vec2 mix(Vec2 p, Vec2 q, float t) { return {p.x + (q.x - p.x) * t, p.z + (q.z - p.z) * t}; }

// Bilinear mix of four corner values, (i0, j0) (i1, j0) (i0, j1) (i1, j1): eco::bilinear's
// expressions, shared by slopeTangentAt and HeightDerivatives::at so their bits agree.
float mixCorners(float c00, float c01, float c10, float c11, Footprint f) {
  const float top = c00 + (c01 - c00) * f.u.t, bottom = c10 + (c11 - c10) * f.u.t;
  return top + (bottom - top) * f.v.t;
}

Vec2 borderGradient(const Grid& g, float cellSize, Footprint f, const uint8_t* noData) {
  Vec2 corner[2][2];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      int i = a ? f.u.i1 : f.u.i0, j = b ? f.v.i1 : f.v.i0;
      corner[b][a] = {pixelDerivative(g, i, j, true, cellSize, noData), pixelDerivative(g, i, j, false, cellSize, noData)};
    }
  return mix(mix(corner[0][0], corner[0][1], f.u.t), mix(corner[1][0], corner[1][1], f.u.t), f.v.t);
}

inline Vec2 gradient(const Grid& g, float cellSize, Footprint f, const uint8_t* noData) {
  const Lerp u = f.u, v = f.v;
  if (noData || u.i0 < 1 || u.i1 + 1 >= g.width || v.i0 < 1 || v.i1 + 1 >= g.height)
    return borderGradient(g, cellSize, f, noData);
  // Inside, every corner's differences are central: pixelDerivative's expressions with
  // hi - lo = 2, written out. p points at corner (i0, j0), w steps one row.
  const ptrdiff_t w = g.width;
  const float* p = &g.values[size_t(v.i0) * size_t(w) + size_t(u.i0)];
  const float step = 2.f * cellSize;
  // The eight quotients as two 4-lane divisions: each lane is the same IEEE division.
  using f4 = float __attribute__((vector_size(16)));
  const f4 steps = {step, step, step, step};
  const f4 dx = f4{p[1] - p[-1], p[2] - p[0], p[w + 1] - p[w - 1], p[w + 2] - p[w]} / steps;
  const f4 dz = f4{p[w] - p[-w], p[w + 1] - p[1 - w], p[2 * w] - p[0], p[2 * w + 1] - p[1]} / steps;
  const Vec2 c00{dx[0], dz[0]}, c01{dx[1], dz[1]}, c10{dx[2], dz[2]}, c11{dx[3], dz[3]};
  return mix(mix(c00, c01, u.t), mix(c10, c11, u.t), v.t);
}

}  // namespace

float sampleBilinear(const Grid& grid, float cellSize, float x, float z) {
  return bilinear(grid, footprint(grid, cellSize, x, z));
}

float Heightmap::heightAt(float x, float z) const { return sampleBilinear(metres, cellSize, x, z); }

Vec2 Heightmap::gradientAt(float x, float z) const {
  return gradient(metres, cellSize, footprint(metres, cellSize, x, z), noData.empty() ? nullptr : noData.data());
}

bool Heightmap::noDataAt(float x, float z) const {
  if (noData.empty()) return false;
  const Footprint f = footprint(metres, cellSize, x, z);
  const size_t w = size_t(metres.width);
  // Corners of zero weight (a position on a pixel row or column) do not count.
  const size_t r0 = size_t(f.v.i0) * w, r1 = size_t(f.v.i1) * w;
  const bool right = f.u.t > 0.f, below = f.v.t > 0.f;
  return noData[r0 + size_t(f.u.i0)] || (right && noData[r0 + size_t(f.u.i1)]) ||
         (below && noData[r1 + size_t(f.u.i0)]) || (right && below && noData[r1 + size_t(f.u.i1)]);
}

float pixelSlopeTangent(const Grid& g, int i, int j, float cellSize, const uint8_t* noData) {
  const float sx = pixelSteepness(g, i, j, true, cellSize, noData), sz = pixelSteepness(g, i, j, false, cellSize, noData);
  return std::sqrt(sx * sx + sz * sz);
}

float slopeDegrees(float tangent) { return std::atan(tangent) * float(180.0 / std::numbers::pi); }

float Heightmap::slopeTangentAt(float x, float z) const {
  const Footprint f = footprint(metres, cellSize, x, z);
  const uint8_t* nd = noData.empty() ? nullptr : noData.data();
  auto at = [&](int i, int j) { return pixelSlopeTangent(metres, i, j, cellSize, nd); };
  return mixCorners(at(f.u.i0, f.v.i0), at(f.u.i1, f.v.i0), at(f.u.i0, f.v.i1), at(f.u.i1, f.v.i1), f);
}

HeightDerivatives heightDerivatives(const Heightmap& terrain) {
  const Grid& g = terrain.metres;
  HeightDerivatives d;
  d.terrain = &terrain;
  d.perPixel.resize(size_t(g.width) * size_t(g.height));
  d.slopeTangent.resize(d.perPixel.size());
  const uint8_t* nd = terrain.noData.empty() ? nullptr : terrain.noData.data();
  for (int j = 0; j < g.height; ++j)
    for (int i = 0; i < g.width; ++i) {
      const size_t k = size_t(j) * size_t(g.width) + size_t(i);
      d.perPixel[k] = {pixelDerivative(g, i, j, true, terrain.cellSize, nd),
                       pixelDerivative(g, i, j, false, terrain.cellSize, nd)};
      d.slopeTangent[k] = pixelSlopeTangent(g, i, j, terrain.cellSize, nd);
    }
  return d;
}

// gradient()'s interpolation, of the stored corners: pixelDerivative is the expression both
// its paths compute (the interior one written out), so the bits are the same.
HeightGradient HeightDerivatives::at(float x, float z) const {
  const Grid& g = terrain->metres;
  const Footprint f = footprint(g, terrain->cellSize, x, z);
  const Vec2* row0 = perPixel.data() + size_t(f.v.i0) * size_t(g.width);
  const Vec2* row1 = perPixel.data() + size_t(f.v.i1) * size_t(g.width);
  const Vec2 top = mix(row0[f.u.i0], row0[f.u.i1], f.u.t), bottom = mix(row1[f.u.i0], row1[f.u.i1], f.u.t);
  const float* t0 = slopeTangent.data() + size_t(f.v.i0) * size_t(g.width);
  const float* t1 = slopeTangent.data() + size_t(f.v.i1) * size_t(g.width);
  return {mix(top, bottom, f.v.t), bilinear(g, f), mixCorners(t0[f.u.i0], t0[f.u.i1], t1[f.u.i0], t1[f.u.i1], f)};
}

Heightmap makeHeightmap(Image image, const HeightMapping& mapping) {
  if (!(mapping.cellSize > 0) || !std::isfinite(mapping.cellSize))
    throw InputError("heightmap cellSize must be a positive finite number, got " + std::to_string(mapping.cellSize));
  Heightmap terrain{std::move(image.pixels), mapping.cellSize, std::move(image.noData)};
  for (float& h : terrain.metres.values) h = h * mapping.heightScale + mapping.heightOffset;
  return terrain;
}

}  // namespace eco
