#pragma once
// Terrain statistics that show whether the sample world exercises every eco-mask.
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.h"

namespace eco::sample {

struct TerrainStats {
  float minElevation = 0, maxElevation = 0;
  double steepPercent = 0;     // slope above 45 degrees
  double northPercent = 0;     // slope above 10 degrees, facing within 45 degrees of north
  double southPercent = 0;     // likewise facing south
  double lowPercent = 0;       // below 400 m
  double alpinePercent = 0;    // above 2000 m
};

TerrainStats measure(const Grid& heights, float cellSize);
std::string describe(const TerrainStats& s);  // a few lines of Markdown-friendly text

// Hillshaded, elevation-tinted RGB8 preview with the river in blue, as PNG bytes (path only
// names it in errors).
std::vector<uint8_t> previewPng(const std::string& path, const Grid& heights, const Grid& riverDistanceFull, float cellSize);

}  // namespace eco::sample
