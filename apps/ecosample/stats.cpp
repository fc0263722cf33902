#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "core/error.h"
#include "terrain/png16.h"

namespace eco::sample {
namespace {

// Central differences, one-sided at the borders. Returns dh/dx, dh/dz.
void gradient(const Grid& h, int i, int j, float cell, float& gx, float& gz) {
  int i0 = std::max(i - 1, 0), i1 = std::min(i + 1, h.width - 1);
  int j0 = std::max(j - 1, 0), j1 = std::min(j + 1, h.height - 1);
  gx = (h.at(i1, j) - h.at(i0, j)) / (float(i1 - i0) * cell);
  gz = (h.at(i, j1) - h.at(i, j0)) / (float(j1 - j0) * cell);
}

}  // namespace

TerrainStats measure(const Grid& h, float cell) {
  TerrainStats s;
  auto [lo, hi] = std::minmax_element(h.values.begin(), h.values.end());
  s.minElevation = *lo;
  s.maxElevation = *hi;
  const float tan10 = std::tan(10 * std::numbers::pi_v<float> / 180);
  size_t steep = 0, north = 0, south = 0, low = 0, alpine = 0;
  for (int j = 0; j < h.height; ++j)
    for (int i = 0; i < h.width; ++i) {
      float gx, gz;
      gradient(h, i, j, cell, gx, gz);
      float g = std::hypot(gx, gz);
      steep += g > 1;
      // The normal leans along -gradient; north is -z, so north faces have gz > 0.
      if (g > tan10 && std::abs(gz) > std::abs(gx)) (gz > 0 ? north : south) += 1;
      low += h.at(i, j) < 400;
      alpine += h.at(i, j) > 2000;
    }
  double n = double(h.values.size()) / 100;
  s.steepPercent = double(steep) / n;
  s.northPercent = double(north) / n;
  s.southPercent = double(south) / n;
  s.lowPercent = double(low) / n;
  s.alpinePercent = double(alpine) / n;
  return s;
}

std::string describe(const TerrainStats& s) {
  char text[512];
  std::snprintf(text, sizeof text,
                "- elevation: %.1f .. %.1f m\n"
                "- area below 400 m (valley floor): %.1f %%\n"
                "- area above 2000 m (above the tree line): %.1f %%\n"
                "- slope above 45 degrees: %.1f %%\n"
                "- north-facing (slope > 10 deg, within 45 deg of north): %.1f %%\n"
                "- south-facing (likewise): %.1f %%\n",
                double(s.minElevation), double(s.maxElevation), s.lowPercent, s.alpinePercent, s.steepPercent,
                s.northPercent, s.southPercent);
  return text;
}

std::vector<uint8_t> previewPng(const std::string& path, const Grid& h, const Grid& river, float cell) {
  // Light from the west, 45 degrees up, so north and south faces shade alike.
  const float lx = -std::sqrt(0.5f), ly = std::sqrt(0.5f), lz = 0;
  std::vector<uint8_t> rgb(size_t(h.width) * size_t(h.height) * 3);
  for (int j = 0; j < h.height; ++j)
    for (int i = 0; i < h.width; ++i) {
      float gx, gz;
      gradient(h, i, j, cell, gx, gz);
      float len = std::sqrt(gx * gx + 1 + gz * gz);
      float shade = std::clamp((-gx * lx + ly - gz * lz) / len, 0.f, 1.f) * 0.85f + 0.15f;
      float e = h.at(i, j);
      float c[3];
      if (river.at(i, j) <= 0) c[0] = 0.2f, c[1] = 0.4f, c[2] = 0.9f, shade = 1;
      else if (e > 2300) c[0] = c[1] = c[2] = 0.95f;                                // snow and rock
      else if (e > 2000) c[0] = 0.55f, c[1] = 0.5f, c[2] = 0.45f;                   // alpine
      else if (std::hypot(gx, gz) > 1) c[0] = 0.5f, c[1] = 0.45f, c[2] = 0.42f;     // cliffs
      else if (e > 1200) c[0] = 0.3f, c[1] = 0.5f, c[2] = 0.3f;                     // conifers
      else c[0] = 0.45f, c[1] = 0.65f, c[2] = 0.3f;                                 // broadleaf
      uint8_t* px = &rgb[(size_t(j) * size_t(h.width) + size_t(i)) * 3];
      for (int k = 0; k < 3; ++k) px[k] = uint8_t(std::lround(255 * c[k] * shade));
    }
  return encodePngRgb8(path, h.width, h.height, rgb.data());
}

}  // namespace eco::sample
