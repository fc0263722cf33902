#pragma once
// Plain data types shared by every stage. World frame: x east, z south (image rows grow
// southward), y up, metres. Heightmap pixel (i, j) sits at world (i * cell, j * cell), so a
// W x H heightmap spans (W - 1) * cell by (H - 1) * cell.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eco {

struct Vec2 {
  float x = 0, z = 0;
};

struct Vec3 {
  float x = 0, y = 0, z = 0;
};

// Row-major single-channel raster.
struct Grid {
  int width = 0;
  int height = 0;
  std::vector<float> values;

  Grid() = default;
  Grid(int w, int h, float fill = 0.f) : width(w), height(h), values(size_t(w) * size_t(h), fill) {}
  float& at(int x, int y) { return values[size_t(y) * size_t(width) + size_t(x)]; }
  float at(int x, int y) const { return values[size_t(y) * size_t(width) + size_t(x)]; }
};

}  // namespace eco
