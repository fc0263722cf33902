// Placement quality of issue #15, measured by tests/placement_metrics.h (written apart from
// the sampler): no repetition, a flat density profile at tile borders, and counts within 3 %
// of a textbook Bridson (untiled, k = 30 like the Bridson method's default) on the same
// density field and the same higher layer.
#include <gtest/gtest.h>

#include "bake/bake.h"
#include "placement_metrics.h"
#include "sampling_fixtures.h"
#include "test_support.h"

namespace eco {
namespace {

using metrics::Pt;

std::vector<std::vector<Pt>> byClass(const std::vector<TileSamples>& tiles, size_t classes) {
  std::vector<std::vector<Pt>> out(classes);
  for (const TileSamples& t : tiles)
    for (const Sample& s : t.samples) out[s.cls].push_back({s.x, s.z});
  return out;
}

// Points at least `edge` from the world's edges (which any sampler packs its own way).
size_t inner(const std::vector<Pt>& pts, float worldX, float worldZ, float edge) {
  return size_t(std::count_if(pts.begin(), pts.end(), [&](const Pt& p) {
    return p.x >= edge && p.z >= edge && p.x < worldX - edge && p.z < worldZ - edge;
  }));
}

SamplerParams uniformWorld(SamplerMethod method, float tile) {
  SamplerParams p = test::uniformParams(512.f, 512.f, tile, 1.f, 7);
  p.classes = {{1.f, 1.f}};
  p.method = method;
  return p;
}

// The old pool repeated exactly every 256 radii; no translation may now give more twins than
// chance (density x pi (1 cm)^2 x 2 ~ 0.04 % here).
TEST(SamplingPlacement, NoTranslationRepeatsThePattern) {
  for (const SamplerMethod method : {SamplerMethod::Pool, SamplerMethod::Bridson}) {
    const std::vector<Pt> pts = byClass(scatterAll(uniformWorld(method, 128.f), nullptr, 2), 1)[0];
    const metrics::TwinReport twins = metrics::worstTwins(pts, 512.f, 512.f, {{256.f, 0.f}, {0.f, 256.f}, {256.f, 256.f}});
    std::printf("%s: worst twin share %.5f at (%.2f, %.2f), %d translations\n",
                method == SamplerMethod::Pool ? "pool" : "bridson", twins.worstShare, double(twins.tx),
                double(twins.tz), twins.candidates);
    EXPECT_LT(twins.worstShare, 0.002);
  }
}

// Density in bins of r/4 out to 3r from the tile border, over the interior's: within 3 %
// beyond 2 sigma of counting noise (1024 tiles of 16 r).
TEST(SamplingPlacement, PoolDensityIsFlatAcrossTileBorders) {
  const std::vector<Pt> pts = byClass(scatterAll(uniformWorld(SamplerMethod::Pool, 16.f), nullptr, 2), 1)[0];
  const metrics::BorderProfile profile = metrics::borderProfile(pts, 512.f, 512.f, 16.f, 0.25f, 3.f);
  for (size_t i = 0; i < profile.ratio.size(); ++i) std::printf(" %.3f", profile.ratio[i]);
  std::printf("\nworst deviation %.3f, beyond 2 sigma %.3f\n", profile.worstDeviation(), profile.worstExcess());
  EXPECT_LT(profile.worstExcess(), 0.03);
  EXPECT_LT(metrics::foldedMaxSigma(pts, 512.f, 512.f, 16.f, 8), 4.5);
}


// Counts against the reference, away from the world's edges: uniform density, and grass
// (variable density) kept 2 m from trees, the reference given the method's own trees.
struct CountRatios {
  double uniform, trees, grass;
};
CountRatios countRatios(SamplerMethod method, int k) {
  const float W = 256.f;
  SamplerParams p = test::uniformParams(W, W, 64.f, 1.f, 11);
  p.classes = {{4.f, 8.f}, {0.5f, 2.f}};
  p.classDistance = {0.f, 2.f, 2.f, 0.f};
  p.method = method;
  const test::TreesAndGrass field;
  const auto cls = byClass(scatterAll(p, &field, 2), 2);
  const auto trees = metrics::referenceMaximal(W, W, 4.f, 8.f, [&](float x, float z) { return field.density(0, x, z); },
                                               {}, 0.f, k, 5);
  const auto grass = metrics::referenceMaximal(W, W, 0.5f, 2.f, [&](float x, float z) { return field.density(1, x, z); },
                                               cls[0], 2.f, k, 6);
  const auto uniform = byClass(scatterAll(uniformWorld(method, 128.f), nullptr, 2), 1)[0];
  const auto uniformRef = metrics::referenceMaximal(512.f, 512.f, 1.f, 1.f, [](float, float) { return 1.f; }, {}, 0.f, k, 3);
  CountRatios r;
  r.uniform = double(inner(uniform, 512.f, 512.f, 4.f)) / double(inner(uniformRef, 512.f, 512.f, 4.f));
  r.trees = double(inner(cls[0], W, W, 24.f)) / double(inner(trees, W, W, 24.f));
  r.grass = double(inner(cls[1], W, W, 24.f)) / double(inner(grass, W, W, 24.f));
  std::printf("%s / reference k = %d: uniform %.4f, trees %.4f, grass next to trees %.4f\n",
              method == SamplerMethod::Pool ? "pool" : "bridson", k, r.uniform, r.trees, r.grass);
  return r;
}

TEST(SamplingPlacement, CountsFollowTheReferenceNextToObstacles) {
  for (const SamplerMethod method : {SamplerMethod::Pool, SamplerMethod::Bridson}) {
    const CountRatios r = countRatios(method, 30);
    EXPECT_NEAR(r.uniform, 1.0, 0.03);
    EXPECT_NEAR(r.trees, 1.0, 0.03);
    EXPECT_NEAR(r.grass, 1.0, 0.03);
  }
  countRatios(SamplerMethod::Pool, 100);  // for the record: more candidates pack denser
}

// The Grand Canyon DEM (../shared/data/dem) under bench/configs/grand_canyon.json, six species
// on elevation bands with exclusions between layers (pool, the default). No repetition: the
// windows' angles are continuous, so two of the world's thousands of windows can turn by
// nearly the same angle and share a few hundred points over a few hundred metres (0.14 % of
// the ricegrass); a translate of the whole pattern would be 100 %. Flat tile borders for the
// species with enough instances that the terrain's own unevenness averages out: a grid
// shifted by half a tile moves the sparser species' profiles by 5-9 % (Utah juniper).
TEST(SamplingPlacement, GrandCanyonDemHasNoRepetitionOrTileBorders) {
  if (eco::test::demDir().empty()) GTEST_SKIP() << "shared DEM folder not present";
  World world = loadWorld(eco::test::sourceDir() + "/bench/configs/grand_canyon.json");
  // The packed pattern: the border profile's noise model is Poisson counting, which clumps and
  // gaps inflate (their fields are pure functions of the position, seam-free by construction:
  // SamplingPattern.DeterministicAndSeamFree).
  for (SpeciesConfig& sp : world.config.species) sp.pattern.style = PatternStyle::Packed;
  const float W = world.terrain.extentX(), H = world.terrain.extentZ(), tile = world.config.tileSize;
  std::vector<std::vector<Pt>> species(world.config.species.size());
  for (const TileData& t : bakeInMemory(world, 2))
    for (const Instance& i : t.instances) species[i.species].push_back({i.position.x, i.position.z});
  for (size_t s = 0; s < species.size(); ++s) {
    const std::vector<Pt>& pts = species[s];
    if (pts.size() < 50000) continue;
    const float r = world.config.species[s].radius;
    const metrics::TwinReport twins = metrics::worstTwins(pts, W, H);
    const metrics::BorderProfile profile = metrics::borderProfile(pts, W, H, tile, 0.25f * r, 3.f * r);
    std::printf("%-18s %7zu: twins %.5f, border worst %.3f (%.3f beyond 2 sigma)\n", world.config.species[s].name.c_str(),
                pts.size(), twins.worstShare, profile.worstDeviation(), profile.worstExcess());
    EXPECT_LT(twins.worstShare, 0.005) << world.config.species[s].name;
    if (pts.size() >= 300000) {
      EXPECT_LT(profile.worstExcess(), 0.03) << world.config.species[s].name;
    }
  }
}

}  // namespace
}  // namespace eco
