// Pool placement (SamplerMethod::Pool): one class of one tile from the class's arranged pool.
#include <algorithm>
#include <cmath>

#include "sampling/bridson.h"
#include "sampling/grid_checks.h"

namespace eco::sampling {

namespace {

// Places class `cls` in the tile from its arranged pool (sampling/pool.h); leaves its samples
// in scratch.placed. A pool point is a sample where its delta reaches the local spacing, the
// density keeps it (survival where the radius is clamped, or everywhere in roulette mode),
// and the exact tests pass: those against the own class only matter where the spacing
// varies faster than the pool's ordering (and for float rounding), so they rarely fail.
template <bool kVariable>
void placeFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s) {
  const SamplerParams& p = *setup.params;
  const SampleClass& klass = p.classes[size_t(cls)];
  const DensityField* field = setup.density;
  ClassGrid& grid = s.grids[size_t(cls)];
  const ArrangedPool& pool = setup.pools[size_t(cls)];
  const float radius = klass.radius, radius2 = radius * radius * kSpacingMargin;
  collectOthers(setup, b, cls, s, /*withNear=*/true);
  std::vector<PlacedSample>& placed = s.placed;
  placed.clear();
  const RasterView* densityRaster = kVariable ? field->raster(cls) : nullptr;
  const float clampedDensity = (radius / klass.maxRadius) * (radius / klass.maxRadius);

  const double period = double(kPoolPeriod) * double(radius), bucket = period / kPoolBuckets;
  const int kx0 = int(std::floor(b.x0 / period)), kx1 = int(std::floor(b.x1 / period));
  const int kz0 = int(std::floor(b.z0 / period)), kz1 = int(std::floor(b.z1 / period));
  auto bucketRange = [&](double lo, double hi, double copy, int& i0, int& i1) {
    i0 = std::max(0, int(std::floor((lo - copy) / bucket)));
    i1 = std::min(kPoolBuckets - 1, int(std::floor((hi - copy) / bucket)));
  };
  for (int kz = kz0; kz <= kz1; ++kz)
    for (int kx = kx0; kx <= kx1; ++kx) {
      const double cx = double(kx) * period, cz = double(kz) * period;
      int bi0, bi1, bj0, bj1;
      bucketRange(b.x0, b.x1, cx, bi0, bi1);
      bucketRange(b.z0, b.z1, cz, bj0, bj1);
      for (int bj = bj0; bj <= bj1; ++bj)
        for (int bi = bi0; bi <= bi1; ++bi) {
          float minRadius = radius;
          if (field) {
            const float x0 = std::max(b.x0, float(cx + bi * bucket)), x1 = std::min(b.x1, float(cx + (bi + 1) * bucket));
            const float z0 = std::max(b.z0, float(cz + bj * bucket)), z1 = std::min(b.z1, float(cz + (bj + 1) * bucket));
            const float bound = field->maxDensity(cls, x0, z0, x1, z1);
            if (!(bound > 0.f)) continue;
            if (kVariable) minRadius = sampleRadius(klass, bound);
          }
          const size_t first = pool.start[size_t(bj * kPoolBuckets + bi)], last = pool.start[size_t(bj * kPoolBuckets + bi) + 1];
          for (size_t k = first; k < last; ++k) {
            const PoolPoint& q = pool.points[k];
            const float spacing = q.delta * radius;
            if (spacing < minRadius) break;
            const float x = float(cx + double(q.x) * radius), z = float(cz + double(q.z) * radius);
            if (!((x >= b.x0) & (x < b.x1) & (z >= b.z0) & (z < b.z1))) continue;
            float r = radius, density = 1.f;
            if constexpr (kVariable) {
              density = densityRaster ? bilinearScaled(*densityRaster, x, z) : field->density(cls, x, z);
              if (!(density > 0.f)) continue;
              r = sampleRadius(klass, density);
              if (spacing < r) continue;
              if (density < clampedDensity && !(survivalDraw(p.seed, cls, x, z) < density / clampedDensity)) continue;
            } else if (field) {
              density = field->density(cls, x, z);
              if (density < 1.f && !(survivalDraw(p.seed, cls, x, z) < density)) continue;
            }
            // Other classes first: they reject ~8x more points than the own class does, and
            // their test is one bit for most points.
            if (grid.isNear(x, z) && blockedByOtherClasses(s.others, x, z)) continue;
            if (kVariable ? blockedByOwn(grid, x, z, r) : blockedNear(grid, x, z, radius2)) continue;
            const int cell = grid.insert(x, z, r, true, /*markDisc=*/false);
            placed.push_back({x, z, r, density, cell, true});
          }
        }
    }
}

}  // namespace

void placeClassFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s, bool variable) {
  if (variable)
    placeFromPool<true>(setup, b, cls, s);
  else
    placeFromPool<false>(setup, b, cls, s);
}

}  // namespace eco::sampling
