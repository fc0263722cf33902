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
  HeadlessOptions o;
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

}  // namespace
