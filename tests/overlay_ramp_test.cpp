// The mask overlay's colour ramp (shaders/overlay_ramp.h), shared by the terrain shader and the
// viewer's legend: the properties its comment claims, checked against numbers written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "shaders/overlay_ramp.h"

namespace {

using eco::gpu::overlayRamp;
using eco::gpu::vec3;

// Rec. 709 luma weights of the stored values
double luminance(vec3 c) { return 0.2126 * double(c.x) + 0.7152 * double(c.y) + 0.0722 * double(c.z); }

void expectColour(vec3 got, double r, double g, double b) {
  EXPECT_NEAR(got.x, r, 1e-6);
  EXPECT_NEAR(got.y, g, 1e-6);
  EXPECT_NEAR(got.z, b, 1e-6);
}

TEST(OverlayRamp, EndsAreViridisDarkVioletAndYellow) {
  expectColour(overlayRamp(0.0f), 0.267, 0.005, 0.329);
  expectColour(overlayRamp(1.0f), 0.993, 0.906, 0.144);
  expectColour(overlayRamp(0.5f), 0.128, 0.567, 0.551);  // the middle stop: teal
}

TEST(OverlayRamp, LuminanceRisesStrictlyAndSmoothly) {
  constexpr int kSteps = 4096;
  double previous = luminance(overlayRamp(0.0f));
  EXPECT_NEAR(previous, 0.084, 0.001);
  vec3 last = overlayRamp(0.0f);
  for (int i = 1; i <= kSteps; ++i) {
    vec3 c = overlayRamp(float(i) / kSteps);
    double l = luminance(c);
    ASSERT_GT(l, previous) << "t = " << double(i) / kSteps;
    // continuous: no step between neighbouring samples larger than the steepest stop spacing allows
    ASSERT_LT(std::fabs(double(c.x - last.x)) + std::fabs(double(c.y - last.y)) + std::fabs(double(c.z - last.z)),
              0.004)
        << "t = " << double(i) / kSteps;
    for (float v : {c.x, c.y, c.z}) ASSERT_TRUE(v >= 0.0f && v <= 1.0f);
    previous = l;
    last = c;
  }
  EXPECT_NEAR(previous, 0.870, 0.001);
}

TEST(OverlayRamp, OutOfRangeValuesClampAndNanIsTheLowEnd) {
  auto same = [](vec3 a, vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
  EXPECT_TRUE(same(overlayRamp(-3.0f), overlayRamp(0.0f)));
  EXPECT_TRUE(same(overlayRamp(7.0f), overlayRamp(1.0f)));
  EXPECT_TRUE(same(overlayRamp(std::numeric_limits<float>::infinity()), overlayRamp(1.0f)));
  EXPECT_TRUE(same(overlayRamp(-std::numeric_limits<float>::infinity()), overlayRamp(0.0f)));
  EXPECT_TRUE(same(overlayRamp(std::numeric_limits<float>::quiet_NaN()), overlayRamp(0.0f)));
}

}  // namespace
