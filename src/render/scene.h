#pragma once
// What the viewer needs from a bake: terrain heights, the tile grid, the species shapes and a
// thread-safe tile loader producing GPU-ready instances. Sources: a bake folder (openBake) or
// a procedural world (makeSyntheticScene) for tests and benchmarks.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/types.h"
#include "meshes/meshes.h"
#include "tileio/tileio.h"
#include "shaders/shared.h"

namespace eco::render {

struct SceneTile {
  int x = 0, z = 0;
  uint64_t instances = 0;
  float minX = 0, minZ = 0, maxX = 0, maxZ = 0;  // world rectangle
  std::vector<uint32_t> speciesCounts;            // by species id (the manifest's); empty where unknown
};

// A tile ready for the GPU: its records (shared.h PackedInstance, 16 bytes each, in the
// tile's order) and its quantization box.
struct LoadedTile {
  size_t tile = 0;
  gpu::GpuTile box{};
  std::vector<gpu::PackedInstance> instances;
};

// A raster layer of the bake (tileio.h LayerEntry) as the viewer gets it: one code per
// terrain sample, row-major on the heights' grid, the file's bytes as they are (verified).
struct SceneLayer {
  std::string name;     // "river_distance", "slope", "suitability_beech", ...
  std::string kind;     // "river", "mask" or "suitability"
  std::string species;  // suitability: the species' name
  std::string unit;     // "m", "deg" or "" (for the legend)
  int width = 0, height = 0;  // == the heights' grid
  // 1: unorm8 (an R8_UNORM texel each); 2: unorm16, little-endian (R16_UNORM).
  int bytesPerCode = 1;
  uint32_t codeMax = 255;  // 255 or 65535
  float valueMin = 0, valueMax = 1;  // code c is valueMin + c / codeMax * (valueMax - valueMin)
  // River only: water where the value (distance to the nearest river, metres) is at most
  // this; negative for other layers.
  float waterDistance = -1;
  std::vector<uint8_t> data;  // width * height * bytesPerCode

  uint32_t code(int i, int j) const {
    const size_t k = (size_t(j) * size_t(width) + size_t(i)) * size_t(bytesPerCode);
    return bytesPerCode == 2 ? uint32_t(data[k]) | uint32_t(data[k + 1]) << 8 : data[k];
  }
  float value(int i, int j) const {
    return float(double(valueMin) + double(code(i, j)) / double(codeMax) * (double(valueMax) - double(valueMin)));
  }
  bool water(int i, int j) const { return waterDistance >= 0 && value(i, j) <= waterDistance; }
  // The value at world (x, z), bilinear between the samples (as the terrain shader filters
  // the layer), the edge sample past the world; cellSize: the heights' cell.
  float valueAt(float cellSize, float x, float z) const;
};

struct Scene {
  std::string name;
  Grid heights;  // metres; sample (i, j) at world (i * cellSize, j * cellSize)
  float cellSize = 1;
  float tileSize = 0;
  std::vector<SceneTile> tiles;
  std::vector<SpeciesRecord> species;  // indexed by id (at most 256: the GPU record keeps 8 bits)
  std::vector<uint64_t> speciesInstances;  // world total by species id (the manifest's); may be empty
  std::string bakeDir;  // the bake folder (mesh files are relative to it); empty for synthetic worlds
  // The config's sun: the direction it shines from (degrees clockwise from north, as the
  // aspect mask uses it) and its height above the horizon.
  float sunAzimuthDeg = kDefaultSunAzimuthDeg, sunElevationDeg = kDefaultSunElevationDeg;
  // The config's ground colours and snow line (the manifest's "ground", else the default).
  GroundPalette ground = kTemperateGround;
  // The bake's raster layers, verified and loaded (empty for a synthetic scene); riverLayer
  // indexes the river's distance field in them, -1 without one.
  std::vector<SceneLayer> layers;
  int riverLayer = -1;
  // Called from the streaming thread; must be thread-safe. Throws on unreadable data.
  std::function<LoadedTile(size_t tile)> loadTile;
  // The tile's instances as placed (decoded, verified), for CPU-side consumers such as the
  // far-field survey. Thread-safe; throws on unreadable data.
  std::function<std::vector<Instance>(size_t tile)> placedInstances;
};

// The GPU record of a tile record (species id in the alpha byte, shared.h PackedInstance).
gpu::PackedInstance gpuRecord(const PackedRecord& record, uint16_t species);
// A tile's instances quantized as its file stores them (tileio packRecord), ready for the GPU.
// `box`: the quantization box (the file's bounds, or tileQuantizationBox for new tiles).
LoadedTile makeLoadedTile(size_t tile, const std::vector<Instance>& instances,
                          const std::vector<SpeciesRecord>& species, Vec3 boxMin, Vec3 boxMax);
// What the viewer draws for a species: the bake's mesh file (verified against the manifest),
// or its form's procedural mesh; `problem` receives why a file the manifest names is not used.
SpeciesMeshSource meshSource(const SpeciesRecord& species, const std::string& bakeDir, std::string* problem = nullptr);
// The GPU species table: 256 entries (ids past the table are zero-sized).
std::vector<gpu::GpuSpecies> gpuSpeciesTable(const std::vector<SpeciesRecord>& species);

struct SyntheticOptions {
  int gridSize = 257;          // heightmap samples per side
  float cellSize = 4;          // metres
  float tileSize = 128;        // metres
  uint64_t instances = 200000; // total, spread evenly over the tiles
  float ridgeHeight = 150;     // a north-south ridge through the middle of the map
  uint32_t seed = 1;
};
// A procedural world whose tiles are generated on demand (deterministic per tile).
Scene makeSyntheticScene(const SyntheticOptions& options);
// The instances makeSyntheticScene generates for one tile.
std::vector<Instance> syntheticTileInstances(const Scene& world, uint32_t seed, size_t tile);

// Reads a bake folder (manifest.json, terrain.r32f, tiles/). Throws InputError.
Scene openBake(const std::string& dir);

}  // namespace eco::render
