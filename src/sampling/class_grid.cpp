#include "sampling/class_grid.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace eco::sampling {

namespace {

constexpr uint8_t kOnes[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

// ceil(v) for v > 0, else 0 (std::ceil is not inlined without SSE4.1).
int ceilAtLeast0(float v) {
  if (!(v > 0.f)) return 0;
  const int i = int(v);
  return i + int(float(i) < v);
}

// floor(v) for v >= 0; some value <= 0 otherwise (callers only use it as an exclusive end).
int floorAtMost(float v) { return int(v); }

// row[i0, i1) = 1 for short spans: overlapping 16-, 8- or 4-byte stores (a memset call per
// row costs more).
void fillOnes(uint8_t* row, int i0, int i1) {
  const int n = i1 - i0;
  if (n >= 16) {
    for (int i = i0; i + 16 < i1; i += 16) std::memcpy(row + i, kOnes, 16);
    std::memcpy(row + i1 - 16, kOnes, 16);
  } else if (n >= 8) {
    std::memcpy(row + i0, kOnes, 8);
    std::memcpy(row + i1 - 8, kOnes, 8);
  } else if (n >= 4) {
    std::memcpy(row + i0, kOnes, 4);
    std::memcpy(row + i1 - 4, kOnes, 4);
  } else {
    for (int i = i0; i < i1; ++i) row[i] = 1;
  }
}

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
  // In pixel units. Pixels entirely inside the disc, with a relative safety margin far above
  // float rounding (a pixel marked by rounding error would only reject candidates, never
  // accept a close pair).
  const float R = r * 0.9999f * invPixel;
  const float X = (x - coverX) * invPixel, Z = (z - coverZ) * invPixel;
  const float R2 = R * R;
  const int j0 = ceilAtLeast0(Z - R), j1 = std::min(coverNz, floorAtMost(Z + R));
  for (int j = j0; j < j1; ++j) {
    const float y0 = float(j) - Z;
    const float dy = std::max(std::abs(y0), std::abs(y0 + 1.f));
    const float h2 = R2 - dy * dy;
    if (!(h2 > 0.f)) continue;
    const float h = std::sqrt(h2);
    const int i0 = ceilAtLeast0(X - h), i1 = std::min(coverNx, floorAtMost(X + h));
    if (i0 < i1) fillOnes(covered.data() + size_t(j) * size_t(coverNx), i0, i1);
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
