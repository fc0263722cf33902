// Inputs from terrain tools, end to end: GeoTIFF heightmaps (the same bake bytes as the
// equivalent r32f and PNG, nodata holes left empty, cell size and CRS), painted density and
// exclusion maps (counts follow them), their validation and their place in the manifest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <stb/stb_image_write.h>

#include "bake/bake.h"
#include "core/error.h"
#include "terrain/png16.h"
#include "test_support.h"
#include "tiff_fixture.h"
#include "tileio/tileio.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

constexpr int kN = 257;         // heightmap pixels a side
constexpr float kCell = 4.f;    // metres
constexpr float kExtent = 1024.f;

float gentleHeight(int i, int j) {
  return 300.f + 40.f * std::sin(float(i) * 0.05f) + 25.f * std::cos(float(j) * 0.07f);
}

const char* kTwoSpecies = R"([
  {"name": "oak", "kind": "tree", "radius": 5, "max_radius_factor": 3, "footprint": 1,
   "elevation": {"min": 0, "opt_low": 0, "opt_high": 1000, "max": 1100}, "slope": {"max_deg": 60, "falloff_deg": 5},
   "moisture": {"optimum": 0.5, "tolerance": 1}, "mesh": {"height": 15, "crown_radius": 4}},
  {"name": "fern", "kind": "ground_cover", "radius": 2, "max_radius_factor": 3, "footprint": 0.3,
   "elevation": {"min": 0, "opt_low": 0, "opt_high": 1000, "max": 1100}, "slope": {"max_deg": 60, "falloff_deg": 5},
   "moisture": {"optimum": 0.5, "tolerance": 1}, "mesh": {"height": 0.5, "crown_radius": 0.4}}
])";

// A config: `terrain` is the terrain object's body, `extra` more top-level members (may be
// empty), `species` the species array.
std::string writeConfig(const TempDir& dir, const std::string& name, const std::string& terrain,
                        const std::string& species = kTwoSpecies, const std::string& extra = "") {
  const std::string text = R"({"name": "inputs", "terrain": {)" + terrain + R"(}, "tiling": {"tile_size": 64},
    "seed": 5, )" + (extra.empty() ? "" : extra + ", ") + R"("species": )" + species + "}";
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

std::vector<float> heightsMetres() {
  std::vector<float> h(size_t(kN) * kN);
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) h[size_t(j) * kN + size_t(i)] = gentleHeight(i, j);
  return h;
}

std::vector<std::vector<uint8_t>> encodedTiles(const eco::World& world, int threads,
                                               std::optional<eco::TileRange> range = {}) {
  std::vector<std::vector<uint8_t>> out;
  for (const eco::TileData& t : eco::bakeInMemory(world, threads, range)) out.push_back(eco::encodeTile(t));
  return out;
}

std::vector<eco::Instance> instancesOf(const eco::World& world, int threads = 2) {
  std::vector<eco::Instance> all;
  for (const eco::TileData& t : eco::bakeInMemory(world, threads))
    all.insert(all.end(), t.instances.begin(), t.instances.end());
  return all;
}

void writeGrayPng8(const std::string& path, int w, int h, const std::function<uint8_t(int, int)>& value) {
  std::vector<uint8_t> px(size_t(w) * size_t(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) px[size_t(y) * size_t(w) + size_t(x)] = value(x, y);
  ASSERT_NE(stbi_write_png(path.c_str(), w, h, 1, px.data(), w), 0);
}

}  // namespace

// The same heights as a float GeoTIFF (cell size from its pixel scale) and as raw r32f (cell
// size in the config), and as a 16-bit GeoTIFF and a 16-bit PNG: the same tiles, byte for
// byte, and the same terrain.
TEST(BakeInputs, GeoTiffBakesTheSameBytesAsTheEquivalentRawAndPng) {
  TempDir dir;
  const std::vector<float> metres = heightsMetres();
  {
    std::FILE* f = std::fopen(dir.file("h.r32f").c_str(), "wb");
    ASSERT_TRUE(f);
    ASSERT_EQ(std::fwrite(metres.data(), 4, metres.size(), f), metres.size());
    std::fclose(f);
  }
  eco::test::TiffSpec spec;
  spec.width = spec.height = kN;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  spec.tiled = true;
  spec.tileSize = 64;
  spec.compression = COMPRESSION_ADOBE_DEFLATE;
  spec.predictor = 3;
  spec.pixelScale = {double(kCell), double(kCell), 0};
  spec.geoKeys = eco::test::geoKeysFor(32633);
  eco::test::writeTiff(dir.file("h.tif"), spec, metres.data());
  const std::string raw = writeConfig(dir, "raw.json", R"("heightmap": "h.r32f", "raw_width": 257, "raw_height": 257,
      "cell_size": 4, "height_scale": 1, "height_offset": 0)");
  const std::string tiff = writeConfig(dir, "tiff.json", R"("heightmap": "h.tif", "height_scale": 1, "height_offset": 0)");
  const eco::World a = eco::loadWorld(raw), b = eco::loadWorld(tiff);
  EXPECT_EQ(b.terrain.cellSize, kCell);
  EXPECT_EQ(b.crs, "EPSG:32633");
  EXPECT_EQ(a.terrain.metres.values, b.terrain.metres.values);
  const auto tilesA = encodedTiles(a, 2), tilesB = encodedTiles(b, 2);
  ASSERT_GT(tilesA.size(), 100u);
  EXPECT_TRUE(tilesA == tilesB);

  // 16-bit: a PNG and a striped LZW GeoTIFF of the same samples.
  std::vector<uint16_t> u16(metres.size());
  for (size_t k = 0; k < metres.size(); ++k) u16[k] = uint16_t(std::lround((metres[k] - 200.f) / 200.f * 65535.f));
  eco::writePng16(dir.file("h16.png"), kN, kN, u16.data());
  spec.bits = 16;
  spec.sampleFormat = SAMPLEFORMAT_UINT;
  spec.tiled = false;
  spec.rowsPerStrip = 7;
  spec.compression = COMPRESSION_LZW;
  spec.predictor = 2;
  spec.geoKeys.clear();
  eco::test::writeTiff(dir.file("h16.tif"), spec, u16.data());
  const std::string png = writeConfig(dir, "png.json", R"("heightmap": "h16.png", "cell_size": 4, "min_elevation": 200, "max_elevation": 400)");
  const std::string tiff16 = writeConfig(dir, "tiff16.json", R"("heightmap": "h16.tif", "cell_size": 4, "min_elevation": 200, "max_elevation": 400)");
  const eco::World c = eco::loadWorld(png), d = eco::loadWorld(tiff16);
  EXPECT_TRUE(d.crs.empty());
  EXPECT_TRUE(encodedTiles(c, 1) == encodedTiles(d, 2));

  // Through the CLI: the same tile files and terrain; the manifest adds the CRS and differs in
  // the heightmap's hash only.
  auto r1 = eco::test::runTool("ecobake", "bake " + raw + " -o " + dir.file("out-raw") + " -q");
  auto r2 = eco::test::runTool("ecobake", "bake " + tiff + " -o " + dir.file("out-tiff") + " -q");
  ASSERT_EQ(r1.code, 0) << r1.output;
  ASSERT_EQ(r2.code, 0) << r2.output;
  for (const auto& e : fs::recursive_directory_iterator(dir.file("out-raw"))) {
    if (!e.is_regular_file() || e.path().filename() == "manifest.json") continue;
    const std::string rel = fs::relative(e.path(), dir.file("out-raw")).string();
    ASSERT_EQ(eco::test::readBytes(e.path().string()), eco::test::readBytes(dir.file("out-tiff/" + rel))) << rel;
  }
  auto ma = nlohmann::json::parse(eco::test::readBytes(dir.file("out-raw/manifest.json")));
  auto mb = nlohmann::json::parse(eco::test::readBytes(dir.file("out-tiff/manifest.json")));
  EXPECT_FALSE(ma["terrain"].contains("crs"));
  EXPECT_EQ(mb["terrain"]["crs"], "EPSG:32633");
  EXPECT_FALSE(mb["hashes"].contains("inputs"));
  mb["terrain"].erase("crs");
  for (auto* m : {&ma, &mb}) (*m)["hashes"].erase("heightmap"), (*m)["hashes"].erase("config");
  EXPECT_EQ(ma, mb);
  EXPECT_EQ(eco::readManifest(dir.file("out-tiff")).crs, "EPSG:32633");
  auto v = eco::test::runTool("ecobake", "validate " + tiff);
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_NE(v.output.find("heightmap CRS EPSG:32633"), std::string::npos) << v.output;
}

// Issue #30: a float or signed 16-bit GeoTIFF is metres without a height mapping (its sample
// format says so); an unsigned one, a PNG or an .r16 still needs one, refused naming /terrain.
TEST(BakeInputs, FloatAndSignedGeoTiffsAreMetresWithoutAMapping) {
  TempDir dir;
  const std::vector<float> metres = heightsMetres();
  eco::test::TiffSpec spec;
  spec.width = spec.height = kN;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  spec.pixelScale = {double(kCell), double(kCell), 0};
  eco::test::writeTiff(dir.file("f.tif"), spec, metres.data());
  const eco::World spelled = eco::loadWorld(writeConfig(dir, "spelled.json", R"("heightmap": "f.tif", "height_scale": 1, "height_offset": 0)"));
  const eco::World bare = eco::loadWorld(writeConfig(dir, "bare.json", R"("heightmap": "f.tif")"));
  EXPECT_EQ(bare.terrain.metres.values, spelled.terrain.metres.values);
  EXPECT_EQ(bare.terrain.metres.values[0], metres[0]);

  std::vector<int16_t> s16(metres.size());
  for (size_t k = 0; k < metres.size(); ++k) s16[k] = int16_t(std::lround(metres[k]));
  spec.bits = 16;
  spec.sampleFormat = SAMPLEFORMAT_INT;
  eco::test::writeTiff(dir.file("s.tif"), spec, s16.data());
  const eco::World signed16 = eco::loadWorld(writeConfig(dir, "signed.json", R"("heightmap": "s.tif")"));
  EXPECT_EQ(signed16.terrain.metres.values[5], float(s16[5]));

  std::vector<uint16_t> u16(metres.size(), 1000);
  spec.sampleFormat = SAMPLEFORMAT_UINT;
  eco::test::writeTiff(dir.file("u.tif"), spec, u16.data());
  eco::writePng16(dir.file("u.png"), kN, kN, u16.data());
  for (const char* terrain : {R"("heightmap": "u.tif")", R"("heightmap": "u.png", "cell_size": 4)"}) {
    const std::string config = writeConfig(dir, "unsigned.json", terrain);
    try {
      (void)eco::loadWorld(config);
      ADD_FAILURE() << terrain << " was accepted without a height mapping";
    } catch (const eco::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/terrain: missing height mapping"), std::string::npos) << e.what();
    }
  }
}

TEST(BakeInputs, GeoTiffNoDataHolesStayEmpty) {
  TempDir dir;
  std::vector<int16_t> dem(size_t(kN) * kN);
  std::vector<uint8_t> hole(dem.size(), 0);  // the test's own record of the voids
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      const size_t k = size_t(j) * kN + size_t(i);
      const float dx = float(i) - 100.f, dz = float(j) - 140.f;
      hole[k] = dx * dx + dz * dz < 30.f * 30.f || (i > 200 && j < 20);
      dem[k] = hole[k] ? int16_t(-32768) : int16_t(std::lround(gentleHeight(i, j)));
    }
  eco::test::TiffSpec spec;
  spec.width = spec.height = kN;
  spec.bits = 16;
  spec.sampleFormat = SAMPLEFORMAT_INT;
  spec.compression = COMPRESSION_LZW;
  spec.pixelScale = {double(kCell), double(kCell), 1};
  spec.noData = "-32768";
  eco::test::writeTiff(dir.file("dem.tif"), spec, dem.data());
  const std::string config = writeConfig(dir, "w.json", R"("heightmap": "dem.tif", "height_scale": 1, "height_offset": 0)");
  const eco::World world = eco::loadWorld(config);
  const std::vector<eco::Instance> all = instancesOf(world);
  ASSERT_GT(all.size(), 10000u);
  size_t beside = 0;
  for (const eco::Instance& in : all) {
    // Pixels of non-zero weight in the bilinear support of the position.
    const float u = in.position.x / kCell, v = in.position.z / kCell;
    const int i0 = std::min(int(u), kN - 2), j0 = std::min(int(v), kN - 2);
    const bool right = u > float(i0), below = v > float(j0);
    for (int dj = 0; dj <= (below ? 1 : 0); ++dj)
      for (int di = 0; di <= (right ? 1 : 0); ++di)
        ASSERT_EQ(hole[size_t(j0 + dj) * kN + size_t(i0 + di)], 0)
            << "instance at " << in.position.x << "," << in.position.z << " touches a nodata pixel";
    const float dx = u - 100.f, dz = v - 140.f;
    beside += dx * dx + dz * dz < 33.f * 33.f;
    // Heights come from valid pixels: within the DEM's valid range, never the -32768 void.
    ASSERT_GT(in.position.y, 200.f);
  }
  EXPECT_GT(beside, 20u);  // vegetation grows right up to the hole's rim
}

TEST(BakeInputs, CellSizeFromThePixelScaleAndItsMismatches) {
  TempDir dir;
  std::vector<float> h(64 * 64, 100.f);
  eco::test::TiffSpec spec;
  spec.width = spec.height = 64;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  spec.pixelScale = {10, 10, 0};
  eco::test::writeTiff(dir.file("s.tif"), spec, h.data());
  spec.pixelScale.clear();
  eco::test::writeTiff(dir.file("plain.tif"), spec, h.data());
  spec.pixelScale = {0.001, 0.001, 0};
  spec.geoKeys = eco::test::geoKeysFor(4326, true);
  eco::test::writeTiff(dir.file("deg.tif"), spec, h.data());
  auto run = [&](const std::string& terrain) {
    return eco::test::runTool("ecobake", "validate " + writeConfig(dir, "c.json", terrain));
  };
  auto mismatch = run(R"("heightmap": "s.tif", "cell_size": 12, "height_scale": 1, "height_offset": 0)");
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_EQ(eco::test::lineCount(mismatch.output), 2u) << mismatch.output;  // the problem and the count
  EXPECT_NE(mismatch.output.find("/terrain/cell_size: cell_size 12 m differs from the GeoTIFF pixel scale 10 x 10 of"),
            std::string::npos) << mismatch.output;
  auto missing = run(R"("heightmap": "plain.tif", "height_scale": 1, "height_offset": 0)");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.output.find("plain.tif has no GeoTIFF pixel scale; give cell_size in metres"), std::string::npos)
      << missing.output;
  auto degrees = run(R"("heightmap": "deg.tif", "height_scale": 1, "height_offset": 0)");
  EXPECT_EQ(degrees.code, 2);
  EXPECT_NE(degrees.output.find("is in degrees (EPSG:4326)"), std::string::npos) << degrees.output;
  EXPECT_EQ(run(R"("heightmap": "deg.tif", "cell_size": 30, "height_scale": 1, "height_offset": 0)").code, 0);
  EXPECT_EQ(run(R"("heightmap": "s.tif", "cell_size": 10, "height_scale": 1, "height_offset": 0)").code, 0);
  auto png = run(R"("heightmap": "nothere.png", "height_scale": 1, "height_offset": 0)");
  EXPECT_NE(png.output.find("/terrain/cell_size: required field is missing"), std::string::npos) << png.output;
}

// A density map of 0.5 over the western half (and 1 over the east) halves the west's count
// against the same bake without the map, within statistical noise; the east is unchanged.
TEST(BakeInputs, DensityMapOfHalfHalvesThatHalfsCount) {
  TempDir dir;
  eco::writePng16(dir.file("h.png"), kN, kN, std::vector<uint16_t>(size_t(kN) * kN, 30000).data());
  // 100 x 100 pixels (another resolution than the terrain's): 0.5 in columns 0..49.
  writeGrayPng8(dir.file("paint.png"), 100, 100, [](int x, int) { return uint8_t(x < 50 ? 128 : 255); });
  const std::string terrain = R"("heightmap": "h.png", "cell_size": 4, "min_elevation": 0, "max_elevation": 1000)";
  std::string species = kTwoSpecies;
  const std::string plain = writeConfig(dir, "plain.json", terrain, species);
  species.replace(species.find(R"("footprint": 1,)"), 15, R"("footprint": 1, "density_map": "paint.png",)");
  species.replace(species.find(R"("footprint": 0.3,)"), 17, R"("footprint": 0.3, "density_map": "paint.png",)");
  const std::string painted = writeConfig(dir, "painted.json", terrain, species);
  const eco::World a = eco::loadWorld(plain), b = eco::loadWorld(painted);
  // The map's boundary lies at x = 49.5 / 99 * 1024 m; its bilinear ramp spans one map pixel.
  const float edge = 49.5f / 99.f * kExtent, ramp = kExtent / 99.f;
  auto count = [&](const std::vector<eco::Instance>& all, uint16_t id, bool west) {
    size_t n = 0;
    for (const eco::Instance& in : all)
      if (in.species == id && (west ? in.position.x < edge - 2 * ramp : in.position.x > edge + 2 * ramp)) ++n;
    return n;
  };
  const std::vector<eco::Instance> before = instancesOf(a), after = instancesOf(b);
  for (uint16_t s : {uint16_t(0), uint16_t(1)}) {
    const double west = double(count(after, s, true)) / double(count(before, s, true));
    const double east = double(count(after, s, false)) / double(count(before, s, false));
    // 128/255 = 0.502; noise: thousands of instances (the oak's ~8000 in the west give a
    // binomial sigma near 1 %), so 4 % is several sigma. Measured: oak 0.499, fern 0.522 (the
    // fern, placed after the oak, gains the room of the oaks the map took away).
    SCOPED_TRACE("species " + std::to_string(s) + ": west ratio " + std::to_string(west) + ", east " + std::to_string(east));
    EXPECT_NEAR(west, 128.0 / 255.0, 0.04);
    EXPECT_NEAR(east, 1.0, 0.03);
    EXPECT_GT(count(before, s, true), 4000u);
  }
}

// exclusion_map: nothing grows where it is 1; exclude_map acts on its species only; a splat
// map's channel is read.
TEST(BakeInputs, ExclusionMapsAndSplatChannels) {
  TempDir dir;
  eco::writePng16(dir.file("h.png"), kN, kN, std::vector<uint16_t>(size_t(kN) * kN, 30000).data());
  // Global exclusion: a square [300, 500) x [300, 500) m of 1 on a 129 x 129 map (8 m pixels).
  auto inSquare = [](float x, float z, float lo, float hi) { return x >= lo && x < hi && z >= lo && z < hi; };
  writeGrayPng8(dir.file("no.png"), 129, 129, [&](int x, int y) {
    return uint8_t(inSquare(float(x) * 8.f, float(y) * 8.f, 300.f, 500.f) ? 255 : 0);
  });
  // Splat: red channel excludes the fern from [600, 800)^2, green is the oak's density (0 on
  // the eastern quarter x >= 768).
  std::vector<uint8_t> rgba(size_t(129) * 129 * 4, 0);
  for (int y = 0; y < 129; ++y)
    for (int x = 0; x < 129; ++x) {
      uint8_t* p = &rgba[(size_t(y) * 129 + size_t(x)) * 4];
      p[0] = inSquare(float(x) * 8.f, float(y) * 8.f, 600.f, 800.f) ? 255 : 0;
      p[1] = float(x) * 8.f >= 768.f ? 0 : 255;
      p[3] = 255;
    }
  ASSERT_NE(stbi_write_png(dir.file("splat.png").c_str(), 129, 129, 4, rgba.data(), 129 * 4), 0);
  std::string species = kTwoSpecies;
  species.replace(species.find(R"("footprint": 1,)"), 15,
                  R"("footprint": 1, "density_map": {"file": "splat.png", "channel": "g"},)");
  species.replace(species.find(R"("footprint": 0.3,)"), 17,
                  R"("footprint": 0.3, "exclude_map": {"file": "splat.png", "channel": "r"},)");
  const std::string config = writeConfig(dir, "c.json", R"("heightmap": "h.png", "cell_size": 4, "min_elevation": 0, "max_elevation": 1000)",
                                         species, R"("exclusion_map": "no.png")");
  const eco::World world = eco::loadWorld(config);
  const std::vector<eco::Instance> all = instancesOf(world);
  size_t ferns = 0, oaksInFernSquare = 0;
  for (const eco::Instance& in : all) {
    const float x = in.position.x, z = in.position.z;
    // Inside the painted square (less the one-pixel bilinear ramp at its edge): nothing.
    ASSERT_FALSE(inSquare(x, z, 300.f + 8.f, 500.f - 8.f)) << in.species << " at " << x << "," << z;
    if (in.species == 1) {
      ++ferns;
      ASSERT_FALSE(inSquare(x, z, 600.f + 8.f, 800.f - 8.f)) << "fern at " << x << "," << z;
    } else {
      ASSERT_LT(x, 768.f) << "oak at " << x << "," << z;  // green is 0 from x = 768 on
      oaksInFernSquare += inSquare(x, z, 610.f, 760.f);
    }
  }
  EXPECT_GT(ferns, 10000u);
  EXPECT_GT(oaksInFernSquare, 100u);  // the fern's exclude_map leaves the oak alone

  // The manifest hashes each map by its config field (only because they are used).
  auto r = eco::test::runTool("ecobake", "bake " + config + " -o " + dir.file("out") + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  const eco::Manifest m = eco::readManifest(dir.file("out"));
  ASSERT_EQ(m.inputHashes.size(), 3u);
  EXPECT_EQ(m.inputHashes[0].first, "/exclusion_map");
  EXPECT_EQ(m.inputHashes[1].first, "/species/0/density_map");
  EXPECT_EQ(m.inputHashes[2].first, "/species/1/exclude_map");
  EXPECT_EQ(m.inputHashes[1].second, m.inputHashes[2].second);  // one file
  EXPECT_NE(m.inputHashes[0].second, m.inputHashes[1].second);
  // `masks` shows them.
  auto masks = eco::test::runTool("ecobake", "masks " + config + " -o " + dir.file("masks"));
  ASSERT_EQ(masks.code, 0) << masks.output;
  EXPECT_TRUE(fs::exists(dir.file("masks/inputs_oak.png")));
  EXPECT_TRUE(fs::exists(dir.file("masks/inputs_fern.png")));
}

// Every bad painted map: exit 2, one line naming the config, the field and the file (and the
// pixel where there is one).
TEST(BakeInputs, BadPaintedMapsAreOneLineErrors) {
  TempDir dir;
  eco::writePng16(dir.file("h.png"), 65, 33, std::vector<uint16_t>(size_t(65) * 33, 30000).data());
  writeGrayPng8(dir.file("square.png"), 50, 50, [](int, int) { return uint8_t(255); });
  writeGrayPng8(dir.file("ok.png"), 129, 65, [](int, int) { return uint8_t(255); });
  writeGrayPng8(dir.file("dot.png"), 1, 1, [](int, int) { return uint8_t(255); });
  std::vector<uint8_t> rgba(size_t(64) * 32 * 4, 255);
  ASSERT_NE(stbi_write_png(dir.file("rgba.png").c_str(), 64, 32, 4, rgba.data(), 64 * 4), 0);
  std::vector<float> over(size_t(64) * 32, 0.5f);
  over[size_t(3) * 64 + 7] = 1.5f;
  eco::test::TiffSpec spec;
  spec.width = 64;
  spec.height = 32;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  eco::test::writeTiff(dir.file("over.tif"), spec, over.data());
  const std::string terrain = R"("heightmap": "h.png", "cell_size": 4, "min_elevation": 0, "max_elevation": 1000)";
  struct Case {
    std::string extra, expect;
  };
  const Case cases[] = {
      {R"("exclusion_map": "square.png")", "/exclusion_map: " + dir.file("square.png") + ": 50 x 50 pixels over the terrain's 256 x 128 m"},
      {R"("exclusion_map": "over.tif")", "/exclusion_map: " + dir.file("over.tif") + ": pixel 7,3 is 1.5; painted maps hold values in [0, 1]"},
      {R"("exclusion_map": "rgba.png")", "/exclusion_map: " + dir.file("rgba.png") + ": PNG has 4 channels (RGBA), expected a single grayscale channel"},
      {R"("exclusion_map": {"file": "ok.png", "channel": "a"})", "/exclusion_map: " + dir.file("ok.png") + ": PNG has 1 channel (gray), no channel 'a'"},
      {R"("exclusion_map": {"file": "ok.png", "channel": "x"})", "/exclusion_map/channel: "},
      {R"("exclusion_map": {"channel": "r"})", "/exclusion_map/file: required field is missing"},
      {R"("exclusion_map": "dot.png")", "/exclusion_map: " + dir.file("dot.png") + " is 1 x 1 pixels"},
      {R"("exclusion_map": "missing.png")", "/exclusion_map: " + dir.file("missing.png")},
      {R"("exclusion_map": "map.jpg")", "/exclusion_map: unsupported file type '.jpg'"},
      {R"("exclusion_map": 7)", "/exclusion_map: expected a file name or an object"},
  };
  for (const Case& c : cases) {
    const std::string config = writeConfig(dir, "c.json", terrain, kTwoSpecies, c.extra);
    for (const char* command : {"validate ", "bake "}) {
      auto r = eco::test::runTool("ecobake", command + config + (std::string(command) == "bake " ? " -q -o " + dir.file("o") : ""));
      SCOPED_TRACE(c.extra + " / " + command);
      EXPECT_EQ(r.code, 2) << r.output;
      EXPECT_NE(r.output.find(config + ": " + c.expect), std::string::npos) << r.output;
      EXPECT_LE(eco::test::lineCount(r.output), 2u) << r.output;
    }
  }
  for (const char* extra : {R"("exclusion_map": "ok.png")", R"("exclusion_map": {"file": "ok.png"})"}) {
    const std::string good = writeConfig(dir, "good.json", terrain, kTwoSpecies, extra);
    EXPECT_EQ(eco::test::runTool("ecobake", "validate " + good).code, 0) << extra;
  }
}

// Partial bakes equal the full bake, and 1 thread equals 3, with every new input in use.
TEST(BakeInputs, PartialBakesEqualFullBakesWithMapsAndNoData) {
  TempDir dir;
  std::vector<int16_t> dem(size_t(kN) * kN);
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i)
      dem[size_t(j) * kN + size_t(i)] = (i - 60) * (i - 60) + (j - 60) * (j - 60) < 400 ? int16_t(-9999) : int16_t(std::lround(gentleHeight(i, j)));
  eco::test::TiffSpec spec;
  spec.width = spec.height = kN;
  spec.bits = 16;
  spec.sampleFormat = SAMPLEFORMAT_INT;
  spec.tiled = true;
  spec.pixelScale = {double(kCell), double(kCell), 0};
  spec.noData = "-9999";
  eco::test::writeTiff(dir.file("dem.tif"), spec, dem.data());
  writeGrayPng8(dir.file("d.png"), 300, 300, [](int x, int y) { return uint8_t((x * 7 + y * 3) % 256); });
  std::string species = kTwoSpecies;
  species.replace(species.find(R"("footprint": 1,)"), 15, R"("footprint": 1, "density_map": "d.png",)");
  const eco::World world = eco::loadWorld(writeConfig(dir, "c.json", R"("heightmap": "dem.tif", "height_scale": 1, "height_offset": 0)",
                                                      species, R"("exclusion_map": "d.png")"));
  const auto full = eco::bakeInMemory(world, 3);
  const auto one = eco::bakeInMemory(world, 1);
  ASSERT_EQ(full.size(), one.size());
  for (size_t k = 0; k < full.size(); ++k) ASSERT_EQ(eco::encodeTile(full[k]), eco::encodeTile(one[k]));
  const eco::TileRange range{3, 2, 7, 5};
  const auto part = eco::bakeInMemory(world, 2, range);
  size_t matched = 0;
  for (const eco::TileData& t : part)
    for (const eco::TileData& f : full)
      if (f.tileX == t.tileX && f.tileZ == t.tileZ) {
        ASSERT_EQ(eco::encodeTile(f), eco::encodeTile(t));
        ++matched;
      }
  EXPECT_EQ(matched, part.size());
  EXPECT_EQ(part.size(), 12u);
}
