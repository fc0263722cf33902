#pragma once
// Synthetic density fields and helpers shared by the sampling_*_test suites.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sampling/sampling.h"

namespace eco::test {

// density = x / width (0 at x = 0, 1 at x = width), for every class.
struct GradientX : DensityField {
  float width;
  explicit GradientX(float w) : width(w) {}
  float density(int, float x, float) const override { return std::clamp(x / width, 0.f, 1.f); }
  float maxDensity(int, float, float, float x1, float) const override { return std::clamp(x1 / width, 0.f, 1.f); }
};

// Discs of full density on a regular lattice, zero density between them.
struct DiscIslands : DensityField {
  float spacing, discRadius;
  DiscIslands(float s, float r) : spacing(s), discRadius(r) {}
  float density(int, float x, float z) const override {
    const float cx = (std::floor(x / spacing) + 0.5f) * spacing, cz = (std::floor(z / spacing) + 0.5f) * spacing;
    return (x - cx) * (x - cx) + (z - cz) * (z - cz) < discRadius * discRadius ? 1.f : 0.f;
  }
  // 1 where the rectangle comes within discRadius of a lattice centre: exercises the
  // sampler's skipping of empty rectangles.
  float maxDensity(int, float x0, float z0, float x1, float z1) const override {
    for (float cz = (std::floor(z0 / spacing) - 0.5f) * spacing; cz < z1 + spacing; cz += spacing)
      for (float cx = (std::floor(x0 / spacing) - 0.5f) * spacing; cx < x1 + spacing; cx += spacing) {
        const float dx = std::max({x0 - cx, 0.f, cx - x1}), dz = std::max({z0 - cz, 0.f, cz - z1});
        if (dx * dx + dz * dz <= discRadius * discRadius * 1.01f) return 1.f;
      }
    return 0.f;
  }
};

// A smooth field in [0, 1] with zero patches, different per class.
struct Waves : DensityField {
  float density(int cls, float x, float z) const override {
    const float v = 0.5f + 0.6f * std::sin(0.031f * x + 1.3f * float(cls)) * std::cos(0.027f * z);
    return std::clamp(v, 0.f, 1.f);
  }
};

// Waves sampled on a raster (2 m pixels) and read back bilinearly; exposeRaster picks
// whether the sampler reads it inline (DensityField::window) or through density().
struct RasterWaves : DensityField {
  std::vector<std::vector<float>> pixels;  // per class
  std::vector<RasterView> views;
  bool exposeRaster = true;
  RasterWaves(int classes, float worldX, float worldZ) {
    const float cell = 2.f;
    const int w = int(worldX / cell) + 2, h = int(worldZ / cell) + 2;
    const Waves waves;
    for (int c = 0; c < classes; ++c) {
      std::vector<float>& v = pixels.emplace_back(size_t(w) * size_t(h));
      for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) v[size_t(j) * size_t(w) + size_t(i)] = waves.density(c, float(i) * cell, float(j) * cell);
    }
    for (const std::vector<float>& v : pixels) views.push_back({v.data(), w, h, 1.f / cell});
  }
  float density(int cls, float x, float z) const override { return bilinearScaled(views[size_t(cls)], x, z); }
  // The whole raster as the window (no bounds: maxDensity stays the default).
  bool window(int cls, float, float, float, float, DensityWindow& w) const override {
    if (!exposeRaster) return false;
    const RasterView& v = views[size_t(cls)];
    w.shape = {nullptr, v.width, v.height, v.invCellSize};
    w.i0 = 0, w.j0 = 0, w.i1 = v.width, w.j1 = v.height;
    w.pixels = pixels[size_t(cls)].data();
    w.stride = v.width;
    w.blockLevel = -1;
    return true;
  }
};

// Two layers: class 0 (trees) at 0.6 everywhere, class 1 smooth waves between 0.1 and 1 with
// zero patches (grass next to the trees).
struct TreesAndGrass : DensityField {
  float density(int cls, float x, float z) const override {
    if (cls == 0) return 0.6f;
    const float v = 0.55f + 0.6f * std::sin(0.045f * x) * std::cos(0.037f * z);
    return v < 0.1f ? 0.f : std::min(v, 1.f);
  }
};

inline std::vector<Sample> flatten(const std::vector<TileSamples>& tiles) {
  std::vector<Sample> all;
  for (const TileSamples& t : tiles) all.insert(all.end(), t.samples.begin(), t.samples.end());
  return all;
}

inline bool sameBytes(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Sample)) == 0);
}

inline SamplerParams uniformParams(float worldX, float worldZ, float tile, float radius, uint64_t seed) {
  SamplerParams p;
  p.worldX = worldX;
  p.worldZ = worldZ;
  p.tileSize = tile;
  p.seed = seed;
  p.classes = {{radius, 4.f * radius}};
  return p;
}

}  // namespace eco::test
