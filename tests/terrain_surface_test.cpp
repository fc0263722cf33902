#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>

#include "core/error.h"
#include "slope_reference.h"
#include "terrain/terrain.h"

using namespace eco;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

Heightmap sampledTerrain(int w, int h, float cell, const std::function<float(float, float)>& height) {
  Heightmap t{Grid(w, h), cell};
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) t.metres.at(i, j) = height(float(i) * cell, float(j) * cell);
  return t;
}

}  // namespace

TEST(TerrainSurface, PlaneFacingSouthEastAt30Degrees) {
  // Downslope towards +x +z (south-east): the height falls along (1, 1) / sqrt(2).
  const float g = -std::tan(30.f * kPi / 180.f) / std::sqrt(2.f);
  Heightmap t = sampledTerrain(33, 17, 2.5f, [&](float x, float z) { return 20.f + g * (x + z); });
  Vec2 sun = sunDirectionXZ(135.f);
  for (auto [x, z] : {std::pair{0.f, 0.f}, std::pair{13.3f, 7.9f}, std::pair{80.f, 40.f}, std::pair{41.2f, 0.6f}}) {
    SurfaceSample s = surfaceAt(t, x, z, sun);
    EXPECT_NEAR(s.slopeDeg, 30.f, 1e-4f);
    EXPECT_NEAR(s.aspectDeg, 135.f, 1e-4f);
    const float c = std::cos(30.f * kPi / 180.f), n = std::sin(30.f * kPi / 180.f) / std::sqrt(2.f);
    EXPECT_NEAR(s.normal.x, n, 1e-4f);
    EXPECT_NEAR(s.normal.y, c, 1e-4f);
    EXPECT_NEAR(s.normal.z, n, 1e-4f);
    EXPECT_NEAR(s.sunExposure, 0.5f, 1e-4f);  // sun straight down the fall line: sin(slope)
    EXPECT_NEAR(surfaceAt(t, x, z, sunDirectionXZ(315.f)).sunExposure, -0.5f, 1e-4f);
    EXPECT_NEAR(surfaceAt(t, x, z, sunDirectionXZ(45.f)).sunExposure, 0.f, 1e-4f);
  }
}

TEST(TerrainSurface, AspectOfCardinalSlopes) {
  // Each plane falls towards one compass direction; north is -z, east is +x.
  struct Case {
    float dx, dz, aspect;
  };
  for (Case c : {Case{0, 1, 0}, Case{-1, 0, 90}, Case{0, -1, 180}, Case{1, 0, 270}}) {
    Heightmap t = sampledTerrain(5, 5, 1.f, [&](float x, float z) { return 0.2f * (c.dx * x + c.dz * z); });
    EXPECT_NEAR(surfaceAt(t, 2.f, 2.f, {}).aspectDeg, c.aspect, 1e-4f) << c.dx << "," << c.dz;
  }
  Heightmap flat = sampledTerrain(4, 4, 1.f, [](float, float) { return 7.f; });
  SurfaceSample s = surfaceAt(flat, 1.5f, 1.5f, sunDirectionXZ(180.f));
  EXPECT_EQ(s.aspectDeg, 0.f);
  EXPECT_EQ(s.slopeDeg, 0.f);
  EXPECT_EQ(s.sunExposure, 0.f);
}

TEST(TerrainSurface, GentleSlopeKeepsPrecision) {
  Heightmap t = sampledTerrain(4, 4, 1.f, [](float x, float) { return 1e-4f * x; });
  EXPECT_NEAR(surfaceAt(t, 1.5f, 1.5f, {}).slopeDeg, std::atan(1e-4f) * 180.f / kPi, 1e-7f);
}

TEST(TerrainSurface, SunDirectionPointsTowardTheSun) {
  Vec2 south = sunDirectionXZ(180.f), east = sunDirectionXZ(90.f), north = sunDirectionXZ(0.f);
  EXPECT_NEAR(south.x, 0.f, 1e-6f);
  EXPECT_NEAR(south.z, 1.f, 1e-6f);
  EXPECT_NEAR(east.x, 1.f, 1e-6f);
  EXPECT_NEAR(east.z, 0.f, 1e-6f);
  EXPECT_NEAR(north.z, -1.f, 1e-6f);
}

TEST(TerrainSurface, BilinearHeightIsExactOnAPlaneAndClamped) {
  Heightmap t = sampledTerrain(9, 6, 3.f, [](float x, float z) { return 10.f + 0.5f * x - 0.25f * z; });
  for (float x = 0; x <= t.extentX(); x += 1.37f)
    for (float z = 0; z <= t.extentZ(); z += 0.91f) EXPECT_NEAR(t.heightAt(x, z), 10.f + 0.5f * x - 0.25f * z, 1e-4f);
  EXPECT_FLOAT_EQ(t.heightAt(-50.f, -50.f), 10.f);
  EXPECT_FLOAT_EQ(t.heightAt(1000.f, 1000.f), t.metres.at(8, 5));
  EXPECT_FLOAT_EQ(t.heightAt(6.f, 1000.f), t.metres.at(2, 5));
}

TEST(TerrainSurface, ParaboloidGradientIsExactAwayFromTheBorder) {
  // Central differences are exact on a quadratic, and bilinear interpolation of the linear
  // gradient is exact between pixels.
  const float a = 0.01f, cell = 2.f;
  Heightmap t = sampledTerrain(41, 41, cell, [&](float x, float z) { return a * ((x - 40) * (x - 40) + (z - 40) * (z - 40)); });
  for (float x = cell; x <= t.extentX() - cell; x += 3.3f)
    for (float z = cell; z <= t.extentZ() - cell; z += 2.9f) {
      Vec2 g = t.gradientAt(x, z);
      EXPECT_NEAR(g.x, 2 * a * (x - 40), 1e-4f);
      EXPECT_NEAR(g.z, 2 * a * (z - 40), 1e-4f);
    }
  // One-sided at the border: (h[1] - h[0]) / cell.
  Vec2 corner = t.gradientAt(0.f, 0.f);
  EXPECT_NEAR(corner.x, (t.metres.at(1, 0) - t.metres.at(0, 0)) / cell, 1e-5f);
  EXPECT_NEAR(corner.z, (t.metres.at(0, 1) - t.metres.at(0, 0)) / cell, 1e-5f);
}

TEST(TerrainSurface, ConeHasConstantSlopeAndAspectAwayFromApex) {
  const float cx = 50.f, cz = 50.f, rise = 0.7f;  // 35 deg cone pointing up
  Heightmap t = sampledTerrain(101, 101, 1.f, [&](float x, float z) { return 100.f - rise * std::hypot(x - cx, z - cz); });
  for (float angle = 0; angle < 360; angle += 17) {
    float r = 30.f, rad = angle * kPi / 180.f;
    // A point at azimuth `angle` from the apex: east = sin, north = cos (north is -z).
    float x = cx + r * std::sin(rad), z = cz - r * std::cos(rad);
    SurfaceSample s = surfaceAt(t, x, z, {});
    EXPECT_NEAR(s.slopeDeg, std::atan(rise) * 180.f / kPi, 0.05f) << angle;
    float diff = std::remainder(s.aspectDeg - angle, 360.f);
    EXPECT_NEAR(diff, 0.f, 0.2f) << angle;
  }
}

TEST(TerrainSurface, MakeHeightmapMapsValuesAndChecksCellSize) {
  Image image{Grid(2, 2), 16};
  image.pixels.values = {0.f, 0.5f, 1.f, 0.25f};
  Heightmap t = makeHeightmap(image, {4.f, 100.f, -10.f});
  EXPECT_EQ(t.cellSize, 4.f);
  EXPECT_EQ(t.metres.values, (std::vector<float>{-10.f, 40.f, 90.f, 15.f}));
  EXPECT_EQ(t.extentX(), 4.f);
  EXPECT_THROW(makeHeightmap(image, {0.f, 1.f, 0.f}), InputError);
  EXPECT_THROW(makeHeightmap(image, {NAN, 1.f, 0.f}), InputError);
}

// The ecological slope (slopeDeg) on a plane: the central difference's angle, everywhere
// including the border pixels, and the README formula's value.
// Heights about zero keep the float rounding of the differences (relative: a float step of
// the largest height over a cell's rise) well under the 1e-4 degrees.
TEST(TerrainSurface, SlopeOfATiltedPlaneEqualsItsGradientAngle) {
  const float a = 0.31f, b = -0.47f;  // dH/dx, dH/dz
  Heightmap t = sampledTerrain(17, 13, 3.f, [&](float x, float z) { return a * (x - 24.f) + b * (z - 18.f); });
  const float exact = std::atan(std::hypot(a, b)) * 180.f / kPi;  // 29.37 degrees
  int checked = 0;
  for (float x = 0; x <= t.extentX(); x += 0.53f)
    for (float z = 0; z <= t.extentZ(); z += 0.37f) {
      const float slope = surfaceAt(t, x, z, {}).slopeDeg;
      ASSERT_NEAR(slope, exact, 1e-4f) << x << "," << z;
      ASSERT_NEAR(slope, test::gradientSlopeDeg(t, x, z), 1e-4f) << x << "," << z;
      ASSERT_NEAR(slope, test::referenceSlopeDeg(t, double(x), double(z)), 1e-4f) << x << "," << z;
      ++checked;
    }
  EXPECT_GT(checked, 1000);
}

// A V-shaped valley floor and a ridge crest between 40 degree walls: the central differences
// cancel there (0 degrees on the floor pixels, 23 halfway to the next pixel); the slope sees
// the walls. Positions on the floor pixels, between them along the valley and up to a pixel
// to either side.
namespace {
void expectWallSlopeAcrossTheCrease(bool valley) {
  const float rise = std::tan(40.f * kPi / 180.f), cell = 4.f, crease = 16.f * cell;
  Heightmap t = sampledTerrain(33, 9, cell, [&](float x, float) {
    const float wall = rise * std::fabs(x - crease);
    return valley ? 100.f + wall : 300.f - wall;
  });
  const float floorCentral = float(test::gradientSlopeDeg(t, crease, 2.f * cell));
  EXPECT_LT(floorCentral, 1e-3f);  // what the central difference reads on the crease
  for (float x = crease - cell; x <= crease + cell; x += 0.25f * cell)
    for (float z = 0; z <= t.extentZ(); z += 0.5f * cell) {
      const float slope = surfaceAt(t, x, z, {}).slopeDeg;
      ASSERT_GE(slope, 38.f) << (valley ? "valley" : "ridge") << " at " << x << "," << z;
      ASSERT_NEAR(slope, 40.f, 1e-3f) << (valley ? "valley" : "ridge") << " at " << x << "," << z;
      ASSERT_NEAR(slope, test::referenceSlopeDeg(t, double(x), double(z)), 1e-4f);
    }
  std::printf("%s crease: slope %.3f deg, central difference %.3f deg (floor pixel), %.3f deg (half a pixel off)\n",
              valley ? "valley" : "ridge", double(surfaceAt(t, crease, 2.f * cell, {}).slopeDeg), double(floorCentral),
              test::gradientSlopeDeg(t, crease + 0.5f * cell, 2.f * cell));
}
}  // namespace

TEST(TerrainSurface, SlopeSeesTheWallsOfAVValley) { expectWallSlopeAcrossTheCrease(true); }
TEST(TerrainSurface, SlopeSeesTheWallsOfARidge) { expectWallSlopeAcrossTheCrease(false); }

// Per axis the mean one-sided magnitude is at least the central difference's magnitude, so
// the slope never reads below the normal's angle; on rough terrain it matches the README
// formula.
TEST(TerrainSurface, SlopeIsNeverBelowTheGradientAngle) {
  Heightmap t = sampledTerrain(41, 29, 2.5f, [](float x, float z) {
    return 200.f + 30.f * std::sin(x * 0.37f) * std::cos(z * 0.23f) + 4.f * std::sin(x * 1.9f + z * 2.3f);
  });
  for (float x = 0; x <= t.extentX(); x += 0.77f)
    for (float z = 0; z <= t.extentZ(); z += 0.61f) {
      const float slope = surfaceAt(t, x, z, {}).slopeDeg;
      ASSERT_GE(slope, test::gradientSlopeDeg(t, x, z) - 1e-4) << x << "," << z;
      ASSERT_NEAR(slope, test::referenceSlopeDeg(t, double(x), double(z)), 1e-3) << x << "," << z;
    }
}
