// parseBiomeConfig: JSON text -> BiomeConfig, collecting every problem it can find without
// touching the input images. The format is documented field by field in
// schemas/biome.schema.json; keep the two in step (tests/config_schema_test.cpp checks).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "config/biome_config.h"
#include "config/json_fields.h"

namespace eco {
namespace {

namespace fs = std::filesystem;
using Problems = std::vector<ConfigProblem>;

const std::string kKindNames[] = {"tree", "shrub", "grass", "ground_cover"};
const std::string kDensityModes[] = {"variable_radius", "roulette"};
const std::string kSamplingMethods[] = {"pool", "bridson"};
const std::string kHeightmapFormats[] = {".png", ".exr", ".r16", ".r32f"};
const std::string kRiverFormats[] = {".png", ".exr"};

std::string lowerExtension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

bool isRawFormat(const std::string& path) {
  std::string ext = lowerExtension(path);
  return ext == ".r16" || ext == ".r32f";
}

// Reads a file name, checks its extension and resolves it against the config's folder.
bool readPath(ObjectReader& r, const char* key, std::span<const std::string> formats, const fs::path& folder,
              std::string& out) {
  std::string text;
  if (!r.string(key, text, true)) return false;
  std::string ext = lowerExtension(text);
  if (std::find(formats.begin(), formats.end(), ext) == formats.end()) {
    std::string allowed;
    for (const std::string& f : formats) allowed += (allowed.empty() ? "" : ", ") + f;
    r.report(r.pathOf(key), "unsupported file type '" + ext + "' (use " + allowed + ")");
    return false;
  }
  fs::path p(text);
  out = (p.is_absolute() ? p : folder / p).lexically_normal().string();
  return true;
}

void readHeightMapping(ObjectReader& r, HeightMapping& mapping) {
  bool scaleGiven = r.has("height_scale") || r.has("height_offset");
  bool rangeGiven = r.has("min_elevation") || r.has("max_elevation");
  if (scaleGiven && rangeGiven)
    r.report(r.path(), "give either height_scale and height_offset or min_elevation and max_elevation, not both");
  if (!scaleGiven && !rangeGiven)
    r.report(r.path(), "missing height mapping: give min_elevation and max_elevation (or height_scale and height_offset)");
  bool required = scaleGiven != rangeGiven;

  float scale = 1, offset = 0;
  bool scaleOk = r.number("height_scale", scale, Limits::positive(), required && scaleGiven);
  bool offsetOk = r.number("height_offset", offset, Limits::any(), required && scaleGiven);
  if (scaleOk && offsetOk && !rangeGiven) {
    mapping.heightScale = scale;
    mapping.heightOffset = offset;
  }

  float low = 0, high = 0;
  bool lowOk = r.number("min_elevation", low, Limits::any(), required && rangeGiven);
  bool highOk = r.number("max_elevation", high, Limits::any(), required && rangeGiven);
  if (lowOk && highOk) {
    if (high <= low)
      r.report(r.pathOf("max_elevation"), "must be above min_elevation (" + describeNumber(low) + "), got " +
                                              describeNumber(high));
    else if (!scaleGiven) {
      mapping.heightScale = high - low;
      mapping.heightOffset = low;
    }
  }
}

void readTerrain(const Json& json, const std::string& path, const fs::path& folder, Problems& problems,
                 TerrainConfig& terrain) {
  ObjectReader r(json, path, problems);
  bool pathOk = readPath(r, "heightmap", kHeightmapFormats, folder, terrain.heightmap);
  r.number("cell_size", terrain.mapping.cellSize, Limits::positive(), true);
  readHeightMapping(r, terrain.mapping);

  // Unknown file type: still check raw_width/raw_height, but require them only for raw files.
  bool raw = pathOk && isRawFormat(terrain.heightmap);
  if (pathOk && !raw) {
    for (const char* key : {"raw_width", "raw_height"}) {
      r.markKnown(key);
      if (r.has(key)) r.report(r.pathOf(key), "only used for .r16 and .r32f heightmaps");
    }
  } else {
    int64_t width = 0, height = 0;
    bool sizeOk = r.integer("raw_width", width, Limits::between(2, 1 << 20), raw);
    sizeOk &= r.integer("raw_height", height, Limits::between(2, 1 << 20), raw);
    if (sizeOk) {
      terrain.rawWidth = int(width);
      terrain.rawHeight = int(height);
    }
  }
  r.rejectUnknownKeys();
}

void readRiver(const Json& json, const std::string& path, const fs::path& folder, Problems& problems,
               RiverConfig& river) {
  ObjectReader r(json, path, problems);
  bool distanceGiven = r.has("distance"), maskGiven = r.has("mask");
  if (distanceGiven && maskGiven) r.report(path, "give either distance or mask, not both");
  if (!distanceGiven && !maskGiven) r.report(path, "give a distance image (with distance_scale) or a mask image");

  std::string distanceFile, maskFile;
  bool distanceOk = distanceGiven && readPath(r, "distance", kRiverFormats, folder, distanceFile);
  bool maskOk = maskGiven && readPath(r, "mask", kRiverFormats, folder, maskFile);
  if (distanceGiven) {
    r.number("distance_scale", river.distanceScale, Limits::positive(), true);
  } else if (r.has("distance_scale")) {
    r.markKnown("distance_scale");
    r.report(r.pathOf("distance_scale"), "only used with a distance image");
  }
  if (distanceOk && !maskGiven) {
    river.file = distanceFile;
    river.source = RiverSource::Distance;
  }
  if (maskOk && !distanceGiven) {
    river.file = maskFile;
    river.source = RiverSource::Mask;
  }
  r.rejectUnknownKeys();
}

void readMoisture(const Json& json, const std::string& path, Problems& problems, MoistureConfig& moisture) {
  ObjectReader r(json, path, problems);
  r.number("river_falloff", moisture.riverFalloff, Limits::positive());
  r.number("river_weight", moisture.riverWeight, Limits::between(0, 1));
  r.number("noise_wavelength", moisture.noiseWavelength, Limits::positive());
  int64_t octaves = 0;
  if (r.integer("noise_octaves", octaves, Limits::between(1, 12))) moisture.noiseOctaves = int(octaves);
  r.rejectUnknownKeys();
}

void readElevation(const Json& json, const std::string& path, Problems& problems, ElevationBand& band) {
  ObjectReader r(json, path, problems);
  bool ok = r.number("min", band.min, Limits::any(), true);
  ok &= r.number("opt_low", band.optLow, Limits::any(), true);
  ok &= r.number("opt_high", band.optHigh, Limits::any(), true);
  ok &= r.number("max", band.max, Limits::any(), true);
  if (ok && !(band.min <= band.optLow && band.optLow <= band.optHigh && band.optHigh <= band.max && band.min < band.max))
    r.report(path, "band must satisfy min <= opt_low <= opt_high <= max and min < max, got " +
                       describeNumber(band.min) + ", " + describeNumber(band.optLow) + ", " +
                       describeNumber(band.optHigh) + ", " + describeNumber(band.max));
  r.rejectUnknownKeys();
}

void readColor(ObjectReader& r, float color[3]) {
  const Json* array = r.array("color");
  if (!array) return;
  std::string path = r.pathOf("color");
  if (array->size() != 3) {
    r.report(path, "expected 3 numbers [r, g, b], got " + std::to_string(array->size()));
    return;
  }
  for (size_t i = 0; i < 3; ++i) {
    const Json& c = (*array)[i];
    if (!c.is_number())
      r.report(jsonPointer(path, i), "expected a number, got " + jsonTypeName(c));
    else if (!Limits::between(0, 1).contains(c.get<double>()))
      r.report(jsonPointer(path, i), "must be in [0, 1], got " + describeNumber(c.get<double>()));
    else
      color[i] = c.get<float>();
  }
}

// Returns false when a field that spacing depends on (radius, factor, footprint) is invalid.
bool readSpecies(const Json& json, const std::string& path, Problems& problems, SpeciesConfig& s) {
  ObjectReader r(json, path, problems);
  r.string("name", s.name, true);
  int kind = 0;
  if (r.choice("kind", kKindNames, kind, true)) s.kind = SpeciesKind(kind);
  int64_t layer = int64_t(s.kind);
  r.integer("layer", layer, Limits::between(0, 255));
  s.layer = int(layer);

  bool spacingOk = r.number("radius", s.radius, Limits::positive(), true);
  spacingOk &= r.number("max_radius_factor", s.maxRadiusFactor, Limits::atLeast(1)) || !r.has("max_radius_factor");
  s.footprint = s.radius / 4;
  spacingOk &= r.number("footprint", s.footprint, Limits::atLeast(0)) || !r.has("footprint");

  if (const Json* e = r.object("elevation", true)) readElevation(*e, r.pathOf("elevation"), problems, s.elevation);
  if (const Json* slope = r.object("slope")) {
    ObjectReader sr(*slope, r.pathOf("slope"), problems);
    sr.number("max_deg", s.maxSlopeDeg, {0, 90, true, false});
    sr.number("falloff_deg", s.slopeFalloffDeg, Limits::between(0, 90));
    sr.rejectUnknownKeys();
  }
  r.number("sun_preference", s.sunPreference, Limits::between(-1, 1));
  if (const Json* m = r.object("moisture")) {
    ObjectReader mr(*m, r.pathOf("moisture"), problems);
    mr.number("optimum", s.moistureOptimum, Limits::between(0, 1));
    mr.number("tolerance", s.moistureTolerance, {0, 1, true, false});
    mr.rejectUnknownKeys();
  }
  r.number("density", s.density, Limits::between(0, 1));
  if (const Json* scale = r.object("scale")) {
    ObjectReader sr(*scale, r.pathOf("scale"), problems);
    bool ok = sr.number("min", s.scaleMin, Limits::positive());
    ok &= sr.number("max", s.scaleMax, Limits::positive());
    if (ok && s.scaleMin > s.scaleMax)
      sr.report(sr.path(), "min (" + describeNumber(s.scaleMin) + ") is above max (" + describeNumber(s.scaleMax) + ")");
    sr.rejectUnknownKeys();
  }
  readColor(r, s.color);
  r.number("color_variation", s.colorVariation, Limits::between(0, 1));
  if (const Json* mesh = r.object("mesh")) {
    ObjectReader mr(*mesh, r.pathOf("mesh"), problems);
    mr.number("height", s.meshHeight, Limits::positive());
    mr.number("crown_radius", s.crownRadius, Limits::positive());
    mr.rejectUnknownKeys();
  }
  r.number("max_tilt_deg", s.maxTiltDeg, Limits::between(0, 90));
  r.rejectUnknownKeys();
  return spacingOk;
}

bool readExclusion(const Json& json, const std::string& path, Problems& problems, ExclusionOverride& e) {
  ObjectReader r(json, path, problems);
  r.string("a", e.a, true);
  r.string("b", e.b, true);
  bool ok = r.number("distance", e.distance, Limits::atLeast(0), true);
  r.rejectUnknownKeys();
  return ok;
}

// Each element must be an object; returns the objects with their paths.
std::vector<std::pair<const Json*, std::string>> objectsOf(const Json& array, const std::string& path,
                                                           Problems& problems) {
  std::vector<std::pair<const Json*, std::string>> out;
  for (size_t i = 0; i < array.size(); ++i) {
    std::string itemPath = jsonPointer(path, i);
    if (array[i].is_object())
      out.emplace_back(&array[i], itemPath);
    else
      problems.push_back({itemPath, "expected an object, got " + jsonTypeName(array[i])});
  }
  return out;
}

void checkSpeciesNames(const BiomeConfig& config, Problems& problems) {
  std::map<std::string, size_t> firstIndex;
  for (size_t i = 0; i < config.species.size(); ++i) {
    const std::string& name = config.species[i].name;
    if (name.empty()) continue;
    auto [it, inserted] = firstIndex.emplace(name, i);
    if (!inserted)
      problems.push_back({"/species/" + std::to_string(i) + "/name",
                          "duplicate species name '" + name + "' (first used by /species/" +
                              std::to_string(it->second) + ")"});
  }
  std::vector<std::string> names;
  for (const SpeciesConfig& s : config.species) names.push_back(s.name);
  for (size_t i = 0; i < config.exclusions.size(); ++i) {
    const ExclusionOverride& e = config.exclusions[i];
    std::string path = "/exclusions/" + std::to_string(i);
    for (auto [key, name] : {std::pair{"a", &e.a}, std::pair{"b", &e.b}}) {
      if (!name->empty() && std::find(names.begin(), names.end(), *name) == names.end())
        problems.push_back({path + "/" + key, "unknown species '" + *name + "'" + suggestion(*name, names)});
    }
    if (!e.a.empty() && e.a == e.b)
      problems.push_back({path + "/b", "a and b are the same species; its own spacing is set by radius"});
  }
}

std::string readText(const std::string& path, Problems& problems) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    problems.push_back({"", "config file not found"});
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!fs::is_regular_file(path, ec) || !in) {
    problems.push_back({"", "cannot read config file"});
    return {};
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// nlohmann reports a byte offset; users want line and column.
ConfigProblem parseErrorProblem(const std::string& text, const nlohmann::json::parse_error& error) {
  size_t offset = std::min<size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
  size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
  size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  size_t column = lineStart == std::string::npos || offset == 0 ? offset + 1 : offset - lineStart;
  std::string detail = error.what();
  size_t colon = detail.find(": ");
  detail = colon == std::string::npos ? detail : detail.substr(colon + 2);
  return {"", "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail};
}

}  // namespace

BiomeConfig parseBiomeConfig(const std::string& path, std::vector<ConfigProblem>& problems) {
  BiomeConfig config;
  config.configPath = path;
  size_t firstProblem = problems.size();
  std::string text = readText(path, problems);
  if (problems.size() > firstProblem) return config;

  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    problems.push_back(parseErrorProblem(text, e));
    return config;
  }
  if (!json.is_object()) {
    problems.push_back({"", "expected a JSON object at the top level, got " + jsonTypeName(json)});
    return config;
  }

  fs::path folder = fs::path(path).parent_path();
  ObjectReader root(json, "", problems);
  std::string schemaPath;
  root.string("$schema", schemaPath);
  root.string("name", config.name, true);
  if (const Json* t = root.object("terrain", true)) readTerrain(*t, "/terrain", folder, problems, config.terrain);
  if (const Json* r = root.object("river")) readRiver(*r, "/river", folder, problems, config.river);
  if (const Json* sun = root.object("sun")) {
    ObjectReader r(*sun, "/sun", problems);
    r.number("azimuth_deg", config.sunAzimuthDeg, Limits::between(0, 360));
    r.rejectUnknownKeys();
  }
  if (const Json* m = root.object("moisture")) readMoisture(*m, "/moisture", problems, config.moisture);
  bool tileSizeOk = true;
  if (const Json* tiling = root.object("tiling")) {
    ObjectReader r(*tiling, "/tiling", problems);
    tileSizeOk = r.number("tile_size", config.tileSize, Limits::positive()) || !r.has("tile_size");
    r.rejectUnknownKeys();
  }
  root.unsignedInteger("seed", config.seed);
  if (const Json* sampling = root.object("sampling")) {
    ObjectReader r(*sampling, "/sampling", problems);
    int64_t candidates = 0;
    if (r.integer("candidates", candidates, Limits::between(1, 1000))) config.candidates = int(candidates);
    int mode = 0;
    if (r.choice("density_mode", kDensityModes, mode)) config.densityMode = DensityMode(mode);
    int method = 0;
    if (r.choice("method", kSamplingMethods, method)) config.samplingMethod = SamplingMethod(method);
    r.rejectUnknownKeys();
  }

  bool spacingOk = true;
  if (const Json* species = root.array("species", true)) {
    if (species->empty()) root.report("/species", "list at least one species");
    for (auto [item, itemPath] : objectsOf(*species, "/species", problems))
      spacingOk &= readSpecies(*item, itemPath, problems, config.species.emplace_back());
    spacingOk &= config.species.size() == species->size();
  }
  if (const Json* exclusions = root.array("exclusions")) {
    for (auto [item, itemPath] : objectsOf(*exclusions, "/exclusions", problems))
      spacingOk &= readExclusion(*item, itemPath, problems, config.exclusions.emplace_back());
    spacingOk &= config.exclusions.size() == exclusions->size();
  }
  root.rejectUnknownKeys();
  checkSpeciesNames(config, problems);

  float interaction = maxInteractionDistance(config);
  if (spacingOk && tileSizeOk && !config.species.empty() && config.tileSize < 2 * interaction)
    problems.push_back({"/tiling/tile_size", "must be at least 2 * the largest interaction distance (2 * " +
                                                 describeNumber(interaction) + " = " +
                                                 describeNumber(2 * interaction) + " m), got " +
                                                 describeNumber(config.tileSize)});
  return config;
}

float maxInteractionDistance(const BiomeConfig& config) {
  float distance = 0;
  for (const SpeciesConfig& s : config.species)
    distance = std::max({distance, s.radius * s.maxRadiusFactor, 2 * s.footprint});
  for (const ExclusionOverride& e : config.exclusions) distance = std::max(distance, e.distance);
  return distance;
}

const char* speciesKindName(SpeciesKind kind) { return kKindNames[size_t(kind)].c_str(); }

}  // namespace eco
