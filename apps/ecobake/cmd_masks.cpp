#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "bake/bake.h"
#include "commands.h"
#include "masks/preview.h"
#include "tileio/manifest.h"

namespace eco::cli {

void addMasks(CLI::App& app) {
  struct Args {
    std::string config, outDir, bakeDir;
    float pixelsPerMetre = 0.25f;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("masks", "Write PNG previews of every mask, each species' suitability and the instances");
  cmd->add_option("CONFIG", a->config, "Biome config (JSON)")->required();
  cmd->add_option("-o,--output", a->outDir, "Folder for the PNGs")->required();
  cmd->add_option("--bake", a->bakeDir, "Draw the instances of this bake (default: bake in memory)");
  cmd->add_option("--pixels-per-metre", a->pixelsPerMetre, "Scale of instances.png")->check(CLI::Range(0.01f, 16.f));
  cmd->callback([a] {
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    World world = loadWorld(a->config);
    SuitabilityRasters rasters = computeSuitability(world, threads);
    std::vector<std::string> files = writeMaskPreviews(world, rasters, a->outDir);

    std::vector<TileData> tiles;
    if (a->bakeDir.empty()) {
      tiles = bakeInMemory(world, threads);
    } else {
      Manifest m = readManifest(a->bakeDir);
      for (const TileEntry& e : m.tiles) tiles.push_back(readTileVerified(a->bakeDir, m, e));
    }
    files.push_back((std::filesystem::path(a->outDir) / "instances.png").string());
    writeInstancePreview(world, tiles, a->pixelsPerMetre, files.back());
    for (const std::string& f : files) std::printf("%s\n", f.c_str());
  });
}

}  // namespace eco::cli
