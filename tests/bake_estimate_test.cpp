// estimateBake against real bakes: instance counts of the sample worlds (recorded from
// `ecobake bake`, deterministic for their seeds) and of a small world baked here, and the
// byte and memory counts against the bake's own output and peak.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <optional>

#include "bake/bake.h"
#include "bake_world.h"
#include "test_support.h"

namespace {

using eco::test::TempDir;

struct Recorded {
  const char* config;
  double instances;  // ecobake bake, whole world
};

// Totals printed by `ecobake bake` for these configs (also in README's results table for the
// sample world); the per-species figures are in the report of the commit adding this test.
const Recorded kRecorded[] = {
    {"configs/temperate_mountain.json", 1598371},
    {"configs/arid_canyon.json", 3897158},
    {"bench/configs/puget_forest.json", 34490715},
};

// Issue #32 asks within 5 %. Measured with the sampler's count model (aloneCountPerArea):
// 0.987, 0.993 and 0.982 of the real totals (the closed form before it: 0.957, 0.911, 0.997).
TEST(BakeEstimate, InstancesWithinFivePercentOfRecordedBakes) {
  for (const Recorded& r : kRecorded) {
    const std::string path = eco::test::sourceDir() + "/" + r.config;
    if (std::string(r.config).find("puget") != std::string::npos && eco::test::demDir().empty()) continue;
    const eco::World world = eco::loadWorld(path);
    const eco::BakeEstimate e = eco::estimateBake(world, 2);
    std::printf("%s: estimate %.0f, actual %.0f, ratio %.3f\n", r.config, e.instances, r.instances, e.instances / r.instances);
    EXPECT_GT(e.instances, r.instances * 0.95) << r.config;
    EXPECT_LT(e.instances, r.instances * 1.05) << r.config;
    // Output: 16.1 bytes per instance in these bakes, plus the terrain copy.
    EXPECT_GT(e.outputBytes, r.instances * 16.0 * 0.9) << r.config;
    EXPECT_LT(e.outputBytes, r.instances * 16.2 * 1.1 + 5e6) << r.config;
  }
}

// A world baked here: estimate against the count of bakeInMemory, species by species, and for
// a part of the world (a tile range).
TEST(BakeEstimate, MatchesABakeOfTheRidgeWorld) {
  TempDir dir;
  const eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  for (const std::optional<eco::TileRange> range : {std::optional<eco::TileRange>(), std::optional(eco::TileRange{2, 1, 6, 5})}) {
    const std::vector<eco::TileData> tiles = eco::bakeInMemory(world, 2, range);
    std::vector<double> actual(world.config.species.size(), 0.0);
    double total = 0;
    for (const eco::TileData& t : tiles)
      for (const eco::Instance& i : t.instances) ++actual[i.species], ++total;
    const eco::BakeEstimate e = eco::estimateBake(world, 2, range);
    std::printf("ridge%s: estimate %.0f, actual %.0f\n", range ? " (tiles 2..5 x 1..4)" : "", e.instances, total);
    EXPECT_EQ(e.tiles, range ? 16 : 64);
    EXPECT_GT(e.instances, total * 0.85);
    EXPECT_LT(e.instances, total * 1.15);
    for (size_t s = 0; s < actual.size(); ++s) {
      EXPECT_GT(e.speciesInstances[s], actual[s] * 0.6) << world.config.species[s].name;
      EXPECT_LT(e.speciesInstances[s], actual[s] * 1.6) << world.config.species[s].name;
    }
  }
}

eco::World flatWorld(int pixels, float cell, float height) {
  eco::World w;
  w.config.configPath = "flat.json";
  w.config.terrain.heightmap = "flat.png";
  w.config.species.resize(1);
  w.config.species[0].name = "moss";
  w.config.species[0].radius = 1;
  w.config.species[0].footprint = 0.25f;
  w.config.tileSize = 64;
  w.terrain.metres = eco::Grid(pixels, pixels, height);
  w.terrain.cellSize = cell;
  return w;
}

// The count model through the whole bake, one species on flat ground at a time: each kind's
// natural pattern (hard core, clumps or gaps) with a wide size mix (scale 0.6-1.5: spacings
// over a factor 2.5, which a closed form over E[m^2] put 20 % off), at full density and at a
// low one (read between the measured densities there). Counted over the middle 4 x 4 of 8 x 8
// tiles, as the world's edge cuts the clumps and gaps along it; the world 320 clump or gap
// radii a side, so their share averages out (at 400 spacings, 60 clump radii, the counts of
// the clumped kinds spread by 5-8 %). At full density with Bridson growth too: the count model
// runs the config's method (the pool's count read Bridson's sample bake 0.91).
TEST(BakeEstimate, CountModelFollowsTheBakeOnFlatGround) {
  const std::pair<eco::SpeciesKind, float> kinds[] = {{eco::SpeciesKind::Tree, 4.f}, {eco::SpeciesKind::Shrub, 2.f},
                                                      {eco::SpeciesKind::Grass, 0.6f}, {eco::SpeciesKind::GroundCover, 0.5f}};
  struct Case {
    float density;
    eco::SamplingMethod method;
  };
  const Case cases[] = {{1.f, eco::SamplingMethod::Pool}, {0.12f, eco::SamplingMethod::Pool}, {1.f, eco::SamplingMethod::Bridson}};
  for (const auto& [kind, radius] : kinds)
    for (const auto& [density, method] : cases) {
      const eco::PatternConfig pattern = eco::naturalPattern(kind, radius);
      const float side = 320.f * std::max(pattern.clumpRadius, pattern.gapSize / 2.f);
      eco::World w = flatWorld(257, side / 256.f, 100);
      w.config.tileSize = side / 8.f;
      w.config.samplingMethod = method;
      const eco::TileRange middle{2, 2, 6, 6};
      eco::SpeciesConfig& sp = w.config.species[0];
      sp.kind = kind;
      sp.radius = radius;
      sp.footprint = radius / 4.f;
      sp.crownRadius = radius;
      sp.pattern = pattern;
      sp.scaleMin = 0.6f;
      sp.scaleMax = 1.5f;
      sp.density = density;
      sp.moistureTolerance = 1e4f;  // suitability = density everywhere (within 1e-8)
      sp.elevation = {0.f, 1.f, 1000.f, 1001.f};
      double actual = 0;
      for (const eco::TileData& t : eco::bakeInMemory(w, 2, middle)) actual += double(t.instances.size());
      const eco::BakeEstimate e = eco::estimateBake(w, 2, middle);
      std::printf("kind %d density %.2f method %d: estimate %.0f, actual %.0f, ratio %.3f\n", int(kind), double(density),
                  int(method), e.instances, actual, e.instances / actual);
      EXPECT_GT(e.instances, actual * 0.96) << int(kind) << " " << density << " " << int(method);
      EXPECT_LT(e.instances, actual * 1.04) << int(kind) << " " << density << " " << int(method);
    }
}

std::vector<eco::ConfigProblem> worldProblems(const eco::World& w) {
  std::vector<eco::ConfigProblem> problems;
  eco::checkWorld(w, problems);
  return problems;
}

// A class at the edge of what the config allows (max_radius_factor 60 and a size spread of
// 10: its largest spacing 3,600 m against 6 m at full density; tiles at their least for it):
// the count model measures it on a square bounded by its spacing at each density, and with
// tiles the sampler accepts (the first version made a square of 1,500 spacings with quarter
// tiles and the sampler refused them: validate failed on a valid config).
TEST(BakeEstimate, CountModelTakesAClassAtTheConfigsBounds) {
  eco::World w = flatWorld(257, 7400.f / 256.f, 100);
  w.config.tileSize = 3700;
  eco::SpeciesConfig& sp = w.config.species[0];
  sp.kind = eco::SpeciesKind::GroundCover;
  sp.radius = 10;
  sp.footprint = 2.5f;
  sp.maxRadiusFactor = 60;
  sp.scaleMin = 0.1f;
  sp.scaleMax = 1.0f;
  sp.pattern = eco::naturalPattern(sp.kind, sp.radius);
  sp.pattern.clumpRadius = 60;
  sp.moistureTolerance = 1e4f;
  sp.elevation = {0.f, 1.f, 1000.f, 1001.f};
  ASSERT_TRUE(worldProblems(w).empty());
  double actual = 0;
  for (const eco::TileData& t : eco::bakeInMemory(w, 2)) actual += double(t.instances.size());
  const eco::BakeEstimate e = eco::estimateBake(w, 2);
  std::printf("class at the bounds: estimate %.0f, actual %.0f, ratio %.3f\n", e.instances, actual, e.instances / actual);
  // the whole world, edges included, of a few thousand clumped plants
  EXPECT_GT(e.instances, actual * 0.9);
  EXPECT_LT(e.instances, actual * 1.1);
}

TEST(BakeEstimate, WorldChecksNameTheField) {
  EXPECT_TRUE(worldProblems(flatWorld(65, 4, 100)).empty());
  // 1,000,001 m across: more than a float can place to a metre's use.
  std::vector<eco::ConfigProblem> p = worldProblems(flatWorld(1001, 1000.001f, 100));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].path, "/terrain/cell_size");
  EXPECT_TRUE(worldProblems(flatWorld(1001, 1000, 100)).empty());
  // Heights after the mapping (an EXR's values times height_scale).
  p = worldProblems(flatWorld(65, 4, 1e5f * 1.01f));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].path, "/terrain/heightmap");
  eco::World inf = flatWorld(65, 4, 0);
  inf.terrain.metres.at(3, 5) = std::numeric_limits<float>::infinity();
  p = worldProblems(inf);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].reason.find("pixel (3, 5)"), std::string::npos) << p[0].reason;
  // A radius below 2^-20 of the extent (1 km world: 0.98 mm) is rounding noise.
  eco::World fine = flatWorld(1001, 1000, 0);  // 1000 km
  fine.config.species[0].radius = 0.9f;
  fine.config.tileSize = 1000;
  p = worldProblems(fine);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].path, "/species/0/radius");
  // The sampler's extent check: too many tiles.
  eco::World many = flatWorld(1001, 1000, 0);
  many.config.species[0].radius = 1;
  many.config.species[0].maxRadiusFactor = 1;
  many.config.tileSize = 8;
  p = worldProblems(many);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].path, "/tiling/tile_size");
  EXPECT_NE(p[0].reason.find("tiles, more than 1e+09"), std::string::npos) << p[0].reason;
}

TEST(BakeEstimate, LimitsRefuseWithTheEstimate) {
  eco::BakeEstimate e;
  e.instances = 2e9;
  e.tiles = 100;
  e.outputBytes = 32e9;
  e.peakMemoryBytes = 1e9;
  eco::BakeLimits limits;
  const std::string why = eco::limitProblem(e, limits);
  EXPECT_NE(why.find("about 2 G instances in 100 tiles, 32.0 GB of output, 1.0 GB peak memory"), std::string::npos) << why;
  EXPECT_NE(why.find("exceed the limit of 1 G (--max-instances)"), std::string::npos) << why;
  limits.maxInstances = 3e9;
  limits.maxOutputBytes = 1e10;
  EXPECT_NE(eco::limitProblem(e, limits).find("(--max-output)"), std::string::npos);
  limits.maxOutputBytes = 1e11;
  limits.maxMemoryBytes = 5e8;
  EXPECT_NE(eco::limitProblem(e, limits).find("(--max-memory)"), std::string::npos);
  limits.maxMemoryBytes = 2e9;
  EXPECT_EQ(eco::limitProblem(e, limits), "");
  limits.maxInstances = 1;
  limits.allow = true;
  EXPECT_EQ(eco::limitProblem(e, limits), "");
}

}  // namespace

// The default memory limit follows a container's cgroup, not the host (a bake of a 16k
// heightmap in a 2 GB cgroup was told "ok" and then OOM-killed): v1 and v2 layouts, the
// tightest level wins, "max" and v1's 2^63-1 mean none.
TEST(BakeEstimate, CgroupMemoryLimitReadsTheTightestLevel) {
  eco::test::TempDir dir;
  const std::string root = dir.file("cg");
  auto put = [](const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    eco::test::writeBytes(path, text);
  };
  put(dir.file("v1"), "9:pids:/\n4:memory:/jobs/bake\n0::/\n");
  put(root + "/memory/memory.limit_in_bytes", "9223372036854771712\n");
  put(root + "/memory/jobs/memory.limit_in_bytes", "2147483648\n");
  put(root + "/memory/jobs/bake/memory.limit_in_bytes", "4294967296\n");
  EXPECT_EQ(eco::cgroupMemoryLimit(dir.file("v1"), root), 2147483648.0);

  put(dir.file("v2"), "0::/user/job\n");
  put(root + "/user/job/memory.max", "max\n");
  put(root + "/user/memory.max", "1073741824\n");
  EXPECT_EQ(eco::cgroupMemoryLimit(dir.file("v2"), root), 1073741824.0);

  put(dir.file("none"), "0::/free\n");
  put(root + "/free/memory.max", "max\n");
  EXPECT_EQ(eco::cgroupMemoryLimit(dir.file("none"), root), 0.0);
  EXPECT_EQ(eco::cgroupMemoryLimit(dir.file("missing"), root), 0.0);
}
