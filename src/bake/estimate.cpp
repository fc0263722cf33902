#include "bake/bake.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <mutex>
#include <thread>

#include "core/json.h"
#include "core/error.h"
#include "sampling/sampling.h"
#include "tileio/tileio.h"

namespace eco {

namespace {

namespace limits = config_limits;


// Encoded bytes per instance (tile.fbs: quantized position, yaw, scale, up, colour, species,
// plus FlatBuffers vectors): 16.06 to 16.15 on the sample worlds.
constexpr double kBytesPerInstance = 16.2;
// Per tile file: header, bounds, vtables; and per species in each tile's species table.
constexpr double kBytesPerTile = 160, kBytesPerTileSpecies = 64;
// Grid scratch per cell of a class in one tile: position (8), radius (4), occupancy bit,
// coverage or near raster (16 bits), reach and alive blocks (ClassGrid).
constexpr double kBytesPerCell = 22;
// The process itself (code, the base pool, allocator, thread stacks) and, per heightmap
// pixel, what the image decode and the terrain set-up leave resident (measured: peak RSS of
// bakes of one tile and of the whole world, 1025 x 1025 heightmaps, 4 and 7 species).
constexpr double kBaseBytes = 20e6, kLoadBytesPerPixel = 12;

std::string bytesText(double bytes) {
  char buf[32];
  if (bytes >= 1e12)
    std::snprintf(buf, sizeof buf, "%.1f TB", bytes / 1e12);
  else if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.0f MB", std::ceil(bytes / 1e6));
  return buf;
}

std::string countText(double n) {
  char buf[32];
  if (n >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3g G", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3g M", n / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.0f", n);
  return buf;
}

// The densities at which the estimate measures each class's count (aloneCounts).
constexpr std::array<float, 3> kCountDensities{1.f, 0.25f, 0.0625f};
using Counts = std::array<double, 3>;

// The sampler's count of class `cls` alone (aloneCountPerArea) at kCountDensities, over the
// density, per square metre. The count per r^2 depends only on the class's aloneShape and the
// sampler's settings, so one run per shape and density serves species alike but for their size
// (a config of clones pays for its distinct species), and the process keeps the runs: a shard
// plans its rows (tileRowWork) and then checks its estimate from the same counts.
Counts aloneCounts(const SamplerParams& params, int cls, int threads) {
  struct Key {
    SampleClass shape;
    SamplerMethod method;
    int candidates;
    bool variable;
    uint64_t seed;
    bool operator==(const Key&) const = default;
  };
  static std::mutex mutex;
  static std::vector<std::pair<Key, Counts>> known;  // per r^2
  const double r = double(params.classes[size_t(cls)].radius);
  Counts perArea{};
  if (!(r > 0)) return perArea;
  const Key key{aloneShape(params.classes[size_t(cls)]), params.method, params.candidates, params.variableRadius,
                params.seed};
  std::lock_guard lock(mutex);
  auto it = std::find_if(known.begin(), known.end(), [&key](const auto& e) { return e.first == key; });
  if (it == known.end()) {
    Counts perR2{};
    for (size_t i = 0; i < perR2.size(); ++i) {
      const float d = kCountDensities[i];
      perR2[i] = aloneCountPerArea(params, cls, d, threads) / double(d) * r * r;
    }
    it = known.insert(known.end(), {key, perR2});
  }
  for (size_t i = 0; i < perArea.size(); ++i) perArea[i] = it->second[i] / (r * r);
  return perArea;
}

// Instances per square metre each species is expected to reach at a point: its
// suitability (density included) times its packing at its radius, times the ground the
// classes placed before it leave free. Classes are placed in layer order and each keeps
// footprint_a + footprint_b away from the instances already placed, so a class sees the ground
// its predecessors left free: with n_t instances per square metre of class t, a fraction
// exp(-sum_t n_t pi (f_t + f_s)^2) (a Boolean model of discs), expanded into three running
// sums so a point costs O(species).
class PointDensity {
 public:
  PointDensity(const World& world, const SpeciesOrder& order, int threads) : world_(world), order_(order) {
    const BiomeConfig& c = world.config;
    perArea_.resize(c.species.size());
    const bool variable = c.densityMode == DensityMode::VariableRadius;
    under_.assign(c.species.size(), 1.0);
    open_.assign(c.species.size(), 1.0);
    crownArea_.assign(c.species.size(), 0.0);
    const SamplerParams params = samplerParams(world, order);
    for (size_t cls = 0; cls < order.speciesOfClass.size(); ++cls)
      perArea_[order.speciesOfClass[cls]] = aloneCounts(params, int(cls), threads);
    for (size_t s = 0; s < c.species.size(); ++s) {
      const SpeciesConfig& sp = c.species[s];
      const SampleClass k = sampleClass(sp, variable);
      // As the sampler: a class answers the canopy only where some class lies below it.
      const bool below = std::any_of(c.species.begin(), c.species.end(), [&](const SpeciesConfig& o) { return o.layer < sp.layer; });
      if (sp.pattern.style == PatternStyle::Natural && below) under_[s] = double(k.underCrown), open_[s] = double(k.inOpen);
      // Mean crown area: radius uniform in [crownLo, crownHi] (the size draw).
      const double lo = double(k.crownLo), span = double(k.crownHi - k.crownLo);
      crownArea_[s] = 3.14159265358979 * (lo * lo + lo * span + span * span / 3.0);
      // A clumped class blocks less ground than the same count spread at random: its discs
      // overlap inside the clumps. Its weight in the blocking sums is what a two-density
      // mixture (share c at n / (c + (1 - c) b), the rest at b times that) blocks, over what
      // n at random blocks, for a disc of twice its footprint at full suitability.
      blocking_.push_back(1.0);
      if (k.clumps.active()) {
        const double share = double(k.clumps.share), b = double(k.between), n = perArea_[s][0];
        const double a = 3.14159265358979 * 4.0 * double(sp.footprint) * double(sp.footprint);
        const double inside = n / (share + (1 - share) * b), outside = b * inside;
        if (n * a > 0) blocking_.back() = -std::log(share * std::exp(-inside * a) + (1 - share) * std::exp(-outside * a)) / (n * a);
      }
    }
  }
  // Adds each species' density at (x, z) to sum[species id]; returns their total.
  double add(float x, float z, double* sum) const {
    if (world_.terrain.noDataAt(x, z)) return 0;  // nothing grows at a nodata hole
    const Environment env = environmentAt(world_, x, z);
    double n0 = 0, n1 = 0, n2 = 0;  // sum over placed classes of n_t, n_t f_t, n_t f_t^2
    // Crowns of the woody classes of lower layers (the canopy a class answers): a Boolean
    // model's cover 1 - exp(-sum n_t pi crown_t^2), committed when the layer changes.
    double crowns = 0, crownsBelow = 0;
    int layer = -1;
    for (uint16_t s : order_.speciesOfClass) {
      const SpeciesConfig& sp = world_.config.species[s];
      if (sp.layer != layer) crownsBelow = crowns, layer = sp.layer;
      double suitability = double(speciesWeights(sp, env).suitability);
      // Painted maps and vector exclusions, as the bake applies them (only when given).
      if (suitability > 0 && world_.hasPaintedMaps(s)) suitability *= double(world_.paintedFactor(s, x, z));
      if (suitability > 0 && world_.shapes.excludes(s, double(x), double(z))) suitability = 0;
      if (suitability > 0 && !sp.growsInWater && world_.inWater(x, z)) suitability = 0;
      if (!(suitability > 0)) continue;
      const double f = double(sp.footprint);
      const double free = std::exp(-3.14159265358979 * (n2 + 2.0 * f * n1 + f * f * n0));
      double n = perAreaAt(s, suitability) * suitability * free;
      if (under_[s] != 1.0 || open_[s] != 1.0) {
        const double cover = 1.0 - std::exp(-crownsBelow);
        n *= cover * under_[s] + (1.0 - cover) * open_[s];
      }
      crowns += n * crownArea_[s];
      if (sum) sum[s] += n;
      const double blocks = n * blocking_[s];
      n0 += blocks, n1 += blocks * f, n2 += blocks * f * f;
    }
    return n0;
  }

 private:
  const World& world_;
  const SpeciesOrder& order_;
  std::vector<Counts> perArea_;  // aloneCounts by species id
  // perArea_ at suitability d: linear in log d between the measured densities, the end values
  // beyond them.
  double perAreaAt(size_t s, double d) const {
    const Counts& c = perArea_[s];
    const double t = std::clamp(-0.5 * std::log2(d), 0.0, 2.0);  // 0 at 1, 1 at 1/4, 2 at 1/16
    return t < 1.0 ? c[0] + (c[1] - c[0]) * t : c[1] + (c[2] - c[1]) * (t - 1.0);
  }
  std::vector<double> under_, open_, crownArea_;  // canopy response and crown area by species id
  std::vector<double> blocking_;                  // weight in the blocking sums (clumps overlap)
};

}  // namespace

BakeEstimate estimateBake(const World& world, int threads, std::optional<TileRange> range) {
  const BiomeConfig& c = world.config;
  const Heightmap& t = world.terrain;
  const SpeciesOrder order = speciesOrder(c);
  const SamplerParams p = samplerParams(world, order);
  const TileRange r = range.value_or(TileRange{0, 0, tilesX(p), tilesZ(p)});
  const size_t nSpecies = c.species.size();
  BakeEstimate e;
  e.tiles = static_cast<long long>(r.x1 - r.x0) * static_cast<long long>(r.z1 - r.z0);
  const double x0 = double(r.x0) * double(p.tileSize), z0 = double(r.z0) * double(p.tileSize);
  const double x1 = std::min(double(r.x1) * double(p.tileSize), double(p.worldX));
  const double z1 = std::min(double(r.z1) * double(p.tileSize), double(p.worldZ));
  const double area = std::max(0.0, x1 - x0) * std::max(0.0, z1 - z0);

  // Mean suitability of each species over a grid of pixels inside the range: the raster's
  // values there, from the same functions (speciesWeights multiplies the same factors).
  const int W = t.metres.width, H = t.metres.height;
  constexpr int kEstimateGrid = 512;
  const int stride = std::max(1, (std::max(W, H) + kEstimateGrid - 1) / kEstimateGrid);
  threads = std::clamp(threads, 1, 64);
  std::vector<std::vector<double>> sums(size_t(threads), std::vector<double>(nSpecies, 0.0));
  std::vector<long long> counts(size_t(threads), 0);
  const PointDensity density(world, order, threads);
  auto rows = [&](int first) {
    std::vector<double>& sum = sums[size_t(first)];
    for (int j = first * stride; j < H; j += threads * stride)
      for (int i = 0; i < W; i += stride) {
        const float x = float(i) * t.cellSize, z = float(j) * t.cellSize;
        if (double(x) < x0 || double(x) > x1 || double(z) < z0 || double(z) > z1) continue;
        ++counts[size_t(first)];
        density.add(x, z, sum.data());
      }
  };
  {
    std::vector<std::jthread> pool;
    for (int k = 1; k < threads; ++k) pool.emplace_back(rows, k);
    rows(0);
  }
  long long samples = 0;
  for (long long n : counts) samples += n;
  e.speciesInstances.assign(nSpecies, 0.0);
  for (size_t s = 0; s < nSpecies; ++s) {
    double sum = 0;
    for (const std::vector<double>& part : sums) sum += part[s];
    e.speciesInstances[s] = samples ? sum / double(samples) * area : 0.0;
    e.instances += e.speciesInstances[s];
  }

  // Output: tiles (at most one file per tile in the range, never more files than instances),
  // the terrain copy and the manifest.
  const double tileFiles = std::min(double(e.tiles), std::ceil(e.instances));
  const double pixels = double(W) * double(H);
  e.outputBytes = e.instances * kBytesPerInstance +
                  tileFiles * (kBytesPerTile + kBytesPerTileSpecies * double(nSpecies)) + pixels * 4.0 +
                  tileFiles * (160.0 + 12.0 * double(nSpecies)) + 300.0 * double(nSpecies);

  // Memory: the world (heights, river distances), the derivatives (gradient and slope tangent
  // per pixel), the suitability field (SuitabilityField::bytes), the per-class pools, per
  // worker the class grids of one tile and its instances, the tile rows the schedule holds,
  // and the manifest's tile entries.
  const double riverPixels = double(world.river.metres.values.size());
  double memory = kBaseBytes + pixels * (kLoadBytesPerPixel + 2.0 * sizeof(float) + sizeof(Vec2)) + riverPixels * 2.0 * sizeof(float) +
                  SuitabilityField::bytes(size_t(nSpecies), pixels);
  // The inputs from terrain tools: painted maps, the nodata mask, the vector exclusions.
  for (const PaintedMap& m : world.maps) memory += double(m.values.values.size()) * sizeof(float);
  memory += double(t.noData.size());
  const ExclusionShapes& shapes = world.shapes;
  memory += double(shapes.segments.size()) * sizeof(ExclusionShapes::Segment) +
            double(shapes.segmentIds.size() + shapes.segmentStart.size() + shapes.polygonIds.size() +
                   shapes.polygonStart.size()) * sizeof(uint32_t);
  for (const ExclusionShapes::Polygon& poly : shapes.polygons)
    memory += double(poly.edges.size()) * sizeof(ExclusionShapes::Edge) +
              double(poly.bandEdges.size() + poly.bandStart.size()) * sizeof(uint32_t);
  const SamplerMemoryModel sampler = samplerMemoryModel(int(p.classes.size()));
  const double poolBytes = sampler.poolBytes;
  // A class's margin: its largest radius and pair distance (makeSetup's margin).
  std::vector<double> margin(p.classes.size());
  for (size_t cls = 0; cls < p.classes.size(); ++cls) {
    float m = p.variableRadius ? p.classes[cls].maxRadius : p.classes[cls].radius;
    for (size_t d = 0; d < p.classes.size(); ++d) m = std::max(m, pairDistance(p, int(cls), int(d)));
    margin[cls] = double(m);
  }
  double gridBytes = 0;
  for (size_t cls = 0; cls < p.classes.size(); ++cls) {
    const SampleClass& sc = p.classes[cls];
    const double ratio = p.variableRadius ? double(sc.maxRadius) / double(sc.radius) : 1.0;
    if (p.method == SamplerMethod::Pool && ratio <= double(sampler.poolMaxRatio)) memory += poolBytes;
    const double side = (double(p.tileSize) + 2.0 * margin[cls]) / (double(sc.radius) / std::sqrt(2.0)) + 8.0;
    gridBytes += side * side * kBytesPerCell;
  }
  // A tile's instances: twice the mean of the tiles that have any (suitability is uneven).
  const double perTile = tileFiles > 0 ? 2.0 * e.instances / tileFiles : 0.0;
  const double perTileBytes = perTile * (sizeof(Sample) + sizeof(Instance) + kBytesPerInstance);
  const int workers = threads;
  memory += double(workers) * (gridBytes + perTileBytes);
  // The samples of the rows the schedule holds (samplerMemoryModel): whole tiles, kept until
  // every unit of their neighbourhood has read them.
  const double heldRows = std::min(double(sampler.windowRows), double(r.z1 - r.z0 + 2));
  memory += heldRows * double(r.x1 - r.x0 + 6) * perTile * 0.5 * sampler.bytesPerHeldSample;
  memory += tileFiles * (sizeof(TileEntry) + 32.0 + 8.0 * double(nSpecies));
  e.peakMemoryBytes = memory;
  return e;
}

std::vector<double> tileRowWork(const World& world, int threads) {
  // Points per row: kRowColumns across the world by kRowLines along the row, at fixed
  // fractions of the extent, so the sum is the same on every machine.
  constexpr int kRowColumns = 512, kRowLines = 4;
  // A tile costs about this many instances' time even when empty (sampler set-up per class,
  // margins, the schedule): a tile of ocean is not free.
  constexpr double kTileWork = 1000;
  const SpeciesOrder order = speciesOrder(world.config);
  const SamplerParams p = samplerParams(world, order);
  const PointDensity density(world, order, threads);
  const int rows = tilesZ(p), columns = tilesX(p);
  std::vector<double> work(size_t(rows), 0.0);
  auto rowWork = [&](int r) {
    const double z0 = double(r) * double(p.tileSize);
    const double z1 = std::min(double(r + 1) * double(p.tileSize), double(p.worldZ));
    double sum = 0;
    for (int k = 0; k < kRowLines; ++k)
      for (int i = 0; i < kRowColumns; ++i) {
        const double x = (double(i) + 0.5) * double(p.worldX) / kRowColumns;
        const double z = z0 + (double(k) + 0.5) * (z1 - z0) / kRowLines;
        sum += density.add(float(x), float(z), nullptr);
      }
    const double area = double(p.worldX) * std::max(0.0, z1 - z0);
    work[size_t(r)] = sum / (kRowColumns * kRowLines) * area + kTileWork * double(columns);
  };
  threads = std::clamp(threads, 1, 64);
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int r = next++; r < rows; r = next++) rowWork(r);
  };
  {
    std::vector<std::jthread> pool;
    for (int k = 1; k < threads; ++k) pool.emplace_back(worker);
    worker();
  }
  return work;
}

// The tightest memory limit of this process's control groups (v2 memory.max, v1
// memory.limit_in_bytes, each level up to the root), 0 where there is none: in a container or
// a batch job the cgroup, not the machine, decides when the kernel kills a bake.
double cgroupMemoryLimit(const std::string& procSelfCgroup, const std::string& cgroupRoot) {
  std::ifstream in(procSelfCgroup);
  double limit = 0;
  auto consider = [&limit](const std::string& file) {
    std::ifstream f(file);
    std::string text;
    if (!(f >> text) || text == "max") return;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    // cgroup v1 writes "no limit" as a page-rounded 2^63 - 1.
    if (end != text.c_str() && v > 0 && v < 4e18 && (limit == 0 || v < limit)) limit = v;
  };
  for (std::string line; std::getline(in, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path", v1's memory line names "memory".
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string base, file;
    if (controllers.empty()) {
      base = cgroupRoot, file = "memory.max";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      base = cgroupRoot + "/memory", file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    for (std::filesystem::path path = line.substr(b + 1);; path = path.parent_path()) {
      consider(base + (path.string() == "/" ? std::string() : path.string()) + "/" + file);
      if (path.empty() || path == path.parent_path()) break;
    }
  }
  return limit;
}

namespace {

double physicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? double(pages) * double(pageSize) : 0.0;
}

}  // namespace

double defaultMemoryLimit() {
  double memory = physicalMemory();
  if (const double cgroup = cgroupMemoryLimit("/proc/self/cgroup", "/sys/fs/cgroup"); cgroup > 0 && (memory <= 0 || cgroup < memory)) memory = cgroup;
  return memory > 0 ? 0.75 * memory : 16.0 * 1024 * 1024 * 1024;
}

std::string describeEstimate(const BakeEstimate& e) {
  return "about " + countText(e.instances) + " instances in " + std::to_string(e.tiles) + " tiles, " +
         bytesText(e.outputBytes) + " of output, " + bytesText(e.peakMemoryBytes) + " peak memory";
}

std::string limitProblem(const BakeEstimate& e, const BakeLimits& limits) {
  if (limits.allow) return {};
  const double maxMemory = limits.maxMemoryBytes > 0 ? limits.maxMemoryBytes : defaultMemoryLimit();
  std::string over;
  if (!(e.instances <= limits.maxInstances))
    over = countText(e.instances) + " instances exceed the limit of " + countText(limits.maxInstances) +
           " (--max-instances)";
  else if (!(e.outputBytes <= limits.maxOutputBytes))
    over = bytesText(e.outputBytes) + " of output exceed the limit of " + bytesText(limits.maxOutputBytes) +
           " (--max-output)";
  else if (!(e.peakMemoryBytes <= maxMemory))
    over = bytesText(e.peakMemoryBytes) + " of memory exceed the limit of " + bytesText(maxMemory) + " (--max-memory)";
  if (over.empty()) return {};
  return "the bake would make " + describeEstimate(e) + ": " + over +
         "; check the species' radius and density, bake a part with --tiles/--region, raise the limit, or pass "
         "--allow-large";
}

}  // namespace eco
