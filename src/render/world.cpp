#include "render/world.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "render/camera.h"
#include "terrain/terrain.h"

namespace eco::render {

gpu::GpuInstance packInstance(const PlacedInstance& inst, const SpeciesShape& shape) {
  // rotY(yaw): +x turns toward -z for positive yaw
  float c = std::cos(inst.yaw), s = std::sin(inst.yaw);
  float ry[3][3] = {{c, 0, s}, {0, 1, 0}, {-s, 0, c}};
  // shortest arc taking (0, 1, 0) to up (Rodrigues about axis = y x up)
  Vec3 u = normalize(inst.up);
  float tilt[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  Vec3 axis{u.z, 0, -u.x};  // (0,1,0) x u
  float sinA = length(axis), cosA = u.y;
  if (sinA > 1e-6f) {
    axis = axis * (1.0f / sinA);
    float k = 1 - cosA;
    float x = axis.x, y = axis.y, z = axis.z;
    float m[3][3] = {{cosA + x * x * k, x * y * k - z * sinA, x * z * k + y * sinA},
                     {y * x * k + z * sinA, cosA + y * y * k, y * z * k - x * sinA},
                     {z * x * k - y * sinA, z * y * k + x * sinA, cosA + z * z * k}};
    std::copy(&m[0][0], &m[0][0] + 9, &tilt[0][0]);
  }
  float size[3] = {shape.crownRadius * inst.scale, shape.meshHeight * inst.scale, shape.crownRadius * inst.scale};
  float t[3] = {inst.position.x, inst.position.y, inst.position.z};
  float rows[3][4];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      float r = 0;
      for (int k = 0; k < 3; ++k) r += tilt[i][k] * ry[k][j];
      rows[i][j] = r * size[j];
    }
    rows[i][3] = t[i];
  }
  gpu::GpuInstance g{};
  g.row0 = {rows[0][0], rows[0][1], rows[0][2], rows[0][3]};
  g.row1 = {rows[1][0], rows[1][1], rows[1][2], rows[1][3]};
  g.row2 = {rows[2][0], rows[2][1], rows[2][2], rows[2][3]};
  float halfH = 0.5f * size[1];
  float radius = std::sqrt(halfH * halfH + size[0] * size[0]);
  uint32_t radiusBits;
  std::memcpy(&radiusBits, &radius, 4);
  g.extra = {inst.color, std::min<uint32_t>(shape.kind, gpu::KIND_COUNT - 1), radiusBits, inst.species};
  return g;
}

namespace {

uint32_t rgba(int r, int g, int b) { return uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16 | 0xffu << 24; }

}  // namespace

std::vector<PlacedInstance> syntheticTileInstances(const World& world, uint32_t seed, size_t index) {
  const WorldTile& t = world.tiles[index];
  std::vector<PlacedInstance> out;
  out.reserve(t.instances);
  std::mt19937 rng(seed * 7919u + uint32_t(index) * 104729u);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  const uint32_t base[4] = {rgba(40, 85, 35), rgba(70, 110, 45), rgba(105, 140, 60), rgba(90, 120, 70)};
  for (uint64_t n = 0; n < t.instances; ++n) {
    PlacedInstance p;
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
  return out;
}

World makeSyntheticWorld(const SyntheticOptions& o) {
  World w;
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
  w.species = {{0, 16, 3.5f}, {1, 2.2f, 1.2f}, {2, 0.7f, 0.35f}, {3, 0.25f, 0.7f}};
  int tilesPerSide = int(std::ceil(size / o.tileSize));
  uint64_t tileCount = uint64_t(tilesPerSide) * uint64_t(tilesPerSide);
  for (int tz = 0; tz < tilesPerSide; ++tz) {
    for (int tx = 0; tx < tilesPerSide; ++tx) {
      WorldTile t;
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
  auto shared = std::make_shared<World>(w);  // heights, tiles and species for the loader
  w.placedInstances = [shared, seed = o.seed](size_t index) { return syntheticTileInstances(*shared, seed, index); };
  w.loadTile = [shared, seed = o.seed](size_t index) {
    LoadedTile out;
    out.tile = index;
    for (const PlacedInstance& p : syntheticTileInstances(*shared, seed, index)) {
      const SpeciesShape& shape = shared->species[p.species];
      out.instances.push_back(packInstance(p, shape));
    }
    return out;
  };
  return w;
}

}  // namespace eco::render
