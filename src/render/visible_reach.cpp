#include "render/visible_reach.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace eco::render {

std::vector<double> speciesReach(const gpu::FrameData& frame, std::span<const gpu::GpuSpecies> species) {
  std::vector<double> reach(species.size(), kUnbounded);
  const bool fade = (frame.cull.y & gpu::CULL_FADE) != 0;
  for (size_t i = 0; i < species.size(); ++i) {
    const gpu::GpuSpecies& sp = species[i];
    if (((&frame.hidden[i >> 7].x)[(i >> 5) & 3] >> (i & 31)) & 1u) {
      reach[i] = kUnreached;
      continue;
    }
    const float end = (&frame.fadeEnd.x)[std::min<uint32_t>(sp.info.x, gpu::KIND_COUNT - 1)];
    if (!fade || !(end < 1e29f)) continue;  // NaN too: no distance cut
    // the sphere's centre is the unit-space centre scaled by scale * (crown, height, crown)
    // and turned by yaw and tilt, which keep its length
    const double scale = std::max(std::abs(double(sp.shape.z)), std::abs(double(sp.shape.w)));
    const double offset = scale * std::sqrt(double(sp.shape.y * sp.sphere.x) * double(sp.shape.y * sp.sphere.x) +
                                            double(sp.shape.x * sp.sphere.y) * double(sp.shape.x * sp.sphere.y) +
                                            double(sp.shape.y * sp.sphere.z) * double(sp.shape.y * sp.sphere.z));
    // the shader measures in float: a metre and 1e-4 of the distance cover its rounding
    reach[i] = std::max(double(end), 0.0) * (1 + 1e-4) + offset + 1.0;
  }
  return reach;
}

double boxDistance(const gpu::GpuTile& box, double x, double z) {
  const double dx = std::max({double(box.boundsMin.x) - x, 0.0, x - double(box.boundsMax.x)});
  const double dz = std::max({double(box.boundsMin.z) - z, 0.0, z - double(box.boundsMax.z)});
  return std::sqrt(dx * dx + dz * dz);
}

uint64_t reachBound(std::span<const SceneTile> tiles, float tileSize, std::span<const double> reach,
                    std::span<const double> weight) {
  if (tiles.empty()) return 0;
  int x0 = tiles[0].x, x1 = tiles[0].x, z0 = tiles[0].z, z1 = tiles[0].z;
  for (const SceneTile& t : tiles) {
    x0 = std::min(x0, t.x), x1 = std::max(x1, t.x);
    z0 = std::min(z0, t.z), z1 = std::max(z1, t.z);
  }
  const size_t w = size_t(int64_t(x1) - x0 + 1), h = size_t(int64_t(z1) - z0 + 1);
  const size_t n = std::min(reach.size(), weight.size());

  // Species of equal reach and weight share one count grid (a config's species are mostly a
  // few kinds); tiles without per-species counts go under the largest of both.
  double widest = kUnreached, heaviest = 0;
  for (size_t k = 0; k < n; ++k)
    if (reach[k] >= 0 && weight[k] > 0) widest = std::max(widest, reach[k]), heaviest = std::max(heaviest, weight[k]);
  std::map<std::pair<double, double>, std::vector<double>> groups;  // (reach, weight) -> counts, row-major
  auto grid = [&](double r, double wt) -> std::vector<double>& {
    std::vector<double>& g = groups[{r, wt}];
    if (g.empty()) g.assign(w * h, 0.0);
    return g;
  };
  for (const SceneTile& t : tiles) {
    const size_t cell = size_t(t.z - z0) * w + size_t(t.x - x0);
    if (t.speciesCounts.empty()) {
      if (widest >= 0 && t.instances > 0) grid(widest, heaviest)[cell] += double(t.instances);
      continue;
    }
    for (size_t k = 0; k < t.speciesCounts.size(); ++k) {
      if (t.speciesCounts[k] == 0) continue;
      if (k >= n)  // an id past the table: never drawn, but counted rather than assumed
        grid(std::max(widest, 0.0), std::max(heaviest, 1.0))[cell] += t.speciesCounts[k];
      else if (reach[k] >= 0 && weight[k] > 0)
        grid(reach[k], weight[k])[cell] += t.speciesCounts[k];
    }
  }

  // For the eye anywhere in square c, tile t counts when the squares' distance is within reach:
  // tileSize * hypot(max(|dx| - 1, 0), max(|dz| - 1, 0)) <= reach. Row by row, that is a run of
  // tiles summed from the row's prefix sums.
  std::vector<double> need(w * h, 0.0);
  std::vector<double> prefix((w + 1) * h);
  for (const auto& [key, counts] : groups) {
    const auto [r, wt] = key;
    const double q = r / double(tileSize) * (1 + 1e-9) + 1e-9;  // in tiles, rounded outward
    if (!(q < double(w + h))) {  // every tile from every square
      double all = 0;
      for (double c : counts) all += c;
      for (double& v : need) v += wt * all;
      continue;
    }
    for (size_t j = 0; j < h; ++j) {
      prefix[j * (w + 1)] = 0;
      for (size_t i = 0; i < w; ++i) prefix[j * (w + 1) + i + 1] = prefix[j * (w + 1) + i] + counts[j * w + i];
    }
    const int64_t rows = 1 + int64_t(std::floor(q));
    for (size_t cz = 0; cz < h; ++cz)
      for (size_t cx = 0; cx < w; ++cx) {
        double sum = 0;
        for (int64_t dz = -rows; dz <= rows; ++dz) {
          const int64_t row = int64_t(cz) + dz;
          if (row < 0 || row >= int64_t(h)) continue;
          const double a = double(std::max<int64_t>(std::abs(dz) - 1, 0));
          if (a > q) continue;
          const int64_t run = 1 + int64_t(std::floor(std::sqrt(q * q - a * a)));
          const size_t lo = size_t(std::max<int64_t>(int64_t(cx) - run, 0));
          const size_t hi = size_t(std::min<int64_t>(int64_t(cx) + run, int64_t(w) - 1));
          sum += prefix[size_t(row) * (w + 1) + hi + 1] - prefix[size_t(row) * (w + 1) + lo];
        }
        need[cz * w + cx] += wt * sum;
      }
  }
  double most = 0;
  for (double v : need) most = std::max(most, v);
  return uint64_t(std::ceil(most));
}

}  // namespace eco::render
