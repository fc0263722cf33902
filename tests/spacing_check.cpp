#include "spacing_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace eco {

SpacingReport checkSpacing(const SamplerParams& params, const DensityField* density, std::span<const Sample> samples) {
  SpacingReport report;
  report.samples = samples.size();
  report.minRatio = std::numeric_limits<double>::infinity();
  const double cell = 2.0 * double(interactionDistance(params));
  const bool variable = params.variableRadius && density;
  std::vector<float> radius(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    const SampleClass& c = params.classes[s.cls];
    radius[i] = variable ? sampleRadius(c, density->density(int(s.cls), s.x, s.z)) : c.radius;
    // Size-spacing coupling: the sample's own spacing grows linearly with its size draw, from
    // 1 to sizeSpread times (the rule of SampleClass, restated here).
    if (variable && c.sizeSpread > 1.f)
      radius[i] = float(double(radius[i]) * (1.0 + (double(c.sizeSpread) - 1.0) * double(sizeDraw(params.seed, int(s.cls), s.x, s.z))));
  }

  auto key = [](int64_t cx, int64_t cz) { return uint64_t(cx) << 32 ^ uint64_t(uint32_t(cz)); };
  auto cellOf = [&](float v) { return int64_t(std::floor(double(v) / cell)); };
  std::unordered_map<uint64_t, std::vector<uint32_t>> grid;
  for (size_t i = 0; i < samples.size(); ++i) grid[key(cellOf(samples[i].x), cellOf(samples[i].z))].push_back(uint32_t(i));

  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& a = samples[i];
    const int64_t cx = cellOf(a.x), cz = cellOf(a.z);
    for (int64_t dz = -1; dz <= 1; ++dz)
      for (int64_t dx = -1; dx <= 1; ++dx) {
        const auto it = grid.find(key(cx + dx, cz + dz));
        if (it == grid.end()) continue;
        for (uint32_t j : it->second) {
          if (j <= i) continue;
          const Sample& b = samples[j];
          const double required = a.cls == b.cls ? double(std::max(radius[i], radius[j]))
                                                 : double(pairDistance(params, int(a.cls), int(b.cls)));
          if (required <= 0) continue;
          const double ex = double(a.x) - double(b.x), ez = double(a.z) - double(b.z);
          const double d2 = ex * ex + ez * ez;
          if (d2 >= cell * cell) continue;
          ++report.pairsChecked;
          if (d2 < required * required) ++report.violations;
          const double d = std::sqrt(d2);
          if (d / required < report.minRatio) {
            report.minRatio = d / required;
            report.worstA = a;
            report.worstB = b;
          }
        }
      }
  }
  return report;
}

}  // namespace eco
