// The config checks that need the input files, and the throwing entry point.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "config/config.h"
#include "core/error.h"
#include "core/json.h"

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

// The cell size in force: cell_size when given (it must agree with a GeoTIFF pixel scale in
// metres), else the GeoTIFF's square pixel scale; 0 with a problem when neither works.
float resolveCellSize(const TerrainConfig& terrain, const Image& heightmap, Problems& problems) {
  const GeoInfo& geo = heightmap.geo;
  const std::string path = "/terrain/cell_size";
  const std::string scale = describeNumber(geo.pixelScaleX) + " x " + describeNumber(geo.pixelScaleY);
  const std::string crs = geo.crs().empty() ? std::string() : " (" + geo.crs() + ")";
  if (terrain.cellSizeGiven) {
    const double given = double(terrain.mapping.cellSize);
    if (geo.hasPixelScale && !geo.geographic &&
        (std::fabs(geo.pixelScaleX - given) > 1e-6 * given || std::fabs(geo.pixelScaleY - given) > 1e-6 * given)) {
      problems.push_back({path, "cell_size " + describeNumber(given) + " m differs from the GeoTIFF pixel scale " +
                                    scale + " of " + terrain.heightmap + crs + "; remove cell_size or make them agree"});
      return 0;
    }
    return terrain.mapping.cellSize;
  }
  if (!geo.hasPixelScale) {
    problems.push_back({path, "missing: " + terrain.heightmap + " has no GeoTIFF pixel scale; give cell_size in metres"});
    return 0;
  }
  if (geo.geographic) {
    problems.push_back({path, "missing: the pixel scale " + scale + " of " + terrain.heightmap + " is in degrees" + crs +
                                  " (a geographic CRS; no reprojection is done); give cell_size in metres"});
    return 0;
  }
  if (std::fabs(geo.pixelScaleX - geo.pixelScaleY) > 1e-6 * geo.pixelScaleX) {
    problems.push_back({path, "missing, and the GeoTIFF pixel scale " + scale + " of " + terrain.heightmap +
                                  " is not square; give cell_size in metres"});
    return 0;
  }
  if (!Limits::between(config_limits::kMinCellSize, config_limits::kMaxCellSize).contains(geo.pixelScaleX)) {
    problems.push_back({path, "the GeoTIFF pixel scale " + scale + " of " + terrain.heightmap + " must be in [" +
                                  describeNumber(config_limits::kMinCellSize) + ", " +
                                  describeNumber(config_limits::kMaxCellSize) + "] m"});
    return 0;
  }
  return float(geo.pixelScaleX);
}

// One painted map, decoded and checked (values in [0, 1], no nodata, pixels near square
// over the world), placed over the world; the index of the map in inputs.maps or -1.
// The painted maps' pixels together: four of the largest images (4 GiB of floats).
constexpr int64_t kMaxMapPixels = 4 * kMaxImagePixels;

int loadMap(const MapInput& map, const std::string& jsonPath, double extentX, double extentZ, BiomeInputs& inputs,
            std::vector<std::pair<std::string, int>>& seen, int64_t& pixelBudget, Problems& problems) {
  if (!map.given()) return -1;
  inputs.extraInputs.emplace_back(jsonPath, map.file);
  const std::string key = map.file + '\n' + std::to_string(map.channel);
  for (const auto& [k, index] : seen)
    if (k == key) return index;
  std::optional<Image> image;
  try {
    // Every map is held for the whole bake: their pixels together are bounded (from the
    // headers, before decoding) like one image's.
    const ImageInfo info = probeInput(map.file, 0, 0, map.channel);
    pixelBudget -= int64_t(info.width) * int64_t(info.height);
    if (pixelBudget < 0) {
      problems.push_back({jsonPath, map.file + ": the painted maps hold more than " +
                                        std::to_string(kMaxMapPixels) + " pixels together; paint them coarser"});
      return -1;
    }
    image = loadInput(map.file, 0, 0, map.channel);
  } catch (const InputError& e) {
    problems.push_back({jsonPath, e.what()});
    return -1;
  }
  const Grid& g = image->pixels;
  if (g.width < 2 || g.height < 2) {
    problems.push_back({jsonPath, map.file + " is " + std::to_string(g.width) + " x " + std::to_string(g.height) +
                                      " pixels; at least 2 x 2 are needed"});
    return -1;
  }
  if (!image->noData.empty()) {
    problems.push_back({jsonPath, map.file + ": nodata pixels in a painted map; paint every pixel in [0, 1]"});
    return -1;
  }
  for (size_t k = 0; k < g.values.size(); ++k)
    if (!(g.values[k] >= 0.f && g.values[k] <= 1.f)) {
      problems.push_back({jsonPath, map.file + ": pixel " + std::to_string(k % size_t(g.width)) + "," +
                                        std::to_string(k / size_t(g.width)) + " is " +
                                        describeNumber(double(g.values[k])) + "; painted maps hold values in [0, 1]"});
      return -1;
    }
  const double cellX = extentX / double(g.width - 1), cellZ = extentZ / double(g.height - 1);
  if (!(std::fabs(cellX / cellZ - 1.0) <= 0.01)) {
    problems.push_back({jsonPath, map.file + ": " + std::to_string(g.width) + " x " + std::to_string(g.height) +
                                      " pixels over the terrain's " + describeNumber(extentX) + " x " +
                                      describeNumber(extentZ) + " m make pixels of " + describeNumber(cellX) + " x " +
                                      describeNumber(cellZ) + " m; paint it at the terrain's aspect ratio (corners "
                                      "on the terrain's corners)"});
    return -1;
  }
  PaintedMap placed;
  placed.invCellX = float(double(g.width - 1) / extentX);
  placed.invCellZ = float(double(g.height - 1) / extentZ);
  placed.values = std::move(image->pixels);
  inputs.maps.push_back(std::move(placed));
  seen.emplace_back(key, int(inputs.maps.size() - 1));
  return int(inputs.maps.size() - 1);
}

// Mesh files are inputs the manifest hashes (hashes.inputs), after the maps and exclusions.
void addMeshInputs(const BiomeConfig& config, BiomeInputs& inputs) {
  for (size_t s = 0; s < config.species.size(); ++s)
    if (!config.species[s].meshFile.empty())
      inputs.extraInputs.emplace_back("/species/" + std::to_string(s) + "/mesh/file", config.species[s].meshFile);
}

}  // namespace

BiomeInputs loadBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems) {
  BiomeInputs inputs;
  const TerrainConfig& terrain = config.terrain;
  inputs.cellSize = terrain.mapping.cellSize;
  // An empty name means the parser already reported the field.
  if (!terrain.heightmap.empty())
    inputs.heightmap =
        loadInputImage(terrain.heightmap, terrain.rawWidth, terrain.rawHeight, "/terrain/heightmap", problems);
  if (inputs.heightmap && terrain.mapping.fromFile && !inputs.heightmap->metres) {
    problems.push_back({"/terrain", "missing height mapping: " + terrain.heightmap + " holds " +
                                        std::to_string(inputs.heightmap->bitsPerChannel) +
                                        "-bit unsigned samples (0 to 1, not metres); give min_elevation and "
                                        "max_elevation (or height_scale and height_offset). A float or signed "
                                        "16-bit GeoTIFF, EXR or r32f is metres without them"});
    inputs.heightmap.reset();
  }
  if (inputs.heightmap) {
    inputs.crs = inputs.heightmap->geo.crs();
    inputs.cellSize = resolveCellSize(terrain, *inputs.heightmap, problems);
    if (inputs.cellSize <= 0) inputs.heightmap.reset();
  }
  if (!config.river.file.empty()) {
    std::string riverPath = config.river.source == RiverSource::Distance ? "/river/distance" : "/river/mask";
    inputs.river = loadInputImage(config.river.file, 0, 0, riverPath, problems);
    if (inputs.heightmap && inputs.river) {
      const Grid &h = inputs.heightmap->pixels, &r = inputs.river->pixels;
      std::string problem = riverExtentProblem(r.width, r.height, h.width, h.height);
      if (!problem.empty()) {
        problems.push_back({riverPath, config.river.file + ": " + problem});
        inputs.river.reset();
      }
    }
  }

  // Mesh files: read and checked in full here, so `validate` refuses a bad one (exit 2) with
  // the loader's message, which names the file and the glTF element.
  inputs.meshes.resize(config.species.size());
  for (size_t s = 0; s < config.species.size(); ++s) {
    const std::string& file = config.species[s].meshFile;
    if (file.empty()) continue;
    const std::string path = "/species/" + std::to_string(s) + "/mesh/file";
    try {
      inputs.meshes[s] = loadMetricMesh(file);
    } catch (const InputError& e) {
      problems.push_back({path, e.what()});
    }
  }

  // Painted maps and vector exclusions are placed over the world's extent.
  const bool anyMap = config.exclusionMap.given() ||
                      std::any_of(config.species.begin(), config.species.end(),
                                  [](const SpeciesConfig& s) { return s.densityMap.given() || s.excludeMap.given(); });
  if (!inputs.heightmap || (!anyMap && config.vectorExclusions.empty())) {
    addMeshInputs(config, inputs);
    return inputs;
  }
  const double extentX = double(inputs.heightmap->pixels.width - 1) * double(inputs.cellSize);
  const double extentZ = double(inputs.heightmap->pixels.height - 1) * double(inputs.cellSize);
  std::vector<std::pair<std::string, int>> seen;
  int64_t budget = kMaxMapPixels;
  inputs.exclusionMap = loadMap(config.exclusionMap, "/exclusion_map", extentX, extentZ, inputs, seen, budget, problems);
  for (size_t s = 0; s < config.species.size(); ++s) {
    const std::string base = "/species/" + std::to_string(s);
    inputs.densityMap.push_back(
        loadMap(config.species[s].densityMap, base + "/density_map", extentX, extentZ, inputs, seen, budget, problems));
    inputs.excludeMap.push_back(
        loadMap(config.species[s].excludeMap, base + "/exclude_map", extentX, extentZ, inputs, seen, budget, problems));
  }
  for (size_t g = 0; g < config.vectorExclusions.size(); ++g)
    inputs.extraInputs.emplace_back("/vector_exclusions/" + std::to_string(g) + "/file", config.vectorExclusions[g].file);
  if (!config.vectorExclusions.empty())
    inputs.shapes = loadExclusionShapes(config, extentX, extentZ, problems);
  addMeshInputs(config, inputs);
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
