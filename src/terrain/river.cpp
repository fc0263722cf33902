#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "terrain/distance_transform.h"
#include "terrain/terrain.h"

namespace eco {
namespace {

// Cell size that makes the river image span the heightmap's world extent. The river image
// may have another resolution but must have the same aspect ratio, within half a heightmap
// cell in either direction.
float riverCellSize(const Image& image, const Heightmap& terrain, const std::string& path) {
  const Grid& g = image.pixels;
  if (g.width < 2 || g.height < 2)
    throw InputError(path + ": river image of " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                     " is too small (need at least 2x2)");
  if (terrain.metres.width < 2 || terrain.metres.height < 2)
    throw InputError(path + ": heightmap is too small to place a river field (need at least 2x2)");
  float cellX = terrain.extentX() / float(g.width - 1);
  float cellZ = terrain.extentZ() / float(g.height - 1);
  float errorZ = std::abs(cellX * float(g.height - 1) - terrain.extentZ());
  float errorX = std::abs(cellZ * float(g.width - 1) - terrain.extentX());
  if (std::max(errorX, errorZ) > 0.5f * terrain.cellSize)
    throw InputError(path + ": river image of " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                     " does not match the heightmap's aspect ratio (" + std::to_string(terrain.metres.width) + "x" +
                     std::to_string(terrain.metres.height) + ")");
  return cellX;
}

}  // namespace

float RiverField::distanceAt(float x, float z) const { return sampleBilinear(metres, cellSize, x, z); }

RiverField riverFieldFromDistance(const Image& image, float scale, const Heightmap& terrain, const std::string& path) {
  RiverField field{image.pixels, riverCellSize(image, terrain, path)};
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
  for (size_t i = 0; i < squared.size(); ++i) field.metres.values[i] = float(std::sqrt(squared[i]) * cell);
  return field;
}

}  // namespace eco
