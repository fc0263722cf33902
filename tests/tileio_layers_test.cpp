// Raster layers in the manifest (issue #20): the documented fields, the quantisation, the
// verified read, and manifests that lie about them.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/hash.h"
#include "test_support.h"
#include "tileio/tileio.h"

using namespace eco;

namespace {

// A 3 x 2 world with one species, a river layer (unorm16) and a suitability layer (unorm8).
Manifest layeredManifest() {
  Manifest m;
  m.name = "layered";
  m.world = {12, 6, 200, 2800};
  m.terrain = {"terrain.r32f", 3, 2, 6};
  m.tiling = {128, 1, 1};
  SpeciesRecord pine;
  pine.name = "pine";
  m.species = {pine};
  m.hashes = {"00000000000000aa", "00000000000000bb", "00000000000000cc"};
  LayerEntry river;
  river.name = "river_distance";
  river.kind = "river";
  river.file = "layers/river_distance.r16";
  river.width = 3;
  river.height = 2;
  river.encoding = LayerEncoding::Unorm16;
  river.valueMin = 0;
  river.valueMax = 500;
  river.unit = "m";
  river.waterDistance = 6;
  LayerEntry pineLayer = river;
  pineLayer.name = "suitability_pine";
  pineLayer.kind = "suitability";
  pineLayer.species = "pine";
  pineLayer.file = "layers/suitability_0.r8";
  pineLayer.encoding = LayerEncoding::Unorm8;
  pineLayer.valueMax = 1;
  pineLayer.unit = "";
  pineLayer.waterDistance = -1;
  m.layers = {river, pineLayer};
  computeTotals(m);
  return m;
}

const std::vector<float> kRiver = {0, 250, 500, 1000, 3.5f, -2};  // 1000 and -2 clamp
const std::vector<float> kPine = {0, 1, 0.5f, 0.25f, 2, NAN};

// Writes the manifest, terrain and both layer files (checksums filled in) into dir.
Manifest writeLayered(const test::TempDir& dir) {
  Manifest m = layeredManifest();
  std::filesystem::create_directories(dir.path / "layers");
  for (auto [layer, values] : {std::pair{&m.layers[0], &kRiver}, std::pair{&m.layers[1], &kPine}}) {
    std::vector<uint8_t> bytes = encodeLayer(*layer, *values);
    layer->checksum = checksum64(bytes);
    test::writeBytes(dir.file(layer->file), std::string(bytes.begin(), bytes.end()));
  }
  writeManifest(dir.path.string(), m);
  test::writeBytes(dir.file("terrain.r32f"), std::string(24, '\0'));
  return m;
}

std::string readError(const std::string& dir) {
  try {
    Manifest m = readManifest(dir);
    for (const LayerEntry& l : m.layers) readLayerVerified(dir, l);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The manifest `good` edited by `edit`, written into `dir`, must be refused with one line
// containing `expected`.
void expectRefused(const test::TempDir& dir, const std::string& good,
                   const std::function<void(nlohmann::ordered_json&)>& edit, const std::string& expected) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(good);
  edit(j);
  test::writeBytes(dir.file("manifest.json"), j.dump(2));
  const std::string error = readError(dir.path.string());
  EXPECT_NE(error.find(expected), std::string::npos) << expected << " -> " << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

}  // namespace

TEST(Layers, RoundTripWithTheDocumentedFieldsAndCodes) {
  test::TempDir dir;
  const Manifest written = writeLayered(dir);
  Manifest m = readManifest(dir.path.string());
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0].name, "river_distance");
  EXPECT_EQ(m.layers[0].encoding, LayerEncoding::Unorm16);
  EXPECT_EQ(m.layers[0].waterDistance, 6.f);
  EXPECT_EQ(m.layers[1].species, "pine");
  EXPECT_EQ(m.layers[1].waterDistance, -1.f);
  EXPECT_EQ(m.layers[1].checksum, written.layers[1].checksum);

  nlohmann::json j = nlohmann::json::parse(test::readBytes(dir.file("manifest.json")));
  EXPECT_EQ(j["layers"][0]["encoding"], "unorm16");
  EXPECT_EQ(j["layers"][0]["unit"], "m");
  EXPECT_EQ(j["layers"][0]["value_max"], 500);
  EXPECT_EQ(j["layers"][0]["water_distance"], 6);
  EXPECT_FALSE(j["layers"][1].contains("water_distance"));
  EXPECT_EQ(j["layers"][1]["species"], "pine");
  EXPECT_EQ(j["layers"][1]["xxh3_64"], hex64(written.layers[1].checksum));
  EXPECT_FALSE(j.contains("sun"));  // the default sun is not written

  // Codes by hand: the range's ends are codes 0 and codeMax, values outside clamp, NaN is 0,
  // little-endian 16-bit; 250 m of 500 is 32767.5, rounded half up.
  const std::vector<uint8_t> river = readLayerVerified(dir.path.string(), m.layers[0]);
  ASSERT_EQ(river.size(), 12u);
  const std::vector<uint32_t> riverCodes = {0, 32768, 65535, 65535, 459, 0};  // 3.5 / 500 * 65535 = 458.7
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(layerCode(m.layers[0], river, i), riverCodes[i]) << i;
  EXPECT_EQ(river[2], 0x00);
  EXPECT_EQ(river[3], 0x80);  // 32768 = 0x8000, low byte first
  const std::vector<uint8_t> pine = readLayerVerified(dir.path.string(), m.layers[1]);
  EXPECT_EQ(pine, (std::vector<uint8_t>{0, 255, 128, 64, 255, 0}));
  // Decoded values lie within half a step of what was written (inside the range).
  for (size_t i : {0u, 1u, 2u, 4u})
    EXPECT_NEAR(layerValue(m.layers[0], layerCode(m.layers[0], river, i)), kRiver[i], 500.0 / 65535 / 2 + 1e-4) << i;
  EXPECT_EQ(layerValue(m.layers[1], 255), 1.f);
  EXPECT_EQ(layerValue(m.layers[1], 0), 0.f);
}

TEST(Layers, SunIsWrittenOnlyWhenNotTheDefault) {
  test::TempDir dir;
  Manifest m = layeredManifest();
  m.layers.clear();
  m.sunAzimuthDeg = 135;
  writeManifest(dir.path.string(), m);
  test::writeBytes(dir.file("terrain.r32f"), std::string(24, '\0'));
  nlohmann::json j = nlohmann::json::parse(test::readBytes(dir.file("manifest.json")));
  EXPECT_EQ(j["sun"], nlohmann::json({{"azimuth_deg", 135}, {"elevation_deg", 40}}));
  EXPECT_FALSE(j.contains("layers"));
  Manifest r = readManifest(dir.path.string());
  EXPECT_EQ(r.sunAzimuthDeg, 135.f);
  EXPECT_EQ(r.sunElevationDeg, 40.f);
}

TEST(Layers, HostileManifestsAreOneLineErrorsNamingTheFileAndField) {
  test::TempDir dir;
  writeLayered(dir);
  const std::string good = test::readBytes(dir.file("manifest.json"));
  auto rejects = [&](const std::function<void(nlohmann::ordered_json&)>& edit, const std::string& expected) {
    expectRefused(dir, good, edit, expected);
  };
  rejects([](auto& j) { j["layers"][0]["file"] = "../outside.r16"; }, "manifest.json: /layers/0/file: must be a relative path");
  rejects([](auto& j) { j["layers"][0]["file"] = "/etc/passwd"; }, "/layers/0/file: must be a relative path");
  rejects([](auto& j) { j["layers"][1]["file"] = "tiles/0_0.ecot"; }, "/layers/1/file: must not be");
  rejects([](auto& j) { j["layers"][1]["file"] = "terrain.r32f"; }, "/layers/1/file: must not be");
  rejects([](auto& j) { j["layers"][1]["file"] = "layers/./river_distance.r16"; }, "the file of another layer");
  rejects([](auto& j) { j["layers"][0]["width"] = 4; }, "/layers/0: 4 x 2 layer, but the terrain is 3 x 2");
  rejects([](auto& j) { j["layers"][0]["height"] = 1 << 30; }, "/layers/0/height");
  rejects([](auto& j) { j["layers"][0]["value_min"] = nullptr; }, "/layers/0/value_min: expected a number");
  rejects([](auto& j) { j["layers"][0]["value_max"] = 1e39; }, "/layers/0/value_max: out of float range");
  rejects([](auto& j) { j["layers"][0]["value_max"] = -1; }, "/layers/0: value_min must be below value_max");
  rejects([](auto& j) { j["layers"][0]["encoding"] = "float32"; }, "/layers/0/encoding: unknown value 'float32'");
  rejects([](auto& j) { j["layers"][0]["kind"] = "lava"; }, "/layers/0/kind: unknown value 'lava'");
  rejects([](auto& j) { j["layers"][0].erase("water_distance"); }, "/layers/0/water_distance: required");
  rejects([](auto& j) { j["layers"][0]["water_distance"] = -3; }, "/layers/0/water_distance: must be >= 0");
  rejects([](auto& j) { j["layers"][1]["species"] = "oak"; }, "/layers/1/species: \"oak\" is not a species");
  rejects([](auto& j) { j["layers"][0]["species"] = "pine"; }, "/layers/0/species: only a suitability layer");
  rejects([](auto& j) { j["layers"][1]["name"] = "river_distance"; }, "/layers/1/name: \"river_distance\" is given twice");
  rejects([](auto& j) { j["layers"][1]["name"] = "a\nb"; }, "/layers/1/name: must be at most 256 bytes");
  rejects([](auto& j) { j["layers"][1]["xxh3_64"] = "12"; }, "/layers/1/xxh3_64: expected 16 lowercase hex digits");
  rejects([](auto& j) { j["layers"] = nlohmann::ordered_json::object(); }, "/layers: expected an array");
  rejects([](auto& j) { j["sun"] = {{"azimuth_deg", 90}, {"elevation_deg", 0}}; }, "/sun/elevation_deg: must be in (0, 90]");
  // The files themselves: a bad checksum, a wrong size, a folder.
  rejects([](auto& j) { j["layers"][1]["xxh3_64"] = "0123456789abcdef"; },
          "layers/suitability_0.r8: checksum mismatch (xxh3_64 ");
  test::writeBytes(dir.file("manifest.json"), good);
  test::writeBytes(dir.file("layers/suitability_0.r8"), std::string(7, '\0'));
  EXPECT_NE(readError(dir.path.string()).find("layers/suitability_0.r8: 7 bytes, but the manifest's layer \"suitability_pine\" is 3 x 2 unorm8 (6 bytes)"),
            std::string::npos)
      << readError(dir.path.string());
  std::filesystem::remove(dir.file("layers/suitability_0.r8"));
  std::filesystem::create_directory(dir.file("layers/suitability_0.r8"));
  EXPECT_NE(readError(dir.path.string()).find("layers/suitability_0.r8"), std::string::npos);
}

// The config's ground goes to the manifest as 8-bit colours (only when the config has one)
// and comes back within half a step; bad values are one-line errors naming the field.
TEST(Layers, GroundPaletteRoundTripsAndIsWrittenOnlyWhenGiven) {
  test::TempDir dir;
  Manifest m = layeredManifest();
  m.layers.clear();
  writeManifest(dir.path.string(), m);
  test::writeBytes(dir.file("terrain.r32f"), std::string(24, '\0'));
  EXPECT_FALSE(nlohmann::json::parse(test::readBytes(dir.file("manifest.json"))).contains("ground"));
  EXPECT_FALSE(readManifest(dir.path.string()).ground.has_value());

  GroundPalette g = kAridGround;
  g.color[kGroundGrass][1] = 0.5f;
  g.snowline = 2450.f;
  m.ground = g;
  writeManifest(dir.path.string(), m);
  nlohmann::json j = nlohmann::json::parse(test::readBytes(dir.file("manifest.json")));
  EXPECT_EQ(j["ground"]["grass"][1], 128);  // 0.5 * 255 = 127.5, rounded half away from zero
  EXPECT_EQ(j["ground"]["soil"], nlohmann::json({115, 84, 56}));  // 0.45, 0.33, 0.22 of 255
  EXPECT_EQ(j["ground"]["snowline"], 2450);
  const Manifest r = readManifest(dir.path.string());
  ASSERT_TRUE(r.ground.has_value());
  for (uint32_t k = 0; k < kGroundColors; ++k)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(r.ground->color[k][c], g.color[k][c], 0.5 / 255 + 1e-6) << k << " " << c;
  EXPECT_EQ(r.ground->snowline, 2450.f);

  const std::string good = test::readBytes(dir.file("manifest.json"));
  auto rejects = [&](const std::function<void(nlohmann::ordered_json&)>& edit, const std::string& expected) {
    expectRefused(dir, good, edit, expected);
  };
  rejects([](auto& e) { e["ground"]["rock"] = {1, 2, 300}; }, "/ground/rock: expected [r, g, b], each in [0, 255]");
  rejects([](auto& e) { e["ground"]["sand"] = {1, 2}; }, "/ground/sand: expected [r, g, b]");
  rejects([](auto& e) { e["ground"].erase("snow"); }, "/ground/snow: required");
  rejects([](auto& e) { e["ground"]["snowline"] = "high"; }, "/ground/snowline: expected a number");
  rejects([](auto& e) { e["ground"]["fog"] = 1; }, "/ground/fog");
  rejects([](auto& e) { e["ground"] = 3; }, "/ground: expected an object");
}
