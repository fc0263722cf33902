// `ecobake bake` numeric options (issue #13, item 13): --tiles/--region with huge values
// overflowed to "selects no tile", an inverted range was accepted, --seed -1 and 1e23 became
// 2^64-1. Each bad value is exit 2 with one line naming the option and the value; each good
// one bakes what it says.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "bake_world.h"
#include "tileio/tileio.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Tiles of a bake as "x_z" in manifest order.
std::vector<std::string> tilesOf(const std::string& dir) {
  std::vector<std::string> names;
  for (const eco::TileEntry& e : eco::readManifest(dir).tiles) names.push_back(std::to_string(e.x) + "_" + std::to_string(e.z));
  return names;
}

}  // namespace

TEST(BakeOptions, BadNumbersExitTwoNamingTheOption) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);  // 8 x 8 tiles of 128 m
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--seed -1", "--seed: '-1' is not a whole number"},
      {"--seed 1e23", "--seed: '1e23' is not a whole number"},
      {"--seed 18446744073709551616", "--seed: 18446744073709551616 is out of range (0 to 18446744073709551615)"},
      {"--seed 0x10", "--seed: '0x10' is not a whole number"},
      {"--seed ' 5'", "--seed: ' 5' is not a whole number"},
      {"--seed ''", "--seed: '' is not a whole number"},
      {"-j -1", "-j/--threads: -1 is out of range (0 to 1024)"},
      {"-j 2.5", "-j/--threads: '2.5' is not a whole number"},
      {"-j 1e3", "-j/--threads: '1e3' is not a whole number"},
      {"-j 99999999999999999999", "-j/--threads: 99999999999999999999 is out of range"},
      {"--tiles 0,0,99999999999999999999,7", "--tiles X1: 99999999999999999999 is out of range"},
      {"--tiles 0,0,1.5,7", "--tiles X1: '1.5' is not a whole number"},
      {"--tiles=-1,0,3,3", "--tiles X0: -1 is out of range (0 to 9223372036854775807)"},
      {"--tiles 5,0,4,7", "--tiles: 5,0,4,7 is inverted"},
      {"--tiles 0,6,7,5", "--tiles: 0,6,7,5 is inverted"},
      {"--tiles 8,0,9999999999,3", "--tiles 8,0,9999999999,3: selects no tile of the 8x8 grid"},
      {"--region 0,0,1e400,5", "--region MAXX: 1e400 is out of range"},
      {"--region 0,0,nan,5", "--region MAXX: 'nan' is not a finite number"},
      {"--region=-inf,0,5,5", "--region MINX: '-inf' is not a finite number"},
      {"--region 0,0,5m,5", "--region MAXX: '5m' is not a number"},
      {"--region 500,0,100,100", "--region: 500,0,100,100 is inverted"},
      {"--region 1e30,1e30,1e31,1e31", "--region 1e30,1e30,1e31,1e31: selects no tile of the 8x8 grid"},
      {"--region=-1e30,-1e30,-1,-1", "--region -1e30,-1e30,-1,-1: selects no tile of the 8x8 grid"},
  };
  for (const Case& c : cases) {
    Result r = run("bake " + config + " -o " + dir.file("out") + " -q " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << c.args << ": " << r.output;
    EXPECT_TRUE(has(r.output, "ecobake: error: " + c.message)) << c.args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

// Huge but valid values mean "to the edge of the world": the same tiles as no option at all.
TEST(BakeOptions, HugeRangesSelectToTheEdgeOfTheWorld) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("all") + " -q").code, 0);
  const std::vector<std::string> all = tilesOf(dir.file("all"));
  ASSERT_FALSE(all.empty());
  for (const char* option :
       {"--tiles 0,0,9223372036854775807,9223372036854775807", "--tiles 0,0,99999999999,99999999999",
        "--region=-1e300,-1e300,1e300,1e300", "--region 0,0,3e38,3e38"}) {
    Result r = run("bake " + config + " -o " + dir.file("sel") + " -q " + option);
    ASSERT_EQ(r.code, 0) << option << ": " << r.output;
    EXPECT_EQ(tilesOf(dir.file("sel")), all) << option;
  }
  // One tile, however it is named: the inclusive tile range, or metres inside it. A maximum
  // exactly on a tile edge touches the next tile as well.
  auto only = [&](const std::string& option, const std::vector<std::string>& expected) {
    Result r = run("bake " + config + " -o " + dir.file("sel") + " -q " + option);
    ASSERT_EQ(r.code, 0) << option << ": " << r.output;
    std::vector<std::string> got = tilesOf(dir.file("sel"));
    EXPECT_FALSE(got.empty()) << option;
    for (const std::string& t : got) EXPECT_NE(std::find(expected.begin(), expected.end(), t), expected.end()) << option << " " << t;
  };
  only("--tiles 3,4,3,4", {"3_4"});
  only("--region 400,520,500,600", {"3_4"});
  only("--region 400,520,512,600", {"3_4", "4_4"});
  only("--tiles 7,7,99999999999,99999999999", {"7_7"});
}

TEST(BakeOptions, SeedTakesTheWholeUnsignedRange) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  for (const char* seed : {"0", "18446744073709551615", "007"}) {
    Result r = run("bake " + config + " -o " + dir.file("out") + " -q -j 1 --seed " + seed + " --tiles 3,3,3,3");
    ASSERT_EQ(r.code, 0) << seed << ": " << r.output;
    EXPECT_EQ(eco::readManifest(dir.file("out")).seed, std::stoull(seed)) << seed;
  }
}
