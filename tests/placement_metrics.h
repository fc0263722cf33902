#pragma once
// Placement-quality measures (issue #15), written independently of the sampler so they can
// catch its faults: exact repetition (twins under a translation), density against the
// distance to tile borders and folded over tiles, and a plain reference maximal sampler for
// counts. Used by tests/sampling_placement_test.cpp and bench/placement_quality.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

namespace eco::metrics {

struct Pt {
  float x, z;
};

// Points bucketed on a square grid of `cell` metres.
class PointIndex {
 public:
  // The cell is at least 1/4096 of the world's side, so the grid stays small.
  PointIndex(const std::vector<Pt>& pts, float worldX, float worldZ, float cell)
      : pts_(pts), cell_(std::max({cell, worldX / 4096.f, worldZ / 4096.f})), nx_(int(worldX / cell_) + 1), nz_(int(worldZ / cell_) + 1),
        start_(size_t(nx_) * size_t(nz_) + 1, 0) {
    std::vector<uint32_t> bucket(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      bucket[i] = uint32_t(clampZ(pts[i].z) * nx_ + clampX(pts[i].x));
      ++start_[bucket[i] + 1];
    }
    for (size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
    order_.resize(pts.size());
    std::vector<uint32_t> next(start_.begin(), start_.end() - 1);
    for (size_t i = 0; i < pts.size(); ++i) order_[next[bucket[i]]++] = uint32_t(i);
  }
  // Calls f(index) for every point in the cells meeting the square of half-side `reach`.
  template <typename F>
  void forNear(float x, float z, float reach, F&& f) const {
    const int i0 = clampX(x - reach), i1 = clampX(x + reach), j0 = clampZ(z - reach), j1 = clampZ(z + reach);
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i)
        for (uint32_t k = start_[size_t(j) * size_t(nx_) + size_t(i)]; k < start_[size_t(j) * size_t(nx_) + size_t(i) + 1]; ++k)
          f(order_[k]);
  }
  bool anyWithin(float x, float z, float d) const {
    bool found = false;
    forNear(x, z, d, [&](uint32_t k) {
      const float dx = pts_[k].x - x, dz = pts_[k].z - z;
      found |= dx * dx + dz * dz < d * d;
    });
    return found;
  }

 private:
  int clampX(float x) const { return std::clamp(int(std::floor(x / cell_)), 0, nx_ - 1); }
  int clampZ(float z) const { return std::clamp(int(std::floor(z / cell_)), 0, nz_ - 1); }
  const std::vector<Pt>& pts_;
  float cell_;
  int nx_, nz_;
  std::vector<uint32_t> start_, order_;
};

// ---- Repetition ----------------------------------------------------------------------------
// A point has a twin at translation t when another point lies within `tolerance` of p + t or
// p - t. Candidate translations come from points whose two nearest neighbours sit at the same
// offsets (to 5 mm): exact copies of a pattern share them, unrelated points almost never do.
// Every pair of such points proposes its difference; the most proposed (to 2 cm) and the
// `extra` translations are then measured exactly over all points.
struct TwinReport {
  double worstShare = 0;  // largest share of points with a twin at one translation
  float tx = 0, tz = 0;   // that translation
  int candidates = 0;     // translations measured
};

inline double twinShare(const std::vector<Pt>& pts, const PointIndex& index, float tx, float tz, float tolerance) {
  if (pts.empty()) return 0;
  size_t twins = 0;
  for (const Pt& p : pts)
    twins += index.anyWithin(p.x + tx, p.z + tz, tolerance) || index.anyWithin(p.x - tx, p.z - tz, tolerance);
  return double(twins) / double(pts.size());
}

inline TwinReport worstTwins(const std::vector<Pt>& pts, float worldX, float worldZ,
                             const std::vector<Pt>& extra = {}, float tolerance = 0.01f) {
  TwinReport report;
  if (pts.size() < 3) return report;
  const float spacing = std::sqrt(worldX * worldZ / float(pts.size()));
  const PointIndex coarse(pts, worldX, worldZ, 2.f * spacing);
  // Key: the offsets of the two nearest neighbours, 5 mm units.
  std::vector<std::pair<uint64_t, uint32_t>> keyed;
  keyed.reserve(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    float d1 = 3e38f, d2 = 3e38f;
    Pt o1{}, o2{};
    coarse.forNear(pts[i].x, pts[i].z, 2.f * spacing, [&](uint32_t k) {
      if (k == i) return;
      const Pt o{pts[k].x - pts[i].x, pts[k].z - pts[i].z};
      const float d = o.x * o.x + o.z * o.z;
      if (d < d1) {
        d2 = d1, o2 = o1;
        d1 = d, o1 = o;
      } else if (d < d2) {
        d2 = d, o2 = o;
      }
    });
    if (d2 > 1e38f) continue;
    auto q = [](float v) { return uint64_t(uint16_t(int16_t(std::lround(v / 0.005f)))); };
    keyed.push_back({q(o1.x) << 48 | q(o1.z) << 32 | q(o2.x) << 16 | q(o2.z), uint32_t(i)});
  }
  std::sort(keyed.begin(), keyed.end());
  struct Vote {
    int n = 0;
    double x = 0, z = 0;
  };
  std::map<std::pair<int, int>, Vote> votes;
  for (size_t a = 0; a < keyed.size();) {
    size_t b = a;
    while (b < keyed.size() && keyed[b].first == keyed[a].first) ++b;
    for (size_t i = a; i < b && i < a + 32; ++i)
      for (size_t j = i + 1; j < b && j < a + 32; ++j) {
        float tx = pts[keyed[j].second].x - pts[keyed[i].second].x, tz = pts[keyed[j].second].z - pts[keyed[i].second].z;
        if (tx < 0 || (tx == 0 && tz < 0)) tx = -tx, tz = -tz;
        Vote& v = votes[{int(std::lround(tx / 0.02f)), int(std::lround(tz / 0.02f))}];
        ++v.n, v.x += double(tx), v.z += double(tz);
      }
    a = b;
  }
  std::vector<std::pair<int, Pt>> ranked;
  for (const auto& [t, v] : votes) ranked.push_back({v.n, {float(v.x / v.n), float(v.z / v.n)}});
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Pt> tested = extra;
  for (size_t i = 0; i < ranked.size() && i < 16; ++i) tested.push_back(ranked[i].second);
  // Each proposed translation is the mean of its votes, so exact copies give it to float precision.
  for (const Pt& t : tested) {
    const double share = twinShare(pts, coarse, t.x, t.z, tolerance);
    ++report.candidates;
    if (share > report.worstShare) report = {share, t.x, t.z, report.candidates};
  }
  return report;
}

// ---- Tile borders --------------------------------------------------------------------------
// Density in bins of `bin` metres of distance to the nearest edge of the point's tile, out to
// `reach`, each over the density beyond `reach`. Only tiles away from the world's edges count
// (a world edge packs differently in any sampler), so every counted tile is a full square.
struct BorderProfile {
  std::vector<double> ratio, sigma;  // per bin; sigma: Poisson noise of the ratio
  double interiorDensity = 0;
  double worstExcess() const {  // largest |ratio - 1| beyond 2 sigma
    double worst = 0;
    for (size_t i = 0; i < ratio.size(); ++i) worst = std::max(worst, std::fabs(ratio[i] - 1.0) - 2.0 * sigma[i]);
    return worst;
  }
  double worstDeviation() const {
    double worst = 0;
    for (double r : ratio) worst = std::max(worst, std::fabs(r - 1.0));
    return worst;
  }
};

inline BorderProfile borderProfile(const std::vector<Pt>& pts, float worldX, float worldZ, float tile, float bin,
                                   float reach) {
  const int tilesX = int(worldX / tile), tilesZ = int(worldZ / tile);  // full tiles only
  const int bins = int(std::lround(reach / bin));
  std::vector<double> count(size_t(bins) + 1, 0.0);
  double inner = 0;
  int used = 0;
  for (const Pt& p : pts) {
    const int tx = int(p.x / tile), tz = int(p.z / tile);
    if (tx < 1 || tz < 1 || tx >= tilesX - 1 || tz >= tilesZ - 1) continue;
    const double lx = double(p.x) - double(tx) * double(tile), lz = double(p.z) - double(tz) * double(tile);
    const double d = std::min({lx, lz, double(tile) - lx, double(tile) - lz});
    const int k = std::min(bins, int(d / double(bin)));
    count[size_t(k)] += 1;
  }
  used = std::max(0, tilesX - 2) * std::max(0, tilesZ - 2);
  // Area of a T x T square whose distance to the boundary lies in [a, b): (T-2a)^2 - (T-2b)^2.
  auto area = [&](double a, double b) {
    const double T = double(tile), lo = std::max(0.0, T - 2 * a), hi = std::max(0.0, T - 2 * b);
    return (lo * lo - hi * hi) * used;
  };
  BorderProfile out;
  inner = count[size_t(bins)];
  out.interiorDensity = inner / area(double(bins) * double(bin), 0.5 * double(tile));
  for (int k = 0; k < bins; ++k) {
    const double density = count[size_t(k)] / area(double(k) * double(bin), double(k + 1) * double(bin));
    out.ratio.push_back(density / out.interiorDensity);
    out.sigma.push_back(out.ratio.back() * std::sqrt(1.0 / std::max(1.0, count[size_t(k)]) + 1.0 / std::max(1.0, inner)));
  }
  return out;
}

// Counts folded into one tile on a g x g grid (full tiles away from the world's edges): the
// largest deviation from the mean, in Poisson standard deviations. Anything tied to a place
// in every tile (a streak along one edge, a corner) stands out; terrain does not, since it
// does not follow the tile grid.
inline double foldedMaxSigma(const std::vector<Pt>& pts, float worldX, float worldZ, float tile, int g) {
  const int tilesX = int(worldX / tile), tilesZ = int(worldZ / tile);
  std::vector<double> count(size_t(g) * size_t(g), 0.0);
  double total = 0;
  for (const Pt& p : pts) {
    const int tx = int(p.x / tile), tz = int(p.z / tile);
    if (tx < 1 || tz < 1 || tx >= tilesX - 1 || tz >= tilesZ - 1) continue;
    const int i = std::min(g - 1, int((p.x - float(tx) * tile) / tile * float(g)));
    const int j = std::min(g - 1, int((p.z - float(tz) * tile) / tile * float(g)));
    count[size_t(j) * size_t(g) + size_t(i)] += 1;
    total += 1;
  }
  const double mean = total / double(count.size());
  double worst = 0;
  for (double c : count) worst = std::max(worst, std::fabs(c - mean) / std::sqrt(std::max(1.0, mean)));
  return worst;
}

// ---- Reference maximal sampler ---------------------------------------------------------------
// Textbook Bridson over one untiled domain, many candidates, then darts on a fine jittered
// lattice in random order to reach every island: spacing max(r_p, r_q) within the class
// (r = radius / sqrt(density), at most maxRadius) and `obstacleDistance` from every obstacle.
// No survival roulette: use densities >= (radius / maxRadius)^2 or 0.
template <typename Density>
std::vector<Pt> referenceMaximal(float worldX, float worldZ, float radius, float maxRadius, Density density,
                                 const std::vector<Pt>& obstacles, float obstacleDistance, int k, uint32_t seed) {
  auto spacing = [&](float d) { return std::clamp(radius / std::sqrt(d), radius, maxRadius); };
  const float cell = radius;
  const int nx = int(worldX / cell) + 1, nz = int(worldZ / cell) + 1;
  std::vector<std::vector<uint32_t>> grid(size_t(nx) * size_t(nz));
  std::vector<Pt> pts;
  std::vector<float> rad;
  const PointIndex obstacleIndex(obstacles, worldX, worldZ, std::max(1.f, obstacleDistance));
  auto fits = [&](float x, float z, float r) {
    if (!(x >= 0 && z >= 0 && x < worldX && z < worldZ)) return false;
    if (obstacleDistance > 0 && obstacleIndex.anyWithin(x, z, obstacleDistance)) return false;
    const int reach = int(std::ceil(maxRadius / cell));
    const int ci = int(x / cell), cj = int(z / cell);
    for (int j = std::max(0, cj - reach); j <= std::min(nz - 1, cj + reach); ++j)
      for (int i = std::max(0, ci - reach); i <= std::min(nx - 1, ci + reach); ++i)
        for (uint32_t q : grid[size_t(j) * size_t(nx) + size_t(i)]) {
          const float dx = pts[q].x - x, dz = pts[q].z - z, need = std::max(r, rad[q]);
          if (dx * dx + dz * dz < need * need) return false;
        }
    return true;
  };
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<uint32_t> active;
  auto tryAdd = [&](float x, float z) {
    if (!(x >= 0 && z >= 0 && x < worldX && z < worldZ)) return false;
    const float d = density(x, z);
    if (!(d > 0)) return false;
    const float r = spacing(d);
    if (!fits(x, z, r)) return false;
    grid[size_t(int(z / cell)) * size_t(nx) + size_t(int(x / cell))].push_back(uint32_t(pts.size()));
    active.push_back(uint32_t(pts.size()));
    pts.push_back({x, z});
    rad.push_back(r);
    return true;
  };
  auto grow = [&] {
    while (!active.empty()) {
      const size_t a = size_t(u(rng) * float(active.size())) % active.size();
      const Pt from = pts[active[a]];
      const float r = rad[active[a]];
      bool grew = false;
      for (int t = 0; t < k && !grew; ++t) {
        const float angle = 6.2831853f * u(rng), dist = r * std::sqrt(1.f + 3.f * u(rng));
        grew = tryAdd(from.x + dist * std::cos(angle), from.z + dist * std::sin(angle));
      }
      if (!grew) {
        active[a] = active.back();
        active.pop_back();
      }
    }
  };
  std::vector<Pt> lattice;
  const float step = 0.5f * radius;
  for (float z = 0; z < worldZ; z += step)
    for (float x = 0; x < worldX; x += step) lattice.push_back({x + step * u(rng), z + step * u(rng)});
  std::shuffle(lattice.begin(), lattice.end(), rng);
  for (const Pt& p : lattice)
    if (tryAdd(p.x, p.z)) grow();
  return pts;
}

}  // namespace eco::metrics
