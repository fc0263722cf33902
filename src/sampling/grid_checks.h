#pragma once
// Candidate generation and neighbourhood tests of the Bridson kernel. Internal to sampling.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "sampling/class_grid.h"

namespace eco::sampling {

// Spacing tests compare float squared distances against (1 + 2^-20) d^2, which covers float
// rounding, so every accepted pair is at least d apart in exact arithmetic.
inline constexpr float kSpacingMargin = 1.f + 1.f / 1048576.f;

using f4 = float __attribute__((vector_size(16)));
using i4 = int32_t __attribute__((vector_size(16)));

// Squared distances from q to the 4 cells starting at `cells` (positions interleaved).
inline f4 distance2x4(const Point* cells, f4 q) {
  f4 a, b;
  std::memcpy(&a, cells, sizeof a);
  std::memcpy(&b, cells + 2, sizeof b);
  a -= q;
  b -= q;
  a *= a;
  b *= b;
  // __builtin_shufflevector (GCC >= 12 and clang) rather than GCC's __builtin_shuffle: same
  // lanes, same float operations, so both compilers give the same bits.
  return __builtin_shufflevector(a, b, 0, 2, 4, 6) + __builtin_shufflevector(a, b, 1, 3, 5, 7);
}

// Single-radius class: any sample closer than sqrt(r2) (r2 ~ radius^2)? Cells are just under
// radius / sqrt(2), so a sample 2 cells away along an axis is out of reach on the side of the
// cell the candidate is not in: the 4 x 4 cells around the candidate's quadrant cover the
// reach. Each row is one 4-wide vector compare.
inline bool blockedNear(const ClassGrid& g, float qx, float qz, float r2) {
  const float gx = (qx - g.originX) * g.invCell, gz = (qz - g.originZ) * g.invCell;
  const int i = int(gx), j = int(gz);
  const int i0 = i - 2 + int(gx - float(i) >= 0.5f), j0 = j - 2 + int(gz - float(j) >= 0.5f);
  const Point* cells = g.pos.data() + size_t(j0) * size_t(g.nx) + size_t(i0);
  const f4 q = {qx, qz, qx, qz}, vr2 = {r2, r2, r2, r2};
  i4 hit = {0, 0, 0, 0};
  for (int row = 0; row < 4; ++row, cells += g.nx) hit |= distance2x4(cells, q) < vr2;
  return (hit[0] | hit[1] | hit[2] | hit[3]) != 0;
}

// Cells meeting the square of half-side `reach` (metres) around q, padded by a hundredth of a
// cell for the rounding of cell indices and the spacing margin. Rows are visited nearest
// first: rowHit(j, i0, i1) tests cells i0 .. i1 of row j (and may read up to 3 cells past i1,
// inside the grid's spare cells: a sample found that close is a real conflict).
template <typename RowHit>
inline bool anyRowWithin(const ClassGrid& g, float qx, float qz, float reach, RowHit rowHit) {
  const float gx = (qx - g.originX) * g.invCell, gz = (qz - g.originZ) * g.invCell;
  const float cells = reach * g.invCell + 0.01f;
  const int i0 = int(gx - cells), i1 = int(gx + cells), j0 = int(gz - cells), j1 = int(gz + cells);
  const int cj = int(gz);
  if (rowHit(cj, i0, i1)) return true;
  for (int d = 1; cj - d >= j0 || cj + d <= j1; ++d)
    if ((cj - d >= j0 && rowHit(cj - d, i0, i1)) || (cj + d <= j1 && rowHit(cj + d, i0, i1))) return true;
  return false;
}

// Calls hit(i) for the occupied cells i0 .. i1 of row j, in order, until one returns true.
template <typename Hit>
inline bool anyOccupied(const ClassGrid& g, int j, int i0, int i1, Hit hit) {
  const uint64_t* row = g.occupied.data() + size_t(j) * size_t(g.occWords);
  const int w0 = i0 >> 6, w1 = i1 >> 6;
  for (int w = w0; w <= w1; ++w) {
    uint64_t bits = row[w];
    if (w == w0) bits &= ~uint64_t(0) << (i0 & 63);
    if (w == w1) bits &= ~uint64_t(0) >> (63 - (i1 & 63));
    for (; bits; bits &= bits - 1)
      if (hit(w * 64 + std::countr_zero(bits))) return true;
  }
  return false;
}

// Variable radius: a stored sample p with |p - q| < max(r_p, r_q). Samples with r_p > r_q
// that reach q lie within the recorded reach of the block holding q's cell. The square can be
// many cells wide where the spacing is large, so only occupied cells are tested.
inline bool blockedByOwn(const ClassGrid& g, float qx, float qz, float rq) {
  const float reach = std::max(rq, g.reachAt(g.cellX(qx), g.cellZ(qz)));
  const float rq2 = rq * rq * kSpacingMargin;
  return anyRowWithin(g, qx, qz, reach, [&](int j, int i0, int i1) {
    const size_t first = size_t(j) * size_t(g.nx);
    return anyOccupied(g, j, i0, i1, [&](int i) {
      const Point p = g.pos[first + size_t(i)];
      const float r = g.pr[first + size_t(i)], r2 = r * r * kSpacingMargin;
      const float dx = p.x - qx, dz = p.z - qz;
      return dx * dx + dz * dz < (r2 > rq2 ? r2 : rq2);
    });
  });
}

// Another class's sample closer than `dist` (dist2 ~ dist^2)? The first found goes to *hit.
// Only alive samples are in the grid once their class is placed (generateUnit).
inline bool blockedWithin(const ClassGrid& g, float qx, float qz, float dist, float dist2, Point* hit = nullptr) {
  return anyRowWithin(g, qx, qz, dist, [&](int j, int i0, int i1) {
    const size_t first = size_t(j) * size_t(g.nx);
    return anyOccupied(g, j, i0, i1, [&](int i) {
      const Point p = g.pos[first + size_t(i)];
      const float dx = p.x - qx, dz = p.z - qz;
      if (!(dx * dx + dz * dz < dist2)) return false;
      if (hit) *hit = p;
      return true;
    });
  });
}

}  // namespace eco::sampling
