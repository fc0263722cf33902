#pragma once
// Tile geometry and the 2x2 tile colouring that orders tile generation. Internal to sampling.
#include "sampling/sampling.h"

namespace eco::sampling {

struct TileBounds {
  float x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // half-open, world metres
};

TileBounds tileBounds(const SamplerParams& p, int tx, int tz);

// Neighbouring tiles always differ in colour; a class's tile is generated after its
// neighbours of lower colour (its dependencies) and before those of higher colour (its
// dependants). The rows of low colours (0, 1) alternate with the class: a class's own chain of
// dependencies then starts, one row out, on a row where the class before it has no chain of
// its own, so a class reaches one tile row beyond the next class (the layer rule) instead of
// two (the layer rule and its own chain). That halves the rows a shard regenerates around its
// band and the rows a bake holds.
inline int tileColour(int tx, int tz, int cls) { return (tx & 1) | (((tz + cls) & 1) << 1); }

// Calls f(nx, nz) for the 8-neighbours of (tx, tz) inside a world of tilesX x tilesZ whose
// colour for class cls is lower (dependencies) or higher (dependants) than the tile's.
template <typename F>
void forEachNeighbour(int tx, int tz, int cls, int tilesX, int tilesZ, bool lower, F&& f) {
  const int colour = tileColour(tx, tz, cls);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) {
      const int x = tx + dx, z = tz + dz;
      if ((dx == 0 && dz == 0) || x < 0 || z < 0 || x >= tilesX || z >= tilesZ) continue;
      if ((tileColour(x, z, cls) < colour) == lower) f(x, z);
    }
}

// True when class cls's (tx, tz) is in `range` or is a (transitive) dependency of a tile in it.
bool tileNeeded(const TileRange& range, int tx, int tz, int cls, int tilesX, int tilesZ);

// The rectangle holding every tile of class cls needed for `range`.
TileRange neededBounds(const TileRange& range, int cls, int tilesX, int tilesZ);

}  // namespace eco::sampling
