#include <algorithm>
#include <cmath>
#include <thread>

#include "masks/eco_masks.h"

namespace eco {

float SuitabilityRasters::at(int s, float x, float z) const {
  const Grid& g = species[size_t(s)];
  float fx = std::clamp(x / cellSize, 0.f, float(g.width - 1));
  float fz = std::clamp(z / cellSize, 0.f, float(g.height - 1));
  int x0 = std::min(int(fx), g.width - 2), z0 = std::min(int(fz), g.height - 2);
  float tx = fx - float(x0), tz = fz - float(z0);
  const float* r0 = &g.values[size_t(z0) * size_t(g.width) + size_t(x0)];
  const float* r1 = r0 + g.width;
  float a = r0[0] + (r0[1] - r0[0]) * tx;
  float b = r1[0] + (r1[1] - r1[0]) * tx;
  return a + (b - a) * tz;
}

SuitabilityRasters computeSuitability(const World& world, int threads) {
  const Grid& h = world.terrain.metres;
  const auto& species = world.config.species;
  SuitabilityRasters out;
  out.cellSize = world.terrain.cellSize;
  out.species.assign(species.size(), Grid(h.width, h.height));

  // Rows are independent, so any split gives the same values.
  auto fillRows = [&](int first, int step) {
    for (int j = first; j < h.height; j += step)
      for (int i = 0; i < h.width; ++i) {
        Environment env = environmentAt(world, float(i) * out.cellSize, float(j) * out.cellSize);
        for (size_t s = 0; s < species.size(); ++s) out.species[s].at(i, j) = speciesWeights(species[s], env).suitability;
      }
  };
  threads = std::max(1, threads);
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(fillRows, t, threads);
  fillRows(0, threads);
  return out;
}

}  // namespace eco
