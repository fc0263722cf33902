#pragma once
// Bridson background grid for one class inside one tile (plus a margin holding the fixed
// samples of neighbouring tiles). Cells are slightly smaller than radius / sqrt(2), so a
// cell holds at most one sample of the class even after float rounding of cell indices.
// Positions are stored per cell as floats (structure of arrays), no pointers.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eco::sampling {

struct Point {
  float x, z;
};

inline constexpr float kEmptyCell = 1e18f;  // x of an empty cell: far from everything, d^2 finite
inline constexpr int kBlockCells = 8;       // side of the coarse alive-count blocks, in cells
inline constexpr int kReachShift = 2;       // reach blocks are 2^kReachShift cells on a side
inline constexpr int kCoverSub = 4;         // coverage pixels per cell side
inline constexpr float kSpanDiscR = 5.6563f;  // 4 sqrt(2) (1 - 1e-4): a base-radius disc, pixels

// Coverage discs from per-row pixel spans precomputed for `sub` x `sub` sub-pixel positions of
// the centre, each row holding only pixels inside the disc for every centre in that sub-pixel
// square. A row's span is a bit mask relative to pixel column (centre's pixel - half): one
// shift and two word ORs per row, no branch. Immutable once built, shared by every thread.
struct DiscSpans {
  int sub = 0, half = 0;  // rows -half .. half around the centre's pixel
  std::vector<uint64_t> mask;
};
// The base-radius disc (radius kSpanDiscR), 16 x 16 sub-pixel positions.
const DiscSpans& baseDiscSpans();
// Other discs of radius R < kMaxSpanDiscR pixels: the table of radius floor(R * 8) / 8, 8 x 8
// sub-pixel positions (a disc at most 0.3 pixels smaller, in exchange for no sqrt per row).
inline constexpr float kMaxSpanDiscR = 31.f;
const DiscSpans& discSpansBelow(float R);

// A disc for ClassGrid::markNear, in pixels: half-widths per row away from the centre's row.
struct NearDisc {
  float radius = 0;
  std::vector<float> halfWidth;
};

struct ClassGrid {
  float cell = 0, invCell = 0;
  float originX = 0, originZ = 0;
  int nx = 0, nz = 0;
  // Sample position per cell, x and z interleaved (a 4-cell row of a neighbourhood test is one
  // cache line, not two); x == kEmptyCell: empty, kept only for single-radius grids, whose
  // test reads whole rows (variable-radius grids leave empty cells stale). pr: radius per cell.
  std::vector<Point> pos;
  std::vector<float> pr;
  // One bit per cell, occWords words per row: set where pos holds a sample. Wide scans visit
  // only the occupied cells (a few percent of them where the spacing is large).
  std::vector<uint64_t> occupied;
  int occWords = 0;
  uint64_t& occupiedWord(int i, int j) { return occupied[size_t(j) * size_t(occWords) + size_t(i >> 6)]; }
  static uint64_t occupiedBit(int i) { return uint64_t(1) << (i & 63); }
  int aliveCount = 0;
  // Alive samples per kBlockCells^2 block: other classes skip empty neighbourhoods.
  int bx = 0, bz = 0;
  float invBlock = 0;
  std::vector<uint16_t> blockAlive;
  // Variable radius: per block of 4 x 4 cells (kReachShift), the largest radius of a stored
  // sample whose square [p - r_p, p + r_p] touches the block. Bounds the own-class search
  // around a candidate (blocks, not cells: a sixteenth of the writes for the largest discs).
  bool variable = false;
  int reachNx = 0;
  std::vector<float> reach;
  // A bit raster of kCoverSub x kCoverSub pixels per cell over the tile, 1 where the whole
  // pixel lies within the radius of a stored sample, and 1 on a border around the tile that
  // holds every candidate. A candidate on such a pixel is rejected with one load; it is a
  // conservative prefilter, the exact tests follow. Bits, not bytes: the raster of a
  // small-radius class stays in cache.
  // Pool classes also keep `near`, same layout: 1 where a pixel meets another class's
  // exclusion disc (conservatively outward). Candidates elsewhere skip the other classes'
  // exact tests.
  std::vector<uint64_t> near;
  int nearRow0 = 0, nearRow1 = -1;  // rows marked since resetNear
  float coverX = 0, coverZ = 0;
  int coverNx = 0, coverNz = 0, coverWords = 0;  // coverWords: 64-bit words per pixel row
  float invPixel = 0;
  std::vector<uint64_t> covered;
  int tileI0 = 0, tileJ0 = 0, tileI1 = 0, tileJ1 = 0;  // cells holding the tile, inclusive
  float baseRadius = 0;  // its discs are marked from baseDiscSpans()

  // Covers [x0 - margin, x1 + margin) x [z0 - margin, z1 + margin) with spare cells around, so
  // scans of up to `margin` around any point of the tile stay inside. Reuses storage.
  // coverage: fill the coverage raster (Bridson classes); otherwise only its geometry is set,
  // for `near`, and markCovered / isCovered must not be used.
  void reset(float radius, float x0, float z0, float x1, float z1, float margin, bool isVariable, bool coverage);
  // An empty grid that holds nothing (a class absent from the tile and its margin).
  void clear();

  int cellX(float x) const { return int((x - originX) * invCell); }
  int cellZ(float z) const { return int((z - originZ) * invCell); }
  int cellOf(float x, float z) const { return cellZ(z) * nx + cellX(x); }
  float reachAt(int i, int j) const { return reach[size_t(j >> kReachShift) * size_t(reachNx) + size_t(i >> kReachShift)]; }
  bool isCovered(float x, float z) const {
    const unsigned i = unsigned(int((x - coverX) * invPixel));
    const uint64_t word = covered[size_t(int((z - coverZ) * invPixel)) * size_t(coverWords) + (i >> 6)];
    return (word >> (i & 63u)) & 1u;
  }
  // True when some alive sample may lie within `dist` of (x, z) (block granularity).
  bool aliveNear(float x, float z, float dist) const;

  // Returns the cell index. markDisc: also mark the sample's disc in the coverage raster.
  int insert(float x, float z, float r, bool isAlive, bool markDisc = true);
  // Removes an alive sample of the tile (survival roulette). Only once its class is placed:
  // from then on the grid holds alive samples only, what other classes test against.
  void kill(int cellIndex);
  void erase(int cellIndex) {
    pos[size_t(cellIndex)].x = kEmptyCell;
    const int j = cellIndex / nx, i = cellIndex - j * nx;
    occupiedWord(i, j) &= ~occupiedBit(i);
  }
  void markCovered(float x, float z, float r);
  // Clears `near` (sized like `covered`); then markNear sets every pixel meeting a disc of
  // radius r made by nearDisc(r) (once per radius: no square root per row).
  void resetNear();
  NearDisc nearDisc(float r) const;
  void markNear(float x, float z, const NearDisc& disc);
  bool isNear(float x, float z) const {
    const unsigned i = unsigned(int((x - coverX) * invPixel));
    const uint64_t word = near[size_t(int((z - coverZ) * invPixel)) * size_t(coverWords) + (i >> 6)];
    return (word >> (i & 63u)) & 1u;
  }
  // The annulus table scaled by fr pixels in 16.16 fixed point, packed as z * 2^32 + x (x may
  // be negative: it borrows from z, which adding to a parent at (px, pz) >= 0 gives back);
  // rebuilt only when fr changes.
  const int64_t* pixelOffsets(float fr);
  std::vector<int64_t> fixedOffsets;
  float fixedOffsetsFr = -1;
  // False when the disc's rows reach the raster's edge (the generic path clips them).
  // kFixedRows > 0: the table's row count, known at compile time.
  template <int kFixedRows = 0>
  bool markFromSpans(const DiscSpans& spans, float x, float z);
};

}  // namespace eco::sampling
