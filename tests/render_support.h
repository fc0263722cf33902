#pragma once
// Worlds and cameras shared by the renderer tests.
#include <gtest/gtest.h>

#include "render/camera.h"
#include "render/headless.h"
#include "render/vk_context.h"
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

// Whether any Vulkan device (lavapipe preferred) can be created: tests skip without one.
inline bool haveVulkan() {
  preferLavapipe();
  Context ctx;
  bool ok = createContext(ctx, ContextOptions{}, nullptr);
  destroyContext(ctx);
  return ok;
}

// A Vulkan context with validation (synchronisation included) for the test's renderers; the
// test fails on any validation error and skips without a device.
struct ValidatedContext : ::testing::Test {
  Context ctx;
  void SetUp() override {
    preferLavapipe();
    ContextOptions o;
    o.validation = true;
    std::string why;
    if (!createContext(ctx, o, &why)) GTEST_SKIP() << "no Vulkan device: " << why;
  }
  void TearDown() override {
    if (!ctx.device) return;
    destroyContext(ctx);
    EXPECT_EQ(ctx.validationErrors.load(), 0) << "Vulkan validation errors (see log)";
  }
};

}  // namespace eco::render::fixtures
