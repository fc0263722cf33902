// The bake end to end: placement limits, determinism, partial bakes, round trips, atomicity.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bake/bake.h"
#include "export/export.h"
#include "core/output_dir.h"
#include "bake_world.h"
#include "core/error.h"
#include "slope_reference.h"
#include "tileio/tileio.h"
#include "shaders/shared.h"
#include "shaders/transform.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

eco::BakeSummary bakeTo(const eco::World& world, const std::string& dir, int threads,
                        std::optional<eco::TileRange> tiles = {}) {
  eco::BakeOptions o;
  o.outDir = dir;
  o.threads = threads;
  o.tiles = tiles;
  return eco::bake(world, o);
}

// Placement limits checked with the terrain alone, independently of the mask code: the slope
// is the README formula written out in the test (slope_reference.h), within 0.001 degrees of
// float rounding. Returns the instances checked.
size_t expectWithinLimits(const eco::World& world, const std::vector<eco::TileData>& tiles, size_t atLeast = 1000) {
  size_t checked = 0;
  for (const eco::TileData& tile : tiles)
    for (const eco::Instance& in : tile.instances) {
      const eco::SpeciesConfig& sp = world.config.species[in.species];
      float h = world.terrain.heightAt(in.position.x, in.position.z);
      const double slope = eco::test::referenceSlopeDeg(world.terrain, double(in.position.x), double(in.position.z));
      if (!(h > sp.elevation.min && h < sp.elevation.max && slope < double(sp.maxSlopeDeg) + 1e-3 &&
            std::fabs(in.position.y - h) <= 1e-3f)) {
        ADD_FAILURE() << sp.name << " at " << in.position.x << "," << in.position.z << ": height " << h << " (band "
                      << sp.elevation.min << " .. " << sp.elevation.max << "), slope " << slope << " (max "
                      << sp.maxSlopeDeg << "), instance y " << in.position.y;
        return checked;
      }
      ++checked;
    }
  EXPECT_GT(checked, atLeast);
  return checked;
}

}  // namespace

TEST(Bake, RidgeWorldRespectsElevationBandsAndMaxSlope) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  auto tiles = eco::bakeInMemory(world, 2);
  expectWithinLimits(world, tiles);
  // Every species is placed somewhere, and the steep ridge faces (> 55 degrees) hold only moss.
  std::vector<size_t> counts(world.config.species.size());
  for (const auto& t : tiles)
    for (const auto& in : t.instances) ++counts[in.species];
  for (size_t c : counts) EXPECT_GT(c, 0u);
}

TEST(Bake, PackColorRoundsLikeLround) {
  auto reference = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)); };
  std::vector<float> values = {-1.f, -0.f, 0.f, 1.f, 2.f, 1e30f, -1e30f};
  for (int k = 0; k <= 255; ++k)  // every rounding edge and its float neighbours
    for (float edge : {(float(k) - 0.5f) / 255.f, float(k) / 255.f})
      for (float v = std::nextafter(edge, -1.f), end = std::nextafter(std::nextafter(edge, 2.f), 2.f); v <= end;
           v = std::nextafter(v, 2.f))
        values.push_back(v);
  for (float v : values) {
    const float rgb[3] = {v, 0.5f, 1.f};
    ASSERT_EQ(eco::packColor(rgb), reference(v) | 128u << 8 | 255u << 16 | 0xff000000u) << v;
  }
  const float nan[3] = {std::nanf(""), 0.f, 0.f};
  EXPECT_EQ(eco::packColor(nan), 0xff000000u);
}

// Up axes from the terrain alone: vertical without tilt, the normal under the tilt limit, else
// the limit angle in the normal's azimuth.
TEST(Bake, RidgeWorldTiltsUpAxesTowardTheNormalUpToTheLimit) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  ASSERT_EQ(world.config.species[3].name, "moss");
  world.config.species[3].maxTiltDeg = 90.f;  // follows the normal everywhere
  auto tiles = eco::bakeInMemory(world, 2);
  size_t underLimit = 0, atLimit = 0, untilted = 0;
  for (const eco::TileData& tile : tiles)
    for (const eco::Instance& in : tile.instances) {
      const eco::SpeciesConfig& sp = world.config.species[in.species];
      const eco::SurfaceSample s = eco::surfaceAt(world.terrain, in.position.x, in.position.z, {0, 1});
      // Tilt follows the normal: the central-difference gradient's angle, not the ecological slope.
      const eco::Vec2 g = world.terrain.gradientAt(in.position.x, in.position.z);
      const float normalDeg = std::atan(std::sqrt(g.x * g.x + g.z * g.z)) * 180.f / 3.14159265f;
      const eco::Vec3 up = in.up;
      ASSERT_NEAR(up.x * up.x + up.y * up.y + up.z * up.z, 1.f, 1e-5f);
      if (sp.maxTiltDeg <= 0.f) {
        ASSERT_EQ(up.y, 1.f) << sp.name;
        ++untilted;
        continue;
      }
      const float expected = std::min(normalDeg, sp.maxTiltDeg) * 3.14159265f / 180.f;
      const float h = std::hypot(s.normal.x, s.normal.z), uh = std::hypot(up.x, up.z);
      ASSERT_NEAR(uh, std::sin(expected), 1e-4f) << sp.name << " normal at " << normalDeg << " degrees";
      ASSERT_GT(up.y, 0.f);
      if (h > 1e-3f && uh > 1e-3f) {
        ASSERT_GT((up.x * s.normal.x + up.z * s.normal.z) / (h * uh), 0.9999f);
      }
      ++(normalDeg < sp.maxTiltDeg ? underLimit : atLimit);
    }
  EXPECT_GT(underLimit, 100u);
  EXPECT_GT(atLimit, 50u);  // fewer since the natural patterns thin the juniper (issue #28)
  EXPECT_GT(untilted, 1000u);
}

TEST(Bake, SampleWorldRespectsElevationBandsAndMaxSlope) {
  std::string config = eco::test::sourceDir() + "/configs/temperate_mountain.json";
  if (!fs::exists(eco::test::sourceDir() + "/samples/world/heightmap.png")) GTEST_SKIP() << "no sample world";
  eco::World world = eco::loadWorld(config);
  // A band of tiles across the valley, slopes and ridge keeps the test quick.
  auto tiles = eco::bakeInMemory(world, 2, eco::TileRange{20, 0, 23, 48});
  expectWithinLimits(world, tiles);
}

// A V-shaped valley cut into a plateau and a ridge on a plain, 40 degree walls (bake_world.h):
// a grass with max_deg 30 covers the flat ground and nothing within two pixels of the valley
// floor or the ridge crest, where the central difference would read 0 to 23 degrees.
namespace {
void expectNothingOnTheCrease(bool valley) {
  TempDir dir;
  const std::string species = R"([{"name": "grass", "kind": "grass", "radius": 1.5, "max_radius_factor": 3,
     "elevation": {"min": 200, "opt_low": 250, "opt_high": 1000, "max": 1100},
     "slope": {"max_deg": 30, "falloff_deg": 10}, "mesh": {"height": 0.5, "crown_radius": 0.4}}])";
  const eco::World world = eco::loadWorld(eco::test::writeWorld(dir, 129, 4.f, eco::test::vWorldHeight(valley), species));
  const auto tiles = eco::bakeInMemory(world, 2);
  expectWithinLimits(world, tiles);
  size_t onCrease = 0;
  for (const eco::TileData& tile : tiles)
    for (const eco::Instance& in : tile.instances) onCrease += std::fabs(in.position.x - 256.f) <= 8.f;
  EXPECT_EQ(onCrease, 0u) << (valley ? "valley floor" : "ridge crest");
}
}  // namespace

TEST(Bake, NothingWithALowMaxSlopeGrowsOnAVValleyFloor) { expectNothingOnTheCrease(true); }
TEST(Bake, NothingWithALowMaxSlopeGrowsOnARidgeCrest) { expectNothingOnTheCrease(false); }

// The Grand Canyon DEM (../shared/data/dem) under arid_canyon.json's species with max_deg
// below 30 (the cottonwood), without its river (another world's): no instance stands where the
// slope, recomputed here, exceeds the species' maximum. Also reports how many pixels the
// slope reads more than 10 degrees steeper than the central difference (narrow canyons).
TEST(Bake, GrandCanyonDemKeepsLowSlopeSpeciesOffCanyonWalls) {
  const std::string dem = eco::test::demDir();
  if (dem.empty()) GTEST_SKIP() << "shared DEM folder not present";
  eco::World world = eco::loadWorld(eco::test::sourceDir() + "/configs/arid_canyon.json");
  world.terrain = eco::makeHeightmap(eco::loadImage(dem + "/grand_canyon_62m.png"), {61.8f, 6553.5f, 0.f});
  world.river = {};
  world.hasRiver = false;
  const eco::Grid& h = world.terrain.metres;
  size_t steeper = 0;
  double largest = 0;
  for (int j = 0; j < h.height; ++j)
    for (int i = 0; i < h.width; ++i) {
      const float x = float(i) * world.terrain.cellSize, z = float(j) * world.terrain.cellSize;
      const double more =
          double(eco::surfaceAt(world.terrain, x, z, {}).slopeDeg) - eco::test::gradientSlopeDeg(world.terrain, x, z);
      steeper += more > 10.0;
      largest = std::max(largest, more);
    }
  const double share = double(steeper) / double(h.values.size());
  std::printf("Grand Canyon: %.2f %% of pixels read more than 10 degrees steeper than the central difference "
              "(at most %.1f degrees more)\n", 100.0 * share, largest);
  EXPECT_GT(share, 0.001);  // the canyon's narrow floors and crests

  std::vector<eco::SpeciesConfig> lowSlope;
  for (eco::SpeciesConfig sp : world.config.species)
    if (sp.maxSlopeDeg < 30.f) {
      sp.moistureOptimum = 0.5f, sp.moistureTolerance = 1.f;  // no river: moisture is noise alone
      lowSlope.push_back(sp);
    }
  ASSERT_FALSE(lowSlope.empty());
  world.config.species = lowSlope;
  world.config.exclusions.clear();
  const auto tiles = eco::bakeInMemory(world, 2);
  const size_t checked = expectWithinLimits(world, tiles, 100);
  std::printf("Grand Canyon: %zu instances of %zu species with max_deg below 30 checked\n", checked, lowSlope.size());
}

namespace {
// Bytes of every tile, in tile order: what a bake writes, without the folder around it.
std::vector<std::vector<uint8_t>> encodedTiles(const std::vector<eco::TileData>& tiles) {
  std::vector<std::vector<uint8_t>> out;
  for (const eco::TileData& t : tiles) out.push_back(eco::encodeTile(t));
  return out;
}
}  // namespace

TEST(Bake, SampleWorldBlockIdenticalForOneTwoAndEightThreads) {
  if (!fs::exists(eco::test::sourceDir() + "/samples/world/heightmap.png")) GTEST_SKIP() << "no sample world";
  eco::World world = eco::loadWorld(eco::test::sourceDir() + "/configs/temperate_mountain.json");
  eco::TileRange block{18, 28, 26, 36};  // valley, river and lower slopes: every species
  auto one = encodedTiles(eco::bakeInMemory(world, 1, block));
  ASSERT_EQ(one.size(), 64u);
  EXPECT_EQ(one, encodedTiles(eco::bakeInMemory(world, 2, block)));
  EXPECT_EQ(one, encodedTiles(eco::bakeInMemory(world, 8, block)));
}

// Issue #32: dozens of species. The sample's 7 cloned 9 times (as bench/clone_species.py does:
// clone i of s is "s_i", radius and pattern sizes x 3, every exclusion repeated for each pair
// of clones), 63 classes and 162 exclusions: the same bytes for 1 and 2 threads, and a block
// baked alone equals the same tiles of a larger bake (the neighbour strips, the tile's shared
// canopy and the windowed suitability all at work).
TEST(Bake, SixtyThreeSpeciesBlockIdenticalForThreadsAndPartialBakes) {
  const std::string configs = eco::test::sourceDir() + "/configs";
  if (!fs::exists(eco::test::sourceDir() + "/samples/world/heightmap.png")) GTEST_SKIP() << "no sample world";
  nlohmann::json c = nlohmann::json::parse(eco::test::readBytes(configs + "/temperate_mountain.json"));
  // input paths made absolute: the clone is written elsewhere
  std::function<void(nlohmann::json&)> absolute = [&](nlohmann::json& o) {
    if (o.is_object() || o.is_array())
      for (auto& v : o) absolute(v);
    else if (o.is_string() && fs::exists(fs::path(configs) / o.get<std::string>()))
      o = (fs::path(configs) / o.get<std::string>()).lexically_normal().string();
  };
  absolute(c["terrain"]);
  if (c.contains("river")) absolute(c["river"]);
  nlohmann::json species = nlohmann::json::array(), exclusions = nlohmann::json::array();
  for (const auto& s : c["species"])
    for (int i = 0; i < 9; ++i) {
      nlohmann::json t = s;
      t["name"] = s["name"].get<std::string>() + "_" + std::to_string(i);
      t["radius"] = s["radius"].get<double>() * 3;
      if (t.contains("pattern") && t["pattern"].contains("gaps")) t["pattern"]["gaps"]["size"] = t["pattern"]["gaps"]["size"].get<double>() * 3;
      if (t.contains("pattern") && t["pattern"].contains("clumping"))
        t["pattern"]["clumping"]["radius"] = t["pattern"]["clumping"]["radius"].get<double>() * 3;
      species.push_back(t);
    }
  for (const auto& e : c.value("exclusions", nlohmann::json::array()))
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j)
        exclusions.push_back({{"a", e["a"].get<std::string>() + "_" + std::to_string(i)},
                              {"b", e["b"].get<std::string>() + "_" + std::to_string(j)},
                              {"distance", e["distance"]}});
  c["species"] = species;
  c["exclusions"] = exclusions;
  TempDir dir;
  eco::test::writeBytes(dir.file("x9.json"), c.dump());
  eco::World world = eco::loadWorld(dir.file("x9.json"));
  ASSERT_EQ(world.config.species.size(), 63u);
  eco::TileRange block{18, 28, 24, 34};  // valley, river and lower slopes: every species
  auto one = encodedTiles(eco::bakeInMemory(world, 1, block));
  ASSERT_EQ(one.size(), 36u);
  EXPECT_EQ(one, encodedTiles(eco::bakeInMemory(world, 2, block)));
  // the middle 2 x 2 tiles alone
  auto part = encodedTiles(eco::bakeInMemory(world, 2, eco::TileRange{20, 30, 22, 32}));
  ASSERT_EQ(part.size(), 4u);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) EXPECT_EQ(part[size_t(j * 2 + i)], one[size_t((j + 2) * 6 + i + 2)]) << i << ", " << j;
  size_t bytes = 0;
  for (const auto& t : one) bytes += t.size();
  EXPECT_GT(bytes, 36u * 1000u);  // a populated block, not 36 empty tiles
}

TEST(Bake, BytesIdenticalForOneAndTwoThreads) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("one"), 1);
  bakeTo(world, dir.file("two"), 2);
  auto files = filesIn(dir.file("one"));
  ASSERT_EQ(files, filesIn(dir.file("two")));
  ASSERT_GT(files.size(), 10u);
  for (const auto& f : files)
    EXPECT_EQ(eco::test::readBytes(dir.file("one/" + f)), eco::test::readBytes(dir.file("two/" + f))) << f;
}

TEST(Bake, PartialBakeEqualsSameTilesOfFullBake) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("full"), 2);
  eco::TileRange part{2, 3, 5, 6};
  eco::BakeSummary s = bakeTo(world, dir.file("part"), 2, part);
  EXPECT_EQ(s.tilesTotal, 9);
  eco::Manifest full = eco::readManifest(dir.file("full")), partial = eco::readManifest(dir.file("part"));
  ASSERT_GT(partial.tiles.size(), 0u);
  for (const eco::TileEntry& e : partial.tiles) {
    EXPECT_TRUE(e.x >= part.x0 && e.x < part.x1 && e.z >= part.z0 && e.z < part.z1);
    auto it = std::find_if(full.tiles.begin(), full.tiles.end(), [&](const auto& f) { return f.x == e.x && f.z == e.z; });
    ASSERT_NE(it, full.tiles.end());
    EXPECT_EQ(it->checksum, e.checksum);
    EXPECT_EQ(eco::test::readBytes(dir.file("part/" + e.file)), eco::test::readBytes(dir.file("full/" + it->file)));
  }
}

// A quaternion (x, y, z, w) applied to v: v + 2w (q x v) + 2 q x (q x v), written here apart
// from shaders/transform.h.
static std::array<double, 3> rotate(const double q[4], std::array<double, 3> v) {
  auto cross = [](std::array<double, 3> a, std::array<double, 3> b) {
    return std::array<double, 3>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const std::array<double, 3> u{q[0], q[1], q[2]};
  const std::array<double, 3> t = cross(u, v), tt = cross(u, t);
  return {v[0] + 2 * q[3] * t[0] + 2 * tt[0], v[1] + 2 * q[3] * t[1] + 2 * tt[1], v[2] + 2 * q[3] * t[2] + 2 * tt[2]};
}

// CSV carries the whole instance (issue #31): position, yaw and scale as before, then the
// rotation as a unit quaternion that takes the mesh's up (0, 1, 0) to the instance's up axis
// and, for an upright instance, its +x to the yaw's heading (+x toward -z), the linear tint
// (the RGBA8 colour over 255) and the stable id (tile number * 2^26 + index in the tile).
TEST(Bake, ExportRoundTripEqualsInstancesInMemory) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2);
  uint64_t n = eco::exportInstances(dir.file("out"), eco::ExportOptions{}, dir.file("all.csv"));
  const eco::Manifest m = eco::readManifest(dir.file("out"));

  struct Expected {
    eco::Instance in;
    uint64_t id;
  };
  std::vector<Expected> expected;
  for (const eco::TileEntry& e : m.tiles) {
    const eco::TileData tile = eco::readTileVerified(dir.file("out"), m, e);
    for (size_t i = 0; i < tile.instances.size(); ++i)
      expected.push_back({tile.instances[i], (uint64_t(e.z) * uint64_t(m.tiling.tilesX) + uint64_t(e.x)) * (uint64_t(1) << 26) + i});
  }
  ASSERT_EQ(n, expected.size());

  std::ifstream csv(dir.file("all.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "x,y,z,yaw,scale,species,species_id,qx,qy,qz,qw,r,g,b,id");
  size_t tilted = 0;
  for (const Expected& x : expected) {
    const eco::Instance& in = x.in;
    ASSERT_TRUE(std::getline(csv, line));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream row(line);
    float px, py, pz, yaw, scale;
    std::string name;
    unsigned species;
    double q[4], rgb[3];
    uint64_t id;
    row >> px >> py >> pz >> yaw >> scale >> name >> species >> q[0] >> q[1] >> q[2] >> q[3] >> rgb[0] >> rgb[1] >> rgb[2] >> id;
    ASSERT_TRUE(row) << line;
    ASSERT_EQ(species, in.species);
    ASSERT_EQ(name, world.config.species[species].name);
    ASSERT_NEAR(px, in.position.x, 0.01f);
    ASSERT_NEAR(py, in.position.y, 0.01f);
    ASSERT_NEAR(pz, in.position.z, 0.01f);
    ASSERT_NEAR(std::remainder(yaw - in.yaw, 6.2831853f), 0.f, 2e-4f);  // yaw wraps at 2 pi
    ASSERT_NEAR(scale, in.scale, 1e-3f);
    ASSERT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-5);
    const std::array<double, 3> up = rotate(q, {0, 1, 0});
    ASSERT_NEAR(up[0], in.up.x, 2e-5) << line;
    ASSERT_NEAR(up[1], in.up.y, 2e-5) << line;
    ASSERT_NEAR(up[2], in.up.z, 2e-5) << line;
    if (in.up.y > 0.999999f) {
      const std::array<double, 3> heading = rotate(q, {1, 0, 0});
      ASSERT_NEAR(heading[0], std::cos(double(in.yaw)), 2e-5) << line;
      ASSERT_NEAR(heading[2], -std::sin(double(in.yaw)), 2e-5) << line;
    } else {
      ++tilted;
    }
    for (int c = 0; c < 3; ++c) ASSERT_NEAR(rgb[c], double((in.color >> (8 * c)) & 0xff) / 255.0, 6e-5) << line;
    ASSERT_EQ(id, x.id);
  }
  EXPECT_GT(tilted, 100u) << "the ridge world's instances lean with the slope";
  EXPECT_FALSE(std::getline(csv, line));

  eco::ExportOptions asPly;
  asPly.format = eco::ExportFormat::Ply;
  eco::exportInstances(dir.file("out"), asPly, dir.file("all.ply"));
  std::ifstream ply(dir.file("all.ply"));
  std::getline(ply, line);
  EXPECT_EQ(line, "ply");
  bool sawCount = false, binary = false;
  while (std::getline(ply, line) && line != "end_header") {
    sawCount |= line == "element vertex " + std::to_string(n);
    binary |= line == "format binary_little_endian 1.0";
  }
  EXPECT_TRUE(sawCount);
  EXPECT_TRUE(binary) << "PLY is binary by default";
}

// Every exported line is exactly printf's "%.3f,%.3f,%.3f,%.5f,%.4f,<name>,%u,%.6f x 4,%.4f x 3,
// <id>" (CSV) or the same with spaces, no name and the id as tile and index (PLY --ascii) of
// the decoded instance: the reference is snprintf, the exporter formats with std::to_chars. The
// binary PLY holds the same values as the text one, field by field.
TEST(Bake, ExportLinesArePrintfOfTheDecodedInstances) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2);
  const eco::Manifest m = eco::readManifest(dir.file("out"));
  std::vector<std::string> csvLines{"x,y,z,yaw,scale,species,species_id,qx,qy,qz,qw,r,g,b,id"}, plyLines;
  for (const eco::TileEntry& e : m.tiles) {
    const eco::TileData tile = eco::readTileVerified(dir.file("out"), m, e);
    for (size_t i = 0; i < tile.instances.size(); ++i) {
      const eco::Instance& in = tile.instances[i];
      const eco::gpu::quat q = eco::gpu::instanceOrientation({in.up.x, in.up.y, in.up.z}, in.yaw);
      const double r = double(in.color & 0xff) / 255, g = double((in.color >> 8) & 0xff) / 255,
                   b = double((in.color >> 16) & 0xff) / 255;
      const unsigned tileNumber = unsigned(e.z * m.tiling.tilesX + e.x);
      char line[512];
      std::snprintf(line, sizeof line, "%.3f,%.3f,%.3f,%.5f,%.4f,%s,%u,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%llu",
                    double(in.position.x), double(in.position.y), double(in.position.z), double(in.yaw),
                    double(in.scale), m.species[in.species].name.c_str(), unsigned(in.species), double(q.x), double(q.y),
                    double(q.z), double(q.w), double(float(r)), double(float(g)), double(float(b)),
                    static_cast<unsigned long long>(uint64_t(tileNumber) * (uint64_t(1) << 26) + i));
      csvLines.push_back(line);
      std::snprintf(line, sizeof line, "%.3f %.3f %.3f %.5f %.4f %u %.6f %.6f %.6f %.6f %.4f %.4f %.4f %u %u",
                    double(in.position.x), double(in.position.y), double(in.position.z), double(in.yaw),
                    double(in.scale), unsigned(in.species), double(q.x), double(q.y), double(q.z), double(q.w),
                    double(float(r)), double(float(g)), double(float(b)), tileNumber, unsigned(i));
      plyLines.push_back(line);
    }
  }
  ASSERT_GT(plyLines.size(), 1000u);
  auto linesOf = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  };
  eco::exportInstances(dir.file("out"), eco::ExportOptions{}, dir.file("all.csv"));
  EXPECT_TRUE(linesOf(eco::test::readBytes(dir.file("all.csv"))) == csvLines);
  eco::ExportOptions asPly;
  asPly.format = eco::ExportFormat::Ply;
  asPly.plyAscii = true;
  eco::exportInstances(dir.file("out"), asPly, dir.file("all.ply"));
  std::vector<std::string> ply = linesOf(eco::test::readBytes(dir.file("all.ply")));
  ply.erase(ply.begin(), std::find(ply.begin(), ply.end(), "end_header") + 1);
  EXPECT_TRUE(ply == plyLines);

  // binary: 5 floats, a ushort, 7 floats, 2 uints per vertex (58 bytes), printed as the text is
  asPly.plyAscii = false;
  eco::exportInstances(dir.file("out"), asPly, dir.file("bin.ply"));
  const std::string bytes = eco::test::readBytes(dir.file("bin.ply"));
  const size_t body = bytes.find("end_header\n") + 11;
  ASSERT_EQ(bytes.size() - body, plyLines.size() * 58);
  for (size_t v = 0; v < plyLines.size(); ++v) {
    const char* p = bytes.data() + body + v * 58;
    float f[12];
    uint16_t species;
    uint32_t ids[2];
    std::memcpy(f, p, 20);
    std::memcpy(&species, p + 20, 2);
    std::memcpy(f + 5, p + 22, 28);
    std::memcpy(ids, p + 50, 8);
    char line[512];
    std::snprintf(line, sizeof line, "%.3f %.3f %.3f %.5f %.4f %u %.6f %.6f %.6f %.6f %.4f %.4f %.4f %u %u", double(f[0]),
                  double(f[1]), double(f[2]), double(f[3]), double(f[4]), unsigned(species), double(f[5]), double(f[6]),
                  double(f[7]), double(f[8]), double(f[9]), double(f[10]), double(f[11]), ids[0], ids[1]);
    ASSERT_EQ(line, plyLines[v]) << "vertex " << v;
  }
}

TEST(Bake, CorruptTileIsRejectedByVerifiedRead) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2);
  eco::Manifest m = eco::readManifest(dir.file("out"));
  const eco::TileEntry& e = m.tiles.front();
  std::string bytes = eco::test::readBytes(dir.file("out/" + e.file));
  bytes[bytes.size() / 2] ^= 0x5a;
  eco::test::writeBytes(dir.file("out/" + e.file), bytes);
  EXPECT_THROW(eco::readTileVerified(dir.file("out"), m, e), eco::InputError);
  eco::test::writeBytes(dir.file("out/" + e.file), bytes.substr(0, bytes.size() / 3));
  EXPECT_THROW(eco::readTileVerified(dir.file("out"), m, e), eco::InputError);
}

TEST(Bake, FailedBakeLeavesPreviousOutputAndNoStaging) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2);
  std::string before = eco::test::readBytes(dir.file("out/manifest.json"));
  {
    eco::StagedDir staged(dir.file("out"), eco::bakeOutput());
    eco::test::writeBytes(staged.staging + "/manifest.json", "half");
  }  // dropped without commit, as when a bake throws
  EXPECT_EQ(eco::test::readBytes(dir.file("out/manifest.json")), before);
  for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_EQ(e.path().filename().string().find("staging"), std::string::npos);
}

TEST(Bake, RefusesToReplaceAFolderThatIsNotABake) {
  TempDir dir;
  fs::create_directories(dir.file("precious"));
  eco::test::writeBytes(dir.file("precious/thesis.txt"), "do not delete");
  EXPECT_THROW(eco::StagedDir staged(dir.file("precious"), eco::bakeOutput()), eco::InputError);
  EXPECT_EQ(eco::test::readBytes(dir.file("precious/thesis.txt")), "do not delete");
}

TEST(Bake, RebakeReplacesPreviousOutput) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2);
  world.config.seed = 99;
  bakeTo(world, dir.file("out"), 2);
  EXPECT_EQ(eco::readManifest(dir.file("out")).seed, 99u);
}
