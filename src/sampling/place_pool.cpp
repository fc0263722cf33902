// Pool placement (SamplerMethod::Pool): one class of one tile from the Poisson pool, seen
// through a different symmetry and translation in every window (sampling/pool.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "core/hash.h"
#include "sampling/bridson.h"
#include "sampling/grid_checks.h"

namespace eco::sampling {

namespace {

// Pool points whose delta falls short of the local spacing by less than one level of the
// pool (kPoolStep) are still tried, with the exact test: the points with delta >= rho are
// saturated only at the pool's levels, so between two levels they leave room that the next
// level's points fill.
constexpr float kGrade = 0.85f;
// Darts thrown around each pool point that the exact tests rejected although its delta
// reached the spacing: such a point marks a gap the pool cannot fill (a window seam, a
// higher layer's exclusion disc). Every gap lies within one spacing of such a point, because
// the pool covers the plane.
constexpr int kDarts = 40;

struct Hole {
  float x, z, r;
};

// A pool point whose spacing disc crosses its window's edge. Two windows show unrelated parts
// of the pool, so such points may conflict across the seam; they are placed after the rest,
// by decreasing delta over the whole tile, the order the pool itself was built in, so a seam
// keeps the points that space the others out and loses fill points, whose gaps darts refill.
struct SeamPoint {
  float x, z, delta;
};

// Places class `cls` in the tile; leaves its samples in scratch.placed. A pool point is a
// sample where its delta reaches the local spacing (or nearly, see kGrade), the density keeps
// it (survival where the radius is clamped, or everywhere in roulette mode) and the exact
// tests pass.
template <bool kVariable>
void placeFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, uint64_t tileSeed, TileScratch& s) {
  const SamplerParams& p = *setup.params;
  const SampleClass& klass = p.classes[size_t(cls)];
  const DensityField* field = setup.density;
  ClassGrid& grid = s.grids[size_t(cls)];
  const float radius = klass.radius, radius2 = radius * radius * kSpacingMargin;
  collectOthers(setup, b, cls, s, /*withNear=*/true);
  std::vector<PlacedSample>& placed = s.placed;
  placed.clear();
  std::vector<Hole> holes;
  std::vector<SeamPoint> seam;
  const RasterView* densityRaster = kVariable ? field->raster(cls) : nullptr;
  const float clampedDensity = (radius / klass.maxRadius) * (radius / klass.maxRadius);

  // Density and spacing at (x, z): false where no sample may stand.
  auto spacingAt = [&](float x, float z, float& r, float& density) {
    r = radius;
    density = 1.f;
    if constexpr (kVariable) {
      density = densityRaster ? bilinearScaled(*densityRaster, x, z) : field->density(cls, x, z);
      if (!(density > 0.f)) return false;
      r = sampleRadius(klass, density);
    } else if (field) {
      density = field->density(cls, x, z);
    }
    return true;
  };
  // Survival: where the radius is clamped, or everywhere in roulette mode.
  auto survives = [&](float x, float z, float density) {
    if constexpr (kVariable)
      return !(density < clampedDensity) || survivalDraw(p.seed, cls, x, z) < density / clampedDensity;
    else
      return !field || !(density < 1.f) || survivalDraw(p.seed, cls, x, z) < density;
  };
  // The exact tests. Other classes first: they reject ~8x more points than the own class does,
  // and their test is one bit for most points. 1: blocked by another class, 2: by its own.
  auto blocked = [&](float x, float z, float r) {
    if (grid.isNear(x, z) && blockedByOtherClasses(s.others, x, z)) return 1;
    return (kVariable ? blockedByOwn(grid, x, z, r) : blockedNear(grid, x, z, radius2)) ? 2 : 0;
  };
  // The other classes' discs shrunk by the radius: a point inside one of those has no gap
  // within its radius (darts around it could only land in the disc).
  std::vector<OtherClass> deep;
  for (const OtherClass& o : s.others)
    if (o.distance > radius) {
      const float d = o.distance - radius;
      deep.push_back({o.grid, d, d * d * kSpacingMargin});
    }
  // A sample that does not survive stays in the grid as a spacer until the class is placed
  // (and in the tile's border list), so neither a seam point nor a dart takes its place.
  std::vector<int>& spacers = s.spacers;
  spacers.clear();
  auto insert = [&](float x, float z, float r, float density, bool alive) {
    const int cell = grid.insert(x, z, r, alive, /*markDisc=*/false);
    placed.push_back({x, z, r, density, cell, alive});
    if (!alive) spacers.push_back(cell);
  };
  // A pool point whose delta (times the radius) is `spacing`, past the bucket's bound.
  auto consider = [&](float x, float z, float spacing) {
    float r, density;
    if (!spacingAt(x, z, r, density)) return;
    if (kVariable && spacing < r * kGrade) return;
    // Variable radius thins only where the radius is clamped, most of a sparse region's
    // points: there the draw comes first (no exact test, no spacer), as the pool is spaced
    // already; the rare seam point or dart that takes a removed point's place is the price.
    const bool alive = survives(x, z, density);
    if (kVariable && !alive) return;
    if (const int by = blocked(x, z, r)) {
      if (by == 2 || !blockedByOtherClasses(deep, x, z)) holes.push_back({x, z, r});
      return;
    }
    insert(x, z, r, density, alive);
  };
  const uint64_t classKey = hashCombine(p.seed ^ 0x706f6f6c5f636c73ull, uint64_t(cls));
  const double window = double(kPoolWindow) * double(radius);
  // The window grid is shifted per class, so its seams do not follow the tile grid.
  const double gridX = double(classKey >> 40) * (window / 16777216.0), gridZ = double((classKey >> 16) & 0xffffff) * (window / 16777216.0);
  const float reach = 4.f * radius;
  const int64_t wx0 = int64_t(std::floor((b.x0 - reach - gridX) / window));
  const int64_t wx1 = int64_t(std::floor((b.x1 + reach - gridX) / window));
  const int64_t wz0 = int64_t(std::floor((b.z0 - reach - gridZ) / window));
  const int64_t wz1 = int64_t(std::floor((b.z1 + reach - gridZ) / window));
  for (int64_t wz = wz0; wz <= wz1; ++wz)
    for (int64_t wx = wx0; wx <= wx1; ++wx) {
      // Window w's points are taken out to `reach` beyond its edges (within the tile), so
      // near a seam both windows' points compete, by decreasing delta; those within their
      // reach of the window's edge wait for that (SeamPoint).
      const float wx0f = float(gridX + double(wx) * window), wx1f = float(gridX + double(wx + 1) * window);
      const float wz0f = float(gridZ + double(wz) * window), wz1f = float(gridZ + double(wz + 1) * window);
      const float x0 = std::max(b.x0, wx0f - reach), x1 = std::min(b.x1, wx1f + reach);
      const float z0 = std::max(b.z0, wz0f - reach), z1 = std::min(b.z1, wz1f + reach);
      if (!(x0 < x1 && z0 < z1)) continue;
      const PoolView view = poolView(classKey, wx, wz);
      const ArrangedPool& pool = arrangedBase(view.symmetry);
      // world = centre + radius * R (t + k * period - offset) for a torus point t and a copy k
      // per axis (the window's torus square may wrap). The region's torus bounding box, from
      // its corners, picks the buckets.
      const double c = view.cosA, sn = view.sinA;
      const double centreX = gridX + (double(wx) + 0.5) * window, centreZ = gridZ + (double(wz) + 0.5) * window;
      double lx0 = 1e30, lx1 = -1e30, lz0 = 1e30, lz1 = -1e30;
      for (const float cornerX : {x0, x1})
        for (const float cornerZ : {z0, z1}) {
          const double dx = (double(cornerX) - centreX) / radius, dz = (double(cornerZ) - centreZ) / radius;
          const double lx = c * dx + sn * dz, lz = -sn * dx + c * dz;
          lx0 = std::min(lx0, lx), lx1 = std::max(lx1, lx), lz0 = std::min(lz0, lz), lz1 = std::max(lz1, lz);
        }
      const double T = kPoolPeriod, B = T / kPoolBuckets;
      for (const int kz : {-1, 0, 1})
        for (const int kx : {-1, 0, 1}) {
          // Local coordinates of torus point t in this copy: t + shift.
          const double shiftX = kx * T - double(view.offsetX), shiftZ = kz * T - double(view.offsetZ);
          const int bi0 = std::max(0, int(std::floor((lx0 - shiftX) / B)));
          const int bi1 = std::min(kPoolBuckets - 1, int(std::floor((lx1 - shiftX) / B)));
          const int bj0 = std::max(0, int(std::floor((lz0 - shiftZ) / B)));
          const int bj1 = std::min(kPoolBuckets - 1, int(std::floor((lz1 - shiftZ) / B)));
          if (bi0 > bi1 || bj0 > bj1) continue;
          auto toWorldX = [&](double lx, double lz) { return centreX + radius * (c * lx - sn * lz); };
          auto toWorldZ = [&](double lx, double lz) { return centreZ + radius * (sn * lx + c * lz); };
          for (int bj = bj0; bj <= bj1; ++bj)
            for (int bi = bi0; bi <= bi1; ++bi) {
              float minRadius = radius;
              if (field) {
                // The bucket's world bounding box, within the region.
                double bx0 = 1e30, bx1 = -1e30, bz0 = 1e30, bz1 = -1e30;
                for (const int u : {bi, bi + 1})
                  for (const int v : {bj, bj + 1}) {
                    const double lx = u * B + shiftX, lz = v * B + shiftZ;
                    const double wxw = toWorldX(lx, lz), wzw = toWorldZ(lx, lz);
                    bx0 = std::min(bx0, wxw), bx1 = std::max(bx1, wxw), bz0 = std::min(bz0, wzw), bz1 = std::max(bz1, wzw);
                  }
                const float rx0 = std::max(x0, float(bx0)), rx1 = std::min(x1, float(bx1));
                const float rz0 = std::max(z0, float(bz0)), rz1 = std::min(z1, float(bz1));
                if (!(rx0 <= rx1 && rz0 <= rz1)) continue;
                const float bound = field->maxDensity(cls, rx0, rz0, rx1, rz1);
                if (!(bound > 0.f)) continue;
                if (kVariable) minRadius = sampleRadius(klass, bound);
              }
              const size_t first = pool.start[size_t(bj * kPoolBuckets + bi)];
              const size_t last = pool.start[size_t(bj * kPoolBuckets + bi) + 1];
              for (size_t k = first; k < last; ++k) {
                const PoolPoint& q = pool.points[k];
                const float spacing = q.delta * radius;
                if (spacing < minRadius * kGrade) break;
                const double lx = double(q.x) + shiftX, lz = double(q.z) + shiftZ;
                const float x = float(toWorldX(lx, lz)), z = float(toWorldZ(lx, lz));
                if (!((x >= x0) & (x < x1) & (z >= z0) & (z < z1))) continue;
                const float band = std::min(reach, 2.f * spacing);
                if (x >= wx0f + band && x < wx1f - band && z >= wz0f + band && z < wz1f - band)
                  consider(x, z, spacing);
                else if (x >= wx0f - band && x < wx1f + band && z >= wz0f - band && z < wz1f + band)
                  seam.push_back({x, z, q.delta});
              }
            }
        }
    }

  std::stable_sort(seam.begin(), seam.end(), [](const SeamPoint& a, const SeamPoint& c) { return a.delta > c.delta; });
  for (const SeamPoint& q : seam) consider(q.x, q.z, q.delta * radius);

  // Darts in the square of side 2r around each hole-marking point, inside the tile.
  Rng rng(hashCombine(tileSeed, 2 * uint64_t(cls) + 1));
  // The first dart that fits ends its hole's darts (then survives or not, like any sample).
  for (const Hole& h : holes)
    for (int d = 0; d < kDarts; ++d) {
      const float x = h.x + (2.f * rng.uniform() - 1.f) * h.r, z = h.z + (2.f * rng.uniform() - 1.f) * h.r;
      if (!((x >= b.x0) & (x < b.x1) & (z >= b.z0) & (z < b.z1))) continue;
      float r, density;
      if (!spacingAt(x, z, r, density) || blocked(x, z, r)) continue;
      insert(x, z, r, density, survives(x, z, density));
      break;
    }
  for (const int cell : spacers) grid.erase(cell);
}

}  // namespace

// Here, not in pool.cpp: the build tool that generates basePool() links pool.cpp.
const ArrangedPool& arrangedBase(int symmetry) {
  static const std::array<ArrangedPool, 8> arranged = [] {
    std::array<ArrangedPool, 8> a;
    for (int s = 0; s < 8; ++s) a[size_t(s)] = arrangePool(basePool(), s);
    return a;
  }();
  return arranged[size_t(symmetry & 7)];
}

void placeClassFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, uint64_t tileSeed, TileScratch& s,
                        bool variable) {
  if (variable)
    placeFromPool<true>(setup, b, cls, tileSeed, s);
  else
    placeFromPool<false>(setup, b, cls, tileSeed, s);
}

}  // namespace eco::sampling
