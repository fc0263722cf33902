#include "render/visible_reach.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

namespace eco::render {

std::vector<double> speciesReach(const gpu::FrameData& frame, std::span<const gpu::GpuSpecies> species) {
  std::vector<double> reach(species.size(), kUnbounded);
  const bool fade = (frame.cull.y & gpu::CULL_FADE) != 0;
  for (size_t i = 0; i < species.size(); ++i) {
    const gpu::GpuSpecies& sp = species[i];
    if (((&frame.hidden[i >> 7].x)[(i >> 5) & 3] >> (i & 31)) & 1u) {
      reach[i] = kUnreached;
      continue;
    }
    const float end = (&frame.fadeEnd.x)[std::min<uint32_t>(sp.info.x, gpu::KIND_COUNT - 1)];
    if (!fade || !(end < 1e29f)) continue;  // NaN too: no distance cut
    const double offset = sphereExtent(sp).offset;
    // the shader measures in float: a metre and 1e-4 of the distance cover its rounding
    reach[i] = std::max(double(end), 0.0) * (1 + 1e-4) + offset + 1.0;
  }
  return reach;
}

SphereExtent sphereExtent(const gpu::GpuSpecies& sp) {
  // the sphere's centre is the unit-space centre scaled by scale * (crown, height, crown) and
  // turned by yaw and tilt, which keep its length
  const double scale = std::max(std::abs(double(sp.shape.z)), std::abs(double(sp.shape.w)));
  const double cx = double(sp.shape.y) * double(sp.sphere.x), cy = double(sp.shape.x) * double(sp.sphere.y),
               cz = double(sp.shape.y) * double(sp.sphere.z);
  return {scale * std::sqrt(cx * cx + cy * cy + cz * cz), scale * std::abs(double(sp.sphere.w))};
}

namespace {

using Point = std::array<double, 2>;

double cross2(Point o, Point a, Point b) { return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]); }

// Convex hull, counter-clockwise (Andrew's monotone chain)
std::vector<Point> convexHull(std::vector<Point> p) {
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  if (p.size() < 3) return p;
  std::vector<Point> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);
  return h;
}

double segmentGap(Point p, Point a, Point b) {
  const double ex = b[0] - a[0], ez = b[1] - a[1], len2 = ex * ex + ez * ez;
  const double t = len2 > 0 ? std::clamp(((p[0] - a[0]) * ex + (p[1] - a[1]) * ez) / len2, 0.0, 1.0) : 0.0;
  return std::hypot(p[0] - a[0] - t * ex, p[1] - a[1] - t * ez);
}

// Some edge normal of a or b separates the two convex polygons
bool separated(const std::vector<Point>& a, const std::vector<Point>& b) {
  for (const std::vector<Point>* poly : {&a, &b})
    for (size_t i = 0; i < poly->size(); ++i) {
      const Point p = (*poly)[i], q = (*poly)[(i + 1) % poly->size()];
      const double nx = q[1] - p[1], nz = p[0] - q[0];
      double a0 = kUnbounded, a1 = -kUnbounded, b0 = kUnbounded, b1 = -kUnbounded;
      for (Point v : a) a0 = std::min(a0, v[0] * nx + v[1] * nz), a1 = std::max(a1, v[0] * nx + v[1] * nz);
      for (Point v : b) b0 = std::min(b0, v[0] * nx + v[1] * nz), b1 = std::max(b1, v[0] * nx + v[1] * nz);
      if (a1 < b0 || b1 < a0) return true;
    }
  return false;
}

// Distance between two convex polygons (0 where they meet)
double polygonGap(const std::vector<Point>& a, const std::vector<Point>& b) {
  if (!separated(a, b)) return 0;
  double gap = kUnbounded;
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<Point>& from = pass ? b : a;
    const std::vector<Point>& to = pass ? a : b;
    for (Point v : from)
      for (size_t i = 0; i < to.size(); ++i) gap = std::min(gap, segmentGap(v, to[i], to[(i + 1) % to.size()]));
  }
  return gap;
}

// The tiles a region can meet from an eye anywhere in the centre square: for each row offset
// dz in [-rows, rows], the column offsets [lo, hi] (lo > hi: none).
struct Footprint {
  int64_t rows = -1;
  std::vector<std::pair<int64_t, int64_t>> runs;  // index dz + rows
};

// How many tiles from the eye's square a region can reach (rounded out)
int64_t extent(const CasterRegion& region, double ts) {
  double far = 0;
  for (Point p : region.hull) far = std::max({far, std::abs(p[0]), std::abs(p[1])});
  return int64_t(std::min((far + region.margin) / ts + 2, 1e9));
}

// Offsets up to `limit` tiles from the eye's square. An offset counts when its tile's square and
// the eye's square (centres dx, dz tiles apart: the offsets between their points are a square
// of half side ts around that) come within the margin of the hull. That gap is the distance from
// a translated convex set to a fixed one, convex in the translation: in a row the offsets that
// count are one run, found from the gap's least value by bisection.
Footprint footprint(const CasterRegion& region, double ts, int64_t limit) {
  Footprint f;
  if (region.hull.empty()) return f;
  f.rows = std::min(limit, extent(region, ts));  // and as many columns
  for (int64_t dz = -f.rows; dz <= f.rows; ++dz) {
    auto over = [&](int64_t dx) {  // gap less margin: <= 0 counts
      const double cx = double(dx) * ts, cz = double(dz) * ts;
      const std::vector<Point> square = {{cx - ts, cz - ts}, {cx + ts, cz - ts}, {cx + ts, cz + ts}, {cx - ts, cz + ts}};
      return polygonGap(square, region.hull) - region.margin;
    };
    // the least value of a convex function on [-rows, rows] (where two values tie, a least
    // one lies between them)
    int64_t lo = -f.rows, hi = f.rows;
    while (hi - lo > 2) {
      const int64_t a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
      const double ga = over(a), gb = over(b);
      if (ga < gb) hi = b - 1;
      else if (ga > gb) lo = a + 1;
      else lo = a, hi = b;
    }
    int64_t best = lo;
    for (int64_t x = lo + 1; x <= hi; ++x)
      if (over(x) < over(best)) best = x;
    std::pair<int64_t, int64_t> run{1, 0};
    if (over(best) <= 0) {
      // the run's ends: the first offset that counts left of best, the last right of it
      int64_t a = -f.rows, b = best;  // over(b) <= 0
      while (a < b) {
        const int64_t m = a + (b - a) / 2;
        if (over(m) <= 0) b = m;
        else a = m + 1;
      }
      run.first = a;
      a = best, b = f.rows;  // over(a) <= 0
      while (a < b) {
        const int64_t m = b - (b - a) / 2;
        if (over(m) <= 0) a = m;
        else b = m - 1;
      }
      run.second = a;
    }
    f.runs.push_back(run);
  }
  return f;
}

}  // namespace

CasterRegion casterRegion(const ShadowSettings& settings, float nearZ, float tx, float ty, Vec3 toSun, double minY,
                          double maxY, double maxRadius, uint32_t c) {
  const CascadeSphere sphere = cascadeSphere(settings, nearZ, tx, ty, c);
  const LightBasis light = lightBasis(toSun);
  const double m = double(sphere.centreDepth), texel = 2.0 * double(sphere.radius) / double(std::max(settings.mapSize, 1u));
  // the shader's float tests: a centimetre and 1e-4 of the extent
  const double r = (double(sphere.radius) + maxRadius + texel) * (1 + 1e-4) + 0.01;
  // Caster centre s = box centre + a right + b up + z forward, |a|, |b| <= r, z <= r (the far
  // plane). Its height is the box centre's (at least minY - m: the eye's, less the centre depth)
  // plus a right.y + b up.y - z sin(elevation), at most maxY: z >= -zTowardSun.
  const double sy = std::max(-double(light.forward.y), 0.02);  // the renderer draws no shadows below
  const double zTowardSun =
      (maxY - (minY - m) + r * (std::abs(double(light.right.y)) + std::abs(double(light.up.y)))) / sy;
  std::vector<Point> corners;
  for (double a : {-r, r})
    for (double b : {-r, r})
      for (double z : {-zTowardSun, r})
        corners.push_back({a * double(light.right.x) + b * double(light.up.x) + z * double(light.forward.x),
                           a * double(light.right.z) + b * double(light.up.z) + z * double(light.forward.z)});
  // the box centre is within m of the eye horizontally, whichever way the view looks
  return {convexHull(std::move(corners)), m * (1 + 1e-4) + 0.01};
}

double boxDistance(const gpu::GpuTile& box, double x, double z) {
  const double dx = std::max({double(box.boundsMin.x) - x, 0.0, x - double(box.boundsMax.x)});
  const double dz = std::max({double(box.boundsMin.z) - z, 0.0, z - double(box.boundsMax.z)});
  return std::sqrt(dx * dx + dz * dz);
}

uint64_t reachBound(std::span<const SceneTile> tiles, float tileSize, std::span<const double> reach,
                    std::span<const double> weight, std::span<const CasterRegion> regions,
                    std::span<const double> regionWeight) {
  if (tiles.empty()) return 0;
  int x0 = tiles[0].x, x1 = tiles[0].x, z0 = tiles[0].z, z1 = tiles[0].z;
  for (const SceneTile& t : tiles) {
    x0 = std::min(x0, t.x), x1 = std::max(x1, t.x);
    z0 = std::min(z0, t.z), z1 = std::max(z1, t.z);
  }
  const size_t w = size_t(int64_t(x1) - x0 + 1), h = size_t(int64_t(z1) - z0 + 1);
  const size_t n = std::min(reach.size(), weight.size());
  auto regionWeightOf = [&](size_t k) { return k < regionWeight.size() ? regionWeight[k] : 0.0; };

  // Species of equal reach and weights share one count grid (a config's species are mostly a
  // few kinds); tiles without per-species counts go under the largest of each.
  double widest = kUnreached, heaviest = 0, heaviestRegion = 0;
  for (size_t k = 0; k < n; ++k)
    if (reach[k] >= 0 && (weight[k] > 0 || regionWeightOf(k) > 0)) {
      widest = std::max(widest, reach[k]);
      heaviest = std::max(heaviest, weight[k]);
      heaviestRegion = std::max(heaviestRegion, regionWeightOf(k));
    }
  using Key = std::array<double, 3>;  // reach, weight, region weight
  std::map<Key, std::vector<double>> groups;  // counts, row-major
  auto grid = [&](const Key& key) -> std::vector<double>& {
    std::vector<double>& g = groups[key];
    if (g.empty()) g.assign(w * h, 0.0);
    return g;
  };
  for (const SceneTile& t : tiles) {
    const size_t cell = size_t(t.z - z0) * w + size_t(t.x - x0);
    if (t.speciesCounts.empty()) {
      if (widest >= 0 && t.instances > 0) grid({widest, heaviest, heaviestRegion})[cell] += double(t.instances);
      continue;
    }
    for (size_t k = 0; k < t.speciesCounts.size(); ++k) {
      if (t.speciesCounts[k] == 0) continue;
      if (k >= n)  // an id past the table: never drawn, but counted rather than assumed
        grid({std::max(widest, 0.0), std::max(heaviest, 1.0), heaviestRegion})[cell] += t.speciesCounts[k];
      else if (reach[k] >= 0 && (weight[k] > 0 || regionWeightOf(k) > 0))
        grid({reach[k], weight[k], regionWeightOf(k)})[cell] += t.speciesCounts[k];
    }
  }

  // the regions' tile offsets; eyes off the grid as far as a region and the reach together
  // can see the grid from (the pad), at most twice the grid's size and 64 tiles
  int64_t pad = 0;
  if (!regions.empty()) {
    double farthest = 0;  // the longest reach of a species a region counts
    for (size_t k = 0; k < n; ++k)
      if (regionWeightOf(k) > 0) farthest = std::max(farthest, reach[k]);
    if (heaviestRegion > 0) farthest = std::max(farthest, widest);
    const double reachTiles = farthest / double(tileSize) + 2;
    for (const CasterRegion& region : regions) pad = std::max(pad, extent(region, double(tileSize)));
    const int64_t cap = int64_t(2 * (w + h)) + 64;
    pad = std::min(pad, reachTiles < double(cap) ? int64_t(reachTiles) : cap);
  }
  std::vector<Footprint> prints;
  for (const CasterRegion& region : regions)
    prints.push_back(footprint(region, double(tileSize), int64_t(std::max(w, h)) + pad));
  const size_t ew = w + 2 * size_t(pad), eh = h + 2 * size_t(pad);  // eye squares

  // For the eye anywhere in square c, tile t is within reach when the squares' distance is:
  // tileSize * hypot(max(|dx| - 1, 0), max(|dz| - 1, 0)) <= reach. Row by row, that is a run of
  // tiles summed from the row's prefix sums; a region's run in the row is cut to it.
  std::vector<double> need(ew * eh, 0.0);
  std::vector<double> prefix((w + 1) * h);
  for (const auto& [key, counts] : groups) {
    const auto [r, wt, rw] = key;
    const double q = r / double(tileSize) * (1 + 1e-9) + 1e-9;  // in tiles, rounded outward
    const bool everything = !(q < double(w + h));                // every tile from every square
    if (everything && (rw <= 0 || prints.empty())) {
      double all = 0;
      for (double c : counts) all += c;
      for (double& v : need) v += wt * all;
      continue;
    }
    for (size_t j = 0; j < h; ++j) {
      prefix[j * (w + 1)] = 0;
      for (size_t i = 0; i < w; ++i) prefix[j * (w + 1) + i + 1] = prefix[j * (w + 1) + i] + counts[j * w + i];
    }
    // the run's half width in row offset dz; -1 for none
    auto discRun = [&](int64_t dz) -> int64_t {
      if (everything) return int64_t(w + h);
      const double a = double(std::max<int64_t>(std::abs(dz) - 1, 0));
      if (a > q) return -1;
      return 1 + int64_t(std::floor(std::sqrt(q * q - a * a)));
    };
    const int64_t rows = everything ? int64_t(h) : 1 + int64_t(std::floor(q));
    for (size_t ez = 0; ez < eh; ++ez)
      for (size_t ex = 0; ex < ew; ++ex) {
        const int64_t cz = int64_t(ez) - pad, cx = int64_t(ex) - pad;
        auto rowSum = [&](int64_t row, int64_t lo, int64_t hi) {
          if (row < 0 || row >= int64_t(h)) return 0.0;
          lo = std::max<int64_t>(lo, 0), hi = std::min<int64_t>(hi, int64_t(w) - 1);
          if (lo > hi) return 0.0;
          return prefix[size_t(row) * (w + 1) + size_t(hi) + 1] - prefix[size_t(row) * (w + 1) + size_t(lo)];
        };
        double sum = 0;
        // only the row offsets that land on the grid's rows
        const int64_t firstRow = -cz, lastRow = int64_t(h) - 1 - cz;
        if (wt > 0)
          for (int64_t dz = std::max(-rows, firstRow); dz <= std::min(rows, lastRow); ++dz) {
            const int64_t run = discRun(dz);
            if (run >= 0) sum += wt * rowSum(cz + dz, cx - run, cx + run);
          }
        if (rw > 0)
          for (const Footprint& f : prints)
            for (int64_t dz = std::max(-f.rows, firstRow); dz <= std::min(f.rows, lastRow); ++dz) {
              const int64_t run = discRun(dz);
              const auto [lo, hi] = f.runs[size_t(dz + f.rows)];
              if (run >= 0) sum += rw * rowSum(cz + dz, cx + std::max(lo, -run), cx + std::min(hi, run));
            }
        need[ez * ew + ex] += sum;
      }
  }
  double most = 0;
  for (double v : need) most = std::max(most, v);
  return uint64_t(std::ceil(most));
}

}  // namespace eco::render
