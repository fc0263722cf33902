#include "sampling/class_grid.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace eco::sampling {

namespace {
constexpr uint8_t kOnes[8] = {1, 1, 1, 1, 1, 1, 1, 1};
}  // namespace

void ClassGrid::reset(float radius, float x0, float z0, float x1, float z1, float margin, bool isVariable) {
  cell = radius * (0.9999f / std::sqrt(2.f));
  invCell = 1.f / cell;
  const int marginCells = int(margin * invCell) + 3;
  originX = x0 - float(marginCells) * cell;
  originZ = z0 - float(marginCells) * cell;
  nx = int((x1 - x0) * invCell) + 1 + 2 * marginCells;
  nz = int((z1 - z0) * invCell) + 1 + 2 * marginCells;
  const size_t cells = size_t(nx) * size_t(nz);
  if (px.size() < cells) {
    px.resize(cells);
    pz.resize(cells, 0.f);
    pr.resize(cells, 0.f);
    alive.resize(cells, 0);
  }
  std::fill_n(px.begin(), cells, kEmptyCell);
  aliveCount = 0;
  bx = nx / kBlockCells + 1;
  bz = nz / kBlockCells + 1;
  invBlock = invCell / float(kBlockCells);
  blockAlive.assign(size_t(bx) * size_t(bz), 0);
  variable = isVariable;
  if (variable) {
    if (reach.size() < cells) reach.resize(cells);
    std::fill_n(reach.begin(), cells, 0.f);
  }
  tileI0 = cellX(x0);
  tileJ0 = cellZ(z0);
  tileI1 = cellX(x1);
  tileJ1 = cellZ(z1);
  invPixel = invCell * float(kCoverSub);
  coverX = x0;
  coverZ = z0;
  coverNx = int((x1 - x0) * invPixel) + 2;
  coverNz = int((z1 - z0) * invPixel) + 2;
  const size_t pixels = size_t(coverNx) * size_t(coverNz);
  if (covered.size() < pixels) covered.resize(pixels);
  std::fill_n(covered.begin(), pixels, uint8_t(0));
}

void ClassGrid::clear() {
  nx = nz = 0;
  aliveCount = 0;
}

bool ClassGrid::aliveNear(float x, float z, float dist) const {
  dist += cell;  // covers the rounding of block versus cell indices
  const int i0 = int((x - dist - originX) * invBlock), i1 = int((x + dist - originX) * invBlock);
  const int j0 = int((z - dist - originZ) * invBlock), j1 = int((z + dist - originZ) * invBlock);
  for (int j = j0; j <= j1; ++j)
    for (int i = i0; i <= i1; ++i)
      if (blockAlive[size_t(j) * size_t(bx) + size_t(i)]) return true;
  return false;
}

void ClassGrid::markCovered(float x, float z, float r) {
  // Pixels entirely inside the disc, with a relative safety margin far above float rounding.
  const float rr = r * 0.9999f;
  const float pixel = 1.f / invPixel;
  const int j0 = std::max(0, int(std::ceil((z - rr - coverZ) * invPixel)));
  const int j1 = std::min(coverNz, int(std::floor((z + rr - coverZ) * invPixel)));
  for (int j = j0; j < j1; ++j) {
    const float y0 = coverZ + float(j) * pixel - z, y1 = y0 + pixel;
    const float dy = std::max(std::abs(y0), std::abs(y1));
    if (dy >= rr) continue;
    const float h = std::sqrt(rr * rr - dy * dy);
    const int i0 = std::max(0, int(std::ceil((x - h - coverX) * invPixel)));
    const int i1 = std::min(coverNx, int(std::floor((x + h - coverX) * invPixel)));
    // Short spans: 8 bytes at a time, then the tail (a memset call per row costs more).
    uint8_t* row = covered.data() + size_t(j) * size_t(coverNx);
    int i = i0;
    for (; i + 8 <= i1; i += 8) std::memcpy(row + i, kOnes, 8);
    for (; i < i1; ++i) row[i] = 1;
  }
}

int ClassGrid::insert(float x, float z, float r, bool isAlive) {
  const int i = cellX(x), j = cellZ(z);
  assert(i >= 0 && j >= 0 && i < nx && j < nz);
  const int c = j * nx + i;
  assert(px[size_t(c)] == kEmptyCell);
  px[size_t(c)] = x;
  pz[size_t(c)] = z;
  pr[size_t(c)] = r;
  alive[size_t(c)] = isAlive;
  aliveCount += isAlive;
  blockAlive[size_t(j / kBlockCells) * size_t(bx) + size_t(i / kBlockCells)] += isAlive;
  if (variable) {
    // Only cells of the tile are ever asked. One spare cell each side covers the rounding of
    // x - r and the spacing margin.
    const int i0 = std::max(tileI0, cellX(x - r) - 1), i1 = std::min(tileI1, cellX(x + r) + 1);
    const int j0 = std::max(tileJ0, cellZ(z - r) - 1), j1 = std::min(tileJ1, cellZ(z + r) + 1);
    for (int jj = j0; jj <= j1; ++jj) {
      float* row = reach.data() + size_t(jj) * size_t(nx);
      for (int ii = i0; ii <= i1; ++ii) row[ii] = std::max(row[ii], r);
    }
  }
  markCovered(x, z, r);
  return c;
}

void ClassGrid::kill(int c) {
  aliveCount -= alive[size_t(c)];
  blockAlive[size_t(c / nx / kBlockCells) * size_t(bx) + size_t(c % nx / kBlockCells)] -= alive[size_t(c)];
  alive[size_t(c)] = 0;
}

}  // namespace eco::sampling
