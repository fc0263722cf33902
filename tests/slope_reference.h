#pragma once
// The ecological slope as README's "Eco-masks" section defines it, written out again in double
// precision apart from the library's code, for tests that check the library against it: per
// pixel and axis the mean magnitude of the two one-sided differences (one side at the border),
// tangent = sqrt(s_x^2 + s_z^2), bilinear between pixels, slope = atan(tangent).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "terrain/terrain.h"

namespace eco::test {

inline double referenceSlopeTangentAtPixel(const Grid& g, double cellSize, int i, int j) {
  auto h = [&](int a, int b) { return double(g.values[size_t(b) * size_t(g.width) + size_t(a)]); };
  // Sum of the one-sided magnitudes over the number of sides.
  auto axis = [](double sum, int sides) { return sides ? sum / sides : 0.0; };
  const double sx = axis((i > 0 ? std::fabs(h(i, j) - h(i - 1, j)) : 0.0) + (i + 1 < g.width ? std::fabs(h(i + 1, j) - h(i, j)) : 0.0),
                         (i > 0) + (i + 1 < g.width));
  const double sz = axis((j > 0 ? std::fabs(h(i, j) - h(i, j - 1)) : 0.0) + (j + 1 < g.height ? std::fabs(h(i, j + 1) - h(i, j)) : 0.0),
                         (j > 0) + (j + 1 < g.height));
  return std::hypot(sx, sz) / cellSize;
}

inline double referenceSlopeDeg(const Heightmap& t, double x, double z) {
  const Grid& g = t.metres;
  const double fx = std::clamp(x / double(t.cellSize), 0.0, double(g.width - 1));
  const double fz = std::clamp(z / double(t.cellSize), 0.0, double(g.height - 1));
  const int i0 = std::min(int(fx), std::max(g.width - 2, 0)), i1 = std::min(i0 + 1, g.width - 1);
  const int j0 = std::min(int(fz), std::max(g.height - 2, 0)), j1 = std::min(j0 + 1, g.height - 1);
  const double u = fx - i0, v = fz - j0;
  auto tan = [&](int i, int j) { return referenceSlopeTangentAtPixel(g, double(t.cellSize), i, j); };
  const double top = tan(i0, j0) * (1 - u) + tan(i1, j0) * u, bottom = tan(i0, j1) * (1 - u) + tan(i1, j1) * u;
  return std::atan(top * (1 - v) + bottom * v) * 180.0 / std::numbers::pi;
}

// The slope as the central-difference gradient gives it (the normal's angle from up), for
// comparisons with the one above.
inline double gradientSlopeDeg(const Heightmap& t, float x, float z) {
  const Vec2 g = t.gradientAt(x, z);
  return std::atan(std::hypot(double(g.x), double(g.z))) * 180.0 / std::numbers::pi;
}

}  // namespace eco::test
