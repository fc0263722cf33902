#include "render/scene.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <random>
#include <stdexcept>

#include "render/camera.h"
#include "core/bilinear.h"
#include "core/species_kind.h"
#include "terrain/terrain.h"

namespace eco::render {

gpu::PackedInstance gpuRecord(const PackedRecord& r, uint16_t species) {
  return {uint32_t(r.x) | uint32_t(r.z) << 16, uint32_t(r.y) | uint32_t(r.yaw) << 16,
          uint32_t(r.scale) | uint32_t(r.up) << 16, (r.color & 0xffffffu) | uint32_t(species & 0xff) << 24};
}

float SceneLayer::valueAt(float cellSize, float x, float z) const {
  if (width <= 0 || height <= 0 || data.empty() || !(cellSize > 0)) return valueMin;
  const Lerp u = lerpPixel(x / cellSize, width), v = lerpPixel(z / cellSize, height);
  const float top = value(u.i0, v.i0) + (value(u.i1, v.i0) - value(u.i0, v.i0)) * u.t;
  const float bottom = value(u.i0, v.i1) + (value(u.i1, v.i1) - value(u.i0, v.i1)) * u.t;
  return top + (bottom - top) * v.t;
}

LoadedTile makeLoadedTile(size_t tile, const std::vector<Instance>& instances, const std::vector<SpeciesRecord>& species,
                          Vec3 lo, Vec3 hi) {
  LoadedTile out;
  out.tile = tile;
  out.box = {{lo.x, lo.y, lo.z, 0}, {hi.x, hi.y, hi.z, 0}};
  out.instances.reserve(instances.size());
  for (const Instance& inst : instances) {
    if (inst.species >= species.size() || inst.species > 255)
      throw std::logic_error("makeLoadedTile: species id past the table");  // callers check input
    out.instances.push_back(gpuRecord(packRecord(inst, species[inst.species], lo, hi), inst.species));
  }
  return out;
}

SpeciesMeshSource meshSource(const SpeciesRecord& s, const std::string& bakeDir, std::string* problem) {
  SpeciesMeshSource m;
  m.form = speciesMeshForm(s);
  m.meshHeight = s.meshHeight;
  m.crownRadius = s.crownRadius;
  if (!s.meshFile.empty() && !bakeDir.empty()) {
    // the bake's copy, checked against the manifest's size and hash before it is parsed; a
    // bad one leaves the procedural mesh of the species' form, with the reason
    try {
      readMeshVerified(bakeDir, s);
      m.file = (std::filesystem::path(bakeDir) / s.meshFile).string();
    } catch (const std::exception& e) {
      if (problem) *problem = e.what();
    }
  }
  return m;
}

std::vector<gpu::GpuSpecies> gpuSpeciesTable(const std::vector<SpeciesRecord>& species) {
  std::vector<gpu::GpuSpecies> table(256, gpu::GpuSpecies{{0, 0, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 1, 0}});
  for (size_t i = 0; i < species.size() && i < table.size(); ++i) {
    const SpeciesRecord& s = species[i];
    // the sphere of the unit-space bounds (meshes/meshes.h); the renderer puts its meshes' own
    float h = s.meshHeight, r = s.crownRadius;
    table[i] = {{s.meshHeight, s.crownRadius, s.scaleMin, s.scaleMax},
                {0, 0.5f, 0, std::sqrt(0.25f * h * h + r * r)},
                {std::min<uint32_t>(s.kind, gpu::KIND_COUNT - 1), 0, 0, 0}};
  }
  return table;
}

namespace {

uint32_t rgba(int r, int g, int b) { return uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16 | 0xffu << 24; }

}  // namespace

std::vector<Instance> syntheticTileInstances(const Scene& world, uint32_t seed, size_t index) {
  const SceneTile& t = world.tiles[index];
  std::vector<Instance> out;
  out.reserve(t.instances);
  std::mt19937 rng(seed * 7919u + uint32_t(index) * 104729u);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  const uint32_t base[4] = {rgba(40, 85, 35), rgba(70, 110, 45), rgba(105, 140, 60), rgba(90, 120, 70)};
  for (uint64_t n = 0; n < t.instances; ++n) {
    Instance p;
    p.position.x = t.minX + u01(rng) * (t.maxX - t.minX);
    p.position.z = t.minZ + u01(rng) * (t.maxZ - t.minZ);
    p.position.y = sampleBilinear(world.heights, world.cellSize, p.position.x, p.position.z);
    float pick = u01(rng);
    p.species = pick < 0.08f ? 0 : pick < 0.25f ? 1 : pick < 0.75f ? 2 : 3;
    p.yaw = u01(rng) * 6.2831853f;
    p.scale = 0.8f + 0.4f * u01(rng);
    float v = 0.8f + 0.4f * u01(rng);
    uint32_t c = base[p.species];
    auto ch = [&](int shift) { return std::min(255, int(float((c >> shift) & 0xff) * v)); };
    p.color = rgba(ch(0), ch(8), ch(16));
    out.push_back(p);
  }
  // a tile file's order (tileio encodeTile): by species, stable
  std::stable_sort(out.begin(), out.end(), [](const Instance& a, const Instance& b) { return a.species < b.species; });
  return out;
}

Scene makeSyntheticScene(const SyntheticOptions& o) {
  Scene w;
  w.name = "synthetic";
  w.cellSize = o.cellSize;
  w.tileSize = o.tileSize;
  w.heights = Grid(o.gridSize, o.gridSize);
  float size = float(o.gridSize - 1) * o.cellSize;
  for (int j = 0; j < o.gridSize; ++j) {
    for (int i = 0; i < o.gridSize; ++i) {
      float x = float(i) * o.cellSize, z = float(j) * o.cellSize;
      float dx = (x - 0.5f * size) / (0.06f * size);
      float hills = 6.0f * std::sin(x * 0.013f) * std::cos(z * 0.011f) + 4.0f * std::sin(z * 0.031f + 1.0f);
      w.heights.at(i, j) = 20.0f + o.ridgeHeight * std::exp(-dx * dx) + hills;
    }
  }
  // tree, shrub, grass, ground cover: kind, mesh height, crown radius (scale 0.8 to 1.2)
  const float shapes[4][2] = {{16, 3.5f}, {2.2f, 1.2f}, {0.7f, 0.35f}, {0.25f, 0.7f}};
  for (uint8_t k = 0; k < 4; ++k) {
    SpeciesRecord r;
    r.id = k;
    r.name = speciesKindName(k);
    r.kind = k;
    r.meshHeight = shapes[k][0];
    r.crownRadius = shapes[k][1];
    r.scaleMin = 0.8f;
    r.scaleMax = 1.2f;
    r.boundingCenterY = 0.5f * r.meshHeight;
    r.boundingRadius = std::sqrt(0.25f * r.meshHeight * r.meshHeight + r.crownRadius * r.crownRadius);
    w.species.push_back(r);
  }
  int tilesPerSide = int(std::ceil(size / o.tileSize));
  uint64_t tileCount = uint64_t(tilesPerSide) * uint64_t(tilesPerSide);
  for (int tz = 0; tz < tilesPerSide; ++tz) {
    for (int tx = 0; tx < tilesPerSide; ++tx) {
      SceneTile t;
      t.x = tx;
      t.z = tz;
      uint64_t index = uint64_t(tz) * uint64_t(tilesPerSide) + uint64_t(tx);
      t.instances = o.instances / tileCount + (index < o.instances % tileCount ? 1 : 0);
      t.minX = float(tx) * o.tileSize;
      t.minZ = float(tz) * o.tileSize;
      t.maxX = std::min(t.minX + o.tileSize, size);
      t.maxZ = std::min(t.minZ + o.tileSize, size);
      w.tiles.push_back(t);
    }
  }
  {
    // per-tile species counts size the viewer's visible list (render/visible_reach.h), as a
    // bake's manifest gives them
    auto counting = std::make_shared<Scene>(w);
    for (size_t i = 0; i < w.tiles.size(); ++i) {
      w.tiles[i].speciesCounts.assign(w.species.size(), 0);
      for (const Instance& inst : syntheticTileInstances(*counting, o.seed, i)) w.tiles[i].speciesCounts[inst.species]++;
    }
  }
  auto shared = std::make_shared<Scene>(w);  // heights, tiles and species for the loader
  w.placedInstances = [shared, seed = o.seed](size_t index) { return syntheticTileInstances(*shared, seed, index); };
  w.loadTile = [shared, seed = o.seed](size_t index) {
    TileData t;
    t.tileX = shared->tiles[index].x;
    t.tileZ = shared->tiles[index].z;
    t.tileSize = shared->tileSize;
    t.instances = syntheticTileInstances(*shared, seed, index);
    Vec3 lo, hi;
    tileQuantizationBox(t, lo, hi);
    return makeLoadedTile(index, t.instances, shared->species, lo, hi);
  };
  return w;
}

}  // namespace eco::render
