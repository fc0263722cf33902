#pragma once
// Candidate generation and neighbourhood tests of the Bridson kernel. Internal to sampling.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "sampling/class_grid.h"

namespace eco::sampling {

// Spacing tests compare float squared distances against (1 + 2^-20) d^2, which covers float
// rounding, so every accepted pair is at least d apart in exact arithmetic.
inline constexpr float kSpacingMargin = 1.f + 1.f / 1048576.f;

struct Point {
  float x, z;
};

// Single-radius class: any sample closer than sqrt(r2) (r2 ~ radius^2)? Cells are just under
// radius / sqrt(2), so a sample 2 cells away along an axis is out of reach on the side of the
// cell the candidate is not in: the 4 x 4 cells around the candidate's quadrant cover the
// reach. Each row is one 4-wide vector compare.
inline bool blockedNear(const ClassGrid& g, float qx, float qz, float r2) {
  using f4 = float __attribute__((vector_size(16)));
  using i4 = int32_t __attribute__((vector_size(16)));
  const float gx = (qx - g.originX) * g.invCell, gz = (qz - g.originZ) * g.invCell;
  const int i = int(gx), j = int(gz);
  const int i0 = i - 2 + int(gx - float(i) >= 0.5f), j0 = j - 2 + int(gz - float(j) >= 0.5f);
  const size_t first = size_t(j0) * size_t(g.nx) + size_t(i0);
  const float* xs = g.px.data() + first;
  const float* zs = g.pz.data() + first;
  const f4 vx = {qx, qx, qx, qx}, vz = {qz, qz, qz, qz}, vr2 = {r2, r2, r2, r2};
  i4 hit = {0, 0, 0, 0};
  for (int row = 0; row < 4; ++row, xs += g.nx, zs += g.nx) {
    f4 x, z;
    std::memcpy(&x, xs, sizeof x);
    std::memcpy(&z, zs, sizeof z);
    const f4 dx = x - vx, dz = z - vz;
    hit |= (dx * dx + dz * dz) < vr2;
  }
  return (hit[0] | hit[1] | hit[2] | hit[3]) != 0;
}

// Calls test(cell, d2) over the cells within `reach` of q until it returns true.
template <typename Test>
inline bool anyWithin(const ClassGrid& g, float qx, float qz, float reach, Test test) {
  const int ci = g.cellX(qx), cj = g.cellZ(qz);
  const int n = int(reach * g.invCell) + 1;
  for (int j = cj - n; j <= cj + n; ++j) {
    const size_t row = size_t(j) * size_t(g.nx);
    for (int i = ci - n; i <= ci + n; ++i) {
      const size_t c = row + size_t(i);
      const float dx = g.px[c] - qx, dz = g.pz[c] - qz;
      if (test(c, dx * dx + dz * dz)) return true;
    }
  }
  return false;
}

// Variable radius: a stored sample p with |p - q| < max(r_p, r_q). Samples with r_p > r_q
// that reach q lie within the recorded reach of the block holding q's cell. Rows nearest
// first, 4 cells per compare; the last group of a row may read up to 3 cells past the reach
// (inside the grid's spare cells), which is harmless: any sample found that close is a real
// conflict.
inline bool blockedByOwn(const ClassGrid& g, float qx, float qz, float rq) {
  using f4 = float __attribute__((vector_size(16)));
  using i4 = int32_t __attribute__((vector_size(16)));
  const int ci = g.cellX(qx), cj = g.cellZ(qz);
  const float reach = std::max(rq, g.reachAt(ci, cj));
  const int n = int(reach * g.invCell) + 1;
  const float rq2 = rq * rq * kSpacingMargin;
  const f4 vx = {qx, qx, qx, qx}, vz = {qz, qz, qz, qz}, vrq2 = {rq2, rq2, rq2, rq2};
  const f4 vm = {kSpacingMargin, kSpacingMargin, kSpacingMargin, kSpacingMargin};
  for (int step = 0; step <= 2 * n; ++step) {
    const int j = cj + ((step & 1) ? -(step + 1) / 2 : step / 2);
    const size_t first = size_t(j) * size_t(g.nx) + size_t(ci - n);
    const float *xs = g.px.data() + first, *zs = g.pz.data() + first, *rs = g.pr.data() + first;
    i4 hit = {0, 0, 0, 0};
    for (int i = 0; i <= 2 * n; i += 4) {
      f4 x, z, r;
      std::memcpy(&x, xs + i, sizeof x);
      std::memcpy(&z, zs + i, sizeof z);
      std::memcpy(&r, rs + i, sizeof r);
      const f4 dx = x - vx, dz = z - vz;
      const f4 r2 = r * r * vm;
      hit |= (dx * dx + dz * dz) < (r2 > vrq2 ? r2 : vrq2);
    }
    if ((hit[0] | hit[1] | hit[2] | hit[3]) != 0) return true;
  }
  return false;
}

inline bool blockedByAliveWithin(const ClassGrid& g, float qx, float qz, float dist, float dist2) {
  return anyWithin(g, qx, qz, dist, [&](size_t c, float d2) { return d2 < dist2 && g.alive[c]; });
}

}  // namespace eco::sampling
