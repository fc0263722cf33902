#include "bake/export.h"

#include <cstdio>
#include <string>

#include "core/error.h"

namespace eco {

namespace {

void appendf(std::string& out, const char* fmt, auto... args) {
  char line[256];
  int n = std::snprintf(line, sizeof line, fmt, args...);
  out.append(line, size_t(n));
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
    for (const SpeciesRecord& s : manifest.species) header += " " + std::to_string(s.id) + "=" + s.name;
    header += "\nelement vertex " + std::to_string(count) +
              "\nproperty float x\nproperty float y\nproperty float z\nproperty float yaw\n"
              "property float scale\nproperty ushort species_id\nend_header\n";
  }
  header += body;
  writeFileAtomic(outPath, header.data(), header.size());
  return count;
}

}  // namespace eco
