#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.h"
#include "terrain/distance_transform.h"
#include "terrain/terrain.h"

namespace eco {
namespace {

// Cell size that makes the river image span the heightmap's world extent (riverExtentProblem
// says when it cannot).
float riverCellSize(const Image& image, const Heightmap& terrain, const std::string& path) {
  const Grid& g = image.pixels;
  if (g.width < 2 || g.height < 2)
    throw InputError(path + ": river image of " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                     " is too small (need at least 2x2)");
  if (terrain.metres.width < 2 || terrain.metres.height < 2)
    throw InputError(path + ": heightmap is too small to place a river field (need at least 2x2)");
  std::string problem = riverExtentProblem(g.width, g.height, terrain.metres.width, terrain.metres.height);
  if (!problem.empty()) throw InputError(path + ": " + problem);
  return terrain.extentX() / float(g.width - 1);
}

}  // namespace

std::string riverExtentProblem(int riverWidth, int riverHeight, int heightmapWidth, int heightmapHeight) {
  // Both images span the same world rectangle: the river grid stretched to the heightmap's
  // width must reach its height, and stretched to its height must reach its width, within
  // half a heightmap cell. In pixels of the heightmap, so the rule does not depend on the
  // cell size.
  const double rx = riverWidth - 1, rz = riverHeight - 1, hx = heightmapWidth - 1, hz = heightmapHeight - 1;
  if (rx > 0 && rz > 0 && std::abs(rz * hx / rx - hz) <= 0.5 && std::abs(rx * hz / rz - hx) <= 0.5) return "";
  return "river image of " + std::to_string(riverWidth) + "x" + std::to_string(riverHeight) +
         " does not cover the same area as the heightmap of " + std::to_string(heightmapWidth) + "x" +
         std::to_string(heightmapHeight) + ": the aspect ratio (width - 1) / (height - 1) must match within half a pixel";
}

float RiverField::distanceAt(float x, float z) const { return sampleBilinear(metres, cellSize, x, z); }

RiverField riverFieldFromDistance(Image image, float scale, const Heightmap& terrain, const std::string& path) {
  const float cell = riverCellSize(image, terrain, path);
  RiverField field{std::move(image.pixels), cell};
  for (float& d : field.metres.values) d *= scale;
  return field;
}

RiverField riverFieldFromMask(const Image& image, const Heightmap& terrain, const std::string& path) {
  float cell = riverCellSize(image, terrain, path);
  const Grid& mask = image.pixels;
  std::vector<uint8_t> isRiver(mask.values.size());
  bool anyRiver = false;
  for (size_t i = 0; i < isRiver.size(); ++i) anyRiver |= (isRiver[i] = mask.values[i] > 0.5f) != 0;

  // No river anywhere: every point is "far", one world diagonal away (finite, so it can be
  // compared, scaled and sampled like any other distance).
  if (!anyRiver) {
    float diagonal = std::hypot(terrain.extentX(), terrain.extentZ());
    return {Grid(mask.width, mask.height, diagonal), cell};
  }
  std::vector<double> squared = squaredDistanceTransform(isRiver.data(), mask.width, mask.height);
  RiverField field{Grid(mask.width, mask.height), cell};
  for (size_t i = 0; i < squared.size(); ++i) field.metres.values[i] = float(std::sqrt(squared[i]) * double(cell));
  return field;
}

}  // namespace eco
