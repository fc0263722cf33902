#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "bake/bake.h"
#include "bake/estimate.h"

namespace eco {

SpeciesOrder speciesOrder(const BiomeConfig& config) {
  SpeciesOrder order;
  order.speciesOfClass.resize(config.species.size());
  std::iota(order.speciesOfClass.begin(), order.speciesOfClass.end(), uint16_t(0));
  std::stable_sort(order.speciesOfClass.begin(), order.speciesOfClass.end(),
                   [&](uint16_t a, uint16_t b) { return config.species[a].layer < config.species[b].layer; });
  return order;
}

SamplerParams samplerParams(const World& world, const SpeciesOrder& order) {
  return samplerParams(world.config, world.terrain.extentX(), world.terrain.extentZ(), order);
}

SamplerParams samplerParams(const BiomeConfig& c, float worldX, float worldZ, const SpeciesOrder& order) {
  SamplerParams p;
  p.worldX = worldX;
  p.worldZ = worldZ;
  p.tileSize = c.tileSize;
  p.seed = c.seed;
  p.method = c.samplingMethod == SamplingMethod::Bridson ? SamplerMethod::Bridson : SamplerMethod::Pool;
  p.candidates = c.candidates;
  p.variableRadius = c.densityMode == DensityMode::VariableRadius;
  const size_t n = order.speciesOfClass.size();
  std::vector<size_t> classOf(c.species.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    const SpeciesConfig& sp = c.species[order.speciesOfClass[i]];
    p.classes.push_back({sp.radius, sp.radius * std::max(1.f, sp.maxRadiusFactor)});
    classOf[order.speciesOfClass[i]] = i;
  }
  // Footprint sums, then each pair's first override: one pass over the exclusions with a
  // name index instead of a scan of them per pair (10,000 species made 10^8 pairs).
  p.classDistance.assign(n * n, 0.f);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j)
        p.classDistance[i * n + j] =
            c.species[order.speciesOfClass[i]].footprint + c.species[order.speciesOfClass[j]].footprint;
  std::unordered_map<std::string_view, size_t> idOf;
  for (size_t s = 0; s < c.species.size(); ++s) idOf.emplace(c.species[s].name, s);
  std::vector<bool> overridden(n * n, false);
  for (const ExclusionOverride& e : c.exclusions) {
    auto a = idOf.find(e.a), b = idOf.find(e.b);
    if (a == idOf.end() || b == idOf.end() || a->second == b->second) continue;
    const size_t i = classOf[a->second], j = classOf[b->second];
    if (overridden[i * n + j]) continue;
    overridden[i * n + j] = overridden[j * n + i] = true;
    p.classDistance[i * n + j] = p.classDistance[j * n + i] = e.distance;
  }
  return p;
}

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
