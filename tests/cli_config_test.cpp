// Issue #13, config side, as a user runs it: numbers that overflow a float, what bake
// rejects and validate passed, the up-front estimate and its limits, thousands of species.
// Each test reproduces the issue's numbers.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "bake_world.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args, int timeout = 120) { return eco::test::runTool("ecobake", args, timeout); }

// The text with `from` replaced by `to` (which must occur exactly once).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// configs/temperate_mountain.json copied into dir with its image paths made absolute and
// `from` replaced by `to`.
std::string sampleCopy(const TempDir& dir, const std::string& from = "", const std::string& to = "") {
  std::string text = eco::test::readBytes(eco::test::sourceDir() + "/configs/temperate_mountain.json");
  const std::string samples = eco::test::sourceDir() + "/samples/";
  text = replaced(text, "\"../samples/world/heightmap.png\"", "\"" + samples + "world/heightmap.png\"");
  text = replaced(text, "\"../samples/world/river_distance.png\"", "\"" + samples + "world/river_distance.png\"");
  if (!from.empty()) text = replaced(text, from, to);
  eco::test::writeBytes(dir.file("sample.json"), text);
  return dir.file("sample.json");
}

bool mentions(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// The sample config with every species' pattern "packed" (spacing exactly its radius, as the
// figures below were measured): its own pattern lines dropped, one after each "kind".
std::string packedSample(const std::string& path) {
  std::string text = eco::test::readBytes(path);
  text = std::regex_replace(text, std::regex(R"(,\n\s*"pattern": \{[^\n]*\}(?=\n))"), "");
  text = std::regex_replace(text, std::regex(R"(\n\s*"pattern": \{[^\n]*\},)"), "");
  text = std::regex_replace(text, std::regex(R"("kind": ("[a-z_]+"),)"), R"("kind": $1, "pattern": {"style": "packed"},)");
  eco::test::writeBytes(path, text);
  return path;
}

}  // namespace

// Item 4: each of these passed validate, and bake wrote `null` into the manifest with exit 0
// over a good bake. Now validate and bake refuse them with exit 2 naming the field, and the
// previous bake stays as it was.
TEST(CliConfig, NumbersThatOverflowAFloatAreRefusedWhereParsed) {
  TempDir dir;
  const std::string good = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + good + " -q -o " + dir.file("out")).code, 0);
  const std::string manifest = eco::test::readBytes(dir.file("out/manifest.json"));
  ASSERT_FALSE(manifest.empty());
  const std::string text = eco::test::readBytes(good);
  struct Case {
    std::string from, to, path;
  };
  const Case cases[] = {
      {"\"max_elevation\": 1200", "\"max_elevation\": 1e39", "/terrain/max_elevation"},
      {"\"min_elevation\": 0, \"max_elevation\": 1200", "\"height_scale\": 1e39, \"height_offset\": 0",
       "/terrain/height_scale"},
      {"\"name\": \"pine\",", "\"name\": \"pine\", \"scale\": {\"min\": 1, \"max\": 1e39},", "/species/0/scale/max"},
      {"\"height\": 20,", "\"height\": 3e38,", "/species/0/mesh/height"},
  };
  for (const Case& c : cases) {
    eco::test::writeBytes(dir.file("bad.json"), replaced(text, c.from, c.to));
    for (const std::string& command : {"validate " + dir.file("bad.json"),
                                      "bake " + dir.file("bad.json") + " -q -o " + dir.file("out")}) {
      const Result r = run(command);
      EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
      EXPECT_TRUE(mentions(r, c.path)) << r.output;
    }
    EXPECT_EQ(eco::test::readBytes(dir.file("out/manifest.json")), manifest) << c.path;
  }
}

// Items 8 and 9: what bake rejected validate passed, and a JSON number overflow was exit 1.
TEST(CliConfig, ValidateRefusesWhatBakeWouldWithTheJsonPath) {
  TempDir dir;
  const std::string text = eco::test::readBytes(eco::test::writeRidgeWorld(dir));
  struct Case {
    std::string from, to, path;
  };
  const Case cases[] = {
      {"\"radius\": 6,", "\"radius\": 1e-50,", "/species/0/radius"},
      {"\"tile_size\": 128.000000", "\"tile_size\": 1e9", "/tiling/tile_size"},
      {"\"cell_size\": 4", "\"cell_size\": 1e-50", "/terrain/cell_size"},
      {"\"cell_size\": 4", "\"cell_size\": 1e30", "/terrain/cell_size"},
      {"\"cell_size\": 4", "\"cell_size\": 1e400", "/terrain/cell_size"},
      // Fine for the parser, too fine for the sampler's grid of a 128 m tile: was
      // "sampler: class 3: ..." from bake only.
      {"\"radius\": 1.2,", "\"radius\": 0.01,", "/species/3/radius"},
      // Tiles narrower than the pine's spacing (radius 6 * max_radius_factor 3 * hard core 0.55 * size spread 1.5 = 14.85 m).
      {"\"tile_size\": 128.000000", "\"tile_size\": 12", "/tiling/tile_size"},
  };
  for (const Case& c : cases) {
    eco::test::writeBytes(dir.file("bad.json"), replaced(text, c.from, c.to));
    for (const std::string& command : {std::string("validate "), "bake -q -o " + dir.file("out") + " "}) {
      const Result r = run(command + dir.file("bad.json"));
      EXPECT_EQ(r.code, 2) << c.to << "\n" << r.output;
      EXPECT_TRUE(mentions(r, dir.file("bad.json") + ": " + c.path + ": ")) << c.to << "\n" << r.output;
    }
  }
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

TEST(CliConfig, ValidatePrintsTheEstimate) {
  TempDir dir;
  const Result r = run("validate -j 2 " + eco::test::writeRidgeWorld(dir));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(ok \(4 species\); about [0-9.]+ [MG]? ?instances in 64 tiles, [0-9.]+ [MGT]B of output, [0-9.]+ [MGT]B peak memory)")))
      << r.output;
  // How the viewer draws each species (issue #29): the ridge world's pine names no form, so it
  // would be a broadleaf, and validate says where to change that; none of its species gives a
  // colour, so each is drawn in its kind's.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  pine +tree +about +[0-9]+  drawn as broadleaf \(the tree default: set /species/0/mesh/form to conifer for needle trees\), in the tree default colour \(set /species/0/color\)\n)")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  juniper +shrub +about +[0-9]+  drawn as shrub, in the shrub default colour \(set /species/1/color\)\n)"))) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  moss +ground_cover about +[0-9]+  drawn as ground_cover, in the ground_cover default colour \(set /species/3/color\)\n)"))) << r.output;
  // the sample gives every colour: no note
  const Result sample = run("validate " + eco::test::sourceDir() + "/configs/temperate_mountain.json");
  ASSERT_EQ(sample.code, 0) << sample.output;
  EXPECT_EQ(sample.output.find("default colour"), std::string::npos) << sample.output;
  EXPECT_TRUE(std::regex_search(sample.output, std::regex(R"(\n  hazel +shrub +about +[0-9]+  drawn as shrub\n)"))) << sample.output;
  // Each species' share of the estimate (issue #32: which species the model gets wrong): the
  // shares add up to the total
  std::smatch total;
  ASSERT_TRUE(std::regex_search(r.output, total, std::regex(R"(about ([0-9.]+) instances in)"))) << r.output;
  double sum = 0;
  const std::regex line(R"(\n  [a-z]+ +[a-z_]+ +about +([0-9]+)  )");
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), line); it != std::sregex_iterator(); ++it)
    sum += std::stod((*it)[1].str());
  EXPECT_NEAR(sum, std::stod(total[1].str()), 4.0) << r.output;
}

// Item 7: radius 0.01 m on the sample world passed validate and started writing about 3 TB;
// both commands now refuse it at once with the estimate, and the limit can be raised.
TEST(CliConfig, HugeBakesAreRefusedUpFrontWithTheEstimate) {
  TempDir dir;
  // One species at 0.01 m is now refused as too fine for the sampler's grid of a tile (the
  // tile must stay as wide as the trees' spacing; TinyRadiiRefusedByValidate). Every species
  // at 0.05 m on 64 m tiles passes every grid limit: only the estimate can stop that one.
  std::string config = packedSample(sampleCopy(dir));
  const std::string text =
      std::regex_replace(eco::test::readBytes(config), std::regex(R"("radius": [0-9.]+)"), "\"radius\": 0.05");
  eco::test::writeBytes(config, replaced(text, "\"tile_size\": 128", "\"tile_size\": 64"));
  auto started = std::chrono::steady_clock::now();
  for (const std::string& command : {std::string("validate "), "bake -q -o " + dir.file("out") + " "}) {
    const Result r = run(command + config, 60);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(about [0-9.]+ G instances .* exceed the limit of 1 G \(--max-instances\))")))
        << r.output;
    EXPECT_TRUE(mentions(r, "--allow-large")) << r.output;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 60.0);
  EXPECT_FALSE(fs::exists(dir.file("out")));
  // The estimate itself, allowed. Reference: each species' count in the real bake of the
  // sample world (10.94 M in all) times (radius / 0.05)^2 gives 4.6 G; with footprints of
  // 0.0125 m the lower layers lose less ground to the trees, so somewhat more.
  const Result allowed = run("validate --allow-large " + config);
  EXPECT_EQ(allowed.code, 0) << allowed.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(allowed.output, m, std::regex(R"(about ([0-9.]+) G instances)"))) << allowed.output;
  EXPECT_GT(std::stod(m[1]), 3.5);
  EXPECT_LT(std::stod(m[1]), 9.0);
  // Other limits and their parsing.
  const std::string ridge = eco::test::writeRidgeWorld(dir);
  EXPECT_EQ(run("validate --max-instances 1000 " + ridge).code, 2);
  const Result output = run("validate --max-output 1MB " + ridge);
  EXPECT_EQ(output.code, 2) << output.output;
  EXPECT_TRUE(mentions(output, "(--max-output)")) << output.output;
  const Result memory = run("validate --max-memory 1MiB " + ridge);
  EXPECT_EQ(memory.code, 2) << memory.output;
  EXPECT_TRUE(mentions(memory, "(--max-memory)")) << memory.output;
  EXPECT_EQ(run("validate --max-memory 64GiB --max-output 2TB --max-instances 1e10 " + ridge).code, 0);
  for (const std::string& bad : std::vector<std::string> {"--max-instances nan", "--max-instances -5", "--max-output 12XB", "--max-memory ''"}) {
    const Result r = run("validate " + bad + " " + ridge);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
  }
}

// Item 7: radius 1e-6 was refused only by bake, with advice (smaller tiles) that led to the
// 0.01 m case.
TEST(CliConfig, TinyRadiiRefusedByValidate) {
  TempDir dir;
  const std::string config = packedSample(sampleCopy(dir, "\"radius\": 0.4,", "\"radius\": 1e-6,"));
  const Result r = run("validate " + config);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(mentions(r, "/species/6/radius: must be in [0.001, 100000], got 1e-06")) << r.output;
  const std::string fine = packedSample(sampleCopy(dir, "\"radius\": 0.4,", "\"radius\": 0.01,"));
  const Result grid = run("validate " + fine);
  EXPECT_EQ(grid.code, 2) << grid.output;
  EXPECT_TRUE(mentions(grid, "/species/6/radius: radius 0.01 m is too small for tile size 128 m")) << grid.output;
}

// Item 10: 10,000 species took 287 s and 9.8 GB. Refused at once now; 256 (the limit) pass
// validate quickly.
TEST(CliConfig, SpeciesCountIsBounded) {
  TempDir dir;
  const std::string base = eco::test::readBytes(eco::test::writeRidgeWorld(dir));
  auto withSpecies = [&](int n) {
    std::string list = "[";
    for (int i = 0; i < n; ++i)
      list += std::string(i ? "," : "") + R"({"name": "s)" + std::to_string(i) +
              R"(", "kind": "grass", "radius": 2, "elevation": {"min": 200, "opt_low": 300, "opt_high": 900, "max": 1100}})";
    list += "]";
    const size_t at = base.find("\"species\": [");
    const size_t end = base.rfind(']');
    std::string text = base;
    text.replace(at + 11, end - (at + 11) + 1, list);
    const std::string path = dir.file("species_" + std::to_string(n) + ".json");
    eco::test::writeBytes(path, text);
    return path;
  };
  auto started = std::chrono::steady_clock::now();
  const Result many = run("validate " + withSpecies(10000), 30);
  EXPECT_EQ(many.code, 2) << many.output;
  EXPECT_TRUE(mentions(many, ": /species: at most 256 species, got 10000")) << many.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);

  started = std::chrono::steady_clock::now();
  const Result limit = run("validate -j 2 " + withSpecies(256), 60);
  EXPECT_EQ(limit.code, 0) << limit.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 30.0);
  EXPECT_EQ(run("validate " + withSpecies(257)).code, 2);
}

// Item 11: names that CSV, PLY headers or terminals would have to escape are refused; real
// species names pass.
TEST(CliConfig, SpeciesAndBakeNamesAreRestricted) {
  TempDir dir;
  const std::string text = eco::test::readBytes(eco::test::writeRidgeWorld(dir));
  const std::pair<std::string, std::string> cases[] = {
      {"\"name\": \"pine\"", "\"name\": \"pine,1\""},
      {"\"name\": \"pine\"", "\"name\": \"pine\\nend_header\""},
      {"\"name\": \"pine\"", "\"name\": \"pi\\\"ne\""},
      {"\"name\": \"pine\"", "\"name\": \"\\u202epine\""},
      {"\"name\": \"pine\"", "\"name\": \" pine\""},
      {"\"name\": \"ridge\"", "\"name\": \"ridge\\r\""},
  };
  for (const auto& [from, to] : cases) {
    eco::test::writeBytes(dir.file("bad.json"), replaced(text, from, to));
    const Result r = run("validate " + dir.file("bad.json"));
    EXPECT_EQ(r.code, 2) << to << "\n" << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 2u) << r.output;  // the problem and the count
  }
  eco::test::writeBytes(dir.file("good.json"), replaced(text, "\"name\": \"pine\"", "\"name\": \"Pinus sylvestris (Scots pine) d'\\u00c9cosse\""));
  const Result good = run("validate " + dir.file("good.json"));
  EXPECT_EQ(good.code, 0) << good.output;
}
