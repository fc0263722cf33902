#pragma once
// Inside the report stage: the terrain bins of a plant (report.h TerrainBins), shared by diff
// and report.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "report/report.h"
#include "tileio/tileio.h"

namespace eco {

inline constexpr int kMasks = 3;
inline constexpr float kSlopeEdges[TerrainBins::kSlopeBins] = {0, 5, 10, 20, 30, 45};
inline constexpr const char* kAspectNames[8] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};

// The bins of a point: the nearest terrain sample's height, and its gradient by central
// differences (one-sided at the edges).
struct BinTerrain {
  const std::vector<float>& h;
  int w, hgt;
  float cell, minY, maxY;
  float at(int i, int j) const { return h[size_t(j) * size_t(w) + size_t(i)]; }
  void bins(float x, float z, int out[kMasks]) const {
    const int i = std::clamp(int(std::lround(x / cell)), 0, w - 1), j = std::clamp(int(std::lround(z / cell)), 0, hgt - 1);
    const float y = at(i, j);
    const float span = maxY - minY;
    out[0] = span > 0 ? std::clamp(int((y - minY) / span * float(TerrainBins::kElevationBins)), 0,
                                   TerrainBins::kElevationBins - 1)
                      : 0;
    const int i0 = std::max(i - 1, 0), i1 = std::min(i + 1, w - 1), j0 = std::max(j - 1, 0), j1 = std::min(j + 1, hgt - 1);
    const float dx = i1 > i0 ? (at(i1, j) - at(i0, j)) / (float(i1 - i0) * cell) : 0.f;
    const float dz = j1 > j0 ? (at(i, j1) - at(i, j0)) / (float(j1 - j0) * cell) : 0.f;
    const float slope = std::atan(std::hypot(dx, dz)) * (180.f / std::numbers::pi_v<float>);
    int s = 0;
    while (s + 1 < TerrainBins::kSlopeBins && slope >= kSlopeEdges[s + 1]) ++s;
    out[1] = s;
    if (slope < 5.f) {
      out[2] = 8;  // flat
    } else {
      // The ground faces downhill, (-dx, -dz); compass angle from north (-z) toward east (+x).
      const float angle = std::atan2(-dx, dz) * (180.f / std::numbers::pi_v<float>);
      out[2] = int(std::lround((angle < 0 ? angle + 360.f : angle) / 45.f)) % 8;
    }
  }
};

}  // namespace eco
