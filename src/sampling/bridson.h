#pragma once
// Per-tile kernel: places every class of one tile, in priority order, against the
// already-final samples of its neighbouring tiles, by Bridson growth (bridson.cpp) or from
// the class's Poisson pool (place_pool.cpp). Internal to sampling.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sampling/class_grid.h"
#include "sampling/grid_checks.h"
#include "sampling/sampling.h"
#include "sampling/pattern.h"
#include "sampling/pool.h"
#include "sampling/tiling.h"

namespace eco::sampling {

// A sample of a finished tile, as seen by the neighbouring tiles generated after it.
struct FixedSample {
  float x, z, r;
  uint16_t cls;
  uint8_t alive;  // 0: removed by survival roulette; still spaces its own class
};

// What one unit (a class in a tile) places: its samples in placement order and, for each side
// of the tile (kSideLowX, kSideHighX, kSideLowZ, kSideHighZ) and each corner (low or high x
// with low or high z), the indices of those within the class's margin of it. A neighbouring
// tile's units read only those (the margin strip or square toward them), not the whole tile:
// with dozens of species, scanning every neighbour's samples of every earlier class was the
// kernel's largest cost after placement itself.
enum : int { kSideLowX = 0, kSideHighX = 1, kSideLowZ = 2, kSideHighZ = 3, kCornerFirst = 4, kBorderLists = 8 };
// The corner list of x side sx and z side sz (kSideLowX or kSideHighX, kSideLowZ or kSideHighZ).
constexpr int cornerList(int sx, int sz) { return kCornerFirst + sx + 2 * (sz - kSideLowZ); }
struct UnitSamples {
  std::vector<FixedSample> samples;
  std::vector<uint32_t> border;        // list 0's indices, then list 1's, ... (ascending in each)
  uint32_t listEnd[kBorderLists] = {};  // list l is border[listEnd[l - 1], listEnd[l])
  // The canopy over the tile that this unit built (the crowns of classes [0, canopyLimit)), kept
  // with the tile for its later classes of the same layer: every responding class of a layer
  // sees the same crowns, and each gathering them again from the neighbourhood made the
  // canopy's cost grow with the square of the species.
  std::shared_ptr<const CanopyGrid> canopy;
  int canopyLimit = -1;
  bool dropCanopy = false;  // the next class does not read the tile's canopy: free it
};

// Per-run constants shared by every tile.
struct SamplerSetup {
  const SamplerParams* params = nullptr;
  const DensityField* density = nullptr;
  int tilesX = 0, tilesZ = 0;
  std::vector<float> margin;  // per class: its largest radius and pair distance
  std::vector<float> pair;    // n x n pairDistance
  // Per class c, the classes d != c it interacts with (pair distance > 0), ascending: the
  // exclusion matrix's non-zero pairs, so per-class work never scans every other class.
  std::vector<std::vector<int>> partners;
  std::vector<float> densityReach;  // per class: how far past its tile a unit reads its density
  std::vector<uint8_t> poolClass;  // per class: 1 placed from the pool, 0 by Bridson growth
  bool fromPool(size_t cls) const { return poolClass[cls] != 0; }
};

// Validates params (throws InputError).
SamplerSetup makeSetup(const SamplerParams& params, const DensityField* density);

struct PlacedSample {
  float x, z, r, density;
  int cell;
  bool alive;
};

struct ActiveSample {
  float x, z, r;
};

// A placed class that excludes the one being placed: its grid, or where it has only a few
// samples near the tile, their list (a grid per class and unit costs more to clear than a
// few distance tests, with hundreds of species).
struct OtherClass {
  const ClassGrid* grid;
  const std::vector<Point>* list;  // set instead of grid
  float distance, distance2;
};

// Per-worker buffers reused from tile to tile.
struct TileScratch {
  std::vector<ClassGrid> grids;  // one per class
  std::vector<PlacedSample> placed;
  std::vector<ActiveSample> active;  // copies, not indices: a pick is one load
  std::vector<OtherClass> others;
  std::vector<std::vector<Point>> alive;  // per class: alive samples in the tile and its margin
  std::vector<int> spacers;  // pool: cells of this class's removed samples, erased once it is placed
  std::vector<uint64_t> seamOrder;  // pool: seam points' sort keys
  std::vector<const FixedSample*> nearSamples;  // a higher layer's samples near the unit's tile
  std::vector<CanopyGrid::Crown> crownList;     // the crowns shading the unit's class
  const CanopyGrid* canopy = nullptr;  // the unit's class's canopy (the tile's, shared)
  PatchRaster clumps, gaps;  // the unit's class's patch fields over the tile
  DensityWindow window;      // the unit's class's density around the tile (DensityField::window)
  int windowClass = -1;      // the class `window` holds, -1: none
};

// The unit's density and its bounds: from its window where it holds them, else the field's.
inline float unitDensity(const DensityField* field, const TileScratch& s, int cls, float x, float z) {
  float v;
  if (s.windowClass == cls && s.window.at(x, z, v)) return v;
  return field->density(cls, x, z);
}
inline float unitMaxDensity(const DensityField* field, const TileScratch& s, int cls, float x0, float z0, float x1,
                            float z1) {
  float v;
  if (s.windowClass == cls && s.window.maxIn(x0, z0, x1, z1, v)) return v;
  return field->maxDensity(cls, x0, z0, x1, z1);
}

// Shared by the two placement methods (bridson.cpp, place_pool.cpp).

// Deterministic survival draw in [0, 1) from the seed and the sample alone.
float survivalDraw(uint64_t seed, int cls, float x, float z);
// The classes already placed that exclude `cls` (s.others), with their exclusion discs marked
// in the class's grid: in the coverage raster (Bridson) or in `near` (pool, withNear).
void collectOthers(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s, bool withNear);
// The first sample of another class closer than that class's exclusion distance to (qx, qz):
// true, with the sample in *hit and the distance in *distance when asked.
inline bool otherClassBlocker(const std::vector<OtherClass>& others, float qx, float qz, Point* hit = nullptr,
                              float* distance = nullptr) {
  for (const OtherClass& o : others) {
    bool found = false;
    if (o.list) {
      for (const Point& p : *o.list)
        if ((p.x - qx) * (p.x - qx) + (p.z - qz) * (p.z - qz) < o.distance2) {
          if (hit) *hit = p;
          found = true;
          break;
        }
    } else {
      found = o.grid->aliveNear(qx, qz, o.distance) && blockedWithin(*o.grid, qx, qz, o.distance, o.distance2, hit);
    }
    if (found) {
      if (distance) *distance = o.distance;
      return true;
    }
  }
  return false;
}
inline bool blockedByOtherClasses(const std::vector<OtherClass>& others, float qx, float qz) {
  return otherClassBlocker(others, qx, qz);
}

// Places class `cls` of the tile from the pool; leaves its samples in s.placed.
void placeClassFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s, bool variable);

struct UnitTask;
// Places class task.cls in tile (task.tx, task.tz) against the samples of its neighbourhood
// (sampling/schedule.h); `out` gets them, removed ones (survival roulette) included, and their
// margin strips.
void generateUnit(const SamplerSetup& setup, const UnitTask& task, TileScratch& scratch, UnitSamples& out);

}  // namespace eco::sampling
