// The report's pattern statistics (src/report/report.cpp patternStats) on patterns whose values
// are known in closed form, and `ecobake report` end to end. Its figures on a real bake against
// scipy: tests/python/report_test.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "bake_world.h"
#include "report/report.h"
#include "test_support.h"
#include "tileio/tileio.h"

namespace {

using eco::Point2;
using eco::test::TempDir;

TEST(ReportPattern, HexagonalLatticeIsClarkEvans215AndEmptyBelowItsSpacing) {
  // a hexagonal lattice of spacing 2 m over 120 x 120 m, the window its middle 60 x 60 m
  std::vector<Point2> points;
  const double a = 2.0, h = a * std::sqrt(3.0) / 2;
  for (int j = 0; j * h < 120; ++j)
    for (int i = 0; i * a < 120; ++i) points.push_back({i * a + (j % 2) * a / 2, j * h});
  const eco::PatternStats s = eco::patternStats(points, {30, 30, 90, 90}, {1.0, 2.0, 3.0}, 0.2, 0.25);
  // mean nearest a, intensity 2 / (sqrt 3 a^2): R = 2 sqrt(2 / sqrt 3) = 2.1491 (Clark and Evans 1954)
  EXPECT_NEAR(s.meanNearest, a, 1e-9);
  EXPECT_NEAR(s.clarkEvans, 2.0 * std::sqrt(2.0 / std::sqrt(3.0)), 0.02);  // the window's rows cut a few points off
  EXPECT_EQ(s.g[0], 0.0) << "no pairs closer than the spacing";
  EXPECT_GT(s.g[1], 3.0) << "six neighbours at exactly the spacing";
  // every nearest distance is 2 m, bin 8 of 0.25 m (or 7: a row apart it rounds to 1.9999999)
  EXPECT_EQ(s.nearestHistogram[7] + s.nearestHistogram[8], s.points);
}

TEST(ReportPattern, PoissonPatternIsNearOneEverywhere) {
  std::mt19937_64 rng(33);
  std::uniform_real_distribution<double> u(0.0, 400.0);
  std::vector<Point2> points(64000);
  for (Point2& p : points) p = {u(rng), u(rng)};
  // intensity 0.4 per m^2, mean spacing 0.79 m
  const eco::PatternStats s = eco::patternStats(points, {100, 100, 300, 300}, {0.5, 1.0, 2.0, 4.0}, 0.2, 0.1);
  EXPECT_NEAR(s.intensity, 0.4, 0.02);
  EXPECT_NEAR(s.clarkEvans, 1.0, 0.02);
  for (size_t b = 0; b < s.g.size(); ++b) EXPECT_NEAR(s.g[b], 1.0, 0.06) << "r = " << s.radii[b];
}

TEST(ReportCli, WritesTheReportAndFollowsTheOutputRules) {
  TempDir dir;
  const std::string config = eco::test::writeRiverRidgeWorld(dir);
  ASSERT_EQ(eco::test::runTool("ecobake", "bake " + config + " -o " + dir.file("bake") + " -q").code, 0);
  const std::string out = dir.file("report");
  auto r = eco::test::runTool("ecobake", "report " + dir.file("bake") + " -o " + out + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(eco::test::readBytes(out + "/report.json"));
  const eco::Manifest m = eco::readManifest(dir.file("bake"));
  EXPECT_EQ(j["instances"].get<uint64_t>(), m.totals.instances);
  EXPECT_EQ(j["provenance"]["inputs"]["config"], m.hashes.config);
  EXPECT_EQ(j["provenance"]["inputs"]["river"], m.hashes.river);
  EXPECT_EQ(j["provenance"]["seed"].get<uint64_t>(), m.seed);
  ASSERT_EQ(j["species"].size(), m.species.size());
  for (size_t s = 0; s < m.species.size(); ++s) {
    const nlohmann::json& e = j["species"][s];
    EXPECT_EQ(e["count"].get<uint64_t>(), m.totals.speciesCounts[s]) << e["name"];
    EXPECT_EQ(e["in_water"].get<uint64_t>(), 0u) << e["name"] << ": the bake keeps plants out of the river";
    EXPECT_GT(e["cover"].get<double>(), 0.0) << e["name"];
    EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + e["density_map"].get<std::string>()));
  }
  for (const auto& f : j["files"]) EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + f.get<std::string>())) << f;
  EXPECT_NE(eco::test::readBytes(out + "/index.html").find("<img src='maps/species.png'"), std::string::npos);
  // a previous report is replaced; a user's folder, a file inside the bake, a part: exit 2, one line
  EXPECT_EQ(eco::test::runTool("ecobake", "report " + dir.file("bake") + " -o " + out + " -q").code, 0);
  std::filesystem::create_directories(dir.file("mine"));
  eco::test::writeBytes(dir.file("mine/notes.txt"), "mine");
  ASSERT_EQ(eco::test::runTool("ecobake", "bake " + config + " -o " + dir.file("part") + " --shard 1/2 -q").code, 0);
  for (const std::string& args : {"report " + dir.file("bake") + " -o " + dir.file("mine"),
                                  "report " + dir.file("bake") + " -o " + dir.file("bake") + "/report",
                                  "report " + dir.file("part") + " -o " + dir.file("r2"),
                                  "report " + dir.file("nothing") + " -o " + dir.file("r3")}) {
    r = eco::test::runTool("ecobake", args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << args << ": " << r.output;
  }
  EXPECT_EQ(eco::test::readBytes(dir.file("mine/notes.txt")), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir.file("bake") + "/report"));
}

TEST(ReportCli, NamesAreEscapedPartialBakesReportTheirRegionAndTerrainIsChecked) {
  TempDir dir;
  nlohmann::json c = nlohmann::json::parse(eco::test::readBytes(eco::test::writeRidgeWorld(dir)));
  c["species"][0]["name"] = "o'neil' onmouseover 'x";  // names may hold ' (config rules)
  eco::test::writeBytes(dir.file("quoted.json"), c.dump());
  ASSERT_EQ(eco::test::runTool("ecobake", "bake " + dir.file("quoted.json") + " -o " + dir.file("bake") + " --tiles 1,1,4,3 -q").code, 0);
  auto r = eco::test::runTool("ecobake", "report " + dir.file("bake") + " -o " + dir.file("r") + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string html = eco::test::readBytes(dir.file("r/index.html"));
  EXPECT_EQ(html.find("o'neil"), std::string::npos) << "a quote in a name ends a single-quoted attribute";
  EXPECT_NE(html.find("alt='density of o&#39;neil&#39; onmouseover &#39;x'"), std::string::npos);
  // density over the region baked (tiles 1..4 x 1..3 of 128 m), not the whole world
  const nlohmann::json j = nlohmann::json::parse(eco::test::readBytes(dir.file("r/report.json")));
  const eco::Manifest m = eco::readManifest(dir.file("bake"));
  int x0 = 1 << 30, z0 = 1 << 30, x1 = 0, z1 = 0;
  for (const eco::TileEntry& e : m.tiles) x0 = std::min(x0, e.x), z0 = std::min(z0, e.z), x1 = std::max(x1, e.x), z1 = std::max(z1, e.z);
  EXPECT_EQ(j["region"]["tiles"], nlohmann::json::array({x0, z0, x1, z1}));
  const double ha = double(x1 - x0 + 1) * double(z1 - z0 + 1) * 128.0 * 128.0 / 1e4;
  EXPECT_NEAR(j["region"]["area_ha"].get<double>(), ha, 1e-9);
  EXPECT_NEAR(j["species"][1]["density_per_ha"].get<double>(), double(m.totals.speciesCounts[1]) / ha, 1e-9);
  // the terrain file has no checksum: a NaN or a height outside the manifest's range is exit 2
  std::string t = eco::test::readBytes(dir.file("bake/terrain.r32f"));
  const float high = 5000.f;
  std::memcpy(t.data() + 400, &high, sizeof high);
  eco::test::writeBytes(dir.file("bake/terrain.r32f"), t);
  r = eco::test::runTool("ecobake", "report " + dir.file("bake") + " -o " + dir.file("r2") + " -q");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("terrain.r32f: heights span"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r2")));
}

}  // namespace
