// The config checks that need the input files, and the throwing entry point.
#include <optional>
#include <string>
#include <utility>

#include "config/config.h"
#include "core/error.h"

namespace eco {
namespace {

using Problems = std::vector<ConfigProblem>;

// One input file decoded as the bake reads it, or nothing with a problem at jsonPath.
std::optional<Image> loadInputImage(const std::string& file, int rawWidth, int rawHeight, const std::string& jsonPath,
                                    Problems& problems) {
  std::optional<Image> image;
  try {
    image = loadInput(file, rawWidth, rawHeight);
  } catch (const InputError& e) {
    problems.push_back({jsonPath, e.what()});
    return std::nullopt;
  }
  const Grid& g = image->pixels;
  if (g.width < 2 || g.height < 2) {
    problems.push_back({jsonPath, file + " is " + std::to_string(g.width) + " x " + std::to_string(g.height) +
                                      " pixels; at least 2 x 2 are needed"});
    return std::nullopt;
  }
  return image;
}

}  // namespace

BiomeInputs loadBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems) {
  BiomeInputs inputs;
  const TerrainConfig& terrain = config.terrain;
  // An empty name means the parser already reported the field.
  if (!terrain.heightmap.empty())
    inputs.heightmap =
        loadInputImage(terrain.heightmap, terrain.rawWidth, terrain.rawHeight, "/terrain/heightmap", problems);
  if (config.river.file.empty()) return inputs;

  std::string riverPath = config.river.source == RiverSource::Distance ? "/river/distance" : "/river/mask";
  inputs.river = loadInputImage(config.river.file, 0, 0, riverPath, problems);
  if (!inputs.heightmap || !inputs.river) return inputs;
  const Grid &h = inputs.heightmap->pixels, &r = inputs.river->pixels;
  std::string problem = riverExtentProblem(r.width, r.height, h.width, h.height);
  if (!problem.empty()) {
    problems.push_back({riverPath, config.river.file + ": " + problem});
    inputs.river.reset();
  }
  return inputs;
}

void checkBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems) {
  loadBiomeInputs(config, problems);
}

BiomeConfig loadBiomeConfig(const std::string& path, BiomeInputs* inputs) {
  std::vector<ConfigProblem> problems;
  BiomeConfig config = parseBiomeConfig(path, problems);
  BiomeInputs loaded;
  if (problems.empty()) loaded = loadBiomeInputs(config, problems);
  if (!problems.empty()) throw InputError(formatProblem(path, problems.front()));
  if (inputs) *inputs = std::move(loaded);
  return config;
}

}  // namespace eco
