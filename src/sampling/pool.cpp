#include "sampling/pool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "core/hash.h"
#include "sampling/directions.h"

namespace eco::sampling {

namespace {

// Toroidal grid of cells just under rho / sqrt(2): at most one point per cell at a step.
struct TorusGrid {
  int n = 0;
  float cell = 0, period = 0;
  std::vector<int> at;
  void reset(float rho, float T, std::span<const PoolPoint> pts) {
    period = T;
    n = int(std::ceil(double(T) / (double(rho) / std::sqrt(2.0)) * (1.0 + 1e-6)));
    cell = T / float(n);
    at.assign(size_t(n) * size_t(n), -1);
    for (size_t i = 0; i < pts.size(); ++i) add(pts[i], int(i));
  }
  int index(float v) const { return std::min(n - 1, int(v / cell)); }
  void add(const PoolPoint& p, int id) { at[size_t(index(p.z)) * size_t(n) + size_t(index(p.x))] = id; }
  float dist2(const PoolPoint& p, float x, float z) const {
    float dx = std::fabs(p.x - x), dz = std::fabs(p.z - z);
    dx = std::min(dx, period - dx);
    dz = std::min(dz, period - dz);
    return dx * dx + dz * dz;
  }
  // Smallest squared torus distance from (x, z) to a point within `cells` cells.
  float nearest2(std::span<const PoolPoint> pts, float x, float z, int cells, float stopBelow2) const {
    const int ci = index(x), cj = index(z);
    float best = 3.4e38f;
    for (int dj = -cells; dj <= cells; ++dj) {
      const size_t row = size_t((cj + dj + n) % n) * size_t(n);
      for (int di = -cells; di <= cells; ++di) {
        const int id = at[row + size_t((ci + di + n) % n)];
        if (id < 0) continue;
        best = std::min(best, dist2(pts[size_t(id)], x, z));
        if (best < stopBelow2) return best;
      }
    }
    return best;
  }
};

float wrap(float v, float T) {
  if (v < 0.f) v += T;
  if (v >= T) v -= T;
  return v >= T ? 0.f : v;  // -tiny + T can round to T
}

}  // namespace

std::vector<PoolPoint> generatePool(uint64_t seed, float period, float maxRatio, float step, int candidates) {
  std::vector<float> radii;
  for (double rho = double(maxRatio); rho > 1.0 + 1e-6; rho *= double(step)) radii.push_back(float(rho));
  radii.push_back(1.f);

  Rng rng(seed);
  std::vector<PoolPoint> pts;
  pts.push_back({rng.uniform() * period, rng.uniform() * period, 3.4e38f});
  const AnnulusTable& offsets = annulusTable();
  TorusGrid grid;
  std::vector<int> active;
  for (const float rho : radii) {
    grid.reset(rho, period, pts);
    // A candidate is accepted at least rho (1 + 2^-20) from every point, so delta >= rho holds
    // after the float rounding of later transforms' distances.
    const float accept2 = rho * rho * (1.f + 1.f / 1048576.f);
    // Reach of the acceptance test (rho) and of delta (the parent is within 2 rho), in cells.
    const int acceptCells = int(std::ceil(rho / grid.cell)), deltaCells = int(std::ceil(2.f * rho / grid.cell));
    active.resize(pts.size());
    std::iota(active.begin(), active.end(), 0);
    while (!active.empty()) {
      const size_t a = size_t((uint64_t(uint32_t(rng.next())) * active.size()) >> 32);
      const PoolPoint from = pts[size_t(active[a])];
      bool grew = false;
      for (int t = 0; t < candidates && !grew; ++t) {
        const AnnulusOffset& o = offsets.at[rng.next() & (kAnnulusSize - 1)];
        const float x = wrap(from.x + rho * o.x, period), z = wrap(from.z + rho * o.z, period);
        if (grid.nearest2(pts, x, z, acceptCells, accept2) < accept2) continue;
        const float delta = std::sqrt(grid.nearest2(pts, x, z, deltaCells, 0.f));
        pts.push_back({x, z, delta});
        grid.add(pts.back(), int(pts.size() - 1));
        active.push_back(int(pts.size() - 1));
        grew = true;
      }
      if (!grew) {
        active[a] = active.back();
        active.pop_back();
      }
    }
  }
  return pts;
}

ArrangedPool arrangePool(std::span<const PoolPoint> pool) {
  const float T = kPoolPeriod;
  std::vector<uint32_t> bucketOf(pool.size());
  ArrangedPool out;
  out.start.assign(size_t(kPoolBuckets) * kPoolBuckets + 1, 0);
  const float perBucket = float(kPoolBuckets) / T;
  for (size_t i = 0; i < pool.size(); ++i) {
    const float x = pool[i].x, z = pool[i].z;
    const int bi = std::min(kPoolBuckets - 1, int(x * perBucket)), bj = std::min(kPoolBuckets - 1, int(z * perBucket));
    bucketOf[i] = uint32_t(bj * kPoolBuckets + bi);
    ++out.start[bucketOf[i] + 1];
  }
  std::partial_sum(out.start.begin(), out.start.end(), out.start.begin());
  // By decreasing delta, ties in input order; basePool() already is, so no sort there.
  std::vector<uint32_t> byDelta(pool.size());
  std::iota(byDelta.begin(), byDelta.end(), 0u);
  auto deltaGreater = [](const PoolPoint& a, const PoolPoint& b) { return a.delta > b.delta; };
  if (!std::is_sorted(pool.begin(), pool.end(), deltaGreater))
    std::stable_sort(byDelta.begin(), byDelta.end(), [&](uint32_t a, uint32_t b) { return deltaGreater(pool[a], pool[b]); });
  // A counting sort by bucket keeps that order inside each bucket.
  std::vector<uint32_t> next(out.start.begin(), out.start.end() - 1);
  out.points.resize(pool.size());
  for (uint32_t i : byDelta) {
    const PoolPoint& q = pool[i];
    out.points[next[bucketOf[i]]++] = {q.x, q.z, q.delta, poolPointBits(q.x, q.z)};
  }
  return out;
}

uint32_t poolPointBits(float x, float z) {
  const uint64_t pos = uint64_t(std::bit_cast<uint32_t>(x)) << 32 | std::bit_cast<uint32_t>(z);
  return uint32_t(mix64(pos ^ 0x706f696e74626974ull) >> 32);
}

PoolView poolView(uint64_t classKey, int64_t windowX, int64_t windowZ) {
  const uint64_t h = mix64(hashCombine(hashCombine(classKey, uint64_t(windowX)), uint64_t(windowZ)));
  PoolView v;
  v.offsetX = float((h >> 8) & 0xffffff) * (kPoolPeriod / 16777216.f);
  v.offsetZ = float((h >> 32) & 0xffffff) * (kPoolPeriod / 16777216.f);
  // t = tan(angle / 2) in [-1, 1): cos = (1 - t^2) / (1 + t^2), sin = 2 t / (1 + t^2), an angle
  // in [-90, 90) degrees; bit 0 turns it by 180 more, bit 1 mirrors x.
  const double t = double(mix64(h) >> 40) * (2.0 / 16777216.0) - 1.0;
  double c = (1.0 - t * t) / (1.0 + t * t), s = 2.0 * t / (1.0 + t * t);
  if (h & 1u) c = -c, s = -s;
  const double mirror = (h & 2u) ? -1.0 : 1.0;
  v.m00 = c * mirror;
  v.m01 = -s;
  v.m10 = s * mirror;
  v.m11 = c;
  return v;
}

}  // namespace eco::sampling
