#include "export/export.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <array>
#include <bit>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json.h"
#include "core/output_dir.h"
#include "export/writers.h"
#include "shaders/shared.h"
#include "shaders/transform.h"

namespace eco {

namespace fs = std::filesystem;

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

const char* exportFormatName(ExportFormat format) {
  switch (format) {
    case ExportFormat::Csv: return "csv";
    case ExportFormat::Ply: return "ply";
    case ExportFormat::Usd: return "usd";
    case ExportFormat::Gltf: return "gltf";
    case ExportFormat::Tiles3d: return "3dtiles";
  }
  return "?";
}

namespace {

// CSV or PLY into one file.
uint64_t exportList(const std::string& bakeDir, const ExportSelection& sel, ExportFormat format,
                    const ExportOptions& options, const std::string& outPath) {
  const Manifest& manifest = sel.manifest;
  // Without a region the count is known up front, from the manifest's per-tile species counts
  // (exact once each tile is verified against its entry), and checked at the end. PLY's header
  // needs it, so with a region PLY takes a first pass over the tiles.
  std::optional<uint64_t> expected = sel.countFromManifest();
  if (!expected && format == ExportFormat::Ply) {
    expected = 0;
    for (size_t t : sel.tiles)
      for (const Instance& in : readTileVerified(bakeDir, manifest, manifest.tiles[t]).instances) *expected += sel.selected(in);
  }

  OutputFile file(outPath);
  std::string out;
  const bool binary = format == ExportFormat::Ply && !options.plyAscii;
  if (format == ExportFormat::Csv) {
    out = "x,y,z,yaw,scale,species,species_id,qx,qy,qz,qw,r,g,b,id\n";
  } else {
    out = binary ? "ply\nformat binary_little_endian 1.0\n" : "ply\nformat ascii 1.0\n";
    out += "comment ecobake export; species ids:";
    for (const SpeciesRecord& s : manifest.species) appendf(out, " %u=%s", unsigned(s.id), plyHeaderName(s.name).c_str());
    out += "\ncomment q: rotation (x, y, z, w) as glTF ROTATION; r g b: linear tint; instance id = id_tile * 2^26 + id_index";
    appendf(out, "\nelement vertex %llu\n", static_cast<unsigned long long>(*expected));
    out += "property float x\nproperty float y\nproperty float z\nproperty float yaw\n"
           "property float scale\nproperty ushort species_id\n"
           "property float qx\nproperty float qy\nproperty float qz\nproperty float qw\n"
           "property float r\nproperty float g\nproperty float b\n"
           "property uint id_tile\nproperty uint id_index\nend_header\n";
  }
  std::vector<std::string> csvNames;
  for (const SpeciesRecord& s : manifest.species) csvNames.push_back(csvField(s.name));
  const char sep = format == ExportFormat::Csv ? ',' : ' ';
  uint64_t count = 0;
  int done = 0;
  auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };  // little-endian host
  static_assert(std::endian::native == std::endian::little);
  for (size_t t : sel.tiles) {
    // Verified against the manifest, so every instance's species is in manifest.species.
    const SelectedTile tile = selectFromTile(sel, readTileVerified(bakeDir, manifest, manifest.tiles[t]));
    for (size_t i = 0; i < tile.instances.size(); ++i) {
      const Instance& in = tile.instances[i];
      // the same rotation as glTF's ROTATION and the viewer (shaders/transform.h)
      const gpu::quat q = gpu::instanceOrientation({in.up.x, in.up.y, in.up.z}, in.yaw);
      const std::array<float, 3> tint = linearRgb(in.color);
      const uint64_t id = tile.ids[i];
      if (binary) {
        for (float v : {in.position.x, in.position.y, in.position.z, in.yaw, in.scale}) put(v);
        put(uint16_t(in.species));
        for (float v : {q.x, q.y, q.z, q.w, tint[0], tint[1], tint[2]}) put(v);
        put(uint32_t(id >> kInstanceIndexBits));
        put(uint32_t(id & ((uint64_t(1) << kInstanceIndexBits) - 1)));
        ++count;
        continue;
      }
      // The fields of printf's "%.3f,%.3f,%.3f,%.5f,%.4f,<name>,%u,%.6f x 4,%.4f x 3,<id>", by
      // std::to_chars (the same correctly rounded digits, without a format string per line).
      appendFixed(out, in.position.x, 3, sep);
      appendFixed(out, in.position.y, 3, sep);
      appendFixed(out, in.position.z, 3, sep);
      appendFixed(out, in.yaw, 5, sep);
      appendFixed(out, in.scale, 4, sep);
      if (format == ExportFormat::Csv) (out += csvNames[in.species]) += ',';
      char number[24];
      out.append(number, std::to_chars(number, number + sizeof number, unsigned(in.species)).ptr);
      out += sep;
      for (float v : {q.x, q.y, q.z, q.w}) appendFixed(out, v, 6, sep);
      for (float v : tint) appendFixed(out, v, 4, sep);
      if (format == ExportFormat::Csv) {
        out.append(number, std::to_chars(number, number + sizeof number, id).ptr);
      } else {
        out.append(number, std::to_chars(number, number + sizeof number, uint32_t(id >> kInstanceIndexBits)).ptr);
        out += ' ';
        out.append(number, std::to_chars(number, number + sizeof number,
                                         uint32_t(id & ((uint64_t(1) << kInstanceIndexBits) - 1))).ptr);
      }
      out += '\n';
      ++count;
    }
    file.write(out);
    out.clear();
    if (options.progress) options.progress(++done, int(sel.tiles.size()));
  }
  if (expected && count != *expected)  // the manifest's counts are checked against every tile read
    throw std::logic_error("export: " + std::to_string(count) + " instances written, " + std::to_string(*expected) +
                           " expected");
  file.write(out);
  file.commit();
  return count;
}

// The marker of an export folder, also its index: export.json.
constexpr const char* kExportMarker = "export.json";
constexpr const char* kExportFormat = "ecobake-export";

// USD, glTF or 3D Tiles into a staged folder.
uint64_t exportFolder(const std::string& bakeDir, const ExportSelection& sel, ExportFormat format,
                      const ExportOptions& options, const std::string& outDir) {
  const Manifest& manifest = sel.manifest;
  if (uint64_t(manifest.tiling.tilesX) * uint64_t(manifest.tiling.tilesZ) > kMaxIdTiles)
    throw InputError(bakeDir + ": a grid of " + std::to_string(manifest.tiling.tilesX) + " x " +
                     std::to_string(manifest.tiling.tilesZ) + " tiles is more than instance ids can number (2^37)");
  // The index lists every exported tile, about 100 bytes each: 64 MiB is 600,000 tiles.
  const OutputKind kind =
      markedOutput("ecobake export", "ecobake export", "export", kExportMarker, kExportFormat, uint64_t(64) << 20, {"tiles"});
  StagedDir staged(outDir, kind);  // checks the destination before creating anything
  const fs::path root(staged.staging);
  const bool usd = format == ExportFormat::Usd, tiles3d = format == ExportFormat::Tiles3d;
  const char* extension = usd ? ".usda" : ".glb";
  fs::create_directory(root / "tiles");

  nlohmann::ordered_json index = {{"format", kExportFormat},
                                  {"format_version", 1},
                                  {"type", exportFormatName(format)},
                                  {"tool_version", ECO_VERSION},
                                  {"bake", {{"name", manifest.name}, {"seed", manifest.seed}, {"tool_version", manifest.toolVersion}}},
                                  {"tiling", {{"tile_size", manifest.tiling.tileSize}, {"tiles_x", manifest.tiling.tilesX}, {"tiles_z", manifest.tiling.tilesZ}}},
                                  {"id_index_bits", kInstanceIndexBits}};
  nlohmann::ordered_json species = nlohmann::ordered_json::array();
  for (const SpeciesRecord& s : manifest.species)
    if (sel.keep[s.id]) species.push_back({{"id", s.id}, {"name", s.name}, {"prim", usdPrimName(s)}});
  index["species"] = std::move(species);
  if (usd) index["root"] = "world.usda";
  if (tiles3d) index["root"] = "tileset.json";

  std::vector<UsdTileRef> refs;
  std::vector<TilesetLeaf> leaves;
  nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
  uint64_t count = 0;
  int done = 0;
  for (size_t t : sel.tiles) {
    const TileEntry& entry = manifest.tiles[t];
    const SelectedTile tile = selectFromTile(sel, readTileVerified(bakeDir, manifest, entry));
    if (!tile.instances.empty()) {
      const std::string file = "tiles/" + std::to_string(entry.x) + "_" + std::to_string(entry.z) + extension;
      const Box extent = usd || tiles3d ? usdExtent(manifest, tile) : Box{};
      if (usd) {
        const std::string text = usdTileLayer(manifest, sel.keep, tile, extent);
        writeFilePlain((root / file).string(), text.data(), text.size());
      } else {
        // 3D Tiles: the tile's origin goes in its transform (tilesetJson), not a node
        const std::vector<uint8_t> glb = gltfTile(manifest, sel.keep, sel.meshes, &sel.meshesLod1, tile, !tiles3d);
        writeFilePlain((root / file).string(), glb.data(), glb.size());
      }
      if (tiles3d) {
        float tallest = 0;
        for (const Instance& in : tile.instances)
          tallest = std::max(tallest, manifest.species[in.species].meshHeight * in.scale);
        leaves.push_back({entry.x, entry.z, file, extent, tallest, tile.instances.size()});
      }
      refs.push_back({entry.x, entry.z, file, extent});
      tiles.push_back({{"x", entry.x}, {"z", entry.z}, {"file", file}, {"instances", tile.instances.size()}});
      count += tile.instances.size();
    }
    if (options.progress) options.progress(++done, int(sel.tiles.size()));
  }
  if (const std::optional<uint64_t> expected = sel.countFromManifest(); expected && count != *expected)
    throw std::logic_error("export: " + std::to_string(count) + " instances written, " + std::to_string(*expected) +
                           " expected");
  if (usd) {
    const std::string prototypes = usdPrototypesLayer(manifest, sel.keep, sel.meshes, sel.meshesLod1);
    writeFilePlain((root / "prototypes.usda").string(), prototypes.data(), prototypes.size());
    // the mesh files' base colour textures prototypes.usda reads, beside it
    for (const UsdTextureFile& t : usdTextureFiles(manifest, sel.keep, sel.meshes)) {
      fs::create_directories((root / t.path).parent_path());
      writeFilePlain((root / t.path).string(), t.bytes->data(), t.bytes->size());
    }
    const std::string world = usdRootLayer(manifest, refs);
    writeFilePlain((root / "world.usda").string(), world.data(), world.size());
  }
  if (tiles3d) {
    std::optional<std::array<double, 16>> transform;
    if (options.georef) transform = eastNorthUpToEcef((*options.georef)[0], (*options.georef)[1], (*options.georef)[2]);
    const std::string tileset = tilesetJson(manifest, leaves, transform);
    writeFilePlain((root / "tileset.json").string(), tileset.data(), tileset.size());
  }
  index["instances"] = count;
  // every file written, so the next export may replace exactly this (core/output_dir.h)
  nlohmann::ordered_json written = nlohmann::ordered_json::array();
  for (const UsdTileRef& r : refs) written.push_back(r.file);
  if (usd) {
    for (const UsdTextureFile& t : usdTextureFiles(manifest, sel.keep, sel.meshes)) written.push_back(t.path);
    written.push_back("prototypes.usda"), written.push_back("world.usda");
  }
  if (tiles3d) written.push_back("tileset.json");
  index["files"] = std::move(written);
  index["tiles"] = std::move(tiles);
  const std::string text = index.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  writeFilePlain((root / kExportMarker).string(), text.data(), text.size());  // last: it marks a whole export
  syncFileSystemOf(staged.staging);
  staged.commit();
  return count;
}

}  // namespace

uint64_t exportInstances(const std::string& bakeDir, const ExportOptions& options, const std::string& outPath) {
  if (outPath.empty()) throw InputError("output name is empty (-o \"\")");
  if (isInsideFolder(outPath, bakeDir))
    throw InputError(outPath + ": is inside the bake being exported (" + bakeDir + "); write the export elsewhere");
  if (!writesFolder(options.format)) {
    // A list file never goes into a bake (this one or another): it would sit among, or
    // replace, files the bake's manifest lists.
    const fs::path parent = fs::absolute(fs::path(outPath)).parent_path();
    if (hasEcobakeManifest(parent.string(), nullptr))
      throw InputError(outPath + ": is inside the bake " + parent.string() + "; write the export elsewhere");
  }
  const ExportSelection selection = selectForExport(bakeDir, options);
  if (writesFolder(options.format)) return exportFolder(bakeDir, selection, options.format, options, outPath);
  return exportList(bakeDir, selection, options.format, options, outPath);
}

}  // namespace eco
