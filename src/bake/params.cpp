#include <algorithm>
#include <cmath>
#include <numeric>

#include "bake/bake.h"

namespace eco {

SpeciesOrder speciesOrder(const BiomeConfig& config) {
  SpeciesOrder order;
  order.speciesOfClass.resize(config.species.size());
  std::iota(order.speciesOfClass.begin(), order.speciesOfClass.end(), uint16_t(0));
  std::stable_sort(order.speciesOfClass.begin(), order.speciesOfClass.end(),
                   [&](uint16_t a, uint16_t b) { return config.species[a].layer < config.species[b].layer; });
  return order;
}

float exclusionDistance(const BiomeConfig& config, uint16_t a, uint16_t b) {
  const SpeciesConfig& sa = config.species[a];
  const SpeciesConfig& sb = config.species[b];
  for (const ExclusionOverride& e : config.exclusions)
    if ((e.a == sa.name && e.b == sb.name) || (e.a == sb.name && e.b == sa.name)) return e.distance;
  return sa.footprint + sb.footprint;
}

SamplerParams samplerParams(const World& world, const SpeciesOrder& order) {
  const BiomeConfig& c = world.config;
  SamplerParams p;
  p.worldX = world.terrain.extentX();
  p.worldZ = world.terrain.extentZ();
  p.tileSize = c.tileSize;
  p.seed = c.seed;
  p.method = c.samplingMethod == SamplingMethod::Bridson ? SamplerMethod::Bridson : SamplerMethod::Pool;
  p.candidates = c.candidates;
  p.variableRadius = c.densityMode == DensityMode::VariableRadius;
  size_t n = order.speciesOfClass.size();
  for (uint16_t id : order.speciesOfClass) {
    const SpeciesConfig& sp = c.species[id];
    p.classes.push_back({sp.radius, sp.radius * std::max(1.f, sp.maxRadiusFactor)});
  }
  p.classDistance.assign(n * n, 0.f);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) p.classDistance[i * n + j] = exclusionDistance(c, order.speciesOfClass[i], order.speciesOfClass[j]);
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
