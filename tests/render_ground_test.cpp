// The ground from the config's palette (issue #29 item 3): grass colour where grass grows,
// soil where nothing does, snow above the snow line but never under dense grass. A synthetic
// world whose west half is a dense sward and whose east half is bare, seen from straight above
// with the plants themselves not drawn (only the ground reads them, through the far field).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "render/headless.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;

namespace {

// Grass (species 2 of the synthetic table, crown radius 0.35 m) every 2 m west of x = 400 m,
// nothing east of it: crowns cover about a tenth of the west.
Scene swardWorld(const GroundPalette& palette) {
  Scene w = makeSyntheticScene(smallWorld(0));
  w.ground = palette;
  auto shared = std::make_shared<Scene>(w);
  auto instances = [shared](size_t index) {
    const SceneTile& t = shared->tiles[index];
    std::vector<Instance> out;
    for (float z = t.minZ + 1.f; z < t.maxZ; z += 2.f)
      for (float x = t.minX + 1.f; x < std::min(t.maxX, 400.f); x += 2.f) {
        Instance inst;
        const int i = int(x / shared->cellSize), j = int(z / shared->cellSize);
        inst.position = {x, shared->heights.at(i, j), z};
        inst.species = 2;
        inst.color = 0xff20a040u;
        out.push_back(inst);
      }
    return out;
  };
  w.placedInstances = instances;
  w.loadTile = fixtures::tileLoader(shared, instances);
  return w;
}

// Albedos far apart in hue, so a pixel says which one it shows.
GroundPalette testPalette(float snowline) {
  GroundPalette p{{{0.45f, 0.08f, 0.06f}, {0.06f, 0.40f, 0.08f}, {0.08f, 0.08f, 0.45f}, {0.3f, 0.3f, 0.3f},
                   {0.85f, 0.85f, 0.85f}}};
  p.snowline = snowline;
  return p;
}

struct Shares {
  double soil = 0, grass = 0, snow = 0;  // of the pixels of a screen column range
};

// Classifies the pixels of columns [x0, x1), rows [y0, y1): red-dominant soil, green-dominant
// grass, bright and grey snow. Written from the palette above, not from the shader.
Shares classify(const HeadlessResult& r, int width, int x0, int x1, int y0, int y1) {
  Shares s;
  double n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = &r.pixels[(size_t(y) * size_t(width) + size_t(x)) * 4];
      const int red = p[0], green = p[1], blue = p[2];
      const int hi = std::max({red, green, blue}), lo = std::min({red, green, blue});
      n += 1;
      if (lo > 150 && hi - lo < 30)
        s.snow += 1;
      else if (red > green + 20 && red > blue + 20)
        s.soil += 1;
      else if (green > red + 20 && green > blue + 20)
        s.grass += 1;
    }
  s.soil /= n, s.grass /= n, s.snow /= n;
  return s;
}

HeadlessResult topDown(const Scene& world, int width, int height) {
  ViewerOptions o;
  o.width = width;
  o.height = height;
  // Over the middle of the 1 km world, looking straight down: west half of the screen west.
  o.camera = camera(512.f, 1400.f, 512.f, 0.f, -89.9f);
  o.cull.farField = false;  // the ground alone (the far field still surveys the plants)
  o.cull.drawDistance = {0.f, 0.f, 0.f, 0.f};
  o.view.fog = false;
  o.view.shadows = false;
  o.validation = true;
  return runHeadless(world, o);
}

TEST(RenderGround, GrassWhereItGrowsSoilWhereNothingDoesAndNoSnowUnderTheSward) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  constexpr int kW = 320, kH = 320;
  // Columns over x in [150, 350] m (sward) and [680, 880] m (bare), rows over z in [150, 870] m:
  // the view spans about 1400 * 2 tan(30 deg) = 1.6 km, centred on 512 m (past the world's
  // edges is sky).
  auto column = [&](float worldX) { return int((worldX - 512.f) / 1617.f * float(kW) + float(kW) / 2.f); };
  const int swardX0 = column(150), swardX1 = column(350), bareX0 = column(680), bareX1 = column(880);
  const int y0 = column(150), y1 = column(870);
  auto classify = [&](const HeadlessResult& r, int x0, int x1) { return ::classify(r, kW, x0, x1, y0, y1); };

  const HeadlessResult plain = topDown(swardWorld(testPalette(std::numeric_limits<float>::infinity())), kW, kH);
  EXPECT_EQ(plain.validationErrors, 0);
  const Shares sward = classify(plain, swardX0, swardX1), bare = classify(plain, bareX0, bareX1);
  std::printf("no snow line: sward grass %.3f soil %.3f; bare grass %.3f soil %.3f\n", sward.grass, sward.soil,
              bare.grass, bare.soil);
  EXPECT_GT(sward.grass, 0.9);
  EXPECT_GT(bare.soil, 0.9);
  EXPECT_EQ(sward.snow + bare.snow, 0.0);

  // Snow line below the whole world: the bare half white, the sward still green.
  const HeadlessResult snowy = topDown(swardWorld(testPalette(-1000.f)), kW, kH);
  EXPECT_EQ(snowy.validationErrors, 0);
  const Shares swardSnow = classify(snowy, swardX0, swardX1), bareSnow = classify(snowy, bareX0, bareX1);
  std::printf("snow line -1000 m: sward grass %.3f snow %.3f; bare snow %.3f\n", swardSnow.grass, swardSnow.snow,
              bareSnow.snow);
  EXPECT_GT(bareSnow.snow, 0.9);
  EXPECT_LT(swardSnow.snow, 0.01);
  EXPECT_GT(swardSnow.grass, 0.9);
  if (!plain.pixels.empty()) writeScreenshot(::testing::TempDir() + "ground_plain.png", kW, kH, plain.pixels);
}

}  // namespace
