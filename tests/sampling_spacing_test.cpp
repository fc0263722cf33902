// Exact minimum-distance invariant for every pair, within and across tiles and classes.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "spacing_check.h"
#include "sampling_fixtures.h"

namespace eco {
namespace {

using test::flatten;

void expectSpaced(const SamplerParams& p, const DensityField* field, const std::vector<TileSamples>& tiles) {
  const std::vector<Sample> all = flatten(tiles);
  const SpacingReport r = checkSpacing(p, field, all);
  ASSERT_GT(r.samples, 100u);
  EXPECT_GT(r.pairsChecked, r.samples);
  EXPECT_EQ(r.violations, 0u) << "worst pair (" << r.worstA.x << ", " << r.worstA.z << ") class " << r.worstA.cls
                              << " - (" << r.worstB.x << ", " << r.worstB.z << ") class " << r.worstB.cls
                              << " ratio " << r.minRatio;
  EXPECT_GE(r.minRatio, 1.0);
  for (const TileSamples& t : tiles)
    for (const Sample& s : t.samples) {
      ASSERT_GE(s.x, float(t.tx) * p.tileSize);
      ASSERT_GE(s.z, float(t.tz) * p.tileSize);
      ASSERT_LT(s.x, std::min(p.worldX, float(t.tx + 1) * p.tileSize));
      ASSERT_LT(s.z, std::min(p.worldZ, float(t.tz + 1) * p.tileSize));
      ASSERT_LT(s.cls, p.classes.size());
      if (field) {
        ASSERT_GT(field->density(int(s.cls), s.x, s.z), 0.f);
      }
    }
}

TEST(SamplingSpacing, UniformSeveralSeedsAndOddWorldSizes) {
  const float sizes[][3] = {{173.3f, 91.7f, 20.f}, {64.f, 64.f, 16.f}, {150.f, 210.5f, 33.3f}, {41.f, 300.f, 9.f}};
  for (uint64_t seed : {1ull, 7ull, 123456789ull})
    for (const auto& s : sizes) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " world " << s[0] << " x " << s[1] << " tile " << s[2]);
      SamplerParams p = test::uniformParams(s[0], s[1], s[2], 1.f, seed);
      p.method = seed == 7 ? SamplerMethod::Bridson : SamplerMethod::Pool;
      expectSpaced(p, nullptr, scatterAll(p, nullptr, 2));
    }
}

TEST(SamplingSpacing, VariableRadiusOnGradientAndWaves) {
  for (uint64_t seed : {3ull, 99ull}) {
    SamplerParams p = test::uniformParams(230.f, 170.f, 24.f, 0.8f, seed);
    p.classes = {{0.8f, 4.f}};
    const test::GradientX gradient(230.f);
    expectSpaced(p, &gradient, scatterAll(p, &gradient, 2));
    const test::Waves waves;
    expectSpaced(p, &waves, scatterAll(p, &waves, 2));
  }
}

// Spacing that jumps: where a coarse pool point of the sparse side neighbours fine points of the
// dense side, the pool's own ordering does not space them; the exact tests must.
TEST(SamplingSpacing, VariableRadiusAcrossDensityCliffs) {
  struct Checker : DensityField {
    float density(int, float x, float z) const override {
      return (int(x / 7.f) + int(z / 7.f)) % 2 ? 1.f : 0.1f;
    }
  } cliffs;
  for (uint64_t seed : {5ull, 6ull, 7ull}) {
    SamplerParams p = test::uniformParams(150.f, 130.f, 24.f, 0.6f, seed);
    p.classes = {{0.6f, 2.4f}, {0.5f, 3.f}};
    p.classDistance = {0.f, 0.3f, 0.3f, 0.f};
    p.method = seed == 7 ? SamplerMethod::Bridson : SamplerMethod::Pool;
    expectSpaced(p, &cliffs, scatterAll(p, &cliffs, 2));
  }
}

// A class whose radius range exceeds the pool's (factor 20 > 16) is placed by Bridson, next to
// a pool class in the same run.
TEST(SamplingSpacing, ClassesBeyondThePoolRangeFallBackToBridson) {
  SamplerParams p = test::uniformParams(160.f, 120.f, 24.f, 0.5f, 21);
  p.classes = {{0.5f, 10.f}, {1.f, 3.f}};  // no exclusion between them: independent classes
  const test::Waves waves;
  const auto tiles = scatterAll(p, &waves, 2);
  expectSpaced(p, &waves, tiles);
  SamplerParams bridson = p;
  bridson.method = SamplerMethod::Bridson;
  auto ofClass = [](const std::vector<Sample>& all, uint32_t cls) {
    std::vector<Sample> out;
    for (const Sample& q : all)
      if (q.cls == cls) out.push_back(q);
    return out;
  };
  const std::vector<Sample> mixed = flatten(tiles), reference = flatten(scatterAll(bridson, &waves, 1));
  // Class 0 is placed by Bridson in both runs: the same samples. Class 1 is not.
  const std::vector<Sample> a = ofClass(mixed, 0), b = ofClass(reference, 0);
  ASSERT_GT(a.size(), 1000u);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Sample)), 0);
  const std::vector<Sample> c = ofClass(mixed, 1), d = ofClass(reference, 1);
  EXPECT_TRUE(c.size() != d.size() || std::memcmp(c.data(), d.data(), c.size() * sizeof(Sample)) != 0);
}

// The bake's path: density read inline from a raster. Same samples as through the virtual
// call, and spaced.
TEST(SamplingSpacing, VariableRadiusFromARasterReadInline) {
  SamplerParams p = test::uniformParams(230.f, 170.f, 24.f, 0.8f, 17);
  p.classes = {{0.8f, 4.f}, {1.5f, 4.5f}};
  p.classDistance = {0.f, 1.f, 1.f, 0.f};
  test::RasterWaves field(2, p.worldX, p.worldZ);
  const std::vector<TileSamples> inlineRead = scatterAll(p, &field, 2);
  expectSpaced(p, &field, inlineRead);
  field.exposeRaster = false;
  EXPECT_TRUE(test::sameBytes(flatten(inlineRead), flatten(scatterAll(p, &field, 2))));
}

TEST(SamplingSpacing, RouletteModeKeepsUniformSpacing) {
  SamplerParams p = test::uniformParams(200.f, 130.f, 25.f, 1.f, 5);
  p.variableRadius = false;
  const test::Waves waves;
  expectSpaced(p, &waves, scatterAll(p, &waves, 2));
}

SamplerParams threeClasses(uint64_t seed) {
  SamplerParams p = test::uniformParams(190.f, 143.f, 20.f, 1.f, seed);
  p.classes = {{3.f, 8.f}, {1.2f, 3.f}, {0.6f, 1.5f}};
  // Asymmetric on purpose: the pair uses the larger of the two entries.
  p.classDistance = {0.f, 1.5f, 1.f,  //
                     0.5f, 0.f, 0.9f,  //
                     0.f, 0.2f, 0.f};
  return p;
}

TEST(SamplingSpacing, MultiClassWithinAndAcrossClassesAndTiles) {
  const test::Waves waves;
  for (uint64_t seed : {11ull, 12ull}) {
    SamplerParams p = threeClasses(seed);
    p.method = seed == 11 ? SamplerMethod::Pool : SamplerMethod::Bridson;
    const auto tiles = scatterAll(p, &waves, 2);
    expectSpaced(p, &waves, tiles);
    size_t perClass[3] = {};
    for (const Sample& s : flatten(tiles)) ++perClass[s.cls];
    for (size_t count : perClass) EXPECT_GT(count, 100u);
  }
  // A field with a tight bound: tiles at low x get coarser grids than their neighbours.
  const test::GradientX gradient(190.f);
  const SamplerParams p = threeClasses(14);
  expectSpaced(p, &gradient, scatterAll(p, &gradient, 2));
  SamplerParams uniform = threeClasses(13);
  expectSpaced(uniform, nullptr, scatterAll(uniform, nullptr, 2));
  // Tiles of 12 m: the first class's margin strips are wider than half a tile, so its
  // neighbours read its tiles whole; the others read the edge lists (bridson.cpp,
  // bordersListed). Both must space across tiles.
  for (SamplerMethod method : {SamplerMethod::Pool, SamplerMethod::Bridson}) {
    SamplerParams narrow = threeClasses(15);
    narrow.tileSize = 12.f;
    narrow.method = method;
    expectSpaced(narrow, &waves, scatterAll(narrow, &waves, 2));
  }
  uniform.variableRadius = false;
  expectSpaced(uniform, &waves, scatterAll(uniform, &waves, 2));
}

TEST(SamplingSpacing, CheckerFindsAClosePair) {
  const SamplerParams p = test::uniformParams(10.f, 10.f, 10.f, 1.f, 1);
  const std::vector<Sample> samples = {{1.f, 1.f, 0}, {1.f, 1.999f, 0}, {5.f, 5.f, 0}};
  const SpacingReport r = checkSpacing(p, nullptr, samples);
  EXPECT_EQ(r.violations, 1u);
  EXPECT_EQ(r.pairsChecked, 3u);  // all within twice the 4 m interaction distance
  EXPECT_NEAR(r.minRatio, 0.999, 1e-5);
}

TEST(SamplingSpacing, RejectsTilesSmallerThanTheInteractionDistance) {
  SamplerParams p = test::uniformParams(100.f, 100.f, 10.f, 1.f, 1);
  p.classes = {{3.f, 12.f}};
  try {
    scatterAll(p, nullptr, 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tile size 10 m"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("12 m"), std::string::npos) << e.what();
  }
  p.classes = {{1.f, 2.f}, {1.f, 2.f}};
  p.classDistance = {0.f, 11.f, 0.f, 0.f};
  EXPECT_THROW(scatterAll(p, nullptr, 1), InputError);
  p.classDistance = {0.f, 1.f};
  EXPECT_THROW(scatterAll(p, nullptr, 1), InputError);
  EXPECT_THROW(scatter(test::uniformParams(100.f, 100.f, 10.f, 1.f, 1), nullptr, {0, 0, 11, 1}, 1,
                       [](TileSamples&&) {}),
               InputError);
}

}  // namespace
}  // namespace eco
