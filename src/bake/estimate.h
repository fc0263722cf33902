#pragma once
// What a bake is checked against before it samples anything, shared by `validate` and `bake`
// so the two cannot disagree: the sampler's parameter checks with the JSON path of the field
// at fault, checks of the loaded world, and an estimate of the instances, output bytes and
// peak memory, refused above configurable limits.
#include <optional>
#include <string>
#include <vector>

#include "bake/bake.h"

namespace eco {

// The sampler's view of a config over a world of worldX x worldZ metres.
SamplerParams samplerParams(const BiomeConfig& config, float worldX, float worldZ, const SpeciesOrder& order);

// samplerProblems() of the config's sampler parameters, each with the JSON path of the field
// at fault (/species/3/radius, /tiling/tile_size, ...). worldX / worldZ <= 0: the extent is
// not known yet (parse time) and its checks are left out.
void checkSamplingConfig(const BiomeConfig& config, float worldX, float worldZ, std::vector<ConfigProblem>& problems);

// Checks that need the loaded inputs: world extent, heights after the height mapping,
// radii against float precision at the world's extent, and checkSamplingConfig with the
// extent.
void checkWorld(const World& world, std::vector<ConfigProblem>& problems);
// checkWorld; InputError "<config>: <path>: <reason>" with the first problem.
void requireValidWorld(const World& world);

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

}  // namespace eco
