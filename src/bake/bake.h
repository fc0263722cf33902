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
// The same with what the loaded mesh files add: each file's normalised GLB name
// (bakeMeshFile), size and checksum, and the bounding sphere of the real mesh.
std::vector<SpeciesRecord> speciesRecords(const World& world);
// "meshes/<species id>.glb": where a bake stores a species' mesh file (meshes/meshes.h writeGlb).
std::string bakeMeshFile(size_t species);
// Linear RGB in [0, 1] (clamped) to opaque RGBA8, R in the low byte.
uint32_t packColor(const float rgb[3]);

// Turns one tile's samples into instances: terrain height, yaw, scale, tilt and colour, all
// deterministic from the seed and the sample. Samples that fall outside their species'
// elevation band or above its maximum slope at their exact position are dropped (the sampler
// sees interpolated suitability), so those limits hold exactly.
// `terrain` is heightDerivatives(world.terrain), computed once per bake.
std::vector<Instance> makeInstances(const World& world, const SpeciesOrder& order, const HeightDerivatives& terrain,
                                    const TileSamples& tile);

// ---- Sharded bakes: one world split across processes or machines, merged to the same bytes ----

// Worker `index` (1-based) of `count`.
struct ShardSpec {
  int index = 1, count = 1;
};
// The most shards a bake is split into (and the largest index an environment may give).
constexpr int kMaxShards = 1 << 20;
// "I/N" with 1 <= I <= N <= kMaxShards, decimal digits only; InputError naming `option` and
// the text otherwise ("0/3", "4/3", "1/0", "a/b", "1/99999999999").
ShardSpec parseShardSpec(const std::string& text, const std::string& option = "--shard");
// The shard a batch system gives this worker, from its environment (env(name): the variable's
// value or nullptr):
//   Kubernetes Indexed Job   JOB_COMPLETION_INDEX (0-based); the count from `count`, else
//                            ECOBAKE_SHARD_COUNT
//   Slurm job array          SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT; the ids start at
//                            SLURM_ARRAY_TASK_MIN (1 when unset) and step by
//                            SLURM_ARRAY_TASK_STEP (1 when unset)
//   AWS Batch array job      AWS_BATCH_JOB_ARRAY_INDEX (0-based); the count as for Kubernetes
// `count` (from the command line) overrides any count from the environment. Exactly one of
// the index variables must be set. InputError naming the variable and its value when it is
// missing, not a number, out of range or ambiguous. `source` (may be null) receives a short
// description ("SLURM_ARRAY_TASK_ID=4").
ShardSpec shardFromEnvironment(const std::function<const char*(const char*)>& env, std::optional<int> count,
                               std::string* source = nullptr);

// Estimated work of each tile row (z) of the world: the instances the estimate's suitability
// mass expects in the row, plus a fixed cost per tile. Sampled at points that depend only on
// the world's extent and tiling, each row summed in a fixed order, so it depends only on the
// config and inputs (never on threads or the machine's core count).
std::vector<double> tileRowWork(const World& world, int threads);
// Splits rows 0..work.size()-1 into `count` contiguous non-empty bands of about equal work:
// band k ends where the running sum first reaches k/count of the total (or the nearer row
// before it). Returns count + 1 boundaries, first 0 and last the row count. InputError when
// there are fewer rows than shards.
std::vector<int> splitRows(const std::vector<double>& work, int count);

// The tiles one shard bakes: a band of whole tile rows from splitRows(tileRowWork(world)).
struct ShardRange {
  ShardSpec spec;
  TileRange tiles;
};
ShardRange planShard(const World& world, ShardSpec spec, int threads);

// ---- Raster layers for the viewer (tileio.h LayerEntry, docs/tile-format.md "Layers") ----

struct BakeLayer {
  LayerEntry entry;            // as the manifest lists it, checksum included
  std::vector<uint8_t> bytes;  // the file's bytes
};
// The river layer's range ends here (values beyond read as this): a 16-bit step of at most
// 0.25 m at the water's edge for any world.
inline constexpr float kRiverLayerMaxDistance = 16384.f;
// The water rule of the river layer: water where the distance to the nearest river pixel is
// at most this: half the config's river.channel_width, else half a river image cell (the
// river's own pixels).
float waterDistance(const World& world);
// The layers of a bake, from the whole world (so the same for any tile range, shard or
// thread count): "river_distance" (unorm16 metres) when the world has a river; with `masks`
// also the eco-masks "elevation" (m), "slope" (deg), "aspect" (deg), "sun_exposure" [-1, 1],
// "moisture" [0, 1] and "suitability_<species>" [0, 1] for each species (rasters: the bake's
// suitability), unorm8. Each at the heightmap's pixels, from the masks' per-pixel functions.
// Hands each layer to `write` as soon as it is done (the bake writes it and drops the bytes),
// so that the bake never holds more than the five masks' codes (5 bytes per pixel).
void bakeLayers(const World& world, const SuitabilityField& suitability, bool masks, int threads,
                const std::function<void(BakeLayer&&)>& write);

struct BakeOptions {
  std::string outDir;
  int threads = 1;
  std::optional<TileRange> tiles;  // default: the whole world
  // Bake one shard: its tiles (shard->tiles; `tiles` is ignored) and a part manifest
  // (tileio.h ManifestPart) instead of a bake's; only part 1 writes terrain.r32f. The part
  // folder follows the output folder rules of a bake, so a retried shard replaces its part.
  std::optional<ShardRange> shard;
  std::function<void(int done, int total)> progress;  // called under a lock, in any order
  // `--layers masks`: write the eco-mask and suitability layers (bakeLayers) besides the river
  // layer every bake of a world with a river writes.
  bool maskLayers = false;
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
  double layersSeconds = 0;   // computing and writing the raster layers (0 without any)
  int layers = 0;             // raster layers written
  uint64_t layerBytes = 0;
};

// Bakes into a staging folder beside outDir and swaps it in at the end, so an interrupted
// bake leaves the previous output untouched. Refuses to replace a folder that is not a bake.
BakeSummary bake(const World& world, const BakeOptions& options);

// ---- Merging the parts of a sharded bake ----

// The part folders that `inputs` name: each input is a part folder (its manifest.json is a
// part's) or a folder of part folders (its subfolders holding a manifest.json, one level deep,
// sorted by name; bake staging folders beside them are skipped). InputError naming the input
// when it is missing, not a folder, a whole bake, or a folder with no parts in it.
std::vector<std::string> findPartFolders(const std::vector<std::string>& inputs);

struct MergeOptions {
  std::string outDir;
  // Hard-link the terrain and tiles into the output instead of copying them, where the parts
  // and the output share a file system (else they are copied): no data is read or written,
  // and only each file's size is checked against its part's manifest (readers check the
  // checksums). Safe because no ecobake writes into an existing file: a retried shard or a
  // later merge replaces folders whole, which only unlinks.
  bool link = false;
  std::function<void(int done, int total)> progress;  // tiles placed
};
struct MergeSummary {
  int parts = 0;
  int tiles = 0;
  int linked = 0;  // files hard-linked (with MergeOptions::link), the rest copied
  int files = 0;   // files placed: the terrain, the tiles, the species' mesh files and the layers
  uint64_t instances = 0;
  uint64_t bytes = 0;  // tile bytes
  double seconds = 0;
};
// Merges the parts of one sharded bake into outDir: the same bytes, file for file, as the
// bake in one process. Checks, before creating anything, that every part is readable and
// from the same bake (tool version, name, seed, world, terrain, tiling, species, input hashes
// and shard count), that no index is given twice, and that the parts' rows are disjoint and
// cover the world; then copies every tile (size and checksum checked against its part's
// manifest on the way) and part 1's terrain (checked against the checksum every part records),
// and writes the manifest. The output folder follows the bake's rules (output_dir.h), and may
// not be or lie inside a part, nor contain one. InputError naming the offending part folder.
MergeSummary mergeParts(const std::vector<std::string>& parts, const MergeOptions& options);

// Same as scatter + makeInstances, kept in memory (tests, tools).
std::vector<TileData> bakeInMemory(const World& world, int threads, std::optional<TileRange> tiles = {});

// Why the bake whose manifest is `m` is not a bake of `world` ("" when it is): the hashes of the
// config, heightmap, river and every other input, the seed, the tiling and the species, against
// what bake() records for this world. For readers that draw a bake over the config's own data
// (ecobake masks --bake).
std::string bakeMismatch(const World& world, const Manifest& m);

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
