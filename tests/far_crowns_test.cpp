// The far field's crown pattern (shaders/far_crowns.h, drawn by terrain.frag) covers the share
// of the ground it is asked to: measured here by Monte Carlo over its own geometry (centres
// jittered uniformly in the middle of each cell, each point to its true nearest centre), with
// a random generator of its own rather than the shader's hash.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "shaders/far_crowns.h"

namespace {

TEST(FarCrowns, RadiusCoversTheAskedShareOfTheGround) {
  constexpr int kCells = 64;
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> cx(kCells * kCells), cz(kCells * kCells);
  for (int i = 0; i < kCells * kCells; ++i) {
    cx[size_t(i)] = double(FAR_CROWN_JITTER_MIN) + double(FAR_CROWN_JITTER_SPAN) * unit(rng);
    cz[size_t(i)] = double(FAR_CROWN_JITTER_MIN) + double(FAR_CROWN_JITTER_SPAN) * unit(rng);
  }
  // distances to the nearest centre of points away from the border (3 x 3 neighbourhood)
  std::vector<double> nearest;
  for (int n = 0; n < 400000; ++n) {
    double x = 1.0 + (kCells - 2) * unit(rng), z = 1.0 + (kCells - 2) * unit(rng);
    int ix = int(x), iz = int(z);
    double best = 1e9;
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) {
        size_t c = size_t((iz + j) * kCells + ix + i);
        best = std::min(best, std::hypot(x - (ix + i + cx[c]), z - (iz + j + cz[c])));
      }
    nearest.push_back(best);
  }
  for (float seen : {0.02f, 0.1f, 0.25f, 0.4f, 0.5f, 0.6f, 0.75f, 0.85f, 0.9f, 0.95f, 0.97f}) {
    double r = double(eco::gpu::farCrownRadius(seen)), covered = 0;
    for (double d : nearest) covered += d < r;
    covered /= double(nearest.size());
    EXPECT_NEAR(covered, double(seen), 0.01) << "seen " << seen << ", radius " << r;
  }
  EXPECT_EQ(eco::gpu::farCrownRadius(0.0f), 0.0f);
  EXPECT_EQ(eco::gpu::farCrownRadius(-1.0f), 0.0f);
  EXPECT_EQ(eco::gpu::farCrownRadius(2.0f), eco::gpu::farCrownRadius(1.0f));
}

// The crowns on top hide their neighbours' rims, so the mean of sqrt(1 - rho^2) over the ground
// the crowns cover grows with the cover; the shader subtracts farCrownDomeMean to keep a
// crown's relief from brightening the stand. Measured here with the on-top rule written out
// (the highest of FAR_CROWN_LIFT x a per-crown random height + 1 - rho^2) over every centre in
// reach.
TEST(FarCrowns, DomeMeanIsTheVisibleMean) {
  constexpr int kCells = 48;
  std::mt19937_64 rng(32);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> cx(kCells * kCells), cz(kCells * kCells), lift(kCells * kCells);
  for (int i = 0; i < kCells * kCells; ++i) {
    cx[size_t(i)] = double(FAR_CROWN_JITTER_MIN) + double(FAR_CROWN_JITTER_SPAN) * unit(rng);
    cz[size_t(i)] = double(FAR_CROWN_JITTER_MIN) + double(FAR_CROWN_JITTER_SPAN) * unit(rng);
    lift[size_t(i)] = double(FAR_CROWN_LIFT) * unit(rng);
  }
  for (float seen : {0.1f, 0.4f, 0.7f, 0.85f, 0.95f}) {
    const double r = double(eco::gpu::farCrownRadius(seen));
    double sum = 0, covered = 0;
    for (int n = 0; n < 200000; ++n) {
      double x = 2.0 + (kCells - 4) * unit(rng), z = 2.0 + (kCells - 4) * unit(rng);
      double top = -1, dome = 0;
      for (int j = -2; j <= 2; ++j)
        for (int i = -2; i <= 2; ++i) {
          size_t c = size_t((int(z) + j) * kCells + int(x) + i);
          double rho2 = (std::pow(x - (int(x) + i + cx[c]), 2) + std::pow(z - (int(z) + j + cz[c]), 2)) / (r * r);
          if (rho2 >= 1) continue;
          if (lift[c] + 1 - rho2 > top) top = lift[c] + 1 - rho2, dome = std::sqrt(1 - rho2);
        }
      if (top < 0) continue;
      covered += 1;
      sum += dome;
    }
    EXPECT_NEAR(covered / 200000.0, double(seen), 0.01) << "seen " << seen;
    EXPECT_NEAR(double(eco::gpu::farCrownDomeMean(seen)), sum / covered, 0.004) << "seen " << seen;
  }
}

// The terminator cuts off `share` of the disc: the segment's area by midpoint integration of
// the chord's length 2 sqrt(1 - x^2) from the terminator to the limb.
TEST(FarCrowns, TerminatorCutsTheLitShare) {
  for (float share : {0.02f, 0.1f, 0.25f, 0.3f, 0.5f, 0.62f, 0.8f, 0.97f}) {
    const double c = double(eco::gpu::farCrownTerminator(share));
    constexpr int kSteps = 20000;
    double area = 0;
    for (int i = 0; i < kSteps; ++i) {
      double x = c + (1 - c) * (i + 0.5) / kSteps;
      area += 2 * std::sqrt(1 - x * x) * (1 - c) / kSteps;
    }
    EXPECT_NEAR(area / 3.14159265358979, double(share), 1e-3) << "share " << share << ", chord " << c;
  }
  EXPECT_EQ(eco::gpu::farCrownTerminator(0.5f), 0.0f);
}

}  // namespace
