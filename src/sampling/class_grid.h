#pragma once
// Bridson background grid for one class inside one tile (plus a margin holding the fixed
// samples of neighbouring tiles). Cells are slightly smaller than radius / sqrt(2), so a
// cell holds at most one sample of the class even after float rounding of cell indices.
// Positions are stored per cell as floats (structure of arrays), no pointers.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eco::sampling {

inline constexpr float kEmptyCell = 1e18f;  // x of an empty cell: far from everything, d^2 finite
inline constexpr int kBlockCells = 8;       // side of the coarse max-radius blocks, in cells
inline constexpr int kCoverSub = 3;         // coverage pixels per cell side

struct ClassGrid {
  float cell = 0, invCell = 0;
  float originX = 0, originZ = 0;
  int nx = 0, nz = 0;
  std::vector<float> px, pz, pr;  // sample position and radius per cell; px == kEmptyCell: empty
  std::vector<uint8_t> alive;     // 0: removed by survival roulette (blocks its own class only)
  int aliveCount = 0;
  // Largest radius stored in each kBlockCells^2 block: bounds the variable-radius search.
  int bx = 0, bz = 0;
  std::vector<float> blockMaxR;
  // Single-radius classes: a raster of kCoverSub x kCoverSub pixels per cell, 1 where the
  // whole pixel lies within the radius of a stored sample. A candidate on such a pixel is
  // rejected with one load; it is a conservative prefilter, the exact test follows.
  bool coverage = false;
  int coverNx = 0;
  float invPixel = 0;
  std::vector<uint8_t> covered;

  // Covers [x0 - margin, x1 + margin) x [z0 - margin, z1 + margin) with spare cells around, so
  // scans of up to `margin` around any point of the tile stay inside. Reuses storage.
  void reset(float radius, float x0, float z0, float x1, float z1, float margin, bool withCoverage);

  int cellX(float x) const { return int((x - originX) * invCell); }
  int cellZ(float z) const { return int((z - originZ) * invCell); }
  int cellOf(float x, float z) const { return cellZ(z) * nx + cellX(x); }
  bool isCovered(float x, float z) const {
    return covered[size_t(int((z - originZ) * invPixel)) * size_t(coverNx) + size_t(int((x - originX) * invPixel))];
  }

  // Returns the cell index.
  int insert(float x, float z, float r, bool isAlive);
  void kill(int cellIndex);
  void markCovered(float x, float z, float r);
  // Largest stored radius within `reach` of (x, z) (0 when none).
  float maxRadiusNear(float x, float z, float reach) const;
};

}  // namespace eco::sampling
