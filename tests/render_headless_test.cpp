// Headless rendering of a bake folder (written here with tileio) and tile streaming.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "render/headless.h"
#include "render_support.h"
#include "test_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;

namespace {

TEST(RenderHeadless, BakeFolderRendersTerrainAndVegetation) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  writeSyntheticBake(dir.path.string(), smallWorld(30000));
  Scene world = openBake(dir.path.string());
  ASSERT_EQ(world.tiles.size(), 16u);

  ViewerOptions o;
  o.width = 200;
  o.height = 120;
  o.frames = 2;
  o.validation = true;
  o.camera = camera(512, 260, 1150, 0, -25);
  o.view.sky = false;  // a flat background: sky pixels equal the top-left one
  o.renderer.stream.loadRadius = 5000;
  o.renderer.stream.unloadRadius = 5000;
  o.screenshot = dir.file("shot.png");
  o.statsFile = dir.file("stats.json");
  HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);

  // the picture: sky at the top, lit terrain below, vegetation differs from bare terrain
  ASSERT_EQ(r.pixels.size(), size_t(o.width * o.height * 4));
  std::string png = test::readBytes(o.screenshot);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");

  ViewerOptions bare = o;
  bare.cull.drawDistance.fill(0);  // every instance beyond its draw distance: terrain only
  bare.cull.farField = false;  // and no far field either
  bare.screenshot.clear();
  bare.statsFile.clear();
  HeadlessResult terrainOnly = runHeadless(world, bare);
  EXPECT_EQ(terrainOnly.frames.back().afterOcclusion, 0u);
  size_t sky = 0, vegetation = 0, total = size_t(o.width) * size_t(o.height);
  const uint8_t* top = &terrainOnly.pixels[0];
  for (size_t i = 0; i < total; ++i) {
    sky += std::memcmp(&terrainOnly.pixels[i * 4], top, 4) == 0;
    vegetation += std::memcmp(&terrainOnly.pixels[i * 4], &r.pixels[i * 4], 4) != 0;
  }
  EXPECT_GT(sky, total / 20) << "sky visible";
  EXPECT_LT(sky, total * 3 / 4) << "terrain visible";
  EXPECT_GT(vegetation, total / 20) << "vegetation visible";

  // statistics file
  std::ifstream in(o.statsFile);
  nlohmann::json stats = nlohmann::json::parse(in);
  ASSERT_EQ(stats["frames"].size(), 2u);
  const auto& f = stats["frames"][1];
  EXPECT_EQ(f["instances_resident"].get<uint64_t>(), 30000u);
  EXPECT_GT(f["visible_after_frustum"].get<uint64_t>(), 0u);
  EXPECT_LE(f["visible_after_occlusion"].get<uint64_t>(), f["visible_after_frustum"].get<uint64_t>());
  // the per-draw instance counts are the indirect records as the GPU wrote them; the visible
  // counter is a separate GPU atomic: the two must agree
  std::vector<uint64_t> perDraw = f["species_instances"].get<std::vector<uint64_t>>();
  // the camera's records: one per species and LOD; each shadow cascade has as many
  ASSERT_EQ(perDraw.size() * f["vegetation_draw_calls"].get<size_t>(), f["vegetation_draw_commands"].get<size_t>());
  uint64_t drawn = 0;
  int nonEmpty = 0;
  for (uint64_t n : perDraw) drawn += n, nonEmpty += n > 0;
  EXPECT_EQ(drawn, f["visible_after_occlusion"].get<uint64_t>());
  EXPECT_EQ(f["vegetation_draw_commands_nonempty"].get<int>(), nonEmpty);
  EXPECT_GE(nonEmpty, 2) << "several kinds and LODs drawn";
  EXPECT_TRUE(f.contains("cpu_ms") && f.contains("gpu_ms") && f.contains("gpu_cull_ms"));
  EXPECT_EQ(f["tiles_resident"].get<int>(), 16);
}

TEST(RenderHeadless, StreamingLoadsAndUnloadsAlongAPath) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  writeSyntheticBake(dir.path.string(), smallWorld(30000));
  Scene world = openBake(dir.path.string());

  ViewerOptions o;
  o.width = 96;
  o.height = 64;
  o.frames = 8;
  o.validation = true;
  o.camera = camera(64, 200, 64, 135, -20);      // north-west corner
  o.cameraEnd = camera(960, 200, 960, 135, -20);  // south-east corner
  o.renderer.stream.loadRadius = 200;
  o.renderer.stream.unloadRadius = 300;
  o.renderer.farTrees = 0;  // the tiles' instances alone: every one tested
  HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);
  ASSERT_EQ(r.frames.size(), 8u);
  const FrameStats& first = r.frames.front();
  const FrameStats& last = r.frames.back();
  EXPECT_GT(first.tilesResident, 0u);
  EXPECT_LT(first.tilesResident, 16u) << "only tiles near the camera";
  EXPECT_GT(first.resident, 0u);
  EXPECT_GT(last.tileLoads, first.tileLoads) << "tiles load as the camera moves";
  EXPECT_GT(last.tileUnloads, 0u) << "tiles behind the camera unload";
  for (const FrameStats& f : r.frames) {
    EXPECT_LE(f.tilesResident, 9u);
    EXPECT_EQ(f.tested, f.resident);
  }
}

TEST(RenderHeadless, StreamingRespectsTheInstanceBudgetWithoutBlocking) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(30000));  // ~1875 instances per tile
  ViewerOptions o;
  o.width = 64;
  o.height = 48;
  o.frames = 3;
  o.settle = false;  // the frame loop never waits for the loader
  o.camera = camera(512, 200, 512, 0, -30);
  o.renderer.stream.loadRadius = 5000;
  o.renderer.stream.unloadRadius = 5000;
  o.renderer.stream.budgetInstances = 6000;
  HeadlessResult r = runHeadless(world, o);
  for (const FrameStats& f : r.frames) EXPECT_LE(f.resident, 6000u);
}

TEST(RenderHeadless, MissingBakeIsAnInputError) {
  test::TempDir dir;
  EXPECT_THROW(openBake(dir.path.string()), InputError);
}

}  // namespace
