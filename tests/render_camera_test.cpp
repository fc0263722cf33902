// The camera never goes under the terrain (issue #29 item 5): the ground height under it from
// the heights restated here (bilinear between samples, the edge sample past the world), and a
// headless camera under a hill is raised and says so.
#include <gtest/gtest.h>

#include "render/headless.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;

namespace {

TEST(RenderCamera, KeptAboveTheGroundWhereverItIs) {
  const Scene w = makeSyntheticScene(smallWorld(0));
  ASSERT_EQ(w.cellSize, 8.f);
  const float h00 = w.heights.at(64, 64), h10 = w.heights.at(65, 64), h01 = w.heights.at(64, 65), h11 = w.heights.at(65, 65);
  // On a sample, half-way between two, in the middle of a cell.
  EXPECT_FLOAT_EQ(groundHeight(w, 512.f, 512.f), h00);
  EXPECT_NEAR(groundHeight(w, 516.f, 512.f), 0.5f * (h00 + h10), 1e-3f);
  EXPECT_NEAR(groundHeight(w, 516.f, 516.f), 0.25f * (h00 + h10 + h01 + h11), 1e-3f);
  // Past the world's edge: the edge sample.
  EXPECT_FLOAT_EQ(groundHeight(w, -300.f, 512.f), w.heights.at(0, 64));
  EXPECT_FLOAT_EQ(groundHeight(w, 512.f, 5000.f), w.heights.at(64, w.heights.height - 1));

  Camera under = camera(512.f, -50.f, 512.f, 0.f, 10.f);
  EXPECT_NEAR(keepAboveGround(w, under), h00 + kMinEyeHeight + 50.f, 1e-3f);
  EXPECT_FLOAT_EQ(under.position.y, h00 + kMinEyeHeight);
  EXPECT_EQ(under.yawDeg, 0.f);
  EXPECT_EQ(under.pitchDeg, 10.f);
  Camera above = camera(512.f, h00 + 100.f, 512.f, 0.f, 10.f);
  EXPECT_EQ(keepAboveGround(w, above), 0.f);
  EXPECT_EQ(above.position.y, h00 + 100.f);
}

TEST(RenderCamera, HeadlessCameraUnderTheHillIsRaisedAndDrawsWhatTheRaisedOneSees) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  const Scene w = makeSyntheticScene(smallWorld(20000));
  ViewerOptions o;
  o.width = 160;
  o.height = 90;
  o.validation = true;
  o.camera = camera(512.f, 0.f, 700.f, 0.f, -5.f);  // inside the ridge
  const HeadlessResult lifted = runHeadless(w, o);
  EXPECT_TRUE(lifted.cameraLifted);
  EXPECT_EQ(lifted.validationErrors, 0);
  o.camera.position.y = groundHeight(w, 512.f, 700.f) + kMinEyeHeight;
  const HeadlessResult raised = runHeadless(w, o);
  EXPECT_FALSE(raised.cameraLifted);
  EXPECT_EQ(lifted.pixels, raised.pixels);
}

// A tilted plane, where bilinear heights are exact: h = 100 + 0.1 x - 0.05 z on 4 m cells.
Scene planeWorld() {
  Scene w;
  w.cellSize = 4;
  w.heights = Grid(65, 65);
  for (int j = 0; j < 65; ++j)
    for (int i = 0; i < 65; ++i) w.heights.at(i, j) = 100.f + 0.1f * float(i) * 4.f - 0.05f * float(j) * 4.f;
  return w;
}

// The picked point lies on the plane and projects, through the clip rows makeFrameData gives
// the GPU, back onto the pixel it was picked at.
TEST(RenderCamera, PickedGroundIsOnTheTerrainAndUnderThePixel) {
  const Scene w = planeWorld();
  constexpr int kW = 320, kH = 180;
  for (const Camera& cam : {camera(128.f, 300.f, 300.f, 0.f, -45.f), camera(20.f, 140.f, 20.f, 135.f, -20.f)})
    for (auto [px, py] : {std::pair{160.5f, 90.5f}, {120.5f, 140.5f}, {200.5f, 60.5f}}) {
      Vec3 hit;
      ASSERT_TRUE(pickTerrain(w, cam, kW, kH, px, py, hit)) << px << " " << py;
      EXPECT_NEAR(hit.y, 100.f + 0.1f * hit.x - 0.05f * hit.z, 2e-3f);
      const gpu::FrameData f = makeFrameData(cam, kW, kH, CullSettings{});
      auto row = [&](int r) { return f.clip[r].x * hit.x + f.clip[r].y * hit.y + f.clip[r].z * hit.z + f.clip[r].w; };
      const float sx = (row(0) / row(3) * 0.5f + 0.5f) * float(kW), sy = (row(1) / row(3) * 0.5f + 0.5f) * float(kH);
      EXPECT_NEAR(sx, px, 0.02f);
      EXPECT_NEAR(sy, py, 0.02f);
    }
  Vec3 hit;
  EXPECT_FALSE(pickTerrain(w, camera(128.f, 300.f, 300.f, 0.f, 30.f), kW, kH, 160.5f, 90.5f, hit));  // the sky
  EXPECT_FALSE(pickTerrain(w, camera(128.f, 300.f, 128.f, 0.f, -2.f), kW, kH, 160.5f, 90.5f, hit));   // past the edge
}

// A layer's value at a point: bilinear between its decoded samples, written out by hand.
TEST(RenderCamera, LayerValueUnderAPointIsBilinearInItsSamples) {
  SceneLayer l;
  l.width = 3, l.height = 2;
  l.valueMin = 0, l.valueMax = 510;  // code c is 2 c
  l.data = {0, 10, 20, 30, 40, 250};
  EXPECT_FLOAT_EQ(l.valueAt(4.f, 4.f, 0.f), 20.f);          // sample (1, 0)
  EXPECT_FLOAT_EQ(l.valueAt(4.f, 2.f, 0.f), 10.f);          // between 0 and 20
  EXPECT_FLOAT_EQ(l.valueAt(4.f, 6.f, 2.f), 0.5f * (0.5f * (20 + 40) + 0.5f * (80 + 500)));
  EXPECT_FLOAT_EQ(l.valueAt(4.f, 100.f, 100.f), 500.f);     // past the corner: its sample
}

}  // namespace
