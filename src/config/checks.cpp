// The config's checks that need the sampler's rules or the loaded inputs, each reported with
// the JSON path of the field at fault.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/json.h"
#include "core/error.h"

namespace eco {

namespace {

using Problems = std::vector<ConfigProblem>;
namespace limits = config_limits;

std::string speciesPath(size_t id) { return "/species/" + std::to_string(id); }

// The config field behind an exclusion distance between two species: the first exclusion
// naming the pair (it wins, as in samplerParams), else the first species' footprint.
std::string pairPath(const BiomeConfig& c, size_t a, size_t b) {
  for (size_t i = 0; i < c.exclusions.size(); ++i) {
    const ExclusionOverride& e = c.exclusions[i];
    if ((e.a == c.species[a].name && e.b == c.species[b].name) || (e.a == c.species[b].name && e.b == c.species[a].name))
      return "/exclusions/" + std::to_string(i) + "/distance";
  }
  return speciesPath(a) + "/footprint";
}

}  // namespace

void checkSamplingConfig(const BiomeConfig& c, float worldX, float worldZ, Problems& problems) {
  if (c.species.empty() || c.species.size() > limits::kMaxSpecies) return;  // reported by the parser
  const bool known = worldX > 0.f && worldZ > 0.f;
  const SpeciesOrder order = speciesOrder(c);
  const SamplerParams p = samplerParams(c, known ? worldX : c.tileSize, known ? worldZ : c.tileSize, order);
  auto species = [&](int cls) { return size_t(order.speciesOfClass[size_t(cls)]); };
  using S = SamplerProblem::Subject;
  for (const SamplerProblem& sp : samplerProblems(p, known)) {
    switch (sp.subject) {
      case S::World:
        problems.push_back({"/terrain/cell_size", sp.reason});
        break;
      case S::TileSize: {
        std::string reason = sp.reason;
        const std::string reach = describeNumber(double(minTileSize(p)));
        const std::string got = ", got " + describeNumber(double(c.tileSize));
        if (sp.cls >= 0 && sp.other >= 0)
          reason = "must be at least " + reach + " m, the exclusion distance between " + speciesPath(species(sp.cls)) +
                   " and " + speciesPath(species(sp.other)) + " (" + pairPath(c, species(sp.cls), species(sp.other)) +
                   ")" + got;
        else if (sp.cls >= 0)
          reason = "must be at least " + reach + " m, the largest spacing of " + speciesPath(species(sp.cls)) +
                   (p.variableRadius ? " (radius * max_radius_factor, times pattern.hard_core and the size spread)"
                                     : " (radius)") + got;
        problems.push_back({"/tiling/tile_size", reason});
        break;
      }
      case S::Pattern:
        // The pattern's fields are checked where they are read (biome_parse.cpp), each with
        // its own path; the sampler's copy of the rule would only say it twice.
        break;
      case S::Candidates:
        problems.push_back({"/sampling/candidates", sp.reason});
        break;
      case S::ClassCount:
        problems.push_back({"/species", sp.reason});
        break;
      case S::Radius:
        problems.push_back({speciesPath(species(sp.cls)) + "/radius", sp.reason});
        break;
      case S::MaxRadius:
        problems.push_back({speciesPath(species(sp.cls)) + "/max_radius_factor", sp.reason});
        break;
      case S::ClassDistance:
        problems.push_back({sp.cls >= 0 ? pairPath(c, species(sp.cls), species(sp.other)) : "/exclusions", sp.reason});
        break;
    }
  }
}

void checkWorld(const World& world, Problems& problems) {
  problems.insert(problems.end(), world.coverProblems.begin(), world.coverProblems.end());
  const BiomeConfig& c = world.config;
  const Heightmap& t = world.terrain;
  const double extentX = double(t.metres.width - 1) * double(t.cellSize);
  const double extentZ = double(t.metres.height - 1) * double(t.cellSize);
  if (!(std::max(extentX, extentZ) <= limits::kMaxWorldExtent)) {
    problems.push_back({"/terrain/cell_size", "the heightmap's " + std::to_string(t.metres.width) + " x " +
                                                  std::to_string(t.metres.height) + " pixels at " +
                                                  describeNumber(double(t.cellSize)) + " m span " + describeNumber(extentX) +
                                                  " x " + describeNumber(extentZ) + " m; at most " +
                                                  describeNumber(limits::kMaxWorldExtent) + " m a side"});
    return;
  }
  for (size_t k = 0; k < t.metres.values.size(); ++k) {
    const float h = t.metres.values[k];
    if (!(std::fabs(h) <= float(limits::kMaxAbsElevation))) {
      const size_t i = k % size_t(t.metres.width), j = k / size_t(t.metres.width);
      problems.push_back({"/terrain/heightmap", c.terrain.heightmap + ": pixel (" + std::to_string(i) + ", " +
                                                    std::to_string(j) + ") maps to " + describeNumber(double(h)) +
                                                    " m; heights must stay within +-" +
                                                    describeNumber(limits::kMaxAbsElevation) +
                                                    " m (check height_scale and height_offset)"});
      break;
    }
  }
  // Positions are floats in world metres: a spacing below about 8 float steps at the far
  // edge of the world would be rounding noise.
  const double precision = std::max(extentX, extentZ) * std::ldexp(1.0, -20);
  for (size_t s = 0; s < c.species.size(); ++s)
    if (double(c.species[s].radius) < precision)
      problems.push_back({speciesPath(s) + "/radius", "radius " + describeNumber(double(c.species[s].radius)) +
                                                          " m is below the float precision of positions in a " +
                                                          describeNumber(std::max(extentX, extentZ)) +
                                                          " m world; use at least " + describeNumber(precision) + " m"});
  checkSamplingConfig(c, t.extentX(), t.extentZ(), problems);
}

void requireValidWorld(const World& world) {
  Problems problems;
  checkWorld(world, problems);
  if (!problems.empty()) throw InputError(formatProblem(world.config.configPath, problems.front()));
}

}  // namespace eco
