#pragma once
// Worlds and cameras shared by the renderer tests.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "render/camera.h"
#include "render/headless.h"
#include "render/renderer.h"
#include "render/vk_context.h"
#include "render/scene.h"
#include "tileio/tileio.h"

namespace eco::render {

// Writes makeSyntheticScene(options) as a bake folder (manifest.json, terrain.r32f, tiles/).
void writeSyntheticBake(const std::string& dir, const SyntheticOptions& options);

// When no driver is chosen (VK_ICD_FILENAMES / VK_DRIVER_FILES unset), use Mesa lavapipe if
// installed, and give the process a private XDG_RUNTIME_DIR if it has none.
void preferLavapipe();

// Reads what the renderer keeps on the GPU (declared a friend by Renderer).
struct RendererProbe {
  // The last frame's draws: the visible list read back, one entry per drawn instance.
  static std::vector<VisibleRef> visibleInstances(Renderer& renderer);
};

}  // namespace eco::render

namespace eco::render::fixtures {

// 1 km square, 4x4 tiles of 256 m, a 150 m ridge running north-south through x = 512 m.
// A hand-made world's instances as its tiles load them: quantised over each tile's box, as a
// bake's tiles are (`source`: the world's tiles and species).
inline std::function<LoadedTile(size_t)> tileLoader(std::shared_ptr<const Scene> source,
                                                     std::function<std::vector<Instance>(size_t)> instances) {
  return [source, instances](size_t index) {
    TileData t;
    t.tileX = source->tiles[index].x;
    t.tileZ = source->tiles[index].z;
    t.tileSize = source->tileSize;
    t.instances = instances(index);
    Vec3 lo, hi;
    tileQuantizationBox(t, lo, hi);
    return makeLoadedTile(index, t.instances, source->species, lo, hi);
  };
}

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
inline std::vector<Instance> decodedTile(const Scene& world, size_t t) {
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
