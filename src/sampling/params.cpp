#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "sampling/sampling.h"
#include "sampling/tiling.h"

namespace eco {

namespace {

int tileCount(float extent, float tile) { return int(std::ceil(double(extent) / double(tile))); }

// Grid cells per class and tile (tile plus margins) beyond which a worker's scratch (about
// 22 bytes per cell with the coverage raster) would exceed ~180 MB.
constexpr double kMaxCellsPerTile = 8.0 * 1024 * 1024;
// The schedule and the manifest hold an entry per tile.
constexpr double kMaxTiles = 1e9;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string num(float v) { return num(double(v)); }  // the parameters are floats

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
    reach = std::max(reach, sc.largestRadius(p.variableRadius));
    // Crowns that shade a later class are read from the neighbouring tiles.
    for (int d = c + 1; d < n; ++d)
      if (p.classes[size_t(d)].respondsToCanopy() && p.classes[size_t(d)].canopyFrom > c) reach = std::max(reach, sc.crownHi);
    for (int d = 0; d < n; ++d) reach = std::max(reach, pairDistance(p, c, d));
  }
  return reach;
}

float minTileSize(const SamplerParams& p) { return interactionDistance(p); }

std::vector<SamplerProblem> samplerProblems(const SamplerParams& p, bool knownExtent) {
  using S = SamplerProblem::Subject;
  std::vector<SamplerProblem> out;
  auto add = [&](S subject, int cls, int other, std::string reason) {
    out.push_back({subject, cls, other, std::move(reason)});
  };
  if (knownExtent) {
    if (!(p.worldX > 0.f && p.worldZ > 0.f) || !std::isfinite(p.worldX) || !std::isfinite(p.worldZ))
      add(S::World, -1, -1, "world extent " + num(p.worldX) + " x " + num(p.worldZ) + " m must be positive");
    else if (p.tileSize > 0.f && std::isfinite(p.tileSize) && double(tilesX(p)) * double(tilesZ(p)) > kMaxTiles)
      add(S::TileSize, -1, -1, "tile size " + num(p.tileSize) + " m cuts the " + num(p.worldX) + " x " + num(p.worldZ) +
                                    " m world into " + num(double(tilesX(p)) * double(tilesZ(p))) +
                                    " tiles, more than " + num(kMaxTiles) + "; use larger tiles");
  }
  const bool tileOk = p.tileSize > 0.f && std::isfinite(p.tileSize);
  if (!tileOk) add(S::TileSize, -1, -1, "tile size " + num(p.tileSize) + " m must be positive");
  if (p.candidates < 1 || p.candidates > 10000)
    add(S::Candidates, -1, -1, "candidates (Bridson k) " + std::to_string(p.candidates) + " must be in [1, 10000]");
  const size_t n = p.classes.size();
  if (n == 0) add(S::ClassCount, -1, -1, "no sample classes");
  if (n > 65535) add(S::ClassCount, -1, -1, "too many sample classes (" + std::to_string(n) + ", at most 65535)");
  bool classesOk = n > 0 && n <= 65535;
  for (size_t c = 0; c < n; ++c) {
    const SampleClass& sc = p.classes[c];
    if (!(sc.radius > 0.f) || !std::isfinite(sc.radius)) {
      add(S::Radius, int(c), -1, "radius " + num(sc.radius) + " must be positive");
      classesOk = false;
    } else if (p.variableRadius && !(sc.maxRadius >= sc.radius && std::isfinite(sc.maxRadius))) {
      add(S::MaxRadius, int(c), -1, "maxRadius " + num(sc.maxRadius) + " must be >= radius " + num(sc.radius));
      classesOk = false;
    }
    // The pattern's numbers (sampling.h SampleClass), and patch fields no finer than the class:
    // a tile's patch raster holds (tile / (radius / 2))^2 bits.
    const bool patternOk = sc.sizeSpread >= 1.f && sc.sizeSpread <= 64.f && sc.keep > 0.f && sc.keep <= 1.f &&
                           sc.patternMean > 0.f && sc.patternMean <= 1.f && sc.between >= 0.f && sc.between <= 1.f &&
                           sc.underCrown >= 0.f && sc.underCrown <= 1.f && sc.inOpen >= 0.f && sc.inOpen <= 1.f &&
                           sc.crownLo >= 0.f && sc.crownHi >= sc.crownLo && std::isfinite(sc.crownHi) &&
                           sc.canopyFrom >= 0 && size_t(sc.canopyFrom) <= c;
    if (!patternOk) {
      add(S::Pattern, int(c), -1, "pattern numbers out of range (size spread, keep, between, canopy factors, crowns)");
      classesOk = false;
    }
    for (const PatchField* f : {&sc.clumps, &sc.gaps})
      if (f->active() && !(f->radius >= sc.radius && std::isfinite(f->radius))) {
        add(S::Pattern, int(c), -1, "patch radius " + num(f->radius) + " m is below the spacing " + num(sc.radius) + " m");
        classesOk = false;
      }
  }
  if (!p.classDistance.empty() && p.classDistance.size() != n * n) {
    add(S::ClassDistance, -1, -1, "classDistance has " + std::to_string(p.classDistance.size()) +
                                      " entries, expected " + std::to_string(n * n) + " (" + std::to_string(n) +
                                      " x " + std::to_string(n) + ")");
    return out;  // pairDistance would read past the end
  }
  for (size_t i = 0; i < p.classDistance.size(); ++i) {
    const float d = p.classDistance[i];
    if (!(d >= 0.f) || !std::isfinite(d)) {
      add(S::ClassDistance, int(i / n), int(i % n), "class distance " + num(d) + " must be >= 0");
      classesOk = false;
    }
  }
  if (!classesOk || !tileOk) return out;
  // The rule and the grid size in the order that names the cause: a class whose own reach
  // or pair distance exceeds the tile, then a class too fine for the tile.
  const float reach = minTileSize(p);
  if (p.tileSize < reach) {
    for (int c = 0; c < int(n); ++c) {
      const SampleClass& sc = p.classes[size_t(c)];
      float own = sc.largestRadius(p.variableRadius);
      for (int d = c + 1; d < int(n); ++d)
        if (p.classes[size_t(d)].respondsToCanopy() && p.classes[size_t(d)].canopyFrom > c) own = std::max(own, sc.crownHi);
      if (own == reach) {
        add(S::TileSize, c, -1, "tile size " + num(p.tileSize) + " m is smaller than the largest interaction distance " +
                                    num(reach) + " m (the largest radius of class " + std::to_string(c) +
                                    "); use tiles of at least " + num(reach) + " m");
        return out;
      }
      for (int d = 0; d < int(n); ++d)
        if (pairDistance(p, c, d) == reach) {
          add(S::TileSize, c, d, "tile size " + num(p.tileSize) + " m is smaller than the largest interaction distance " +
                                     num(reach) + " m (the distance between classes " + std::to_string(c) + " and " +
                                     std::to_string(d) + "); use tiles of at least " + num(reach) + " m");
          return out;
        }
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const double side =
        (double(p.tileSize) + 2.0 * double(reach)) / (double(p.classes[c].radius) / std::sqrt(2.0)) + 8.0;
    if (side * side > kMaxCellsPerTile)
      add(S::Radius, int(c), -1, "radius " + num(p.classes[c].radius) + " m is too small for tile size " +
                                     num(p.tileSize) + " m (" + num(side * side) + " grid cells per tile, at most " +
                                     num(kMaxCellsPerTile) + "); use a larger radius or smaller tiles (tile size" +
                                     " + 2 * " + num(reach) + " m at most " +
                                     num(std::sqrt(kMaxCellsPerTile) - 8.0) + " cells of radius / sqrt(2))");
  }
  return out;
}

void validateSamplerParams(const SamplerParams& p) {
  std::vector<SamplerProblem> problems = samplerProblems(p);
  if (problems.empty()) return;
  const SamplerProblem& first = problems.front();
  const bool perClass = first.cls >= 0 && first.subject != SamplerProblem::Subject::TileSize;
  throw InputError("sampler: " + (perClass ? "class " + std::to_string(first.cls) + ": " : std::string()) + first.reason);
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

bool tileNeeded(const TileRange& r, int tx, int tz, int cls, int nx, int nz) {
  if (tx >= r.x0 && tx < r.x1 && tz >= r.z0 && tz < r.z1) return true;
  bool needed = false;
  forEachNeighbour(tx, tz, cls, nx, nz, /*lower=*/false, [&](int x, int z) {
    if (!needed) needed = tileNeeded(r, x, z, cls, nx, nz);
  });
  return needed;
}

TileRange neededBounds(const TileRange& r, int cls, int nx, int nz) {
  // Dependency chains are at most 3 steps (colour 3 -> 2 -> 1 -> 0), each at most one tile in
  // x: 3 tiles in x. In z only a row of high colours (2, 3) depends on the rows beside it, and
  // those are of low colours, whose tiles depend only on their own row: one row out where the
  // range's edge row is high.
  const auto high = [cls](int z) { return ((z + cls) & 1) != 0; };
  return {std::max(0, r.x0 - 3), std::max(0, r.z0 - int(high(r.z0))), std::min(nx, r.x1 + 3),
          std::min(nz, r.z1 + int(high(r.z1 - 1)))};
}

}  // namespace sampling
}  // namespace eco
