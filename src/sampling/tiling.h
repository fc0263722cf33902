#pragma once
// Tile geometry and the 2x2 tile colouring that orders tile generation. Internal to sampling.
#include "sampling/sampling.h"

namespace eco::sampling {

struct TileBounds {
  float x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // half-open, world metres
};

TileBounds tileBounds(const SamplerParams& p, int tx, int tz);

// Neighbouring tiles always differ in colour; a tile is generated after its neighbours of
// lower colour (its dependencies) and before those of higher colour (its dependants).
inline int tileColour(int tx, int tz) { return (tx & 1) | ((tz & 1) << 1); }

// Calls f(nx, nz) for the 8-neighbours of (tx, tz) inside a world of tilesX x tilesZ whose
// colour is lower (dependencies) or higher (dependants) than the tile's.
template <typename F>
void forEachNeighbour(int tx, int tz, int tilesX, int tilesZ, bool lower, F&& f) {
  const int colour = tileColour(tx, tz);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) {
      const int x = tx + dx, z = tz + dz;
      if ((dx == 0 && dz == 0) || x < 0 || z < 0 || x >= tilesX || z >= tilesZ) continue;
      if ((tileColour(x, z) < colour) == lower) f(x, z);
    }
}

// True when (tx, tz) is in `range` or is a (transitive) dependency of a tile in it.
bool tileNeeded(const TileRange& range, int tx, int tz, int tilesX, int tilesZ);

// The rectangle holding every tile needed for `range`.
TileRange neededBounds(const TileRange& range, int tilesX, int tilesZ);

}  // namespace eco::sampling
