#include "bake/export.h"

#include <cstdio>
#include <string>

#include "core/error.h"

namespace eco {

namespace {

void appendf(std::string& out, const char* fmt, auto... args) {
  int n = std::snprintf(nullptr, 0, fmt, args...);
  size_t start = out.size();
  out.resize(start + size_t(n) + 1);
  std::snprintf(out.data() + start, size_t(n) + 1, fmt, args...);
  out.pop_back();  // snprintf's terminator
}
}  // namespace

uint64_t exportInstances(const std::string& bakeDir, ExportFormat format, const std::string& outPath) {
  Manifest manifest = readManifest(bakeDir);
  std::string body;
  uint64_t count = 0;
  for (const TileEntry& entry : manifest.tiles) {
    TileData tile = readTileVerified(bakeDir, entry);
    for (const Instance& in : tile.instances) {
      const std::string& name = manifest.species.at(in.species).name;
      if (format == ExportFormat::Csv)
        appendf(body, "%.3f,%.3f,%.3f,%.5f,%.4f,%s,%u\n", in.position.x, in.position.y, in.position.z, in.yaw,
                in.scale, name.c_str(), unsigned(in.species));
      else
        appendf(body, "%.3f %.3f %.3f %.5f %.4f %u\n", in.position.x, in.position.y, in.position.z, in.yaw, in.scale,
                unsigned(in.species));
      ++count;
    }
  }

  std::string header;
  if (format == ExportFormat::Csv) {
    header = "x,y,z,yaw,scale,species,species_id\n";
  } else {
    header = "ply\nformat ascii 1.0\ncomment ecobake export; species ids:";
    for (const SpeciesRecord& s : manifest.species) appendf(header, " %u=%s", unsigned(s.id), s.name.c_str());
    appendf(header, "\nelement vertex %llu\n", (unsigned long long)count);
    header += "property float x\nproperty float y\nproperty float z\nproperty float yaw\n"
              "property float scale\nproperty ushort species_id\nend_header\n";
  }
  header += body;
  writeFileAtomic(outPath, header.data(), header.size());
  return count;
}

}  // namespace eco
