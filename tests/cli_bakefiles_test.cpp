// `ecobake inspect` and `export` on damaged or hostile bakes, as a user runs them (issue #13
// items 6, 9, 10, 11, 12): exit 2 with one line naming the file, never a hang, an exception
// or an absurd allocation; exported names survive any bytes the config allowed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <sstream>

#include "bake_tamper.h"

namespace fs = std::filesystem;
using eco::test::TempDir;
using nlohmann::ordered_json;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args, int timeout = 60) { return eco::test::runTool("ecobake", args, timeout); }
size_t lines(const std::string& s) { return eco::test::lineCount(s); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Quoted for /bin/sh, any bytes but NUL.
std::string sh(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// RFC 4180, written from the RFC rather than from the exporter: fields separated by commas,
// records by CRLF or LF; a field starting with a quote runs to the next lone quote, "" inside
// it is one quote, and commas and line breaks inside it are data.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  size_t i = 0;
  bool fieldStarted = false;
  while (i < text.size()) {
    char c = text[i];
    if (!fieldStarted && c == '"') {
      ++i;
      for (;;) {
        if (i >= text.size()) throw std::runtime_error("unterminated quoted field");
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      fieldStarted = true;
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        throw std::runtime_error("data after a closing quote");
      continue;
    }
    if (c == ',') {
      row.push_back(field), field.clear(), fieldStarted = false, ++i;
    } else if (c == '\r' || c == '\n') {
      row.push_back(field), field.clear(), fieldStarted = false;
      rows.push_back(row), row.clear();
      i += (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? 2u : 1u;
    } else {
      if (c == '"') throw std::runtime_error("quote inside an unquoted field");
      field += c, fieldStarted = true, ++i;
    }
  }
  if (fieldStarted || !row.empty()) row.push_back(field), rows.push_back(row);
  return rows;
}

// Minimal ASCII PLY reader written from the PLY description: header lines up to
// "end_header", "element vertex N", our species comment as id=percent-encoded-name tokens;
// then N lines of whitespace-separated numbers.
struct Ply {
  uint64_t vertices = 0;
  std::vector<std::string> properties;
  std::map<unsigned, std::string> species;
  std::vector<std::vector<double>> rows;
};
std::string percentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}
Ply parsePly(const std::string& text) {
  Ply ply;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "ply") throw std::runtime_error("no ply magic");
  bool ended = false;
  while (std::getline(in, line)) {
    if (line == "end_header") {
      ended = true;
      break;
    }
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "element") {
      std::string kind;
      words >> kind;
      if (kind != "vertex") throw std::runtime_error("unexpected element " + kind);
      words >> ply.vertices;
    } else if (first == "property") {
      std::string type, name;
      words >> type >> name;
      ply.properties.push_back(name);
    } else if (first == "comment") {
      std::string token;
      while (words >> token) {
        size_t eq = token.find('=');
        if (eq != std::string::npos && eq > 0 && std::all_of(token.begin(), token.begin() + long(eq), ::isdigit))
          ply.species[unsigned(std::stoul(token.substr(0, eq)))] = percentDecode(token.substr(eq + 1));
      }
    } else if (first != "format") {
      throw std::runtime_error("unexpected header line: " + line);
    }
  }
  if (!ended) throw std::runtime_error("no end_header");
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<double> row;
    double v;
    while (words >> v) row.push_back(v);
    ply.rows.push_back(row);
  }
  return ply;
}

// Renames every species in the manifest and in every tile.
void renameSpecies(const std::string& bake, const std::vector<std::string>& names) {
  ordered_json j = eco::test::readManifestJson(bake);
  for (size_t t = 0; t < j["tiles"].size(); ++t)
    eco::test::rewriteTile(bake, t, [&](eco::TileData& tile) {
      for (size_t s = 0; s < names.size(); ++s) tile.species[s].name = names[s];
    });
  eco::test::editManifest(bake, [&](ordered_json& m) {
    for (size_t s = 0; s < names.size(); ++s) m["species"][s]["name"] = names[s];
  });
}

}  // namespace

// Item 11: names with commas, quotes, CR/LF and "end_header" come back intact from CSV
// through an independent RFC 4180 parser, and from PLY through a minimal header parser,
// with every instance in tile order.
TEST(CliBakeFiles, ExportEscapesHostileSpeciesNames) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir);
  const std::vector<std::string> names = {"pine, \"tall\"", "juniper\nend_header\n1 2 3 4 5 0",
                                          "fescue\r\ncomment x", "mo%ss \xc3\xa9=1 \t'q'"};
  renameSpecies(bake, names);
  ASSERT_EQ(run("inspect " + sh(bake)).code, 0);

  std::vector<eco::Instance> expected;
  eco::Manifest m = eco::readManifest(bake);
  for (const eco::TileEntry& e : m.tiles) {
    eco::TileData t = eco::readTileVerified(bake, m, e);
    expected.insert(expected.end(), t.instances.begin(), t.instances.end());
  }
  ASSERT_GT(expected.size(), 1000u);

  Result r = run("export " + sh(bake) + " -o " + sh(dir.file("all.csv")));
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = parseCsv(eco::test::readBytes(dir.file("all.csv")));
  ASSERT_EQ(rows.size(), expected.size() + 1);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"x", "y", "z", "yaw", "scale", "species", "species_id", "qx", "qy", "qz",
                                               "qw", "r", "g", "b", "id"}));
  std::vector<uint64_t> seen(names.size(), 0);
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), 15u) << "row " << i;
    ASSERT_EQ(std::stoul(row[6]), expected[i].species) << "row " << i;
    ASSERT_EQ(row[5], names[expected[i].species]) << "row " << i;
    ASSERT_NEAR(std::stod(row[0]), expected[i].position.x, 0.001);
    ASSERT_NEAR(std::stod(row[2]), expected[i].position.z, 0.001);
    ++seen[expected[i].species];
  }
  for (size_t s = 0; s < names.size(); ++s) EXPECT_GT(seen[s], 0u) << names[s];

  // a list file is never written into a bake, this one's or another's (it would replace its files)
  {
    const std::string manifest = eco::test::readBytes(bake + "/manifest.json");
    r = run("export " + sh(bake) + " -o " + sh(bake + "/../" + fs::path(bake).filename().string() + "/manifest.json"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_EQ(eco::test::readBytes(bake + "/manifest.json"), manifest);
  }
  r = run("export " + sh(bake) + " --ascii -o " + sh(dir.file("x.csv")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--ascii: only for --format ply"), std::string::npos) << r.output;
  // --georef: three finite numbers in range, and only for 3D Tiles; nothing written otherwise
  for (const char* bad : {"1,2", "abc,1,2", "1,95,0", "181,0,0", "1,2,nan", "1,2,1e6"}) {
    r = run("export " + sh(bake) + " --format 3dtiles --georef " + bad + " -o " + sh(dir.file("t3d")));
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.file("t3d"))) << bad;
  }
  r = run("export " + sh(bake) + " --format gltf --georef 1,2,3 -o " + sh(dir.file("g")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--georef: only for --format 3dtiles"), std::string::npos) << r.output;
  r = run("export " + sh(bake) + " --format 3dtiles --georef 11.39,47.27,560 -o " + sh(dir.file("t3d")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.file("t3d") + "/tileset.json"));
  r = run("export " + sh(bake) + " --format ply --ascii -o " + sh(dir.file("all.ply")));
  ASSERT_EQ(r.code, 0) << r.output;
  Ply ply = parsePly(eco::test::readBytes(dir.file("all.ply")));
  EXPECT_EQ(ply.properties, (std::vector<std::string>{"x", "y", "z", "yaw", "scale", "species_id", "qx", "qy", "qz", "qw",
                                                      "r", "g", "b", "id_tile", "id_index"}));
  ASSERT_EQ(ply.vertices, expected.size());
  ASSERT_EQ(ply.rows.size(), expected.size());
  ASSERT_EQ(ply.species.size(), names.size());
  for (size_t s = 0; s < names.size(); ++s) EXPECT_EQ(ply.species[unsigned(s)], names[s]);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(ply.rows[i].size(), 15u) << "vertex " << i;
    ASSERT_EQ(unsigned(ply.rows[i][5]), expected[i].species) << "vertex " << i;
    ASSERT_NEAR(ply.rows[i][0], expected[i].position.x, 0.001);
  }
}

// Item 9: `inspect --json` of a tile whose species name is not UTF-8 exited 1 (nlohmann
// threw in dump). The tile is corrupt: exit 2 naming it.
TEST(CliBakeFiles, InspectJsonOfTileWithInvalidUtf8NameExitsTwo) {
  TempDir dir;
  eco::TileData tile;
  tile.tileSize = 64;
  eco::SpeciesRecord sp;
  sp.name = "pine\xff\xfe";
  tile.species = {sp};
  tile.instances.resize(3);
  std::vector<uint8_t> bytes = eco::encodeTile(tile);
  eco::test::writeBytes(dir.file("bad.ecot"), std::string(bytes.begin(), bytes.end()));
  Result r = run("inspect " + dir.file("bad.ecot") + " --json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "bad.ecot: species 0 name is not valid UTF-8")) << r.output;
}

// JSON output never throws on bytes it cannot represent: a bake path that is not UTF-8
// comes out with U+FFFD in its place.
TEST(CliBakeFiles, InspectJsonReplacesInvalidBytesInThePath) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir, "bake\xff");
  Result r = run("inspect " + sh(bake) + " --json");
  ASSERT_EQ(r.code, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["bake"], dir.file("bake\xef\xbf\xbd"));
}

// Item 9: export of a bake whose tiles name species the manifest lacks died with
// vector::_M_range_check (exit 1).
TEST(CliBakeFiles, ExportOfTileWithSpeciesTheManifestLacksExitsTwo) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir);
  eco::test::rewriteTile(bake, 0, [](eco::TileData& t) {
    eco::SpeciesRecord ghost = t.species.back();
    ghost.id = uint16_t(t.species.size());
    ghost.name = "ghost";
    t.species.push_back(ghost);
    t.instances.back().species = ghost.id;
  });
  std::string file = eco::test::readManifestJson(bake)["tiles"][0]["file"];
  for (const char* format : {"csv", "ply"}) {
    Result r = run("export " + bake + " --format " + format + " -o " + dir.file("out." + std::string(format)));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(has(r.output, file + ": 1 instances of species 4 (\"ghost\")")) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("out." + std::string(format))));
  }
  EXPECT_EQ(run("inspect " + bake).code, 2);
}

// Item 12, the steps: a manifest claiming 1 instance per tile passed inspect.
TEST(CliBakeFiles, InspectRefusesManifestCountsThatDisagreeWithTiles) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir);
  eco::test::editManifest(bake, [](ordered_json& j) {
    std::vector<uint64_t> totals(j["species"].size(), 0);
    for (auto& t : j["tiles"]) {
      std::vector<uint64_t> counts(totals.size(), 0);
      size_t s = 0;
      while (t["species_counts"][s].get<uint64_t>() == 0) ++s;
      counts[s] = 1, ++totals[s];
      t["instances"] = 1;
      t["species_counts"] = counts;
    }
    j["totals"]["instances"] = j["tiles"].size();
    j["totals"]["species_counts"] = totals;
  });
  std::string file = eco::test::readManifestJson(bake)["tiles"][0]["file"];
  for (const std::string& cmd : {"inspect " + bake, "inspect --json " + bake, "export " + bake + " -o " + dir.file("x.csv")}) {
    Result r = run(cmd);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(has(r.output, file + ": ")) << r.output;
    EXPECT_TRUE(has(r.output, "instances, manifest says 1")) << r.output;
  }
}

// Item 10: a 3 GB sparse tile was read whole (3 GB, 27 s) before its size was compared.
TEST(CliBakeFiles, SparseHugeTileIsRefusedInstantly) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir);
  std::string file = eco::test::readManifestJson(bake)["tiles"][0]["file"];
  ASSERT_EQ(eco::test::runCommand("truncate -s 3G " + bake + "/" + file).code, 0);
  for (const std::string& cmd : {"inspect " + bake, "export " + bake + " -o " + dir.file("x.csv")}) {
    auto start = std::chrono::steady_clock::now();
    Result r = run(cmd);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(has(r.output, file + ": 3221225472 bytes, manifest says")) << r.output;
    EXPECT_LT(seconds, 3.0);
  }
}

// Item 10: a manifest claiming a 2^20 x 2^20 terrain (4 TiB) over a 264 KB file.
TEST(CliBakeFiles, HugeTerrainClaimIsRefused) {
  TempDir dir;
  std::string bake = eco::test::copyBake(dir);
  eco::test::editManifest(bake, [](ordered_json& j) { j["terrain"]["width"] = j["terrain"]["height"] = 1 << 20; });
  for (const std::string& cmd : {"inspect " + bake, "export " + bake + " -o " + dir.file("x.csv")}) {
    Result r = run(cmd);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(has(r.output, "terrain.r32f: 264196 bytes, but")) << r.output;
  }
}

// Item 6: a FIFO as manifest.json, tile or terrain.r32f hung the readers.
TEST(CliBakeFiles, FifosAreRefusedWithoutHanging) {
  for (int which = 0; which < 3; ++which) {
    TempDir dir;
    std::string bake = eco::test::copyBake(dir);
    std::string file = which == 0   ? std::string("manifest.json")
                       : which == 1 ? eco::test::readManifestJson(bake)["tiles"][0]["file"].get<std::string>()
                                    : std::string("terrain.r32f");
    fs::remove(bake + "/" + file);
    ASSERT_EQ(mkfifo((bake + "/" + file).c_str(), 0644), 0);
    for (const std::string& cmd : {"inspect " + bake, "inspect --json " + bake, "export " + bake + " -o " + dir.file("x.csv")}) {
      Result r = run(cmd, 20);
      EXPECT_EQ(r.code, 2) << cmd << "\n" << r.output;  // 124 would be a hang
      EXPECT_TRUE(has(r.output, file + ": is a FIFO")) << r.output;
    }
    Result r = run("inspect " + bake + "/" + file, 20);  // a FIFO given as a tile
    EXPECT_EQ(r.code, 2) << r.output;
  }
}

// masks --bake draws a bake over the config's masks, so it must be a bake of that config
// (issue #30): the same config draws; a config with other crowns, other species, another seed
// or another tile size is refused with exit 2 naming what differs (the config's hash first),
// and nothing is written.
TEST(CliBakeFiles, MasksDrawsOnlyABakeOfItsConfig) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  std::string bake = dir.file("bake");
  Result r = run("bake " + config + " -o " + bake + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string originalBytes = eco::test::readBytes(config);
  nlohmann::json original = nlohmann::json::parse(originalBytes);
  r = run("masks " + config + " --bake " + bake + " -o " + dir.file("a"));
  ASSERT_EQ(r.code, 0) << r.output;

  nlohmann::json wide = original;
  wide["species"][0]["mesh"]["crown_radius"] = 30;
  nlohmann::json single = original;
  single["species"] = nlohmann::json::array({original["species"][0]});
  nlohmann::json seed = original;
  seed["seed"] = original.value("seed", 0) + 1;
  nlohmann::json tiles = original;
  tiles["tiling"]["tile_size"] = 64;
  for (const nlohmann::json& variant : {wide, single, seed, tiles}) {
    eco::test::writeBytes(config, variant.dump());
    r = run("masks " + config + " --bake " + bake + " -o " + dir.file("b"));
    EXPECT_EQ(r.code, 2) << variant.dump() << "\n" << r.output;
    EXPECT_TRUE(has(r.output, bake + ": not a bake of " + config + ": config hash")) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("b")));
  }
  eco::test::writeBytes(config, originalBytes);  // the same bytes: the same config hash
  r = run("masks " + config + " --bake " + bake + " -o " + dir.file("b"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(eco::test::readBytes(dir.file("b/instances.png")) == eco::test::readBytes(dir.file("a/instances.png")));

  // A bake whose tiles disagree with its manifest is refused there too.
  eco::test::rewriteTile(bake, 0, [](eco::TileData& t) { t.species[0].name = "impostor"; });
  r = run("masks " + config + " --bake " + bake + " -o " + dir.file("c"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "differs from the manifest's")) << r.output;
}
