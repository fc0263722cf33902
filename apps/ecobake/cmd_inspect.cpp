#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/parse_number.h"
#include "export/export.h"
#include "commands.h"
#include "core/error.h"
#include "core/hash.h"
#include "meshes/meshes.h"
#include "tileio/tileio.h"

namespace eco::cli {

namespace {

nlohmann::json tileSummary(const TileData& t) {
  nlohmann::json counts = nlohmann::json::object();
  for (const Instance& in : t.instances) counts[t.species.at(in.species).name] = counts.value(t.species[in.species].name, 0) + 1;
  return {{"tile", {t.tileX, t.tileZ}},
          {"tile_size", t.tileSize},
          {"bounds_min", {t.boundsMin.x, t.boundsMin.y, t.boundsMin.z}},
          {"bounds_max", {t.boundsMax.x, t.boundsMax.y, t.boundsMax.z}},
          {"instances", t.instances.size()},
          {"species_counts", counts}};
}

nlohmann::json layersSummary(const Manifest& m) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerEntry& l : m.layers) {
    nlohmann::json j = {{"name", l.name},         {"kind", l.kind},
                        {"file", l.file},         {"size", {l.width, l.height}},
                        {"encoding", layerEncodingName(l.encoding)},
                        {"range", {l.valueMin, l.valueMax}}, {"unit", l.unit},
                        {"bytes", layerFileBytes(l)}};
    if (!l.species.empty()) j["species"] = l.species;
    if (l.kind == "river") j["water_distance"] = l.waterDistance;
    layers.push_back(j);
  }
  return layers;
}

nlohmann::json bakeSummary(const std::string& dir, const Manifest& m) {
  nlohmann::json species = nlohmann::json::array();
  for (const SpeciesRecord& s : m.species) {
    species.push_back({{"id", s.id},
                       {"name", s.name},
                       {"instances", m.totals.speciesCounts.at(s.id)},
                       {"form", meshFormName(speciesMeshForm(s))},
                       // a tree without mesh.form: drawn as the broadleaf default
                       {"form_default", !s.meshForm && s.kind == uint8_t(SpeciesKind::Tree)}});
    if (s.meshFile.empty()) continue;
    // A mesh file is verified (size, checksum) and loaded like the viewer loads it; its
    // triangles per LOD are reported.
    readMeshVerified(dir, s);
    const SpeciesMeshSource src{speciesMeshForm(s), (std::filesystem::path(dir) / s.meshFile).string(), s.meshHeight,
                                s.crownRadius};
    const MeshSet set = buildMeshes({&src, 1});
    if (!set.species[0].error.empty()) throw InputError(set.species[0].error);
    species.back()["mesh_file"] = s.meshFile;
    species.back()["mesh_triangles"] = set.species[0].triangles;
  }
  return {{"bake", dir},
          {"name", m.name},
          {"tool_version", m.toolVersion},
          {"seed", m.seed},
          {"world_size", {m.world.sizeX, m.world.sizeZ}},
          {"elevation", {m.world.minY, m.world.maxY}},
          {"tiles", {{"grid", {m.tiling.tilesX, m.tiling.tilesZ}}, {"tile_size", m.tiling.tileSize}, {"written", m.tiles.size()}}},
          {"instances", m.totals.instances},
          {"bytes", m.totals.bytes},
          {"bytes_per_instance", m.totals.instances ? double(m.totals.bytes) / double(m.totals.instances) : 0.0},
          {"species", species},
          {"sun", {{"azimuth_deg", m.sunAzimuthDeg}, {"elevation_deg", m.sunElevationDeg}}},
          {"layers", layersSummary(m)}};
}

void printHuman(const nlohmann::json& j) {
  if (j.contains("bake")) {
    std::printf("bake %s (%s, ecobake %s, seed %llu)\n", j["bake"].get<std::string>().c_str(),
                j["name"].get<std::string>().c_str(), j["tool_version"].get<std::string>().c_str(),
                static_cast<unsigned long long>(j["seed"].get<uint64_t>()));
    std::printf("world %.0f x %.0f m, elevation %.1f .. %.1f m\n", j["world_size"][0].get<double>(),
                j["world_size"][1].get<double>(), j["elevation"][0].get<double>(), j["elevation"][1].get<double>());
    std::printf("tiles %d x %d of %.0f m, %zu written\n", j["tiles"]["grid"][0].get<int>(), j["tiles"]["grid"][1].get<int>(),
                j["tiles"]["tile_size"].get<double>(), j["tiles"]["written"].get<size_t>());
    std::printf("instances %llu, %llu bytes (%.2f bytes/instance)\n",
                static_cast<unsigned long long>(j["instances"].get<uint64_t>()),
                static_cast<unsigned long long>(j["bytes"].get<uint64_t>()), j["bytes_per_instance"].get<double>());
    for (const auto& s : j["species"]) {
      std::printf("  %3d %-24s %12llu  %s%s", s["id"].get<int>(), s["name"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(s["instances"].get<uint64_t>()), s["form"].get<std::string>().c_str(),
                  s["form_default"].get<bool>() ? " (the tree default)" : "");
      if (s.contains("mesh_file"))
        std::printf("  %s: %u / %u triangles (LOD 0 / 1)", s["mesh_file"].get<std::string>().c_str(),
                    s["mesh_triangles"][0].get<unsigned>(), s["mesh_triangles"][1].get<unsigned>());
      std::printf("\n");
    }
    std::printf("sun from azimuth %g deg, %g deg above the horizon\n", j["sun"]["azimuth_deg"].get<double>(),
                j["sun"]["elevation_deg"].get<double>());
    if (!j["layers"].empty()) std::printf("layers (%zu, verified):\n", j["layers"].size());
    for (const auto& l : j["layers"]) {
      const std::string unit = l["unit"].get<std::string>();
      std::printf("  %-28s %-11s %s %s, %g .. %g%s%s", l["name"].get<std::string>().c_str(),
                  l["kind"].get<std::string>().c_str(), l["file"].get<std::string>().c_str(),
                  l["encoding"].get<std::string>().c_str(), l["range"][0].get<double>(), l["range"][1].get<double>(),
                  unit.empty() ? "" : " ", unit.c_str());
      if (l.contains("water_distance")) std::printf(", water where <= %g m", l["water_distance"].get<double>());
      std::printf("\n");
    }
  } else {
    std::printf("tile %d,%d (%.0f m), %zu instances\n", j["tile"][0].get<int>(), j["tile"][1].get<int>(),
                j["tile_size"].get<double>(), j["instances"].get<size_t>());
    std::printf("bounds (%.2f, %.2f, %.2f) .. (%.2f, %.2f, %.2f)\n", j["bounds_min"][0].get<double>(),
                j["bounds_min"][1].get<double>(), j["bounds_min"][2].get<double>(), j["bounds_max"][0].get<double>(),
                j["bounds_max"][1].get<double>(), j["bounds_max"][2].get<double>());
    for (const auto& [name, count] : j["species_counts"].items())
      std::printf("  %-24s %12d\n", name.c_str(), count.get<int>());
  }
}

}  // namespace

void addInspect(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("inspect", "Summarize a bake folder or a single tile file");
  cmd->add_option("PATH", *path, "Bake folder or .ecot tile")->required();
  cmd->add_flag("--json", *json, "Machine-readable output");
  cmd->callback([path, json] {
    nlohmann::json j;
    if (std::filesystem::is_directory(*path)) {
      Manifest m = readManifest(*path);
      for (const TileEntry& e : m.tiles) readTileVerified(*path, m, e);  // inspect verifies every tile
      for (const LayerEntry& l : m.layers) readLayerVerified(*path, l);  // and every layer
      j = bakeSummary(*path, m);
    } else {
      j = tileSummary(readTileFile(*path));
    }
    // Decoders refuse names that are not UTF-8, but the bake path comes from the command line
    // and may be any bytes: replace (U+FFFD) rather than throw.
    if (*json)
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    else
      printHuman(j);
  });
}

void addExport(CLI::App& app) {
  struct Args {
    std::string dir, format = "csv", out;
    std::vector<std::string> tiles, region, species, georef;
    bool quiet = false, ascii = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("export", "Write the instances of a bake as CSV, PLY, USD, glTF or 3D Tiles");
  cmd->add_option("OUTDIR", a->dir, "Bake folder")->required();
  cmd->add_option("--format", a->format,
                  "csv or ply (one file); usd, gltf or 3dtiles (a folder: a layer or GLB per tile, and export.json)")
      ->check(CLI::IsMember({"csv", "ply", "usd", "gltf", "3dtiles"}));
  cmd->add_option("-o,--output", a->out,
                  "Output file (csv, ply) or folder (usd, gltf, 3dtiles: created, or replaced when empty or a previous export)")
      ->required();
  auto* tiles = cmd->add_option("--tiles", a->tiles, "Only tiles X0 Z0 X1 Z1 (inclusive)")->expected(4)->delimiter(',');
  cmd->add_option("--region", a->region, "Only instances inside MINX MINZ MAXX MAXZ (metres)")
      ->expected(4)->delimiter(',')->excludes(tiles);
  cmd->add_option("--species", a->species, "Only these species (names, comma-separated)")->delimiter(',');
  cmd->add_flag("--ascii", a->ascii, "PLY as text (default: binary little-endian)");
  cmd->add_option("--georef", a->georef,
                  "3dtiles: LON,LAT,HEIGHT (degrees, degrees, metres on the WGS84 ellipsoid) of the world's "
                  "north-west corner at height 0; default: the tileset stays in its local east-north-up frame")
      ->expected(3)->delimiter(',');
  cmd->add_flag("-q,--quiet", a->quiet, "Print only warnings and errors");
  cmd->callback([a] {
    if (a->ascii && a->format != "ply") throw InputError("--ascii: only for --format ply");
    if (!a->georef.empty() && a->format != "3dtiles") throw InputError("--georef: only for --format 3dtiles");
    std::vector<int64_t> t;
    std::vector<double> r;
    parseArea(a->tiles, a->region, t, r);
    ExportOptions options;
    for (ExportFormat f : {ExportFormat::Csv, ExportFormat::Ply, ExportFormat::Usd, ExportFormat::Gltf, ExportFormat::Tiles3d})
      if (a->format == exportFormatName(f)) options.format = f;
    // Inclusive tile indices; anything past the grid just selects nothing there.
    auto clampTile = [](int64_t v) { return int(std::min<int64_t>(v, int64_t(1) << 30)); };
    if (!t.empty()) options.tiles = TileRange{clampTile(t[0]), clampTile(t[1]), clampTile(t[2]) + 1, clampTile(t[3]) + 1};
    if (!r.empty()) options.region = std::array<double, 4>{r[0], r[1], r[2], r[3]};
    options.species = a->species;
    options.plyAscii = a->ascii;
    if (!a->georef.empty()) {
      const double lon = parseReal(a->georef[0], "--georef longitude", -180, 180);
      const double lat = parseReal(a->georef[1], "--georef latitude", -90, 90);
      const double height = parseReal(a->georef[2], "--georef height", -11000, 100000);
      options.georef = std::array<double, 3>{lon, lat, height};
    }
    options.progress = progressReporter(a->quiet, "exported");
    const uint64_t n = exportInstances(a->dir, options, a->out);
    if (!a->quiet)
      std::fprintf(stderr, "%llu instances written to %s\n", static_cast<unsigned long long>(n), a->out.c_str());
  });
}

}  // namespace eco::cli
