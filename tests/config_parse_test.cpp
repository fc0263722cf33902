// parseBiomeConfig / checkBiomeInputs / loadBiomeConfig behaviour beyond the fixture corpus:
// defaults, conversions, path resolution, problem collection and messages.
#include <gtest/gtest.h>

#include <array>

#include <cmath>

#include <filesystem>

#include "bake/bake.h"
#include "config/config.h"
#include "core/json.h"
#include "core/error.h"
#include "terrain/png16.h"
#include "test_support.h"
#include "tiff_fixture.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

const char* kMinimal = R"({
  "name": "meadow",
  "terrain": { "heightmap": "height.png", "cell_size": 2, "min_elevation": 200, "max_elevation": 2800 },
  "species": [
    { "name": "grass", "kind": "grass", "radius": 0.8,
      "elevation": { "min": 0, "opt_low": 100, "opt_high": 900, "max": 1000 } }
  ]
})";

std::string writeConfig(const TempDir& dir, const std::string& text, const std::string& name = "biome.json") {
  std::string path = dir.file(name);
  fs::create_directories(fs::path(path).parent_path());
  eco::test::writeBytes(path, text);
  return path;
}

void writeGray(const std::string& path, int w, int h) {
  std::vector<uint16_t> pixels(size_t(w) * size_t(h), 1000);
  eco::writePng16(path, w, h, pixels.data());
}

// kMinimal with `from` replaced by `to` (which must occur).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kMinimal;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::vector<eco::ConfigProblem> parseProblems(const std::string& text) {
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  eco::parseBiomeConfig(writeConfig(dir, text), problems);
  return problems;
}

TEST(ConfigParse, MinimalConfigGetsDefaults) {
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  eco::BiomeConfig c = eco::parseBiomeConfig(writeConfig(dir, kMinimal), problems);
  ASSERT_TRUE(problems.empty()) << problems[0].path << ": " << problems[0].reason;
  EXPECT_EQ(c.name, "meadow");
  EXPECT_FLOAT_EQ(c.terrain.mapping.cellSize, 2);
  EXPECT_FLOAT_EQ(c.terrain.mapping.heightScale, 2600);  // 0..1 maps to 200..2800
  EXPECT_FLOAT_EQ(c.terrain.mapping.heightOffset, 200);
  EXPECT_TRUE(c.river.file.empty());
  EXPECT_FLOAT_EQ(c.sunAzimuthDeg, 180);
  EXPECT_FLOAT_EQ(c.tileSize, 128);
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.candidates, 30);
  EXPECT_EQ(c.densityMode, eco::DensityMode::VariableRadius);
  EXPECT_EQ(c.samplingMethod, eco::SamplingMethod::Pool);
  ASSERT_EQ(c.species.size(), 1u);
  const eco::SpeciesConfig& s = c.species[0];
  EXPECT_EQ(s.kind, eco::SpeciesKind::Grass);
  EXPECT_EQ(s.layer, 2);               // kind index
  EXPECT_FLOAT_EQ(s.footprint, 0.2f);  // radius / 4
  EXPECT_FLOAT_EQ(s.maxRadiusFactor, 4);
  EXPECT_FLOAT_EQ(s.elevation.optHigh, 900);
  EXPECT_FLOAT_EQ(s.maxSlopeDeg, 45);
  EXPECT_FLOAT_EQ(s.density, 1);
  // no colour: a meadow grass's green, not white (the bake's records carry it)
  EXPECT_FALSE(s.colorGiven);
  EXPECT_GT(s.color[1], s.color[0]);
  EXPECT_GT(s.color[1], s.color[2]);
  EXPECT_LT(s.color[1], 0.6f);
}

// A species without a colour takes its kind's, each a green darker than white by far and
// distinct per kind; a given colour is kept as given.
TEST(ConfigParse, ColourDefaultsToTheKindsAndAGivenOneIsKept) {
  std::vector<std::array<float, 3>> seen;
  for (const char* kind : {"tree", "shrub", "grass", "ground_cover"}) {
    TempDir dir;
    std::vector<eco::ConfigProblem> problems;
    const eco::BiomeConfig c = eco::parseBiomeConfig(writeConfig(dir, edited("\"kind\": \"grass\"", std::string("\"kind\": \"") + kind + "\"")), problems);
    ASSERT_TRUE(problems.empty()) << kind << ": " << problems[0].reason;
    const eco::SpeciesConfig& s = c.species[0];
    EXPECT_FALSE(s.colorGiven) << kind;
    EXPECT_GT(s.color[1], s.color[0]) << kind;  // green dominates
    EXPECT_GT(s.color[1], s.color[2]) << kind;
    EXPECT_LT(s.color[0] + s.color[1] + s.color[2], 1.2f) << kind;  // a foliage, not white
    seen.push_back({s.color[0], s.color[1], s.color[2]});
  }
  for (size_t i = 0; i < seen.size(); ++i)
    for (size_t j = i + 1; j < seen.size(); ++j) EXPECT_NE(seen[i], seen[j]) << i << " " << j;
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  const eco::BiomeConfig c = eco::parseBiomeConfig(writeConfig(dir, edited("\"radius\": 0.8,", "\"radius\": 0.8, \"color\": [1, 1, 1],")), problems);
  ASSERT_TRUE(problems.empty()) << problems[0].reason;
  EXPECT_TRUE(c.species[0].colorGiven);
  EXPECT_EQ(c.species[0].color[0], 1.f);
  EXPECT_EQ(c.species[0].color[1], 1.f);
  EXPECT_EQ(c.species[0].color[2], 1.f);
}

TEST(ConfigParse, ReadsEveryOptionalField) {
  std::string text = R"({
    "name": "all",
    "terrain": { "heightmap": "h.r32f", "raw_width": 64, "raw_height": 32, "cell_size": 1.5,
                 "height_scale": 1, "height_offset": -10 },
    "river": { "mask": "rivers.PNG" },
    "sun": { "azimuth_deg": 200 },
    "moisture": { "river_falloff": 90, "river_weight": 0.25, "noise_wavelength": 400, "noise_octaves": 5 },
    "tiling": { "tile_size": 96 },
    "seed": 12345678901234,
    "sampling": { "candidates": 12, "density_mode": "roulette", "method": "bridson" },
    "species": [
      { "name": "pine", "kind": "tree", "layer": 7, "radius": 5, "max_radius_factor": 2, "footprint": 1.25,
        "elevation": { "min": 10, "opt_low": 20, "opt_high": 30, "max": 40 },
        "slope": { "max_deg": 35, "falloff_deg": 5 }, "sun_preference": -0.5,
        "moisture": { "optimum": 0.7, "tolerance": 0.2 }, "density": 0.4,
        "scale": { "min": 0.5, "max": 2 }, "color": [0.1, 0.2, 0.3], "color_variation": 0.3,
        "mesh": { "height": 12, "crown_radius": 2.5 }, "max_tilt_deg": 20 }
    ],
    "exclusions": [ { "a": "pine", "b": "pine2", "distance": 6 } ]
  })";
  // exclusions need two species: append a second one
  text.replace(text.find("\n    ],"), 0, R"(,
      { "name": "pine2", "kind": "shrub", "radius": 1, "elevation": { "min": 0, "opt_low": 0, "opt_high": 1, "max": 1 } })");
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  eco::BiomeConfig c = eco::parseBiomeConfig(writeConfig(dir, text), problems);
  ASSERT_TRUE(problems.empty()) << problems[0].path << ": " << problems[0].reason;
  EXPECT_EQ(c.terrain.rawWidth, 64);
  EXPECT_EQ(c.terrain.rawHeight, 32);
  EXPECT_FLOAT_EQ(c.terrain.mapping.heightOffset, -10);
  EXPECT_EQ(c.river.source, eco::RiverSource::Mask);
  EXPECT_EQ(c.river.file, dir.file("rivers.PNG"));
  EXPECT_FLOAT_EQ(c.sunAzimuthDeg, 200);
  EXPECT_FLOAT_EQ(c.moisture.riverWeight, 0.25f);
  EXPECT_EQ(c.moisture.noiseOctaves, 5);
  EXPECT_FLOAT_EQ(c.tileSize, 96);
  EXPECT_EQ(c.seed, 12345678901234u);
  EXPECT_EQ(c.candidates, 12);
  EXPECT_EQ(c.densityMode, eco::DensityMode::Roulette);
  EXPECT_EQ(c.samplingMethod, eco::SamplingMethod::Bridson);
  const eco::SpeciesConfig& s = c.species[0];
  EXPECT_EQ(s.layer, 7);
  EXPECT_EQ(c.species[1].layer, 1);
  EXPECT_FLOAT_EQ(s.footprint, 1.25f);
  EXPECT_FLOAT_EQ(s.slopeFalloffDeg, 5);
  EXPECT_FLOAT_EQ(s.moistureTolerance, 0.2f);
  EXPECT_FLOAT_EQ(s.scaleMax, 2);
  EXPECT_FLOAT_EQ(s.color[2], 0.3f);
  EXPECT_FLOAT_EQ(s.crownRadius, 2.5f);
  EXPECT_FLOAT_EQ(s.maxTiltDeg, 20);
  ASSERT_EQ(c.exclusions.size(), 1u);
  EXPECT_FLOAT_EQ(c.exclusions[0].distance, 6);
  // roulette: a class spaces at its radius (5); the pine/pine2 exclusion (6) is the widest
  EXPECT_FLOAT_EQ(eco::minTileSize(eco::samplerParams(c, 100, 100, eco::speciesOrder(c))), 6);
}

TEST(ConfigParse, PathsResolveAgainstTheConfigFolder) {
  TempDir dir;
  std::string config = writeConfig(dir, edited("\"height.png\"", "\"../maps/./height.png\""), "biomes/biome.json");
  std::vector<eco::ConfigProblem> problems;
  eco::BiomeConfig c = eco::parseBiomeConfig(config, problems);
  ASSERT_TRUE(problems.empty());
  EXPECT_EQ(c.terrain.heightmap, (dir.path / "maps" / "height.png").string());

  std::string absolute = (dir.path / "abs.png").string();
  c = eco::parseBiomeConfig(writeConfig(dir, edited("height.png", absolute), "other/biome.json"), problems);
  ASSERT_TRUE(problems.empty());
  EXPECT_EQ(c.terrain.heightmap, absolute);
}

TEST(ConfigParse, CollectsEveryProblemInOnePass) {
  std::string text = kMinimal;
  text.replace(text.find("\"cell_size\": 2"), 14, "\"cell_size\": -2");
  text.replace(text.find("\"radius\": 0.8"), 13, "\"raduis\": 0.8");
  text.replace(text.find("\"max\": 1000"), 11, "\"max\": \"high\"");
  text.replace(text.find("\"name\": \"meadow\""), 16, "\"name\": \"meadow\", \"seed\": true");
  std::vector<eco::ConfigProblem> problems = parseProblems(text);
  std::vector<std::string> paths;
  for (const auto& p : problems) paths.push_back(p.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/terrain/cell_size", "/seed", "/species/0/radius",
                                             "/species/0/elevation/max", "/species/0/raduis"}));
  EXPECT_EQ(problems[0].reason, "must be in [0.001, 10000], got -2");
  EXPECT_EQ(problems[1].reason, "expected an integer, got a boolean");
  EXPECT_EQ(problems[2].reason, "required field is missing");
  EXPECT_EQ(problems[3].reason, "expected a number, got a string");
  EXPECT_EQ(problems[4].reason, "unknown key 'raduis' (did you mean 'radius'?)");
}

TEST(ConfigParse, UnknownKeysSuggestOnlyCloseNames) {
  std::vector<eco::ConfigProblem> problems = parseProblems(edited("\"cell_size\"", "\"zzz\": 1, \"cell_size\""));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].reason, "unknown key 'zzz'");
  problems = parseProblems(edited("\"name\": \"meadow\"", "\"name\": \"meadow\", \"a/b~c\": 1"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "/a~1b~0c");  // JSON pointer escaping
  EXPECT_EQ(eco::editDistance("tile_size", "tile_sise"), 1u);
  EXPECT_EQ(eco::editDistance("", "abc"), 3u);
  EXPECT_EQ(eco::editDistance("kitten", "sitting"), 3u);
}

TEST(ConfigParse, InvalidJsonReportsLineAndColumn) {
  std::vector<eco::ConfigProblem> problems = parseProblems("{\n  \"name\": \"x\",\n  \"seed\": 3 4\n}\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "");
  EXPECT_EQ(problems[0].reason.rfind("invalid JSON at line 3, column 13: syntax error", 0), 0u) << problems[0].reason;
  problems = parseProblems("");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].reason.find("line 1, column 1"), std::string::npos) << problems[0].reason;
}

TEST(ConfigParse, UnreadableConfigFile) {
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  eco::parseBiomeConfig(dir.file("missing.json"), problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].reason, "config file not found");
  problems.clear();
  eco::parseBiomeConfig(dir.path.string(), problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].reason.find("expected a regular file"), std::string::npos) << problems[0].reason;
}

TEST(ConfigParse, FormatProblemIsOneLine) {
  EXPECT_EQ(eco::formatProblem("a.json", {"/species/1/radius", "must be > 0, got 0"}),
            "a.json: /species/1/radius: must be > 0, got 0");
  EXPECT_EQ(eco::formatProblem("a.json", {"", "config file not found"}), "a.json: config file not found");
  EXPECT_EQ(eco::formatProblem("a.json", {"/x", "two\nlines"}), "a.json: /x: two\\x0alines");
}

TEST(ConfigLoad, ThrowsInputErrorWithTheFirstProblem) {
  TempDir dir;
  writeGray(dir.file("height.png"), 9, 9);
  std::string config = writeConfig(dir, edited("\"radius\": 0.8", "\"radius\": -1"));
  try {
    eco::loadBiomeConfig(config);
    FAIL() << "no exception";
  } catch (const eco::InputError& e) {
    EXPECT_EQ(std::string(e.what()), config + ": /species/0/radius: must be in [0.001, 100000], got -1");
  }
  config = writeConfig(dir, edited("height.png", "missing.png"));
  EXPECT_THROW(eco::loadBiomeConfig(config), eco::InputError);
}

TEST(ConfigLoad, AcceptsAGoodConfigWithItsImages) {
  TempDir dir;
  writeGray(dir.file("height.png"), 9, 9);
  writeGray(dir.file("river.png"), 5, 5);
  std::string config = writeConfig(
      dir, edited("\"species\"", "\"river\": { \"distance\": \"river.png\", \"distance_scale\": 100 }, \"species\""));
  eco::BiomeConfig c = eco::loadBiomeConfig(config);
  EXPECT_EQ(c.river.file, dir.file("river.png"));
  EXPECT_FLOAT_EQ(c.river.distanceScale, 100);
  EXPECT_EQ(c.configPath, config);
}

// A river distance field may be a (Geo)TIFF like every other raster input (issue #30: it
// was refused as an unsupported format while the README listed it): a float TIFF of distances.
TEST(ConfigInputs, RiverDistanceFromAFloatTiff) {
  TempDir dir;
  writeGray(dir.file("height.png"), 9, 9);
  eco::test::TiffSpec spec;
  spec.width = spec.height = 5;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  std::vector<float> distance(25);
  for (size_t i = 0; i < distance.size(); ++i) distance[i] = float(i % 5) * 12.5f;
  eco::test::writeTiff(dir.file("river.tif"), spec, distance.data());
  std::string config = writeConfig(
      dir, edited("\"species\"", "\"river\": { \"distance\": \"river.tif\", \"distance_scale\": 1 }, \"species\""));
  std::vector<eco::ConfigProblem> problems;
  eco::BiomeConfig c = eco::parseBiomeConfig(config, problems);
  eco::checkBiomeInputs(c, problems);
  for (const eco::ConfigProblem& p : problems) ADD_FAILURE() << p.path << ": " << p.reason;
  EXPECT_EQ(c.river.file, dir.file("river.tif"));
  const eco::World world = eco::loadWorld(config);
  EXPECT_TRUE(world.inWater(0.1f, 0.1f)) << "distance 0 at the first column";
}

// The river image spans the heightmap's rectangle; its aspect may be off by less than half a
// heightmap cell (rounding when it was resampled), not more.
TEST(ConfigInputs, RiverExtentToleratesHalfACell) {
  auto riverProblems = [](int hw, int hh, int rw, int rh) {
    TempDir dir;
    writeGray(dir.file("height.png"), hw, hh);
    writeGray(dir.file("river.png"), rw, rh);
    std::string config = writeConfig(
        dir, edited("\"species\"", "\"river\": { \"distance\": \"river.png\", \"distance_scale\": 1 }, \"species\""));
    std::vector<eco::ConfigProblem> problems;
    eco::BiomeConfig c = eco::parseBiomeConfig(config, problems);
    eco::checkBiomeInputs(c, problems);
    return problems;
  };
  EXPECT_TRUE(riverProblems(17, 13, 9, 7).empty());  // spans 16x12 and 8x6: exact
  EXPECT_TRUE(riverProblems(11, 8, 4, 3).empty());   // 10x7 vs 3x2 -> 10 x 6.67: 0.33 cell off
  std::vector<eco::ConfigProblem> problems = riverProblems(11, 8, 4, 4);  // 10 x 10 vs 10 x 7
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "/river/distance");
  EXPECT_EQ(riverProblems(17, 13, 9, 8).size(), 1u);  // 8x7 -> 16 x 14 vs 16 x 12
}

TEST(ConfigInputs, RawHeightmapSizeChecked) {
  TempDir dir;
  eco::test::writeBytes(dir.file("h.r32f"), std::string(6 * 5 * 4, '\0'));
  std::string text = edited("\"heightmap\": \"height.png\"", "\"heightmap\": \"h.r32f\", \"raw_width\": 6, \"raw_height\": 5");
  std::vector<eco::ConfigProblem> problems;
  eco::BiomeConfig c = eco::parseBiomeConfig(writeConfig(dir, text), problems);
  eco::checkBiomeInputs(c, problems);
  EXPECT_TRUE(problems.empty());
  c.terrain.rawWidth = 5;
  eco::checkBiomeInputs(c, problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "/terrain/heightmap");
}

float minTile(const eco::BiomeConfig& c) {
  return eco::minTileSize(eco::samplerParams(c, 1000, 1000, eco::speciesOrder(c)));
}

TEST(ConfigParse, TileRuleCoversRadiiFootprintsAndExclusions) {
  eco::BiomeConfig c;
  c.species.resize(2);
  c.species[0].name = "a";
  c.species[0].radius = 2;
  c.species[0].maxRadiusFactor = 3;
  c.species[0].footprint = 0.5f;
  c.species[1].name = "b";  // radius 1 * factor 4, footprint 0
  EXPECT_FLOAT_EQ(minTile(c), 6);
  c.species[1].footprint = 7;
  EXPECT_FLOAT_EQ(minTile(c), 7.5f);  // footprint sum 0.5 + 7
  c.exclusions.push_back({"a", "b", 3});  // an override replaces the sum, smaller or not
  EXPECT_FLOAT_EQ(minTile(c), 6);
  c.exclusions.push_back({"b", "a", 20});  // the first override of a pair wins
  EXPECT_FLOAT_EQ(minTile(c), 6);
  c.exclusions.front().distance = 12;
  EXPECT_FLOAT_EQ(minTile(c), 12);
  c.densityMode = eco::DensityMode::Roulette;  // the spacing is the radius alone
  c.exclusions.clear();
  c.species[1].footprint = 0;
  EXPECT_FLOAT_EQ(minTile(c), 2);
  EXPECT_STREQ(eco::speciesKindName(eco::SpeciesKind::GroundCover), "ground_cover");
  EXPECT_EQ(eco::speciesKindFromName("shrub"), eco::SpeciesKind::Shrub);
  EXPECT_FALSE(eco::speciesKindFromName("Shrub").has_value());
}

// The config check and the sampler apply the same rule at the same threshold: a tile as wide
// as the rule passes both, a hair narrower fails both, the config naming the field.
TEST(ConfigParse, TileRuleSharedWithSampler) {
  for (float tile : {12.f, std::nextafter(12.f, 0.f)}) {
    const std::string text = edited("\"species\"", "\"tiling\": { \"tile_size\": " + eco::describeNumber(double(tile)) +
                                                       " }, \"species\"");
    std::string exact = text;
    // describeNumber prints 6 digits; write the float exactly.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(tile));
    exact.replace(exact.find(eco::describeNumber(double(tile)) + " }"), eco::describeNumber(double(tile)).size(), buf);
    // grass: radius 3 * factor 4 = 12 (the packed pattern: spacing exactly radius)
    exact.replace(exact.find("\"radius\": 0.8"), 13, "\"radius\": 3, \"pattern\": {\"style\": \"packed\"}");
    std::vector<eco::ConfigProblem> problems = parseProblems(exact);
    eco::SamplerParams p;
    p.worldX = p.worldZ = 100;
    p.tileSize = tile;
    p.classes = {{3.f, 12.f}};
    if (tile == 12.f) {
      EXPECT_TRUE(problems.empty()) << problems[0].path << ": " << problems[0].reason;
      EXPECT_NO_THROW(eco::validateSamplerParams(p));
    } else {
      ASSERT_EQ(problems.size(), 1u);
      EXPECT_EQ(problems[0].path, "/tiling/tile_size");
      EXPECT_NE(problems[0].reason.find("/species/0"), std::string::npos) << problems[0].reason;
      EXPECT_THROW(eco::validateSamplerParams(p), eco::InputError);
    }
  }
}

}  // namespace

// A hostile tester's configs that parsed with exit 0: text after a NUL byte was ignored, and a
// second "seed" silently replaced the first.
TEST(ConfigParse, NulBytesAndDuplicateKeysAreProblems) {
  std::string withNul = std::string(kMinimal) + std::string("\0{\"garbage\"", 11);
  std::vector<eco::ConfigProblem> problems = parseProblems(withNul);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].reason.rfind("byte " + std::to_string(std::string(kMinimal).size()) + " is a NUL byte", 0), 0u)
      << problems[0].reason;

  problems = parseProblems(edited(R"("name": "meadow",)", R"("name": "meadow", "seed": 1, "seed": 2,)"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "/seed");
  EXPECT_NE(problems[0].reason.find("duplicate key"), std::string::npos);

  // Nested and inside arrays, with the pointer of the repeated key; the same key in two
  // different objects is fine.
  problems = parseProblems(edited(R"("radius": 0.8,)", R"("radius": 0.8, "radius": 0.9, "density": 1,)"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "/species/0/radius");
  EXPECT_TRUE(parseProblems(kMinimal).empty());
}

// `ground`: a preset, then colours and the snow line over it; absent: the temperate preset, no
// snow, and nothing for the manifest. Every bad value named by its pointer.
TEST(ConfigParse, GroundPaletteFromPresetAndOverrides) {
  TempDir dir;
  std::vector<eco::ConfigProblem> problems;
  const eco::BiomeConfig plain = eco::parseBiomeConfig(writeConfig(dir, kMinimal), problems);
  ASSERT_TRUE(problems.empty());
  EXPECT_FALSE(plain.ground.has_value());

  const std::string text = edited(R"("name": "meadow",)",
                                  R"("name": "meadow", "ground": { "preset": "arid", "rock": [0.5, 0.25, 0.125], "snowline": 2450 },)");
  const eco::BiomeConfig arid = eco::parseBiomeConfig(writeConfig(dir, text), problems);
  ASSERT_TRUE(problems.empty()) << problems[0].path << ": " << problems[0].reason;
  ASSERT_TRUE(arid.ground.has_value());
  EXPECT_FLOAT_EQ(arid.ground->color[eco::kGroundSoil][0], 0.45f);  // the arid preset's soil, restated
  EXPECT_FLOAT_EQ(arid.ground->color[eco::kGroundSoil][2], 0.22f);
  EXPECT_FLOAT_EQ(arid.ground->color[eco::kGroundRock][0], 0.5f);
  EXPECT_FLOAT_EQ(arid.ground->color[eco::kGroundRock][2], 0.125f);
  EXPECT_FLOAT_EQ(arid.ground->snowline, 2450.f);
  // A ground with only a snow line: the temperate preset's colours, no snow line without one.
  const eco::BiomeConfig snowy = eco::parseBiomeConfig(
      writeConfig(dir, edited(R"("name": "meadow",)", R"("name": "meadow", "ground": { "snowline": 900 },)")), problems);
  ASSERT_TRUE(problems.empty());
  ASSERT_TRUE(snowy.ground.has_value());
  EXPECT_FLOAT_EQ(snowy.ground->color[eco::kGroundGrass][1], 0.21f);
  const eco::BiomeConfig bare = eco::parseBiomeConfig(
      writeConfig(dir, edited(R"("name": "meadow",)", R"("name": "meadow", "ground": {},)")), problems);
  ASSERT_TRUE(problems.empty());
  ASSERT_TRUE(bare.ground.has_value());
  EXPECT_TRUE(std::isinf(bare.ground->snowline));

  auto firstProblem = [&](const std::string& ground) {
    const auto p = parseProblems(edited(R"("name": "meadow",)", R"("name": "meadow", "ground": )" + ground + ","));
    return p.empty() ? std::string("(none)") : p[0].path + ": " + p[0].reason;
  };
  EXPECT_NE(firstProblem(R"({ "preset": "tundra" })").find("/ground/preset"), std::string::npos);
  EXPECT_NE(firstProblem(R"({ "soil": [0.2, 1.5, 0.1] })").find("/ground/soil/1: must be in [0, 1]"), std::string::npos);
  EXPECT_NE(firstProblem(R"({ "grass": [0.2, 0.3] })").find("/ground/grass: expected 3 numbers"), std::string::npos);
  EXPECT_NE(firstProblem(R"({ "snow": "white" })").find("/ground/snow"), std::string::npos);
  EXPECT_NE(firstProblem(R"({ "snowline": 1e9 })").find("/ground/snowline"), std::string::npos);
  EXPECT_NE(firstProblem(R"({ "snowlin": 100 })").find("/ground/snowlin"), std::string::npos);
  EXPECT_NE(firstProblem(R"([1, 2])").find("/ground"), std::string::npos);
}
