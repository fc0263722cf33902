#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bake/bake.h"
#include "commands.h"
#include "core/error.h"

namespace eco::cli {

namespace {

struct BakeArgs {
  std::string config;
  std::string outDir;
  int threads = 0;
  std::optional<uint64_t> seed;
  std::vector<int> tiles;      // x0 z0 x1 z1, inclusive
  std::vector<float> region;   // min_x min_z max_x max_z, metres
  bool quiet = false;
};

// A redrawn bar on a terminal, a log line per 10 % otherwise.
std::function<void(int, int)> progressReporter(bool quiet) {
  if (quiet) return {};
  bool tty = isatty(fileno(stderr));
  auto lastDecile = std::make_shared<int>(-1);
  return [tty, lastDecile](int done, int total) {
    if (tty) {
      int width = 40, filled = total ? done * width / total : width;
      std::fprintf(stderr, "\r[%s%s] %3d%% %d/%d tiles", std::string(size_t(filled), '#').c_str(),
                   std::string(size_t(width - filled), ' ').c_str(), total ? done * 100 / total : 100, done, total);
      if (done == total) std::fputc('\n', stderr);
      std::fflush(stderr);
    } else if (int decile = total ? done * 10 / total : 10; decile != *lastDecile) {
      *lastDecile = decile;
      spdlog::info("baked {}/{} tiles", done, total);
    }
  };
}

TileRange tileRangeFor(const BakeArgs& a, const SamplerParams& p) {
  int nx = tilesX(p), nz = tilesZ(p);
  TileRange r{0, 0, nx, nz};
  if (!a.tiles.empty()) {
    r = {a.tiles[0], a.tiles[1], a.tiles[2] + 1, a.tiles[3] + 1};
  } else if (!a.region.empty()) {
    r = {int(a.region[0] / p.tileSize), int(a.region[1] / p.tileSize), int(a.region[2] / p.tileSize) + 1,
         int(a.region[3] / p.tileSize) + 1};
  }
  r.x0 = std::max(r.x0, 0), r.z0 = std::max(r.z0, 0), r.x1 = std::min(r.x1, nx), r.z1 = std::min(r.z1, nz);
  if (r.x0 >= r.x1 || r.z0 >= r.z1)
    throw InputError("--tiles/--region: selects no tile of the " + std::to_string(nx) + "x" + std::to_string(nz) + " grid");
  return r;
}

void runBake(const BakeArgs& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  const auto loadStart = std::chrono::steady_clock::now();
  World world = loadWorld(a.config);
  const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
  if (a.seed) world.config.seed = *a.seed;
  int threads = a.threads > 0 ? a.threads : int(std::max(1u, std::thread::hardware_concurrency()));

  BakeOptions options;
  options.outDir = a.outDir;
  options.threads = threads;
  SamplerParams params = samplerParams(world, speciesOrder(world.config));
  if (!a.tiles.empty() || !a.region.empty()) options.tiles = tileRangeFor(a, params);
  options.progress = progressReporter(a.quiet);
  spdlog::info("baking {} ({} species, {:.1f} x {:.1f} km, {} threads)", a.config, world.config.species.size(),
               world.terrain.extentX() / 1000, world.terrain.extentZ() / 1000, threads);

  BakeSummary s = bake(world, options);
  if (a.quiet) return;
  for (size_t i = 0; i < s.speciesCounts.size(); ++i)
    std::printf("  %-24s %12llu\n", world.config.species[i].name.c_str(), (unsigned long long)s.speciesCounts[i]);
  // End to end: from reading the inputs to the output swapped in.
  const double seconds = loadSeconds + s.seconds;
  std::printf("%llu instances in %d/%d tiles, %.1f MB (%.2f bytes/instance), %.2f s, %.2f M instances/s\n",
              (unsigned long long)s.instances, s.tilesWritten, s.tilesTotal, double(s.bytes) / 1e6,
              s.instances ? double(s.bytes) / double(s.instances) : 0.0, seconds,
              seconds > 0 ? double(s.instances) / seconds / 1e6 : 0.0);
  std::printf("time: inputs %.3f s, masks %.3f s, scatter and write %.3f s, flush and swap %.3f s\n", loadSeconds,
              s.masksSeconds, s.scatterSeconds, s.finishSeconds);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak memory %.1f MB\n", double(usage.ru_maxrss) / 1024.0);
  std::printf("output: %s\n", a.outDir.c_str());
}

}  // namespace

void addBake(CLI::App& app) {
  auto a = std::make_shared<BakeArgs>();
  CLI::App* cmd = app.add_subcommand("bake", "Scatter every species and write tiles + manifest to OUTDIR");
  cmd->add_option("CONFIG", a->config, "Biome config (JSON)")->required();
  cmd->add_option("-o,--output", a->outDir, "Output folder (replaced atomically)")->required();
  cmd->add_option("-j,--threads", a->threads, "Worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_option("--seed", a->seed, "Override the config's seed");
  auto* tiles = cmd->add_option("--tiles", a->tiles, "Bake only tiles X0 Z0 X1 Z1 (inclusive)")->expected(4)->delimiter(',');
  cmd->add_option("--region", a->region, "Bake only tiles touching MINX MINZ MAXX MAXZ (metres)")
      ->expected(4)->delimiter(',')->excludes(tiles);
  cmd->add_flag("-q,--quiet", a->quiet, "Print only warnings and errors");
  cmd->callback([a] { runBake(*a); });
}

}  // namespace eco::cli
