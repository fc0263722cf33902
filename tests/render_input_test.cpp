// ecoview on hostile input (issue #13): usage and numeric option errors, manifests whose
// claims do not match the files (terrain size, tile counts), FIFOs in the bake folder. Runs
// the real binary where the issue did, headless on lavapipe with tiny frames.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "bake_tamper.h"
#include "render/headless.h"
#include "render_support.h"
#include "test_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;
using nlohmann::json;

namespace {

json readJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void writeJson(const std::string& path, const json& j) { std::ofstream(path) << j.dump(2); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Every usage error: exit 2 and a single line (CLI11 alone exits 105, 109, ...).
TEST(EcoviewCli, UsageErrorsExitTwoWithOneLine) {
  for (const char* args : {"--no-such-flag", "a b", "--frames", "--size", "--frames 1 --frames 2", "--synthetic 10 extra more"}) {
    test::CommandResult r = test::runTool("ecoview", args, 30);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_EQ(test::lineCount(r.output), 1u) << args << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "ecoview: ")) << args << ": " << r.output;
  }
  test::CommandResult help = test::runTool("ecoview", "--help", 30);
  EXPECT_EQ(help.code, 0) << help.output;
  EXPECT_TRUE(contains(help.output, "--budget"));
}

// Every numeric option: NaN, infinities, overflow, negative-to-unsigned, junk and values
// outside the sane range are refused with exit 2 naming the option, before any file is read.
TEST(EcoviewCli, NumericOptionsAreCheckedAndNamed) {
  struct Case {
    const char* args;
    const char* names;
  };
  const Case cases[] = {
      {"--budget 1e30", "--budget"},           {"--budget nan", "--budget"},
      {"--budget 0", "--budget"},              {"--budget -1", "--budget"},
      {"--budget 1e400", "--budget"},          {"--budget 8x", "--budget"},
      {"--load-radius nan", "--load-radius"},  {"--load-radius inf", "--load-radius"},
      {"--load-radius -5", "--load-radius"},   {"--unload-radius 1e39", "--unload-radius"},
      {"--upload-budget 0", "--upload-budget"}, {"--upload-budget 1e9", "--upload-budget"},
      {"--upload-ms nan", "--upload-ms"},       {"--upload-ms -1", "--upload-ms"},
      {"--unload-radius nan", "--unload-radius"},
      {"--far-trees -1", "--far-trees"},       {"--far-trees 1e9", "--far-trees"},
      {"--far-trees 100000001", "--far-trees"}, {"--far-trees 12k", "--far-trees"},
      {"--frames 0", "--frames"},              {"--frames 1e30", "--frames"},
      {"--frames 99999999999999999999", "--frames"}, {"--frames 0x10", "--frames"},
      {"--size 0x64", "--size"},               {"--size 64x99999999999", "--size"},
      {"--size 64x64junk", "--size"},          {"--size 64", "--size"},
      {"--camera 1,2,3,nan,0", "--camera"},    {"--camera 1,2,3", "--camera"},
      {"--camera 1e39,0,0,0,0", "--camera"},   {"--camera 0,0,0,0,90", "--camera"},
      {"--camera-to 0,inf,0,0,0", "--camera-to"},
      {"--synthetic -1", "--synthetic"},       {"--synthetic 1e23", "--synthetic"},
      {"--synthetic 0", "--synthetic"},        {"--synthetic 18446744073709551615", "--synthetic"},
      {"--synthetic-grid 5", "--synthetic-grid"}, {"--synthetic-grid nan", "--synthetic-grid"},
  };
  for (const Case& c : cases) {
    // a folder that does not exist: the option must be refused before the bake is opened
    test::CommandResult r = test::runTool("ecoview", std::string("/nonexistent-bake --headless ") + c.args, 30);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.output;
    EXPECT_EQ(test::lineCount(r.output), 1u) << c.args << ": " << r.output;
    EXPECT_TRUE(contains(r.output, c.names)) << c.args << ": " << r.output;
    EXPECT_FALSE(contains(r.output, "nonexistent-bake")) << c.args << ": " << r.output;
  }
}

// A budget smaller than every tile loads nothing; it must say so rather than show an empty
// world silently (64 tiles of 15,625 instances, budget 1,000).
TEST(EcoviewCli, TilesLargerThanTheBudgetAreReported) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::CommandResult r =
      test::runTool("ecoview", "--synthetic 1000000 --headless --size 64x64 --budget 0.001 --load-radius 100000", 60);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "15625 instances exceed the budget of 1000")) << r.output;
  EXPECT_TRUE(contains(r.output, "resident 0")) << r.output;
}

// --screenshot and --stats are output paths: a folder is refused before rendering, a FIFO
// without a reader is refused instead of blocking, a regular file is written whole.
TEST(EcoviewCli, OutputPathsAreCheckedAndNeverHang) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  const std::string run = "--synthetic 1000 --headless --size 64x64 --load-radius 1e5 --unload-radius 1e5 ";
  for (const char* option : {"--screenshot", "--stats"}) {
    test::CommandResult r = test::runTool("ecoview", run + option + " " + dir.path.string(), 30);
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_EQ(test::lineCount(r.output), 1u) << option << ": " << r.output;
    EXPECT_TRUE(contains(r.output, std::string(option) + ": " + dir.path.string() + " is a folder")) << r.output;
  }
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
  for (const char* option : {"--screenshot", "--stats"}) {
    test::CommandResult r = test::runTool("ecoview", run + option + " " + dir.file("fifo"), 30);
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_TRUE(contains(r.output, dir.file("fifo"))) << r.output;
  }
  test::CommandResult r = test::runTool(
      "ecoview", run + "--far-trees 1000 --screenshot " + dir.file("shot.png") + " --stats " + dir.file("stats.json"), 30);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(test::readBytes(dir.file("shot.png")).substr(1, 3), "PNG");
  // the resident instances are the world's; the far trees' copies are counted apart
  const auto frame = readJson(dir.file("stats.json"))["frames"][0];
  EXPECT_GT(frame["far_trees_resident"].get<uint64_t>(), 0u);
  EXPECT_EQ(frame["instances_resident"].get<uint64_t>(), 1000u);
}

// A manifest claiming a huge terrain next to a small terrain.r32f: exit 2 naming the file,
// without allocating what the manifest claims (the viewer zero-filled it first: bad_alloc
// for 2^20 x 2^20, 4 GB for 32768 x 32768, refused here by a 1 GiB address-space limit).
TEST(EcoviewBake, ClaimedTerrainSizeIsCheckedBeforeAllocating) {
  test::TempDir dir;
  writeSyntheticBake(dir.path.string(), smallWorld(3000));
  const std::string manifest = dir.file("manifest.json");
  const json original = readJson(manifest);
  for (int side : {1 << 20, 32768}) {
    json m = original;
    m["terrain"]["width"] = side;
    m["terrain"]["height"] = side;
    writeJson(manifest, m);
    test::CommandResult r = test::runCommand(
        "sh -c 'ulimit -v 1048576; exec " + test::tool("ecoview") + " " + dir.path.string() + " --headless --size 64x64'", 60);
    EXPECT_EQ(r.code, 2) << side << ": " << r.output;
    EXPECT_EQ(test::lineCount(r.output), 1u) << side << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "terrain.r32f")) << side << ": " << r.output;
  }
}

// The manifest as the hostile tester wrote it: tile files and checksums intact, but
// each listed tile's count (and the totals) edited down, so the budget would admit all of
// them. `understate` picks the tiles to edit.
void understateCounts(const std::string& dir, const std::function<bool(size_t)>& understate) {
  json m = readJson(dir + "/manifest.json");
  uint64_t total = 0;
  std::vector<uint64_t> totalSpecies(m["species"].size(), 0);
  for (size_t i = 0; i < m["tiles"].size(); ++i) {
    json& t = m["tiles"][i];
    if (understate(i)) {
      t["instances"] = 1;
      std::vector<uint64_t> counts(m["species"].size(), 0);
      counts[0] = 1;
      t["species_counts"] = counts;
    }
    total += t["instances"].get<uint64_t>();
    for (size_t s = 0; s < totalSpecies.size(); ++s) totalSpecies[s] += t["species_counts"][s].get<uint64_t>();
  }
  m["totals"]["instances"] = total;
  m["totals"]["species_counts"] = totalSpecies;
  writeJson(dir + "/manifest.json", m);
}

// Issue #13 item 12 with the real binary: every count understated, --budget 0.01 (10,000
// instances) on a 30,000-instance bake. Tiles must be refused as corrupt (one warning each),
// never admitted: nothing resident, no validation errors, and the run still succeeds.
TEST(EcoviewBake, UnderstatedTileCountsNeverExceedTheBudget) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  const std::string bake = dir.file("bake");  // the stats file may not go inside the bake
  writeSyntheticBake(bake, smallWorld(30000));
  understateCounts(bake, [](size_t) { return true; });
  const std::string stats = dir.file("stats.json");
  test::CommandResult r = test::runTool(
      "ecoview", bake + " --headless --size 64x64 --frames 1 --budget 0.01 --load-radius 5000 "
                 "--unload-radius 5000 --camera 512,260,1150,0,-25 --validation --stats " + stats,
      120);
  ASSERT_EQ(r.code, 0) << r.output;
  json s = readJson(stats);
  EXPECT_EQ(s["validation_errors"].get<int>(), 0);
  const json& f = s["frames"].back();
  EXPECT_LE(f["instances_resident"].get<uint64_t>(), 10000u);
  EXPECT_EQ(f["instances_resident"].get<uint64_t>(), 0u) << "every tile's count is wrong";
  EXPECT_EQ(f["tiles_resident"].get<int>(), 0);
  EXPECT_TRUE(contains(r.output, "skipped")) << r.output;
  EXPECT_TRUE(contains(r.output, "manifest says 1")) << r.output;
}

// The same on a real bake of tests/bake_world.h's ridge world (four species kinds, tiles as
// ecobake writes them), with Vulkan validation on.
TEST(EcoviewBake, UnderstatedCountsOnARealBakeNeverExceedTheBudget) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  const std::string bake = test::copyBake(dir);
  ASSERT_GT(readJson(bake + "/manifest.json")["totals"]["instances"].get<uint64_t>(), 10000u) << "budget must bind";
  understateCounts(bake, [](size_t) { return true; });
  const std::string stats = dir.file("stats.json");
  test::CommandResult r = test::runTool(
      "ecoview", bake + " --headless --size 64x64 --frames 1 --budget 0.01 --load-radius 5000 --unload-radius 5000 "
                        "--camera 512,1400,1300,0,-40 --validation --stats " + stats,
      120);
  ASSERT_EQ(r.code, 0) << r.output;
  json s = readJson(stats);
  EXPECT_EQ(s["validation_errors"].get<int>(), 0);
  EXPECT_EQ(s["frames"].back()["instances_resident"].get<uint64_t>(), 0u) << r.output;
  EXPECT_EQ(s["frames"].back()["tiles_resident"].get<int>(), 0);
}

// Only some tiles understated, ample budget: exactly the honest tiles become resident.
TEST(EcoviewBake, OnlyTilesWithVerifiedCountsBecomeResident) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  writeSyntheticBake(dir.path.string(), smallWorld(30000));
  const json before = readJson(dir.file("manifest.json"));
  uint64_t honest = 0;
  size_t honestTiles = 0;
  for (size_t i = 0; i < before["tiles"].size(); ++i)
    if (i % 3 != 0) honest += before["tiles"][i]["instances"].get<uint64_t>(), ++honestTiles;
  understateCounts(dir.path.string(), [](size_t i) { return i % 3 == 0; });
  render::Scene world = openBake(dir.path.string());
  ViewerOptions o;
  o.width = 64;
  o.height = 64;
  o.camera = camera(512, 260, 1150, 0, -25);
  o.renderer.stream.loadRadius = 5000;
  o.renderer.stream.unloadRadius = 5000;
  HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.frames.back().resident, honest);
  EXPECT_EQ(r.frames.back().tilesResident, honestTiles);
}

// A loader whose tiles hold more instances than their SceneTile claims (any Scene, not only
// a bake): the streamer must not admit them, so the resident count stays within the budget
// that sizes the cull shader's visible list.
TEST(RenderStreaming, TilesLargerThanClaimedAreNotAdmitted) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  render::Scene world = makeSyntheticScene(smallWorld(30000));  // ~1875 instances per tile
  uint64_t claimed = 0;
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    if (i % 2 == 0) world.tiles[i].instances = 1;  // even tiles claim 1, deliver ~1875
    else claimed += world.tiles[i].instances;
  }
  ViewerOptions o;
  o.width = 64;
  o.height = 64;
  o.validation = true;
  o.camera = camera(512, 260, 1150, 0, -25);
  o.renderer.stream.loadRadius = 5000;
  o.renderer.stream.unloadRadius = 5000;
  o.renderer.stream.budgetInstances = 20000;  // odd tiles: ~15,000; all claims: ~15,008; all real: 30,000
  HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);
  EXPECT_EQ(r.frames.back().resident, claimed);
  EXPECT_LE(r.frames.back().resident, o.renderer.stream.budgetInstances);
  EXPECT_EQ(r.frames.back().tested, r.frames.back().resident);
}

// More one-instance tiles than the pool has pages (on a device, one cull dispatch row each:
// 65535 on lavapipe, lowered here to keep the test short): the pool runs out long before the
// budget. Tiles that do not fit are turned away with a warning; before, the viewer died with
// "instance page pool exhausted".
TEST(RenderStreaming, ManyTinyTilesNeverExhaustThePagePool) {
  Context ctx;
  preferLavapipe();
  std::string why;
  ContextOptions options;
  options.validation = true;
  if (!createContext(ctx, options, &why)) GTEST_SKIP() << "no Vulkan device: " << why;
  render::Scene world = makeSyntheticScene(smallWorld(0));
  world.tiles.clear();
  for (int i = 0; i < 20; ++i) {
    SceneTile t;
    t.x = i;
    t.minX = float(i) * 10;
    t.maxX = t.minX + 10;
    t.maxZ = 10;
    t.instances = 1;
    world.tiles.push_back(t);
  }
  world.loadTile = [&world](size_t index) {
    Instance p;
    p.position = {world.tiles[index].minX + 5, 50, 5};
    p.scale = 1;
    return makeLoadedTile(index, {p}, world.species, {world.tiles[index].minX, 50, 0}, {world.tiles[index].maxX, 50, 10});
  };
  {
    RendererOptions ro;
    ro.width = 64;
    ro.height = 64;
    ro.stream.loadRadius = 5000;
    ro.stream.unloadRadius = 5000;
    ro.maxPages = 8;
    Renderer renderer(ctx, world, ro);
    Camera cam = camera(100, 300, 100, 0, -60);
    renderer.settleStreaming(cam);
    FrameStats f = renderer.render(cam, CullSettings{});
    EXPECT_EQ(f.resident, 8u);
    EXPECT_EQ(f.tilesResident, 8u);
    EXPECT_EQ(f.tested, 8u);
    EXPECT_EQ(renderer.residentTiles().size(), 8u);
  }
  EXPECT_EQ(ctx.validationErrors, 0);
  destroyContext(ctx);
}

// Issue #13 item 6: a FIFO as manifest.json, terrain.r32f or a tile must not hang the viewer
// (nobody writes to it; a blocking open would wait forever, the timeout reports 124).
TEST(EcoviewBake, FifosInTheBakeFolderDoNotHang) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  auto viewer = [](const test::TempDir& dir) {
    return test::runTool("ecoview", dir.path.string() + " --headless --size 64x64 --frames 1 --load-radius 5000 "
                                                        "--unload-radius 5000 --camera 512,260,1150,0,-25",
                         60);
  };
  for (const char* name : {"manifest.json", "terrain.r32f"}) {
    test::TempDir dir;
    writeSyntheticBake(dir.path.string(), smallWorld(3000));
    std::filesystem::remove(dir.file(name));
    ASSERT_EQ(mkfifo(dir.file(name).c_str(), 0600), 0);
    test::CommandResult r = viewer(dir);
    EXPECT_EQ(r.code, 2) << name << ": " << r.output;
    EXPECT_EQ(test::lineCount(r.output), 1u) << name << ": " << r.output;
    EXPECT_TRUE(contains(r.output, name)) << name << ": " << r.output;
  }
  // a tile: read on the streaming thread; skipped with a warning naming it, the rest shown
  test::TempDir dir;
  writeSyntheticBake(dir.path.string(), smallWorld(3000));
  const std::string tile = readJson(dir.file("manifest.json"))["tiles"][0]["file"].get<std::string>();
  std::filesystem::remove(dir.file(tile));
  ASSERT_EQ(mkfifo(dir.file(tile).c_str(), 0600), 0);
  test::CommandResult r = viewer(dir);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, tile)) << r.output;
  EXPECT_TRUE(contains(r.output, "tiles 15")) << r.output;
}

}  // namespace
