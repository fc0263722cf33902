#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "core/bilinear.h"
#include "core/error.h"
#include "terrain/terrain.h"

namespace eco {
namespace {

inline Lerp lerpCoordinate(float world, float cellSize, int size) { return lerpPixel(world / cellSize, size); }

// Per-pixel derivative along one axis: central difference, one-sided at the border.
float pixelDerivative(const Grid& g, int i, int j, bool alongX, float cellSize) {
  int size = alongX ? g.width : g.height;
  int k = alongX ? i : j;
  if (size < 2) return 0;
  int lo = std::max(k - 1, 0), hi = std::min(k + 1, size - 1);
  float a = alongX ? g.at(lo, j) : g.at(i, lo);
  float b = alongX ? g.at(hi, j) : g.at(i, hi);
  return (b - a) / (float(hi - lo) * cellSize);
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

Vec2 borderGradient(const Grid& g, float cellSize, Footprint f) {
  Vec2 corner[2][2];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      int i = a ? f.u.i1 : f.u.i0, j = b ? f.v.i1 : f.v.i0;
      corner[b][a] = {pixelDerivative(g, i, j, true, cellSize), pixelDerivative(g, i, j, false, cellSize)};
    }
  return mix(mix(corner[0][0], corner[0][1], f.u.t), mix(corner[1][0], corner[1][1], f.u.t), f.v.t);
}

inline Vec2 gradient(const Grid& g, float cellSize, Footprint f) {
  const Lerp u = f.u, v = f.v;
  if (u.i0 < 1 || u.i1 + 1 >= g.width || v.i0 < 1 || v.i1 + 1 >= g.height) return borderGradient(g, cellSize, f);
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
  return gradient(metres, cellSize, footprint(metres, cellSize, x, z));
}

HeightDerivatives heightDerivatives(const Heightmap& terrain) {
  const Grid& g = terrain.metres;
  HeightDerivatives d;
  d.terrain = &terrain;
  d.perPixel.resize(size_t(g.width) * size_t(g.height));
  for (int j = 0; j < g.height; ++j)
    for (int i = 0; i < g.width; ++i)
      d.perPixel[size_t(j) * size_t(g.width) + size_t(i)] = {pixelDerivative(g, i, j, true, terrain.cellSize),
                                                             pixelDerivative(g, i, j, false, terrain.cellSize)};
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
  return {mix(top, bottom, f.v.t), bilinear(g, f)};
}

Heightmap makeHeightmap(Image image, const HeightMapping& mapping) {
  if (!(mapping.cellSize > 0) || !std::isfinite(mapping.cellSize))
    throw InputError("heightmap cellSize must be a positive finite number, got " + std::to_string(mapping.cellSize));
  Heightmap terrain{std::move(image.pixels), mapping.cellSize};
  for (float& h : terrain.metres.values) h = h * mapping.heightScale + mapping.heightOffset;
  return terrain;
}

}  // namespace eco
