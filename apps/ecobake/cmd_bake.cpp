#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bake/bake.h"
#include "core/output_dir.h"
#include "commands.h"
#include "core/error.h"
#include "core/parse_number.h"

namespace eco::cli {

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// A redrawn bar on a terminal, a log line per 10 % otherwise.
std::function<void(int, int)> progressReporter(bool quiet, const char* verb) {
  if (quiet) return {};
  bool tty = isatty(fileno(stderr));
  auto lastDecile = std::make_shared<int>(-1);
  return [tty, lastDecile, verb](int done, int total) {
    if (tty) {
      int width = 40, filled = total ? done * width / total : width;
      std::fprintf(stderr, "\r[%s%s] %3d%% %d/%d tiles", std::string(size_t(filled), '#').c_str(),
                   std::string(size_t(width - filled), ' ').c_str(), total ? done * 100 / total : 100, done, total);
      if (done == total) std::fputc('\n', stderr);
      std::fflush(stderr);
    } else if (int decile = total ? done * 10 / total : 10; decile != *lastDecile) {
      *lastDecile = decile;
      spdlog::info("{} {}/{} tiles", verb, done, total);
    }
  };
}

namespace {

struct BakeArgs {
  std::string config;
  std::string outDir;
  // Numbers stay text until parseOptions: CLI11 converts silently (see core/parse_number.h).
  std::string threads = "0";
  std::optional<std::string> seed;
  std::vector<std::string> tiles;   // x0 z0 x1 z1, inclusive
  std::vector<std::string> region;  // min_x min_z max_x max_z, metres
  std::optional<std::string> shard;       // I/N or auto
  std::optional<std::string> shardCount;  // with --shard auto
  bool quiet = false;
  std::vector<std::string> layers;  // --layers: extra raster layers ("masks")
  LimitArgs limits;  // the estimate's limits (validate has the same options)
};


// The numeric options, parsed strictly before any input is read.
struct ParsedOptions {
  int threads = 0;
  std::optional<uint64_t> seed;
  std::vector<int64_t> tiles;  // inclusive, >= 0
  std::vector<double> region;  // finite metres
  std::optional<ShardSpec> shard;
  std::string shardSource;  // where --shard auto found it
  bool maskLayers = false;  // --layers masks
};


ParsedOptions parseOptions(const BakeArgs& a) {
  ParsedOptions o;
  o.threads = int(parseInteger(a.threads, "-j/--threads", 0, 1024));
  if (a.seed) o.seed = parseUnsigned(*a.seed, "--seed");
  parseArea(a.tiles, a.region, o.tiles, o.region);
  for (const std::string& layer : a.layers) {
    if (layer != "masks")
      throw InputError("--layers: unknown layer set '" + layer +
                       "'; use masks (the eco-masks and each species' suitability; the river layer is always written)");
    o.maskLayers = true;
  }
  if (a.shardCount && a.shard != "auto") throw InputError("--shard-count: only with --shard auto");
  if (a.shard == "auto") {
    std::optional<int> count;
    if (a.shardCount) count = int(parseInteger(*a.shardCount, "--shard-count", 1, kMaxShards));
    o.shard = shardFromEnvironment([](const char* name) { return std::getenv(name); }, count, &o.shardSource);
  } else if (a.shard) {
    o.shard = parseShardSpec(*a.shard);
  }
  return o;
}

}  // namespace

void parseArea(const std::vector<std::string>& tiles, const std::vector<std::string>& region,
               std::vector<int64_t>& tilesOut, std::vector<double>& regionOut) {
  static const char* const kCorner[] = {"X0", "Z0", "X1", "Z1"};
  static const char* const kEdge[] = {"MINX", "MINZ", "MAXX", "MAXZ"};
  for (size_t i = 0; i < tiles.size(); ++i)
    tilesOut.push_back(parseInteger(tiles[i], std::string("--tiles ") + kCorner[i], 0, INT64_MAX));
  for (size_t i = 0; i < region.size(); ++i)
    regionOut.push_back(parseReal(region[i], std::string("--region ") + kEdge[i], -std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::max()));
  if (!tilesOut.empty() && (tilesOut[0] > tilesOut[2] || tilesOut[1] > tilesOut[3]))
    throw InputError("--tiles: " + joined(tiles) + " is inverted: X0 must be <= X1 and Z0 <= Z1");
  if (!regionOut.empty() && (regionOut[0] > regionOut[2] || regionOut[1] > regionOut[3]))
    throw InputError("--region: " + joined(region) + " is inverted: MINX must be <= MAXX and MINZ <= MAXZ");
}

namespace {

// All arithmetic in int64 and double, clamped to the grid before narrowing to int, so a
// huge index or coordinate means "to the edge of the world", never an overflow.
TileRange tileRangeFor(const BakeArgs& a, const ParsedOptions& o, const SamplerParams& p) {
  const int64_t nx = tilesX(p), nz = tilesZ(p);
  int64_t x0 = 0, z0 = 0, x1 = nx - 1, z1 = nz - 1;  // inclusive
  std::string option;
  if (!o.tiles.empty()) {
    option = "--tiles " + joined(a.tiles);
    x0 = o.tiles[0], z0 = o.tiles[1], x1 = o.tiles[2], z1 = o.tiles[3];
  } else {
    option = "--region " + joined(a.region);
    // The tiles the region touches: a maximum exactly on a tile edge touches the next tile.
    auto tileOf = [&p](double metres, int64_t n) {
      return int64_t(std::clamp(std::floor(metres / double(p.tileSize)), -1.0, double(n)));
    };
    x0 = tileOf(o.region[0], nx), z0 = tileOf(o.region[1], nz), x1 = tileOf(o.region[2], nx), z1 = tileOf(o.region[3], nz);
  }
  x0 = std::max<int64_t>(x0, 0), z0 = std::max<int64_t>(z0, 0);
  x1 = std::min(x1, nx - 1), z1 = std::min(z1, nz - 1);
  if (x0 > x1 || z0 > z1)
    throw InputError(option + ": selects no tile of the " + std::to_string(nx) + "x" + std::to_string(nz) +
                     " grid (tiles 0.." + std::to_string(nx - 1) + ", 0.." + std::to_string(nz - 1) + ", " +
                     fmt::format("{:g}", p.tileSize) + " m each)");
  return {int(x0), int(z0), int(x1 + 1), int(z1 + 1)};
}

void runBake(const BakeArgs& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  // Options and the output folder first: a typo fails at once, not after loading or baking.
  const ParsedOptions o = parseOptions(a);
  const BakeLimits limits = parseLimits(a.limits);
  checkOutputFolder(a.outDir, bakeOutput());
  const auto loadStart = std::chrono::steady_clock::now();
  World world = loadWorld(a.config);
  const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
  if (o.seed) world.config.seed = *o.seed;
  int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));

  BakeOptions options;
  options.outDir = a.outDir;
  options.threads = threads;
  options.maskLayers = o.maskLayers;
  requireValidWorld(world);  // validate's checks of the loaded world: extent, heights, sampler
  SamplerParams params = samplerParams(world, speciesOrder(world.config));
  if (!a.tiles.empty() || !a.region.empty()) options.tiles = tileRangeFor(a, o, params);
  if (o.shard) {
    options.shard = planShard(world, *o.shard, threads);
    options.tiles = options.shard->tiles;  // for the estimate
    spdlog::info("shard {}/{}{}: tile rows {}..{} of {}", o.shard->index, o.shard->count,
                 o.shardSource.empty() ? "" : " (" + o.shardSource + ")", options.shard->tiles.z0,
                 options.shard->tiles.z1 - 1, tilesZ(params));
  }
  // validate's estimate, before anything is sampled or written.
  const BakeEstimate estimate = estimateBake(world, threads, options.tiles);
  if (std::string why = limitProblem(estimate, limits); !why.empty()) throw InputError(a.config + ": " + why);
  spdlog::info("estimate: {}", describeEstimate(estimate));
  options.progress = progressReporter(a.quiet, "baked");
  spdlog::info("baking {} ({} species, {:.1f} x {:.1f} km, {} threads)", a.config, world.config.species.size(),
               world.terrain.extentX() / 1000, world.terrain.extentZ() / 1000, threads);

  BakeSummary s = bake(world, options);
  if (a.quiet) return;
  for (size_t i = 0; i < s.speciesCounts.size(); ++i)
    std::printf("  %-24s %12llu\n", world.config.species[i].name.c_str(),
                static_cast<unsigned long long>(s.speciesCounts[i]));
  // End to end: from reading the inputs to the output swapped in.
  const double seconds = loadSeconds + s.seconds;
  std::printf("%llu instances in %d/%d tiles, %.1f MB (%.2f bytes/instance), %.2f s, %.2f M instances/s\n",
              static_cast<unsigned long long>(s.instances), s.tilesWritten, s.tilesTotal, double(s.bytes) / 1e6,
              s.instances ? double(s.bytes) / double(s.instances) : 0.0, seconds,
              seconds > 0 ? double(s.instances) / seconds / 1e6 : 0.0);
  std::printf("time: inputs %.3f s, masks %.3f s, scatter and write %.3f s, flush and swap %.3f s", loadSeconds,
              s.masksSeconds, s.scatterSeconds, s.finishSeconds);
  if (s.layers) std::printf(", layers %.3f s (%d, %.1f MB)", s.layersSeconds, s.layers, double(s.layerBytes) / 1e6);
  std::printf("\n");
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak memory %.1f MB\n", double(usage.ru_maxrss) / 1024.0);
  if (options.shard)
    std::printf("output: %s (part %d of %d, tile rows %d..%d; merge all parts with ecobake merge)\n", a.outDir.c_str(),
                options.shard->spec.index, options.shard->spec.count, options.shard->tiles.z0, options.shard->tiles.z1 - 1);
  else
    std::printf("output: %s\n", a.outDir.c_str());
}

}  // namespace

void addBake(CLI::App& app) {
  auto a = std::make_shared<BakeArgs>();
  CLI::App* cmd = app.add_subcommand("bake", "Scatter every species and write tiles + manifest to OUTDIR");
  cmd->add_option("CONFIG", a->config, "Biome config (JSON)")->required();
  cmd->add_option("-o,--output", a->outDir, "Output folder: new, empty or a previous bake, which is replaced atomically")->required();
  cmd->add_option("-j,--threads", a->threads, "Worker threads, 0 to 1024 (default 0: all cores)");
  cmd->add_option("--seed", a->seed, "Override the config's seed (0 to 18446744073709551615)");
  auto* tiles = cmd->add_option("--tiles", a->tiles, "Bake only tiles X0 Z0 X1 Z1 (inclusive)")->expected(4)->delimiter(',');
  cmd->add_option("--region", a->region, "Bake only tiles touching MINX MINZ MAXX MAXZ (metres)")
      ->expected(4)->delimiter(',')->excludes(tiles);
  cmd->add_option("--shard", a->shard,
                  "Bake shard I of N (1-based) into a part folder for ecobake merge; 'auto': from the batch system's "
                  "environment (Kubernetes Indexed Job, Slurm array, AWS Batch array)")
      ->excludes(tiles)
      ->excludes("--region");
  cmd->add_option("--shard-count", a->shardCount,
                  "With --shard auto: the number of shards N (else SLURM_ARRAY_TASK_COUNT or ECOBAKE_SHARD_COUNT)");
  cmd->add_option("--layers", a->layers,
                  "Extra raster layers for the viewer: 'masks' writes the eco-masks and each species' suitability "
                  "(the river layer is written whenever the config has a river)")
      ->delimiter(',');
  cmd->add_flag("-q,--quiet", a->quiet, "Print only warnings and errors");
  addLimitOptions(cmd, a->limits);
  cmd->callback([a] { runBake(*a); });
}

}  // namespace eco::cli
