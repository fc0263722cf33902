#include "sampling/class_grid.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <mutex>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sampling/directions.h"

namespace eco::sampling {

namespace {

// ceil(v) for v > 0, else 0 (std::ceil is not inlined without SSE4.1).
int ceilAtLeast0(float v) {
  if (!(v > 0.f)) return 0;
  const int i = int(v);
  return i + int(float(i) < v);
}

// floor(v) for v >= 0; some value <= 0 otherwise (callers only use it as an exclusive end).
int floorAtMost(float v) { return int(v); }

// Sets bits [i0, i1) of a row, i0 < i1.
void fillBits(uint64_t* row, int i0, int i1) {
  const int w0 = i0 >> 6, w1 = (i1 - 1) >> 6;
  const uint64_t first = ~0ull << (i0 & 63), last = ~0ull >> (63 - ((i1 - 1) & 63));
  if (w0 == w1) {
    row[w0] |= first & last;
    return;
  }
  row[w0] |= first;
  for (int w = w0 + 1; w < w1; ++w) row[w] = ~0ull;
  row[w1] |= last;
}

}  // namespace

void ClassGrid::reset(float radius, float x0, float z0, float x1, float z1, float margin, bool isVariable,
                      bool coverage) {
  cell = radius * (0.9999f / std::sqrt(2.f));
  invCell = 1.f / cell;
  const int marginCells = int(margin * invCell) + 3;
  originX = x0 - float(marginCells) * cell;
  originZ = z0 - float(marginCells) * cell;
  nx = int((x1 - x0) * invCell) + 1 + 2 * marginCells;
  nz = int((z1 - z0) * invCell) + 1 + 2 * marginCells;
  const size_t cells = size_t(nx) * size_t(nz);
  if (pos.size() < cells) {
    pos.resize(cells);
    pr.resize(cells, 0.f);
  }
  // Only blockedNear (single-radius classes) reads cells without asking `occupied` first.
  if (!isVariable) std::fill_n(pos.begin(), cells, Point{kEmptyCell, 0.f});
  occWords = (nx + 63) / 64;
  occupied.assign(size_t(occWords) * size_t(nz), 0);
  aliveCount = 0;
  bx = nx / kBlockCells + 1;
  bz = nz / kBlockCells + 1;
  invBlock = invCell / float(kBlockCells);
  blockAlive.assign(size_t(bx) * size_t(bz), 0);
  variable = isVariable;
  if (variable) {
    reachNx = (nx >> kReachShift) + 1;
    const size_t blocks = size_t(reachNx) * size_t((nz >> kReachShift) + 1);
    if (reach.size() < blocks + 4) reach.resize(blocks + 4);
    std::fill_n(reach.begin(), blocks, 0.f);
  }
  tileI0 = cellX(x0);
  tileJ0 = cellZ(z0);
  tileI1 = cellX(x1);
  tileJ1 = cellZ(z1);
  invPixel = invCell * float(kCoverSub);
  baseRadius = radius;
  // A base-radius disc is 4 sqrt(2) pixels in radius whatever the radius, up to float rounding;
  // one table for a hair less serves every radius (a smaller disc only marks fewer pixels).
  assert(radius * invPixel >= kSpanDiscR);
  // A border of pixels marked covered, wider than any candidate's distance from its parent
  // (2 x margin), so candidates need no bounds test before their coverage load.
  const int pad = int(2.f * margin * invPixel) + 2;
  const int tileNx = int((x1 - x0) * invPixel) + 1, tileNz = int((z1 - z0) * invPixel) + 1;
  coverX = x0 - float(pad) / invPixel;
  coverZ = z0 - float(pad) / invPixel;
  coverNx = tileNx + 2 * pad;
  coverNz = tileNz + 2 * pad;
  coverWords = (coverNx + 63) / 64;
  if (!coverage) return;
  const size_t words = size_t(coverWords) * size_t(coverNz);
  if (covered.size() < words + 1) covered.resize(words + 1);  // + a spare word for span ORs
  std::fill_n(covered.begin(), size_t(pad) * size_t(coverWords), ~uint64_t(0));
  std::fill_n(covered.begin() + ptrdiff_t(size_t(pad) * size_t(coverWords)), size_t(tileNz) * size_t(coverWords),
              uint64_t(0));
  std::fill(covered.begin() + ptrdiff_t(size_t(pad + tileNz) * size_t(coverWords)), covered.begin() + ptrdiff_t(words),
            ~uint64_t(0));
  for (int j = pad; j < pad + tileNz; ++j) {
    uint64_t* row = covered.data() + size_t(j) * size_t(coverWords);
    fillBits(row, 0, pad);
    fillBits(row, pad + tileNx, coverNx);
  }
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

namespace {

DiscSpans buildDiscSpans(double R, int sub) {
  DiscSpans t;
  t.sub = sub;
  t.half = int(R);  // a pixel row farther than R from the centre's pixel row is never inside
  const int rows = 2 * t.half + 1;
  t.mask.assign(size_t(sub * sub * rows), 0);
  // Farthest distance along one axis between pixel [d, d + 1] and centres in [c0, c1].
  auto far = [](int d, double c0, double c1) { return std::max(std::abs(d - c1), std::abs(d + 1 - c0)); };
  for (int qz = 0; qz < sub; ++qz)
    for (int qx = 0; qx < sub; ++qx)
      for (int row = 0; row < rows; ++row) {
        const double dz = far(row - t.half, double(qz) / sub, double(qz + 1) / sub);
        uint64_t mask = 0;
        for (int di = -t.half; di <= t.half; ++di) {
          const double dx = far(di, double(qx) / sub, double(qx + 1) / sub);
          if (dx * dx + dz * dz <= R * R) mask |= uint64_t(1) << (di + t.half);
        }
        t.mask[size_t((qz * sub + qx) * rows + row)] = mask;
      }
  return t;
}

constexpr int kSpanSteps = 8;  // radii of the other tables: multiples of 1/8 pixel
constexpr int kSpanTables = int(kMaxSpanDiscR) * kSpanSteps;

}  // namespace

const DiscSpans& baseDiscSpans() {
  static const DiscSpans table = buildDiscSpans(double(kSpanDiscR), 16);
  return table;
}

const DiscSpans& discSpansBelow(float R) {
  static std::once_flag built[kSpanTables];
  static DiscSpans tables[kSpanTables];
  const int q = std::clamp(int(R * float(kSpanSteps)), 0, kSpanTables - 1);
  std::call_once(built[q], [q] { tables[q] = buildDiscSpans(double(q) / kSpanSteps, kSpanSteps); });
  return tables[q];
}

template <int kFixedRows>
bool ClassGrid::markFromSpans(const DiscSpans& spans, float x, float z) {
  const float X = (x - coverX) * invPixel, Z = (z - coverZ) * invPixel;
  const float lim = float(spans.half + 1);
  if (!(X >= lim && Z >= lim && X < float(coverNx) - lim && Z < float(coverNz) - lim)) return false;
  const int ci = int(X), cj = int(Z);
  const int q = int((Z - float(cj)) * float(spans.sub)) * spans.sub + int((X - float(ci)) * float(spans.sub));
  const int rows = 2 * spans.half + 1;
  const uint64_t* mask = spans.mask.data() + size_t(q * rows);
  const int start = ci - spans.half;  // >= 0: X >= lim
  const unsigned s = unsigned(start) & 63u;
  uint64_t* row = covered.data() + size_t(cj - spans.half) * size_t(coverWords) + size_t(start >> 6);
  auto orRow = [&](int t) {
    row[0] |= mask[t] << s;
    row[1] |= (mask[t] >> 1) >> (63u - s);  // bits past the word; 0 when none (a spare word ends the raster)
    row += coverWords;
  };
  if constexpr (kFixedRows > 0) {
#pragma GCC unroll 16
    for (int t = 0; t < kFixedRows; ++t) orRow(t);
  } else {
    for (int t = 0; t < rows; ++t) orRow(t);
  }
  return true;
}

void ClassGrid::resetNear() {
  const size_t words = size_t(coverWords) * size_t(coverNz);
  if (near.size() != words) {
    near.assign(words, 0);
  } else if (nearRow0 <= nearRow1) {  // only the rows marked since the last reset
    std::fill(near.begin() + ptrdiff_t(size_t(nearRow0) * size_t(coverWords)),
              near.begin() + ptrdiff_t(size_t(nearRow1 + 1) * size_t(coverWords)), uint64_t(0));
  }
  nearRow0 = coverNz;
  nearRow1 = -1;
}

NearDisc ClassGrid::nearDisc(float r) const {
  // In pixels, the radius grown by far more than float rounding (a pixel marked in excess only
  // costs an exact test). Row k away from the centre's row is at least |k| - 1 pixels away.
  NearDisc d;
  d.radius = r * invPixel * 1.0001f + 0.01f;
  for (int k = 0; k < int(d.radius) + 2; ++k) {
    const float dz = std::max(0.f, float(k) - 1.f);
    d.halfWidth.push_back(std::sqrt(std::max(0.f, d.radius * d.radius - dz * dz)));
  }
  return d;
}

void ClassGrid::markNear(float x, float z, const NearDisc& d) {
  // Coordinates are clamped to >= 0, where truncation is floor.
  const float X = (x - coverX) * invPixel, Z = (z - coverZ) * invPixel;
  const int centre = int(std::max(0.f, Z));
  const int j0 = int(std::max(0.f, Z - d.radius)), j1 = std::min(coverNz - 1, int(std::max(0.f, Z + d.radius)));
  nearRow0 = std::min(nearRow0, j0);
  nearRow1 = std::max(nearRow1, j1);
  for (int j = j0; j <= j1; ++j) {
    const float w = d.halfWidth[size_t(std::abs(j - centre))];
    const int i0 = int(std::max(0.f, X - w)), i1 = std::min(coverNx - 1, int(std::max(0.f, X + w)));
    if (i0 <= i1) fillBits(near.data() + size_t(j) * size_t(coverWords), i0, i1 + 1);
  }
}

void ClassGrid::markCovered(float x, float z, float r) {
  // In pixel units. Pixels entirely inside the disc, with a relative safety margin far above
  // float rounding (a pixel marked by rounding error would only reject candidates, never
  // accept a close pair); the tables' radii are at most R. Base-radius discs (every disc of a
  // uniform class) have a fixed row count, unrolled, so no loop exit mispredicts.
  const float R = r * 0.9999f * invPixel;
  if (r == baseRadius ? markFromSpans<2 * int(kSpanDiscR) + 1>(baseDiscSpans(), x, z)
                      : R < kMaxSpanDiscR && markFromSpans(discSpansBelow(R), x, z))
    return;
  // Rows in groups of 4 lanes; ceil/floor by truncation of values clamped to >= 0 (truncation
  // is floor there).
  using f4 = float __attribute__((vector_size(16)));
  using i4 = int32_t __attribute__((vector_size(16)));
  const float X = (x - coverX) * invPixel, Z = (z - coverZ) * invPixel;
  const int j0 = ceilAtLeast0(Z - R), j1 = std::min(coverNz, floorAtMost(Z + R));
  const f4 zero = {0, 0, 0, 0}, one = {1, 1, 1, 1}, lanes = {0, 1, 2, 3};
  const f4 vZ = {Z, Z, Z, Z}, vX = {X, X, X, X}, vR2 = {R * R, R * R, R * R, R * R};
  const i4 vNx = {coverNx, coverNx, coverNx, coverNx};
  for (int j = j0; j < j1; j += 4) {
    const float fj = float(j);
    const f4 y0 = f4{fj, fj, fj, fj} + lanes - vZ, y1 = y0 + one;
    const f4 dy = y0 * y0 > y1 * y1 ? y0 : y1;
    f4 h2 = vR2 - dy * dy;
    h2 = h2 > zero ? h2 : zero;
    f4 h;
#if defined(__SSE2__)
    h = _mm_sqrt_ps(h2);
#else
    for (int l = 0; l < 4; ++l) h[l] = std::sqrt(h2[l]);
#endif
    f4 lo = vX - h, hi = vX + h;
    lo = lo > zero ? lo : zero;
    hi = hi > zero ? hi : zero;
    const i4 loT = __builtin_convertvector(lo, i4);
    const i4 i0 = loT + (__builtin_convertvector(loT, f4) < lo ? 1 : 0);  // ceil: the mask is -1
    i4 i1 = __builtin_convertvector(hi, i4);
    i1 = i1 < vNx ? i1 : vNx;
    // A row with h2 == 0 has i0 == i1 == ceil(X) or floor(X) and no span, except at an
    // integer X, where i1 == i0 too: no need to test h2.
    const int rows = std::min(4, j1 - j);
    for (int l = 0; l < rows; ++l)
      if (i0[l] < i1[l]) fillBits(covered.data() + size_t(j + l) * size_t(coverWords), i0[l], i1[l]);
  }
}

int ClassGrid::insert(float x, float z, float r, bool isAlive, bool markDisc) {
  const int i = cellX(x), j = cellZ(z);
  assert(i >= 0 && j >= 0 && i < nx && j < nz);
  const int c = j * nx + i;
  assert(!(occupiedWord(i, j) & occupiedBit(i)));
  pos[size_t(c)] = {x, z};
  pr[size_t(c)] = r;
  occupiedWord(i, j) |= occupiedBit(i);
  aliveCount += isAlive;
  blockAlive[size_t(j / kBlockCells) * size_t(bx) + size_t(i / kBlockCells)] += isAlive;
  if (variable) {
    // Only cells of the tile are ever asked. One spare cell each side covers the rounding of
    // x - r and the spacing margin.
    const int i0 = std::max(tileI0, cellX(x - r) - 1), i1 = std::min(tileI1, cellX(x + r) + 1);
    const int j0 = std::max(tileJ0, cellZ(z - r) - 1), j1 = std::min(tileJ1, cellZ(z + r) + 1);
    // Four blocks per 4-lane max, so most rows take one. Lanes past the last block raise the
    // reach of blocks the disc misses (wrapping into the next row at the right edge): a
    // looser bound, never a wrong one. The array has 4 spare entries for the last row.
    using f4 = float __attribute__((vector_size(16)));
    const f4 rv = {r, r, r, r};
    const int b0 = i0 >> kReachShift, span = (i1 >> kReachShift) - b0;
    for (int jj = j0 >> kReachShift; jj <= j1 >> kReachShift; ++jj) {
      float* row = reach.data() + size_t(jj) * size_t(reachNx) + size_t(b0);
      for (int b = 0; b <= span; b += 4) {
        f4 v;
        std::memcpy(&v, row + b, sizeof v);
        v = v < rv ? rv : v;
        std::memcpy(row + b, &v, sizeof v);
      }
    }
  }
  if (markDisc) markCovered(x, z, r);
  return c;
}

const int64_t* ClassGrid::pixelOffsets(float fr) {
  if (fr != fixedOffsetsFr) {
    const AnnulusTable& table = annulusTable();
    fixedOffsets.resize(size_t(kAnnulusSize));
    for (int i = 0; i < kAnnulusSize; ++i) {
      const auto x = int64_t(std::floor(double(fr) * double(table.at[i].x) * 65536.0));
      const auto z = int64_t(std::floor(double(fr) * double(table.at[i].z) * 65536.0));
      fixedOffsets[size_t(i)] = z * (int64_t(1) << 32) + x;
    }
    fixedOffsetsFr = fr;
  }
  return fixedOffsets.data();
}

void ClassGrid::kill(int c) {
  --aliveCount;
  --blockAlive[size_t(c / nx / kBlockCells) * size_t(bx) + size_t(c % nx / kBlockCells)];
  erase(c);
}

}  // namespace eco::sampling
