#include "export/export.h"

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"

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

uint64_t exportInstances(const std::string& bakeDir, ExportFormat format, const std::string& outPath) {
  if (isInsideFolder(outPath, bakeDir))
    throw InputError(outPath + ": is inside the bake being exported (" + bakeDir + "); write the export elsewhere");
  Manifest manifest = readManifest(bakeDir);
  // The header comes first and the PLY header needs the count: the manifest's total is exact
  // once every tile has been verified against its entry below, and writing it first keeps
  // the output in one buffer instead of a body copied behind its header (2x the memory).
  std::string out;
  if (format == ExportFormat::Csv) {
    out = "x,y,z,yaw,scale,species,species_id\n";
  } else {
    out = "ply\nformat ascii 1.0\ncomment ecobake export; species ids:";
    for (const SpeciesRecord& s : manifest.species) appendf(out, " %u=%s", unsigned(s.id), plyHeaderName(s.name).c_str());
    appendf(out, "\nelement vertex %llu\n", static_cast<unsigned long long>(manifest.totals.instances));
    out += "property float x\nproperty float y\nproperty float z\nproperty float yaw\n"
           "property float scale\nproperty ushort species_id\nend_header\n";
  }
  std::vector<std::string> csvNames;
  for (const SpeciesRecord& s : manifest.species) csvNames.push_back(csvField(s.name));
  uint64_t count = 0;
  for (const TileEntry& entry : manifest.tiles) {
    // Verified against the manifest, so every instance's species is in manifest.species.
    TileData tile = readTileVerified(bakeDir, manifest, entry);
    for (const Instance& in : tile.instances) {
      if (format == ExportFormat::Csv)
        appendf(out, "%.3f,%.3f,%.3f,%.5f,%.4f,%s,%u\n", double(in.position.x), double(in.position.y),
                double(in.position.z), double(in.yaw), double(in.scale), csvNames[in.species].c_str(),
                unsigned(in.species));
      else
        appendf(out, "%.3f %.3f %.3f %.5f %.4f %u\n", double(in.position.x), double(in.position.y),
                double(in.position.z), double(in.yaw), double(in.scale), unsigned(in.species));
      ++count;
    }
  }
  if (count != manifest.totals.instances)  // readManifest checks the totals, readTileVerified each tile
    throw std::logic_error("export: " + std::to_string(count) + " instances read, manifest totals say " +
                           std::to_string(manifest.totals.instances));
  writeFileAtomic(outPath, out.data(), out.size());
  return count;
}

}  // namespace eco
