#include "tileio/manifest.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <tuple>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/hash.h"
#include "core/species_kind.h"
#include "tile_generated.h"

namespace eco {

using nlohmann::ordered_json;
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "terrain.r32f is written in host byte order");

// A manifest lists about 200 bytes per tile: 256 MiB is over a million tiles.
constexpr uint64_t kMaxManifestBytes = uint64_t(256) << 20;
constexpr const char* kManifestFormat = "ecobake-manifest";
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

static bool tileOrder(const TileEntry& a, const TileEntry& b) { return a.z != b.z ? a.z < b.z : a.x < b.x; }

static ordered_json speciesJson(const SpeciesRecord& s) {
  return {{"id", s.id},
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
}

// nlohmann writes NaN and infinities as `null`, which readManifest (rightly) refuses.
static void requireFinite(const ordered_json& j, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw std::logic_error("internal error: manifest field " + where + " is not finite; refusing to write it");
  if (j.is_object())
    for (const auto& [key, value] : j.items()) requireFinite(value, where.empty() ? key : where + "." + key);
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) requireFinite(j[i], where + "[" + std::to_string(i) + "]");
}

void writeManifest(const std::string& dir, const Manifest& m) {
  std::vector<TileEntry> tiles = m.tiles;
  std::sort(tiles.begin(), tiles.end(), tileOrder);

  ordered_json j;
  j["format"] = kManifestFormat;
  j["format_version"] = kManifestVersion;
  j["tool_version"] = m.toolVersion;
  j["name"] = m.name;
  j["seed"] = m.seed;
  j["world"] = {{"size_x", m.world.sizeX}, {"size_z", m.world.sizeZ}, {"min_y", m.world.minY}, {"max_y", m.world.maxY}};
  j["terrain"] = {{"file", m.terrain.file},
                  {"width", m.terrain.width},
                  {"height", m.terrain.height},
                  {"cell_size", m.terrain.cellSize}};
  j["tiling"] = {{"tile_size", m.tiling.tileSize}, {"tiles_x", m.tiling.tilesX}, {"tiles_z", m.tiling.tilesZ}};
  j["species"] = ordered_json::array();
  for (const SpeciesRecord& s : m.species) j["species"].push_back(speciesJson(s));
  j["tiles"] = ordered_json::array();
  for (const TileEntry& t : tiles)
    j["tiles"].push_back({{"x", t.x},
                          {"z", t.z},
                          {"file", t.file},
                          {"instances", t.instances},
                          {"bytes", t.bytes},
                          {"xxh3_64", hex64(t.checksum)},
                          {"species_counts", t.speciesCounts}});
  j["hashes"] = {{"config", m.hashes.config}, {"heightmap", m.hashes.heightmap}, {"river", m.hashes.river}};
  j["totals"] = {{"instances", m.totals.instances},
                 {"bytes", m.totals.bytes},
                 {"species_counts", m.totals.speciesCounts}};
  requireFinite(j, "");
  std::string text = j.dump(2) + "\n";
  writeFileAtomic(manifestPath(dir), text.data(), text.size());
}

namespace {

// Typed field access that names the file and the JSON path in every error.
struct JsonReader {
  std::string file;

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw InputError(file + ": " + where + ": " + problem);
  }
  const ordered_json& at(const ordered_json& obj, const std::string& where, const char* key) const {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing field \"") + key + "\"");
    return *it;
  }
  std::string str(const ordered_json& obj, const std::string& where, const char* key) const {
    const ordered_json& v = at(obj, where, key);
    if (!v.is_string()) fail(where + "." + key, "expected a string");
    return v.get<std::string>();
  }
  double num(const ordered_json& v, const std::string& where) const {
    if (!v.is_number()) fail(where, "expected a number");
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(where, "expected a finite number");
    return d;
  }
  // Finite as a float too: 1e39 is a finite double but overflows to inf when narrowed.
  float real(const ordered_json& obj, const std::string& where, const char* key) const {
    float f = float(num(at(obj, where, key), where + "." + key));
    if (!std::isfinite(f)) fail(where + "." + key, "out of float range");
    return f;
  }
  int64_t integerValue(const ordered_json& v, const std::string& where, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) fail(where, "expected an integer");
    if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(hi) : v.get<int64_t>() > hi) fail(where, "too large");
    int64_t i = v.get<int64_t>();
    if (i < lo) fail(where, "out of range (below " + std::to_string(lo) + ")");
    return i;
  }
  int64_t integer(const ordered_json& obj, const std::string& where, const char* key, int64_t lo,
                  int64_t hi = std::numeric_limits<int64_t>::max()) const {
    return integerValue(at(obj, where, key), where + "." + key, lo, hi);
  }
  uint64_t count(const ordered_json& obj, const std::string& where, const char* key) const {
    const ordered_json& v = at(obj, where, key);
    if (!v.is_number_unsigned()) fail(where + "." + key, "expected a non-negative integer");
    return v.get<uint64_t>();
  }
  std::vector<uint64_t> counts(const ordered_json& obj, const std::string& where, const char* key) const {
    const ordered_json& v = at(obj, where, key);
    std::string path = where + "." + key;
    if (!v.is_array()) fail(path, "expected an array");
    std::vector<uint64_t> out;
    for (const ordered_json& e : v) {
      if (!e.is_number_unsigned()) fail(path, "expected non-negative integers");
      out.push_back(e.get<uint64_t>());
    }
    return out;
  }
  const ordered_json& array(const ordered_json& obj, const std::string& where, const char* key) const {
    const ordered_json& v = at(obj, where, key);
    if (!v.is_array()) fail(where + "." + key, "expected an array");
    return v;
  }
  // A file inside the bake folder: relative, no "..".
  std::string relativePath(const ordered_json& obj, const std::string& where, const char* key) const {
    std::string s = str(obj, where, key);
    fs::path p(s);
    bool escapes = s.empty() || p.is_absolute() || std::any_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".."; });
    if (escapes) fail(where + "." + key, "must be a relative path inside the bake folder");
    return s;
  }
};

SpeciesRecord readSpecies(const JsonReader& r, const ordered_json& j, const std::string& where) {
  SpeciesRecord s;
  s.id = uint16_t(r.integer(j, where, "id", 0, 65535));
  s.name = r.str(j, where, "name");
  std::string kind = r.str(j, where, "kind");
  std::optional<SpeciesKind> parsed = speciesKindFromName(kind);
  if (!parsed) r.fail(where + ".kind", "unknown kind \"" + kind + "\"");
  s.kind = uint8_t(*parsed);
  s.meshHeight = r.real(j, where, "mesh_height");
  s.crownRadius = r.real(j, where, "crown_radius");
  s.scaleMin = r.real(j, where, "scale_min");
  s.scaleMax = r.real(j, where, "scale_max");
  s.boundingCenterY = r.real(j, where, "bounding_center_y");
  s.boundingRadius = r.real(j, where, "bounding_radius");
  const ordered_json& color = r.array(j, where, "base_color");
  if (color.size() != 4) r.fail(where + ".base_color", "expected [r, g, b, a]");
  s.baseColor = 0;
  for (int c = 0; c < 4; ++c)
    s.baseColor |= uint32_t(r.integerValue(color[size_t(c)], where + ".base_color", 0, 255)) << (8 * c);
  return s;
}

TileEntry readTile(const JsonReader& r, const ordered_json& j, const std::string& where) {
  TileEntry t;
  t.x = int(r.integer(j, where, "x", 0, std::numeric_limits<int>::max()));
  t.z = int(r.integer(j, where, "z", 0, std::numeric_limits<int>::max()));
  t.file = r.relativePath(j, where, "file");
  t.instances = r.count(j, where, "instances");
  t.bytes = r.count(j, where, "bytes");
  std::string hash = r.str(j, where, "xxh3_64");
  if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.fail(where + ".xxh3_64", "expected 16 lowercase hex digits");
  t.checksum = std::stoull(hash, nullptr, 16);
  t.speciesCounts = r.counts(j, where, "species_counts");
  return t;
}

void validate(const JsonReader& r, const Manifest& m) {
  if (m.terrain.width <= 0 || m.terrain.height <= 0 || !(m.terrain.cellSize > 0))
    r.fail("terrain", "width, height and cell_size must be positive");
  if (!(m.tiling.tileSize > 0)) r.fail("tiling.tile_size", "must be positive");
  for (size_t i = 0; i < m.species.size(); ++i)
    if (m.species[i].id != i) r.fail("species[" + std::to_string(i) + "].id", "species must be listed by id from 0");
  for (size_t i = 0; i < m.tiles.size(); ++i) {
    const TileEntry& t = m.tiles[i];
    std::string where = "tiles[" + std::to_string(i) + "]";
    if (t.x >= m.tiling.tilesX || t.z >= m.tiling.tilesZ) r.fail(where, "tile outside tiling.tiles_x/tiles_z");
    if (i > 0 && !tileOrder(m.tiles[i - 1], t)) r.fail(where, "tiles must be sorted by (z, x) without duplicates");
    if (t.speciesCounts.size() != m.species.size()) r.fail(where + ".species_counts", "one count per species expected");
    if (t.bytes > kMaxTileBytes)
      r.fail(where + ".bytes", std::to_string(t.bytes) + " is over the tile size limit of " + std::to_string(kMaxTileBytes));
    if (t.instances > t.bytes / kPackedInstanceBytes)
      r.fail(where + ".instances", std::to_string(t.instances) + " instances cannot fit in " + std::to_string(t.bytes) +
                                       " bytes (16 bytes each)");
    // Each count bounded first, so that the sum below cannot wrap around to match.
    uint64_t sum = 0;
    for (uint64_t c : t.speciesCounts) {
      if (c > t.instances) r.fail(where + ".species_counts", "a count is larger than instances");
      sum += c;
    }
    if (sum != t.instances) r.fail(where + ".species_counts", "does not add up to instances");
  }
  Manifest expected = m;
  computeTotals(expected);
  if (expected.totals.instances != m.totals.instances || expected.totals.bytes != m.totals.bytes ||
      expected.totals.speciesCounts != m.totals.speciesCounts)
    r.fail("totals", "do not match the sum over tiles");
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
  ordered_json j = ordered_json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded()) return no(manifestPath(dir) + ": is not valid JSON");
  auto format = j.is_object() ? j.find("format") : j.end();
  if (!j.is_object() || format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != kManifestFormat)
    return no(manifestPath(dir) + ": is not an ecobake manifest (no \"format\": \"" + kManifestFormat + "\")");
  return true;
}

Manifest readManifest(const std::string& dir) {
  JsonReader r{manifestPath(dir)};
  std::vector<uint8_t> bytes = readFileBytes(r.file, kMaxManifestBytes, "manifest");
  ordered_json j = ordered_json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded()) throw InputError(r.file + ": not valid JSON");
  if (!j.is_object()) throw InputError(r.file + ": expected a JSON object");
  if (r.str(j, "manifest", "format") != kManifestFormat)
    throw InputError(r.file + ": not an ecobake manifest (format is not \"" + kManifestFormat + "\")");
  int64_t version = r.integer(j, "manifest", "format_version", 0);
  if (version != kManifestVersion)
    throw InputError(r.file + ": unsupported format_version " + std::to_string(version) + " (this build reads " +
                     std::to_string(kManifestVersion) + ")");

  Manifest m;
  m.toolVersion = r.str(j, "manifest", "tool_version");
  m.name = r.str(j, "manifest", "name");
  m.seed = r.count(j, "manifest", "seed");
  const ordered_json& world = r.at(j, "manifest", "world");
  m.world = {r.real(world, "world", "size_x"), r.real(world, "world", "size_z"), r.real(world, "world", "min_y"),
             r.real(world, "world", "max_y")};
  const ordered_json& terrain = r.at(j, "manifest", "terrain");
  m.terrain.file = r.relativePath(terrain, "terrain", "file");
  m.terrain.width = int(r.integer(terrain, "terrain", "width", 1, 1 << 20));
  m.terrain.height = int(r.integer(terrain, "terrain", "height", 1, 1 << 20));
  m.terrain.cellSize = r.real(terrain, "terrain", "cell_size");
  const ordered_json& tiling = r.at(j, "manifest", "tiling");
  m.tiling.tileSize = r.real(tiling, "tiling", "tile_size");
  m.tiling.tilesX = int(r.integer(tiling, "tiling", "tiles_x", 0, 1 << 20));
  m.tiling.tilesZ = int(r.integer(tiling, "tiling", "tiles_z", 0, 1 << 20));
  const ordered_json& species = r.array(j, "manifest", "species");
  if (species.size() > kMaxSpecies)
    r.fail("species", std::to_string(species.size()) + " species, at most " + std::to_string(kMaxSpecies) + " (16-bit ids)");
  for (size_t i = 0; i < species.size(); ++i)
    m.species.push_back(readSpecies(r, species[i], "species[" + std::to_string(i) + "]"));
  const ordered_json& tiles = r.array(j, "manifest", "tiles");
  for (size_t i = 0; i < tiles.size(); ++i) m.tiles.push_back(readTile(r, tiles[i], "tiles[" + std::to_string(i) + "]"));
  const ordered_json& hashes = r.at(j, "manifest", "hashes");
  m.hashes = {r.str(hashes, "hashes", "config"), r.str(hashes, "hashes", "heightmap"), r.str(hashes, "hashes", "river")};
  const ordered_json& totals = r.at(j, "manifest", "totals");
  m.totals = {r.count(totals, "totals", "instances"), r.count(totals, "totals", "bytes"),
              r.counts(totals, "totals", "species_counts")};
  validate(r, m);

  // The terrain's claimed size against the file, so that no reader sizes a grid from a
  // claim (2^20 x 2^20 would be 4 TiB) before reading a file of a few KB.
  const std::string terrainPath = (fs::path(dir) / m.terrain.file).string();
  const uint64_t claimed = uint64_t(m.terrain.width) * uint64_t(m.terrain.height) * sizeof(float);
  if (const uint64_t actual = regularFileSize(terrainPath); actual != claimed)
    throw InputError(terrainPath + ": " + std::to_string(actual) + " bytes, but " + r.file + " claims a " +
                     std::to_string(m.terrain.width) + " x " + std::to_string(m.terrain.height) +
                     " float32 terrain (" + std::to_string(claimed) + " bytes)");
  // After the file check, which names the likelier mistake. The world is the terrain's
  // extent (the bake writes exactly these products); readers size the view from it.
  const double extentX = double(m.terrain.width - 1) * double(m.terrain.cellSize);
  const double extentZ = double(m.terrain.height - 1) * double(m.terrain.cellSize);
  for (auto [key, size, extent] : {std::tuple{"size_x", m.world.sizeX, extentX}, std::tuple{"size_z", m.world.sizeZ, extentZ}})
    if (!(std::abs(double(size) - extent) <= 1e-5 * std::max(1.0, extent)))
      r.fail(std::string("world.") + key, "is " + std::to_string(size) + ", but the terrain spans " + std::to_string(extent) + " m");
  if (!(m.world.minY <= m.world.maxY)) r.fail("world", "min_y is above max_y");
  return m;
}

std::vector<float> readTerrainRaw(const std::string& dir, const Manifest& m) {
  std::string path = (fs::path(dir) / m.terrain.file).string();
  size_t expected = size_t(m.terrain.width) * size_t(m.terrain.height) * sizeof(float);
  std::vector<uint8_t> bytes = readFileBytes(path, expected, "terrain");
  if (bytes.size() != expected)
    throw InputError(path + ": " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected) +
                     " for " + std::to_string(m.terrain.width) + "x" + std::to_string(m.terrain.height) + " float32");
  std::vector<float> heights(size_t(m.terrain.width) * size_t(m.terrain.height));
  std::memcpy(heights.data(), bytes.data(), expected);
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
  std::string path = (fs::path(dir) / entry.file).string();
  TileData tile = readAndDecode(path, entry);
  verifyTileAgainstManifest(manifest, entry, tile, path);
  return tile;
}

}  // namespace eco
