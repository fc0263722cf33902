// The config checks that need the input files, and the throwing entry point.
#include <filesystem>
#include <cmath>
#include <optional>

#include "config/biome_config.h"
#include "core/error.h"

namespace eco {
namespace {

namespace fs = std::filesystem;
using Problems = std::vector<ConfigProblem>;

// .r16 / .r32f by extension (the config parser only lets these and .png/.exr through).
std::optional<RawFormat> rawFormat(const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".r16") return RawFormat::R16;
  if (ext == ".r32f") return RawFormat::R32F;
  return std::nullopt;
}

// Header of a single-channel input image, or nothing with a problem at jsonPath.
std::optional<ImageInfo> probeInput(const std::string& file, int rawWidth, int rawHeight, const std::string& jsonPath,
                                    Problems& problems) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    problems.push_back({jsonPath, "file not found: " + file});
    return std::nullopt;
  }
  if (!fs::is_regular_file(file, ec)) {
    problems.push_back({jsonPath, "not a regular file: " + file});
    return std::nullopt;
  }
  std::optional<ImageInfo> info;
  try {
    std::optional<RawFormat> raw = rawFormat(file);
    info = raw ? probeRaw(file, *raw, rawWidth, rawHeight) : probeImage(file);
  } catch (const InputError& e) {
    problems.push_back({jsonPath, e.what()});
    return std::nullopt;
  }
  if (info->channels != 1) {
    problems.push_back({jsonPath, file + " has " + std::to_string(info->channels) +
                                      " channels; use a single-channel (grey) image"});
    return std::nullopt;
  }
  if (info->width < 2 || info->height < 2) {
    problems.push_back({jsonPath, file + " is " + std::to_string(info->width) + " x " + std::to_string(info->height) +
                                      " pixels; at least 2 x 2 are needed"});
    return std::nullopt;
  }
  return info;
}

}  // namespace

void checkBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems) {
  const TerrainConfig& terrain = config.terrain;
  std::optional<ImageInfo> height =
      probeInput(terrain.heightmap, terrain.rawWidth, terrain.rawHeight, "/terrain/heightmap", problems);
  if (config.river.file.empty()) return;

  std::string riverPath = config.river.source == RiverSource::Distance ? "/river/distance" : "/river/mask";
  std::optional<ImageInfo> river = probeInput(config.river.file, 0, 0, riverPath, problems);
  if (!height || !river) return;

  // Both images span the same world rectangle, so the river's pixel grid, stretched over the
  // heightmap's width, must reach the heightmap's height within half a heightmap cell.
  double spanX = height->width - 1, spanZ = height->height - 1;
  double riverSpanZ = double(river->height - 1) * spanX / double(river->width - 1);
  if (std::abs(riverSpanZ - spanZ) > 0.5) {
    problems.push_back({riverPath, config.river.file + " (" + std::to_string(river->width) + " x " +
                                       std::to_string(river->height) + ") does not cover the same area as the " +
                                       "heightmap (" + std::to_string(height->width) + " x " +
                                       std::to_string(height->height) + "): (width - 1) / (height - 1) must match"});
  }
}

BiomeConfig loadBiomeConfig(const std::string& path) {
  std::vector<ConfigProblem> problems;
  BiomeConfig config = parseBiomeConfig(path, problems);
  if (problems.empty()) checkBiomeInputs(config, problems);
  if (!problems.empty()) throw InputError(formatProblem(path, problems.front()));
  return config;
}

std::string formatProblem(const std::string& file, const ConfigProblem& problem) {
  std::string line = file + ": " + (problem.path.empty() ? "" : problem.path + ": ") + problem.reason;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  return line;
}

}  // namespace eco
