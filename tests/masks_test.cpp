// Eco-masks against hand-computed values on analytic terrain.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include <cmath>

#include "masks/masks.h"
#include "core/noise.h"
#include "test_support.h"

namespace {

constexpr float kDeg = 3.14159265f / 180.f;

// A plane rising southward (+z) by tan(slope): its downslope faces north.
eco::World planeWorld(float slopeDeg, float baseHeight) {
  eco::World w;
  w.terrain.cellSize = 2.f;
  w.terrain.metres = eco::Grid(65, 65);
  for (int j = 0; j < 65; ++j)
    for (int i = 0; i < 65; ++i) w.terrain.metres.at(i, j) = baseHeight + std::tan(slopeDeg * kDeg) * float(j) * 2.f;
  w.sunDirXZ = eco::sunDirectionXZ(180.f);
  w.config.seed = 7;
  return w;
}

eco::SpeciesConfig testSpecies() {
  eco::SpeciesConfig sp;
  sp.elevation = {400.f, 600.f, 900.f, 1000.f};
  sp.maxSlopeDeg = 30.f;
  sp.slopeFalloffDeg = 20.f;
  sp.sunPreference = 1.f;
  sp.moistureOptimum = 0.5f;
  sp.moistureTolerance = 1.f;
  sp.density = 0.8f;
  return sp;
}

}  // namespace

TEST(Masks, SmoothstepEndsAndMidpoint) {
  EXPECT_FLOAT_EQ(eco::smoothstep(0.f, 10.f, -1.f), 0.f);
  EXPECT_FLOAT_EQ(eco::smoothstep(0.f, 10.f, 5.f), 0.5f);
  EXPECT_FLOAT_EQ(eco::smoothstep(0.f, 10.f, 2.5f), 0.15625f);  // 3t^2 - 2t^3 at t = 1/4
  EXPECT_FLOAT_EQ(eco::smoothstep(0.f, 10.f, 11.f), 1.f);
  EXPECT_FLOAT_EQ(eco::smoothstep(3.f, 3.f, 2.9f), 0.f);  // degenerate edge is a step
  EXPECT_FLOAT_EQ(eco::smoothstep(3.f, 3.f, 3.f), 1.f);
}

TEST(Masks, WeightsOnNorthFacingPlaneMatchHandComputation) {
  eco::World w = planeWorld(20.f, 440.f);
  eco::SpeciesConfig sp = testSpecies();
  // At z = 32 m the height is 440 + tan(20 deg) * 32 = 451.647 m.
  eco::Environment env = eco::environmentAt(w, 64.f, 32.f);
  ASSERT_NEAR(env.height, 440.f + std::tan(20.f * kDeg) * 32.f, 1e-3f);
  ASSERT_NEAR(env.slopeDeg, 20.f, 1e-3f);
  ASSERT_NEAR(env.sunExposure, -std::sin(20.f * kDeg), 1e-4f);  // faces away from the southern sun

  eco::MaskWeights m = eco::speciesWeights(sp, env);
  float t = (env.height - 400.f) / 200.f;
  EXPECT_NEAR(m.elevation, t * t * (3 - 2 * t), 1e-5f);
  EXPECT_NEAR(m.slope, 0.5f, 1e-4f);  // halfway through the 10..30 degree falloff
  EXPECT_NEAR(m.sun, (1.f - std::sin(20.f * kDeg)) / 2.f, 1e-4f);
  EXPECT_NEAR(m.suitability, sp.density * m.elevation * m.slope * m.sun * m.moisture, 1e-6f);
}

TEST(Masks, SunPreferenceFlipsBetweenFaces) {
  eco::World north = planeWorld(25.f, 500.f);
  eco::World south = planeWorld(-25.f, 800.f);
  eco::SpeciesConfig sunny = testSpecies(), shady = testSpecies();
  shady.sunPreference = -1.f;
  eco::Environment n = eco::environmentAt(north, 64.f, 64.f), s = eco::environmentAt(south, 64.f, 64.f);
  EXPECT_GT(eco::speciesWeights(sunny, s).sun, eco::speciesWeights(sunny, n).sun);
  EXPECT_GT(eco::speciesWeights(shady, n).sun, eco::speciesWeights(shady, s).sun);
  EXPECT_NEAR(eco::speciesWeights(sunny, s).sun, (1.f + std::sin(25.f * kDeg)) / 2.f, 1e-4f);
}

TEST(Masks, ZeroOutsideBandAndAboveMaxSlope) {
  eco::SpeciesConfig sp = testSpecies();
  eco::Environment env;
  env.slopeDeg = 5.f;
  env.height = 399.f;
  EXPECT_EQ(eco::speciesWeights(sp, env).suitability, 0.f);
  env.height = 1000.5f;
  EXPECT_EQ(eco::speciesWeights(sp, env).suitability, 0.f);
  env.height = 700.f;
  EXPECT_GT(eco::speciesWeights(sp, env).suitability, 0.f);
  env.slopeDeg = 30.f;
  EXPECT_EQ(eco::speciesWeights(sp, env).suitability, 0.f);
}

TEST(Masks, MoistureFollowsRiverFalloff) {
  eco::World w = planeWorld(0.f, 500.f);
  w.hasRiver = true;
  w.river.cellSize = 4.f;
  w.river.metres = eco::Grid(33, 33, 100.f);
  w.config.moisture.riverWeight = 1.f;
  w.config.moisture.riverFalloff = 100.f;
  EXPECT_NEAR(eco::moistureAt(w, 10.f, 10.f), std::exp(-1.f), 1e-6f);

  eco::SpeciesConfig sp = testSpecies();
  sp.moistureOptimum = std::exp(-1.f) + 0.2f;
  sp.moistureTolerance = 0.4f;
  eco::Environment env = eco::environmentAt(w, 10.f, 10.f);
  EXPECT_NEAR(eco::speciesWeights(sp, env).moisture, 0.5f, 1e-5f);
}

TEST(Masks, NoiseIsDeterministicBoundedAndSeedDependent) {
  float a = eco::fbmNoise01(1, 123.f, 456.f, 800.f, 3);
  EXPECT_EQ(a, eco::fbmNoise01(1, 123.f, 456.f, 800.f, 3));
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    float x = float(i) * 37.f, z = float(i) * 11.f;
    float v = eco::fbmNoise01(1, x, z, 800.f, 3);
    ASSERT_GE(v, 0.f);
    ASSERT_LE(v, 1.f);
    differ += v != eco::fbmNoise01(2, x, z, 800.f, 3);
  }
  EXPECT_GT(differ, 900);
}

// Corner gradients are cached per thread: values must not depend on what was asked before.
TEST(Masks, NoiseDoesNotDependOnTheOrderOfQueries) {
  std::vector<float> rowOrder;
  for (int j = 0; j < 60; ++j)
    for (int i = 0; i < 60; ++i) rowOrder.push_back(eco::gradientNoise(7, float(i) * 0.37f - 3.f, float(j) * 0.29f - 5.f));
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> pick(0, 3599);
  std::uniform_int_distribution<uint64_t> otherSeed(0, 3);
  for (int k = 0; k < 20000; ++k) {
    const int n = pick(rng), i = n % 60, j = n / 60;
    eco::gradientNoise(otherSeed(rng), float(j) * 0.37f - 3.f, float(i) * 0.29f - 5.f);  // evicts and refills
    ASSERT_EQ(eco::gradientNoise(7, float(i) * 0.37f - 3.f, float(j) * 0.29f - 5.f), rowOrder[size_t(n)]) << n;
  }
}

TEST(Masks, SuitabilityRasterMatchesExactValuesAtPixels) {
  eco::World w = planeWorld(15.f, 380.f);
  w.config.species = {testSpecies()};
  eco::SuitabilityRasters r = eco::computeSuitability(w, 2);
  const eco::SuitabilityField f(w, 2);
  for (int j = 0; j < 65; j += 8)
    for (int i = 0; i < 65; i += 8) {
      float x = float(i) * 2.f, z = float(j) * 2.f;
      EXPECT_FLOAT_EQ(f.at(0, x, z), eco::speciesWeights(w.config.species[0], eco::environmentAt(w, x, z)).suitability);
    }
  eco::SuitabilityRasters r1 = eco::computeSuitability(w, 1);
  EXPECT_EQ(r1.species[0].values, r.species[0].values);
}

// computeSuitability skips the factors that cannot matter once every species' product is zero;
// on real terrain (heights and slopes no species takes, rivers) every pixel must still equal
// the full rule, bit for bit.
TEST(Masks, SuitabilityRasterEqualsTheFullRuleOnTheSampleWorld) {
  const eco::World w = eco::loadWorld(eco::test::sourceDir() + "/configs/temperate_mountain.json");
  const eco::SuitabilityRasters r = eco::computeSuitability(w, 2);
  const eco::Grid& h = w.terrain.metres;
  int zeros = 0, checked = 0;
  for (int j = 0; j < h.height; j += 3)
    for (int i = 0; i < h.width; i += 3) {
      const float x = float(i) * r.cellSize, z = float(j) * r.cellSize;
      const eco::Environment env = eco::environmentAt(w, x, z);
      bool allZero = true;
      for (size_t s = 0; s < w.config.species.size(); ++s) {
        const float expected = eco::speciesWeights(w.config.species[s], env).suitability;
        ASSERT_EQ(std::bit_cast<uint32_t>(r.species[s].at(i, j)), std::bit_cast<uint32_t>(expected))
            << "species " << s << " pixel " << i << "," << j;
        allZero &= expected == 0.f;
      }
      zeros += allZero;
      ++checked;
    }
  // The skipped paths were taken: some pixels suit no species.
  EXPECT_GT(zeros, checked / 100);
  EXPECT_LT(zeros, checked);
}

// W_slope on a V-shaped valley cut into a plateau, 40 degree walls: the floor is as steep as
// the walls (the central difference reads 0 there), so a species with max_deg 30 has zero
// suitability on the floor pixels and between them, and full slope weight on the plateau.
TEST(Masks, SlopeWeightIsZeroOnAVValleyFloorBetweenSteepWalls) {
  eco::World w = planeWorld(0.f, 500.f);
  const float rise = std::tan(40.f * kDeg);
  for (int j = 0; j < 65; ++j)
    for (int i = 0; i < 65; ++i) w.terrain.metres.at(i, j) = 500.f + std::min(rise * std::fabs(float(i - 32)) * 2.f, 40.f);
  eco::SpeciesConfig sp = testSpecies();
  sp.elevation = {0.f, 1.f, 2000.f, 3000.f};
  sp.sunPreference = 0.f;
  sp.slopeFalloffDeg = 10.f;  // zero from 30 degrees
  w.config.species = {sp};
  const eco::SuitabilityField r(w, 2);
  for (float z = 0.f; z <= 128.f; z += 1.f)
    for (float x = 62.f; x <= 66.f; x += 0.5f) {  // floor pixel i = 32 at x = 64, a pixel to either side
      const eco::Environment env = eco::environmentAt(w, x, z);
      ASSERT_GE(env.slopeDeg, 38.f) << x << "," << z;
      ASSERT_EQ(eco::speciesWeights(sp, env).slope, 0.f) << x << "," << z;
      ASSERT_EQ(r.at(0, x, z), 0.f) << x << "," << z;
    }
  const eco::Environment plateau = eco::environmentAt(w, 8.f, 64.f);
  EXPECT_EQ(plateau.slopeDeg, 0.f);
  EXPECT_EQ(eco::speciesWeights(sp, plateau).slope, 1.f);
  EXPECT_GT(r.at(0, 8.f, 64.f), 0.f);
}

// The sampler's density bound from the field's 8 x 8 blocks and pixels (pyramidSpan /
// pyramidMax) equals the bound of a whole max pyramid built here by halving the raster
// (each level the max of 2 x 2 entries of the one below, clipped at the edges) and read at the
// level where the rectangle's bilinear pixels span at most 2 x 2 entries, bit for bit: the
// bake's output must not depend on which of the two holds the pixels.
TEST(Masks, FieldBoundEqualsAWholeMaxPyramid) {
  const eco::World w = eco::loadWorld(eco::test::sourceDir() + "/configs/temperate_mountain.json");
  const eco::SuitabilityField field(w, 2);
  const eco::SuitabilityRasters r = eco::computeSuitability(w, 2);
  const int s = 3;
  std::vector<eco::Grid> pyramid = {r.species[size_t(s)]};
  while (pyramid.back().width > 1 || pyramid.back().height > 1) {
    const eco::Grid& g = pyramid.back();
    eco::Grid up((g.width + 1) / 2, (g.height + 1) / 2);
    for (int j = 0; j < up.height; ++j)
      for (int i = 0; i < up.width; ++i) {
        float v = 0.f;
        for (int dj = 0; dj < 2; ++dj)
          for (int di = 0; di < 2; ++di)
            if (2 * i + di < g.width && 2 * j + dj < g.height) v = std::max(v, g.at(2 * i + di, 2 * j + dj));
        up.at(i, j) = v;
      }
    pyramid.push_back(std::move(up));
  }
  const float cell = r.cellSize, side = float(pyramid[0].width - 1) * cell;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(-20.f, side + 20.f), size(0.f, 400.f);
  int positive = 0;
  for (int n = 0; n < 4000; ++n) {
    const float x0 = pos(rng), z0 = pos(rng), x1 = x0 + size(rng) * (n % 4 == 0 ? 8.f : 0.05f), z1 = z0 + size(rng) * 0.05f;
    // pixels the bilinear reads: clamped like lerpPixel, the last pair at the edge
    auto pixelOf = [&](float v, int count) { return std::min(int(std::clamp(v * r.invCellSize, 0.f, float(count - 1))), count - 2); };
    const int i0 = pixelOf(x0, pyramid[0].width), i1 = pixelOf(x1, pyramid[0].width) + 1;
    const int j0 = pixelOf(z0, pyramid[0].height), j1 = pixelOf(z1, pyramid[0].height) + 1;
    size_t level = 0;
    while (level + 1 < pyramid.size() && ((i1 >> level) - (i0 >> level) > 1 || (j1 >> level) - (j0 >> level) > 1)) ++level;
    const eco::Grid& g = pyramid[level];
    float expected = 0.f;
    for (int j = j0 >> level; j <= std::min(j1 >> int(level), g.height - 1); ++j)
      for (int i = i0 >> level; i <= std::min(i1 >> int(level), g.width - 1); ++i) expected = std::max(expected, g.at(i, j));
    const float got = field.maxIn(s, x0, z0, x1, z1);
    ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(expected)) << n << ": " << x0 << "," << z0 << " " << x1 << "," << z1;
    positive += expected > 0.f;
  }
  EXPECT_GT(positive, 400);  // the species grows in a good share of the rectangles
  // and the field's bilinear reads are the raster's
  for (int n = 0; n < 2000; ++n) {
    const float x = pos(rng), z = pos(rng);
    ASSERT_EQ(std::bit_cast<uint32_t>(field.at(s, x, z)), std::bit_cast<uint32_t>(eco::bilinearScaled({r.species[size_t(s)].values.data(), pyramid[0].width, pyramid[0].height, r.invCellSize}, x, z)));
  }
}
