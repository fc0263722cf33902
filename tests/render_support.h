#pragma once
// Worlds and cameras shared by the renderer tests.
#include "render/camera.h"
#include "render/world.h"
#include "tileio/tile_io.h"

namespace eco::render::fixtures {

// 1 km square, 4x4 tiles of 256 m, a 150 m ridge running north-south through x = 512 m.
inline SyntheticOptions smallWorld(uint64_t instances) {
  SyntheticOptions o;
  o.gridSize = 129;
  o.cellSize = 8;
  o.tileSize = 256;
  o.instances = instances;
  return o;
}

// Tile `t` of a synthetic world as a tile file stores it: encoded and decoded by tileio
// (quantized positions, yaw, scale, up), in the order the renderer's pages hold it.
inline std::vector<Instance> decodedTile(const World& world, size_t t) {
  TileData tile;
  tile.tileX = world.tiles[t].x;
  tile.tileZ = world.tiles[t].z;
  tile.tileSize = world.tileSize;
  tile.species = world.species;
  tile.instances = world.placedInstances(t);
  std::vector<uint8_t> bytes = encodeTile(tile);
  return decodeTile(bytes.data(), bytes.size(), "synthetic tile").instances;
}

inline Camera camera(float x, float y, float z, float yaw, float pitch) {
  Camera c;
  c.position = {x, y, z};
  c.yawDeg = yaw;
  c.pitchDeg = pitch;
  return c;
}

}  // namespace eco::render::fixtures
