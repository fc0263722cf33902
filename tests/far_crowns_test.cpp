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

}  // namespace
