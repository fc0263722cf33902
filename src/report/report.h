#pragma once
// The report stage: what a bake's ecology looks like, for review and for CI over biome
// configs. `diffBakes` compares two bakes of one world species by species: counts, and where
// each species' plants stand on the terrain (their share in elevation, slope and aspect bins,
// from the bake's own terrain), and which tiles' bytes differ. Reads finished bakes through the
// verified readers (tileio), one tile at a time. docs/ci.md.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eco {

// The terrain bins a plant is counted in, by the height, slope and aspect at its position
// (the terrain raster's nearest sample, central differences for the gradient).
struct TerrainBins {
  // Elevation: kElevationBins equal bands between the world's lowest and highest sample.
  static constexpr int kElevationBins = 10;
  // Slope, degrees: [0, 5), [5, 10), [10, 20), [20, 30), [30, 45), [45, 90].
  static constexpr int kSlopeBins = 6;
  // Aspect, the way the ground faces where the slope is at least 5 degrees: N, NE, E, SE, S,
  // SW, W, NW (north = -z); "flat" below 5 degrees.
  static constexpr int kAspectBins = 9;
  // Moisture (the report, when the bake carries the moisture layer): ten bands of 0 .. 1, from
  // the layer's nearest sample.
  static constexpr int kMoistureBins = 10;
  static const char* maskName(int mask);  // "elevation", "slope", "aspect", "moisture"
  static int binCount(int mask);
  // "1200-1300 m", "10-20 deg", "NE", "flat", "0.3-0.4"
  static std::string binLabel(int mask, int bin, float minY, float maxY);
};

// One species in both bakes (matched by name; a species in one bake only has count 0 in the other).
struct SpeciesDiff {
  std::string name;
  bool inA = false, inB = false;  // the species is in the bake's species table (with plants or not)
  uint64_t countA = 0, countB = 0;
  // (B - A) / A in percent; infinite when A is 0 and B is not.
  double countChangePct = 0;
  // Per mask (elevation, slope, aspect), per bin: the share of the species' plants there, in
  // percent of its count, in A and in B.
  std::vector<std::vector<double>> shareA, shareB;
  // The largest |shareB - shareA| (percentage points) and where.
  double largestShift = 0;
  int shiftMask = 0, shiftBin = 0;
};

struct BakeDiff {
  float minY = 0, maxY = 0;  // the world's height range (the elevation bins')
  std::vector<SpeciesDiff> species;  // A's species in A's order, then B's new ones
  uint64_t tilesA = 0, tilesB = 0;   // tile files
  uint64_t tilesDiffer = 0, tilesOnlyA = 0, tilesOnlyB = 0;
  std::vector<std::string> differingTiles;  // file names: the first kMaxListedTiles that differ or are in one bake only
  static constexpr size_t kMaxListedTiles = 20;
  // Species in one bake only, or whose count changed by more than `pct` percent or whose share
  // in some bin moved by more than `pct` percentage points.
  std::vector<std::string> exceeding(double pct) const;
};

// Compares bakes a and b (folders). InputError when either cannot be read (any verified
// reader's refusals: a part of a sharded bake, a damaged tile), or when they are not bakes of
// one world: terrain size, cell size and heights, and the tiling must be the same.
// With reportDir, also writes there (the output rules: staged, owned through diff.json, refused
// inside either bake) the moved density of every species as maps, an index.html and diff.json.
BakeDiff diffBakes(const std::string& a, const std::string& b, const std::string& reportDir = "",
                   std::optional<double> failOnPct = std::nullopt);

// ---- report (report.cpp) ----

// Nearest-neighbour and pair statistics of a point pattern in a window, with every point in
// `all` (the window's points and those around it) as a neighbour (buffer-zone edge handling:
// no edge bias when the buffer is wider than the distances measured).
struct PatternStats {
  size_t points = 0;          // in the window
  double intensity = 0;       // points per square metre in the window
  double meanNearest = 0;     // mean distance to the nearest other point
  double clarkEvans = 0;      // meanNearest / (0.5 / sqrt(intensity)): 1 Poisson, 2.15 a hexagonal lattice
  std::vector<double> radii;  // g(r) at these radii (metres), over rings [r - dr / 2, r + dr / 2)
  std::vector<double> g;
  double ringWidth = 0;       // dr
  std::vector<uint64_t> nearestHistogram;  // nearest distances in bins of histogramBin metres
  double histogramBin = 0;
};
struct Point2 {
  double x = 0, z = 0;
};
// `window`: x0, z0, x1, z1. radii: where to evaluate g; histogramBin: its bins' width (16 bins,
// the last open-ended).
PatternStats patternStats(const std::vector<Point2>& all, const std::array<double, 4>& window, const std::vector<double>& radii,
                          double ringWidth, double histogramBin);

// `ecobake report BAKE -o DIR`: DIR/report.json and DIR/index.html with the maps beside them
// (docs/ci.md). Per species: count, density, crown cover, plants in water, Clark-Evans, g(r)
// and the nearest-neighbour histogram in its densest tile, shares by terrain bin; density maps
// and a species map; the bake's provenance. Reads the bake through the verified readers, a tile
// at a time (the densest tiles and their neighbours again for the patterns). The folder follows
// the output rules (staged, owned through report.json, refused inside the bake). Returns the
// number of plants reported.
uint64_t writeReport(const std::string& bakeDir, const std::string& outDir,
                     const std::function<void(int done, int total)>& progress = {});

// The summary table a CI log shows; `failOnPct` marks the rows over it.
std::string describeDiff(const BakeDiff& diff, std::optional<double> failOnPct);
// The whole diff as JSON (report.md-free: for scripts).
std::string diffJson(const BakeDiff& diff, std::optional<double> failOnPct);

}  // namespace eco
