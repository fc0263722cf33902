#pragma once
// The bake: eco-masks -> multi-species Poisson sampling -> instances -> tiles on disk.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "masks/eco_masks.h"
#include "sampling/poisson.h"
#include "tileio/tile_io.h"

namespace eco {

// Sampler classes are the species sorted by layer (stable); these map between the two.
struct SpeciesOrder {
  std::vector<uint16_t> speciesOfClass;
};
SpeciesOrder speciesOrder(const BiomeConfig& config);
SamplerParams samplerParams(const World& world, const SpeciesOrder& order);
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

}  // namespace eco
