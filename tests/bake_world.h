#pragma once
// A small synthetic world for bake tests: a steep east-west ridge (faces past 60 degrees,
// north and south slopes, valley floors) on a 1 km square, plus a config with one species of
// each kind.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "terrain/png16.h"
#include "test_support.h"

namespace eco::test {

inline float ridgeHeight(float x, float z) {
  float d = (z - 512.f) / 180.f;
  return 300.f + 700.f * std::exp(-d * d) + 80.f * std::sin(x / 90.f);
}

// Writes heightmap.png (n x n pixels `cell` metres apart, heights from height(x, z) in 0 ..
// 1200 m) and world.json with this JSON array of species into dir; returns the config path.
inline std::string writeWorld(const TempDir& dir, int n, float cell, const std::function<float(float, float)>& height,
                              const std::string& species, int seed = 11, float tileSize = 128.f) {
  std::vector<uint16_t> pixels(size_t(n) * size_t(n));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      pixels[size_t(j) * size_t(n) + size_t(i)] =
          uint16_t(std::lround(height(float(i) * cell, float(j) * cell) / 1200.f * 65535.f));
  writePng16(dir.file("heightmap.png"), n, n, pixels.data());
  std::ostringstream cellText;
  cellText << cell;
  std::string config = R"({"name": "ridge", "terrain": {"heightmap": "heightmap.png", "cell_size": )" + cellText.str() +
                       R"(, "min_elevation": 0, "max_elevation": 1200}, "sun": {"azimuth_deg": 180},
    "tiling": {"tile_size": )" + std::to_string(tileSize) + R"(}, "seed": )" + std::to_string(seed) +
                       R"(, "species": )" + species + "}";
  std::ofstream(dir.file("world.json")) << config;
  return dir.file("world.json");
}

// Writes heightmap.png and world.json into dir; returns the config path.
inline std::string writeRidgeWorld(const TempDir& dir, int seed = 11, float tileSize = 128.f) {
  std::string species = R"([
    {"name": "pine", "kind": "tree", "radius": 6, "max_radius_factor": 3,
     "elevation": {"min": 250, "opt_low": 350, "opt_high": 650, "max": 750},
     "slope": {"max_deg": 35, "falloff_deg": 10}, "sun_preference": 0.3,
     "mesh": {"height": 20, "crown_radius": 3}, "footprint": 0.8},
    {"name": "juniper", "kind": "shrub", "radius": 2.5, "max_radius_factor": 3,
     "elevation": {"min": 500, "opt_low": 650, "opt_high": 900, "max": 1000},
     "slope": {"max_deg": 50, "falloff_deg": 10}, "max_tilt_deg": 20,
     "mesh": {"height": 2, "crown_radius": 1.2}},
    {"name": "fescue", "kind": "grass", "radius": 1.5, "max_radius_factor": 3,
     "elevation": {"min": 200, "opt_low": 260, "opt_high": 950, "max": 1100},
     "slope": {"max_deg": 55, "falloff_deg": 10}, "mesh": {"height": 0.5, "crown_radius": 0.4}},
    {"name": "moss", "kind": "ground_cover", "radius": 1.2, "max_radius_factor": 3, "sun_preference": -0.8,
     "elevation": {"min": 200, "opt_low": 300, "opt_high": 1000, "max": 1100},
     "slope": {"max_deg": 70, "falloff_deg": 15}, "mesh": {"height": 0.1, "crown_radius": 0.3}}
  ])";
  return writeWorld(dir, 257, 4.f, ridgeHeight, species, seed, tileSize);
}

// The ridge world with a river mask of 129 x 129 pixels (8 m apart) whose column 50, x = 400 m,
// is river from north to south: the distance to the river is |x - 400| everywhere.
// riverExtra: more fields of the config's river object (", \"channel_width\": 30"); sun: the
// config's sun object instead of the ridge world's, when not empty.
inline std::string writeRiverRidgeWorld(const TempDir& dir, const std::string& riverExtra = "",
                                        const std::string& sun = "") {
  const std::string config = writeRidgeWorld(dir);
  std::vector<uint16_t> mask(129 * 129, 0);
  for (int j = 0; j < 129; ++j) mask[size_t(j) * 129 + 50] = 65535;
  writePng16(dir.file("river.png"), 129, 129, mask.data());
  std::string text = readBytes(config);
  const std::string ridgeSun = R"("sun": {"azimuth_deg": 180})";
  text.replace(text.find(ridgeSun), ridgeSun.size(),
               R"("river": {"mask": "river.png")" + riverExtra + "}, \"sun\": " + (sun.empty() ? R"({"azimuth_deg": 180})" : sun));
  std::ofstream(config) << text;
  return config;
}

// Heights of a valley or ridge along z at x = 256 m with walls of wallDeg on a 512 m square
// (129 pixels, 4 m apart), between 300 m and 450 m: a V-shaped valley cut into a plateau at
// 450 m (valley = true; its floor pixels are i = 64) or a ridge standing on a plain at 300 m.
inline std::function<float(float, float)> vWorldHeight(bool valley, float wallDeg = 40.f) {
  const float rise = std::tan(wallDeg * 3.14159265f / 180.f);
  return [=](float x, float) {
    const float wall = std::min(rise * std::fabs(x - 256.f), 150.f);
    return valley ? 300.f + wall : 450.f - wall;
  };
}

}  // namespace eco::test
