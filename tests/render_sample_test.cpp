// The real pipeline end to end: bake a block of the bundled sample world with ecobake's
// library, open the folder in the renderer and draw it headless on lavapipe.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "bake/bake.h"
#include "render/headless.h"
#include "render_support.h"
#include "test_support.h"
#include "tileio/tileio.h"

using namespace eco;

namespace {

const std::string kSampleConfig = test::sourceDir() + "/configs/temperate_mountain.json";

// Why a sample-world render test cannot run here, or "" when it can.
std::string sampleSkipReason() {
  if (!std::filesystem::exists(test::sourceDir() + "/samples/world/heightmap.png")) return "no sample world";
  return render::fixtures::haveVulkan() ? "" : "no Vulkan device";
}

// Bakes `tiles` of the sample world into `out` with two threads.
BakeSummary bakeSampleTiles(const eco::World& world, const std::string& out, TileRange tiles) {
  BakeOptions bake;
  bake.outDir = out;
  bake.threads = 2;
  bake.tiles = tiles;
  return eco::bake(world, bake);
}

}  // namespace


TEST(RenderSample, SampleWorldBakeRendersTerrainAndVegetation) {
  const std::string config = kSampleConfig;
  if (std::string why = sampleSkipReason(); !why.empty()) GTEST_SKIP() << why;

  test::TempDir dir;
  eco::World bakeWorld = loadWorld(config);
  // 768 m square: river, valley forest, lower slopes
  BakeSummary baked = bakeSampleTiles(bakeWorld, dir.file("bake"), TileRange{18, 28, 24, 34});
  ASSERT_GT(baked.instances, 10000u);

  render::Scene world = render::openBake(dir.file("bake"));
  render::ViewerOptions o;
  o.width = 240;
  o.height = 135;
  o.frames = 2;
  o.validation = true;
  float x = 21 * 128.f, z = 34 * 128.f + 150.f;
  o.camera = render::fixtures::camera(x, bakeWorld.terrain.heightAt(x, z) + 120.f, z, 0, -20);  // north, over the block
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 3000;
  render::HeadlessResult r = render::runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);
  const render::FrameStats& last = r.frames.back();
  EXPECT_EQ(last.resident, baked.instances);  // every baked instance streamed in
  EXPECT_GT(last.afterOcclusion, 0u);
  EXPECT_LE(last.afterOcclusion, last.afterFrustum);

  render::ViewerOptions bare = o;
  bare.cull.drawDistance.fill(0);  // nothing within draw distance: terrain only
  bare.cull.farField = false;  // and no far field either
  render::HeadlessResult terrain = render::runHeadless(world, bare);
  size_t total = size_t(o.width) * size_t(o.height), sky = 0, vegetation = 0;
  for (size_t i = 0; i < total; ++i) {
    sky += std::memcmp(&terrain.pixels[i * 4], &terrain.pixels[0], 4) == 0;
    vegetation += std::memcmp(&terrain.pixels[i * 4], &r.pixels[i * 4], 4) != 0;
  }
  EXPECT_LT(sky, total * 3 / 4) << "terrain visible";
  EXPECT_GT(vegetation, total / 20) << "vegetation visible";
}

// Issue #14's reproduction: on the sample bake, frustum culling removed the instances along
// the left and right screen edges (2.2 % of the pixels at 960x540 looking down, 25 % at
// 1280x360). Same cameras and aspect ratios at a quarter of the size.
TEST(RenderSample, FrustumCullingKeepsTheSampleViewsIntact) {
  const std::string config = kSampleConfig;
  if (std::string why = sampleSkipReason(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  eco::World bakeWorld = loadWorld(config);
  // x 1.8-4.9 km, z 2.8-5.1 km: both views' ground
  bakeSampleTiles(bakeWorld, dir.file("bake"), TileRange{14, 22, 38, 40});
  render::Scene world = render::openBake(dir.file("bake"));

  struct View {
    int width, height;
    render::Camera cam;
  };
  const View views[] = {{240, 135, render::fixtures::camera(2700, 1250, 4100, 0, -89)},
                        {320, 90, render::fixtures::camera(3200, 302.7f, 4452, 70, -14)}};
  for (const View& v : views) {
    render::ViewerOptions o;
    o.width = v.width;
    o.height = v.height;
    o.camera = v.cam;
    o.validation = true;
    o.renderer.stream.loadRadius = 1500;  // ecoview's defaults
    o.renderer.stream.unloadRadius = 2000;
    o.cull.fade = false;  // every resident instance is a candidate: frustum culling alone decides
    // one sample per pixel: under MSAA lavapipe shades some silhouette pixels at a position
    // outside their triangle, which reads the shadow map where no visible surface is, so the
    // shadow casters culled against the view change those pixels (docs/viewer-look.md)
    o.renderer.samples = 1;
    render::HeadlessResult on = render::runHeadless(world, o);
    o.cull.frustum = false;
    render::HeadlessResult off = render::runHeadless(world, o);
    EXPECT_EQ(on.validationErrors, 0);
    ASSERT_EQ(on.pixels.size(), off.pixels.size());
    size_t differing = 0;
    for (size_t i = 0; i < on.pixels.size(); i += 4) differing += std::memcmp(&on.pixels[i], &off.pixels[i], 4) != 0;
    EXPECT_EQ(differing, 0u) << v.width << "x" << v.height << ": frustum culling changed the picture";
    EXPECT_LT(on.frames.back().afterFrustum, off.frames.back().afterFrustum * 3 / 4);
    EXPECT_GT(on.frames.back().afterOcclusion, 1000u);
  }
}

// The colour pass draws each terrain node with terrain.frag specialised to what its pixels can
// need (render/terrain_draw.h TerrainShadingBits): the picture must be the one the whole shader
// draws everywhere. Two views of the baked block hold the kinds of variant between them: ground
// near the eye with shadows, some kinds' far field, the crowns inside and beyond the shadows'
// reach, the far field without crowns or shadows. One sample per pixel, as above.
TEST(RenderSample, TerrainShadingVariantsKeepThePicture) {
  if (std::string why = sampleSkipReason(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  eco::World bakeWorld = loadWorld(kSampleConfig);
  bakeSampleTiles(bakeWorld, dir.file("bake"), TileRange{14, 22, 38, 40});  // x 1.8-4.9 km, z 2.8-5.1 km
  render::Scene world = render::openBake(dir.file("bake"));
  // a long lens: at 180 rows the far field's crowns are a few pixels wide out to 2.2 km (at 60
  // degrees only to 0.7 km, where the trees' far field has not begun)
  render::Camera views[] = {render::fixtures::camera(1900, bakeWorld.terrain.heightAt(1900, 3900) + 40, 3900, 90, -4),
                            render::fixtures::camera(1900, 1200, 3900, 90, -25)};
  std::array<uint32_t, render::kTerrainShadings> used{};
  for (render::Camera& cam : views) {
    cam.fovYDeg = 20;
    render::ViewerOptions o;
    o.width = 320;
    o.height = 180;
    o.camera = cam;
    o.validation = true;
    o.renderer.stream.loadRadius = 1500;  // ecoview's defaults
    o.renderer.stream.unloadRadius = 2000;
    o.renderer.samples = 1;
    const render::HeadlessResult variants = render::runHeadless(world, o);
    EXPECT_EQ(variants.frames.back().terrainFallbackNodes, 0u) << "the first frame makes every variant its view needs";
    o.renderer.terrainShadingClasses = false;
    const render::HeadlessResult whole = render::runHeadless(world, o);
    EXPECT_EQ(variants.validationErrors, 0);
    ASSERT_EQ(variants.pixels.size(), whole.pixels.size());
    size_t differing = 0, first = whole.pixels.size();
    for (size_t i = 0; i < whole.pixels.size(); i += 4)
      if (std::memcmp(&variants.pixels[i], &whole.pixels[i], 4) != 0) ++differing, first = std::min(first, i);
    EXPECT_EQ(differing, 0u) << "camera " << cam.position.x << "," << cam.position.y << "," << cam.position.z
                             << (differing ? "; first at pixel " + std::to_string(first / 4 % size_t(o.width)) + "," +
                                                 std::to_string(first / 4 / size_t(o.width)) + ": " +
                                                 std::to_string(variants.pixels[first]) + " " +
                                                 std::to_string(variants.pixels[first + 1]) + " " +
                                                 std::to_string(variants.pixels[first + 2]) + " against " +
                                                 std::to_string(whole.pixels[first]) + " " +
                                                 std::to_string(whole.pixels[first + 1]) + " " +
                                                 std::to_string(whole.pixels[first + 2])
                                           : std::string());
    for (const auto& [key, nodes] : variants.frames.back().terrainShadings) used[key] += nodes;
    ASSERT_EQ(whole.frames.back().terrainShadings.size(), 1u) << "without the variants every node takes the whole shader";
    EXPECT_EQ(whole.frames.back().terrainShadings[0].first, render::kTerrainShadings - 1);
  }
  // After the first frame a frame makes two missing pipelines at most and draws the rest of its
  // nodes with the whole shader: a jump from the high view down to the low one in the second
  // frame leaves nodes waiting, and the picture is still the whole shader's.
  {
    render::ViewerOptions o;
    o.width = 320;
    o.height = 180;
    o.camera = views[1];
    o.cameraEnd = views[0];
    o.frames = 2;
    o.renderer.stream.loadRadius = 1500;
    o.renderer.stream.unloadRadius = 2000;
    o.renderer.samples = 1;
    const render::HeadlessResult jump = render::runHeadless(world, o);
    o.renderer.terrainShadingClasses = false;
    const render::HeadlessResult whole = render::runHeadless(world, o);
    EXPECT_EQ(jump.frames.front().terrainFallbackNodes, 0u);
    EXPECT_GT(jump.frames.back().terrainFallbackNodes, 0u) << "more than two new variants after the jump";
    size_t differing = 0;
    for (size_t i = 0; i < whole.pixels.size(); i += 4) differing += std::memcmp(&jump.pixels[i], &whole.pixels[i], 4) != 0;
    EXPECT_EQ(differing, 0u) << "nodes waiting for their variant";
  }
  // the variants used: the ground alone near the eye; some kinds' far field; crowns inside and
  // beyond the shadows' reach; the far field with neither
  using namespace render;
  auto any = [&](auto&& keep) {
    uint32_t nodes = 0;
    for (uint32_t key = 0; key < kTerrainShadings; ++key) nodes += keep(key) ? used[key] : 0;
    return nodes;
  };
  EXPECT_GT(any([](uint32_t key) { return key == kShadeShadows; }), 0u);
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeFarKinds) != 0 && (key & kShadeFarKinds) != kShadeFarKinds; }), 0u);
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeCrownKinds) != 0 && (key & kShadeShadows) != 0; }), 0u);
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeCrownKinds) != 0 && (key & kShadeShadows) == 0; }), 0u);
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeFarKinds) != 0 && (key & (kShadeCrownKinds | kShadeShadows)) == 0; }),
            0u);
  // the block's river: nodes with its water and without
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeWater) != 0; }), 0u);
  EXPECT_GT(any([](uint32_t key) { return (key & kShadeWater) == 0; }), 0u);
}

// The ground reads its biome (issue #29): the same 768 m block of the sample world baked with
// each shipped config and seen from above with the plants not drawn (the ground alone, which
// still reads them through the far-field survey). Temperate: mostly green-dominant pixels;
// arid: hardly any, and red over green on average.
TEST(RenderSample, EachShippedConfigsGroundReadsItsBiome) {
  if (std::string why = sampleSkipReason(); !why.empty()) GTEST_SKIP() << why;
  struct Hue {
    double green = 0, red = 0, meanR = 0, meanG = 0;
  };
  auto groundHue = [](const std::string& config) {
    test::TempDir dir;
    eco::World bakeWorld = loadWorld(config);
    bakeSampleTiles(bakeWorld, dir.file("bake"), TileRange{18, 28, 24, 34});
    render::Scene world = render::openBake(dir.file("bake"));
    render::ViewerOptions o;
    o.width = o.height = 128;
    o.validation = true;
    const float x = 21 * 128.f, z = 31 * 128.f;
    o.camera = render::fixtures::camera(x, bakeWorld.terrain.heightAt(x, z) + 700.f, z, 0, -89.9f);
    o.cull.farField = false;
    o.cull.drawDistance = {0.f, 0.f, 0.f, 0.f};
    o.view.fog = false;
    o.view.water = false;
    const render::HeadlessResult r = render::runHeadless(world, o);
    EXPECT_EQ(r.validationErrors, 0);
    Hue h;
    const double n = double(o.width) * double(o.height);
    for (size_t i = 0; i < r.pixels.size(); i += 4) {
      const int red = r.pixels[i], green = r.pixels[i + 1];
      h.green += green > red + 10;
      h.red += red > green + 10;
      h.meanR += red, h.meanG += green;
    }
    h.green /= n, h.red /= n, h.meanR /= n, h.meanG /= n;
    std::printf("%s: green-dominant %.3f, red-dominant %.3f, mean r %.0f g %.0f\n", config.c_str(), h.green, h.red,
                h.meanR, h.meanG);
    return h;
  };
  const Hue temperate = groundHue(kSampleConfig);
  const Hue arid = groundHue(test::sourceDir() + "/configs/arid_canyon.json");
  EXPECT_GT(temperate.green, 0.5);
  EXPECT_LT(arid.green, 0.1);
  EXPECT_GT(arid.meanR, arid.meanG);
}

namespace {

// Mean luminance (Rec. 709 on the 8-bit values) and the shares of pixels below 20 and at 250
// or more.
struct Exposed {
  double mean = 0, dark = 0, clipped = 0;
};
Exposed exposed(const std::vector<uint8_t>& rgba) {
  Exposed e;
  const double n = double(rgba.size() / 4);
  for (size_t i = 0; i < rgba.size(); i += 4) {
    const double y = 0.2126 * rgba[i] + 0.7152 * rgba[i + 1] + 0.0722 * rgba[i + 2];
    e.mean += y / n;
    e.dark += (y < 20) / n;
    e.clipped += (y >= 250) / n;
  }
  return e;
}

}  // namespace

// Exposure for a person (issue #29): standing in the densest stand of the baked block, looking
// level, auto-exposure gives a mean luminance of 60-160 with under 10 % of pixels below 20;
// the fixed exposure of 1 leaves the same frame darker (the test tells them apart); looking
// down on the sunlit block the metered picture clips under 1 %.
TEST(RenderSample, AutoExposureMakesAForestAtEyeLevelReadable) {
  if (std::string why = sampleSkipReason(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  eco::World bakeWorld = loadWorld(kSampleConfig);
  bakeSampleTiles(bakeWorld, dir.file("bake"), TileRange{18, 28, 24, 34});
  render::Scene world = render::openBake(dir.file("bake"));
  // the tile with the most tree crown area
  size_t best = 0;
  double bestArea = -1;
  for (size_t t = 0; t < world.tiles.size(); ++t) {
    double area = 0;
    for (const Instance& i : world.placedInstances(t))
      if (world.species[i.species].kind == 0) area += std::pow(double(world.species[i.species].crownRadius * i.scale), 2);
    if (area > bestArea) bestArea = area, best = t;
  }
  const render::SceneTile& tile = world.tiles[best];
  render::ViewerOptions o;
  o.width = 320;
  o.height = 180;
  o.validation = true;
  const float x = 0.5f * (tile.minX + tile.maxX), z = 0.5f * (tile.minZ + tile.maxZ);
  o.camera = render::fixtures::camera(x, bakeWorld.terrain.heightAt(x, z) + render::kMinEyeHeight, z, 0, 0);
  o.view.autoExposure = true;
  const render::HeadlessResult metered = render::runHeadless(world, o);
  o.view.autoExposure = false;
  const render::HeadlessResult fixed = render::runHeadless(world, o);
  EXPECT_EQ(metered.validationErrors + fixed.validationErrors, 0);
  const Exposed m = exposed(metered.pixels), f = exposed(fixed.pixels);
  std::printf("eye level in tile %d,%d: metered (exposure %.2f) mean %.1f, below 20 %.3f; fixed mean %.1f, below 20 %.3f\n",
              tile.x, tile.z, double(metered.frames.back().exposure), m.mean, m.dark, f.mean, f.dark);
  EXPECT_TRUE(metered.frames.back().metered);
  EXPECT_GE(m.mean, 60);
  EXPECT_LE(m.mean, 160);
  EXPECT_LT(m.dark, 0.10);
  EXPECT_LT(f.mean, m.mean - 15) << "exposure 1 is the darker picture here";

  o.view.autoExposure = true;
  o.camera = render::fixtures::camera(x, bakeWorld.terrain.heightAt(x, z) + 400.f, z + 600.f, 0, -35);
  const Exposed above = exposed(render::runHeadless(world, o).pixels);
  std::printf("from above: mean %.1f, clipped %.4f\n", above.mean, above.clipped);
  EXPECT_LT(above.clipped, 0.01);
  EXPECT_GE(above.mean, 60);
}
