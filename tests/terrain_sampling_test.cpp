// The fast paths of heightAt / gradientAt / slopeTangentAt and HeightDerivatives against
// the straightforward per-corner formulation they replaced: the bake's bytes depend on every
// bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "terrain/terrain.h"

using namespace eco;

namespace {

struct Lerp {
  int i0, i1;
  float t;
};

Lerp referenceLerp(float world, float cellSize, int size) {
  float f = std::clamp(world / cellSize, 0.f, float(size - 1));
  if (std::isnan(f)) f = 0;
  int i0 = std::min(int(f), std::max(size - 2, 0));
  return {i0, std::min(i0 + 1, size - 1), f - float(i0)};
}

float referenceDerivative(const Grid& g, int i, int j, bool alongX, float cellSize) {
  int size = alongX ? g.width : g.height;
  int k = alongX ? i : j;
  if (size < 2) return 0;
  int lo = std::max(k - 1, 0), hi = std::min(k + 1, size - 1);
  float a = alongX ? g.at(lo, j) : g.at(i, lo);
  float b = alongX ? g.at(hi, j) : g.at(i, hi);
  return (b - a) / (float(hi - lo) * cellSize);
}

float referenceHeight(const Heightmap& t, float x, float z) {
  const Grid& g = t.metres;
  Lerp u = referenceLerp(x, t.cellSize, g.width), v = referenceLerp(z, t.cellSize, g.height);
  float top = g.at(u.i0, v.i0) + (g.at(u.i1, v.i0) - g.at(u.i0, v.i0)) * u.t;
  float bottom = g.at(u.i0, v.i1) + (g.at(u.i1, v.i1) - g.at(u.i0, v.i1)) * u.t;
  return top + (bottom - top) * v.t;
}

Vec2 referenceGradient(const Heightmap& t, float x, float z) {
  const Grid& g = t.metres;
  Lerp u = referenceLerp(x, t.cellSize, g.width), v = referenceLerp(z, t.cellSize, g.height);
  Vec2 corner[2][2];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      int i = a ? u.i1 : u.i0, j = b ? v.i1 : v.i0;
      corner[b][a] = {referenceDerivative(g, i, j, true, t.cellSize), referenceDerivative(g, i, j, false, t.cellSize)};
    }
  auto mix = [](Vec2 p, Vec2 q, float s) { return Vec2{p.x + (q.x - p.x) * s, p.z + (q.z - p.z) * s}; };
  return mix(mix(corner[0][0], corner[0][1], u.t), mix(corner[1][0], corner[1][1], u.t), v.t);
}

// The slope tangent per corner, interpolated with the expressions of referenceHeight.
float referenceSteepness(const Grid& g, int i, int j, bool alongX, float cellSize) {
  int size = alongX ? g.width : g.height;
  int k = alongX ? i : j;
  float central = std::fabs(referenceDerivative(g, i, j, alongX, cellSize));
  if (k == 0 || k + 1 >= size) return central;
  float h = g.at(i, j);
  float down = h - (alongX ? g.at(i - 1, j) : g.at(i, j - 1)), up = (alongX ? g.at(i + 1, j) : g.at(i, j + 1)) - h;
  return down * up < 0.f ? (std::fabs(down) + std::fabs(up)) / (2.f * cellSize) : central;
}

float referenceSlopeTangent(const Heightmap& t, float x, float z) {
  const Grid& g = t.metres;
  Lerp u = referenceLerp(x, t.cellSize, g.width), v = referenceLerp(z, t.cellSize, g.height);
  auto at = [&](int i, int j) {
    float sx = referenceSteepness(g, i, j, true, t.cellSize), sz = referenceSteepness(g, i, j, false, t.cellSize);
    return std::sqrt(sx * sx + sz * sz);
  };
  float top = at(u.i0, v.i0) + (at(u.i1, v.i0) - at(u.i0, v.i0)) * u.t;
  float bottom = at(u.i0, v.i1) + (at(u.i1, v.i1) - at(u.i0, v.i1)) * u.t;
  return top + (bottom - top) * v.t;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST(TerrainSampling, FastPathsMatchTheReferenceBitForBit) {
  std::mt19937 rng(12345);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {2, 2}, {3, 3}, {4, 9}, {33, 17}, {257, 129}}) {
    for (float cell : {1.f, 0.37f, 6.f}) {
      Heightmap t{Grid(w, h), cell};
      std::uniform_real_distribution<float> height(-50.f, 3000.f);
      for (float& v : t.metres.values) v = height(rng);
      t.metres.values[0] = -0.f;  // signed zeros must survive the interpolation as before
      const float ex = float(w) * cell, ez = float(h) * cell;
      std::uniform_real_distribution<float> x(-0.1f * ex, 1.1f * ex), z(-0.1f * ez, 1.1f * ez);
      std::vector<std::pair<float, float>> points;
      for (int i = 0; i < 20000; ++i) points.push_back({x(rng), z(rng)});
      for (int i = 0; i <= 2 * w; ++i)  // pixel centres, cell edges and borders exactly
        for (int j = 0; j <= 2 * h; ++j) points.push_back({float(i) * 0.5f * cell, float(j) * 0.5f * cell});
      for (float special : {0.f, -0.f, nan, inf, -inf, -1e-30f, 1e30f})
        points.insert(points.end(), {{special, 1.f}, {1.f, special}, {special, special}});
      const HeightDerivatives derivatives = heightDerivatives(t);
      for (auto [px, pz] : points) {
        const float hRef = referenceHeight(t, px, pz);
        const Vec2 gRef = referenceGradient(t, px, pz);
        ASSERT_EQ(bits(t.heightAt(px, pz)), bits(hRef)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(sampleBilinear(t.metres, cell, px, pz)), bits(hRef));
        const Vec2 g = t.gradientAt(px, pz);
        ASSERT_EQ(bits(g.x), bits(gRef.x)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(g.z), bits(gRef.z)) << w << "x" << h << " at " << px << "," << pz;
        const HeightGradient stored = derivatives.at(px, pz);
        ASSERT_EQ(bits(stored.height), bits(hRef)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(stored.gradient.x), bits(gRef.x)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(stored.gradient.z), bits(gRef.z)) << w << "x" << h << " at " << px << "," << pz;
        // The slope: the masks' (slopeTangentAt) and the bake's (stored) are the same bits.
        const float tRef = referenceSlopeTangent(t, px, pz);
        ASSERT_EQ(bits(t.slopeTangentAt(px, pz)), bits(tRef)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(stored.slopeTangent), bits(tRef)) << w << "x" << h << " at " << px << "," << pz;
        ASSERT_EQ(bits(surfaceAt(t, px, pz, {}).slopeDeg), bits(slopeDegrees(stored.slopeTangent)));
      }
    }
  }
}
