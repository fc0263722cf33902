// Ecological figures of a finished bake (issue #28, "believable ecosystems"), with the measures
// of tests/ecology_metrics.h (written apart from the sampler):
//   ecology_bench BAKE_DIR
// prints Markdown tables:
//   - per species: count, density, and in its densest full 1 km window the Clark-Evans index,
//     the median nearest-neighbour distance, g(r) at 0.25, 0.5, 1, 2 and 4 x that distance,
//     the crown cover; the minimum pair distance over the world;
//   - with a river layer: per species, instances in the water and density against distance to
//     the river (bins of half the water distance);
//   - per understory species (grass, ground cover): density under the crowns of all trees and
//     shrubs against in their gaps, within 64 m cells that hold both.
// The bake is read with the project's verified readers (readManifest, readTileVerified,
// readLayerVerified), tile by tile, keeping x, z and scale of each instance (12 bytes).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ecology_metrics.h"
#include "tileio/tileio.h"

namespace {

using namespace eco::ecology;

// One instance as the bench keeps it; the species is the vector it sits in.
struct Q {
  float x, z, scale;
};
// A tree's or shrub's crown as the bench keeps it (a sample world has a million, Puget 56 M).
struct Crown {
  float x, z, r;
};

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The river's distance field from the bake's river layer: decoded to metres on the terrain's
// grid (sample (i, j) at world (i x cell, j x cell)), read bilinearly.
struct RiverField {
  int width = 0, height = 0;
  double cell = 1;
  double waterDistance = 0;
  double step = 0;  // the quantisation step of the layer's codes
  std::vector<float> values;
  double at(double x, double z) const {
    const double u = std::clamp(x / cell, 0.0, double(width - 1)), v = std::clamp(z / cell, 0.0, double(height - 1));
    const int i = std::min(int(u), std::max(width - 2, 0)), j = std::min(int(v), std::max(height - 2, 0));
    const int i1 = std::min(i + 1, width - 1), j1 = std::min(j + 1, height - 1);
    const double fu = u - double(i), fv = v - double(j);
    const auto val = [&](int a, int b) { return double(values[size_t(b) * size_t(width) + size_t(a)]); };
    return (val(i, j) * (1 - fu) + val(i1, j) * fu) * (1 - fv) + (val(i, j1) * (1 - fu) + val(i1, j1) * fu) * fv;
  }
};

// A table cell: "-" for an undefined figure (NaN), "inf" for an infinite one; else `digits`
// decimals (fixed) or significant digits (general).
std::string cell(double v, int digits, bool general) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (general)
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string fixed(int decimals, double v) { return cell(v, decimals, false); }
std::string general(int digits, double v) { return cell(v, digits, true); }

bool isCanopy(uint8_t kind) { return kind == uint8_t(eco::SpeciesKind::Tree) || kind == uint8_t(eco::SpeciesKind::Shrub); }
bool isUnderstory(uint8_t kind) {
  return kind == uint8_t(eco::SpeciesKind::Grass) || kind == uint8_t(eco::SpeciesKind::GroundCover);
}

// The figures of one species in its densest window.
struct WindowFigures {
  DenseWindow dense;
  ClarkEvans ce;
  std::vector<double> g;  // at kGRadii x the median nearest-neighbour distance
  double cover = kNaN;
};
constexpr double kGRadii[] = {0.25, 0.5, 1, 2, 4};
// Each g is read on a ring of +-1/8 of its radius around it: wide enough to hold counts at
// 0.25 x the spacing, narrow enough to resolve the spacing's peak.
constexpr double kRingHalfWidth = 0.125;

WindowFigures windowFigures(const std::vector<Q>& pts, const eco::SpeciesRecord& sp, double worldX, double worldZ) {
  WindowFigures f;
  f.g.assign(std::size(kGRadii), kNaN);
  f.dense = densestFullWindow(pts, worldX, worldZ, 1000);
  if (f.dense.count < 2) return f;
  const Window& w = f.dense.window;
  // Neighbours come from a margin around the window: 100 m (far beyond any nearest
  // neighbour of a species dense enough to measure), then as far as g looks if that is more.
  double margin = 100;
  std::vector<Q> local = cropped(pts, w.grown(margin));
  f.ce = clarkEvans(local, w);
  const double rMax = kGRadii[std::size(kGRadii) - 1] * (1 + kRingHalfWidth) * f.ce.medianNN;
  if (rMax > margin) {
    margin = rMax;
    local = cropped(pts, w.grown(margin));
  }
  if (f.ce.medianNN > 0) {
    std::vector<std::pair<double, double>> rings;
    for (double k : kGRadii) rings.push_back({k * (1 - kRingHalfWidth) * f.ce.medianNN, k * (1 + kRingHalfWidth) * f.ce.medianNN});
    f.g = pairCorrelationRings(local, w, rings);
  }
  // Crown cover: the species' crowns meeting the window, on a 0.25 m raster (pixel centres
  // sample the ground, so even crowns of a few pixels are measured without bias on average).
  std::vector<Disc> crowns;
  for (const Q& q : local) {
    const double r = double(sp.crownRadius) * double(q.scale);
    if (double(q.x) + r >= w.x0 && double(q.x) - r <= w.x1 && double(q.z) + r >= w.z0 && double(q.z) - r <= w.z1)
      crowns.push_back({double(q.x), double(q.z), r});
  }
  f.cover = crownCover(crowns, w, 0.25);
  return f;
}

int run(const std::string& dir) {
  const Clock::time_point t0 = Clock::now();
  const eco::Manifest m = eco::readManifest(dir);
  const size_t nSpecies = m.species.size();
  std::vector<std::vector<Q>> species(nSpecies);
  for (size_t s = 0; s < nSpecies; ++s) species[s].reserve(s < m.totals.speciesCounts.size() ? m.totals.speciesCounts[s] : 0);
  for (const eco::TileEntry& e : m.tiles)
    for (const eco::Instance& i : eco::readTileVerified(dir, m, e).instances)
      species[i.species].push_back({i.position.x, i.position.z, i.scale});
  const double worldX = double(m.world.sizeX), worldZ = double(m.world.sizeZ), hectares = worldX * worldZ / 1e4;
  const double readSeconds = secondsSince(t0);

  std::optional<RiverField> river;
  for (const eco::LayerEntry& l : m.layers)
    if (l.kind == "river" && l.waterDistance >= 0) {
      const std::vector<uint8_t> bytes = eco::readLayerVerified(dir, l);
      RiverField rf;
      rf.width = l.width;
      rf.height = l.height;
      rf.cell = double(m.terrain.cellSize);
      rf.waterDistance = double(l.waterDistance);
      rf.step = (double(l.valueMax) - double(l.valueMin)) / double(eco::layerCodeMax(l.encoding));
      rf.values.resize(size_t(l.width) * size_t(l.height));
      for (size_t k = 0; k < rf.values.size(); ++k) rf.values[k] = eco::layerValue(l, eco::layerCode(l, bytes, k));
      river = std::move(rf);
      break;
    }

  std::printf("## %s (%s): %.0f x %.0f m, %llu instances, %zu species (read in %.1f s)\n\n", m.name.c_str(),
              dir.c_str(), worldX, worldZ, static_cast<unsigned long long>(m.totals.instances), nSpecies, readSeconds);
  std::printf("Window: each species' densest full 1 km window (x0, z0), n its instances there. R: Clark-Evans "
              "(1 Poisson, 2.15 hexagonal). NN: median nearest-neighbour distance there; g(k): pair correlation at k x NN. "
              "Min pair: over the world. Cover: share of the window's ground under the species' crowns.\n\n");
  const Clock::time_point ts = Clock::now();
  std::printf("| species | kind | count | per ha | window | n | R | NN m | g(.25) | g(.5) | g(1) | g(2) | g(4) | min pair m | cover |\n");
  std::printf("|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (size_t s = 0; s < nSpecies; ++s) {
    const eco::SpeciesRecord& sp = m.species[s];
    const std::vector<Q>& pts = species[s];
    const WindowFigures f = windowFigures(pts, sp, worldX, worldZ);
    std::printf("| %s | %s | %zu | %s | %.0f,%.0f | %zu | %s | %s |", sp.name.c_str(), eco::speciesKindName(sp.kind),
                pts.size(), general(3, double(pts.size()) / hectares).c_str(), f.dense.window.x0, f.dense.window.z0,
                f.dense.count, fixed(3, f.ce.R).c_str(), fixed(2, f.ce.medianNN).c_str());
    for (double g : f.g) std::printf(" %s |", fixed(2, g).c_str());
    std::printf(" %s | %s |\n", fixed(3, minimumPairDistance(pts)).c_str(), fixed(3, f.cover).c_str());
    std::fflush(stdout);
  }
  std::printf("\n(species: %.1f s)\n", secondsSince(ts));

  if (river) {
    const Clock::time_point tr = Clock::now();
    const RiverField& rf = *river;
    const auto distance = [&rf](double x, double z) { return rf.at(x, z); };
    // Bins of half the water distance (at least 0.25 m) out to 4 water distances; bin areas
    // from the distance sampled on a grid of at most 16 M points, at least 2 per bin width.
    const double bin = std::max(0.5 * rf.waterDistance, 0.25), reach = 8 * bin;
    const double step = std::max(bin / 2, std::sqrt(worldX * worldZ / 16e6));
    // The bake tests the exact river field; the layer is quantised, so an instance on the bank
    // itself may read a step inside it: "in water" counts those deeper than one step.
    std::printf("\nRiver: water where the river distance (bilinear in layer river_distance, quantised to %.3f m) <= "
                "%.2f m. In water: instances deeper than the layer's step (%.2f m and less); closest: the smallest "
                "river distance of an instance. Density per ha by river distance, bins of %.2f m; beyond: past %.1f m.\n\n",
                rf.step, rf.waterDistance, rf.waterDistance - rf.step, bin, reach);
    std::printf("| species | in water | closest m |");
    for (int b = 0; b < 8; ++b) std::printf(" %.3g-%.3g |", double(b) * bin, double(b + 1) * bin);
    std::printf(" beyond |\n|---|--:|--:|");
    for (int b = 0; b < 8; ++b) std::printf("--:|");
    std::printf("--:|\n");
    for (size_t s = 0; s < nSpecies; ++s) {
      const std::vector<Q>& pts = species[s];
      const RiparianProfile prof = riparianProfile(pts, distance, bin, reach, worldX, worldZ, step);
      double closest = kInf;
      for (const Q& q : pts) closest = std::min(closest, rf.at(double(q.x), double(q.z)));
      std::printf("| %s | %zu | %s |", m.species[s].name.c_str(), inWaterCount(pts, distance, rf.waterDistance - rf.step),
                  fixed(2, pts.empty() ? kNaN : closest).c_str());
      for (double d : prof.density) std::printf(" %s |", general(4, d * 1e4).c_str());
      std::printf(" %s |\n", general(4, prof.beyondDensity() * 1e4).c_str());
      std::fflush(stdout);
    }
    std::printf("\n(river: %.1f s)\n", secondsSince(tr));
  } else {
    std::printf("\nNo river layer: no in-water count or riparian profile.\n");
  }

  // Crowns of every tree and shrub: manifest crown radius x instance scale.
  bool anyUnderstory = false;
  for (size_t s = 0; s < nSpecies; ++s) anyUnderstory |= isUnderstory(m.species[s].kind) && !species[s].empty();
  if (anyUnderstory) {
    const Clock::time_point tu = Clock::now();
    // Worlds of more than 250,000 cells of 64 m (16 x 16 km) are measured on a regular sample
    // of the cells, every stride-th in x and z: Puget's 6.5 M cells at 0.5 m would take minutes.
    const double cell = 64, cells = std::ceil(worldX / cell) * std::ceil(worldZ / cell);
    const int stride = std::max(1, int(std::ceil(std::sqrt(cells / 250000))));
    // Only crowns meeting a measured cell are kept (underCrownRatio looks at no other).
    const auto meetsMeasured = [&](double lo, double hi) {
      const double c0 = std::max(0.0, std::floor(lo / cell)), c1 = std::floor(hi / cell);
      return std::ceil(c0 / stride) * stride <= c1;
    };
    std::vector<Crown> crowns;
    for (size_t s = 0; s < nSpecies; ++s)
      if (isCanopy(m.species[s].kind))
        for (const Q& q : species[s]) {
          const float r = m.species[s].crownRadius * q.scale;
          if (stride == 1 || (meetsMeasured(double(q.x - r), double(q.x + r)) && meetsMeasured(double(q.z - r), double(q.z + r))))
            crowns.push_back({q.x, q.z, r});
        }
    std::printf("\nUnderstory against the canopy (%zu tree and shrub crowns measured): density under crowns / in gaps, within 64 m "
                "cells holding both (each >= 10%% of the cell, 0.5 m raster)%s. 1: indifferent; > 1 seeks shade.\n\n",
                crowns.size(), stride > 1 ? (", every " + std::to_string(stride) + "th cell in x and z").c_str() : "");
    std::printf("| species | kind | under / gap | cells | under per ha | gap per ha |\n|---|---|--:|--:|--:|--:|\n");
    for (size_t s = 0; s < nSpecies; ++s) {
      if (!isUnderstory(m.species[s].kind)) continue;
      const UnderCrown u = underCrownRatio(species[s], crowns, worldX, worldZ, cell, 0.5, 0.1, stride);
      std::printf("| %s | %s | %s | %d | %s | %s |\n", m.species[s].name.c_str(), eco::speciesKindName(m.species[s].kind),
                  fixed(3, u.ratio).c_str(), u.cells, general(4, u.underDensity() * 1e4).c_str(),
                  general(4, u.gapDensity() * 1e4).c_str());
      std::fflush(stdout);
    }
    std::printf("\n(understory: %.1f s)\n", secondsSince(tu));
  } else {
    std::printf("\nNo grass or ground cover: no understory table.\n");
  }
  std::printf("\n(%.1f s in all)\n", secondsSince(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ecology_bench BAKE_DIR\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecology_bench: %s\n", e.what());
    return 1;
  }
}
