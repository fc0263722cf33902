// Blue-noise quality: normalized minimum distance, no band along tile borders, few fillable
// gaps, density following the field, islands reached.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "spacing_check.h"
#include "sampling_fixtures.h"

namespace eco {
namespace {

using test::flatten;

// Distance from each probe to its nearest sample, through a bucket grid of `cell` metres.
struct NearestIndex {
  float cell;
  int nx, nz;
  std::vector<std::vector<Sample>> buckets;
  NearestIndex(const std::vector<Sample>& samples, float worldX, float worldZ, float c)
      : cell(c), nx(int(worldX / c) + 1), nz(int(worldZ / c) + 1), buckets(size_t(nx) * size_t(nz)) {
    for (const Sample& s : samples) buckets[size_t(int(s.z / cell)) * size_t(nx) + size_t(int(s.x / cell))].push_back(s);
  }
  // Nearest distance, or `cell` when none is within one cell.
  float nearest(float x, float z) const {
    const int ci = int(x / cell), cj = int(z / cell);
    float best = cell * cell;
    for (int j = std::max(0, cj - 1); j <= std::min(nz - 1, cj + 1); ++j)
      for (int i = std::max(0, ci - 1); i <= std::min(nx - 1, ci + 1); ++i)
        for (const Sample& s : buckets[size_t(j) * size_t(nx) + size_t(i)])
          best = std::min(best, (s.x - x) * (s.x - x) + (s.z - z) * (s.z - z));
    return std::sqrt(best);
  }
};

float distanceToTileBorder(float v, float tile) {
  const float f = std::fmod(v, tile);
  return std::min(f, tile - f);
}

TEST(SamplingQuality, NormalizedMinimumDistanceAtUniformDensity) {
  for (uint64_t seed : {1ull, 2ull}) {
    const SamplerParams p = test::uniformParams(301.f, 263.f, 24.f, 1.f, seed);
    const std::vector<Sample> all = flatten(scatterAll(p, nullptr, 2));
    const SpacingReport r = checkSpacing(p, nullptr, all);
    ASSERT_EQ(r.violations, 0u);
    const double dMin = r.minRatio * 1.0;
    const double rMax = std::sqrt(double(p.worldX) * double(p.worldZ) / (2.0 * std::sqrt(3.0) * double(all.size())));
    const double rho = dMin / (2.0 * rMax);
    RecordProperty("rho", std::to_string(rho));
    std::printf("seed %llu: %zu samples, rho = %.4f\n", static_cast<unsigned long long>(seed), all.size(), rho);
    EXPECT_GE(rho, 0.72);
    EXPECT_LE(rho, 0.80);  // not the over-regular packing of circle-only candidates
  }
}

// Counts per unit area in the band within one radius of interior tile borders versus the
// rest, both away from the world edges (which pack denser in any sampler).
TEST(SamplingQuality, TileBordersLookLikeTheInterior) {
  const float r = 1.f, tile = 16.f;
  double band = 0, inner = 0, bandArea = 0, innerArea = 0;
  for (uint64_t seed : {1ull, 2ull, 3ull}) {
    const SamplerParams p = test::uniformParams(320.f, 320.f, tile, r, seed);
    for (const Sample& s : flatten(scatterAll(p, nullptr, 2))) {
      if (s.x < 2 * r || s.z < 2 * r || s.x > p.worldX - 2 * r || s.z > p.worldZ - 2 * r) continue;
      const bool nearBorder = distanceToTileBorder(s.x, tile) < r || distanceToTileBorder(s.z, tile) < r;
      (nearBorder ? band : inner) += 1;
    }
    // Areas by the same classification on a fine lattice.
    for (float z = 0.05f; z < p.worldZ; z += 0.1f)
      for (float x = 0.05f; x < p.worldX; x += 0.1f) {
        if (x < 2 * r || z < 2 * r || x > p.worldX - 2 * r || z > p.worldZ - 2 * r) continue;
        const bool nearBorder = distanceToTileBorder(x, tile) < r || distanceToTileBorder(z, tile) < r;
        (nearBorder ? bandArea : innerArea) += 0.01;
      }
  }
  const double bandDensity = band / bandArea, innerDensity = inner / innerArea;
  std::printf("band %.0f samples %.4f /m^2, interior %.0f samples %.4f /m^2, ratio %.4f\n", band, bandDensity, inner,
              innerDensity, bandDensity / innerDensity);
  // Poisson counting noise on the band is ~0.4 %; blue noise is below that.
  EXPECT_NEAR(bandDensity / innerDensity, 1.0, 0.015);
}

// Fraction of the world where one more sample would still fit (farther than r from all).
TEST(SamplingQuality, FewFillableGapsInsideTilesAndAlongBorders) {
  const float r = 1.f, tile = 16.f;
  const SamplerParams p = test::uniformParams(200.f, 200.f, tile, r, 4);
  const std::vector<Sample> all = flatten(scatterAll(p, nullptr, 2));
  const NearestIndex index(all, p.worldX, p.worldZ, 2.f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.f, 200.f);
  double bandProbes = 0, bandFree = 0, innerProbes = 0, innerFree = 0;
  for (int i = 0; i < 400000; ++i) {
    const float x = u(rng), z = u(rng);
    const bool free = index.nearest(x, z) >= r;
    const bool nearBorder = distanceToTileBorder(x, tile) < r || distanceToTileBorder(z, tile) < r;
    (nearBorder ? bandProbes : innerProbes) += 1;
    (nearBorder ? bandFree : innerFree) += free;
  }
  const double bandGap = bandFree / bandProbes, innerGap = innerFree / innerProbes;
  std::printf("fillable area: interior %.5f, tile-border band %.5f\n", innerGap, bandGap);
  EXPECT_LT(innerGap, 0.01);
  EXPECT_LT(bandGap, 0.01);
}

struct StripCounts {
  std::vector<double> perStrip;
  double total = 0;
};

StripCounts countStrips(const std::vector<Sample>& all, float width, int strips) {
  StripCounts c;
  c.perStrip.assign(size_t(strips), 0.0);
  for (const Sample& s : all) {
    c.perStrip[size_t(std::min(strips - 1, int(s.x / width * float(strips))))] += 1;
    c.total += 1;
  }
  return c;
}

// On density = x / width, strip i of 10 has mean density (i + 0.5) / 10: its share of the
// samples must be (2i + 1) / 100.
void expectCountsFollowGradient(bool variableRadius) {
  const float width = 400.f;
  SamplerParams p = test::uniformParams(width, 150.f, 25.f, 0.5f, 3);
  p.classes = {{0.5f, 2.f}};
  p.variableRadius = variableRadius;
  const test::GradientX gradient(width);
  const StripCounts c = countStrips(flatten(scatterAll(p, &gradient, 2)), width, 10);
  for (int i = 0; i < 10; ++i) {
    const double share = c.perStrip[size_t(i)] / c.total, expected = (2.0 * i + 1.0) / 100.0;
    std::printf("%s strip %d: share %.4f expected %.4f\n", variableRadius ? "variable" : "roulette", i, share, expected);
    EXPECT_NEAR(share / expected, 1.0, i == 0 ? 0.25 : 0.1) << "strip " << i;
  }
}

TEST(SamplingQuality, VariableRadiusCountsFollowTheDensity) { expectCountsFollowGradient(true); }
TEST(SamplingQuality, RouletteCountsFollowTheDensity) { expectCountsFollowGradient(false); }

// In a sparse region, roulette thinning leaves holes; variable radius keeps spacing even.
TEST(SamplingQuality, VariableRadiusLeavesFewerHolesThanRoulette) {
  const float width = 200.f;
  struct Flat : DensityField {
    float density(int, float, float) const override { return 0.15f; }
  } sparse;
  double holes[2];
  for (int mode = 0; mode < 2; ++mode) {
    SamplerParams p = test::uniformParams(width, width, 25.f, 0.5f, 8);
    p.classes = {{0.5f, 2.f}};
    p.variableRadius = mode == 0;
    const std::vector<Sample> all = flatten(scatterAll(p, &sparse, 2));
    const float spacing = sampleRadius(p.classes[0], 0.15f);  // 1.29 m
    const NearestIndex index(all, width, width, 4.f);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(5.f, width - 5.f);
    double count = 0;
    for (int i = 0; i < 100000; ++i) count += index.nearest(u(rng), u(rng)) > 1.5f * spacing;
    holes[mode] = count / 100000;
  }
  std::printf("area farther than 1.5 spacing from any sample: variable %.5f, roulette %.5f\n", holes[0], holes[1]);
  EXPECT_LT(holes[0], 0.01);
  EXPECT_GT(holes[1], 10 * holes[0]);
}

TEST(SamplingQuality, DisconnectedIslandsAreAllFilled) {
  const test::DiscIslands islands(20.f, 3.f);  // discs 6 m wide, 14 m of zero density between
  SamplerParams p = test::uniformParams(200.f, 200.f, 32.f, 0.5f, 6);
  p.classes = {{0.5f, 2.f}};
  for (const bool variable : {true, false}) {
    p.variableRadius = variable;
    const std::vector<Sample> all = flatten(scatterAll(p, &islands, 2));
    std::vector<int> perIsland(100, 0);
    for (const Sample& s : all) {
      ASSERT_GT(islands.density(0, s.x, s.z), 0.f);
      ++perIsland[size_t(int(s.z / 20.f) * 10 + int(s.x / 20.f))];
    }
    // A disc of radius 3 holds about pi 3^2 * 0.65 / 0.25 ~ 73 samples.
    for (int count : perIsland) EXPECT_GT(count, 55) << (variable ? "variable" : "roulette");
  }
}

}  // namespace
}  // namespace eco
