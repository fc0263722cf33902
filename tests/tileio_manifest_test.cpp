#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "test_support.h"
#include "tileio/tileio.h"

using namespace eco;

namespace {

Manifest sampleManifest() {
  Manifest m;
  m.name = "alpine";
  m.seed = 42;
  m.world = {12, 6, 200, 2800};  // the terrain's extent: (3 - 1) x 6 m by (2 - 1) x 6 m
  m.terrain = {"terrain.r32f", 3, 2, 6};
  m.tiling = {128, 48, 48};
  SpeciesRecord pine;
  pine.id = 0;
  pine.name = "pine";
  pine.kind = 0;
  pine.meshHeight = 18;
  pine.scaleMin = 0.8f;
  pine.scaleMax = 1.25f;
  pine.baseColor = 0xff336622;
  SpeciesRecord moss = pine;
  moss.id = 1;
  moss.name = "moss";
  moss.kind = 3;
  moss.baseColor = 0x80102030;
  m.species = {pine, moss};
  m.tiles = {{1, 0, "tiles/1_0.ecot", 7, 300, 0x0123456789abcdefull, {5, 2}},
             {0, 0, "tiles/0_0.ecot", 3, 200, 0xfedcba9876543210ull, {0, 3}},
             {4, 2, "tiles/4_2.ecot", 1, 100, 1, {1, 0}}};
  m.hashes = {"00000000000000aa", "00000000000000bb", ""};
  computeTotals(m);
  return m;
}

nlohmann::json readJson(const test::TempDir& dir) { return nlohmann::json::parse(test::readBytes(dir.file("manifest.json"))); }

void writeJson(const test::TempDir& dir, const nlohmann::json& j) { test::writeBytes(dir.file("manifest.json"), j.dump(2)); }

std::string readError(const test::TempDir& dir) {
  try {
    readManifest(dir.path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The 3 x 2 float32 terrain that sampleManifest describes (readManifest checks its size).
static void writeSampleTerrain(const test::TempDir& dir) { test::writeBytes(dir.file("terrain.r32f"), std::string(24, '\0')); }

TEST(Manifest, RoundTrip) {
  test::TempDir dir;
  Manifest m = sampleManifest();
  writeManifest(dir.path.string(), m);
  writeSampleTerrain(dir);
  Manifest r = readManifest(dir.path.string());
  EXPECT_EQ(r.toolVersion, ECO_VERSION);
  EXPECT_EQ(r.name, "alpine");
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.world.sizeX, 12.f);
  EXPECT_EQ(r.world.sizeZ, 6.f);
  EXPECT_EQ(r.world.maxY, 2800.f);
  EXPECT_EQ(r.terrain.width, 3);
  EXPECT_EQ(r.terrain.cellSize, 6.f);
  EXPECT_EQ(r.tiling.tilesZ, 48);
  ASSERT_EQ(r.species.size(), 2u);
  EXPECT_EQ(r.species[1].name, "moss");
  EXPECT_EQ(r.species[1].kind, 3);
  EXPECT_EQ(r.species[1].baseColor, 0x80102030u);
  EXPECT_EQ(r.species[0].scaleMax, 1.25f);
  ASSERT_EQ(r.tiles.size(), 3u);  // sorted by (z, x)
  EXPECT_EQ(r.tiles[0].file, "tiles/0_0.ecot");
  EXPECT_EQ(r.tiles[1].file, "tiles/1_0.ecot");
  EXPECT_EQ(r.tiles[1].checksum, 0x0123456789abcdefull);
  EXPECT_EQ(r.tiles[1].speciesCounts, (std::vector<uint64_t>{5, 2}));
  EXPECT_EQ(r.tiles[2].z, 2);
  EXPECT_EQ(r.hashes.heightmap, "00000000000000bb");
  EXPECT_EQ(r.totals.instances, 11u);
  EXPECT_EQ(r.totals.bytes, 600u);
  EXPECT_EQ(r.totals.speciesCounts, (std::vector<uint64_t>{6, 5}));

  nlohmann::json j = readJson(dir);  // the documented field names and forms
  EXPECT_EQ(j["format"], "ecobake-manifest");
  EXPECT_EQ(j["format_version"], 2);
  EXPECT_EQ(j["species"][0]["kind"], "tree");
  EXPECT_EQ(j["species"][1]["kind"], "ground_cover");
  EXPECT_EQ(j["species"][0]["base_color"], nlohmann::json({0x22, 0x66, 0x33, 0xff}));
  EXPECT_EQ(j["tiles"][1]["xxh3_64"], "0123456789abcdef");
  EXPECT_EQ(j["terrain"]["file"], "terrain.r32f");
}

TEST(Manifest, RejectsWrongFormatVersionAndMissingFields) {
  test::TempDir dir;
  EXPECT_NE(readError(dir).find("manifest.json"), std::string::npos);  // missing file
  writeManifest(dir.path.string(), sampleManifest());
  nlohmann::json good = readJson(dir);

  auto rejects = [&](auto edit, const std::string& expected) {
    nlohmann::json j = good;
    edit(j);
    writeJson(dir, j);
    std::string error = readError(dir);
    EXPECT_NE(error.find("manifest.json"), std::string::npos) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  };
  rejects([](auto& j) { j["format"] = "something-else"; }, "not an ecobake manifest");
  rejects([](auto& j) { j["format_version"] = 1; }, "format_version 1");  // FNV-1a checksums
  rejects([](auto& j) { j.erase("tiling"); }, "tiling");
  rejects([](auto& j) { j["tiles"][0].erase("xxh3_64"); }, "/tiles/0/xxh3_64: required field is missing");
  rejects([](auto& j) { j["tiles"][1]["xxh3_64"] = "xyz"; }, "/tiles/1/xxh3_64");
  rejects([](auto& j) { j["tiles"][0]["instances"] = -1; }, "/tiles/0/instances");
  rejects([](auto& j) { j["species"][0]["kind"] = "cactus"; }, "unknown kind");
  rejects([](auto& j) { j["species"][0]["base_color"] = {1, 2, 3}; }, "base_color");
  rejects([](auto& j) { j["species"][1]["id"] = 5; }, "/species/1/id");
  rejects([](auto& j) { j["terrain"]["width"] = "3"; }, "/terrain/width");
  rejects([](auto& j) { j["totals"]["instances"] = 12; }, "totals");
  rejects([](auto& j) { j["tiles"][0]["species_counts"] = {1, 1}; }, "species_counts");
  rejects([](auto& j) { std::swap(j["tiles"][0], j["tiles"][1]); }, "sorted");
  rejects([](auto& j) { j["tiles"][2]["x"] = 48; }, "outside");
  rejects([](auto& j) { j["tiles"][0]["file"] = "../../etc/passwd"; }, "relative path");
  rejects([](auto& j) { j["tiles"][0]["file"] = "/tmp/x.ecot"; }, "relative path");

  test::writeBytes(dir.file("manifest.json"), "{\"format\": \"ecobake-manifest\", ");
  EXPECT_NE(readError(dir).find("not valid JSON"), std::string::npos);
  test::writeBytes(dir.file("manifest.json"), "[1, 2]");
  EXPECT_NE(readError(dir).find("expected a JSON object"), std::string::npos);
}

TEST(Manifest, TerrainRawRoundTripAndSizeCheck) {
  test::TempDir dir;
  Manifest m = sampleManifest();
  Grid g(3, 2);
  for (size_t i = 0; i < g.values.size(); ++i) g.values[i] = 200.5f + float(i);
  m.world.minY = 200.5f, m.world.maxY = 205.5f;  // what the bake took from these heights
  writeTerrainRaw(dir.path.string(), g);
  EXPECT_EQ(readTerrainRaw(dir.path.string(), m), g.values);
  EXPECT_EQ(test::readBytes(dir.file("terrain.r32f")).size(), 24u);

  // a NaN or an infinity anywhere: refused, naming the pixel (x, z)
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    Grid damaged = g;
    damaged.at(1, 1) = bad;
    writeTerrainRaw(dir.path.string(), damaged);
    try {
      readTerrainRaw(dir.path.string(), m);
      ADD_FAILURE() << "a height of " << bad << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("terrain.r32f: height at pixel (1, 1)"), std::string::npos) << e.what();
    }
  }
  writeTerrainRaw(dir.path.string(), g);
  // heights from another world than the manifest's: refused, naming both spans
  Manifest other = m;
  other.world.maxY = 300;
  try {
    readTerrainRaw(dir.path.string(), other);
    ADD_FAILURE() << "a terrain spanning other heights than its manifest's was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("terrain.r32f: heights span 200.5"), std::string::npos) << e.what();
  }

  m.terrain.width = 4;
  EXPECT_THROW(readTerrainRaw(dir.path.string(), m), InputError);
  m.terrain.file = "absent.r32f";
  EXPECT_THROW(readTerrainRaw(dir.path.string(), m), InputError);
}

TEST(Manifest, TileVerifiedAgainstSizeAndChecksum) {
  test::TempDir dir;
  TileData tile;
  tile.tileSize = 64;
  tile.species = {SpeciesRecord{}};
  tile.instances.resize(5);
  std::vector<uint8_t> bytes = encodeTile(tile);
  writeFileAtomic(dir.file("tiles/0_0.ecot"), bytes.data(), bytes.size());
  TileEntry entry{0, 0, "tiles/0_0.ecot", 5, bytes.size(), checksum64(bytes), {5}};
  Manifest m;
  m.species = tile.species;
  m.tiling = {64, 1, 1};
  EXPECT_EQ(readTileVerified(dir.path.string(), m, entry).instances.size(), 5u);

  TileEntry wrongHash = entry;
  wrongHash.checksum ^= 1;
  try {
    readTileVerified(dir.path.string(), m, wrongHash);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("0_0.ecot: checksum mismatch"), std::string::npos) << e.what();
  }
  TileEntry wrongSize = entry;
  wrongSize.bytes += 4;
  EXPECT_THROW(readTileVerified(dir.path.string(), m, wrongSize), InputError);

  bytes[bytes.size() / 2] ^= 0x40;  // same size, different content
  test::writeBytes(dir.file("tiles/0_0.ecot"), std::string(bytes.begin(), bytes.end()));
  EXPECT_THROW(readTileVerified(dir.path.string(), m, entry), InputError);
}

// Pins manifest.json's text: a change of keys, order or number formatting changes these bytes
// and must come with a new format version (and this checksum updated on purpose).
TEST(Manifest, GoldenChecksumPinsTheFormat) {
  test::TempDir dir;
  writeManifest(dir.path.string(), sampleManifest());
  std::string text = test::readBytes(dir.file("manifest.json"));
  EXPECT_EQ(text.size(), 1933u);
  EXPECT_EQ(hex64(checksum64(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()))), "761e58bd90d3434c");
}

// ---- Parts of a sharded bake (issue #19) ----

namespace {

// sampleManifest as part 2 of 3 holding tile rows 0..2 (so no terrain file).
Manifest samplePart(int index = 2) {
  Manifest m = sampleManifest();
  ManifestPart p;
  p.index = index;
  p.count = 3;
  p.firstRow = 0;
  p.lastRow = 2;
  p.hasTerrain = index == 1;
  p.terrainChecksum = 0x00000000000000ccull;
  m.part = p;
  return m;
}

std::string readPartError(const test::TempDir& dir) {
  try {
    readPartManifest(dir.path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ManifestPart, RoundTripAndTheWholeBakesManifestIsUnchanged) {
  test::TempDir dir;
  writeManifest(dir.path.string(), samplePart());
  nlohmann::json j = readJson(dir);
  EXPECT_EQ(j["format"], "ecobake-part");
  EXPECT_EQ(j["format_version"], 2);
  EXPECT_EQ(j["part"], nlohmann::json({{"index", 2}, {"count", 3}, {"first_row", 0}, {"last_row", 2},
                                        {"terrain_xxh3_64", "00000000000000cc"}}));
  Manifest r = readPartManifest(dir.path.string());  // part 2: no terrain file needed
  ASSERT_TRUE(r.part);
  EXPECT_EQ(r.part->index, 2);
  EXPECT_EQ(r.part->count, 3);
  EXPECT_EQ(r.part->firstRow, 0);
  EXPECT_EQ(r.part->lastRow, 2);
  EXPECT_FALSE(r.part->hasTerrain);
  EXPECT_EQ(r.part->terrainChecksum, 0xccu);
  EXPECT_EQ(r.tiles.size(), 3u);
  EXPECT_TRUE(hasEcobakeManifest(dir.path.string(), nullptr));  // a part folder is ecobake's to replace
  std::string why;
  EXPECT_TRUE(isReplaceableBake(dir.path.string(), &why)) << why;  // read whole, as a part

  // Without a part, the bytes of a whole bake's manifest: no "part" key, the old format.
  test::TempDir whole;
  writeManifest(whole.path.string(), sampleManifest());
  nlohmann::json w = readJson(whole);
  EXPECT_FALSE(w.contains("part"));
  j.erase("part");
  j["format"] = "ecobake-manifest";
  EXPECT_EQ(j, w);
}

TEST(ManifestPart, ReadersOfWholeBakesRefuseALonePartAndTheOtherWayRound) {
  test::TempDir dir;
  writeManifest(dir.path.string(), samplePart());
  writeSampleTerrain(dir);
  const std::string error = readError(dir);
  EXPECT_NE(error.find("manifest.json: is part 2 of 3 of a sharded bake (tile rows 0..2)"), std::string::npos) << error;
  EXPECT_NE(error.find("ecobake merge"), std::string::npos) << error;

  test::TempDir whole;
  writeManifest(whole.path.string(), sampleManifest());
  writeSampleTerrain(whole);
  EXPECT_NE(readPartError(whole).find("is a whole bake, not a part"), std::string::npos) << readPartError(whole);
}

TEST(ManifestPart, PartOneCarriesTheTerrain) {
  test::TempDir dir;
  writeManifest(dir.path.string(), samplePart(1));
  EXPECT_NE(readPartError(dir).find("terrain.r32f"), std::string::npos) << readPartError(dir);
  writeSampleTerrain(dir);
  Manifest r = readPartManifest(dir.path.string());
  EXPECT_TRUE(r.part->hasTerrain);
}

TEST(ManifestPart, RejectsInconsistentParts) {
  test::TempDir dir;
  writeManifest(dir.path.string(), samplePart());
  nlohmann::json good = readJson(dir);
  auto rejects = [&](auto edit, const std::string& expected) {
    nlohmann::json j = good;
    edit(j);
    writeJson(dir, j);
    std::string error = readPartError(dir);
    EXPECT_NE(error.find("manifest.json"), std::string::npos) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << expected << ": " << error;
  };
  rejects([](auto& j) { j.erase("part"); }, "/part: required field is missing");
  rejects([](auto& j) { j["part"]["index"] = 4; }, "/part/index: 4 is above count 3");
  rejects([](auto& j) { j["part"]["index"] = 0; }, "/part/index");
  rejects([](auto& j) { j["part"]["count"] = 0; }, "/part/count");
  rejects([](auto& j) { j["part"]["count"] = 1e30; }, "/part/count");
  rejects([](auto& j) { j["part"]["first_row"] = 3; }, "/part: tile rows 3..2");
  rejects([](auto& j) { j["part"]["last_row"] = 48; }, "/part: tile rows 0..48");
  rejects([](auto& j) { j["part"]["last_row"] = 1; }, "/tiles/2: tile row 2 is outside the part's rows 0..1");
  rejects([](auto& j) { j["part"]["first_row"] = "0"; }, "/part/first_row");
  rejects([](auto& j) { j["part"]["terrain_xxh3_64"] = "CC"; }, "/part/terrain_xxh3_64");
  rejects([](auto& j) { j["part"] = 7; }, "/part");
  rejects([](auto& j) { j["tiles"][0]["file"] = "tiles/9_9.ecot"; }, "/tiles/0/file: a part's tile files are named tiles/0_0.ecot");
  rejects([](auto& j) { j["tiles"][0]["file"] = "manifest.json"; }, "/tiles/0/file");
  rejects([](auto& j) { j["terrain"]["file"] = "tiles/0_0.ecot"; }, "/terrain/file");
  rejects([](auto& j) { j["totals"]["instances"] = 1; }, "totals");
}

// The mesh fields: written only when they say something (the kind's default form and no file
// leave a manifest's bytes as they were), read back, and hostile values refused with their
// JSON pointer; the mesh file itself is checked for size and checksum before it is read.
TEST(Manifest, MeshFieldsRoundTripAndHostileOnesAreRefused) {
  test::TempDir dir;
  writeSampleTerrain(dir);
  Manifest m = sampleManifest();
  m.species[0].meshForm = MeshForm::Broadleaf;  // the tree's default
  m.species[1].meshForm = MeshForm::GroundCover;
  writeManifest(dir.path.string(), m);
  const std::string plain = test::readBytes(dir.file("manifest.json"));
  EXPECT_EQ(plain.find("mesh_"), plain.find("mesh_height"));  // only mesh_height
  EXPECT_EQ(plain.find("mesh_form"), std::string::npos);

  const std::string glb = "a normalised GLB stands here";
  std::filesystem::create_directory(dir.path / "meshes");
  test::writeBytes(dir.file("meshes/0.glb"), glb);
  m.species[0].meshForm = MeshForm::Conifer;
  m.species[0].meshFile = "meshes/0.glb";
  m.species[0].meshBytes = glb.size();
  m.species[0].meshChecksum = checksum64({reinterpret_cast<const uint8_t*>(glb.data()), glb.size()});
  writeManifest(dir.path.string(), m);
  const nlohmann::json j = readJson(dir);
  EXPECT_EQ(j["species"][0]["mesh_form"], "conifer");
  EXPECT_EQ(j["species"][0]["mesh_file"], "meshes/0.glb");
  EXPECT_EQ(j["species"][0]["mesh_bytes"], glb.size());
  EXPECT_EQ(j["species"][0]["mesh_xxh3_64"], hex64(m.species[0].meshChecksum));
  EXPECT_FALSE(j["species"][1].contains("mesh_form"));
  const Manifest back = readManifest(dir.path.string());
  EXPECT_EQ(speciesMeshForm(back.species[0]), MeshForm::Conifer);
  EXPECT_EQ(speciesMeshForm(back.species[1]), MeshForm::GroundCover);
  EXPECT_FALSE(back.species[1].meshForm.has_value());
  EXPECT_EQ(back.species[0].meshFile, "meshes/0.glb");
  EXPECT_EQ(back.species[0].meshChecksum, m.species[0].meshChecksum);
  const std::vector<uint8_t> bytes = readMeshVerified(dir.path.string(), back.species[0]);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), glb);

  struct Bad {
    const char* key;
    nlohmann::json value;
    const char* expect;
  };
  for (const Bad& b : {Bad{"mesh_file", "../outside.glb", "/species/0/mesh_file: expected meshes/<name>.glb"},
                       Bad{"mesh_file", "/etc/passwd", "/species/0/mesh_file"},
                       Bad{"mesh_file", "meshes/../../x.glb", "/species/0/mesh_file"},
                       Bad{"mesh_file", "meshes/0.gltf", "/species/0/mesh_file"},
                       Bad{"mesh_xxh3_64", "XYZ", "/species/0/mesh_xxh3_64"},
                       Bad{"mesh_bytes", -1, "/species/0/mesh_bytes"},
                       Bad{"mesh_form", "grass", "/species/0/mesh_form: mesh form grass does not suit a tree"},
                       Bad{"mesh_form", "palm", "/species/0/mesh_form: unknown mesh form"}}) {
    nlohmann::json k = j;
    k["species"][0][b.key] = b.value;
    writeJson(dir, k);
    EXPECT_NE(readError(dir).find(b.expect), std::string::npos) << b.key << " " << b.value << ": " << readError(dir);
  }
  nlohmann::json k = j;
  k["species"][0].erase("mesh_xxh3_64");  // a file without its hash
  writeJson(dir, k);
  EXPECT_NE(readError(dir).find("/species/0/mesh_xxh3_64: required field is missing"), std::string::npos) << readError(dir);

  // a tampered file: same size, other bytes; then another size
  test::writeBytes(dir.file("meshes/0.glb"), std::string(glb.size(), 'x'));
  EXPECT_THROW(readMeshVerified(dir.path.string(), back.species[0]), InputError);
  test::writeBytes(dir.file("meshes/0.glb"), glb + "!");
  try {
    readMeshVerified(dir.path.string(), back.species[0]);
    ADD_FAILURE() << "read a file of the wrong size";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("0.glb: " + std::to_string(glb.size() + 1) + " bytes"), std::string::npos) << e.what();
  }
}
