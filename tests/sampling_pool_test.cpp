// The precomputed Poisson pool: every prefix {delta >= rho} is rho apart on the torus and
// covers it (what makes a thresholded pool a variable-radius Poisson-disk set); the per-class
// arrangement is a torus symmetry of it; generation is deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "sampling/pool.h"

namespace eco::sampling {
namespace {

// Points of a prefix bucketed on the torus, for nearest-distance queries up to `cell`.
struct TorusIndex {
  float period, cell;
  int n;
  std::vector<std::vector<std::pair<float, float>>> at;
  TorusIndex(float T, float c) : period(T), cell(c), n(std::max(1, int(T / c))), at(size_t(n) * size_t(n)) {
    cell = T / float(n);
  }
  int index(float v) const { return std::min(n - 1, int(v / cell)); }
  void add(float x, float z) { at[size_t(index(z)) * size_t(n) + size_t(index(x))].push_back({x, z}); }
  // Squared torus distance to the nearest point within one cell ring (cell^2 when none).
  float nearest2(float x, float z, bool skipSelf) const {
    float best = cell * cell;
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di)
        for (auto [px, pz] : at[size_t((index(z) + dj + n) % n) * size_t(n) + size_t((index(x) + di + n) % n)]) {
          float dx = std::abs(px - x), dz = std::abs(pz - z);
          dx = std::min(dx, period - dx);
          dz = std::min(dz, period - dz);
          const float d2 = dx * dx + dz * dz;
          if (skipSelf && d2 == 0.f) continue;
          best = std::min(best, d2);
        }
    return best;
  }
};

struct PrefixStats {
  size_t count = 0;
  float minDistance = 0;  // over all pairs, in units of rho
  double fillable = 0;    // area fraction farther than rho from every point
};

template <typename Points>
PrefixStats prefixStats(const Points& points, float T, float rho) {
  TorusIndex index(T, 2.f * rho);
  PrefixStats s;
  for (const auto& p : points)
    if (p.delta >= rho) {
      index.add(p.x, p.z);
      ++s.count;
    }
  float min2 = 4.f * rho * rho;
  for (const auto& p : points)
    if (p.delta >= rho) min2 = std::min(min2, index.nearest2(p.x, p.z, true));
  s.minDistance = std::sqrt(min2) / rho;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, T);
  int free = 0;
  const int probes = 40000;
  for (int i = 0; i < probes; ++i) free += index.nearest2(u(rng), u(rng), false) >= rho * rho;
  s.fillable = double(free) / probes;
  return s;
}

TEST(SamplingPool, EveryPrefixIsSpacedAndCoversTheTorus) {
  const std::span<const PoolPoint> pool = basePool();
  ASSERT_GT(pool.size(), 30000u);
  for (float rho : {1.f, 1.3f, 2.f, 3.7f, 6.f, 11.f, 16.f}) {
    const PrefixStats s = prefixStats(pool, kPoolPeriod, rho);
    const double normalized = double(s.count) * double(rho) * double(rho) / (double(kPoolPeriod) * double(kPoolPeriod));
    std::printf("rho %5.2f: %6zu points, N rho^2 / A %.4f, min distance %.4f rho, fillable %.5f\n", double(rho),
                s.count, normalized, double(s.minDistance), s.fillable);
    EXPECT_GE(s.minDistance, 1.f) << rho;
    // Bridson with k = 30 packs about 0.65 / r^2; a maximal set 0.70.
    EXPECT_GT(normalized, 0.57) << rho;
    EXPECT_LT(normalized, 0.70) << rho;
    EXPECT_LT(s.fillable, 0.01) << rho;
  }
}

// Bucket membership and decreasing delta inside each bucket.
void expectBucketedByDelta(const ArrangedPool& a) {
  const float bucket = kPoolPeriod / kPoolBuckets;
  for (int k = 0; k < kPoolBuckets * kPoolBuckets; ++k)
    for (size_t i = a.start[size_t(k)]; i < a.start[size_t(k) + 1]; ++i) {
      const ArrangedPoint& p = a.points[i];
      ASSERT_EQ(std::min(kPoolBuckets - 1, int(p.z / bucket)) * kPoolBuckets + std::min(kPoolBuckets - 1, int(p.x / bucket)), k);
      if (i > a.start[size_t(k)]) {
        ASSERT_LE(p.delta, a.points[i - 1].delta);  // a bucket stops at its first miss
      }
    }
}

TEST(SamplingPool, ArrangementBucketsTheBaseByDelta) {
  const std::span<const PoolPoint> pool = basePool();
  ASSERT_TRUE(std::is_sorted(pool.begin(), pool.end(), [](const PoolPoint& a, const PoolPoint& b) { return a.delta > b.delta; }));
  const ArrangedPool a = arrangePool(pool);
  ASSERT_EQ(a.points.size(), pool.size());
  ASSERT_EQ(a.start.back(), pool.size());
  expectBucketedByDelta(a);
  // A pool in any order (here shuffled) is sorted by delta first: the same points per bucket.
  std::vector<PoolPoint> shuffled(pool.begin(), pool.end());
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(9));
  const ArrangedPool c = arrangePool(shuffled);
  ASSERT_EQ(c.start, a.start);
  expectBucketedByDelta(c);
  auto key = [](const ArrangedPoint& p) { return std::tuple(p.delta, p.x, p.z, p.bits); };
  for (size_t k = 0; k + 1 < a.start.size(); ++k) {
    std::vector<std::tuple<float, float, float, uint32_t>> pa, pc;
    for (size_t i = a.start[k]; i < a.start[k + 1]; ++i) pa.push_back(key(a.points[i])), pc.push_back(key(c.points[i]));
    std::sort(pa.begin(), pa.end());
    std::sort(pc.begin(), pc.end());
    ASSERT_EQ(pa, pc) << "bucket " << k;
  }
}

// Every window's map is an exact isometry (rotation or mirror) whose entries are exact
// rational functions of the hash: orthonormal to float precision, and different windows turn
// by different angles.
TEST(SamplingPool, WindowViewsAreDistinctIsometries) {
  std::vector<double> angles;
  int mirrored = 0;
  for (int64_t w = 0; w < 64; ++w) {
    const PoolView v = poolView(12345, w, -w);
    EXPECT_NEAR(v.m00 * v.m00 + v.m10 * v.m10, 1.0, 1e-12);
    EXPECT_NEAR(v.m01 * v.m01 + v.m11 * v.m11, 1.0, 1e-12);
    EXPECT_NEAR(v.m00 * v.m01 + v.m10 * v.m11, 0.0, 1e-12);
    const double det = v.m00 * v.m11 - v.m01 * v.m10;
    EXPECT_NEAR(std::abs(det), 1.0, 1e-12);
    mirrored += det < 0;
    EXPECT_GE(v.offsetX, 0.f);
    EXPECT_LT(v.offsetX, kPoolPeriod);
    angles.push_back(std::atan2(v.m10, v.m00));
  }
  EXPECT_GT(mirrored, 16);
  EXPECT_LT(mirrored, 48);
  std::sort(angles.begin(), angles.end());
  EXPECT_EQ(std::adjacent_find(angles.begin(), angles.end()), angles.end());
}

TEST(SamplingPool, GenerationIsDeterministicAndSpaced) {
  const std::vector<PoolPoint> a = generatePool(5, 40.f, 4.f, 0.9f, 30), b = generatePool(5, 40.f, 4.f, 0.9f, 30);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(PoolPoint)), 0);
  EXPECT_NE(generatePool(6, 40.f, 4.f, 0.9f, 30).size(), 0u);
  // delta bounds the distance to every earlier point: check every pair.
  for (size_t j = 0; j < a.size(); ++j)
    for (size_t i = 0; i < j; ++i) {
      float dx = std::abs(a[i].x - a[j].x), dz = std::abs(a[i].z - a[j].z);
      dx = std::min(dx, 40.f - dx);
      dz = std::min(dz, 40.f - dz);
      ASSERT_GE(std::sqrt(dx * dx + dz * dz), a[j].delta) << i << " " << j;
    }
}

}  // namespace
}  // namespace eco::sampling
