#include "export/export.h"

#include <algorithm>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json.h"

namespace eco {

namespace {

// printf-style (the format attribute lets the compiler check every call's arguments).
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* fmt, ...) {
  std::va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  size_t start = out.size();
  out.resize(start + size_t(n) + 1);
  std::vsnprintf(out.data() + start, size_t(n) + 1, fmt, again);
  va_end(again);
  out.pop_back();  // vsnprintf's terminator
}

// printf("%.<digits>f") of the float's value, then `sep`.
void appendFixed(std::string& out, float value, int digits, char sep) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, double(value), std::chars_format::fixed, digits);
  out.append(buf, r.ptr);
  out += sep;
}

}  // namespace

std::string csvField(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string plyHeaderName(const std::string& name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

// The species ids an export keeps (all when `names` is empty).
std::vector<bool> selectSpecies(const Manifest& manifest, const std::vector<std::string>& names,
                                const std::string& bakeDir) {
  std::vector<bool> keep(manifest.species.size(), names.empty());
  std::vector<std::string> known;
  for (const SpeciesRecord& s : manifest.species) known.push_back(s.name);
  for (const std::string& name : names) {
    auto it = std::find(known.begin(), known.end(), name);
    if (it == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError("--species: \"" + name + "\" is not a species of " + bakeDir + suggestion(name, known) +
                       " (species: " + list + ")");
    }
    keep[size_t(it - known.begin())] = true;
  }
  return keep;
}

bool inRegion(const std::array<double, 4>& r, const Vec3& p) {
  return double(p.x) >= r[0] && double(p.x) <= r[2] && double(p.z) >= r[1] && double(p.z) <= r[3];
}

}  // namespace

uint64_t exportInstances(const std::string& bakeDir, const ExportOptions& options, const std::string& outPath) {
  if (isInsideFolder(outPath, bakeDir))
    throw InputError(outPath + ": is inside the bake being exported (" + bakeDir + "); write the export elsewhere");
  const Manifest manifest = readManifest(bakeDir);
  const std::vector<bool> keep = selectSpecies(manifest, options.species, bakeDir);

  // The tiles to read: in the range, and able to hold an instance of the region.
  std::vector<const TileEntry*> entries;
  for (const TileEntry& e : manifest.tiles) {
    if (options.tiles && (e.x < options.tiles->x0 || e.x >= options.tiles->x1 || e.z < options.tiles->z0 ||
                          e.z >= options.tiles->z1))
      continue;
    if (options.region) {
      // Positions are clamped into the tile's rectangle when quantised.
      const double size = double(manifest.tiling.tileSize), x0 = e.x * size, z0 = e.z * size;
      const std::array<double, 4>& r = *options.region;
      if (x0 > r[2] || x0 + size < r[0] || z0 > r[3] || z0 + size < r[1]) continue;
    }
    entries.push_back(&e);
  }
  auto selected = [&](const Instance& in) { return keep[in.species] && (!options.region || inRegion(*options.region, in.position)); };

  // Without a region the count is known up front, from the manifest's per-tile species counts
  // (exact once each tile is verified against its entry), and checked at the end. PLY's header
  // needs it, so with a region PLY takes a first pass over the tiles.
  std::optional<uint64_t> expected;
  if (!options.region) {
    expected = 0;
    for (const TileEntry* e : entries)
      for (size_t s = 0; s < keep.size(); ++s) *expected += keep[s] ? e->speciesCounts[s] : 0;
  } else if (options.format == ExportFormat::Ply) {
    expected = 0;
    for (const TileEntry* e : entries)
      for (const Instance& in : readTileVerified(bakeDir, manifest, *e).instances) *expected += selected(in);
  }

  OutputFile file(outPath);
  std::string out;
  if (options.format == ExportFormat::Csv) {
    out = "x,y,z,yaw,scale,species,species_id\n";
  } else {
    out = "ply\nformat ascii 1.0\ncomment ecobake export; species ids:";
    for (const SpeciesRecord& s : manifest.species) appendf(out, " %u=%s", unsigned(s.id), plyHeaderName(s.name).c_str());
    appendf(out, "\nelement vertex %llu\n", static_cast<unsigned long long>(*expected));
    out += "property float x\nproperty float y\nproperty float z\nproperty float yaw\n"
           "property float scale\nproperty ushort species_id\nend_header\n";
  }
  std::vector<std::string> csvNames;
  for (const SpeciesRecord& s : manifest.species) csvNames.push_back(csvField(s.name));
  const char sep = options.format == ExportFormat::Csv ? ',' : ' ';
  uint64_t count = 0;
  int done = 0;
  for (const TileEntry* e : entries) {
    // Verified against the manifest, so every instance's species is in manifest.species.
    const TileData tile = readTileVerified(bakeDir, manifest, *e);
    for (const Instance& in : tile.instances) {
      if (!selected(in)) continue;
      // The fields of printf's "%.3f,%.3f,%.3f,%.5f,%.4f,<name>,%u", by std::to_chars (the
      // same correctly rounded digits, without a format string parsed per line).
      appendFixed(out, in.position.x, 3, sep);
      appendFixed(out, in.position.y, 3, sep);
      appendFixed(out, in.position.z, 3, sep);
      appendFixed(out, in.yaw, 5, sep);
      appendFixed(out, in.scale, 4, sep);
      if (options.format == ExportFormat::Csv) (out += csvNames[in.species]) += ',';
      char id[8];
      out.append(id, std::to_chars(id, id + sizeof id, unsigned(in.species)).ptr);
      out += '\n';
      ++count;
    }
    file.write(out);
    out.clear();
    if (options.progress) options.progress(++done, int(entries.size()));
  }
  if (expected && count != *expected)  // the manifest's counts are checked against every tile read
    throw std::logic_error("export: " + std::to_string(count) + " instances written, " + std::to_string(*expected) +
                           " expected");
  file.write(out);
  file.commit();
  return count;
}

}  // namespace eco
