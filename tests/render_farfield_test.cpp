// The far field: the survey's texel layout, the default camera's framing, and on an aerial
// view, the vegetation seen per screen region with a small streaming radius (most of the view
// beyond the instances, drawn by the far field) against everything loaded and drawn as instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "render/far_field.h"
#include "render/headless.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;

namespace {

Scene tileGrid(int tilesPerSide, float tileSize) {
  Scene w;
  w.tileSize = tileSize;
  for (int z = 0; z < tilesPerSide; ++z)
    for (int x = 0; x < tilesPerSide; ++x)
      w.tiles.push_back(
          {x, z, 0, float(x) * tileSize, float(z) * tileSize, float(x + 1) * tileSize, float(z + 1) * tileSize});
  return w;
}

TEST(RenderFarField, LayoutTexelsDivideTilesAndTheImageStaysWithin2048) {
  FarFieldLayout small = farFieldLayout(makeSyntheticScene(smallWorld(0)));  // 4 x 4 tiles of 256 m
  EXPECT_EQ(small.texelsPerTile, 32u);
  EXPECT_FLOAT_EQ(small.texelSize, 8.0f);
  EXPECT_EQ(small.width, 128u);
  EXPECT_EQ(small.mips, 6u);  // 8 m .. 256 m (one texel per tile)
  FarFieldLayout sample = farFieldLayout(tileGrid(50, 128));
  EXPECT_EQ(sample.texelsPerTile, 16u);
  EXPECT_EQ(sample.width, 800u);
  FarFieldLayout big = farFieldLayout(tileGrid(1000, 128));  // 128 km: 64 m texels
  EXPECT_EQ(big.texelsPerTile, 2u);
  EXPECT_LE(big.width, kFarFieldMaxSize);
  EXPECT_EQ(farFieldLayout(tileGrid(2100, 128)).texelsPerTile, 0u) << "over 2048 tiles a side: no far field";
  EXPECT_EQ(farFieldLayout(Scene{}).texelsPerTile, 0u);
}

// Projection written from the camera definition (camera.h: basis, vertical field of view,
// x scaled by the aspect ratio), not from makeFrameData's matrix.
void expectCornersInside(const Scene& world, int width, int height) {
  Camera cam = defaultCamera(world, width, height);
  CameraBasis b = cameraBasis(cam);
  double t = std::tan(double(cam.fovYDeg) * 3.14159265358979 / 360.0), aspect = double(width) / height;
  double extent = 0;
  for (int i = 0; i < 4; ++i) {
    int gx = (i & 1) ? world.heights.width - 1 : 0, gz = (i & 2) ? world.heights.height - 1 : 0;
    Vec3 p{float(gx) * world.cellSize, world.heights.at(gx, gz), float(gz) * world.cellSize};
    Vec3 rel = p - cam.position;
    double z = double(dot(rel, b.forward));
    ASSERT_GT(z, cam.nearPlane) << "corner " << i << " behind the camera";
    double x = double(dot(rel, b.right)) / (z * t * aspect), y = double(dot(rel, b.up)) / (z * t);
    EXPECT_LT(std::abs(x), 1.0) << width << "x" << height << " corner " << i;
    EXPECT_LT(std::abs(y), 1.0) << width << "x" << height << " corner " << i;
    extent = std::max({extent, std::abs(x), std::abs(y)});
  }
  EXPECT_GT(extent, 0.6) << "the world fills the view rather than a speck of it";
  EXPECT_LT(cam.pitchDeg, -20.0f) << "looking down on it";
}

TEST(RenderFarField, DefaultCameraFramesTheWholeWorld) {
  Scene square = makeSyntheticScene(smallWorld(0));
  Scene wide;
  wide.cellSize = 10;
  wide.heights = Grid(400, 90);  // 4 km x 0.9 km, a slope rising to the north-east
  for (int j = 0; j < 90; ++j)
    for (int i = 0; i < 400; ++i) wide.heights.at(i, j) = 300.0f + float(i) * 0.5f - float(j) * 2.0f;
  for (const Scene* w : {&square, &wide})
    for (auto [width, height] : {std::pair{1280, 720}, {640, 640}, {360, 640}, {2560, 720}})
      expectCornersInside(*w, width, height);
}

// Vegetation signal of each of 8 x 8 screen regions: the mean over its pixels of how far the
// picture is from the terrain-only picture (sum of |difference| over r, g, b, 0..765). A pixel
// fully covered by a plant counts its whole difference, a far-field pixel covered to a
// fraction c counts about c of it, so region means compare like coverages.
constexpr int kGrid = 8;
std::vector<double> regionSignal(const HeadlessResult& picture, const HeadlessResult& terrain, int width, int height) {
  std::vector<double> sum(kGrid * kGrid, 0.0), count(kGrid * kGrid, 0.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      size_t i = (size_t(y) * size_t(width) + size_t(x)) * 4;
      double d = 0;
      for (size_t c = 0; c < 3; ++c) d += std::abs(int(picture.pixels[i + c]) - int(terrain.pixels[i + c]));
      size_t r = size_t((y * kGrid / height) * kGrid + x * kGrid / width);
      sum[r] += d;
      count[r] += 1;
    }
  for (size_t r = 0; r < sum.size(); ++r) sum[r] /= std::max(count[r], 1.0);
  return sum;
}

// Regions where the terrain-only picture shows more than 5 % sky: there the reference has
// plants standing out against the sky (ridge lines, the world's edges), which a far field
// painted on the terrain cannot draw (that needs impostors); they are reported, not judged.
std::vector<bool> skyRegions(const HeadlessResult& terrain, int width, int height) {
  std::vector<double> sky(kGrid * kGrid, 0.0), count(kGrid * kGrid, 0.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      size_t r = size_t((y * kGrid / height) * kGrid + x * kGrid / width);
      size_t i = (size_t(y) * size_t(width) + size_t(x)) * 4;
      sky[r] += std::equal(&terrain.pixels[i], &terrain.pixels[i + 3],
                           &terrain.pixels[0]);  // the top-left pixel is sky in these views
      count[r] += 1;
    }
  std::vector<bool> out(kGrid * kGrid);
  for (size_t r = 0; r < out.size(); ++r) out[r] = sky[r] > 0.05 * count[r];
  return out;
}

struct Comparison {
  double worst = 0, median = 0;
  int failing = 0, judged = 0;
};

// A region fails when its signal differs from the reference's by more than 30 % of the
// reference's plus 10 levels (sub-pixel plants: the reference draws few of them far away, the
// far field their whole coverage).
Comparison compare(const std::vector<double>& s, const std::vector<double>& ref, const std::vector<bool>& skip,
                   const char* name) {
  Comparison c;
  std::vector<double> errors;
  std::printf("%s: region signal (reference), * = sky region, not judged\n", name);
  for (size_t r = 0; r < size_t(kGrid * kGrid); ++r) {
    double e = std::abs(s[r] - ref[r]);
    std::printf(" %5.1f(%5.1f)%s%s", s[r], ref[r], skip[r] ? "*" : " ", r % kGrid == kGrid - 1 ? "\n" : "");
    if (skip[r]) continue;
    errors.push_back(e);
    c.worst = std::max(c.worst, e);
    c.failing += e > 0.3 * ref[r] + 10.0;
    ++c.judged;
  }
  std::sort(errors.begin(), errors.end());
  c.median = errors.empty() ? 0 : errors[errors.size() / 2];
  std::printf("%s: %d regions judged, worst |difference| %.1f, median %.1f, over tolerance %d\n", name, c.judged,
              c.worst, c.median, c.failing);
  return c;
}

TEST(RenderFarField, StreamingPictureKeepsTheVegetationOfTheAllLoadedPicture) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  HeadlessOptions o;
  o.width = 256;
  o.height = 144;
  o.validation = true;
  o.camera = camera(200, 260, 1100, 25, -28);  // south-west of the map, looking north-east over it
  o.view.sky = false;  // a flat background: sky pixels equal the top-left one
  // everything resident, every instance drawn however far
  HeadlessOptions all = o;
  all.renderer.stream.loadRadius = all.renderer.stream.unloadRadius = 5000;
  all.cull.fade = false;
  // ecoview's defaults but a 450 m load radius: beyond it (most of the view) the far field
  HeadlessOptions streaming = o;
  streaming.renderer.stream.loadRadius = 450;
  streaming.renderer.stream.unloadRadius = 550;
  HeadlessOptions without = streaming;
  without.cull.farField = false;
  HeadlessOptions terrain = all;
  terrain.cull.fade = true;
  terrain.cull.drawDistance.fill(0);
  terrain.cull.farField = false;

  HeadlessResult rAll = runHeadless(world, all), rStreaming = runHeadless(world, streaming);
  HeadlessResult rWithout = runHeadless(world, without), rTerrain = runHeadless(world, terrain);
  for (const HeadlessResult* r : {&rAll, &rStreaming, &rWithout, &rTerrain}) EXPECT_EQ(r->validationErrors, 0);
  EXPECT_EQ(rTerrain.frames.back().afterFrustum, 0u);
  EXPECT_LT(rStreaming.frames.back().resident, rAll.frames.back().resident / 2) << "most of the world not loaded";
  if (const char* dir = std::getenv("ECO_FARFIELD_PICTURES")) {
    std::string d = dir;
    writeScreenshot(d + "/all.png", o.width, o.height, rAll.pixels);
    writeScreenshot(d + "/streaming.png", o.width, o.height, rStreaming.pixels);
    writeScreenshot(d + "/without.png", o.width, o.height, rWithout.pixels);
    writeScreenshot(d + "/terrain.png", o.width, o.height, rTerrain.pixels);
  }

  std::vector<double> ref = regionSignal(rAll, rTerrain, o.width, o.height);
  std::vector<bool> sky = skyRegions(rTerrain, o.width, o.height);
  Comparison with = compare(regionSignal(rStreaming, rTerrain, o.width, o.height), ref, sky, "far field");
  Comparison no = compare(regionSignal(rWithout, rTerrain, o.width, o.height), ref, sky, "no far field");
  EXPECT_GT(with.judged, kGrid * kGrid / 2);
  EXPECT_EQ(with.failing, 0);
  EXPECT_GT(no.failing, with.judged / 4) << "the test tells a picture without the far field apart";
}

}  // namespace

namespace {

// The species' cover the panel shows: crown area over the world's area, from the survey, equal
// to the sum over every tile's instances written here (pi (crown radius x scale)^2).
TEST(RenderFarField, SpeciesCoverIsTheCrownAreaOverTheWorld) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  const SyntheticOptions so = smallWorld(40000);
  const Scene w = makeSyntheticScene(so);
  HeadlessOptions o;
  o.width = 64;
  o.height = 36;
  o.camera = defaultCamera(w, o.width, o.height);
  const HeadlessResult r = runHeadless(w, o);
  ASSERT_EQ(r.frames.size(), 1u);
  const std::vector<double>& cover = r.frames[0].speciesCover;
  ASSERT_EQ(cover.size(), w.species.size());
  std::vector<double> area(w.species.size(), 0.0);
  for (size_t t = 0; t < w.tiles.size(); ++t)
    for (const Instance& i : syntheticTileInstances(w, so.seed, t)) {
      const double radius = double(w.species[i.species].crownRadius) * double(i.scale);
      area[i.species] += 3.14159265358979 * radius * radius;
    }
  const double world = double(so.gridSize - 1) * double(so.cellSize) * double(so.gridSize - 1) * double(so.cellSize);
  for (size_t s = 0; s < cover.size(); ++s) {
    std::printf("species %zu: cover %.5f (reference %.5f)\n", s, cover[s], area[s] / world);
    EXPECT_GT(area[s], 0.0);
    EXPECT_NEAR(cover[s], area[s] / world, 1e-6 * area[s] / world + 1e-12) << s;
  }
}

}  // namespace
