// parseBiomeConfig: JSON text -> BiomeConfig, collecting every problem it can find without
// touching the input images. The format is documented field by field in
// schemas/biome.schema.json; keep the two in step (tests/config_schema_test.cpp checks).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cstdio>
#include <map>
#include <set>

#include "config/config.h"
#include "core/json.h"
#include "core/error.h"
#include "core/file_io.h"

namespace eco {
namespace {

namespace fs = std::filesystem;
using Problems = std::vector<ConfigProblem>;

const std::vector<std::string> kKindNames(kSpeciesKindNames.begin(), kSpeciesKindNames.end());
const std::vector<std::string> kFormNames(kMeshFormNames.begin(), kMeshFormNames.end());

std::string lowerExtension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}
namespace limits = config_limits;
const std::string kDensityModes[] = {"variable_radius", "roulette"};
const std::string kSamplingMethods[] = {"pool", "bridson"};
const InputFormat kHeightmapFormats[] = {InputFormat::Png, InputFormat::Exr, InputFormat::R16, InputFormat::R32F,
                                         InputFormat::Tiff};
const InputFormat kRiverFormats[] = {InputFormat::Png, InputFormat::Exr, InputFormat::Tiff};
const InputFormat kMapFormats[] = {InputFormat::Png, InputFormat::Exr, InputFormat::Tiff};
const std::string kChannelNames[] = {"r", "g", "b", "a"};
constexpr size_t kMaxVectorExclusions = 64;

// Reads a file name, checks its type (terrain.h's inputFormatOf, the rule loadWorld follows)
// and resolves it against the config's folder.
bool readPath(ObjectReader& r, const char* key, std::span<const InputFormat> formats, const fs::path& folder,
              std::string& out) {
  std::string text;
  if (!r.string(key, text, true)) return false;
  if (std::find(formats.begin(), formats.end(), inputFormatOf(text)) == formats.end()) {
    std::string allowed;
    for (InputFormat f : formats) allowed += std::string(allowed.empty() ? "" : ", ") + inputFormatExtension(f);
    r.report(r.pathOf(key), "unsupported file type '" + fs::path(text).extension().string() + "' (use " + allowed + ")");
    return false;
  }
  fs::path p(text);
  out = (p.is_absolute() ? p : folder / p).lexically_normal().string();
  return true;
}

// A painted map: "file.png" or { "file": "splat.png", "channel": "r" }.
void readMapInput(ObjectReader& r, const Json& parent, const char* key, const fs::path& folder, Problems& problems,
                  MapInput& out) {
  if (!r.has(key)) return;
  if (parent[key].is_object()) {
    const Json* object = r.object(key);
    ObjectReader mr(*object, r.pathOf(key), problems);
    std::string file;
    if (readPath(mr, "file", kMapFormats, folder, file)) out.file = file;
    int channel = 0;
    if (mr.choice("channel", kChannelNames, channel)) out.channel = channel;
    else if (mr.has("channel")) out.file.clear();
    mr.rejectUnknownKeys();
    return;
  }
  if (!parent[key].is_string()) {
    r.markKnown(key);
    r.report(r.pathOf(key), "expected a file name or an object { \"file\": ..., \"channel\": \"r\" }, got " +
                                jsonTypeName(parent[key]));
    return;
  }
  readPath(r, key, kMapFormats, folder, out.file);
}

void readHeightMapping(ObjectReader& r, HeightMapping& mapping) {
  bool scaleGiven = r.has("height_scale") || r.has("height_offset");
  bool rangeGiven = r.has("min_elevation") || r.has("max_elevation");
  if (scaleGiven && rangeGiven)
    r.report(r.path(), "give either height_scale and height_offset or min_elevation and max_elevation, not both");
  // Neither: the heightmap's samples are metres, which only a float or signed 16-bit image
  // holds (checked when the image is read: loadBiomeInputs).
  mapping.fromFile = !scaleGiven && !rangeGiven;
  bool required = scaleGiven != rangeGiven;

  float scale = 1, offset = 0;
  const Limits elevation = Limits::between(-limits::kMaxAbsElevation, limits::kMaxAbsElevation);
  bool scaleOk = r.number("height_scale", scale, {0, limits::kMaxHeightScale, true, false}, required && scaleGiven);
  bool offsetOk = r.number("height_offset", offset, elevation, required && scaleGiven);
  if (scaleOk && offsetOk && !rangeGiven) {
    mapping.heightScale = scale;
    mapping.heightOffset = offset;
  }

  float low = 0, high = 0;
  bool lowOk = r.number("min_elevation", low, elevation, required && rangeGiven);
  bool highOk = r.number("max_elevation", high, elevation, required && rangeGiven);
  if (lowOk && highOk) {
    if (high <= low)
      r.report(r.pathOf("max_elevation"), "must be above min_elevation (" + describeNumber(double(low)) + "), got " +
                                              describeNumber(double(high)));
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
  // A GeoTIFF may carry its pixel scale; every other heightmap needs cell_size.
  const bool tiff = pathOk && inputFormatOf(terrain.heightmap) == InputFormat::Tiff;
  terrain.cellSizeGiven = r.has("cell_size");
  r.number("cell_size", terrain.mapping.cellSize, Limits::between(limits::kMinCellSize, limits::kMaxCellSize), !tiff);
  readHeightMapping(r, terrain.mapping);
  // Without a mapping the samples must be metres: a PNG or .r16 never holds them (a TIFF is
  // told by its sample format when read).
  if (pathOk && terrain.mapping.fromFile &&
      (inputFormatOf(terrain.heightmap) == InputFormat::Png || inputFormatOf(terrain.heightmap) == InputFormat::R16))
    r.report(r.path(), "missing height mapping: give min_elevation and max_elevation (or height_scale and height_offset); "
                       "only a float or signed 16-bit GeoTIFF, EXR or r32f heightmap is metres without one");

  // Unknown file type: still check raw_width/raw_height, but require them only for raw files.
  bool raw = pathOk && isRawFormat(inputFormatOf(terrain.heightmap));
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
    r.number("distance_scale", river.distanceScale, {0, limits::kMaxDistanceScale, true, false}, true);
  } else if (r.has("distance_scale")) {
    r.markKnown("distance_scale");
    r.report(r.pathOf("distance_scale"), "only used with a distance image");
  }
  float channelWidth = 0;
  if (r.number("channel_width", channelWidth, Limits::between(0, limits::kMaxChannelWidth)))
    river.channelWidth = channelWidth;
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
  r.number("river_falloff", moisture.riverFalloff, Limits::between(limits::kMinLength, limits::kMaxDistanceScale));
  r.number("river_weight", moisture.riverWeight, Limits::between(0, 1));
  r.number("noise_wavelength", moisture.noiseWavelength,
           Limits::between(limits::kMinNoiseWavelength, limits::kMaxNoiseWavelength));
  int64_t octaves = 0;
  if (r.integer("noise_octaves", octaves, Limits::between(1, 12))) moisture.noiseOctaves = int(octaves);
  r.rejectUnknownKeys();
}

void readElevation(const Json& json, const std::string& path, Problems& problems, ElevationBand& band) {
  ObjectReader r(json, path, problems);
  const Limits elevation = Limits::between(-limits::kMaxAbsElevation, limits::kMaxAbsElevation);
  bool ok = r.number("min", band.min, elevation, true);
  ok &= r.number("opt_low", band.optLow, elevation, true);
  ok &= r.number("opt_high", band.optHigh, elevation, true);
  ok &= r.number("max", band.max, elevation, true);
  if (ok && !(band.min <= band.optLow && band.optLow <= band.optHigh && band.optHigh <= band.max && band.min < band.max))
    r.report(path, "band must satisfy min <= opt_low <= opt_high <= max and min < max, got " +
                       describeNumber(double(band.min)) + ", " + describeNumber(double(band.optLow)) + ", " +
                       describeNumber(double(band.optHigh)) + ", " + describeNumber(double(band.max)));
  r.rejectUnknownKeys();
}

// An [r, g, b] array of numbers in [0, 1] at `key`.
void readColor(ObjectReader& r, float color[3], const char* key = "color") {
  const Json* array = r.array(key);
  if (!array) return;
  std::string path = r.pathOf(key);
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

// `ground`: a preset's palette, then any colour or the snow line given over it.
const std::vector<std::string> kGroundPresets = {"temperate", "arid"};
void readGround(const Json& j, const std::string& path, std::vector<ConfigProblem>& problems, GroundPalette& g) {
  ObjectReader r(j, path, problems);
  int preset = 0;
  r.choice("preset", kGroundPresets, preset);
  g = preset == 1 ? kAridGround : kTemperateGround;
  for (uint32_t k = 0; k < kGroundColors; ++k) readColor(r, g.color[k], kGroundColorNames[k]);
  r.number("snowline", g.snowline, Limits::between(-limits::kMaxAbsElevation, limits::kMaxAbsElevation));
  r.rejectUnknownKeys();
}

const std::vector<std::string> kPatternStyles = {"natural", "packed"};
const std::vector<std::string> kCanopyResponses = {"none", "shade", "sun"};

// species.pattern over the kind's natural defaults (already in s.pattern).
void readPattern(const Json& json, const std::string& path, Problems& problems, SpeciesConfig& s) {
  ObjectReader r(json, path, problems);
  PatternConfig& p = s.pattern;
  int style = 0;
  if (r.choice("style", kPatternStyles, style)) p.style = PatternStyle(style);
  r.number("hard_core", p.hardCore, {0.2, 1, false, false});
  r.number("size_spacing", p.sizeSpacing, Limits::between(0, 1));
  const Limits length = Limits::between(limits::kMinLength, limits::kMaxLength);
  if (const Json* c = r.object("clumping")) {
    ObjectReader cr(*c, r.pathOf("clumping"), problems);
    cr.number("share", p.clumpShare, Limits::between(0, 0.9));
    if (cr.number("radius", p.clumpRadius, length) && p.clumpRadius < s.radius)
      cr.report(cr.pathOf("radius"), "clump radius " + describeNumber(double(p.clumpRadius)) +
                                          " m is below the species' radius " + describeNumber(double(s.radius)) +
                                          " m: a clump would hold one plant");
    cr.number("between", p.clumpBetween, Limits::between(0, 1));
    cr.rejectUnknownKeys();
  }
  if (const Json* g = r.object("gaps")) {
    ObjectReader gr(*g, r.pathOf("gaps"), problems);
    gr.number("share", p.gapShare, Limits::between(0, 0.9));
    if (gr.number("size", p.gapSize, length) && p.gapSize < 2.f * s.radius)
      gr.report(gr.pathOf("size"), "gap size " + describeNumber(double(p.gapSize)) + " m is below twice the species' radius " +
                                       describeNumber(double(s.radius)) + " m: a gap must hold a plant's room");
    gr.rejectUnknownKeys();
  }
  int canopy = 0;
  if (r.choice("canopy", kCanopyResponses, canopy)) p.canopy = CanopyResponse(canopy);
  r.number("canopy_contrast", p.canopyContrast, Limits::between(1, 100));
  r.rejectUnknownKeys();
}

// Returns false when a field that spacing depends on (radius, factor, footprint) is invalid.
bool readSpecies(const Json& json, const std::string& path, const fs::path& folder, Problems& problems,
                 SpeciesConfig& s) {
  ObjectReader r(json, path, problems);
  if (r.string("name", s.name, true)) {
    if (std::string why = nameProblem(s.name); !why.empty()) {
      r.report(r.pathOf("name"), why);
      s.name.clear();  // no duplicate or exclusion checks against a refused name
    }
  }
  int kind = 0;
  if (r.choice("kind", kKindNames, kind, true)) s.kind = SpeciesKind(kind);
  int64_t layer = int64_t(s.kind);
  r.integer("layer", layer, Limits::between(0, 255));
  s.layer = int(layer);

  const Limits length = Limits::between(limits::kMinLength, limits::kMaxLength);
  bool spacingOk = r.number("radius", s.radius, length, true);
  spacingOk &= r.number("max_radius_factor", s.maxRadiusFactor, Limits::between(1, limits::kMaxRadiusFactor)) ||
               !r.has("max_radius_factor");
  s.footprint = s.radius / 4;
  spacingOk &= r.number("footprint", s.footprint, Limits::between(0, limits::kMaxLength)) || !r.has("footprint");
  if (spacingOk && double(s.radius) * double(s.maxRadiusFactor) > limits::kMaxLength)
    r.report(r.pathOf("max_radius_factor"), "radius * max_radius_factor (" + describeNumber(double(s.radius)) + " * " +
                                                describeNumber(double(s.maxRadiusFactor)) + ") must be at most " +
                                                describeNumber(limits::kMaxLength) + " m");

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
  float cover = 0.f;
  if (r.number("cover", cover, {0, 0.95, true, false})) {
    if (r.has("density"))
      r.report(r.pathOf("cover"), "give density or cover, not both (cover finds the density that gives it)");
    else
      s.cover = cover;
  }
  r.markKnown("grows_in_water");
  if (r.has("grows_in_water")) {
    const Json& w = json.at("grows_in_water");
    if (w.is_boolean())
      s.growsInWater = w.get<bool>();
    else
      r.report(r.pathOf("grows_in_water"), "expected a boolean, got " + jsonTypeName(w));
  }
  if (const Json* scale = r.object("scale")) {
    ObjectReader sr(*scale, r.pathOf("scale"), problems);
    const Limits scaleLimits{0, limits::kMaxScale, true, false};
    bool ok = sr.number("min", s.scaleMin, scaleLimits);
    ok &= sr.number("max", s.scaleMax, scaleLimits);
    if (ok && s.scaleMin > s.scaleMax)
      sr.report(sr.path(), "min (" + describeNumber(double(s.scaleMin)) + ") is above max (" +
                               describeNumber(double(s.scaleMax)) + ")");
    sr.rejectUnknownKeys();
  }
  s.colorGiven = r.has("color");
  const std::array<float, 3> kindColor = defaultSpeciesColor(s.kind);
  std::copy(kindColor.begin(), kindColor.end(), s.color);
  readColor(r, s.color);
  r.number("color_variation", s.colorVariation, Limits::between(0, 1));
  if (const Json* mesh = r.object("mesh")) {
    ObjectReader mr(*mesh, r.pathOf("mesh"), problems);
    const Limits size{0, limits::kMaxMeshSize, true, false};
    mr.number("height", s.meshHeight, size);
    mr.number("crown_radius", s.crownRadius, size);
    if (mr.string("asset", s.meshAsset, false, true))
      if (std::string why = meshAssetProblem(s.meshAsset); !why.empty()) mr.report(mr.pathOf("asset"), why);
    // mesh.file: a glTF 2.0 file the viewer draws (and the bake copies, normalised); read and
    // checked with the other inputs (biome_inputs.cpp).
    std::string file;
    if (mr.string("file", file)) {
      const std::string ext = lowerExtension(file);
      if (ext != ".gltf" && ext != ".glb")
        mr.report(mr.pathOf("file"), "unsupported mesh file type '" + fs::path(file).extension().string() + "' (use .gltf, .glb)");
      else
        s.meshFile = (fs::path(file).is_absolute() ? fs::path(file) : folder / file).lexically_normal().string();
    }
    s.meshForm = defaultMeshForm(s.kind);
    int form = 0;
    if (mr.choice("form", kFormNames, form)) {
      if (meshFormSuits(MeshForm(form), s.kind))
        s.meshForm = MeshForm(form), s.meshFormGiven = true;
      else
        mr.report(mr.pathOf("form"), std::string("form ") + meshFormName(MeshForm(form)) + " does not suit a " +
                                         speciesKindName(s.kind) + (s.kind == SpeciesKind::Tree ? " (use broadleaf or conifer)" : " (use " + std::string(meshFormName(defaultMeshForm(s.kind))) + ")"));
    }
    mr.rejectUnknownKeys();
  }
  r.number("max_tilt_deg", s.maxTiltDeg, Limits::between(0, 90));
  s.pattern = naturalPattern(s.kind, s.radius);
  if (const Json* pattern = r.object("pattern")) readPattern(*pattern, r.pathOf("pattern"), problems, s);
  readMapInput(r, json, "density_map", folder, problems, s.densityMap);
  readMapInput(r, json, "exclude_map", folder, problems, s.excludeMap);
  r.rejectUnknownKeys();
  return spacingOk;
}

void readVectorExclusion(const Json& json, const std::string& path, const fs::path& folder, Problems& problems,
                         VectorExclusionConfig& e) {
  ObjectReader r(json, path, problems);
  std::string file;
  if (r.string("file", file, true)) {
    fs::path p(file);
    e.file = (p.is_absolute() ? p : folder / p).lexically_normal().string();
  }
  if (const Json* names = r.array("species")) {
    for (size_t i = 0; i < names->size(); ++i) {
      if ((*names)[i].is_string())
        e.species.push_back((*names)[i].get<std::string>());
      else
        r.report(jsonPointer(r.pathOf("species"), i), "expected a species name, got " + jsonTypeName((*names)[i]));
    }
  }
  if (const Json* kinds = r.array("kinds")) {
    for (size_t i = 0; i < kinds->size(); ++i) {
      const Json& k = (*kinds)[i];
      auto found = k.is_string() ? std::find(kKindNames.begin(), kKindNames.end(), k.get<std::string>()) : kKindNames.end();
      if (found == kKindNames.end())
        r.report(jsonPointer(r.pathOf("kinds"), i),
                 "expected one of tree, shrub, grass, ground_cover, got " + (k.is_string() ? "'" + k.get<std::string>() + "'" : jsonTypeName(k)));
      else
        e.kinds.push_back(SpeciesKind(found - kKindNames.begin()));
    }
  }
  r.rejectUnknownKeys();
}

bool readExclusion(const Json& json, const std::string& path, Problems& problems, ExclusionOverride& e) {
  ObjectReader r(json, path, problems);
  r.string("a", e.a, true);
  r.string("b", e.b, true);
  bool ok = r.number("distance", e.distance, Limits::between(0, limits::kMaxLength), true);
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
  for (size_t i = 0; i < config.vectorExclusions.size(); ++i) {
    const std::vector<std::string>& listed = config.vectorExclusions[i].species;
    for (size_t k = 0; k < listed.size(); ++k)
      if (std::find(names.begin(), names.end(), listed[k]) == names.end())
        problems.push_back({"/vector_exclusions/" + std::to_string(i) + "/species/" + std::to_string(k),
                            "unknown species '" + listed[k] + "'" + suggestion(listed[k], names)});
  }
}

// 256 species with every field and long names stay far below this.
constexpr uint64_t kMaxConfigBytes = 16 << 20;

std::string readText(const std::string& path, Problems& problems) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    problems.push_back({"", "config file not found"});
    return {};
  }
  try {
    return readFileText(path, kMaxConfigBytes, "config file");
  } catch (const InputError& e) {
    problems.push_back({"", e.what()});
    return {};
  }
}

ConfigProblem numberOverflowProblem(const std::string& text) {
  JsonPointerTracker tracker;
  Json::sax_parse(text, &tracker);
  return {tracker.pointer(), "number " + tracker.token + " is out of range (a JSON number must fit a double; " +
                                 "see the schema for each field's range)"};
}

// Length in bytes of the UTF-8 sequence at s[i] and its code point; 0 when malformed
// (overlong, surrogate, above U+10FFFF, truncated).
size_t decodeUtf8(std::string_view s, size_t i, char32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  size_t n = b0 < 0x80 ? 1 : (b0 & 0xe0) == 0xc0 ? 2 : (b0 & 0xf0) == 0xe0 ? 3 : (b0 & 0xf8) == 0xf0 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? b0 : n == 2 ? b0 & 0x1fu : n == 3 ? b0 & 0x0fu : b0 & 0x07u;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3fu);
  }
  static constexpr char32_t kMinOf[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinOf[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// Code points outside ASCII that a name may not hold: C1 controls, separators and the
// invisible format characters that reorder or hide text (bidi overrides, zero-width marks,
// the BOM), and non-characters.
bool forbiddenNonAscii(char32_t cp) {
  return cp <= 0x9f || cp == 0xad || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f) ||
         (cp >= 0x205f && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff0 && cp <= 0xffff) ||
         (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe || (cp >= 0xe0000 && cp <= 0xe007f);
}

std::string describeChar(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
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

std::string nameProblem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > limits::kMaxNameBytes)
    return "is " + std::to_string(name.size()) + " bytes long; at most " + std::to_string(limits::kMaxNameBytes);
  if (name.front() == ' ' || name.back() == ' ') return "must not start or end with a space";
  for (size_t i = 0; i < name.size();) {
    char32_t cp = 0;
    const size_t n = decodeUtf8(name, i, cp);
    if (n == 0) return "is not valid UTF-8 (byte " + std::to_string(i) + ")";
    if (cp < 0x80) {
      const char c = char(cp);
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           std::string_view(" _-.()'").find(c) != std::string_view::npos;
      if (!allowed)
        return "may hold letters, digits, spaces and _ - . ( ) ' only; got " +
               (cp >= 0x20 && cp < 0x7f ? "'" + std::string(1, c) + "'" : describeChar(cp)) + " at byte " +
               std::to_string(i);
    } else if (forbiddenNonAscii(cp)) {
      return "holds the invisible or control character " + describeChar(cp) + " at byte " + std::to_string(i);
    }
    i += n;
  }
  return {};
}

BiomeConfig parseBiomeConfig(const std::string& path, std::vector<ConfigProblem>& problems) {
  BiomeConfig config;
  config.configPath = path;
  size_t firstProblem = problems.size();
  std::string text = readText(path, problems);
  if (problems.size() > firstProblem) return config;

  if (std::string why = jsonNulProblem(text); !why.empty()) {
    problems.push_back({"", why + "; a config is JSON text"});
    return config;
  }
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    problems.push_back(parseErrorProblem(text, e));
    return config;
  } catch (const nlohmann::json::out_of_range&) {
    problems.push_back(numberOverflowProblem(text));
    return config;
  }
  if (!json.is_object()) {
    problems.push_back({"", "expected a JSON object at the top level, got " + jsonTypeName(json)});
    return config;
  }
  for (const std::string& pointer : duplicateJsonKeys(text))
    problems.push_back({pointer, kDuplicateKeyReason});

  fs::path folder = fs::path(path).parent_path();
  ObjectReader root(json, "", problems);
  std::string schemaPath;
  root.string("$schema", schemaPath);
  if (root.string("name", config.name, true))
    if (std::string why = nameProblem(config.name); !why.empty()) root.report("/name", why);
  if (const Json* t = root.object("terrain", true)) readTerrain(*t, "/terrain", folder, problems, config.terrain);
  if (const Json* r = root.object("river")) readRiver(*r, "/river", folder, problems, config.river);
  if (const Json* sun = root.object("sun")) {
    ObjectReader r(*sun, "/sun", problems);
    r.number("azimuth_deg", config.sunAzimuthDeg, Limits::between(0, 360));
    r.number("elevation_deg", config.sunElevationDeg, {0, 90, true, false});
    r.rejectUnknownKeys();
  }
  if (const Json* m = root.object("moisture")) readMoisture(*m, "/moisture", problems, config.moisture);
  if (const Json* g = root.object("ground")) readGround(*g, "/ground", problems, config.ground.emplace());
  bool tileSizeOk = true;
  if (const Json* tiling = root.object("tiling")) {
    ObjectReader r(*tiling, "/tiling", problems);
    tileSizeOk = r.number("tile_size", config.tileSize, Limits::between(limits::kMinLength, limits::kMaxLength)) ||
                 !r.has("tile_size");
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
    if (species->size() > limits::kMaxSpecies) {
      // Every species costs a heightmap-sized raster and a slot in every tile: refuse before
      // reading thousands of them.
      root.report("/species", "at most " + std::to_string(limits::kMaxSpecies) + " species, got " +
                                  std::to_string(species->size()));
      return config;
    }
    for (auto [item, itemPath] : objectsOf(*species, "/species", problems))
      spacingOk &= readSpecies(*item, itemPath, folder, problems, config.species.emplace_back());
    spacingOk &= config.species.size() == species->size();
  }
  if (const Json* exclusions = root.array("exclusions")) {
    for (auto [item, itemPath] : objectsOf(*exclusions, "/exclusions", problems))
      spacingOk &= readExclusion(*item, itemPath, problems, config.exclusions.emplace_back());
    spacingOk &= config.exclusions.size() == exclusions->size();
  }
  readMapInput(root, json, "exclusion_map", folder, problems, config.exclusionMap);
  if (const Json* vectors = root.array("vector_exclusions")) {
    if (vectors->size() > kMaxVectorExclusions)
      root.report("/vector_exclusions", "at most " + std::to_string(kMaxVectorExclusions) + " files, got " +
                                            std::to_string(vectors->size()));
    else
      for (auto [item, itemPath] : objectsOf(*vectors, "/vector_exclusions", problems))
        readVectorExclusion(*item, itemPath, folder, problems, config.vectorExclusions.emplace_back());
  }
  root.rejectUnknownKeys();
  checkSpeciesNames(config, problems);

  // The sampler's own checks (tile-size rule, grid size per tile), with the fields' paths;
  // those that need the world's extent follow once the heightmap is read (checkWorld).
  if (spacingOk && tileSizeOk && !config.species.empty()) checkSamplingConfig(config, 0.f, 0.f, problems);
  return config;
}

}  // namespace eco
