#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "terrain/terrain.h"

namespace eco {
namespace {

// Continuous pixel coordinate clamped to the grid, split into a cell index and a fraction.
struct Lerp {
  int i0 = 0, i1 = 0;
  float t = 0;
};

Lerp lerpCoordinate(float world, float cellSize, int size) {
  float f = std::clamp(world / cellSize, 0.f, float(size - 1));
  if (std::isnan(f)) f = 0;  // pin a NaN position to the origin instead of indexing garbage
  int i0 = std::min(int(f), std::max(size - 2, 0));
  return {i0, std::min(i0 + 1, size - 1), f - float(i0)};
}

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

}  // namespace

float sampleBilinear(const Grid& grid, float cellSize, float x, float z) {
  Lerp u = lerpCoordinate(x, cellSize, grid.width), v = lerpCoordinate(z, cellSize, grid.height);
  float top = grid.at(u.i0, v.i0) + (grid.at(u.i1, v.i0) - grid.at(u.i0, v.i0)) * u.t;
  float bottom = grid.at(u.i0, v.i1) + (grid.at(u.i1, v.i1) - grid.at(u.i0, v.i1)) * u.t;
  return top + (bottom - top) * v.t;
}

float Heightmap::heightAt(float x, float z) const { return sampleBilinear(metres, cellSize, x, z); }

Vec2 Heightmap::gradientAt(float x, float z) const {
  Lerp u = lerpCoordinate(x, cellSize, metres.width), v = lerpCoordinate(z, cellSize, metres.height);
  Vec2 corner[2][2];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      int i = a ? u.i1 : u.i0, j = b ? v.i1 : v.i0;
      corner[b][a] = {pixelDerivative(metres, i, j, true, cellSize), pixelDerivative(metres, i, j, false, cellSize)};
    }
  auto mix = [](Vec2 p, Vec2 q, float t) { return Vec2{p.x + (q.x - p.x) * t, p.z + (q.z - p.z) * t}; };
  return mix(mix(corner[0][0], corner[0][1], u.t), mix(corner[1][0], corner[1][1], u.t), v.t);
}

Heightmap makeHeightmap(const Image& image, const HeightMapping& mapping) {
  if (!(mapping.cellSize > 0) || !std::isfinite(mapping.cellSize))
    throw InputError("heightmap cellSize must be a positive finite number, got " + std::to_string(mapping.cellSize));
  Heightmap terrain{image.pixels, mapping.cellSize};
  for (float& h : terrain.metres.values) h = h * mapping.heightScale + mapping.heightOffset;
  return terrain;
}

}  // namespace eco
