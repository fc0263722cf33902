// `ecobake bake --layers` and `ecobake inspect` on bakes with raster layers (issue #20):
// the listing, and hostile layer entries as one-line errors with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bake_world.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::string q(const fs::path& p) {
  std::string quoted = "'";
  quoted += p.string();
  quoted += "'";
  return quoted;
}

}  // namespace

TEST(CliLayers, InspectListsAndVerifiesEveryLayer) {
  TempDir tmp;
  const std::string config = eco::test::writeRiverRidgeWorld(tmp, ", \"channel_width\": 20");
  const fs::path bake = tmp.path / "bake";
  Result r = run("bake " + q(config) + " -o " + q(bake) + " -q --layers masks --tiles 0,0,1,1");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run("inspect " + q(bake));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "layers (10, verified):")) << r.output;
  EXPECT_TRUE(has(r.output, "river_distance")) << r.output;
  EXPECT_TRUE(has(r.output, "water where <= 10 m")) << r.output;
  EXPECT_TRUE(has(r.output, "suitability_fescue")) << r.output;
  EXPECT_TRUE(has(r.output, "sun from azimuth 180 deg, 40 deg above the horizon")) << r.output;
  r = run("inspect --json " + q(bake));
  ASSERT_EQ(r.code, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["layers"].size(), 10u);
  EXPECT_EQ(j["layers"][0]["name"], "river_distance");
  EXPECT_EQ(j["layers"][0]["water_distance"], 10);
  EXPECT_EQ(j["layers"][9]["species"], "moss");
  EXPECT_EQ(j["layers"][9]["bytes"], 257 * 257);

  // Hostile entries: one line naming the file (and field), exit 2.
  const std::string good = eco::test::readBytes((bake / "manifest.json").string());
  auto refused = [&](const std::function<void(nlohmann::ordered_json&)>& edit, const std::string& expected) {
    nlohmann::ordered_json m = nlohmann::ordered_json::parse(good);
    edit(m);
    eco::test::writeBytes((bake / "manifest.json").string(), m.dump(2));
    Result bad = run("inspect " + q(bake));
    EXPECT_EQ(bad.code, 2) << expected << ": " << bad.output;
    EXPECT_TRUE(has(bad.output, expected)) << expected << ": " << bad.output;
    EXPECT_EQ(eco::test::lineCount(bad.output), 1u) << bad.output;
  };
  refused([](auto& m) { m["layers"][2]["file"] = "../../escape.r8"; }, "manifest.json: /layers/2/file: must be a relative path");
  refused([](auto& m) { m["layers"][2]["width"] = 128; }, "manifest.json: /layers/2: 128 x 257 layer, but the terrain is 257 x 257");
  refused([](auto& m) { m["layers"][2]["value_max"] = nullptr; }, "manifest.json: /layers/2/value_max: expected a number");
  refused([](auto& m) { m["layers"][2]["xxh3_64"] = "0000000000000000"; }, "layers/slope.r8: checksum mismatch");
  refused([](auto& m) { m["layers"][2]["encoding"] = "unorm16"; }, "layers/slope.r8: 66049 bytes, but the manifest's layer");
  eco::test::writeBytes((bake / "manifest.json").string(), good);
  fs::remove(bake / "layers" / "moisture.r8");
  r = run("inspect " + q(bake));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "layers/moisture.r8")) << r.output;
}

TEST(CliLayers, UnknownLayerSetIsExitTwoBeforeAnythingIsWritten) {
  TempDir tmp;
  const std::string config = eco::test::writeRidgeWorld(tmp);
  Result r = run("bake " + q(config) + " -o " + q(tmp.path / "out") + " --layers mask");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--layers: unknown layer set 'mask'; use masks")) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}
