// The bake's raster layers (issue #20): the river's distance field always with a river, the
// eco-masks and suitability with BakeOptions::maskLayers, against values computed here
// independently (a straight river's distance by hand; the masks' own per-pixel functions),
// and the same bytes for any thread count and tile range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bake/bake.h"
#include "bake_world.h"
#include "masks/masks.h"
#include "test_support.h"
#include "tileio/tileio.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

std::string writeRiverWorld(const TempDir& dir, const std::string& riverExtra = "", const std::string& sun = "") {
  return eco::test::writeRiverRidgeWorld(dir, riverExtra, sun);
}

eco::BakeSummary bakeTo(const eco::World& world, const std::string& dir, int threads, bool masks,
                        std::optional<eco::TileRange> tiles = {}) {
  eco::BakeOptions o;
  o.outDir = dir;
  o.threads = threads;
  o.tiles = tiles;
  o.maskLayers = masks;
  return eco::bake(world, o);
}

const eco::LayerEntry& layerNamed(const eco::Manifest& m, const std::string& name) {
  auto it = std::find_if(m.layers.begin(), m.layers.end(), [&](const eco::LayerEntry& l) { return l.name == name; });
  if (it == m.layers.end()) throw std::runtime_error("no layer " + name);
  return *it;
}

// Decoded value of pixel (i, j).
struct Decoded {
  eco::LayerEntry entry;
  std::vector<uint8_t> bytes;
  uint32_t code(int i, int j) const { return eco::layerCode(entry, bytes, size_t(j) * size_t(entry.width) + size_t(i)); }
  float value(int i, int j) const { return eco::layerValue(entry, code(i, j)); }
  double halfStep() const {
    return (double(entry.valueMax) - double(entry.valueMin)) / eco::layerCodeMax(entry.encoding) / 2;
  }
};
Decoded read(const std::string& dir, const eco::Manifest& m, const std::string& name) {
  const eco::LayerEntry& e = layerNamed(m, name);
  return {e, eco::readLayerVerified(dir, e)};
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(BakeLayers, RiverLayerIsTheDistanceToTheRiverWithWaterOnItsPixels) {
  TempDir dir;
  eco::World world = eco::loadWorld(writeRiverWorld(dir));
  bakeTo(world, dir.file("out"), 2, false);
  eco::Manifest m = eco::readManifest(dir.file("out"));
  ASSERT_EQ(m.layers.size(), 1u);  // without maskLayers: the river only
  const Decoded river = read(dir.file("out"), m, "river_distance");
  EXPECT_EQ(river.entry.kind, "river");
  EXPECT_EQ(river.entry.unit, "m");
  EXPECT_EQ(river.entry.encoding, eco::LayerEncoding::Unorm16);
  EXPECT_EQ(river.entry.width, 257);
  EXPECT_EQ(river.entry.height, 257);
  EXPECT_EQ(river.entry.valueMin, 0.f);
  EXPECT_EQ(river.entry.valueMax, 624.f);  // the east edge, x = 1024 m, is the farthest point
  EXPECT_EQ(river.entry.waterDistance, 4.f);  // default: half a river image cell of 8 m
  for (int j = 0; j < 257; j += 16)
    for (int i = 0; i < 257; ++i) {
      const double truth = std::abs(i * 4.0 - 400.0);
      ASSERT_NEAR(river.value(i, j), truth, river.halfStep() + 1e-3) << i << "," << j;
      // The water rule: on the river's pixels (x = 400 m, heightmap column 100) and within
      // half a river cell of them; not farther.
      EXPECT_EQ(river.value(i, j) <= river.entry.waterDistance, truth <= 4.0) << i << "," << j;
    }
  EXPECT_EQ(river.code(100, 7), 0u);        // on the river
  EXPECT_EQ(river.code(256, 7), 65535u);    // the largest distance
  EXPECT_TRUE(fs::exists(dir.file("out/layers/river_distance.r16")));
  EXPECT_EQ(filesIn(dir.file("out/layers")), std::vector<std::string>{"river_distance.r16"});
}

TEST(BakeLayers, ChannelWidthSetsTheWaterRuleAndTheSunIsRecorded) {
  TempDir dir;
  eco::World world = eco::loadWorld(writeRiverWorld(dir, ", \"channel_width\": 30", R"({"azimuth_deg": 135, "elevation_deg": 25})"));
  bakeTo(world, dir.file("out"), 1, false);
  eco::Manifest m = eco::readManifest(dir.file("out"));
  EXPECT_EQ(layerNamed(m, "river_distance").waterDistance, 15.f);
  EXPECT_EQ(m.sunAzimuthDeg, 135.f);
  EXPECT_EQ(m.sunElevationDeg, 25.f);
}

TEST(BakeLayers, MaskLayersHoldTheMasksPerPixelValues) {
  TempDir dir;
  eco::World world = eco::loadWorld(writeRiverWorld(dir));
  bakeTo(world, dir.file("out"), 2, true);
  const std::string out = dir.file("out");
  eco::Manifest m = eco::readManifest(out);
  ASSERT_EQ(m.layers.size(), 1u + 5u + world.config.species.size());
  const Decoded elevation = read(out, m, "elevation"), slope = read(out, m, "slope"), aspect = read(out, m, "aspect"),
                sun = read(out, m, "sun_exposure"), moisture = read(out, m, "moisture");
  EXPECT_EQ(elevation.entry.unit, "m");
  EXPECT_EQ(slope.entry.unit, "deg");
  EXPECT_EQ(slope.entry.valueMax, 90.f);
  EXPECT_EQ(aspect.entry.valueMax, 360.f);
  EXPECT_EQ(sun.entry.valueMin, -1.f);
  EXPECT_EQ(moisture.entry.unit, "");
  std::vector<Decoded> suitability;
  for (const eco::SpeciesConfig& sp : world.config.species) {
    suitability.push_back(read(out, m, "suitability_" + sp.name));
    EXPECT_EQ(suitability.back().entry.species, sp.name);
    EXPECT_EQ(suitability.back().entry.kind, "suitability");
  }
  const float cell = world.terrain.cellSize;
  size_t nonZero = 0;
  for (int j = 0; j < 257; j += 3)
    for (int i = 0; i < 257; i += 5) {
      const float x = float(i) * cell, z = float(j) * cell;
      const eco::Environment env = eco::environmentAt(world, x, z);
      const eco::SurfaceSample s = eco::surfaceAt(world.terrain, x, z, world.sunDirXZ);
      const std::string at = std::to_string(i) + "," + std::to_string(j);
      ASSERT_NEAR(elevation.value(i, j), env.height, elevation.halfStep() * 1.0001) << at;
      ASSERT_NEAR(slope.value(i, j), env.slopeDeg, slope.halfStep() * 1.0001) << at;
      ASSERT_NEAR(aspect.value(i, j), s.aspectDeg, aspect.halfStep() * 1.0001) << at;
      ASSERT_NEAR(sun.value(i, j), env.sunExposure, sun.halfStep() * 1.0001) << at;
      ASSERT_NEAR(moisture.value(i, j), env.moisture, moisture.halfStep() * 1.0001) << at;
      for (size_t k = 0; k < suitability.size(); ++k) {
        const float truth = eco::speciesWeights(world.config.species[k], env).suitability;
        ASSERT_NEAR(suitability[k].value(i, j), truth, suitability[k].halfStep() * 1.0001) << at << " species " << k;
        if (truth == 0.f) {
          EXPECT_EQ(suitability[k].code(i, j), 0u) << at;  // nothing grows: exactly 0
        }
        nonZero += truth > 0.f;
      }
    }
  EXPECT_GT(nonZero, 1000u);
  // The elevation range is the terrain's: its lowest and highest pixels are codes 0 and 255.
  const auto& h = world.terrain.metres.values;
  const size_t low = size_t(std::min_element(h.begin(), h.end()) - h.begin());
  const size_t high = size_t(std::max_element(h.begin(), h.end()) - h.begin());
  EXPECT_EQ(elevation.entry.valueMin, h[low]);
  EXPECT_EQ(elevation.entry.valueMax, h[high]);
  EXPECT_EQ(elevation.code(int(low % 257), int(low / 257)), 0u);
  EXPECT_EQ(elevation.code(int(high % 257), int(high / 257)), 255u);
}

TEST(BakeLayers, SameBytesForAnyThreadCountAndTileRange) {
  TempDir dir;
  eco::World world = eco::loadWorld(writeRiverWorld(dir));
  bakeTo(world, dir.file("one"), 1, true);
  bakeTo(world, dir.file("three"), 3, true);
  bakeTo(world, dir.file("part"), 2, true, eco::TileRange{2, 3, 4, 5});
  const std::vector<std::string> files = filesIn(dir.file("one"));
  ASSERT_EQ(files, filesIn(dir.file("three")));
  for (const std::string& f : files)
    EXPECT_EQ(eco::test::readBytes(dir.file("one/" + f)), eco::test::readBytes(dir.file("three/" + f))) << f;
  // A partial bake has fewer tiles but the same layers, listed the same way.
  const std::vector<std::string> layers = filesIn(dir.file("one/layers"));
  EXPECT_EQ(layers.size(), 10u);
  EXPECT_EQ(layers, filesIn(dir.file("part/layers")));
  for (const std::string& f : layers)
    EXPECT_EQ(eco::test::readBytes(dir.file("one/layers/" + f)), eco::test::readBytes(dir.file("part/layers/" + f))) << f;
  nlohmann::json full = nlohmann::json::parse(eco::test::readBytes(dir.file("one/manifest.json")));
  nlohmann::json part = nlohmann::json::parse(eco::test::readBytes(dir.file("part/manifest.json")));
  EXPECT_EQ(full["layers"], part["layers"]);
}

TEST(BakeLayers, WithoutRiverOrFlagNoLayerAndNoNewManifestKey) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  bakeTo(world, dir.file("out"), 2, false);
  EXPECT_FALSE(fs::exists(dir.file("out/layers")));
  const std::string text = eco::test::readBytes(dir.file("out/manifest.json"));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  EXPECT_FALSE(j.contains("layers"));
  EXPECT_FALSE(j.contains("sun"));
  // The keys and their order as before layers existed (the format's golden test pins the text).
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "format_version", "tool_version", "name", "seed", "world", "terrain",
                                            "tiling", "species", "tiles", "hashes", "totals"}));
  // The flag without a river: the masks only.
  bakeTo(world, dir.file("masks"), 2, true);
  eco::Manifest m = eco::readManifest(dir.file("masks"));
  EXPECT_EQ(m.layers.size(), 5u + 4u);
  EXPECT_EQ(m.layers[0].name, "elevation");
}
