// The visible list's sizing (render/visible_reach.h) against brute force: eyes on a fine
// lattice and off the world, instances counted by plain point-to-square distances.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "render/camera.h"
#include "render/scene.h"
#include "render/shadows.h"
#include "render/visible_reach.h"

namespace eco::render {
namespace {

// Point-to-square distance written out corner by corner (not as the clamped form the library
// uses): inside the square's x or z band the gap is straight, past a corner it is diagonal.
double gap(double x, double z, double x0, double z0, double x1, double z1) {
  const bool inX = x >= x0 && x <= x1, inZ = z >= z0 && z <= z1;
  if (inX && inZ) return 0;
  if (inX) return z < z0 ? z0 - z : z - z1;
  if (inZ) return x < x0 ? x0 - x : x - x1;
  const double cx = x < x0 ? x0 : x1, cz = z < z0 ? z0 : z1;
  return std::hypot(x - cx, z - cz);
}

double bruteNeed(const std::vector<SceneTile>& tiles, float ts, const std::vector<double>& reach,
                 const std::vector<double>& weight, double x, double z) {
  double sum = 0;
  for (const SceneTile& t : tiles) {
    const double d = gap(x, z, t.x * double(ts), t.z * double(ts), (t.x + 1) * double(ts), (t.z + 1) * double(ts));
    for (size_t k = 0; k < reach.size(); ++k)
      if (reach[k] >= 0 && d <= reach[k]) sum += weight[k] * t.speciesCounts[k];
  }
  return sum;
}

std::vector<SceneTile> randomTiles(int w, int h, size_t species, uint32_t seed, bool holes) {
  std::mt19937 rng(seed);
  std::vector<SceneTile> tiles;
  for (int z = 0; z < h; ++z)
    for (int x = 0; x < w; ++x) {
      if (holes && rng() % 5 == 0) continue;  // a ragged world: tiles missing here and there
      SceneTile t;
      t.x = x + 3;  // a grid not starting at 0
      t.z = z + 1;
      for (size_t k = 0; k < species; ++k) {
        t.speciesCounts.push_back(rng() % 7 == 0 ? 0u : uint32_t(rng() % 4000));
        t.instances += t.speciesCounts.back();
      }
      tiles.push_back(t);
    }
  return tiles;
}

TEST(VisibleReach, BoundCoversEveryEyeAndIsNoLooserThanATileDiagonal) {
  const double ts = 128;
  for (bool holes : {false, true}) {
    const std::vector<SceneTile> tiles = randomTiles(17, 11, 4, holes ? 7 : 3, holes);
    const std::vector<std::vector<double>> reaches = {
        {1e6, 1202.4, 601.4, 301.2},           // the viewer's defaults
        {kUnbounded, 90.0, 0.0, kUnreached},   // unbounded, under a tile, zero, hidden
        {350.0, 350.0, 2000.0, 129.0},
    };
    for (const std::vector<double>& reach : reaches) {
      const std::vector<double> weight = {4, 4, 1, 1};
      const double bound = double(reachBound(tiles, float(ts), reach, weight));
      // every eye on a 16 m lattice over the world and 600 m around it
      double most = 0;
      for (double z = -600; z <= 12 * ts + 600; z += 16)
        for (double x = -600; x <= 20 * ts + 600; x += 16) most = std::max(most, bruteNeed(tiles, float(ts), reach, weight, x, z));
      EXPECT_GE(bound, most) << "holes " << holes << " reach " << reach[1];
      // no looser than counting from each square's centre with the reach grown by its half diagonal
      std::vector<double> grown = reach;
      for (double& r : grown)
        if (r >= 0) r += ts * std::sqrt(0.5) + 1e-6;
      double loose = 0;
      for (const SceneTile& c : tiles)
        loose = std::max(loose, bruteNeed(tiles, float(ts), grown, weight, (c.x + 0.5) * ts, (c.z + 0.5) * ts));
      EXPECT_LE(bound, loose) << "holes " << holes << " reach " << reach[1];
    }
  }
}

TEST(VisibleReach, TilesWithoutSpeciesCountsCountWholeUnderTheWidestReach) {
  std::vector<SceneTile> tiles = randomTiles(6, 6, 3, 5, false);
  uint64_t all = 0;
  for (SceneTile& t : tiles) {
    all += t.instances;
    t.speciesCounts.clear();
  }
  // the widest reach covers the world: every instance, at the heaviest weight
  EXPECT_EQ(reachBound(tiles, 128, std::vector<double>{10.0, 5000.0, kUnreached}, std::vector<double>{1, 4, 9}), 4 * all);
  EXPECT_EQ(reachBound(tiles, 128, std::vector<double>{kUnreached, kUnreached, kUnreached}, std::vector<double>{1, 1, 1}),
            0u);
}

TEST(VisibleReach, SpeciesReachIsTheKindsDrawDistancePlusTheSphereOffset) {
  gpu::FrameData f{};
  f.cull.y = gpu::CULL_FADE;
  CullSettings cull;
  cull.drawDistance = {1e9f, 1200, 600, 300};
  setFadeDistances(f, cull, 1500);
  std::vector<gpu::GpuSpecies> sp(3);
  // a 20 m tree (crown 4 m) whose sphere sits 0.5 up: its centre is 10 m from the origin at
  // scale 1, 15 m at the largest scale 1.5, whatever the tilt
  sp[0].shape = {20, 4, 0.5f, 1.5f};
  sp[0].sphere = {0, 0.5f, 0, 11};
  sp[0].info.x = 0;
  // grass with the centre off to the side: 3 * 0.5 * 0.4 = 0.6 m
  sp[1].shape = {0.4f, 0.5f, 1, 1};
  sp[1].sphere = {0.3f, 0.4f, 0, 1};
  sp[1].info.x = 2;
  sp[2].info.x = 3;
  std::vector<double> r = speciesReach(f, sp);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0], 1500 + 15, 1.5);  // trees drawn to the load radius
  EXPECT_GE(r[0], 1500 + 15);
  EXPECT_NEAR(r[1], 600 + std::hypot(0.3 * 0.5, 0.4 * 0.4), 1.1);
  EXPECT_GE(r[1], 600 + std::hypot(0.3 * 0.5, 0.4 * 0.4));
  f.hidden[0].x = 1u << 2;  // species 2 hidden
  EXPECT_EQ(speciesReach(f, sp)[2], kUnreached);
  f.cull.y = 0;  // no draw distance
  EXPECT_EQ(speciesReach(f, sp)[0], kUnbounded);
}

// Distances in the plane written out directly: point to segment, segment to segment (0 where
// they cross), and polygon to polygon as the least over their edges, 0 where one holds a
// vertex of the other (not the separating-axis form the library uses).
using P2 = std::array<double, 2>;
double toSegment(P2 p, P2 a, P2 b) {
  const double ex = b[0] - a[0], ez = b[1] - a[1], len2 = ex * ex + ez * ez;
  double t = len2 > 0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ez) / len2 : 0;
  t = std::min(std::max(t, 0.0), 1.0);
  return std::hypot(p[0] - a[0] - t * ex, p[1] - a[1] - t * ez);
}
double side(P2 a, P2 b, P2 p) { return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]); }
double segments(P2 a, P2 b, P2 c, P2 d) {
  const double s1 = side(a, b, c), s2 = side(a, b, d), s3 = side(c, d, a), s4 = side(c, d, b);
  if (((s1 > 0 && s2 < 0) || (s1 < 0 && s2 > 0)) && ((s3 > 0 && s4 < 0) || (s3 < 0 && s4 > 0))) return 0;
  return std::min({toSegment(a, c, d), toSegment(b, c, d), toSegment(c, a, b), toSegment(d, a, b)});
}
bool inside(const std::vector<P2>& poly, P2 p) {  // convex, either winding
  bool pos = false, neg = false;
  for (size_t i = 0; i < poly.size(); ++i) {
    const double s = side(poly[i], poly[(i + 1) % poly.size()], p);
    pos = pos || s > 0, neg = neg || s < 0;
  }
  return !(pos && neg);
}
double gapBetween(const std::vector<P2>& a, const std::vector<P2>& b) {
  for (P2 v : a)
    if (inside(b, v)) return 0;
  for (P2 v : b)
    if (inside(a, v)) return 0;
  double g = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j)
      g = std::min(g, segments(a[i], a[(i + 1) % a.size()], b[j], b[(j + 1) % b.size()]));
  return g;
}

// Every sphere a cascade lists (the cull shader's tests: the cascade box's planes and the
// receivers', one plane at a time) whose centre stands no higher than the casters' top, seen
// from an eye above the lowest ground, lies within the cascade's region around the eye, for
// random views, projections, suns, shadow settings and heights. Spheres are drawn over a wide
// area and around each slice, so the region's every side is approached.
TEST(VisibleReach, CasterRegionHoldsEverySphereACascadeLists) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  size_t listed[gpu::CASCADE_COUNT] = {};
  for (int trial = 0; trial < 60; ++trial) {
    const double minY = 200 * u(rng), relief = trial % 3 == 0 ? 50.0 : 2500 * u(rng);
    const double casterTop = minY + relief + 40, maxRadius = 0.5 + 20 * u(rng);
    Camera cam;
    cam.position = {float(6000 * u(rng)), float(minY + (trial % 4 == 0 ? 2.0 : 2000 * u(rng) * u(rng))),
                    float(6000 * u(rng))};
    cam.yawDeg = float(360 * u(rng));
    cam.pitchDeg = float(-89 + 120 * u(rng));
    cam.fovYDeg = float(30 + 70 * u(rng));
    cam.nearPlane = float(0.1 + 2 * u(rng));
    const int w = trial % 2 ? 1920 : 400, h = trial % 5 == 0 ? 1600 : 540;
    gpu::FrameData f = makeFrameData(cam, w, h, CullSettings{});
    const Vec3 sun = sunDirection(float(360 * u(rng)), trial % 7 == 6 ? float(1.2 + 3 * u(rng)) : float(5 + 85 * u(rng)));
    f.sun = {sun.x, sun.y, sun.z, 1};
    ShadowSettings settings;
    settings.distance = float(200 + 2500 * u(rng));
    settings.split = float(u(rng));
    settings.mapSize = trial % 2 ? 1024u : 256u;
    setShadowCascades(f, settings, float(minY), float(casterTop + maxRadius));
    const double e[3] = {double(f.eye.x), double(f.eye.y), double(f.eye.z)};
    for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c) {
      const CasterRegion region = casterRegion(settings, f.eye.w, 1 / f.proj.x, 1 / f.proj.y, sun, minY, casterTop,
                                               maxRadius, c);
      ASSERT_GE(region.hull.size(), 3u);
      auto listedBy = [&](const double* p, double r) {
        for (uint32_t k = 0; k < gpu::FRUSTUM_PLANES; ++k) {
          const gpu::vec4 a = f.shadowPlanes[c * gpu::FRUSTUM_PLANES + k], b = f.shadowReceivers[c * gpu::FRUSTUM_PLANES + k];
          if (double(a.x) * p[0] + double(a.y) * p[1] + double(a.z) * p[2] + double(a.w) < -r) return false;
          if (double(b.x) * p[0] + double(b.y) * p[1] + double(b.z) * p[2] + double(b.w) < -r) return false;
        }
        return true;
      };
      const double end = double((&f.shadowSplits.x)[c]);
      for (int i = 0; i < 9000; ++i) {
        double p[3];
        const double r = maxRadius * u(rng);
        if (i % 3 == 0) {  // anywhere within 12 km
          p[0] = e[0] + 24000 * (u(rng) - 0.5), p[2] = e[2] + 24000 * (u(rng) - 0.5);
        } else {  // around the slice, out to twice its far end, and from there toward the sun
          const double d = 2 * end * u(rng);
          const double toward = i % 3 == 1 ? 0.0 : 1.2 * (casterTop - minY + 2 * end) * u(rng) / std::max(double(sun.y), 0.02);
          const double flat = std::hypot(double(sun.x), double(sun.z)) + 1e-9;
          p[0] = e[0] + double(f.forward.x) * d + 2 * end * (u(rng) - 0.5) + double(sun.x) / flat * toward;
          p[2] = e[2] + double(f.forward.z) * d + 2 * end * (u(rng) - 0.5) + double(sun.z) / flat * toward;
        }
        // mostly near the top: the casters that shade from farthest
        p[1] = i % 4 == 0 ? casterTop : casterTop - (casterTop - minY + 300) * u(rng) * u(rng) * u(rng);
        if (!listedBy(p, r)) continue;
        ++listed[c];
        double gap = std::numeric_limits<double>::infinity();
        const P2 q{p[0] - e[0], p[2] - e[2]};
        if (inside(region.hull, q)) gap = 0;
        for (size_t j = 0; j < region.hull.size(); ++j)
          gap = std::min(gap, toSegment(q, region.hull[j], region.hull[(j + 1) % region.hull.size()]));
        ASSERT_LE(gap, region.margin) << "trial " << trial << " cascade " << c << ": a listed caster " << gap - region.margin
                                      << " m outside the region";
      }
    }
  }
  for (size_t n : listed) EXPECT_GT(n, 1000u) << "too few listed spheres to test the regions";
}

// The sample's sun (40 degrees, from the south) over 2.3 km of relief with 1.5 km of shadows:
// the first two cascades' regions are strips toward the sun, narrower than the 3 km across of
// the trees in reach and reaching toward the sun little farther than the relief's shadow.
TEST(VisibleReach, NearCascadesRegionsAreNarrowStrips) {
  ShadowSettings settings;
  const Vec3 sun = sunDirection(180, 40);  // toward +z
  double widths[gpu::CASCADE_COUNT];
  for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c) {
    const CasterRegion r = casterRegion(settings, 0.5f, 1.7778f / 1.7320508f, 1 / 1.7320508f, sun, 210, 2560, 20, c);
    double x0 = 1e30, x1 = -1e30, z1 = -1e30;
    for (P2 p : r.hull) x0 = std::min(x0, p[0]), x1 = std::max(x1, p[0]), z1 = std::max(z1, p[1]);
    widths[c] = x1 - x0 + 2 * r.margin;
    // the shadow of 2350 m of relief under a 40-degree sun, and less than the shadow distance
    if (c < 2) {
      EXPECT_LT(z1 + r.margin, 2350 / std::tan(40 * 3.14159265 / 180) + 1500) << "cascade " << c;
    }
  }
  EXPECT_LT(widths[0], 0.25 * 3000);
  EXPECT_LT(widths[1], 0.55 * 3000);
  EXPECT_LT(widths[0], widths[1]);
  EXPECT_LT(widths[1], widths[2]);
}

double bruteNeedWithRegions(const std::vector<SceneTile>& tiles, float ts, const std::vector<double>& reach,
                            const std::vector<double>& weight, const std::vector<CasterRegion>& regions,
                            const std::vector<double>& regionWeight, double x, double z, double grow) {
  double sum = 0;
  for (const SceneTile& t : tiles) {
    const double x0 = t.x * double(ts), z0 = t.z * double(ts), x1 = x0 + double(ts), z1 = z0 + double(ts);
    const double d = gap(x, z, x0, z0, x1, z1);
    const std::vector<P2> square = {{x0 - x, z0 - z}, {x1 - x, z0 - z}, {x1 - x, z1 - z}, {x0 - x, z1 - z}};
    for (size_t k = 0; k < reach.size(); ++k) {
      if (reach[k] < 0 || d > reach[k] + grow) continue;
      sum += weight[k] * t.speciesCounts[k];
      for (const CasterRegion& r : regions)
        if (gapBetween(square, r.hull) <= r.margin + grow) sum += regionWeight[k] * t.speciesCounts[k];
    }
  }
  return sum;
}

TEST(VisibleReach, BoundWithRegionsCoversEveryEyeAndIsNoLooserThanATileDiagonal) {
  const double ts = 128;
  const std::vector<SceneTile> tiles = randomTiles(11, 8, 4, 9, true);
  // two strips toward a sun in the south-west and a wide box, as a cascade's
  const std::vector<CasterRegion> regions = {
      {{{-100, -120}, {60, -180}, {-1400, 2300}, {-1560, 2240}}, 90},
      {{{-300, -300}, {300, -400}, {-900, 2600}, {-1500, 2700}}, 250},
      {{{-1700, -1500}, {1500, -1900}, {1100, 2400}, {-1900, 2100}}, 1200},
  };
  const std::vector<std::vector<double>> reaches = {{1e6, 1202.4, 601.4, 301.2}, {1500.0, 90.0, kUnbounded, 0.0}};
  const std::vector<double> weight = {1, 1, 1, 1}, regionWeight = {1, 1, 0, 0};
  for (const std::vector<double>& reach : reaches) {
    const double bound = double(reachBound(tiles, float(ts), reach, weight, regions, regionWeight));
    double most = 0;
    // every eye on a 48 m lattice over the world and 3 km around it (the regions' reach)
    for (double z = -3000; z <= 9 * ts + 3000; z += 48)
      for (double x = -3000; x <= 14 * ts + 3000; x += 48)
        most = std::max(most, bruteNeedWithRegions(tiles, float(ts), reach, weight, regions, regionWeight, x, z, 0));
    EXPECT_GE(bound, most) << "reach " << reach[1];
    double loose = 0;
    for (int cz = -30; cz < 9 + 30; ++cz)
      for (int cx = -30; cx < 14 + 30; ++cx)
        loose = std::max(loose, bruteNeedWithRegions(tiles, float(ts), reach, weight, regions, regionWeight,
                                                     (cx + 0.5) * ts, (cz + 0.5) * ts, ts * std::sqrt(0.5) + 1e-6));
    EXPECT_LE(bound, loose) << "reach " << reach[1];
    // the regions count: more than the camera's discs alone, less than three more of them
    const double discs = double(reachBound(tiles, float(ts), reach, weight));
    EXPECT_GT(bound, discs);
    EXPECT_LT(bound, double(reachBound(tiles, float(ts), reach, std::vector<double>{4, 4, 1, 1})));
  }
}

// Only a region counts (no camera weight, 2 km of reach): a strip 1.5-1.7 km north of the eye
// sees the world from eyes well south of it, so the eyes off the grid decide the bound. On a
// world of 6 x 6 tiles of 32 m the whole world fits in the region; on 24 x 24 it does not, so
// a margin cut by a third (150 to 100 m, more than the squares' slack) shows.
TEST(VisibleReach, RegionsCountFromEyesOffTheGrid) {
  const double ts = 32;
  for (int size : {6, 24}) {
    const std::vector<SceneTile> tiles = randomTiles(size, size, 1, 4, false);
    const double margin = size == 6 ? 300 : 150;
    const std::vector<CasterRegion> regions = {{{{-20, -1700}, {20, -1700}, {20, -1500}, {-20, -1500}}, margin}};
    const std::vector<double> reach = {2000}, weight = {0}, regionWeight = {1};
    const double bound = double(reachBound(tiles, float(ts), reach, weight, regions, regionWeight));
    // eyes from which the region meets the world (tiles x from 3, z from 1)
    double most = 0;
    const double step = size == 6 ? 8 : 16;
    for (double z = 1500 - margin - 50; z <= (size + 1) * ts + 1700 + margin + 50; z += step)
      for (double x = -margin; x <= (size + 3) * ts + margin + 50; x += step)
        most = std::max(most, bruteNeedWithRegions(tiles, float(ts), reach, weight, regions, regionWeight, x, z, 0));
    EXPECT_GT(most, 0);
    EXPECT_GE(bound, most) << size << " tiles";
    // and exactly what it is defined as: over every eye square (the eyes that reach the world
    // lie in squares 30-90 rows south of it), the tiles whose square is within 2 km of the eye's
    // and within the margin of the region moved by some point of the eye's square
    double exact = 0;
    for (int cz = 30; cz <= size + 90; ++cz)
      for (int cx = -20; cx <= size + 20; ++cx) {
        const double ex = cx * ts, ez = cz * ts;
        const std::vector<P2> eye = {{ex, ez}, {ex + ts, ez}, {ex + ts, ez + ts}, {ex, ez + ts}};
        double sum = 0;
        for (const SceneTile& t : tiles) {
          const double x0 = t.x * ts, z0 = t.z * ts;
          const std::vector<P2> tile = {{x0, z0}, {x0 + ts, z0}, {x0 + ts, z0 + ts}, {x0, z0 + ts}};
          // tile less eye: the offsets between their points, a square of half side ts
          const std::vector<P2> offsets = {{x0 - ex - ts, z0 - ez - ts}, {x0 - ex + ts, z0 - ez - ts},
                                           {x0 - ex + ts, z0 - ez + ts}, {x0 - ex - ts, z0 - ez + ts}};
          if (gapBetween(eye, tile) <= reach[0] && gapBetween(offsets, regions[0].hull) <= regions[0].margin)
            sum += t.speciesCounts[0];
        }
        exact = std::max(exact, sum);
      }
    EXPECT_EQ(bound, exact) << size << " tiles";
  }
}

}  // namespace
}  // namespace eco::render
