// `ecobake diff A B` (issue #33): two bakes of one world compared for review and CI gates. The
// bins are checked against an independent computation in tests/python/diff_test.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "bake_world.h"
#include "test_support.h"
#include "tileio/tileio.h"

namespace {

using eco::test::TempDir;
using Result = eco::test::CommandResult;

Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CliDiff, ABakeAgainstItsTwinIsEmptyAndAnotherSeedFailsTheGate) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("a") + " -q").code, 0);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("twin") + " -q").code, 0);
  ASSERT_EQ(run("bake " + config + " --seed 12 -o " + dir.file("b") + " -q").code, 0);

  // the same config twice: the same bytes, nothing moved, exit 0 even at a zero threshold
  Result r = run("diff " + dir.file("a") + " " + dir.file("twin") + " --fail-on 0");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* name : {"pine", "juniper", "fescue", "moss"}) EXPECT_TRUE(has(r.output, name)) << r.output;
  EXPECT_FALSE(has(r.output, "over the threshold")) << r.output;
  EXPECT_TRUE(has(r.output, "; 0 differ, 0 only in A, 0 only in B")) << r.output;

  // another seed: counts and bins move a little; a small threshold gates, no threshold reports
  r = run("diff " + dir.file("a") + " " + dir.file("b") + " --fail-on 0.1");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(has(r.output, "over the threshold")) << r.output;
  EXPECT_TRUE(has(r.output, "changed by more than 0.1 %")) << r.output;
  EXPECT_EQ(run("diff " + dir.file("a") + " " + dir.file("b")).code, 0);
  EXPECT_EQ(run("diff " + dir.file("a") + " " + dir.file("b") + " --fail-on 1000").code, 0);

  // JSON: counts equal the manifests', every mask's shares add up to 100 %
  r = run("diff " + dir.file("a") + " " + dir.file("b") + " --json");
  ASSERT_EQ(r.code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  const eco::Manifest ma = eco::readManifest(dir.file("a")), mb = eco::readManifest(dir.file("b"));
  ASSERT_EQ(j["species"].size(), ma.species.size());
  for (size_t s = 0; s < ma.species.size(); ++s) {
    const nlohmann::json& e = j["species"][s];
    EXPECT_EQ(e["name"], ma.species[s].name);
    EXPECT_EQ(e["count_a"].get<uint64_t>(), ma.totals.speciesCounts[s]);
    EXPECT_EQ(e["count_b"].get<uint64_t>(), mb.totals.speciesCounts[s]);
    for (const char* mask : {"elevation", "slope", "aspect"}) {
      double a = 0, b = 0;
      for (const auto& bin : e["bins"][mask]) a += bin["share_a_pct"].get<double>(), b += bin["share_b_pct"].get<double>();
      if (ma.totals.speciesCounts[s]) {
        EXPECT_NEAR(a, 100.0, 1e-9) << e["name"] << " " << mask;
      }
      if (mb.totals.speciesCounts[s]) {
        EXPECT_NEAR(b, 100.0, 1e-9) << e["name"] << " " << mask;
      }
    }
  }
  EXPECT_EQ(j["tiles"]["a"].get<size_t>(), ma.tiles.size());

  // --report DIR: a moved-density map per species, the page and diff.json listing them; a
  // previous diff report is replaced, a user's folder or one inside a bake refused
  const std::string report = dir.file("moved");
  r = run("diff " + dir.file("a") + " " + dir.file("b") + " --report " + report);
  ASSERT_EQ(r.code, 0) << r.output;
  const nlohmann::json marker = nlohmann::json::parse(eco::test::readBytes(report + "/diff.json"));
  EXPECT_EQ(marker["format"], "ecobake-diff");
  EXPECT_EQ(marker["files"].size(), ma.species.size() + 1);
  for (const auto& f : marker["files"]) EXPECT_TRUE(std::filesystem::is_regular_file(report + "/" + f.get<std::string>())) << f;
  EXPECT_EQ(run("diff " + dir.file("a") + " " + dir.file("twin") + " --report " + report).code, 0);
  std::filesystem::create_directories(dir.file("mine"));
  eco::test::writeBytes(dir.file("mine/notes.txt"), "mine");
  for (const std::string& target : {dir.file("mine"), dir.file("a") + "/moved", dir.file("b") + "/moved"}) {
    r = run("diff " + dir.file("a") + " " + dir.file("b") + " --report " + target);
    EXPECT_EQ(r.code, 2) << target << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << r.output;
  }
  EXPECT_EQ(eco::test::readBytes(dir.file("mine/notes.txt")), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir.file("a") + "/moved"));
}

TEST(CliDiff, ASpeciesInOneBakeOnlyFailsTheGateEvenWithoutPlants) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("a") + " -q").code, 0);
  // the same world without the moss: gone, whatever the threshold, though the rest is the same
  nlohmann::json c = nlohmann::json::parse(eco::test::readBytes(config));
  c["species"].erase(c["species"].size() - 1);
  eco::test::writeBytes(dir.file("nomoss.json"), c.dump());
  ASSERT_EQ(run("bake " + dir.file("nomoss.json") + " -o " + dir.file("b") + " -q").code, 0);
  Result r = run("diff " + dir.file("a") + " " + dir.file("b") + " --fail-on 1000");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\nmoss +[0-9]+ +0 +gone )"))) << r.output;
  r = run("diff " + dir.file("b") + " " + dir.file("a") + " --json");
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["species"].back()["name"], "moss");
  EXPECT_EQ(j["species"].back()["in_a"], false);
  EXPECT_EQ(j["species"].back()["in_b"], true);
}

TEST(CliDiff, OtherWorldsPartsAndBadArgumentsAreOneLineExitTwo) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("a") + " -q").code, 0);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("part") + " --shard 1/2 -q").code, 0);
  // the same species and tiling on another terrain: a different world
  TempDir other;
  const std::string species = nlohmann::json::parse(eco::test::readBytes(config))["species"].dump();
  const std::string flatter = eco::test::writeWorld(
      other, 257, 4.f, [](float x, float z) { return 0.5f * eco::test::ridgeHeight(x, z) + 200.f; }, species);
  ASSERT_EQ(run("bake " + flatter + " -o " + other.file("b") + " -q").code, 0);

  struct Case {
    std::string args, says;
  };
  std::vector<Case> cases = {
      {dir.file("a") + " " + other.file("b"), "different worlds (their terrain heights differ)"},
      {dir.file("a") + " " + dir.file("part"), dir.file("part")},
      {dir.file("a") + " " + dir.file("missing"), dir.file("missing")},
      {dir.file("a") + " " + dir.file("a") + " --fail-on abc", "--fail-on"},
      {dir.file("a") + " " + dir.file("a") + " --fail-on -1", "--fail-on"},
      {dir.file("a") + " " + dir.file("a") + " --fail-on nan", "--fail-on"},
      {dir.file("a") + " " + dir.file("a") + " --report ''", "--report: output name is empty"},
      {dir.file("a") + " " + dir.file("a") + " --fail-on ''", "--fail-on"},  // an unset variable must not pass the gate
  };
  // a damaged terrain file (it has no checksum of its own): its heights are checked against the manifest
  std::filesystem::copy(dir.file("a"), dir.file("nan"), std::filesystem::copy_options::recursive);
  {
    std::string t = eco::test::readBytes(dir.file("nan/terrain.r32f"));
    const float nan = std::nanf("");
    std::memcpy(t.data() + 4000, &nan, sizeof nan);
    eco::test::writeBytes(dir.file("nan/terrain.r32f"), t);
  }
  cases.push_back({dir.file("a") + " " + dir.file("nan"), "terrain.r32f: height at pixel"});
  for (const Case& c : cases) {
    const Result r = run("diff " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << c.args << ": " << r.output;
    EXPECT_TRUE(has(r.output, c.says)) << c.args << ": " << r.output;
  }
}

}  // namespace
