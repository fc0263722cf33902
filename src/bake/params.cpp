#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "bake/bake.h"

namespace eco {

uint32_t packColor(const float rgb[3]) {
  // lround(clamp(v, 0, 1) * 255) without the library call (x - trunc(x) is exact); NaN gives 0.
  auto byte = [](float v) {
    const float x = v > 0.f ? std::min(v, 1.f) * 255.f : 0.f;
    const auto i = uint32_t(x);
    return i + uint32_t(x - float(i) >= 0.5f);
  };
  return byte(rgb[0]) | byte(rgb[1]) << 8 | byte(rgb[2]) << 16 | 0xff000000u;
}

std::vector<SpeciesRecord> speciesRecords(const BiomeConfig& config) {
  std::vector<SpeciesRecord> out;
  for (size_t i = 0; i < config.species.size(); ++i) {
    const SpeciesConfig& sp = config.species[i];
    SpeciesRecord r;
    r.id = uint16_t(i);
    r.name = sp.name;
    r.kind = uint8_t(sp.kind);
    r.meshHeight = sp.meshHeight;
    r.crownRadius = sp.crownRadius;
    r.scaleMin = sp.scaleMin;
    r.scaleMax = sp.scaleMax;
    // Sphere around the mesh's bounding cylinder (height h, radius crown), centred at h / 2.
    r.boundingCenterY = 0.5f * sp.meshHeight;
    r.boundingRadius = std::sqrt(0.25f * sp.meshHeight * sp.meshHeight + sp.crownRadius * sp.crownRadius);
    r.baseColor = packColor(sp.color);
    out.push_back(r);
  }
  return out;
}

}  // namespace eco
