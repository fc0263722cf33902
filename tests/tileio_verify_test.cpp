// Readers against damaged bakes (issue #13 items 9, 10, 12): every claim of the manifest is
// checked against the files and the decoded tiles before anything is sized from it.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <functional>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "bake_tamper.h"
#include "core/error.h"

namespace fs = std::filesystem;
using namespace eco;
using eco::test::TempDir;
using nlohmann::ordered_json;

namespace {

// The InputError message of f(), or "" when it does not throw one.
template <class F>
std::string inputError(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string verifyAllError(const std::string& bake) {
  return inputError([&] {
    Manifest m = readManifest(bake);
    for (const TileEntry& e : m.tiles) readTileVerified(bake, m, e);
  });
}

long maxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST(TileVerify, PristineBakeVerifies) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  EXPECT_EQ(verifyAllError(bake), "");
  // Re-encoding a tile unchanged keeps it valid: the tampering helper itself is sound.
  test::rewriteTile(bake, 0, [](TileData&) {});
  EXPECT_EQ(verifyAllError(bake), "");
}

// Item 12: "a manifest claiming 1 instance per tile passes inspect".
TEST(TileVerify, ManifestClaimingOneInstancePerTileIsRefused) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::editManifest(bake, [](ordered_json& j) {
    uint64_t total = 0;
    std::vector<uint64_t> totals(j["species"].size(), 0);
    for (auto& t : j["tiles"]) {
      std::vector<uint64_t> counts(j["species"].size(), 0);
      for (size_t s = 0; s < counts.size(); ++s)
        if (t["species_counts"][s].get<uint64_t>() > 0) {
          counts[s] = 1;
          break;
        }
      for (size_t s = 0; s < counts.size(); ++s) totals[s] += counts[s];
      t["instances"] = 1;
      t["species_counts"] = counts;
      ++total;
    }
    j["totals"]["instances"] = total;
    j["totals"]["species_counts"] = totals;
  });
  ordered_json j = test::readManifestJson(bake);
  std::string file = j["tiles"][0]["file"];
  std::string error = verifyAllError(bake);
  EXPECT_NE(error.find(file + ": "), std::string::npos) << error;
  EXPECT_NE(error.find("instances, manifest says 1"), std::string::npos) << error;
}

TEST(TileVerify, PerSpeciesCountsMustMatchTheTile) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  ordered_json j = test::readManifestJson(bake);
  size_t index = test::tileWithTwoSpecies(j);
  // Same total, counts moved from one species to another: only the per-species check sees it.
  test::editManifest(bake, [&](ordered_json& m) {
    auto& counts = m["tiles"][index]["species_counts"];
    auto& totals = m["totals"]["species_counts"];
    size_t a = 0;
    while (counts[a].get<uint64_t>() == 0) ++a;
    size_t b = (a + 1) % counts.size();
    counts[a] = counts[a].get<uint64_t>() - 1;
    counts[b] = counts[b].get<uint64_t>() + 1;
    totals[a] = totals[a].get<uint64_t>() - 1;
    totals[b] = totals[b].get<uint64_t>() + 1;
  });
  std::string error = verifyAllError(bake);
  EXPECT_NE(error.find(j["tiles"][index]["file"].get<std::string>()), std::string::npos) << error;
  EXPECT_NE(error.find("instances of species"), std::string::npos) << error;
}

TEST(TileVerify, TileCoordinatesMustMatchTheEntry) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::rewriteTile(bake, 0, [](TileData& t) { t.tileX += 1; });
  std::string error = verifyAllError(bake);
  EXPECT_NE(error.find("but the manifest lists it as tile"), std::string::npos) << error;
}

TEST(TileVerify, TileSizeMustMatchTheTiling) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::rewriteTile(bake, 0, [](TileData& t) { t.tileSize *= 2; });
  std::string error = verifyAllError(bake);
  EXPECT_NE(error.find("tiling.tile_size"), std::string::npos) << error;
}

TEST(TileVerify, SpeciesTableMustEqualTheManifests) {
  for (int field = 0; field < 3; ++field) {
    TempDir dir;
    std::string bake = test::copyBake(dir);
    test::rewriteTile(bake, 0, [&](TileData& t) {
      if (field == 0) t.species[1].name = "impostor";
      if (field == 1) t.species[1].crownRadius += 1;
      if (field == 2) t.species[1].baseColor ^= 0x10;
    });
    std::string error = verifyAllError(bake);
    EXPECT_NE(error.find("species 1 "), std::string::npos) << error;
    EXPECT_NE(error.find(field == 0 ? "in its name" : field == 1 ? "in its crown_radius" : "in its base_color"),
              std::string::npos)
        << error;
  }
}

// Item 9: the tile names a species the manifest lacks (export died in vector::at).
TEST(TileVerify, TileSpeciesOutsideTheManifestNamesTileAndId) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::rewriteTile(bake, 0, [](TileData& t) {
    SpeciesRecord ghost = t.species.back();
    ghost.id = uint16_t(t.species.size());
    ghost.name = "ghost";
    t.species.push_back(ghost);
    for (Instance& in : t.instances) in.species = ghost.id;
  });
  ordered_json j = test::readManifestJson(bake);
  std::string error = verifyAllError(bake);
  EXPECT_NE(error.find(j["tiles"][0]["file"].get<std::string>()), std::string::npos) << error;
  EXPECT_NE(error.find("species 4 (\"ghost\")"), std::string::npos) << error;
  EXPECT_NE(error.find("lacks"), std::string::npos) << error;

  // An extra, unused species in the tile is still a different table.
  TempDir dir2;
  bake = test::copyBake(dir2);
  test::rewriteTile(bake, 0, [](TileData& t) {
    SpeciesRecord extra = t.species.back();
    extra.id = uint16_t(t.species.size());
    t.species.push_back(extra);
  });
  error = verifyAllError(bake);
  EXPECT_NE(error.find("species table of 5 species, the manifest lists 4"), std::string::npos) << error;
}

// Item 10: "a 3 GB sparse tile costs 3 GB and 27 s".
TEST(TileVerify, SparseThreeGigabyteTileIsRefusedWithoutReadingIt) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  Manifest m = readManifest(bake);
  fs::resize_file(bake + "/" + m.tiles[0].file, uint64_t(3) << 30);
  long rssBefore = maxRssKb();
  auto start = std::chrono::steady_clock::now();
  std::string error = inputError([&] { readTileVerified(bake, m, m.tiles[0]); });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(error.find(m.tiles[0].file + ": 3221225472 bytes, manifest says"), std::string::npos) << error;
  EXPECT_LT(seconds, 0.5);
  EXPECT_LT(maxRssKb() - rssBefore, 64 * 1024) << "KB of peak RSS added";
}

// Item 10: "the viewer zero-fills 4 GB for a manifest's claimed terrain before noticing a
// 66 KB file". readManifest now refuses the claim, so no reader reaches the allocation.
TEST(TileVerify, TerrainClaimIsCheckedAgainstTheFile) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::editManifest(bake, [](ordered_json& j) {
    j["terrain"]["width"] = 1 << 20;
    j["terrain"]["height"] = 1 << 20;
  });
  long rssBefore = maxRssKb();
  std::string error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("terrain.r32f: 264196 bytes, but"), std::string::npos) << error;
  EXPECT_NE(error.find("1048576 x 1048576"), std::string::npos) << error;
  EXPECT_LT(maxRssKb() - rssBefore, 64 * 1024);

  test::editManifest(bake, [](ordered_json& j) { j["terrain"]["width"] = j["terrain"]["height"] = 257; });
  EXPECT_EQ(verifyAllError(bake), "");
  fs::remove(bake + "/terrain.r32f");
  EXPECT_NE(inputError([&] { readManifest(bake); }).find("terrain.r32f: file not found"), std::string::npos);
}

TEST(TileVerify, InstanceClaimsMustFitTheClaimedBytes) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::editManifest(bake, [](ordered_json& j) {
    auto& t = j["tiles"][0];
    uint64_t add = 1000000000ull - t["instances"].get<uint64_t>();
    size_t s = 0;
    while (t["species_counts"][s].get<uint64_t>() == 0) ++s;
    t["instances"] = 1000000000ull;
    t["species_counts"][s] = t["species_counts"][s].get<uint64_t>() + add;
    j["totals"]["instances"] = j["totals"]["instances"].get<uint64_t>() + add;
    j["totals"]["species_counts"][s] = j["totals"]["species_counts"][s].get<uint64_t>() + add;
  });
  std::string error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("/tiles/0/instances: 1000000000 instances cannot fit in"), std::string::npos) << error;

  test::editManifest(bake, [](ordered_json& j) { j["tiles"][0]["bytes"] = uint64_t(1) << 40; });
  error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("/tiles/0/bytes"), std::string::npos) << error;
}

TEST(TileVerify, SpeciesCountsCannotWrapAroundToMatch) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  // counts {2^64 - 1, 2, 0, 0} add up to 1 modulo 2^64.
  test::editManifest(bake, [](ordered_json& j) {
    const uint64_t big = std::numeric_limits<uint64_t>::max();
    std::vector<uint64_t> totals(4, 0);
    for (auto& t : j["tiles"]) {
      t["instances"] = 1;
      t["species_counts"] = std::vector<uint64_t>{1, 0, 0, 0};
    }
    j["tiles"][0]["species_counts"] = std::vector<uint64_t>{big, 2, 0, 0};
    uint64_t n = j["tiles"].size();
    totals = {n - 1 + big, 2, 0, 0};  // wraps exactly like the reader's own sum
    j["totals"]["instances"] = n;
    j["totals"]["species_counts"] = totals;
  });
  std::string error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("/tiles/0/species_counts: a count is larger than instances"), std::string::npos) << error;
}

TEST(TileVerify, FloatFieldsMustFitAFloat) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::editManifest(bake, [](ordered_json& j) { j["world"]["max_y"] = 1e39; });
  std::string error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("/world/max_y: out of float range"), std::string::npos) << error;
}

// A hostile tester's manifest with world.size_x = -768 was accepted by every reader.
TEST(TileVerify, WorldSizeMustBeTheTerrainsExtent) {
  TempDir dir;
  for (double bad : {-768.0, 0.0, 1e6}) {
    std::string bake = test::copyBake(dir, "bake" + std::to_string(int(bad)));
    test::editManifest(bake, [bad](ordered_json& j) { j["world"]["size_x"] = bad; });
    std::string error = inputError([&] { readManifest(bake); });
    EXPECT_NE(error.find("/world/size_x: is "), std::string::npos) << error;
  }
  std::string bake = test::copyBake(dir, "inverted");
  test::editManifest(bake, [](ordered_json& j) { j["world"]["min_y"] = j["world"]["max_y"].get<double>() + 1; });
  EXPECT_NE(inputError([&] { readManifest(bake); }).find("min_y is above max_y"), std::string::npos);
}

TEST(TileVerify, ManifestWithMoreSpeciesThanIdsIsRefused) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  test::editManifest(bake, [](ordered_json& j) {
    ordered_json one = j["species"][0];
    j["species"] = ordered_json::array();
    for (int i = 0; i < 65537; ++i) j["species"].push_back(one);
  });
  std::string error = inputError([&] { readManifest(bake); });
  EXPECT_NE(error.find("65537 species, at most 65536"), std::string::npos) << error;
}

// Lead's request: never a manifest with `null` for an overflowed float.
TEST(TileVerify, WriteManifestRefusesNonFiniteNumbers) {
  TempDir dir;
  std::string bake = test::copyBake(dir);
  Manifest m = readManifest(bake);
  std::string before = test::readBytes(bake + "/manifest.json");
  for (float bad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    Manifest broken = m;
    broken.species[2].meshHeight = bad;
    try {
      writeManifest(bake, broken);
      ADD_FAILURE() << "wrote a manifest with " << bad;
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("/species/2/mesh_height is not finite"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::readBytes(bake + "/manifest.json"), before);
  }
  m.world.maxY = std::numeric_limits<float>::infinity();
  EXPECT_THROW(writeManifest(bake, m), std::logic_error);
  EXPECT_EQ(test::readBytes(bake + "/manifest.json"), before);
}

// Item 9: species names are UTF-8 or the tile is corrupt; a reference list of byte strings
// written from the UTF-8 definition (RFC 3629), not from the decoder.
TEST(TileVerify, SpeciesNamesMustBeValidUtf8) {
  struct Case {
    std::string name;
    bool valid;
  };
  const Case cases[] = {
      {"pine", true},
      {"\xc3\xa9pic\xc3\xa9" "a", true},                  // épicéa
      {"\xe6\x9d\xbe", true},                             // 松
      {"\xf0\x9f\x8c\xb2", true},                         // U+1F332
      {"\xef\xbf\xbd", true},                             // U+FFFD
      {"pine\xff", false},                                // never in UTF-8
      {"\xc3", false},                                    // truncated 2-byte sequence
      {"\xc0\xaf", false},                                // overlong '/'
      {"\xe0\x80\xaf", false},                            // overlong '/', 3 bytes
      {"\xed\xa0\x80", false},                            // surrogate U+D800
      {"\xf4\x90\x80\x80", false},                        // U+110000
      {"\x80", false},                                    // lone continuation byte
      {"\xe6\x9d" "a", false},                            // continuation expected
  };
  for (const Case& c : cases) {
    TileData tile;
    tile.tileSize = 64;
    SpeciesRecord sp;
    sp.name = c.name;
    tile.species = {sp};
    tile.instances.resize(2);
    std::vector<uint8_t> bytes = encodeTile(tile);
    std::string error = inputError([&] { decodeTile(bytes.data(), bytes.size(), "t.ecot"); });
    if (c.valid) {
      EXPECT_EQ(error, "") << c.name;
    } else {
      EXPECT_EQ(error, "t.ecot: species 0 name is not valid UTF-8") << c.name;
    }
  }
}

namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// Issue #30: a bake's files lie inside its folder. The terrain, a tile and a layer replaced by
// links to identical copies elsewhere (size and checksum still match) are refused naming the
// file and where it leads; a link to a copy inside the bake, or to the bake folder, is read.
TEST(TileVerify, FilesLinkedOutsideTheBakeAreRefused) {
  TempDir dir;
  const std::string bake = eco::test::copyBake(dir);
  const Manifest m = readManifest(bake);
  ASSERT_FALSE(m.tiles.empty());
  auto relink = [&](const std::string& rel, const std::string& to) {
    const std::string member = bake + "/" + rel;
    if (!fs::exists(member + ".orig")) fs::rename(member, member + ".orig");
    fs::remove(member);
    fs::copy_file(member + ".orig", to, fs::copy_options::overwrite_existing);
    fs::create_symlink(to, member);
  };
  fs::create_directories(dir.file("elsewhere"));
  fs::create_directories(bake + "/copies");
  const std::vector<std::pair<std::string, std::function<void()>>> files = {
      {m.terrain.file, [&] { readTerrainRaw(bake, m); }},
      {m.tiles[0].file, [&] { readTileVerified(bake, m, m.tiles[0]); }},
  };
  for (const auto& [rel, read] : files) {
    relink(rel, dir.file("elsewhere/copy"));
    const std::string e = errorOf(read);
    EXPECT_NE(e.find(bake + "/" + rel + ": leads to " + fs::canonical(dir.file("elsewhere/copy")).string() +
                     ", outside the bake folder"),
              std::string::npos)
        << e;
    relink(rel, bake + "/copies/copy");
    EXPECT_EQ(errorOf(read), "(no error)") << rel;
  }
  fs::create_symlink(bake, dir.file("link-to-bake"));
  EXPECT_EQ(errorOf([&] { readTileVerified(dir.file("link-to-bake"), m, m.tiles[0]); }), "(no error)");
}
