#include <algorithm>
#include <cmath>
#include <thread>

#include "masks/masks.h"

namespace eco {

namespace {

Grid halveMax(const Grid& g) {
  Grid out((g.width + 1) / 2, (g.height + 1) / 2);
  for (int j = 0; j < out.height; ++j)
    for (int i = 0; i < out.width; ++i) {
      const int x1 = std::min(2 * i + 1, g.width - 1), z1 = std::min(2 * j + 1, g.height - 1);
      out.at(i, j) = std::max({g.at(2 * i, 2 * j), g.at(x1, 2 * j), g.at(2 * i, z1), g.at(x1, z1)});
    }
  return out;
}

// Pixel range whose bilinear support covers [a, b] (at() reads pixels x0 and x0 + 1).
void pixelSpan(float a, float b, float invCellSize, int size, int& lo, int& hi) {
  auto first = [&](float v) { return std::min(int(std::clamp(v * invCellSize, 0.f, float(size - 1))), size - 2); };
  lo = first(a);
  hi = first(b) + 1;
}

}  // namespace

float SuitabilityRasters::maxIn(int s, float x0, float z0, float x1, float z1) const {
  const Grid& g = species[size_t(s)];
  int i0, i1, j0, j1;
  pixelSpan(x0, x1, invCellSize, g.width, i0, i1);
  pixelSpan(z0, z1, invCellSize, g.height, j0, j1);
  // The level where the span covers at most 2 x 2 entries.
  int level = 0;
  while ((i1 >> level) - (i0 >> level) > 1 || (j1 >> level) - (j0 >> level) > 1) ++level;
  const std::vector<Grid>& levels = maxLevels[size_t(s)];
  level = std::min(level, int(levels.size()));
  const Grid& m = level == 0 ? g : levels[size_t(level - 1)];
  float v = 0.f;
  for (int j = j0 >> level; j <= std::min(j1 >> level, m.height - 1); ++j)
    for (int i = i0 >> level; i <= std::min(i1 >> level, m.width - 1); ++i) v = std::max(v, m.at(i, j));
  return v;
}

SuitabilityRasters computeSuitability(const World& world, int threads, std::optional<std::array<int, 2>> rows) {
  const Grid& h = world.terrain.metres;
  const auto& species = world.config.species;
  SuitabilityRasters out;
  out.cellSize = world.terrain.cellSize;
  out.invCellSize = 1.f / out.cellSize;
  out.species.assign(species.size(), Grid(h.width, h.height));

  // The rule's product in its order, each factor computed only while some species still has
  // a non-zero product (the factors are finite, so a zero stays zero): on the slopes and
  // heights no species takes, the normal, the noise and the river are never looked at.
  // Rows are independent, so any split gives the same values.
  // Beyond the rule: zero at nodata pixels and inside vector exclusions, times the painted
  // maps' factor (World::paintedFactor); looked at only where a species is still non-zero.
  const uint8_t* noData = world.terrain.noData.empty() ? nullptr : world.terrain.noData.data();
  std::vector<uint8_t> painted(species.size(), 0);
  bool extras = noData || !world.shapes.empty();
  for (size_t s = 0; s < species.size(); ++s) extras |= (painted[s] = uint8_t(world.hasPaintedMaps(s))) != 0;
  const int rowFirst = rows ? std::clamp((*rows)[0], 0, h.height) : 0;
  const int rowEnd = rows ? std::clamp((*rows)[1], rowFirst, h.height) : h.height;
  auto fillRows = [&](int first, int step) {
    std::vector<float> w(species.size());
    for (int j = rowFirst + first; j < rowEnd; j += step)
      for (int i = 0; i < h.width; ++i) {
        const float x = float(i) * out.cellSize, z = float(j) * out.cellSize;
        auto store = [&] {
          if (extras) {
            const bool hole = noData && noData[size_t(j) * size_t(h.width) + size_t(i)];
            for (size_t s = 0; s < species.size(); ++s) {
              if (w[s] == 0.f) continue;
              if (hole || world.shapes.excludes(s, double(x), double(z))) w[s] = 0.f;
              else if (painted[s]) w[s] *= world.paintedFactor(s, x, z);
            }
          }
          for (size_t s = 0; s < species.size(); ++s) out.species[s].at(i, j) = w[s];
        };
        bool any = false;
        const float height = world.terrain.heightAt(x, z);
        for (size_t s = 0; s < species.size(); ++s) {
          w[s] = species[s].density * elevationWeight(species[s].elevation, height);
          any |= w[s] != 0.f;
        }
        if (!any) {
          store();
          continue;
        }
        any = false;
        const SurfaceSample surface = surfaceAt(world.terrain, x, z, world.sunDirXZ, /*withAspect=*/false);
        for (size_t s = 0; s < species.size(); ++s) {
          if (w[s] == 0.f) continue;
          w[s] = w[s] * slopeWeight(species[s], surface.slopeDeg) * sunWeight(species[s], surface.sunExposure);
          any |= w[s] != 0.f;
        }
        if (any) {
          const float moisture = moistureAt(world, x, z);
          for (size_t s = 0; s < species.size(); ++s)
            if (w[s] != 0.f) w[s] *= moistureWeight(species[s], moisture);
        }
        store();
      }
  };
  threads = std::max(1, threads);
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(fillRows, t, threads);
  fillRows(0, threads);
  pool.clear();  // joins: the pyramid reads every row
  out.maxLevels.resize(species.size());
  for (size_t s = 0; s < species.size(); ++s)
    for (const Grid* g = &out.species[s]; g->width > 1 || g->height > 1; g = &out.maxLevels[s].back())
      out.maxLevels[s].push_back(halveMax(*g));
  return out;
}

}  // namespace eco
