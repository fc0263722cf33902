#pragma once
// What the viewer needs from a bake: terrain heights, the tile grid, the species shapes and a
// thread-safe tile loader producing GPU-ready instances. Sources: a bake folder (openBake) or
// a procedural world (makeSyntheticWorld) for tests and benchmarks.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/types.h"
#include "../../shaders/shared.h"

namespace eco::render {

struct SpeciesShape {
  uint8_t kind = 0;  // tile.fbs SpeciesKind: 0 tree, 1 shrub, 2 grass, 3 ground cover
  float meshHeight = 1, crownRadius = 0.5f;
};

struct WorldTile {
  int x = 0, z = 0;
  uint64_t instances = 0;
  float minX = 0, minZ = 0, maxX = 0, maxZ = 0;  // world rectangle
};

struct LoadedTile {
  size_t tile = 0;
  std::vector<gpu::GpuInstance> instances;
};

// Instance placement as decoded from a tile (see tileio/tile_io.h Instance).
struct PlacedInstance {
  Vec3 position;
  uint16_t species = 0;
  float yaw = 0, scale = 1;
  Vec3 up{0, 1, 0};
  uint32_t color = 0xffffffff;
};
struct World {
  std::string name;
  Grid heights;  // metres; sample (i, j) at world (i * cellSize, j * cellSize)
  float cellSize = 1;
  float tileSize = 0;
  std::vector<WorldTile> tiles;
  std::vector<SpeciesShape> species;
  // Called from the streaming thread; must be thread-safe. Throws on unreadable data.
  std::function<LoadedTile(size_t tile)> loadTile;
  // The tile's instances as placed (decoded, verified), for CPU-side consumers such as the
  // far-field survey. Thread-safe; throws on unreadable data.
  std::function<std::vector<PlacedInstance>(size_t tile)> placedInstances;
};

// Transform R = tilt(up) * rotY(yaw), scaled by scale * (crownRadius, meshHeight, crownRadius).
gpu::GpuInstance packInstance(const PlacedInstance& inst, const SpeciesShape& shape);

struct SyntheticOptions {
  int gridSize = 257;          // heightmap samples per side
  float cellSize = 4;          // metres
  float tileSize = 128;        // metres
  uint64_t instances = 200000; // total, spread evenly over the tiles
  float ridgeHeight = 150;     // a north-south ridge through the middle of the map
  uint32_t seed = 1;
};
// A procedural world whose tiles are generated on demand (deterministic per tile).
World makeSyntheticWorld(const SyntheticOptions& options);
// The instances makeSyntheticWorld generates for one tile.
std::vector<PlacedInstance> syntheticTileInstances(const World& world, uint32_t seed, size_t tile);
// Writes makeSyntheticWorld(options) as a bake folder (manifest.json, terrain.r32f, tiles/).
void writeSyntheticBake(const std::string& dir, const SyntheticOptions& options);

// Reads a bake folder (manifest.json, terrain.r32f, tiles/). Throws InputError.
World openBake(const std::string& dir);

}  // namespace eco::render
