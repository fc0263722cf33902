// Auto-exposure's metering rule (render/exposure.h) on histograms with known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/exposure.h"

using namespace eco;
using namespace eco::render;

namespace {

constexpr double kBinWidth = double(METER_LOG_MAX - METER_LOG_MIN) / gpu::METER_BINS;

// The bin holding log2 luminance l, and that bin's centre.
size_t binOf(double l) { return size_t((l - double(METER_LOG_MIN)) / kBinWidth); }
double centre(size_t bin) { return double(METER_LOG_MIN) + (double(bin) + 0.5) * kBinWidth; }

TEST(RenderExposure, OneLuminanceIsBroughtToTheKey) {
  for (double l : {-6.0, -3.3, -2.0, -1.0}) {
    std::vector<uint32_t> bins(gpu::METER_BINS, 0);
    bins[binOf(l)] = 1000;
    const double expect = double(kExposureKey) / std::exp2(centre(binOf(l)));
    EXPECT_NEAR(meteredExposure(bins), std::clamp(expect, double(kExposureMin), double(kExposureMax)), 1e-4 * expect)
        << l;
  }
}

TEST(RenderExposure, ExtremesOutsideTheTenToNinetyPercentRangeDoNotSteer) {
  std::vector<uint32_t> bins(gpu::METER_BINS, 0);
  const size_t mid = binOf(-3.0);
  bins[mid] = 800;
  const float plain = meteredExposure(bins);
  bins[0] = 90;                      // 9 % black
  bins[gpu::METER_BINS - 1] = 90;    // 9 % the sun's glow
  EXPECT_FLOAT_EQ(meteredExposure(bins), plain);
  // two equal halves: the mean of their logs
  std::vector<uint32_t> halves(gpu::METER_BINS, 0);
  halves[binOf(-5.0)] = 500;
  halves[binOf(-1.0)] = 500;
  const double meanLog = 0.5 * (centre(binOf(-5.0)) + centre(binOf(-1.0)));
  EXPECT_NEAR(meteredExposure(halves), double(kExposureKey) / std::exp2(meanLog), 1e-4);
}

TEST(RenderExposure, EmptyAndExtremeHistogramsStayInRange) {
  std::vector<uint32_t> bins(gpu::METER_BINS, 0);
  EXPECT_EQ(meteredExposure(bins), 1.0f);
  bins[0] = 5;  // a black picture: brightened only up to the limit
  EXPECT_EQ(meteredExposure(bins), kExposureMax);
  bins[0] = 0;
  bins[gpu::METER_BINS - 1] = 5;  // blinding: darkened only down to the limit
  EXPECT_EQ(meteredExposure(bins), kExposureMin);
}

}  // namespace
