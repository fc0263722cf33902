#pragma once
// Ecological measures of point patterns (issue #28, "believable ecosystems"): how plants sit
// relative to each other (Clark-Evans aggregation, pair correlation, hard-core distance), how
// much ground their crowns cover, how the understory answers the canopy, and how a species
// follows a river. Written independently of the sampler (no sampling/ header, no sampler call),
// like tests/placement_metrics.h, so that they can catch its faults rather than restate them.
// Used by tests/ecology_metrics_test.cpp (patterns with known answers) and
// bench/ecology_bench.cpp (figures for finished bakes).
//
// Everything is double precision: a 6 km world in float has 0.5 mm steps, enough for a
// position but not for sums of millions of squared distances.
//
// Windows and edge effects: the windowed measures take every point the caller has (the window
// and a margin around it) and average only over points inside the window, searching their
// neighbours among all points. A point near the window's edge then sees its real neighbours
// outside, so no edge correction is needed as long as the margin reaches as far as the
// measure looks (the nearest neighbour, rMax for g(r)).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace eco::ecology {

// One plant: position in metres (x east, z south), its scale (crown radius = species crown
// radius x scale) and its species index.
struct P {
  double x, z;
  double scale = 1;
  int species = 0;
};

// Any point type with x and z members (P, or a caller's compact float record: the bench keeps
// millions of points and needs no doubles for storage).
template <class T>
concept PlanarPoint = requires(const T& p) {
  double(p.x);
  double(p.z);
};

// An axis-aligned rectangle [x0, x1) x [z0, z1).
struct Window {
  double x0 = 0, z0 = 0, x1 = 0, z1 = 0;
  double width() const { return x1 - x0; }
  double depth() const { return z1 - z0; }
  double area() const { return width() * depth(); }
  bool contains(double x, double z) const { return x >= x0 && x < x1 && z >= z0 && z < z1; }
  // The window grown by `m` on every side (the margin a windowed measure needs).
  Window grown(double m) const { return {x0 - m, z0 - m, x1 + m, z1 + m}; }
};

// A crown seen from above: a disc of radius r.
struct Disc {
  double x, z, r;
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  const size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(h), v.end());
  if (v.size() % 2) return v[h];
  const double hi = v[h];
  return 0.5 * (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(h)) + hi);
}

// The points of `pts` inside a window (to crop a world's points to a window and its margin
// before a windowed measure, so that its grid covers only what it needs).
template <PlanarPoint T>
std::vector<T> cropped(const std::vector<T>& pts, const Window& w) {
  std::vector<T> out;
  for (const T& p : pts)
    if (w.contains(double(p.x), double(p.z))) out.push_back(p);
  return out;
}

// ---- Neighbour search ------------------------------------------------------------------------
// Points bucketed on a square grid over their bounding box (compressed rows: a start offset per
// cell, point indices in cell order). At most 4096 cells a side, whatever `cell` asks, so a few
// far-flung points cannot make the grid huge; searches stay exact, only slower.
template <PlanarPoint T>
class BucketGrid {
 public:
  BucketGrid(const std::vector<T>& pts, double cellSize) : pts_(pts) {
    double x1 = -kInf, z1 = -kInf;
    for (const T& p : pts) {
      x0_ = std::min(x0_, double(p.x));
      z0_ = std::min(z0_, double(p.z));
      x1 = std::max(x1, double(p.x));
      z1 = std::max(z1, double(p.z));
    }
    if (pts.empty()) x0_ = z0_ = x1 = z1 = 0;
    cell_ = std::max({cellSize, (x1 - x0_) / 4096, (z1 - z0_) / 4096, 1e-9});
    nx_ = int((x1 - x0_) / cell_) + 1;
    nz_ = int((z1 - z0_) / cell_) + 1;
    start_.assign(size_t(nx_) * size_t(nz_) + 1, 0);
    for (const T& p : pts) ++start_[cellOf(p) + 1];
    for (size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
    order_.resize(pts.size());
    std::vector<uint32_t> next(start_.begin(), start_.end() - 1);
    for (size_t i = 0; i < pts.size(); ++i) order_[next[cellOf(pts[i])]++] = uint32_t(i);
  }

  double cell() const { return cell_; }

  // Calls f(k, squared distance) for every point k within distance r of (x, z), itself included.
  template <class F>
  void forWithin(double x, double z, double r, F&& f) const {
    const int i0 = col(x - r), i1 = col(x + r), j0 = row(z - r), j1 = row(z + r);
    const double r2 = r * r;
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i) {
        const size_t c = size_t(j) * size_t(nx_) + size_t(i);
        for (uint32_t s = start_[c]; s < start_[c + 1]; ++s) {
          const size_t k = order_[s];
          const double dx = double(pts_[k].x) - x, dz = double(pts_[k].z) - z, d2 = dx * dx + dz * dz;
          if (d2 <= r2) f(k, d2);
        }
      }
  }

  // Distance from point `self` to its nearest other point (infinity when alone). Searches
  // rings of cells outwards; a point beyond ring k is at least k cells away, so the search
  // stops once the best distance found is within that.
  double nearest(size_t self) const {
    const double x = double(pts_[self].x), z = double(pts_[self].z);
    const int ci = col(x), cj = row(z);
    double best2 = kInf;
    for (int k = 0;; ++k) {
      for (int j = cj - k; j <= cj + k; ++j) {
        if (j < 0 || j >= nz_) continue;
        const bool edgeRow = j == cj - k || j == cj + k;
        for (int i = ci - k; i <= ci + k; i += edgeRow ? 1 : 2 * k) {
          if (i >= 0 && i < nx_) {
            const size_t c = size_t(j) * size_t(nx_) + size_t(i);
            for (uint32_t s = start_[c]; s < start_[c + 1]; ++s) {
              const size_t o = order_[s];
              if (o == self) continue;
              const double dx = double(pts_[o].x) - x, dz = double(pts_[o].z) - z;
              best2 = std::min(best2, dx * dx + dz * dz);
            }
          }
          if (k == 0) break;
        }
      }
      const double reach = double(k) * cell_;
      if (best2 <= reach * reach) break;
      if (ci - k <= 0 && cj - k <= 0 && ci + k >= nx_ - 1 && cj + k >= nz_ - 1) break;  // grid exhausted
    }
    return std::sqrt(best2);
  }

 private:
  int col(double x) const { return int(std::clamp(std::floor((x - x0_) / cell_), 0.0, double(nx_ - 1))); }
  int row(double z) const { return int(std::clamp(std::floor((z - z0_) / cell_), 0.0, double(nz_ - 1))); }
  size_t cellOf(const T& p) const { return size_t(row(double(p.z))) * size_t(nx_) + size_t(col(double(p.x))); }

  const std::vector<T>& pts_;
  double x0_ = kInf, z0_ = kInf, cell_ = 1;
  int nx_ = 1, nz_ = 1;
  std::vector<uint32_t> start_, order_;  // 32-bit: a bake's species holds far fewer than 2^32 points
};

// A grid cell holding about `perCell` points on average over the points' bounding box.
template <PlanarPoint T>
double cellForCount(const std::vector<T>& pts, double perCell) {
  if (pts.size() < 2) return 1;
  double x0 = kInf, z0 = kInf, x1 = -kInf, z1 = -kInf;
  for (const T& p : pts) {
    x0 = std::min(x0, double(p.x));
    z0 = std::min(z0, double(p.z));
    x1 = std::max(x1, double(p.x));
    z1 = std::max(z1, double(p.z));
  }
  const double area = std::max((x1 - x0) * (z1 - z0), 1e-12);
  return std::sqrt(perCell * area / double(pts.size()));
}

// ---- Nearest neighbours: Clark-Evans -----------------------------------------------------------
// Clark & Evans (1954): R = mean nearest-neighbour distance / its expectation under complete
// spatial randomness (a Poisson process of the same density lambda), 0.5 / sqrt(lambda).
// R = 1 for a Poisson pattern, < 1 for clustering (R -> 0 for points in clumps), > 1 for
// regularity, about 2.149 for a hexagonal lattice (the densest packing). Blue-noise sampling
// gives 1.5-1.8: a forest should sit between its sampler's regularity and clumping.
struct ClarkEvans {
  double R = kNaN;
  double meanNN = kNaN, medianNN = kNaN;  // of the points inside the window
  double expectedNN = kNaN;               // 0.5 / sqrt(lambda), lambda = n / window area
  size_t n = 0;                           // points inside the window
};

// Nearest-neighbour distances of the points inside `w`, neighbours among all of `pts`.
template <PlanarPoint T>
std::vector<double> nearestNeighbourDistances(const std::vector<T>& pts, const Window& w) {
  const BucketGrid<T> grid(pts, cellForCount(pts, 1.0));
  std::vector<double> d;
  for (size_t i = 0; i < pts.size(); ++i)
    if (w.contains(double(pts[i].x), double(pts[i].z))) d.push_back(grid.nearest(i));
  return d;
}

template <PlanarPoint T>
ClarkEvans clarkEvans(const std::vector<T>& pts, const Window& w) {
  ClarkEvans ce;
  const std::vector<double> d = nearestNeighbourDistances(pts, w);
  ce.n = d.size();
  if (ce.n < 2 || !(w.area() > 0)) return ce;
  double sum = 0;
  for (double v : d) sum += v;
  ce.meanNN = sum / double(ce.n);
  ce.medianNN = median(d);
  ce.expectedNN = 0.5 / std::sqrt(double(ce.n) / w.area());
  ce.R = ce.meanNN / ce.expectedNN;
  return ce;
}

// The smallest distance between two of the points (infinity for fewer than two), exact: a
// hard-core pattern (Poisson-disk) must keep it at or above its radius. The first point's
// nearest neighbour gives a bound; every point then scans only the cells within the best
// distance so far.
template <PlanarPoint T>
double minimumPairDistance(const std::vector<T>& pts) {
  if (pts.size() < 2) return kInf;
  const BucketGrid<T> grid(pts, cellForCount(pts, 2.0));
  double best = grid.nearest(0);
  for (size_t i = 1; i < pts.size(); ++i) {
    double best2 = best * best;
    grid.forWithin(double(pts[i].x), double(pts[i].z), best, [&](size_t k, double d2) {
      if (k != i) best2 = std::min(best2, d2);
    });
    best = std::sqrt(best2);
  }
  return best;
}

// ---- Densest window ------------------------------------------------------------------------------
// Where a species is at home: the side x side window holding the most points, among windows at
// multiples of side / 4 that lie wholly inside the world [0, worldX) x [0, worldZ). A world
// narrower than `side` in an axis gives windows spanning that whole axis. Ties go to the first
// window in (z, x) order. The windowed measures of a bake run here, so that a species seen on a
// fragment of its range is measured where it actually grows.
struct DenseWindow {
  Window window;
  size_t count = 0;
};

template <PlanarPoint T>
DenseWindow densestFullWindow(const std::vector<T>& pts, double worldX, double worldZ, double side = 1000) {
  // Per axis: histogram cell `step`, `cells` of them, a window spans `span` cells.
  struct Axis {
    double step;
    int cells, span;
  };
  const auto axis = [&](double world) {
    if (world < side) return Axis{world, 1, 1};
    const double step = side / 4;
    const int positions = int(std::floor((world - side) / step + 1e-9)) + 1;
    return Axis{step, positions + 3, 4};
  };
  if (!(worldX > 0 && worldZ > 0 && side > 0)) return {};
  const Axis ax = axis(worldX), az = axis(worldZ);
  // Summed-area table over the histogram: (cells + 1)^2 entries, row 0 and column 0 zero.
  const size_t W = size_t(ax.cells) + 1;
  std::vector<size_t> sat(W * (size_t(az.cells) + 1), 0);
  for (const T& p : pts) {
    const double x = double(p.x), z = double(p.z);
    if (!(x >= 0 && z >= 0)) continue;
    const double fi = std::floor(x / ax.step), fj = std::floor(z / az.step);
    if (fi >= double(ax.cells) || fj >= double(az.cells)) continue;
    ++sat[(size_t(fj) + 1) * W + size_t(fi) + 1];
  }
  for (size_t j = 1; j <= size_t(az.cells); ++j)
    for (size_t i = 1; i < W; ++i) sat[j * W + i] += sat[(j - 1) * W + i] + sat[j * W + i - 1] - sat[(j - 1) * W + i - 1];
  DenseWindow best;
  bool any = false;
  for (int j = 0; j + az.span <= az.cells; ++j)
    for (int i = 0; i + ax.span <= ax.cells; ++i) {
      const size_t i0 = size_t(i), j0 = size_t(j), i1 = i0 + size_t(ax.span), j1 = j0 + size_t(az.span);
      const size_t n = sat[j1 * W + i1] - sat[j0 * W + i1] - sat[j1 * W + i0] + sat[j0 * W + i0];
      if (!any || n > best.count) {
        any = true;
        best.count = n;
        best.window = {double(i) * ax.step, double(j) * az.step, double(i + ax.span) * ax.step, double(j + az.span) * az.step};
      }
    }
  return best;
}

// ---- Pair correlation g(r) ---------------------------------------------------------------------
// g(r): the density of points at distance r from a typical point, relative to the overall
// density (1 at every r for a Poisson pattern; 0 below the hard-core distance of a Poisson-disk
// pattern; a peak near the spacing for regular patterns; > 1 at small r for clustering). The
// ring estimator: for points i in the window W (n of them, lambda = n / |W|), count the pairs
// (i, j), j any other given point, with distance in the ring [lo, hi), and divide by
// n * lambda * pi (hi^2 - lo^2). Neighbours come from all points (Ohser's "plus sampling"
// reading: the margin replaces an edge correction), so the caller passes points at least
// rMax around the window.
template <PlanarPoint T>
std::vector<double> pairCorrelationRings(const std::vector<T>& pts, const Window& w,
                                         const std::vector<std::pair<double, double>>& rings) {
  std::vector<double> g(rings.size(), kNaN);
  double rMax = 0;
  for (const auto& [lo, hi] : rings) rMax = std::max(rMax, hi);
  size_t n = 0;
  for (const T& p : pts) n += w.contains(double(p.x), double(p.z));
  if (n < 2 || !(rMax > 0) || !(w.area() > 0)) return g;
  const BucketGrid<T> grid(pts, std::max(rMax, cellForCount(pts, 1.0)));
  std::vector<double> count(rings.size(), 0);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (!w.contains(double(pts[i].x), double(pts[i].z))) continue;
    grid.forWithin(double(pts[i].x), double(pts[i].z), rMax, [&](size_t k, double d2) {
      if (k == i) return;
      const double d = std::sqrt(d2);
      for (size_t b = 0; b < rings.size(); ++b) count[b] += d >= rings[b].first && d < rings[b].second;
    });
  }
  const double lambda = double(n) / w.area();
  for (size_t b = 0; b < rings.size(); ++b) {
    const double lo = rings[b].first, hi = rings[b].second;
    g[b] = count[b] / (double(n) * lambda * std::numbers::pi * (hi * hi - lo * lo));
  }
  return g;
}

struct PairCorrelation {
  std::vector<double> r;  // bin centres
  std::vector<double> g;
};

// g(r) on `bins` equal bins from 0 to rMax.
template <PlanarPoint T>
PairCorrelation pairCorrelation(const std::vector<T>& pts, const Window& w, double rMax, int bins) {
  PairCorrelation out;
  std::vector<std::pair<double, double>> rings;
  const double dr = rMax / double(bins);
  for (int b = 0; b < bins; ++b) {
    rings.push_back({double(b) * dr, double(b + 1) * dr});
    out.r.push_back((double(b) + 0.5) * dr);
  }
  out.g = pairCorrelationRings(pts, w, rings);
  return out;
}

// ---- Crowns ------------------------------------------------------------------------------------
// Crowns may come as Disc or as any record with x, z and r (the bench keeps tens of millions
// of them as floats).
template <class D>
concept CrownDisc = requires(const D& d) {
  double(d.x);
  double(d.z);
  double(d.r);
};

// Sets the pixels of a window (nx x nz, pixel centres at x0 + (i + 0.5) * width / nx) whose
// centre lies inside at least one disc (boundary included): the union of the crowns, each
// disc filled row by row between its chord's ends. `mask` is resized and cleared first.
template <CrownDisc D>
void rasterizeDiscs(const std::vector<D>& discs, const Window& w, int nx, int nz, std::vector<uint8_t>& mask) {
  mask.assign(size_t(nx) * size_t(nz), 0);
  const double px = w.width() / double(nx), pz = w.depth() / double(nz);
  for (const D& disc : discs) {
    const double x = double(disc.x), z = double(disc.z), r = double(disc.r);
    if (!(r > 0) || x + r < w.x0 || x - r > w.x1 || z + r < w.z0 || z - r > w.z1) continue;
    // Rows whose centre z0 + (j + 0.5) pz lies in [z - r, z + r].
    const double j0 = std::max(0.0, std::ceil((z - r - w.z0) / pz - 0.5));
    const double j1 = std::min(double(nz - 1), std::floor((z + r - w.z0) / pz - 0.5));
    for (double fj = j0; fj <= j1; ++fj) {
      const double dz = w.z0 + (fj + 0.5) * pz - z, h2 = r * r - dz * dz;
      if (h2 < 0) continue;
      const double h = std::sqrt(h2);
      const double i0 = std::max(0.0, std::ceil((x - h - w.x0) / px - 0.5));
      const double i1 = std::min(double(nx - 1), std::floor((x + h - w.x0) / px - 0.5));
      if (i1 < i0) continue;
      uint8_t* rowStart = mask.data() + size_t(fj) * size_t(nx);
      std::fill(rowStart + size_t(i0), rowStart + size_t(i1) + 1, uint8_t(1));
    }
  }
}

inline size_t countSet(const std::vector<uint8_t>& mask) {
  size_t n = 0;
  for (uint8_t m : mask) n += m;
  return n;
}

// Pixels of about `pixel` metres across a window's side (at least one).
inline int pixelsAcross(double length, double pixel) { return std::max(1, int(std::lround(length / pixel))); }

// Crown cover: the share of the window's ground under at least one crown (overlaps counted
// once), measured on a raster of `pixel` metres: each pixel centre samples the ground, so the
// share is unbiased for crowns at random offsets to the raster even when they span only a few
// pixels, with an error of about pixel / crown radius for one crown. A closed forest is
// 0.6-0.9, an open woodland 0.1-0.4; the sum of crown areas over the window's area overstates
// cover where crowns overlap.
template <CrownDisc D = Disc>
double crownCover(const std::vector<D>& crowns, const Window& w, double pixel) {
  if (!(w.area() > 0)) return kNaN;
  std::vector<uint8_t> mask;
  rasterizeDiscs(crowns, w, pixelsAcross(w.width(), pixel), pixelsAcross(w.depth(), pixel), mask);
  return double(countSet(mask)) / double(mask.size());
}

// ---- Empty space ----------------------------------------------------------------------------------
// Share of the window's ground (pixel centres) farther than `d` from every point: the
// clearings of a pattern (the empty-space function's complement at d). Points from around the
// window count as neighbours.
template <PlanarPoint T>
double emptySpaceShare(const std::vector<T>& pts, const Window& w, double d, double pixel) {
  const int nx = pixelsAcross(w.width(), pixel), nz = pixelsAcross(w.depth(), pixel);
  std::vector<uint8_t> near(size_t(nx) * size_t(nz), 0);
  std::vector<Disc> discs;
  for (const T& p : pts)
    if (w.grown(d).contains(double(p.x), double(p.z))) discs.push_back({double(p.x), double(p.z), d});
  rasterizeDiscs(discs, w, nx, nz, near);
  return 1.0 - double(countSet(near)) / double(near.size());
}

// ---- Understory against the canopy -------------------------------------------------------------
// Does the understory answer the canopy (shade-tolerant moss under crowns, light-demanding grass
// in the gaps)? Comparing densities under and outside crowns over a whole world mostly compares
// habitats (forest against meadow above the tree line). So the world is cut into `cell`-metre
// cells and only cells holding both crown ground and gap ground (each at least `minShare` of
// the cell, on a raster of `pixel` metres) count: there the two grounds share elevation, slope
// and moisture, and differ by the canopy. A point is under a crown when it lies in a crown disc
// (exact); the areas come from the raster. ratio = (under count / under area) / (gap count /
// gap area) summed over those cells: 1 for an understory that ignores the canopy, > 1 for one
// that seeks shade, < 1 for one that avoids it; infinity with no points in the gaps.
// `cellStride` > 1 measures only every stride-th cell in x and in z (a regular sample of the
// cells, for worlds of millions of cells); crowns and points elsewhere are never looked at.
struct UnderCrown {
  double ratio = kNaN;
  int cells = 0;  // cells used
  double underCount = 0, underArea = 0, gapCount = 0, gapArea = 0;
  double underDensity() const { return underCount / underArea; }  // per m^2
  double gapDensity() const { return gapCount / gapArea; }
};

template <PlanarPoint T, CrownDisc D = Disc>
UnderCrown underCrownRatio(const std::vector<T>& understory, const std::vector<D>& crowns, double worldX,
                           double worldZ, double cell = 64, double pixel = 0.5, double minShare = 0.1,
                           int cellStride = 1) {
  UnderCrown out;
  if (!(worldX > 0 && worldZ > 0 && cell > 0)) return out;
  const int stride = std::max(1, cellStride);
  // Measured cells (i, j) = (stride a, stride b), numbered b * mx + a.
  const int ncx = std::max(1, int(std::ceil(worldX / cell))), ncz = std::max(1, int(std::ceil(worldZ / cell)));
  const int mx = (ncx + stride - 1) / stride, mz = (ncz + stride - 1) / stride;
  const size_t cells = size_t(mx) * size_t(mz);
  const auto measured = [&](int i, int j) { return i % stride == 0 && j % stride == 0; };
  const auto slot = [&](int i, int j) { return size_t(j / stride) * size_t(mx) + size_t(i / stride); };
  const auto cellRange = [&](double lo, double hi, int n, int& c0, int& c1) {
    c0 = int(std::clamp(std::floor(lo / cell), 0.0, double(n - 1)));
    c1 = int(std::clamp(std::floor(hi / cell), 0.0, double(n - 1)));
  };
  // Crowns by the measured cells their bounding squares meet (two passes: count, then fill).
  std::vector<uint32_t> discStart(cells + 1, 0), discOf;
  std::vector<uint32_t> next;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < crowns.size(); ++k) {
      const double x = double(crowns[k].x), z = double(crowns[k].z), r = double(crowns[k].r);
      if (!(r > 0)) continue;
      int i0, i1, j0, j1;
      cellRange(x - r, x + r, ncx, i0, i1);
      cellRange(z - r, z + r, ncz, j0, j1);
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i)
          if (measured(i, j)) {
            if (pass == 0)
              ++discStart[slot(i, j) + 1];
            else
              discOf[next[slot(i, j)]++] = uint32_t(k);
          }
    }
    if (pass == 0) {
      for (size_t c = 1; c <= cells; ++c) discStart[c] += discStart[c - 1];
      discOf.resize(discStart[cells]);
      next.assign(discStart.begin(), discStart.end() - 1);
    }
  }
  // Understory points by measured cell.
  std::vector<uint32_t> pointStart(cells + 1, 0), pointOf;
  const auto pointSlot = [&](const T& p, size_t& s) {
    const double x = double(p.x), z = double(p.z);
    if (!(x >= 0 && z >= 0 && x < worldX && z < worldZ)) return false;
    const int i = std::min(int(x / cell), ncx - 1), j = std::min(int(z / cell), ncz - 1);
    if (!measured(i, j)) return false;
    s = slot(i, j);
    return true;
  };
  size_t s = 0;
  for (const T& p : understory)
    if (pointSlot(p, s)) ++pointStart[s + 1];
  for (size_t c = 1; c <= cells; ++c) pointStart[c] += pointStart[c - 1];
  pointOf.resize(pointStart[cells]);
  next.assign(pointStart.begin(), pointStart.end() - 1);
  for (size_t k = 0; k < understory.size(); ++k)
    if (pointSlot(understory[k], s)) pointOf[next[s]++] = uint32_t(k);

  std::vector<Disc> local;
  std::vector<uint8_t> mask;
  for (int b = 0; b < mz; ++b)
    for (int a = 0; a < mx; ++a) {
      const size_t c = size_t(b) * size_t(mx) + size_t(a);
      if (discStart[c] == discStart[c + 1]) continue;  // no crown: all gap
      const int i = a * stride, j = b * stride;
      const Window w{double(i) * cell, double(j) * cell, std::min(double(i + 1) * cell, worldX),
                     std::min(double(j + 1) * cell, worldZ)};
      local.clear();
      double sumArea = 0;  // the union is at most the sum of the crowns' areas
      for (uint32_t k = discStart[c]; k < discStart[c + 1]; ++k) {
        const D& d = crowns[discOf[k]];
        local.push_back({double(d.x), double(d.z), double(d.r)});
        sumArea += std::numbers::pi * local.back().r * local.back().r;
      }
      if (sumArea < minShare * w.area()) continue;
      rasterizeDiscs(local, w, pixelsAcross(w.width(), pixel), pixelsAcross(w.depth(), pixel), mask);
      const double share = double(countSet(mask)) / double(mask.size());
      if (share < minShare || 1 - share < minShare) continue;
      ++out.cells;
      out.underArea += share * w.area();
      out.gapArea += (1 - share) * w.area();
      for (uint32_t k = pointStart[c]; k < pointStart[c + 1]; ++k) {
        const T& p = understory[pointOf[k]];
        const double x = double(p.x), z = double(p.z);
        bool under = false;
        for (const Disc& d : local)
          if ((x - d.x) * (x - d.x) + (z - d.z) * (z - d.z) <= d.r * d.r) {
            under = true;
            break;
          }
        (under ? out.underCount : out.gapCount) += 1;
      }
    }
  if (out.cells == 0) return out;
  if (out.gapCount == 0) {
    out.ratio = out.underCount > 0 ? kInf : kNaN;
    return out;
  }
  out.ratio = out.underDensity() / out.gapDensity();
  return out;
}

// ---- Rivers ------------------------------------------------------------------------------------
// Points standing in the water: river distance (metres from the bank or centreline, whatever
// the field measures) at most waterDistance. A bake should have none (trees in the channel are
// the first thing a viewer notices).
template <PlanarPoint T, class F>
size_t inWaterCount(const std::vector<T>& pts, F&& riverDistance, double waterDistance) {
  size_t n = 0;
  for (const T& p : pts) n += double(riverDistance(double(p.x), double(p.z))) <= waterDistance;
  return n;
}

// Density against distance to the river: points per m^2 in bins [k w, (k + 1) w) of river
// distance out to `reach`, plus everything beyond as the reference. Bin areas come from
// sampling the distance function at the centres of a grid of about `areaStep` metres over the
// world [0, worldX) x [0, worldZ) (exact as the step goes to 0; bins a few steps wide are
// within a percent or so). Riparian species (cottonwood, willow) should rise toward the bank
// and stop at the water; upland species should be flat or fall.
struct RiparianProfile {
  double binWidth = 0, reach = 0;
  std::vector<double> count, area, density;  // per bin; density per m^2 (NaN for an empty area)
  double beyondCount = 0, beyondArea = 0;    // distance >= reach
  double beyondDensity() const { return beyondArea > 0 ? beyondCount / beyondArea : kNaN; }
};

template <PlanarPoint T, class F>
RiparianProfile riparianProfile(const std::vector<T>& pts, F&& riverDistance, double binWidth, double reach,
                                double worldX, double worldZ, double areaStep) {
  RiparianProfile out;
  out.binWidth = binWidth;
  out.reach = reach;
  const int bins = std::max(1, int(std::ceil(reach / binWidth - 1e-9)));
  out.count.assign(size_t(bins), 0);
  out.area.assign(size_t(bins), 0);
  // Bin of a distance, or `bins` for beyond the reach.
  const auto bin = [&](double d) {
    if (!(d < reach)) return size_t(bins);
    return size_t(std::clamp(std::floor(d / binWidth), 0.0, double(bins - 1)));
  };
  const int nx = pixelsAcross(worldX, areaStep), nz = pixelsAcross(worldZ, areaStep);
  const double sx = worldX / double(nx), sz = worldZ / double(nz);
  for (int j = 0; j < nz; ++j)
    for (int i = 0; i < nx; ++i) {
      const size_t b = bin(double(riverDistance((double(i) + 0.5) * sx, (double(j) + 0.5) * sz)));
      (b < size_t(bins) ? out.area[b] : out.beyondArea) += sx * sz;
    }
  for (const T& p : pts) {
    const double x = double(p.x), z = double(p.z);
    if (!(x >= 0 && z >= 0 && x < worldX && z < worldZ)) continue;
    const size_t b = bin(double(riverDistance(x, z)));
    (b < size_t(bins) ? out.count[b] : out.beyondCount) += 1;
  }
  for (size_t b = 0; b < size_t(bins); ++b) out.density.push_back(out.area[b] > 0 ? out.count[b] / out.area[b] : kNaN);
  return out;
}

}  // namespace eco::ecology
