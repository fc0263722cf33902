// The viewer's Scene over a bake with raster layers and a sun (issue #20): openBake loads and
// verifies them as plain data; a broken layer is an error naming its file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "bake/bake.h"
#include "bake_world.h"
#include "core/error.h"
#include "render/scene.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

TEST(RenderLayers, OpenBakeLoadsTheSunAndTheLayers) {
  TempDir dir;
  eco::World world = eco::loadWorld(
      eco::test::writeRiverRidgeWorld(dir, "", R"({"azimuth_deg": 135, "elevation_deg": 25})"));
  eco::BakeOptions o;
  o.outDir = dir.file("bake");
  o.threads = 2;
  o.tiles = eco::TileRange{0, 0, 1, 1};
  o.maskLayers = true;
  eco::bake(world, o);

  eco::render::Scene scene = eco::render::openBake(dir.file("bake"));
  EXPECT_EQ(scene.sunAzimuthDeg, 135.f);
  EXPECT_EQ(scene.sunElevationDeg, 25.f);
  ASSERT_EQ(scene.layers.size(), 10u);
  ASSERT_EQ(scene.riverLayer, 0);
  const eco::render::SceneLayer& river = scene.layers[0];
  EXPECT_EQ(river.kind, "river");
  EXPECT_EQ(river.bytesPerCode, 2);
  EXPECT_EQ(river.codeMax, 65535u);
  EXPECT_EQ(river.width, scene.heights.width);
  EXPECT_EQ(river.height, scene.heights.height);
  EXPECT_EQ(river.data.size(), size_t(257 * 257 * 2));
  EXPECT_EQ(river.waterDistance, 4.f);
  for (int i = 0; i < 257; i += 7) {
    EXPECT_NEAR(river.value(i, 30), std::abs(4.0 * i - 400.0), 624.0 / 65535) << i;
    EXPECT_EQ(river.water(i, 30), std::abs(4 * i - 400) <= 4) << i;
  }
  EXPECT_TRUE(river.water(100, 0));
  const eco::render::SceneLayer& slope = scene.layers[2];
  EXPECT_EQ(slope.name, "slope");
  EXPECT_EQ(slope.unit, "deg");
  EXPECT_EQ(slope.bytesPerCode, 1);
  EXPECT_EQ(slope.waterDistance, -1.f);
  EXPECT_FALSE(slope.water(100, 0));
  EXPECT_EQ(scene.layers[9].species, "moss");

  // A damaged layer: an error naming the file.
  const std::string file = dir.file("bake/layers/moisture.r8");
  std::string bytes = eco::test::readBytes(file);
  bytes[10] = char(bytes[10] ^ 0x20);
  eco::test::writeBytes(file, bytes);
  try {
    eco::render::openBake(dir.file("bake"));
    FAIL() << "a damaged layer was loaded";
  } catch (const eco::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layers/moisture.r8: checksum mismatch"), std::string::npos) << e.what();
  }
}

TEST(RenderLayers, ABakeWithoutLayersHasTheDefaultSunAndNone) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  eco::BakeOptions o;
  o.outDir = dir.file("bake");
  o.tiles = eco::TileRange{0, 0, 1, 1};
  eco::bake(world, o);
  eco::render::Scene scene = eco::render::openBake(dir.file("bake"));
  EXPECT_EQ(scene.sunAzimuthDeg, 180.f);
  EXPECT_EQ(scene.sunElevationDeg, 40.f);
  EXPECT_TRUE(scene.layers.empty());
  EXPECT_EQ(scene.riverLayer, -1);
}
