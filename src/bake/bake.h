#pragma once
// The bake stage: eco-masks -> multi-species Poisson sampling -> instances -> tiles on disk,
// and the up-front checks and estimate every bake (and `validate`) runs first. The output
// folder's ownership and lock are in core/output_dir.h.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/output_dir.h"
#include "masks/masks.h"
#include "sampling/sampling.h"
#include "tileio/tileio.h"

namespace eco {

std::vector<SpeciesRecord> speciesRecords(const BiomeConfig& config);
// Linear RGB in [0, 1] (clamped) to opaque RGBA8, R in the low byte.
uint32_t packColor(const float rgb[3]);

// Turns one tile's samples into instances: terrain height, yaw, scale, tilt and colour, all
// deterministic from the seed and the sample. Samples that fall outside their species'
// elevation band or above its maximum slope at their exact position are dropped (the sampler
// sees interpolated suitability), so those limits hold exactly.
// `terrain` is heightDerivatives(world.terrain), computed once per bake.
std::vector<Instance> makeInstances(const World& world, const SpeciesOrder& order, const HeightDerivatives& terrain,
                                    const TileSamples& tile);

struct BakeOptions {
  std::string outDir;
  int threads = 1;
  std::optional<TileRange> tiles;  // default: the whole world
  std::function<void(int done, int total)> progress;  // called under a lock, in any order
};

struct BakeSummary {
  int tilesWritten = 0;
  int tilesTotal = 0;
  uint64_t instances = 0;
  uint64_t bytes = 0;
  std::vector<uint64_t> speciesCounts;
  double seconds = 0;  // all of bake(), the sum of the phases below
  double masksSeconds = 0;    // suitability rasters
  double scatterSeconds = 0;  // sampler set-up, sampling, instances, encoding, writing tiles
  double finishSeconds = 0;   // terrain copy, manifest, flush to disk, swap
};

// Bakes into a staging folder beside outDir and swaps it in at the end, so an interrupted
// bake leaves the previous output untouched. Refuses to replace a folder that is not a bake.
BakeSummary bake(const World& world, const BakeOptions& options);

// Same as scatter + makeInstances, kept in memory (tests, tools).
std::vector<TileData> bakeInMemory(const World& world, int threads, std::optional<TileRange> tiles = {});

// ---- Before a bake ----
// Shared by `validate` and `bake` so the two cannot disagree: after the config's checks
// (config.h checkWorld), an estimate of the instances, output bytes and peak memory, refused
// above configurable limits.
struct BakeEstimate {
  double instances = 0;
  std::vector<double> speciesInstances;  // by species id
  double outputBytes = 0;
  double peakMemoryBytes = 0;
  long long tiles = 0;  // tiles in the range
};

// Instances per species from the suitability mass: the suitability (density included) of
// every species on a grid of at most kEstimateGrid^2 heightmap pixels, from the same mask
// functions the bake's rasters use, integrated over the range and divided by the packing
// area of an instance at the species' radius (calibrated on real bakes; see estimate.cpp).
// Bytes and memory are counted from the sizes of the bake's buffers. Costs well under a
// second for any config that passes the checks.
BakeEstimate estimateBake(const World& world, int threads, std::optional<TileRange> range = {});

struct BakeLimits {
  double maxInstances = 1e9;
  double maxOutputBytes = 100e9;
  double maxMemoryBytes = 0;  // 0: defaultMemoryLimit()
  bool allow = false;         // report the estimate but never refuse
};
// 3/4 of the physical memory or of the process's cgroup memory limit, whichever is smaller
// (16 GiB where neither can be read).
double defaultMemoryLimit();
// The tightest memory limit on the cgroup path named in procSelfCgroup (normally
// /proc/self/cgroup; v2 "0::/path" reads cgroupRoot/path/memory.max, v1 "N:memory:/path"
// reads cgroupRoot/memory/path/memory.limit_in_bytes), every level up to the root; 0: none.
double cgroupMemoryLimit(const std::string& procSelfCgroup, const std::string& cgroupRoot);

// One line: "about 10.9 M instances, 190 MB of output, 0.4 GB peak memory".
std::string describeEstimate(const BakeEstimate& estimate);
// "" within the limits; otherwise why the bake is refused, with the estimate, the limit and
// the flags that raise it.
std::string limitProblem(const BakeEstimate& estimate, const BakeLimits& limits);

// The output folder kind of a bake (core/output_dir.h): owned when it holds manifest.json with
// the ecobake format marker (any format_version).
OutputKind bakeOutput();

}  // namespace eco
