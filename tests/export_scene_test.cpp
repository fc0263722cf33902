// The USD and glTF exports (issue #17): what tests/interop/export_interop.mjs cannot see from
// outside: the half rounding of quath components against every half value, prim names,
// filters, and the rules of the output folder. The instances themselves are checked by that
// interop test against readers this project did not write.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "bake_world.h"
#include "export/writers.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

// Every finite half-precision value from its bit pattern, by the IEEE 754 binary16 definition
// (1 sign, 5 exponent bits with bias 15, 10 mantissa bits; exponent 0 subnormal).
float halfValue(uint16_t bits) {
  const int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  const float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                                        : std::ldexp(float(1024 + mantissa), exponent - 25);
  return bits & 0x8000 ? -magnitude : magnitude;
}

struct Half {
  float value;
  uint16_t bits;
};

// The nearest half by search over all of them; a tie goes to the even bit pattern.
float nearestHalf(const std::vector<Half>& halves, float v) {
  auto it = std::lower_bound(halves.begin(), halves.end(), v, [](const Half& h, float x) { return h.value < x; });
  if (it == halves.end()) return halves.back().value;
  if (it == halves.begin()) return it->value;
  const Half& above = *it;
  const Half& below = *(it - 1);
  const double dAbove = double(above.value) - double(v), dBelow = double(v) - double(below.value);
  if (dAbove != dBelow) return dAbove < dBelow ? above.value : below.value;
  return (above.bits & 1) == 0 ? above.value : below.value;
}

eco::test::CommandResult ecobake(const std::string& args) { return eco::test::runTool("ecobake", args); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

nlohmann::json readJson(const std::string& path) { return nlohmann::json::parse(eco::test::readBytes(path)); }

// The JSON chunk of a GLB.
nlohmann::json glbJson(const std::string& path) {
  const std::string bytes = eco::test::readBytes(path);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.substr(20, length));
}

size_t csvCount(const std::string& path) { return eco::test::lineCount(eco::test::readBytes(path)) - 1; }

}  // namespace

TEST(ExportScene, HalfRoundingIsNearestOfAllHalvesTiesToEven) {
  std::vector<Half> halves;
  for (uint32_t b = 0; b < 65536; ++b)
    if (((b >> 10) & 31) != 31 && b != 0x8000) halves.push_back({halfValue(uint16_t(b)), uint16_t(b)});
  std::sort(halves.begin(), halves.end(), [](const Half& a, const Half& b) { return a.value < b.value; });

  std::vector<float> probes;
  for (size_t i = 0; i + 1 < halves.size(); ++i) {
    const float a = halves[i].value, b = halves[i + 1].value;
    if (std::fabs(a) > 2.f) continue;  // quaternion components are in [-1, 1]
    const float mid = float((double(a) + double(b)) / 2);  // exact for neighbours this small
    probes.insert(probes.end(), {a, mid, std::nextafter(mid, a), std::nextafter(mid, b)});
  }
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (int i = 0; i < 200000; ++i) probes.push_back(uniform(rng));
  probes.insert(probes.end(), {0.f, -0.f, 1.f, -1.f, 1e-8f, -3e-8f, 6.0975552e-5f, 6.1035156e-5f});

  int wrong = 0;
  for (float v : probes) {
    const float want = nearestHalf(halves, v), got = eco::roundToHalf(v);
    if (got != want && ++wrong <= 5) ADD_FAILURE() << v << ": " << got << ", nearest half " << want;
  }
  EXPECT_EQ(wrong, 0) << probes.size() << " probes";
}

TEST(ExportScene, UsdPrimNamesAreIdentifiersDistinctPerSpecies) {
  const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
  std::set<std::string> seen;
  const char* names[] = {"oak", "oak ", "Oak (old)", "h\xc3\xa9tre", "9lives", "a-b.c", "a_b_c"};
  uint16_t id = 0;
  for (const char* name : names) {
    eco::SpeciesRecord s;
    s.id = id++;
    s.name = name;
    const std::string prim = eco::usdPrimName(s);
    EXPECT_TRUE(std::regex_match(prim, identifier)) << prim;
    EXPECT_TRUE(seen.insert(prim).second) << prim;
  }
}

// Filters select the same instances in every format: the folder's export.json counts equal the
// CSV export's rows for the same filter, and only kept species appear in the files.
TEST(ExportScene, FiltersSelectTheSameInstancesAsCsv) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  const std::string bake = dir.file("bake");
  ASSERT_EQ(ecobake("bake " + config + " -o " + bake + " -q").code, 0);
  const eco::Manifest m = eco::readManifest(bake);
  ASSERT_GE(m.species.size(), 2u);
  const std::string kept = m.species[1].name;

  for (const std::string& filter : {std::string(), "--species " + kept, std::string("--region 100,150,400,420"),
                                   std::string("--tiles 1,0,2,1")}) {
    ASSERT_EQ(ecobake("export " + bake + " -o " + dir.file("f.csv") + " -q " + filter).code, 0) << filter;
    const size_t rows = csvCount(dir.file("f.csv"));
    EXPECT_GT(rows, 0u) << filter;
    for (const char* format : {"usd", "gltf"}) {
      const std::string out = dir.file(std::string("scene-") + format);
      const auto r = ecobake("export " + bake + " --format " + format + " -o " + out + " -q " + filter);
      ASSERT_EQ(r.code, 0) << format << " " << filter << ": " << r.output;
      const nlohmann::json index = readJson(out + "/export.json");
      EXPECT_EQ(index["instances"].get<size_t>(), rows) << format << " " << filter;
      size_t sum = 0;
      for (const auto& t : index["tiles"]) {
        sum += t["instances"].get<size_t>();
        EXPECT_TRUE(fs::is_regular_file(out + "/" + t["file"].get<std::string>())) << t;
      }
      EXPECT_EQ(sum, rows) << format << " " << filter;
      if (filter.rfind("--species", 0) != 0) continue;
      // Only the kept species: one prototype, one node per tile.
      EXPECT_EQ(index["species"].size(), 1u);
      for (const auto& t : index["tiles"]) {
        const std::string file = out + "/" + t["file"].get<std::string>();
        if (std::string(format) == "usd") {
          const std::string text = eco::test::readBytes(file);
          EXPECT_TRUE(has(text, "rel prototypes = [</tile/Prototypes/sp1_")) << file;
          EXPECT_FALSE(has(text, "</tile/Prototypes/sp0_")) << file;
        } else {
          const nlohmann::json gltf = glbJson(file);
          ASSERT_EQ(gltf["nodes"].size(), 2u) << file;
          EXPECT_EQ(gltf["nodes"][1]["name"], kept);
        }
      }
    }
  }
}

// The folder rules of every ecobake output: a folder that is not a previous export (a user's
// files, a file, the bake itself) is refused in one line with exit 2 and left as it was; a
// previous export of either format is replaced whole.
TEST(ExportScene, OutputFolderReplacesOnlyAPreviousExport) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  const std::string bake = dir.file("bake");
  ASSERT_EQ(ecobake("bake " + config + " -o " + bake + " -q").code, 0);

  fs::create_directories(dir.file("precious"));
  eco::test::writeBytes(dir.file("precious/thesis.txt"), "years of work");
  eco::test::writeBytes(dir.file("plain.txt"), "a file");
  for (const char* format : {"csv", "usd", "gltf"}) {
    const auto r = ecobake("export " + bake + " --format " + format + " -o '' -q");
    EXPECT_EQ(r.code, 2) << format << ": " << r.output;
    EXPECT_TRUE(has(r.output, "output name is empty")) << r.output;
  }
  for (const std::string& target : {dir.file("precious"), dir.file("plain.txt"), bake + "/scene"}) {
    for (const char* format : {"usd", "gltf"}) {
      const auto r = ecobake("export " + bake + " --format " + format + " -o " + target + " -q");
      EXPECT_EQ(r.code, 2) << target << ": " << r.output;
      EXPECT_EQ(eco::test::lineCount(r.output), 1u) << r.output;
      EXPECT_TRUE(has(r.output, target)) << r.output;
    }
  }
  EXPECT_EQ(eco::test::readBytes(dir.file("precious/thesis.txt")), "years of work");
  EXPECT_EQ(eco::test::readBytes(dir.file("plain.txt")), "a file");
  EXPECT_FALSE(fs::exists(bake + "/scene"));

  const std::string out = dir.file("scene");
  ASSERT_EQ(ecobake("export " + bake + " --format usd -o " + out + " -q").code, 0);
  EXPECT_TRUE(fs::exists(out + "/world.usda"));
  ASSERT_EQ(ecobake("export " + bake + " --format gltf -o " + out + " -q").code, 0);
  EXPECT_FALSE(fs::exists(out + "/world.usda")) << "a stale file of the previous export survived";
  EXPECT_EQ(readJson(out + "/export.json")["type"], "gltf");
  // A big world's index is large (the sample's 2,304 tiles: 230 KB); it still marks the
  // folder as a previous export.
  nlohmann::json big = readJson(out + "/export.json");
  big["tiles"] = nlohmann::json::array();
  for (int i = 0; i < 5000; ++i) big["tiles"].push_back({{"x", i}, {"z", i}, {"file", "tiles/padding.glb"}, {"instances", 1}});
  eco::test::writeBytes(out + "/export.json", big.dump(2));
  ASSERT_GT(fs::file_size(out + "/export.json"), 300000u);
  const auto again = ecobake("export " + bake + " --format usd -o " + out + " -q");
  EXPECT_EQ(again.code, 0) << again.output;
  // Nothing left beside it: no staging folder, no lock.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) entries += has(e.path().filename().string(), "scene");
  EXPECT_EQ(entries, 1u);
}

// A species' own mesh (config mesh.asset) reaches the exports: USD's prototype references it
// instead of a proxy, glTF names it in the node's extras (the proxy stays: glTF cannot
// reference another file's mesh), and the manifest carries it; species without one keep
// their proxies.
TEST(ExportScene, MeshAssetIsReferencedByUsdAndNamedByGltf) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  nlohmann::json doc = readJson(config);
  doc["species"][0]["mesh"]["asset"] = "assets/pine tree.usd";
  eco::test::writeBytes(config, doc.dump(2));
  const std::string bake = dir.file("bake");
  ASSERT_EQ(ecobake("bake " + config + " -o " + bake + " -q").code, 0);
  const eco::Manifest m = eco::readManifest(bake);
  EXPECT_EQ(m.species[0].meshAsset, "assets/pine tree.usd");
  EXPECT_EQ(m.species[1].meshAsset, "");

  ASSERT_EQ(ecobake("export " + bake + " --format usd -o " + dir.file("usd") + " -q").code, 0);
  const std::string protos = eco::test::readBytes(dir.file("usd/prototypes.usda"));
  const size_t pine = protos.find("def Xform \"sp0_pine\""), next = protos.find("def Xform \"sp1_");
  ASSERT_NE(pine, std::string::npos);
  ASSERT_NE(next, std::string::npos);
  const std::string pineBlock = protos.substr(pine, next - pine);
  EXPECT_TRUE(has(pineBlock, "prepend references = @assets/pine tree.usd@")) << pineBlock;
  EXPECT_FALSE(has(pineBlock, "def Mesh")) << pineBlock;
  EXPECT_TRUE(has(protos.substr(next), "def Mesh \"foliage\""));

  ASSERT_EQ(ecobake("export " + bake + " --format gltf -o " + dir.file("gltf") + " -q --species pine").code, 0);
  const nlohmann::json index = readJson(dir.file("gltf/export.json"));
  ASSERT_FALSE(index["tiles"].empty());
  const nlohmann::json gltf = glbJson(dir.file("gltf/" + index["tiles"][0]["file"].get<std::string>()));
  EXPECT_EQ(gltf["nodes"][1]["extras"]["ecobake_mesh_asset"], "assets/pine tree.usd");
  EXPECT_TRUE(gltf["nodes"][1].contains("mesh"));
}

// A species with a mesh file: the glTF export embeds the real mesh (its triangles, bark and
// foliage as the file has them) and USD's prototype holds it; a species without one gets its
// form's procedural mesh; a tampered mesh file in the bake is refused.
TEST(ExportScene, MeshFileIsEmbeddedInsteadOfTheProceduralMesh) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  // a broadleaf file on a species whose form is conifer: the two differ in every count
  const std::string sample = eco::test::sourceDir() + "/samples/world/meshes/cottonwood.glb";
  fs::copy_file(sample, dir.file("pine.glb"));
  nlohmann::json doc = readJson(config);
  doc["species"][0]["mesh"] = {{"height", 20}, {"crown_radius", 7}, {"form", "conifer"}, {"file", "pine.glb"}};
  eco::test::writeBytes(config, doc.dump(2));
  const std::string bake = dir.file("bake");
  ASSERT_EQ(ecobake("bake " + config + " -o " + bake + " -q").code, 0);

  // triangles per material in the sample file, read from its JSON chunk
  const nlohmann::json file = glbJson(sample);
  std::map<std::string, size_t> expected;
  for (const nlohmann::json& p : file["meshes"][0]["primitives"])
    expected[file["materials"][p["material"].get<size_t>()]["name"]] +=
        file["accessors"][p["indices"].get<size_t>()]["count"].get<size_t>() / 3;

  ASSERT_EQ(ecobake("export " + bake + " --format gltf -o " + dir.file("gltf") + " -q --species pine").code, 0);
  const nlohmann::json index = readJson(dir.file("gltf/export.json"));
  ASSERT_FALSE(index["tiles"].empty());
  const nlohmann::json gltf = glbJson(dir.file("gltf/" + index["tiles"][0]["file"].get<std::string>()));
  std::map<std::string, size_t> got;
  for (const nlohmann::json& p : gltf["meshes"][0]["primitives"]) {
    const std::string material = gltf["materials"][p["material"].get<size_t>()]["name"];
    got[material == "bark" ? "bark" : "foliage"] += gltf["accessors"][p["indices"].get<size_t>()]["count"].get<size_t>() / 3;
  }
  EXPECT_EQ(got, expected);

  ASSERT_EQ(ecobake("export " + bake + " --format usd -o " + dir.file("usd") + " -q").code, 0);
  EXPECT_TRUE(has(eco::test::readBytes(dir.file("usd/prototypes.usda")), "def Mesh \"bark\""));

  eco::test::writeBytes(bake + "/meshes/0.glb", eco::test::readBytes(sample) + "x");
  const auto r = ecobake("export " + bake + " --format gltf -o " + dir.file("gltf2") + " -q");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "meshes/0.glb")) << r.output;
}
