#pragma once
// Plain data types shared by every stage. World frame: x east, z south (image rows grow
// southward), y up, metres. Heightmap pixel (i, j) sits at world (i * cell, j * cell), so a
// W x H heightmap spans (W - 1) * cell by (H - 1) * cell.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
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

// The ground's colours and snow line (config `ground`, written to the manifest for the viewer;
// docs/viewer-look.md). Colours are albedos in [0, 1], display values like species colours,
// by GroundColor (the order of the shaders' GROUND_*); their names are the config's and the
// manifest's keys.
enum GroundColor : uint32_t {
  kGroundSoil,   // bare ground, and the litter under crowns (darkened)
  kGroundGrass,  // where grass and ground cover grow, by how much of it there is
  kGroundRock,   // cliffs and steep slopes
  kGroundSand,   // river banks
  kGroundSnow,
  kGroundColors
};
inline constexpr std::array<const char*, kGroundColors> kGroundColorNames = {"soil", "grass", "rock", "sand", "snow"};
struct GroundPalette {
  float color[kGroundColors][3];
  float snowline = std::numeric_limits<float>::infinity();  // metres of elevation; infinity: no snow
};
// The presets of `ground.preset` (the first is the default: a config without `ground`).
inline constexpr GroundPalette kTemperateGround{
    {{0.25f, 0.19f, 0.13f}, {0.13f, 0.21f, 0.06f}, {0.30f, 0.28f, 0.26f}, {0.42f, 0.38f, 0.29f}, {0.80f, 0.82f, 0.86f}}};
inline constexpr GroundPalette kAridGround{
    {{0.45f, 0.33f, 0.22f}, {0.33f, 0.31f, 0.17f}, {0.48f, 0.33f, 0.24f}, {0.58f, 0.48f, 0.34f}, {0.80f, 0.82f, 0.86f}}};

}  // namespace eco
