#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "config/config.h"
#include "core/json.h"

namespace eco {

World loadWorld(const std::string& configPath) {
  // The same reads and checks as `validate`; the images they decoded are the ones used.
  BiomeInputs inputs;
  BiomeConfig config = loadBiomeConfig(configPath, &inputs);
  return makeWorld(std::move(config), std::move(inputs));
}

World makeWorld(BiomeConfig config, BiomeInputs&& inputs) {
  World world;
  world.config = std::move(config);
  const BiomeConfig& c = world.config;
  HeightMapping mapping = c.terrain.mapping;
  mapping.cellSize = inputs.cellSize > 0 ? inputs.cellSize : mapping.cellSize;
  world.terrain = makeHeightmap(std::move(*inputs.heightmap), mapping);
  if (!c.river.file.empty()) {
    world.river = c.river.source == RiverSource::Mask
                      ? riverFieldFromMask(*inputs.river, world.terrain, c.river.file)
                      : riverFieldFromDistance(std::move(*inputs.river), c.river.distanceScale, world.terrain,
                                               c.river.file);
    world.hasRiver = true;
    world.waterDistance = c.river.channelWidth ? *c.river.channelWidth / 2 : world.river.cellSize / 2;
  }
  world.sunDirXZ = sunDirectionXZ(c.sunAzimuthDeg);
  world.crs = std::move(inputs.crs);
  world.maps = std::move(inputs.maps);
  world.exclusionMap = inputs.exclusionMap;
  world.densityMap = std::move(inputs.densityMap);
  world.excludeMap = std::move(inputs.excludeMap);
  world.densityMap.resize(c.species.size(), -1);
  world.excludeMap.resize(c.species.size(), -1);
  world.shapes = std::move(inputs.shapes);
  world.extraInputs = std::move(inputs.extraInputs);
  world.meshes = std::move(inputs.meshes);
  // A species that asks for cover gets the density that gives it.
  for (size_t i = 0; i < world.config.species.size(); ++i) {
    SpeciesConfig& sp = world.config.species[i];
    if (!sp.cover) continue;
    float reached = 0.f;
    sp.density = densityForCover(sp, world.config.seed, *sp.cover, &reached);
    if (reached < *sp.cover * 0.99f)
      world.coverProblems.push_back({"/species/" + std::to_string(i) + "/cover",
                                     "cover " + describeNumber(double(*sp.cover)) + " is more than this species reaches at full density (" +
                                         describeNumber(double(reached)) + " with radius " + describeNumber(double(sp.radius)) +
                                         " m and crown radius " + describeNumber(double(sp.crownRadius)) +
                                         " m); lower it, or the radius, or raise the crown radius"});
  }
  return world;
}

float World::paintedFactor(size_t species, float x, float z) const {
  float f = 1.f;
  if (species < densityMap.size() && densityMap[species] >= 0) f *= maps[size_t(densityMap[species])].at(x, z);
  if (species < excludeMap.size() && excludeMap[species] >= 0) f *= 1.f - maps[size_t(excludeMap[species])].at(x, z);
  if (exclusionMap >= 0) f *= 1.f - maps[size_t(exclusionMap)].at(x, z);
  return f;
}

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
    p.classes.push_back(sampleClass(sp, p.variableRadius));
    classOf[order.speciesOfClass[i]] = i;
  }
  // The canopy over a class: the classes of lower layers (placed before it, final around it).
  for (size_t i = 0; i < n; ++i) {
    const SpeciesConfig& sp = c.species[order.speciesOfClass[i]];
    if (sp.pattern.style == PatternStyle::Packed || sp.pattern.canopy == CanopyResponse::None) continue;
    int from = 0;
    while (size_t(from) < i && c.species[order.speciesOfClass[size_t(from)]].layer < sp.layer) ++from;
    p.classes[i].canopyFrom = from;
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

}  // namespace eco
