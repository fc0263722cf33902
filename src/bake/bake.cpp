#include "bake/bake.h"

#include <sstream>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>

#include "core/output_dir.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "tileio/tileio.h"

namespace eco {

namespace fs = std::filesystem;

namespace {

class SuitabilityDensity final : public DensityField {
 public:
  SuitabilityDensity(const World& world, const SuitabilityField& field, const SpeciesOrder& order)
      : world_(world), field_(field), order_(order) {
    for (uint16_t s : order.speciesOfClass) dry_.push_back(world.hasRiver && !world.config.species[s].growsInWater);
  }
  // Water is not ground: the river layer's rule at the exact position (makeInstances checks
  // the same function, so no instance is dropped there).
  bool excluded(int cls, float x, float z) const override { return dry_[size_t(cls)] && world_.inWater(x, z); }
  float density(int cls, float x, float z) const override { return field_.at(speciesOf(cls), x, z); }
  float maxDensity(int cls, float x0, float z0, float x1, float z1) const override {
    return field_.maxIn(speciesOf(cls), x0, z0, x1, z1);
  }
  // The species' raster where the field holds it; else the pixels under the rectangle, in
  // whole blocks (so every bound under it finds its pixels), a block whose max is 0 as zeros
  // without a look. Bounds from the field's blocks.
  bool window(int cls, float x0, float z0, float x1, float z1, DensityWindow& w) const override {
    constexpr int K = SuitabilityField::kBlockLevel;
    const int s = speciesOf(cls);
    w.shape = field_.shape();
    w.blockLevel = K;
    w.blocksX = field_.blocksX();
    w.blocksZ = field_.blocksZ();
    w.blocks = field_.blocks(s);
    if (const float* raster = field_.raster(s)) {
      w.i0 = 0, w.j0 = 0, w.i1 = w.shape.width, w.j1 = w.shape.height;
      w.pixels = raster;
      w.stride = w.shape.width;
      return true;
    }
    const PyramidSpan top = pyramidSpan(x0, z0, x1, z1, w.shape);
    const int bi0 = top.i0 >> K, bi1 = (top.i1 >> K) + 1, bj0 = top.j0 >> K, bj1 = (top.j1 >> K) + 1;
    w.i0 = bi0 << K, w.j0 = bj0 << K;
    w.i1 = std::min(bi1 << K, w.shape.width), w.j1 = std::min(bj1 << K, w.shape.height);
    w.stride = w.i1 - w.i0;
    w.storage.assign(size_t(w.stride) * size_t(w.j1 - w.j0), 0.f);
    w.pixels = w.storage.data();
    for (int bj = bj0; bj < bj1; ++bj)
      for (int bi = bi0; bi < bi1; ++bi) {
        if (!(field_.blockMax(s, bi, bj) > 0.f)) continue;  // suitability is never negative
        const int i0 = bi << K, j0 = bj << K;
        const int i1 = std::min(i0 + (1 << K), w.i1), j1 = std::min(j0 + (1 << K), w.j1);
        for (int j = j0; j < j1; ++j)
          field_.fill(s, i0, j, i1, j + 1, &w.storage[size_t(j - w.j0) * size_t(w.stride) + size_t(i0 - w.i0)]);
      }
    return true;
  }

 private:
  int speciesOf(int cls) const { return order_.speciesOfClass[size_t(cls)]; }
  const World& world_;
  const SuitabilityField& field_;
  const SpeciesOrder& order_;
  std::vector<uint8_t> dry_;  // per class: keeps out of the water
};

TileData makeTile(const World& world, const SpeciesOrder& order, const HeightDerivatives& terrain,
                  const std::vector<SpeciesRecord>& species, const TileSamples& samples) {
  TileData tile;
  tile.tileX = samples.tx;
  tile.tileZ = samples.tz;
  tile.tileSize = world.config.tileSize;
  tile.species = species;
  tile.instances = makeInstances(world, order, terrain, samples);
  return tile;
}

std::string hashOf(const std::string& path) { return path.empty() ? std::string() : hex64(checksum64File(path)); }

Manifest baseManifest(const World& world, const SamplerParams& params, std::vector<SpeciesRecord> species) {
  Manifest m;
  m.name = world.config.name;
  m.seed = world.config.seed;
  const Grid& h = world.terrain.metres;
  auto [lo, hi] = std::minmax_element(h.values.begin(), h.values.end());
  m.world = {world.terrain.extentX(), world.terrain.extentZ(), *lo, *hi};
  m.terrain.width = h.width;
  m.terrain.height = h.height;
  m.terrain.cellSize = world.terrain.cellSize;
  m.tiling = {params.tileSize, tilesX(params), tilesZ(params)};
  m.species = std::move(species);
  m.crs = world.crs;
  m.sunAzimuthDeg = world.config.sunAzimuthDeg;
  m.sunElevationDeg = world.config.sunElevationDeg;
  m.ground = world.config.ground;
  m.hashes.config = hashOf(world.config.configPath);
  m.hashes.heightmap = hashOf(world.config.terrain.heightmap);
  m.hashes.river = hashOf(world.config.river.file);
  for (const auto& [pointer, file] : world.extraInputs) m.inputHashes.emplace_back(pointer, hashOf(file));
  return m;
}

}  // namespace

std::string bakeMismatch(const World& world, const Manifest& m) {
  const SpeciesOrder order = speciesOrder(world.config);
  const Manifest want = baseManifest(world, samplerParams(world, order), speciesRecords(world));
  auto differs = [](const std::string& what, const auto& bake, const auto& config) {
    std::ostringstream text;
    text << what << " " << bake << " (the bake) vs " << config << " (the config)";
    return text.str();
  };
  if (m.hashes.config != want.hashes.config) return differs("config hash", m.hashes.config, want.hashes.config);
  if (m.hashes.heightmap != want.hashes.heightmap)
    return differs("heightmap hash", m.hashes.heightmap, want.hashes.heightmap);
  if (m.hashes.river != want.hashes.river)
    return differs("river hash", m.hashes.river.empty() ? "(none)" : m.hashes.river,
                   want.hashes.river.empty() ? "(none)" : want.hashes.river);
  if (m.inputHashes != want.inputHashes) {
    for (const std::pair<std::string, std::string>& input : want.inputHashes) {
      auto it = std::find_if(m.inputHashes.begin(), m.inputHashes.end(),
                             [&input](const auto& e) { return e.first == input.first; });
      if (it == m.inputHashes.end()) return "the bake has no input " + input.first;
      if (it->second != input.second) return differs("input " + input.first + " hash", it->second, input.second);
    }
    return "the bake has inputs the config does not";
  }
  if (m.seed != want.seed) return differs("seed", m.seed, want.seed);
  if (m.tiling.tileSize != want.tiling.tileSize || m.tiling.tilesX != want.tiling.tilesX ||
      m.tiling.tilesZ != want.tiling.tilesZ)
    return differs("tiling", std::to_string(m.tiling.tilesX) + "x" + std::to_string(m.tiling.tilesZ) + " of " +
                                 std::to_string(m.tiling.tileSize) + " m",
                   std::to_string(want.tiling.tilesX) + "x" + std::to_string(want.tiling.tilesZ) + " of " +
                       std::to_string(want.tiling.tileSize) + " m");
  if (m.species.size() != want.species.size()) return differs("species count", m.species.size(), want.species.size());
  for (size_t i = 0; i < m.species.size(); ++i)
    if (m.species[i].name != want.species[i].name || m.species[i].kind != want.species[i].kind)
      return differs("species " + std::to_string(i), m.species[i].name, want.species[i].name);
  return "";
}

std::vector<TileData> bakeInMemory(const World& world, int threads, std::optional<TileRange> tiles) {
  SpeciesOrder order = speciesOrder(world.config);
  SamplerParams params = samplerParams(world, order);
  const SuitabilityField suitability(world, threads);
  SuitabilityDensity density(world, suitability, order);
  const HeightDerivatives terrain = heightDerivatives(world.terrain);
  std::vector<SpeciesRecord> species = speciesRecords(world);
  TileRange range = tiles.value_or(TileRange{0, 0, tilesX(params), tilesZ(params)});

  std::mutex mutex;
  std::vector<TileData> out;
  scatter(params, &density, range, threads, [&](TileSamples&& samples) {
    TileData tile = makeTile(world, order, terrain, species, samples);
    std::lock_guard lock(mutex);
    out.push_back(std::move(tile));
  });
  std::sort(out.begin(), out.end(), [](const TileData& a, const TileData& b) {
    return std::tie(a.tileZ, a.tileX) < std::tie(b.tileZ, b.tileX);
  });
  return out;
}

BakeSummary bake(const World& world, const BakeOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  StagedDir out(options.outDir, bakeOutput());

  SpeciesOrder order = speciesOrder(world.config);
  SamplerParams params = samplerParams(world, order);
  TileRange range = options.shard ? options.shard->tiles
                                  : options.tiles.value_or(TileRange{0, 0, tilesX(params), tilesZ(params)});
  // A shard's sampler reads the rasters only around its band: the band, the tile rows its
  // classes' units reach (unitReachRows) and their margin (under a tile), so only those rows
  // are computed unless mask layers, which cover the world, are written.
  std::optional<std::array<int, 2>> rows;
  if (options.shard && !options.maskLayers) {
    const int halo = unitReachRows(int(params.classes.size())) + 1;
    const double pixelsPerTile = double(params.tileSize) / double(world.terrain.cellSize);
    rows = std::array<int, 2>{int(std::floor(double(range.z0 - halo) * pixelsPerTile)) - 2,
                              int(std::ceil(double(range.z1 + halo) * pixelsPerTile)) + 2};
  }
  const SuitabilityField suitability(world, options.threads, rows);
  SuitabilityDensity density(world, suitability, order);
  const HeightDerivatives terrain = heightDerivatives(world.terrain);
  Manifest manifest = baseManifest(world, params, speciesRecords(world));
  if (options.shard) {
    const Grid& heights = world.terrain.metres;
    ManifestPart part;
    part.index = options.shard->spec.index;
    part.count = options.shard->spec.count;
    part.firstRow = range.z0;
    part.lastRow = range.z1 - 1;
    part.hasTerrain = part.index == 1;
    part.terrainChecksum = checksum64({reinterpret_cast<const uint8_t*>(heights.values.data()),
                                       heights.values.size() * sizeof(float)});
    manifest.part = part;
  }
  int total = (range.x1 - range.x0) * (range.z1 - range.z0);
  BakeSummary s;
  s.masksSeconds = since(start);

  // Layers come from the whole world, so every part of a sharded bake lists the same ones
  // (merge compares them) and part 1 writes the files, like the terrain.
  const Clock::time_point layersStart = Clock::now();
  bakeLayers(world, suitability, options.maskLayers, options.threads, [&](BakeLayer&& layer) {
    if (!manifest.part || manifest.part->hasTerrain) {
      std::filesystem::create_directories((std::filesystem::path(out.staging) / layer.entry.file).parent_path());
      writeFilePlain(out.staging + "/" + layer.entry.file, layer.bytes.data(), layer.bytes.size());
    }
    ++s.layers;
    s.layerBytes += layer.bytes.size();
    manifest.layers.push_back(std::move(layer.entry));
  });
  s.layersSeconds = since(layersStart);

  const Clock::time_point scatterStart = Clock::now();
  std::mutex mutex;
  int done = 0;
  // Tiles are encoded and written as soon as the sampler finishes them; only the manifest
  // entries stay in memory.
  scatter(params, &density, range, options.threads, [&](TileSamples&& samples) {
    TileData tile = makeTile(world, order, terrain, manifest.species, samples);
    TileEntry entry;
    if (!tile.instances.empty()) {
      std::vector<uint8_t> bytes = encodeTile(tile);
      entry.x = tile.tileX;
      entry.z = tile.tileZ;
      entry.file = tileFileName(tile.tileX, tile.tileZ);
      entry.instances = tile.instances.size();
      entry.bytes = bytes.size();
      entry.checksum = checksum64(bytes);
      entry.speciesCounts.assign(manifest.species.size(), 0);
      for (const Instance& inst : tile.instances) ++entry.speciesCounts[inst.species];
      // Straight into the private staging folder: a failed or killed bake discards it whole,
      // so a temporary name and an fsync per tile (about 1 ms each) would buy nothing.
      writeFilePlain(out.staging + "/" + entry.file, bytes.data(), bytes.size());
    }
    std::lock_guard lock(mutex);
    if (entry.instances) manifest.tiles.push_back(std::move(entry));
    ++done;
    if (options.progress) options.progress(done, total);
  });
  s.scatterSeconds = since(scatterStart);

  const Clock::time_point finishStart = Clock::now();
  if (!manifest.part || manifest.part->hasTerrain) writeTerrainRaw(out.staging, world.terrain.metres);
  // The species' mesh files, normalised (every part writes them: merge checks they agree).
  for (size_t i = 0; i < manifest.species.size(); ++i) {
    if (manifest.species[i].meshFile.empty()) continue;
    const std::vector<uint8_t> glb = writeGlb(world.meshes[i]);
    fs::create_directories(fs::path(out.staging) / "meshes");
    writeFilePlain((fs::path(out.staging) / manifest.species[i].meshFile).string(), glb.data(), glb.size());
  }
  computeTotals(manifest);
  writeManifest(out.staging, manifest);
  syncFileSystemOf(out.staging);  // every tile durable before the swap
  out.commit();
  s.finishSeconds = since(finishStart);

  s.tilesWritten = int(manifest.tiles.size());
  s.tilesTotal = total;
  s.instances = manifest.totals.instances;
  s.bytes = manifest.totals.bytes;
  s.speciesCounts = manifest.totals.speciesCounts;
  s.seconds = since(start);
  return s;
}

OutputKind bakeOutput() {
  return {"ecobake bake", "ecobake bake", "bake", "tiles",
          [](const std::string& dir, std::string* why) { return isReplaceableBake(dir, why); }};
}

}  // namespace eco
