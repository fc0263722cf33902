// The visible list's sizing (render/visible_reach.h) against brute force: eyes on a fine
// lattice and off the world, instances counted by plain point-to-square distances.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "render/camera.h"
#include "render/scene.h"
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

}  // namespace
}  // namespace eco::render
