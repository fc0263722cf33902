#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "bake/bake.h"
#include "core/output_dir.h"
#include "commands.h"
#include "core/error.h"
#include "core/file_io.h"
#include "export/export.h"
#include "tileio/tileio.h"

namespace eco::cli {

namespace {

// masks owns its -o folder as bake owns its own: replaced only when missing, empty or a
// previous masks output, which carries this marker file.
constexpr const char* kMasksMarker = "masks.json";
constexpr const char* kMasksFormat = "ecobake-masks";

OutputKind masksOutput() { return markedOutput("ecobake masks output", "ecobake masks run", "write masks", kMasksMarker, kMasksFormat); }

}  // namespace

void addMasks(CLI::App& app) {
  struct Args {
    std::string config, outDir, bakeDir;
    float pixelsPerMetre = 0.25f;
    LimitArgs limits;  // of the in-memory bake, as for bake
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("masks", "Write PNG previews of every mask, each species' suitability and the instances");
  cmd->add_option("CONFIG", a->config, "Biome config (JSON)")->required();
  cmd->add_option("-o,--output", a->outDir,
                  "Folder for the PNGs: created, or replaced when empty or a previous masks output (masks.json)")
      ->required();
  cmd->add_option("--bake", a->bakeDir, "Draw the instances of this bake (default: bake in memory)");
  cmd->add_option("--pixels-per-metre", a->pixelsPerMetre,
                  "Scale of instances.png (lowered so that no side exceeds 4096 px)")
      ->check(CLI::Range(0.01f, 16.f));
  addLimitOptions(cmd, a->limits);
  cmd->callback([a] {
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    const OutputKind kind = masksOutput();
    checkOutputFolder(a->outDir, kind);  // before the inputs are loaded: an unusable -o fails at once
    const BakeLimits limits = parseLimits(a->limits);
    World world = loadWorld(a->config);
    SuitabilityRasters rasters = computeSuitability(world, threads);

    std::vector<TileData> tiles;
    if (a->bakeDir.empty()) {
      const BakeEstimate estimate = estimateBake(world, threads);
      if (std::string why = limitProblem(estimate, limits); !why.empty()) throw InputError(a->config + ": " + why);
      tiles = bakeInMemory(world, threads);
    } else {
      Manifest m = readManifest(a->bakeDir);
      // the bake is drawn over this config's masks: it must be a bake of this config
      if (std::string why = bakeMismatch(world, m); !why.empty())
        throw InputError(a->bakeDir + ": not a bake of " + a->config + ": " + why);
      for (const TileEntry& e : m.tiles) tiles.push_back(readTileVerified(a->bakeDir, m, e));
    }

    StagedDir out(a->outDir, kind);
    std::vector<std::string> files = writeMaskPreviews(world, rasters, out.staging);
    files.push_back((std::filesystem::path(out.staging) / "instances.png").string());
    const float scale = writeInstancePreview(world, tiles, a->pixelsPerMetre, files.back());
    if (scale < a->pixelsPerMetre)
      std::fprintf(stderr, "ecobake: instances.png drawn at %g pixels per metre (at most %d pixels a side)\n",
                   double(scale), kMaxPreviewSide);
    nlohmann::ordered_json marker = {{"format", kMasksFormat}, {"format_version", 1},
                                     {"instances_pixels_per_metre", scale}};
    for (std::string& f : files) f = std::filesystem::path(f).filename().string();
    marker["files"] = files;
    const std::string text = marker.dump(2) + "\n";
    writeFilePlain((std::filesystem::path(out.staging) / kMasksMarker).string(), text.data(), text.size());
    syncFileSystemOf(out.staging);
    out.commit();
    for (const std::string& f : files) std::printf("%s\n", (std::filesystem::path(out.destination) / f).string().c_str());
  });
}

}  // namespace eco::cli
