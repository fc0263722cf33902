// The ecological measures of tests/ecology_metrics.h (issue #28) against point patterns whose
// answers are known: complete spatial randomness (Poisson), a hexagonal lattice, a clustered
// Thomas process, single crowns, understory placed by hand and a straight river. The patterns
// are generated here (std::mt19937_64), never by the sampler.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "ecology_metrics.h"

namespace eco::ecology {
namespace {

// Poisson (CSR) points of density `lambda` per m^2 over a region.
std::vector<P> poisson(double lambda, const Window& region, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::poisson_distribution<long> count(lambda * region.area());
  std::uniform_real_distribution<double> ux(region.x0, region.x1), uz(region.z0, region.z1);
  std::vector<P> pts(size_t(count(rng)), P{0, 0});
  for (P& p : pts) {
    p.x = ux(rng);
    p.z = uz(rng);
  }
  return pts;
}

// A hexagonal lattice of spacing a over a region: every point has six neighbours at distance a.
std::vector<P> hexagonal(double a, const Window& region) {
  std::vector<P> pts;
  const double dz = a * std::sqrt(3.0) / 2;
  int row = 0;
  for (double z = region.z0; z < region.z1; z += dz, ++row)
    for (double x = region.x0 + (row % 2 ? a / 2 : 0); x < region.x1; x += a) pts.push_back({x, z});
  return pts;
}

// Thomas process: Poisson parents (kappa per m^2), each with Poisson(mu) children displaced by
// an isotropic normal of deviation sigma. Parents reach 4 sigma beyond the region so that the
// region's edges are not thinner than its middle.
std::vector<P> thomas(double kappa, double mu, double sigma, const Window& region, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<P> parents = poisson(kappa, region.grown(4 * sigma), seed + 1);
  std::poisson_distribution<int> children(mu);
  std::normal_distribution<double> offset(0, sigma);
  std::vector<P> pts;
  for (const P& parent : parents)
    for (int c = children(rng); c > 0; --c) {
      const P p{parent.x + offset(rng), parent.z + offset(rng)};
      if (region.contains(p.x, p.z)) pts.push_back(p);
    }
  return pts;
}

const Window kWindow{0, 0, 1000, 1000};
const Window kRegion = kWindow.grown(60);  // the window and a margin for neighbours outside it

TEST(EcologyMetrics, PoissonHasClarkEvansOneAndFlatPairCorrelation) {
  const std::vector<P> pts = poisson(0.02, kRegion, 1);  // about 20,000 in the window, spacing 7 m
  const ClarkEvans ce = clarkEvans(pts, kWindow);
  EXPECT_GT(ce.n, 19000u);
  EXPECT_NEAR(ce.R, 1.0, 0.05);
  EXPECT_NEAR(ce.expectedNN, 0.5 / std::sqrt(0.02), 0.1);
  const PairCorrelation g = pairCorrelation(pts, kWindow, 30, 15);
  ASSERT_EQ(g.g.size(), 15u);
  for (size_t b = 0; b < g.g.size(); ++b) EXPECT_NEAR(g.g[b], 1.0, 0.1) << "r = " << g.r[b];
}

TEST(EcologyMetrics, HexagonalLatticeIsRegularWithAHardCore) {
  const double a = 5;
  const std::vector<P> pts = hexagonal(a, kRegion);
  const ClarkEvans ce = clarkEvans(pts, kWindow);
  // Under CSR of density 2 / (sqrt(3) a^2) the expected distance is 0.5 a (sqrt(3) / 2)^(1/2),
  // so R = 2 (2 / sqrt(3))^(1/2) = 2.149.
  EXPECT_NEAR(ce.R, 2 * std::sqrt(2 / std::sqrt(3.0)), 0.02);
  EXPECT_NEAR(ce.meanNN, a, 1e-9);
  EXPECT_NEAR(ce.medianNN, a, 1e-9);
  EXPECT_NEAR(minimumPairDistance(pts), a, 1e-9);
  // g = 0 below the spacing, a peak at it.
  const PairCorrelation g = pairCorrelation(pts, kWindow, 2 * a, 20);
  for (size_t b = 0; b < g.g.size(); ++b) {
    if (g.r[b] + 0.25 < 0.95 * a) {
      EXPECT_EQ(g.g[b], 0.0) << "r = " << g.r[b];
    }
  }
  const std::vector<double> rings = pairCorrelationRings(pts, kWindow, {{0.5 * a, 0.9 * a}, {0.95 * a, 1.05 * a}});
  EXPECT_EQ(rings[0], 0.0);
  EXPECT_GT(rings[1], 3.0);
}

TEST(EcologyMetrics, ThomasClustersHaveClarkEvansBelowOne) {
  // 100 clusters of 20 around each parent, 5 m across.
  const std::vector<P> pts = thomas(1e-4, 20, 5, kRegion, 3);
  const ClarkEvans ce = clarkEvans(pts, kWindow);
  EXPECT_GT(ce.n, 1000u);
  EXPECT_LT(ce.R, 0.6);
  const PairCorrelation g = pairCorrelation(pts, kWindow, 40, 4);
  EXPECT_GT(g.g[0], 5.0);  // within 10 m of a point: its cluster
  EXPECT_NEAR(g.g[3], 1.0, 0.5);
}

TEST(EcologyMetrics, MinimumPairDistanceIsExact) {
  const std::vector<P> pts = poisson(0.05, {0, 0, 100, 100}, 4);
  double brute = kInf;
  for (size_t i = 0; i < pts.size(); ++i)
    for (size_t j = i + 1; j < pts.size(); ++j) brute = std::min(brute, std::hypot(pts[i].x - pts[j].x, pts[i].z - pts[j].z));
  EXPECT_DOUBLE_EQ(minimumPairDistance(pts), brute);
  // Nearest neighbours by brute force too.
  const std::vector<double> nn = nearestNeighbourDistances(pts, {0, 0, 100, 100});
  ASSERT_EQ(nn.size(), pts.size());
  for (size_t i = 0; i < pts.size(); i += 17) {
    double best = kInf;
    for (size_t j = 0; j < pts.size(); ++j)
      if (j != i) best = std::min(best, std::hypot(pts[i].x - pts[j].x, pts[i].z - pts[j].z));
    EXPECT_DOUBLE_EQ(nn[i], best);
  }
  EXPECT_EQ(minimumPairDistance(std::vector<P>{{1, 1}}), kInf);
}

TEST(EcologyMetrics, DensestFullWindowFindsTheDenseSquare) {
  std::vector<P> pts = poisson(1e-4, {0, 0, 3000, 2000}, 5);
  const std::vector<P> dense = poisson(1e-3, {1500, 750, 2500, 1750}, 6);
  pts.insert(pts.end(), dense.begin(), dense.end());
  const DenseWindow w = densestFullWindow(pts, 3000, 2000);
  EXPECT_EQ(w.window.x0, 1500);
  EXPECT_EQ(w.window.z0, 750);
  EXPECT_EQ(w.window.x1, 2500);
  EXPECT_EQ(w.window.z1, 1750);
  EXPECT_EQ(w.count, cropped(pts, w.window).size());
  // Narrower than a window in x: the whole axis.
  const std::vector<P> narrow = poisson(1e-3, {0, 0, 600, 3000}, 7);
  const DenseWindow n = densestFullWindow(narrow, 600, 3000);
  EXPECT_EQ(n.window.x0, 0);
  EXPECT_EQ(n.window.x1, 600);
  EXPECT_EQ(n.window.depth(), 1000);
  EXPECT_EQ(n.count, cropped(narrow, n.window).size());
}

TEST(EcologyMetrics, CrownCoverOfOneDiscIsItsArea) {
  const double r = 10;
  const std::vector<Disc> one{{50, 50, r}};
  const double expected = std::numbers::pi * r * r / 1e4;
  EXPECT_NEAR(crownCover(one, {0, 0, 100, 100}, 0.1), expected, 0.01 * expected);
  // Overlapping crowns count once.
  EXPECT_NEAR(crownCover({{50, 50, r}, {50, 50, r}, {52, 50, 1}}, {0, 0, 100, 100}, 0.1), expected, 0.01 * expected);
  // Half a disc inside the window.
  EXPECT_NEAR(crownCover({{0, 50, r}}, {0, 0, 100, 100}, 0.1), expected / 2, 0.01 * expected);
  EXPECT_EQ(crownCover({}, {0, 0, 100, 100}, 0.5), 0.0);
}

TEST(EcologyMetrics, UnderCrownRatioSeesWhereTheUnderstoryGrows) {
  const double world = 512;
  // Crowns of radius 6 at Poisson centres, about a quarter of the ground.
  std::vector<Disc> crowns;
  for (const P& c : poisson(0.0025, {-6, -6, world + 6, world + 6}, 8)) crowns.push_back({c.x, c.z, 6});
  const auto underAny = [&](const P& p) {
    for (const Disc& d : crowns)
      if ((p.x - d.x) * (p.x - d.x) + (p.z - d.z) * (p.z - d.z) <= d.r * d.r) return true;
    return false;
  };
  const std::vector<P> uniform = poisson(1.0, {0, 0, world, world}, 9);
  std::vector<P> shade, light;
  for (const P& p : uniform) (underAny(p) ? shade : light).push_back(p);

  const UnderCrown u = underCrownRatio(uniform, crowns, world, world);
  EXPECT_GE(u.cells, 56);  // of 64: nearly every 64 m cell has both grounds
  EXPECT_NEAR(u.ratio, 1.0, 0.03);
  EXPECT_NEAR(u.underArea / (u.underArea + u.gapArea), double(shade.size()) / double(uniform.size()), 0.01);

  // Every other cell in x and z: a quarter of the cells, the same answer.
  const UnderCrown sampled = underCrownRatio(uniform, crowns, world, world, 64, 0.5, 0.1, 2);
  EXPECT_LE(sampled.cells, 16);
  EXPECT_GE(sampled.cells, 12);
  EXPECT_NEAR(sampled.ratio, 1.0, 0.06);

  const UnderCrown s = underCrownRatio(shade, crowns, world, world);
  EXPECT_TRUE(std::isinf(s.ratio) || s.ratio > 100) << s.ratio;
  EXPECT_EQ(s.gapCount, 0);
  const UnderCrown l = underCrownRatio(light, crowns, world, world);
  EXPECT_EQ(l.ratio, 0.0);

  // Cells wholly under crowns or wholly open are left out: one crown covering the only cell.
  const UnderCrown closed = underCrownRatio(uniform, {{32, 32, 100}}, 64, 64);
  EXPECT_EQ(closed.cells, 0);
  EXPECT_TRUE(std::isnan(closed.ratio));
}

TEST(EcologyMetrics, RiparianProfileOfUniformPointsIsFlat) {
  const double world = 1000;
  const auto river = [](double x, double) { return std::abs(x - 500); };
  const std::vector<P> pts = poisson(0.2, {0, 0, world, world}, 10);
  const double lambda = double(pts.size()) / (world * world);
  const RiparianProfile prof = riparianProfile(pts, river, 5, 100, world, world, 1);
  ASSERT_EQ(prof.density.size(), 20u);
  for (size_t b = 0; b < prof.density.size(); ++b) {
    EXPECT_NEAR(prof.area[b], 2 * 5 * world, 1e-6);
    EXPECT_NEAR(prof.density[b] / lambda, 1.0, 0.1) << "bin " << b;
  }
  EXPECT_NEAR(prof.beyondArea, world * world - 2 * 100 * world, 1e-3);
  EXPECT_NEAR(prof.beyondDensity() / lambda, 1.0, 0.02);
  // In the water: a 4 m strip of 1000 m, about 800 points.
  const double expected = lambda * 4 * world;
  EXPECT_NEAR(double(inWaterCount(pts, river, 2.0)), expected, 0.15 * expected);
  // A species that keeps 10 m from the water has none in it and an empty first two bins.
  std::vector<P> dry;
  for (const P& p : pts)
    if (river(p.x, p.z) >= 10) dry.push_back(p);
  EXPECT_EQ(inWaterCount(dry, river, 2.0), 0u);
  const RiparianProfile dryProf = riparianProfile(dry, river, 5, 100, world, world, 1);
  EXPECT_EQ(dryProf.density[0], 0.0);
  EXPECT_EQ(dryProf.density[1], 0.0);
  EXPECT_NEAR(dryProf.density[2] / lambda, 1.0, 0.1);
}

TEST(EcologyMetrics, MedianAndCompactPointTypes) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
  // The measures take any record with x and z (the bench's float records).
  struct F {
    float x, z;
  };
  const std::vector<F> pts{{0, 0}, {3, 4}, {10, 0}};
  EXPECT_EQ(minimumPairDistance(pts), 5.0);
  EXPECT_EQ(clarkEvans(pts, {-1, -1, 11, 11}).n, 3u);
}

}  // namespace
}  // namespace eco::ecology
