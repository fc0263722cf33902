#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "sampling/poisson.h"
#include "sampling/tiling.h"

namespace eco {

namespace {

int tileCount(float extent, float tile) { return int(std::ceil(double(extent) / double(tile))); }

// Grid cells per class and tile (tile plus margins) beyond which a worker's scratch (about
// 22 bytes per cell with the coverage raster) would exceed ~180 MB.
constexpr double kMaxCellsPerTile = 8.0 * 1024 * 1024;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

int tilesX(const SamplerParams& p) { return tileCount(p.worldX, p.tileSize); }
int tilesZ(const SamplerParams& p) { return tileCount(p.worldZ, p.tileSize); }

float pairDistance(const SamplerParams& p, int c, int d) {
  const size_t n = p.classes.size();
  if (p.classDistance.empty() || c == d) return 0.f;
  return std::max(p.classDistance[size_t(c) * n + size_t(d)], p.classDistance[size_t(d) * n + size_t(c)]);
}

float interactionDistance(const SamplerParams& p) {
  float reach = 0.f;
  const int n = int(p.classes.size());
  for (int c = 0; c < n; ++c) {
    const SampleClass& sc = p.classes[size_t(c)];
    reach = std::max(reach, p.variableRadius ? std::max(sc.radius, sc.maxRadius) : sc.radius);
    for (int d = 0; d < n; ++d) reach = std::max(reach, pairDistance(p, c, d));
  }
  return reach;
}

void validateSamplerParams(const SamplerParams& p) {
  auto fail = [](const std::string& what) { throw InputError("sampler: " + what); };
  if (!(p.worldX > 0.f && p.worldZ > 0.f) || !std::isfinite(p.worldX) || !std::isfinite(p.worldZ))
    fail("world extent " + num(p.worldX) + " x " + num(p.worldZ) + " m must be positive");
  if (!(p.tileSize > 0.f) || !std::isfinite(p.tileSize)) fail("tile size " + num(p.tileSize) + " m must be positive");
  if (double(tilesX(p)) * double(tilesZ(p)) > 1e9) fail("too many tiles (world / tile size)");
  if (p.candidates < 1 || p.candidates > 10000)
    fail("candidates (Bridson k) " + std::to_string(p.candidates) + " must be in [1, 10000]");
  const size_t n = p.classes.size();
  if (n == 0) fail("no sample classes");
  if (n > 65535) fail("too many sample classes");
  for (size_t c = 0; c < n; ++c) {
    const SampleClass& sc = p.classes[c];
    const std::string name = "class " + std::to_string(c);
    if (!(sc.radius > 0.f) || !std::isfinite(sc.radius)) fail(name + ": radius " + num(sc.radius) + " must be positive");
    if (p.variableRadius && !(sc.maxRadius >= sc.radius && std::isfinite(sc.maxRadius)))
      fail(name + ": maxRadius " + num(sc.maxRadius) + " must be >= radius " + num(sc.radius));
  }
  if (!p.classDistance.empty() && p.classDistance.size() != n * n)
    fail("classDistance has " + std::to_string(p.classDistance.size()) + " entries, expected " +
         std::to_string(n * n) + " (" + std::to_string(n) + " x " + std::to_string(n) + ")");
  for (float d : p.classDistance)
    if (!(d >= 0.f) || !std::isfinite(d)) fail("classDistance entry " + num(d) + " must be >= 0");
  const float reach = interactionDistance(p);
  if (p.tileSize < reach)
    fail("tile size " + num(p.tileSize) + " m is smaller than the largest interaction distance " + num(reach) +
         " m (largest radius or class distance); use tiles of at least " + num(reach) + " m");
  for (size_t c = 0; c < n; ++c) {
    const double side = (double(p.tileSize) + 2.0 * reach) / (p.classes[c].radius / std::sqrt(2.0)) + 8.0;
    if (side * side > kMaxCellsPerTile)
      fail("class " + std::to_string(c) + ": radius " + num(p.classes[c].radius) + " m is too small for tile size " +
           num(p.tileSize) + " m (" + num(side * side) + " grid cells per tile); use smaller tiles");
  }
}

namespace sampling {

TileBounds tileBounds(const SamplerParams& p, int tx, int tz) {
  TileBounds b;
  b.x0 = float(tx) * p.tileSize;
  b.z0 = float(tz) * p.tileSize;
  b.x1 = tx + 1 >= tilesX(p) ? p.worldX : float(tx + 1) * p.tileSize;
  b.z1 = tz + 1 >= tilesZ(p) ? p.worldZ : float(tz + 1) * p.tileSize;
  return b;
}

bool tileNeeded(const TileRange& r, int tx, int tz, int nx, int nz) {
  if (tx >= r.x0 && tx < r.x1 && tz >= r.z0 && tz < r.z1) return true;
  bool needed = false;
  forEachNeighbour(tx, tz, nx, nz, /*lower=*/false, [&](int x, int z) {
    if (!needed) needed = tileNeeded(r, x, z, nx, nz);
  });
  return needed;
}

TileRange neededBounds(const TileRange& r, int nx, int nz) {
  // Dependency chains are at most 3 steps (colour 3 -> 2 -> 1 -> 0); only the colour 1 -> 0
  // and 2 -> 1 steps can be horizontal, and 1 -> 0 ones only horizontal: 3 tiles in x, 1 in z.
  return {std::max(0, r.x0 - 3), std::max(0, r.z0 - 1), std::min(nx, r.x1 + 3), std::min(nz, r.z1 + 1)};
}

}  // namespace sampling
}  // namespace eco
