#include "tileio/tileio.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <stdexcept>

#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "core/json.h"
#include "core/output_dir.h"
#include "core/species_kind.h"
#include "tile_generated.h"

namespace eco {

namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "terrain.r32f is written in host byte order");

// A manifest lists about 200 bytes per tile: 256 MiB is over a million tiles.
constexpr uint64_t kMaxManifestBytes = uint64_t(256) << 20;
constexpr const char* kManifestFormat = "ecobake-manifest";
constexpr const char* kPartFormat = "ecobake-part";  // a part of a sharded bake, same format_version
constexpr int kManifestVersion = 2;  // 2: tile checksums and hashes are XXH3-64 ("xxh3_64")
// Species ids are 16-bit in tiles and the manifest.
constexpr size_t kMaxSpecies = 65536;
// A tile's instances are 16 bytes each in its file: a claim of more than bytes / 16 is a lie.
constexpr uint64_t kPackedInstanceBytes = sizeof(fb::PackedInstance);
static_assert(kPackedInstanceBytes == 16);

static std::string manifestPath(const std::string& dir) { return (fs::path(dir) / "manifest.json").string(); }

void computeTotals(Manifest& m) {
  m.totals.instances = m.totals.bytes = 0;
  m.totals.speciesCounts.assign(m.species.size(), 0);
  for (const TileEntry& t : m.tiles) {
    m.totals.instances += t.instances;
    m.totals.bytes += t.bytes;
    for (size_t i = 0; i < t.speciesCounts.size() && i < m.species.size(); ++i)
      m.totals.speciesCounts[i] += t.speciesCounts[i];
  }
}

std::string tileFileName(int x, int z) { return "tiles/" + std::to_string(x) + "_" + std::to_string(z) + ".ecot"; }

static bool tileOrder(const TileEntry& a, const TileEntry& b) { return a.z != b.z ? a.z < b.z : a.x < b.x; }

static Json speciesJson(const SpeciesRecord& s) {
  Json j = {{"id", s.id},
          {"name", s.name},
          {"kind", speciesKindName(s.kind)},
          {"mesh_height", s.meshHeight},
          {"crown_radius", s.crownRadius},
          {"scale_min", s.scaleMin},
          {"scale_max", s.scaleMax},
          {"bounding_center_y", s.boundingCenterY},
          {"bounding_radius", s.boundingRadius},
          {"base_color",
           {s.baseColor & 0xff, (s.baseColor >> 8) & 0xff, (s.baseColor >> 16) & 0xff, s.baseColor >> 24}}};
  if (!s.meshAsset.empty()) j["mesh_asset"] = s.meshAsset;  // only when used: other manifests keep their bytes
  // Likewise the mesh fields: a form only when it is not the kind's default, a file only when used.
  if (s.meshForm && s.kind < kSpeciesKindNames.size() && *s.meshForm != defaultMeshForm(SpeciesKind(s.kind)))
    j["mesh_form"] = meshFormName(*s.meshForm);
  if (!s.meshFile.empty()) {
    j["mesh_file"] = s.meshFile;
    j["mesh_bytes"] = s.meshBytes;
    j["mesh_xxh3_64"] = hex64(s.meshChecksum);
  }
  return j;
}

static Json layerJson(const LayerEntry& l) {
  Json j = {{"name", l.name}, {"kind", l.kind}};
  if (!l.species.empty()) j["species"] = l.species;
  j["file"] = l.file;
  j["width"] = l.width;
  j["height"] = l.height;
  j["encoding"] = layerEncodingName(l.encoding);
  j["value_min"] = l.valueMin;
  j["value_max"] = l.valueMax;
  j["unit"] = l.unit;
  if (l.kind == "river") j["water_distance"] = l.waterDistance;
  j["xxh3_64"] = hex64(l.checksum);
  return j;
}

// nlohmann writes NaN and infinities as `null`, which readManifest (rightly) refuses.
static void requireFinite(const Json& j, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw std::logic_error("internal error: manifest field " + where + " is not finite; refusing to write it");
  if (j.is_object())
    for (const auto& [key, value] : j.items()) requireFinite(value, jsonPointer(where, key));
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) requireFinite(j[i], jsonPointer(where, i));
}

void writeManifest(const std::string& dir, const Manifest& m) {
  std::vector<TileEntry> tiles = m.tiles;
  std::sort(tiles.begin(), tiles.end(), tileOrder);

  Json j;
  j["format"] = m.part ? kPartFormat : kManifestFormat;
  if (m.part)  // keys are written sorted, so a whole bake's manifest is unchanged by this one
    j["part"] = {{"index", m.part->index},
                 {"count", m.part->count},
                 {"first_row", m.part->firstRow},
                 {"last_row", m.part->lastRow},
                 {"terrain_xxh3_64", hex64(m.part->terrainChecksum)}};
  j["format_version"] = kManifestVersion;
  j["tool_version"] = m.toolVersion;
  j["name"] = m.name;
  j["seed"] = m.seed;
  j["world"] = {{"size_x", m.world.sizeX}, {"size_z", m.world.sizeZ}, {"min_y", m.world.minY}, {"max_y", m.world.maxY}};
  j["terrain"] = {{"file", m.terrain.file},
                  {"width", m.terrain.width},
                  {"height", m.terrain.height},
                  {"cell_size", m.terrain.cellSize}};
  if (!m.crs.empty()) j["terrain"]["crs"] = m.crs;
  // Only when not the default: bakes of configs that leave the sun alone keep their bytes.
  if (m.sunAzimuthDeg != kDefaultSunAzimuthDeg || m.sunElevationDeg != kDefaultSunElevationDeg)
    j["sun"] = {{"azimuth_deg", m.sunAzimuthDeg}, {"elevation_deg", m.sunElevationDeg}};
  if (m.ground) {
    const GroundPalette& g = *m.ground;
    // 8 bits a channel, like the species' base_color: what the viewer's target holds.
    auto rgb = [](const float c[3]) {
      auto q = [](float v) { return int(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)); };
      return Json::array({q(c[0]), q(c[1]), q(c[2])});
    };
    j["ground"] = Json::object();
    for (uint32_t k = 0; k < kGroundColors; ++k) j["ground"][kGroundColorNames[k]] = rgb(g.color[k]);
    if (std::isfinite(g.snowline)) j["ground"]["snowline"] = g.snowline;
  }
  j["tiling"] = {{"tile_size", m.tiling.tileSize}, {"tiles_x", m.tiling.tilesX}, {"tiles_z", m.tiling.tilesZ}};
  j["species"] = Json::array();
  for (const SpeciesRecord& s : m.species) j["species"].push_back(speciesJson(s));
  if (!m.layers.empty()) {  // likewise only when there are any
    j["layers"] = Json::array();
    for (const LayerEntry& l : m.layers) j["layers"].push_back(layerJson(l));
  }
  j["tiles"] = Json::array();
  for (const TileEntry& t : tiles)
    j["tiles"].push_back({{"x", t.x},
                          {"z", t.z},
                          {"file", t.file},
                          {"instances", t.instances},
                          {"bytes", t.bytes},
                          {"xxh3_64", hex64(t.checksum)},
                          {"species_counts", t.speciesCounts}});
  j["hashes"] = {{"config", m.hashes.config}, {"heightmap", m.hashes.heightmap}, {"river", m.hashes.river}};
  if (!m.inputHashes.empty()) {
    Json inputs = Json::object();
    for (const auto& [pointer, hash] : m.inputHashes) inputs[pointer] = hash;
    j["hashes"]["inputs"] = inputs;
  }
  j["totals"] = {{"instances", m.totals.instances},
                 {"bytes", m.totals.bytes},
                 {"species_counts", m.totals.speciesCounts}};
  requireFinite(j, "");
  std::string text = j.dump(2) + "\n";
  writeFileAtomic(manifestPath(dir), text.data(), text.size());
}

namespace {

// The manifest is read with the config's reader (core/json.h): every problem is collected
// with its JSON pointer, and the first one is thrown as "<file>: <pointer>: <reason>".
struct ManifestReader {
  std::string file;
  std::vector<JsonProblem> problems;

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw InputError(formatProblem(file, {path, reason}));
  }
  void throwFirst() const {
    if (!problems.empty()) throw InputError(formatProblem(file, problems.front()));
  }
  // The member object `key` of `parent` as a reader; nullopt (reported) when missing or not an object.
  std::optional<ObjectReader> object(ObjectReader& parent, const char* key) {
    const Json* j = parent.object(key, true);
    if (!j) return std::nullopt;
    return ObjectReader(*j, parent.pathOf(key), problems);
  }
  // Element i of an array of objects.
  std::optional<ObjectReader> element(const Json& array, const std::string& path, size_t i) {
    if (!array[i].is_object()) {
      problems.push_back({jsonPointer(path, i), "expected an object, got " + jsonTypeName(array[i])});
      return std::nullopt;
    }
    return ObjectReader(array[i], jsonPointer(path, i), problems);
  }
};

// A file inside the bake folder: relative, no "..".
void relativePath(ObjectReader& r, const char* key, std::string& out) {
  if (!r.string(key, out, true)) return;
  fs::path p(out);
  if (p.is_absolute() || std::any_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".."; }))
    r.report(r.pathOf(key), "must be a relative path inside the bake folder");
}

bool hasControl(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

template <typename T>
void boundedInteger(ObjectReader& r, const char* key, T& out, int64_t lo, int64_t hi) {
  int64_t v = 0;
  if (r.integer(key, v, Limits::between(double(lo), double(hi)), true)) out = T(v);
}

SpeciesRecord readSpecies(ObjectReader& r) {
  SpeciesRecord s;
  boundedInteger(r, "id", s.id, 0, 65535);
  r.string("name", s.name, true);
  std::string kind;
  if (r.string("kind", kind, true)) {
    if (std::optional<SpeciesKind> parsed = speciesKindFromName(kind))
      s.kind = uint8_t(*parsed);
    else
      r.report(r.pathOf("kind"), "unknown kind \"" + kind + "\"");
  }
  r.number("mesh_height", s.meshHeight, Limits::any(), true);
  r.number("crown_radius", s.crownRadius, Limits::any(), true);
  r.number("scale_min", s.scaleMin, Limits::any(), true);
  r.number("scale_max", s.scaleMax, Limits::any(), true);
  r.number("bounding_center_y", s.boundingCenterY, Limits::any(), true);
  r.number("bounding_radius", s.boundingRadius, Limits::any(), true);
  std::vector<uint64_t> color;
  if (r.unsignedArray("base_color", color, true)) {
    if (color.size() != 4 || std::any_of(color.begin(), color.end(), [](uint64_t c) { return c > 255; }))
      r.report(r.pathOf("base_color"), "expected [r, g, b, a], each in [0, 255]");
    else
      s.baseColor = uint32_t(color[0] | color[1] << 8 | color[2] << 16 | color[3] << 24);
  }
  if (r.string("mesh_asset", s.meshAsset, false, true))
    if (std::string why = meshAssetProblem(s.meshAsset); !why.empty()) r.report(r.pathOf("mesh_asset"), why);
  std::string form;
  if (r.string("mesh_form", form)) {
    const std::optional<MeshForm> parsed = meshFormFromName(form);
    if (!parsed)
      r.report(r.pathOf("mesh_form"), "unknown mesh form \"" + form + "\"");
    else if (s.kind < kSpeciesKindNames.size() && !meshFormSuits(*parsed, SpeciesKind(s.kind)))
      r.report(r.pathOf("mesh_form"), "mesh form " + form + " does not suit a " + speciesKindName(s.kind));
    else
      s.meshForm = *parsed;
  }
  // A mesh file is one this tool wrote: meshes/<name>.glb, nothing else, so a hostile
  // manifest cannot point a reader outside the bake.
  if (r.has("mesh_file") || r.has("mesh_xxh3_64") || r.has("mesh_bytes")) {
    if (r.string("mesh_file", s.meshFile, true)) {
      const std::string_view f = s.meshFile;
      const bool ok = f.size() > 11 && f.size() <= 100 && f.substr(0, 7) == "meshes/" && f.substr(f.size() - 4) == ".glb" &&
                      std::all_of(f.begin() + 7, f.end() - 4, [](char c) {
                        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
                      });
      if (!ok) {
        r.report(r.pathOf("mesh_file"), "expected meshes/<name>.glb (letters, digits, _ and - only)");
        s.meshFile.clear();
      }
    }
    int64_t bytes = 0;
    if (r.integer("mesh_bytes", bytes, Limits::between(1, double(kMaxBakeMeshBytes)), true)) s.meshBytes = uint64_t(bytes);
    std::string hash;
    if (r.string("mesh_xxh3_64", hash, true)) {
      if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
        r.report(r.pathOf("mesh_xxh3_64"), "expected 16 lowercase hex digits");
      else
        s.meshChecksum = std::stoull(hash, nullptr, 16);
    }
  }
  return s;
}

// 16 lowercase hex digits, as hex64 writes them.
void hexChecksum(ObjectReader& r, const char* key, uint64_t& out) {
  std::string hash;
  if (r.string(key, hash, true)) {
    if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
      r.report(r.pathOf(key), "expected 16 lowercase hex digits");
    else
      out = std::stoull(hash, nullptr, 16);
  }
}

LayerEntry readLayer(ObjectReader& r) {
  LayerEntry l;
  if (r.string("name", l.name, true) && (l.name.size() > 256 || hasControl(l.name)))
    r.report(r.pathOf("name"), "must be at most 256 bytes without control characters");
  int kind = 0;
  static const std::vector<std::string> kKinds(std::begin(kLayerKinds), std::end(kLayerKinds));
  if (r.choice("kind", kKinds, kind, true)) l.kind = kKinds[size_t(kind)];
  r.string("species", l.species);
  relativePath(r, "file", l.file);
  boundedInteger(r, "width", l.width, 1, 1 << 20);
  boundedInteger(r, "height", l.height, 1, 1 << 20);
  static const std::vector<std::string> kEncodings = {"unorm8", "unorm16"};
  int encoding = 0;
  if (r.choice("encoding", kEncodings, encoding, true)) l.encoding = LayerEncoding(encoding);
  r.number("value_min", l.valueMin, Limits::any(), true);
  r.number("value_max", l.valueMax, Limits::any(), true);
  if (r.string("unit", l.unit, true, true) && (l.unit.size() > 32 || hasControl(l.unit)))
    r.report(r.pathOf("unit"), "must be at most 32 bytes without control characters");
  if (l.kind == "river")
    r.number("water_distance", l.waterDistance, Limits::atLeast(0), true);
  hexChecksum(r, "xxh3_64", l.checksum);
  return l;
}

TileEntry readTile(ObjectReader& r) {
  TileEntry t;
  boundedInteger(r, "x", t.x, 0, std::numeric_limits<int>::max());
  boundedInteger(r, "z", t.z, 0, std::numeric_limits<int>::max());
  relativePath(r, "file", t.file);
  r.unsignedInteger("instances", t.instances, true);
  r.unsignedInteger("bytes", t.bytes, true);
  hexChecksum(r, "xxh3_64", t.checksum);
  r.unsignedArray("species_counts", t.speciesCounts, true);
  return t;
}

void validate(const ManifestReader& r, const Manifest& m) {
  if (m.terrain.width <= 0 || m.terrain.height <= 0 || !(m.terrain.cellSize > 0))
    r.fail("/terrain", "width, height and cell_size must be positive");
  if (!(m.tiling.tileSize > 0)) r.fail("/tiling/tile_size", "must be positive");
  for (size_t i = 0; i < m.species.size(); ++i)
    if (m.species[i].id != i) r.fail(jsonPointer("/species", i) + "/id", "species must be listed by id from 0");
  for (size_t i = 0; i < m.tiles.size(); ++i) {
    const TileEntry& t = m.tiles[i];
    const std::string where = jsonPointer("/tiles", i);
    if (t.x >= m.tiling.tilesX || t.z >= m.tiling.tilesZ) r.fail(where, "tile outside tiling.tiles_x/tiles_z");
    if (i > 0 && !tileOrder(m.tiles[i - 1], t)) r.fail(where, "tiles must be sorted by (z, x) without duplicates");
    if (t.speciesCounts.size() != m.species.size()) r.fail(where + "/species_counts", "one count per species expected");
    if (t.bytes > kMaxTileBytes)
      r.fail(where + "/bytes", std::to_string(t.bytes) + " is over the tile size limit of " + std::to_string(kMaxTileBytes));
    if (t.instances > t.bytes / kPackedInstanceBytes)
      r.fail(where + "/instances", std::to_string(t.instances) + " instances cannot fit in " + std::to_string(t.bytes) +
                                       " bytes (16 bytes each)");
    // Each count bounded first, so that the sum below cannot wrap around to match.
    uint64_t sum = 0;
    for (uint64_t c : t.speciesCounts) {
      if (c > t.instances) r.fail(where + "/species_counts", "a count is larger than instances");
      sum += c;
    }
    if (sum != t.instances) r.fail(where + "/species_counts", "does not add up to instances");
  }
  // Layers: on the terrain's grid, each name and file once, a species' suitability naming
  // one of the manifest's species, a value range a legend can be drawn from.
  std::set<std::string> names, files, species;
  if (!m.layers.empty())
    for (const SpeciesRecord& s : m.species) species.insert(s.name);
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerEntry& l = m.layers[i];
    const std::string where = jsonPointer("/layers", i);
    if (l.width != m.terrain.width || l.height != m.terrain.height)
      r.fail(where, std::to_string(l.width) + " x " + std::to_string(l.height) + " layer, but the terrain is " +
                        std::to_string(m.terrain.width) + " x " + std::to_string(m.terrain.height) +
                        " (layers are on the terrain's grid)");
    if (!(l.valueMin < l.valueMax)) r.fail(where, "value_min must be below value_max");
    const bool suitability = l.kind == "suitability";
    if (suitability && !species.count(l.species))
      r.fail(where + "/species", "\"" + l.species + "\" is not a species of the manifest");
    if (!suitability && !l.species.empty()) r.fail(where + "/species", "only a suitability layer names a species");
    const fs::path file = fs::path(l.file).lexically_normal();
    if (!names.insert(l.name).second) r.fail(where + "/name", "\"" + l.name + "\" is given twice");
    if (!files.insert(file.string()).second) r.fail(where + "/file", l.file + " is the file of another layer");
    if (file == fs::path(m.terrain.file).lexically_normal() || file == "manifest.json" ||
        (!file.empty() && *file.begin() == "tiles"))
      r.fail(where + "/file", "must not be the terrain, the manifest or under tiles/");
  }
  if (m.part) {
    const ManifestPart& p = *m.part;
    if (p.index > p.count) r.fail("/part/index", std::to_string(p.index) + " is above count " + std::to_string(p.count));
    if (p.firstRow > p.lastRow || p.lastRow >= m.tiling.tilesZ)
      r.fail("/part", "tile rows " + std::to_string(p.firstRow) + ".." + std::to_string(p.lastRow) +
                          " are not a range inside tiling.tiles_z (" + std::to_string(m.tiling.tilesZ) + ")");
    if (m.terrain.file != "terrain.r32f") r.fail("/terrain/file", "a part's terrain file is terrain.r32f");
    for (size_t i = 0; i < m.tiles.size(); ++i) {
      const TileEntry& t = m.tiles[i];
      if (t.z < p.firstRow || t.z > p.lastRow)
        r.fail(jsonPointer("/tiles", i), "tile row " + std::to_string(t.z) + " is outside the part's rows " +
                                             std::to_string(p.firstRow) + ".." + std::to_string(p.lastRow));
      if (t.file != tileFileName(t.x, t.z))
        r.fail(jsonPointer("/tiles", i) + "/file", "a part's tile files are named " + tileFileName(t.x, t.z));
    }
  }
  Manifest expected = m;
  computeTotals(expected);
  if (expected.totals.instances != m.totals.instances || expected.totals.bytes != m.totals.bytes ||
      expected.totals.speciesCounts != m.totals.speciesCounts)
    r.fail("/totals", "do not match the sum over tiles");
}

// "part 2 of 7 of a sharded bake (tile rows 3..4)", from whatever of that the JSON holds.
std::string describePart(const Json& j) {
  auto number = [&j](const char* key) -> std::string {
    const auto part = j.find("part");
    if (part == j.end() || !part->is_object()) return "?";
    const auto v = part->find(key);
    return v != part->end() && v->is_number_integer() ? std::to_string(v->get<int64_t>()) : "?";
  };
  return "part " + number("index") + " of " + number("count") + " of a sharded bake (tile rows " + number("first_row") +
         ".." + number("last_row") + ")";
}

}  // namespace

bool hasEcobakeManifest(const std::string& dir, std::string* why) {
  auto no = [why](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  std::vector<uint8_t> bytes;
  try {
    bytes = readFileBytes(manifestPath(dir), kMaxManifestBytes, "manifest");
  } catch (const InputError& e) {
    return no(e.what());
  }
  // No exceptions: the content is whatever a user's manifest.json holds (a web app's, a
  // Unity package's).
  Json j = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded()) return no(manifestPath(dir) + ": is not valid JSON");
  auto format = j.is_object() ? j.find("format") : j.end();
  if (!j.is_object() || format == j.end() || !format->is_string() ||
      (format->get_ref<const std::string&>() != kManifestFormat && format->get_ref<const std::string&>() != kPartFormat))
    return no(manifestPath(dir) + ": is not an ecobake manifest (no \"format\": \"" + kManifestFormat + "\")");
  return true;
}

namespace {

// [r, g, b], each in [0, 255], at `key` (manifest "ground"), as 0..1.
void readRgb(ObjectReader& r, const char* key, float out[3]) {
  std::vector<uint64_t> c;
  if (!r.unsignedArray(key, c, true)) return;
  if (c.size() != 3 || std::any_of(c.begin(), c.end(), [](uint64_t v) { return v > 255; })) {
    r.report(r.pathOf(key), "expected [r, g, b], each in [0, 255]");
    return;
  }
  for (int i = 0; i < 3; ++i) out[i] = float(c[size_t(i)]) / 255.f;
}

// wantPart: a part's manifest ("ecobake-part"), else a whole bake's; either: whichever the file is.
Manifest readManifestOf(const std::string& dir, bool wantPart, bool either = false) {
  ManifestReader mr{manifestPath(dir), {}};
  std::vector<uint8_t> bytes = readFileBytes(mr.file, kMaxManifestBytes, "manifest");
  // the JSON policy of every input (core/json.h): no NUL (it would end the parse early, hiding
  // what follows), no key twice (the last would silently win)
  const std::string text(bytes.begin(), bytes.end());
  if (std::string why = jsonNulProblem(text); !why.empty()) throw InputError(mr.file + ": " + why);
  Json j = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded()) throw InputError(mr.file + ": not valid JSON");
  if (std::vector<std::string> twice = duplicateJsonKeys(text); !twice.empty())
    throw InputError(mr.file + ": " + (twice.front().empty() ? std::string("/") : twice.front()) + ": " + kDuplicateKeyReason);
  if (!j.is_object()) throw InputError(mr.file + ": expected a JSON object");
  ObjectReader root(j, "", mr.problems);
  std::string format;
  root.string("format", format, true);
  if (either) wantPart = format == kPartFormat;
  if (format == kPartFormat && !wantPart)
    throw InputError(mr.file + ": is " + describePart(j) +
                     ", not a whole bake; merge all the parts first: ecobake merge PART... -o OUTDIR");
  if (format == kManifestFormat && wantPart)
    throw InputError(mr.file + ": is a whole bake, not a part of a sharded bake (parts are made by ecobake bake --shard I/N)");
  if (format != (wantPart ? kPartFormat : kManifestFormat))
    throw InputError(mr.file + ": not an ecobake manifest (format is not \"" + (wantPart ? kPartFormat : kManifestFormat) +
                     "\")");
  int64_t version = 0;
  if (!root.integer("format_version", version, Limits::atLeast(0), true)) mr.throwFirst();
  if (version != kManifestVersion)
    throw InputError(mr.file + ": unsupported format_version " + std::to_string(version) + " (this build reads " +
                     std::to_string(kManifestVersion) + ")");

  Manifest m;
  root.string("tool_version", m.toolVersion, true);
  root.string("name", m.name, true);
  root.unsignedInteger("seed", m.seed, true);
  if (auto world = mr.object(root, "world")) {
    world->number("size_x", m.world.sizeX, Limits::any(), true);
    world->number("size_z", m.world.sizeZ, Limits::any(), true);
    world->number("min_y", m.world.minY, Limits::any(), true);
    world->number("max_y", m.world.maxY, Limits::any(), true);
  }
  if (auto terrain = mr.object(root, "terrain")) {
    relativePath(*terrain, "file", m.terrain.file);
    boundedInteger(*terrain, "width", m.terrain.width, 1, 1 << 20);
    boundedInteger(*terrain, "height", m.terrain.height, 1, 1 << 20);
    terrain->number("cell_size", m.terrain.cellSize, Limits::any(), true);
    terrain->string("crs", m.crs);
  }
  if (auto tiling = mr.object(root, "tiling")) {
    tiling->number("tile_size", m.tiling.tileSize, Limits::any(), true);
    boundedInteger(*tiling, "tiles_x", m.tiling.tilesX, 0, 1 << 20);
    boundedInteger(*tiling, "tiles_z", m.tiling.tilesZ, 0, 1 << 20);
  }
  if (const Json* species = root.array("species", true)) {
    if (species->size() > kMaxSpecies)
      mr.fail("/species", std::to_string(species->size()) + " species, at most " + std::to_string(kMaxSpecies) +
                              " (16-bit ids)");
    // Stops at the first bad element: a 256 MiB manifest of bad elements must not become
    // a hundred million problem strings.
    for (size_t i = 0; i < species->size(); ++i, mr.throwFirst())
      if (auto r = mr.element(*species, "/species", i)) m.species.push_back(readSpecies(*r));
  }
  if (const Json* tiles = root.array("tiles", true))
    for (size_t i = 0; i < tiles->size(); ++i, mr.throwFirst())
      if (auto r = mr.element(*tiles, "/tiles", i)) m.tiles.push_back(readTile(*r));
  if (const Json* sun = root.object("sun")) {
    ObjectReader r(*sun, "/sun", mr.problems);
    r.number("azimuth_deg", m.sunAzimuthDeg, Limits::between(0, 360), true);
    r.number("elevation_deg", m.sunElevationDeg, {0, 90, true, false}, true);
  }
  if (const Json* ground = root.object("ground")) {
    ObjectReader r(*ground, "/ground", mr.problems);
    GroundPalette g = kTemperateGround;
    for (uint32_t k = 0; k < kGroundColors; ++k) readRgb(r, kGroundColorNames[k], g.color[k]);
    r.number("snowline", g.snowline, Limits::between(-1e5, 1e5));
    r.rejectUnknownKeys();
    m.ground = g;
  }
  if (const Json* layers = root.array("layers")) {
    if (layers->size() > kMaxLayers)
      mr.fail("/layers", std::to_string(layers->size()) + " layers, at most " + std::to_string(kMaxLayers));
    for (size_t i = 0; i < layers->size(); ++i, mr.throwFirst())
      if (auto r = mr.element(*layers, "/layers", i)) m.layers.push_back(readLayer(*r));
  }
  if (auto hashes = mr.object(root, "hashes")) {
    hashes->string("config", m.hashes.config, true, true);
    hashes->string("heightmap", m.hashes.heightmap, true, true);
    hashes->string("river", m.hashes.river, true, true);  // "" without a river
    if (const Json* inputs = hashes->object("inputs")) {
      for (const auto& [pointer, hash] : inputs->items()) {
        if (!hash.is_string()) mr.fail(jsonPointer("/hashes/inputs", pointer), "expected a string");
        m.inputHashes.emplace_back(pointer, hash.get<std::string>());
      }
    }
  }
  if (auto totals = mr.object(root, "totals")) {
    totals->unsignedInteger("instances", m.totals.instances, true);
    totals->unsignedInteger("bytes", m.totals.bytes, true);
    totals->unsignedArray("species_counts", m.totals.speciesCounts, true);
  }
  if (wantPart) {
    if (auto part = mr.object(root, "part")) {
      ManifestPart p;
      boundedInteger(*part, "count", p.count, 1, 1 << 20);
      boundedInteger(*part, "index", p.index, 1, 1 << 20);
      boundedInteger(*part, "first_row", p.firstRow, 0, 1 << 20);
      boundedInteger(*part, "last_row", p.lastRow, 0, 1 << 20);
      hexChecksum(*part, "terrain_xxh3_64", p.terrainChecksum);
      p.hasTerrain = p.index == 1;
      m.part = p;
    }
  }
  mr.throwFirst();
  validate(mr, m);

  // The terrain's claimed size against the file, so that no reader sizes a grid from a
  // claim (2^20 x 2^20 would be 4 TiB) before reading a file of a few KB.
  // The terrain is in part 1 only.
  const std::string terrainPath = (fs::path(dir) / m.terrain.file).string();
  const uint64_t claimed = uint64_t(m.terrain.width) * uint64_t(m.terrain.height) * sizeof(float);
  if (const uint64_t actual = !m.part || m.part->hasTerrain ? regularFileSize(terrainPath) : claimed; actual != claimed)
    throw InputError(terrainPath + ": " + std::to_string(actual) + " bytes, but " + mr.file + " claims a " +
                     std::to_string(m.terrain.width) + " x " + std::to_string(m.terrain.height) +
                     " float32 terrain (" + std::to_string(claimed) + " bytes)");
  // After the file check, which names the likelier mistake. The world is the terrain's
  // extent (the bake writes exactly these products); readers size the view from it.
  const double extentX = double(m.terrain.width - 1) * double(m.terrain.cellSize);
  const double extentZ = double(m.terrain.height - 1) * double(m.terrain.cellSize);
  for (auto [key, size, extent] : {std::tuple{"size_x", m.world.sizeX, extentX}, std::tuple{"size_z", m.world.sizeZ, extentZ}})
    if (!(std::abs(double(size) - extent) <= 1e-5 * std::max(1.0, extent)))
      mr.fail(std::string("/world/") + key, "is " + std::to_string(size) + ", but the terrain spans " + std::to_string(extent) + " m");
  if (!(m.world.minY <= m.world.maxY)) mr.fail("/world", "min_y is above max_y");
  return m;
}

}  // namespace

Manifest readManifest(const std::string& dir) { return readManifestOf(dir, false); }
Manifest readPartManifest(const std::string& dir) { return readManifestOf(dir, true); }

bool isReplaceableBake(const std::string& dir, std::string* why) {
  auto no = [why](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (!hasEcobakeManifest(dir, why)) return false;
  // The whole manifest, as a reader would take it: a bare marker, a truncated or foreign
  // manifest that merely names the format is not a bake (a user's notes beside it would go).
  Manifest m;
  try {
    m = readManifestOf(dir, false, true);  // a whole bake or a part, with all its checks
  } catch (const InputError& e) {
    return no(std::string(e.what()) + " (not a complete bake of this version: remove it yourself or choose another folder)");
  }
  // Every entry must be one the bake wrote: its manifest, terrain, tiles, layers and meshes,
  // and the folders holding them. Anything else is someone's, and stays.
  std::vector<std::string> files{"manifest.json"};
  if (!m.part || m.part->hasTerrain) files.push_back(m.terrain.file);
  for (const TileEntry& t : m.tiles) files.push_back(t.file);
  for (const LayerEntry& l : m.layers) files.push_back(l.file);
  for (const SpeciesRecord& s : m.species)
    if (!s.meshFile.empty()) files.push_back(s.meshFile);
  return holdsOnly(dir, files, {"tiles"}, why);
}

std::string bakeMemberPath(const std::string& dir, const std::string& file) {
  const std::string path = (fs::path(dir) / file).string();
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) throw InputError(dir + ": " + ec.message());
  const fs::path target = fs::canonical(path, ec);
  if (ec) return path;  // missing or a dangling link: the reader says so in its own words
  const fs::path rel = target.lexically_relative(root);
  if (rel.empty() || *rel.begin() == ".." || rel.is_absolute())
    throw InputError(path + ": leads to " + target.string() + ", outside the bake folder " + root.string() +
                     " (a bake's files lie inside it)");
  return path;
}

std::vector<float> readTerrainRaw(const std::string& dir, const Manifest& m) {
  std::string path = bakeMemberPath(dir, m.terrain.file);
  size_t expected = size_t(m.terrain.width) * size_t(m.terrain.height) * sizeof(float);
  std::vector<uint8_t> bytes = readFileBytes(path, expected, "terrain");
  if (bytes.size() != expected)
    throw InputError(path + ": " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected) +
                     " for " + std::to_string(m.terrain.width) + "x" + std::to_string(m.terrain.height) + " float32");
  std::vector<float> heights(size_t(m.terrain.width) * size_t(m.terrain.height));
  std::memcpy(heights.data(), bytes.data(), expected);
  // The file carries no checksum of its own: its heights must be finite and span exactly the
  // manifest's world.min_y .. max_y (which the bake took from them). Every reader (the viewer's
  // bounds, shadows and list sizing, report, diff) takes them as numbers.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (size_t i = 0; i < heights.size(); ++i) {
    if (!std::isfinite(heights[i]))
      throw InputError(path + ": height at pixel (" + std::to_string(i % size_t(m.terrain.width)) + ", " +
                       std::to_string(i / size_t(m.terrain.width)) + ") is " + std::to_string(heights[i]) +
                       ", not a finite number");
    lo = std::min(lo, heights[i]), hi = std::max(hi, heights[i]);
  }
  const float tol = 1e-3f + 1e-6f * std::max(std::abs(lo), std::abs(hi));
  if (!heights.empty() && (std::abs(lo - m.world.minY) > tol || std::abs(hi - m.world.maxY) > tol))
    throw InputError(path + ": heights span " + std::to_string(lo) + " .. " + std::to_string(hi) +
                     " m, the manifest's world " + std::to_string(m.world.minY) + " .. " + std::to_string(m.world.maxY));
  return heights;
}

void writeTerrainRaw(const std::string& dir, const Grid& heights) {
  writeFileAtomic((fs::path(dir) / "terrain.r32f").string(), heights.values.data(), heights.values.size() * sizeof(float));
}

namespace {

// Size and checksum before the decode; the size from fstat before anything is allocated.
TileData readAndDecode(const std::string& path, const TileEntry& entry) {
  if (const uint64_t size = regularFileSize(path); size != entry.bytes)
    throw InputError(path + ": " + std::to_string(size) + " bytes, manifest says " + std::to_string(entry.bytes));
  // Reads at most entry.bytes even if the file grew since the stat above.
  std::vector<uint8_t> bytes = readFileBytes(path, std::min(entry.bytes, kMaxTileBytes), "tile");
  if (bytes.size() != entry.bytes)
    throw InputError(path + ": " + std::to_string(bytes.size()) + " bytes, manifest says " + std::to_string(entry.bytes));
  if (const uint64_t actual = checksum64(bytes); actual != entry.checksum)
    throw InputError(path + ": checksum mismatch (xxh3_64 " + hex64(actual) + ", manifest says " +
                     hex64(entry.checksum) + ")");
  return decodeTile(bytes.data(), bytes.size(), path);
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// The checks that need only the entry: where the tile is and what it holds.
void verifyAgainstEntry(const TileEntry& entry, const TileData& tile, const std::string& name) {
  if (tile.tileX != entry.x || tile.tileZ != entry.z)
    throw InputError(name + ": tile (" + std::to_string(tile.tileX) + ", " + std::to_string(tile.tileZ) +
                     "), but the manifest lists it as tile (" + std::to_string(entry.x) + ", " + std::to_string(entry.z) + ")");
  if (tile.instances.size() != entry.instances)
    throw InputError(name + ": " + std::to_string(tile.instances.size()) + " instances, manifest says " +
                     std::to_string(entry.instances));
  // decodeTile guarantees every instance's species is in the tile's own table.
  std::vector<uint64_t> counts(tile.species.size(), 0);
  for (const Instance& in : tile.instances) ++counts[in.species];
  const size_t listed = entry.speciesCounts.size();  // == the manifest's species count
  for (size_t id = listed; id < counts.size(); ++id)
    if (counts[id] > 0)
      throw InputError(name + ": " + std::to_string(counts[id]) + " instances of species " + std::to_string(id) + " (" +
                       quoted(tile.species[id].name) + "), which the manifest's species table (" +
                       std::to_string(listed) + " species) lacks");
  if (counts.size() != listed)
    throw InputError(name + ": species table of " + std::to_string(counts.size()) + " species, the manifest lists " +
                     std::to_string(listed));
  for (size_t id = 0; id < listed; ++id)
    if (counts[id] != entry.speciesCounts[id])
      throw InputError(name + ": " + std::to_string(counts[id]) + " instances of species " + std::to_string(id) + " (" +
                       quoted(tile.species[id].name) + "), manifest says " + std::to_string(entry.speciesCounts[id]));
}

// Which field of a species record differs, for the message; "" when none does.
const char* differingField(const SpeciesRecord& a, const SpeciesRecord& b) {
  if (a.name != b.name) return "name";
  if (a.kind != b.kind) return "kind";
  if (a.meshHeight != b.meshHeight) return "mesh_height";
  if (a.crownRadius != b.crownRadius) return "crown_radius";
  if (a.scaleMin != b.scaleMin || a.scaleMax != b.scaleMax) return "scale range";
  if (a.boundingCenterY != b.boundingCenterY || a.boundingRadius != b.boundingRadius) return "bounding sphere";
  if (a.baseColor != b.baseColor) return "base_color";
  return "";
}

}  // namespace

std::vector<uint8_t> readMeshVerified(const std::string& dir, const SpeciesRecord& species) {
  if (species.meshFile.empty()) throw std::invalid_argument("readMeshVerified: species " + species.name + " has no mesh file");
  const std::string path = bakeMemberPath(dir, species.meshFile);
  const uint64_t size = regularFileSize(path);
  if (size != species.meshBytes)
    throw InputError(path + ": " + std::to_string(size) + " bytes, the manifest says " + std::to_string(species.meshBytes));
  std::vector<uint8_t> bytes = readFileBytes(path, species.meshBytes, "mesh file");
  const uint64_t actual = checksum64(bytes);
  if (actual != species.meshChecksum)
    throw InputError(path + ": checksum mismatch (xxh3_64 " + hex64(actual) + ", manifest says " +
                     hex64(species.meshChecksum) + ")");
  return bytes;
}

void verifyTileAgainstManifest(const Manifest& manifest, const TileEntry& entry, const TileData& tile,
                               const std::string& name) {
  verifyAgainstEntry(entry, tile, name);
  if (tile.tileSize != manifest.tiling.tileSize)
    throw InputError(name + ": tile size " + std::to_string(tile.tileSize) + ", the manifest's tiling.tile_size is " +
                     std::to_string(manifest.tiling.tileSize));
  if (tile.species.size() != manifest.species.size())  // verifyAgainstEntry saw the same, unless entry is foreign
    throw InputError(name + ": species table of " + std::to_string(tile.species.size()) +
                     " species, the manifest lists " + std::to_string(manifest.species.size()));
  for (size_t id = 0; id < tile.species.size(); ++id)
    if (const char* field = differingField(tile.species[id], manifest.species[id]); *field)
      throw InputError(name + ": species " + std::to_string(id) + " (" + quoted(tile.species[id].name) + ") differs from the manifest's (" +
                       quoted(manifest.species[id].name) + ") in its " + field);
}

TileData readTileVerified(const std::string& dir, const Manifest& manifest, const TileEntry& entry) {
  std::string path = bakeMemberPath(dir, entry.file);
  TileData tile = readAndDecode(path, entry);
  verifyTileAgainstManifest(manifest, entry, tile, path);
  return tile;
}

}  // namespace eco
