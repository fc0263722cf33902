#pragma once
// Bridson background grid for one class inside one tile (plus a margin holding the fixed
// samples of neighbouring tiles). Cells are slightly smaller than radius / sqrt(2), so a
// cell holds at most one sample of the class even after float rounding of cell indices.
// Positions are stored per cell as floats (structure of arrays), no pointers.
#include <cstdint>
#include <vector>

namespace eco::sampling {

inline constexpr float kEmptyCell = 1e18f;  // x of an empty cell: far from everything, d^2 finite
inline constexpr int kBlockCells = 8;       // side of the coarse max-radius blocks, in cells

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

  // Covers [x0 - margin, x1 + margin) x [z0 - margin, z1 + margin) with spare cells around, so
  // scans of up to `margin` around any point of the tile stay inside. Reuses storage.
  void reset(float radius, float x0, float z0, float x1, float z1, float margin);

  int cellX(float x) const { return int((x - originX) * invCell); }
  int cellZ(float z) const { return int((z - originZ) * invCell); }
  int cellOf(float x, float z) const { return cellZ(z) * nx + cellX(x); }

  // Returns the cell index.
  int insert(float x, float z, float r, bool isAlive);
  void kill(int cellIndex);
  // Largest stored radius within `reach` of (x, z) (0 when none).
  float maxRadiusNear(float x, float z, float reach) const;
};

}  // namespace eco::sampling
