// The USD and glTF exports (issue #17): what tests/interop/export_interop.mjs cannot see from
// outside: the half rounding of quath components against every half value, prim names,
// filters, the rules of the output folder, and USD's shared prototypes (issue #31: instanceable,
// materials, the LOD variant set, a mesh file's texture). The instances themselves are checked by that
// interop test against readers this project did not write.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
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
#include "meshes/meshes.h"
#include "shaders/shared.h"
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
    for (const char* format : {"usd", "gltf", "3dtiles"}) {
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
        } else {  // glTF and 3D Tiles' contents: the tile, its species node and that node's LOD 1
          const nlohmann::json gltf = glbJson(file);
          ASSERT_EQ(gltf["nodes"].size(), 3u) << file;
          EXPECT_EQ(gltf["nodes"][0]["children"], nlohmann::json::array({1})) << file;
          EXPECT_EQ(gltf["nodes"][1]["name"], kept);
          EXPECT_EQ(gltf["nodes"][2]["name"], kept + "_lod1");
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
    for (const char* format : {"usd", "gltf", "3dtiles"}) {
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
  ASSERT_EQ(ecobake("export " + bake + " --format 3dtiles -o " + out + " -q").code, 0);
  EXPECT_FALSE(fs::exists(out + "/world.usda")) << "a stale file of the previous export survived";
  EXPECT_EQ(readJson(out + "/export.json")["type"], "3dtiles");
  EXPECT_EQ(readJson(out + "/export.json")["root"], "tileset.json");
  ASSERT_EQ(ecobake("export " + bake + " --format gltf -o " + out + " -q").code, 0);
  EXPECT_FALSE(fs::exists(out + "/tileset.json")) << "a stale file of the previous export survived";
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

// ---- USD prototypes (issue #31): shared, instanceable, with materials and an LOD variant set ----

namespace {

// A world of hand-made species records: a broadleaf tree (bark and foliage), a grass (foliage
// only) and a species with its own asset (no proxy), as a bake's manifest would have them.
eco::Manifest prototypeWorld() {
  eco::Manifest m;
  m.name = "hand made";
  m.tiling.tileSize = 64;
  m.tiling.tilesX = m.tiling.tilesZ = 4;
  const char* names[] = {"beech", "meadow grass", "own oak"};
  const eco::SpeciesKind kinds[] = {eco::SpeciesKind::Tree, eco::SpeciesKind::Grass, eco::SpeciesKind::Tree};
  const uint32_t colors[] = {0xff207040u, 0xff30a060u, 0xff105020u};
  for (uint16_t i = 0; i < 3; ++i) {
    eco::SpeciesRecord s;
    s.id = i;
    s.name = names[i];
    s.kind = uint8_t(kinds[i]);
    s.meshHeight = i == 1 ? 0.6f : 25.f;
    s.crownRadius = i == 1 ? 0.3f : 5.f;
    s.baseColor = colors[i];
    if (i == 2) s.meshAsset = "assets/oak.usd";
    m.species.push_back(s);
  }
  return m;
}

// The text of a prim block: from `start` to the next line at the same indentation that
// closes it ("}" after as many spaces as `start` is indented).
std::string block(const std::string& text, const std::string& start) {
  const size_t at = text.find(start);
  if (at == std::string::npos) return "";
  const size_t lineStart = text.rfind('\n', at) + 1;
  const std::string close = "\n" + text.substr(lineStart, at - lineStart) + "}";
  const size_t end = text.find(close, at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end + close.size() - at);
}

// Triangles of every Mesh in `text`: the entries of its faceVertexCounts arrays (all 3).
size_t triangles(const std::string& text) {
  size_t n = 0;
  const std::string decl = "int[] faceVertexCounts = [";
  for (size_t at = text.find(decl); at != std::string::npos; at = text.find(decl, at + 1)) {
    const size_t open = at + decl.size(), end = text.find(']', open);
    const std::string body = text.substr(open, end - open);
    n += body.empty() ? 0 : size_t(std::count(body.begin(), body.end(), ',')) + 1;
  }
  return n;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string tupleText(const float* v, int n) {
  std::string out = "(";
  for (int i = 0; i < n; ++i) {
    char buf[32];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v[i]).ptr);
    out += i + 1 < n ? ", " : ")";
  }
  return out;
}

}  // namespace

// prototypes.usda holds each kept species once: a UsdPreviewSurface material per part (bark in
// BARK_COLOR, foliage reading the instancer's displayColor over the species' colour), every
// Mesh bound to its species' material, and a variant set "lod" whose lod0 (the default) and
// lod1 hold the species' two LOD meshes: triangle counts equal the procedural meshes'.
TEST(ExportScene, UsdPrototypesHaveMaterialsAndAnLodVariantSet) {
  const eco::Manifest m = prototypeWorld();
  const eco::SpeciesLods lods = eco::speciesMeshLods("", m);
  const std::vector<bool> keep = {true, true, true};
  const std::string text = eco::usdPrototypesLayer(m, keep, lods.lod0, lods.lod1);
  EXPECT_TRUE(eco::usdTextureFiles(m, keep, lods.lod0).empty());  // procedural meshes have no texture

  const eco::MeshForm forms[] = {eco::MeshForm::Broadleaf, eco::MeshForm::Grass};
  for (uint16_t id = 0; id < 2; ++id) {
    const std::string prim = eco::usdPrimName(m.species[id]), root = "/Prototypes/" + prim;
    const std::string species = block(text, "def Xform \"" + prim + "\"");
    ASSERT_FALSE(species.empty()) << prim;
    EXPECT_EQ(occurrences(text, "def Xform \"" + prim + "\""), 1u) << prim;
    EXPECT_TRUE(has(species, "prepend variantSets = \"lod\"")) << prim;
    EXPECT_TRUE(has(species, "string lod = \"lod0\"")) << prim;  // the default selection
    const std::string lod0 = block(species, "\"lod0\" {"), lod1 = block(species, "\"lod1\" {");
    ASSERT_FALSE(lod0.empty() || lod1.empty()) << species.substr(0, 2000);
    const size_t want0 = eco::proceduralMesh(forms[id], 0).indices.size() / 3;
    const size_t want1 = eco::proceduralMesh(forms[id], 1).indices.size() / 3;
    EXPECT_NE(want0, want1);
    EXPECT_EQ(triangles(lod0), want0) << prim;
    EXPECT_EQ(triangles(lod1), want1) << prim;
    EXPECT_EQ(triangles(species), want0 + want1) << prim << ": meshes outside the variants";

    // One material per part, bound by every Mesh of both LODs.
    const bool bark = id == 0;
    const std::string looks = block(species, "def Scope \"Looks\"");
    EXPECT_EQ(occurrences(looks, "def Material "), bark ? 2u : 1u) << looks;
    EXPECT_EQ(occurrences(looks, "uniform token info:id = \"UsdPreviewSurface\""), bark ? 2u : 1u) << looks;
    EXPECT_EQ(occurrences(species, "def Mesh "), bark ? 4u : 2u);
    EXPECT_EQ(occurrences(species, "prepend apiSchemas = [\"MaterialBindingAPI\"]"), bark ? 4u : 2u);
    EXPECT_EQ(occurrences(species, "rel material:binding = <" + root + "/Looks/foliage>"), 2u);
    EXPECT_EQ(occurrences(species, "rel material:binding = <" + root + "/Looks/bark>"), bark ? 2u : 0u);
    const std::string foliage = block(looks, "def Material \"foliage\"");
    EXPECT_TRUE(has(foliage, "token outputs:surface.connect = <" + root + "/Looks/foliage/PreviewSurface.outputs:surface>"))
        << foliage;
    EXPECT_TRUE(has(foliage, "color3f inputs:diffuseColor.connect = <" + root + "/Looks/foliage/Tint.outputs:result>"));
    EXPECT_TRUE(has(foliage, "string inputs:varname = \"displayColor\""));
    EXPECT_TRUE(has(foliage, "float3 inputs:fallback = " + tupleText(eco::linearRgb(m.species[id].baseColor).data(), 3)))
        << foliage;
    if (bark) {
      const float barkColor[3] = {BARK_COLOR};
      EXPECT_TRUE(has(block(looks, "def Material \"bark\""), "color3f inputs:diffuseColor = " + tupleText(barkColor, 3)));
    }
    EXPECT_FALSE(has(species, "primvars:st")) << "no UVs, no st";
  }
  // The species with its own asset: referenced, no proxy, no variants.
  const std::string own = block(text, "def Xform \"sp2_own_oak\"");
  EXPECT_TRUE(has(own, "prepend references = @assets/oak.usd@")) << own;
  EXPECT_FALSE(has(own, "variantSet")) << own;
  EXPECT_FALSE(has(own, "def Mesh")) << own;

  // A dropped species is not in the layer.
  const std::string some = eco::usdPrototypesLayer(m, {false, true, false}, lods.lod0, lods.lod1);
  EXPECT_FALSE(has(some, "sp0_"));
  EXPECT_EQ(occurrences(some, "def Material "), 1u);
}

// Each tile's PointInstancer prototypes reference prototypes.usda and are instanceable, so a
// composed stage shares one prototype per species across every tile.
TEST(ExportScene, UsdTilePrototypesAreInstanceableReferences) {
  const eco::Manifest m = prototypeWorld();
  eco::SelectedTile tile;
  tile.x = 1;
  tile.z = 2;
  for (uint16_t i = 0; i < 6; ++i) {
    eco::Instance in;
    in.species = uint16_t(i % 3);
    in.position = {64.f + float(i), 10.f, 128.f + float(i)};
    tile.instances.push_back(in);
    tile.ids.push_back(eco::instanceId(m.tiling.tilesX, tile.x, tile.z, i));
  }
  for (const std::vector<bool>& keep : {std::vector<bool>{true, true, true}, std::vector<bool>{false, true, true}}) {
    const std::string text = eco::usdTileLayer(m, keep, tile, eco::usdExtent(m, tile));
    const std::string protos = block(text, "def Scope \"Prototypes\"");
    size_t kept = 0;
    for (const eco::SpeciesRecord& s : m.species) {
      if (!keep[s.id]) continue;
      ++kept;
      const std::string prim = eco::usdPrimName(s);
      const std::string proto = block(protos, "def \"" + prim + "\"");
      EXPECT_TRUE(has(proto, "instanceable = true")) << proto;
      EXPECT_TRUE(has(proto, "references = @../prototypes.usda@</Prototypes/" + prim + ">")) << proto;
      EXPECT_TRUE(has(text, "</tile/Prototypes/" + prim + ">"));
    }
    EXPECT_EQ(occurrences(protos, "instanceable = true"), kept) << text;
    EXPECT_EQ(occurrences(protos, "def "), kept + 1) << "a prototype of its own in a tile layer: " << protos;
  }
}

// A mesh file's UVs and base colour texture: primvars:st (t up, so 1 - v) on both LODs, a
// UsdUVTexture reading the texture beside prototypes.usda, and the file among those the
// export writes and lists (usdTextureFiles); bytes that are neither PNG nor JPEG are not a
// texture.
TEST(ExportScene, UsdPrototypesReadAMeshFilesTexture) {
  const eco::Manifest m = prototypeWorld();
  eco::SpeciesLods lods = eco::speciesMeshLods("", m);
  const std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
  for (eco::SpeciesParts* parts : {&lods.lod0, &lods.lod1})
    for (eco::ProxyPart& part : (*parts)[0]) {
      if (part.bark) continue;
      for (size_t v = 0; v < part.points.size(); ++v) part.uvs.push_back({float(v % 4) * 0.25f, 0.125f});
      part.texture = png;
    }
  const std::vector<bool> keep = {true, true, true};
  const std::string text = eco::usdPrototypesLayer(m, keep, lods.lod0, lods.lod1);
  const std::vector<eco::UsdTextureFile> files = eco::usdTextureFiles(m, keep, lods.lod0);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "textures/sp0_beech_foliage.png");
  EXPECT_EQ(*files[0].bytes, png);

  const std::string species = block(text, "def Xform \"sp0_beech\"");
  const std::string foliage = block(species, "def Material \"foliage\"");
  EXPECT_TRUE(has(foliage, "uniform token info:id = \"UsdUVTexture\"")) << foliage;
  EXPECT_TRUE(has(foliage, "asset inputs:file = @" + files[0].path + "@")) << foliage;
  EXPECT_TRUE(has(foliage, "color3f inputs:diffuseColor.connect = </Prototypes/sp0_beech/Looks/foliage/Texture.outputs:rgb>"));
  EXPECT_TRUE(has(foliage, "string inputs:varname = \"st\""));
  EXPECT_FALSE(has(block(species, "def Material \"bark\""), "UsdUVTexture"));
  EXPECT_EQ(occurrences(species, "texCoord2f[] primvars:st = [(0, 0.875), (0.25, 0.875)"), 2u) << "both LODs, t = 1 - v";
  EXPECT_FALSE(has(block(text, "def Xform \"sp1_"), "primvars:st"));

  // A JPEG is written as .jpg; other bytes, or UVs missing, are no texture.
  for (eco::ProxyPart& part : lods.lod0[0]) part.texture = {0xff, 0xd8, 0xff, 0xe0};
  ASSERT_EQ(eco::usdTextureFiles(m, keep, lods.lod0).size(), 1u);
  EXPECT_EQ(eco::usdTextureFiles(m, keep, lods.lod0)[0].path, "textures/sp0_beech_foliage.jpg");
  for (eco::ProxyPart& part : lods.lod0[0]) part.texture = {'G', 'I', 'F', '8'};
  EXPECT_TRUE(eco::usdTextureFiles(m, keep, lods.lod0).empty());
  EXPECT_FALSE(has(eco::usdPrototypesLayer(m, keep, lods.lod0, lods.lod1), "UsdUVTexture"));
}
