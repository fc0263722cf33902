#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "bake/bake.h"
#include "core/rounding.h"

namespace eco {

uint32_t packColor(const float rgb[3]) {
  auto byte = [](float v) { return uint32_t(unorm8(v)); };
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
    r.meshAsset = sp.meshAsset;
    out.push_back(r);
  }
  return out;
}

}  // namespace eco
