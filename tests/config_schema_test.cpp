// Keeps schemas/biome.schema.json and the C++ parser in agreement over a corpus of fixtures:
//   tests/data/configs/valid/             accepted by both
//   tests/data/configs/invalid/           rejected by both, exactly one C++ problem each
//   tests/data/configs/invalid_semantic/  cross-field rules the schema cannot express (C++ only)
//   tests/data/configs/invalid_inputs/    good text, bad input files (checkBiomeInputs only)
// expected_problems.json names each rejected fixture's JSON path and a reason fragment.
// The fixtures' images live in ../images/ and are written by the test.
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "terrain/png16.h"
#include "test_support.h"
#include "tiff_fixture.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

const fs::path kCorpus = fs::path(ECO_SOURCE_DIR) / "tests" / "data" / "configs";

void writeGray(const std::string& path, int w, int h) {
  std::vector<uint16_t> pixels(size_t(w) * size_t(h));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint16_t(i * 977);
  eco::writePng16(path, w, h, pixels.data());
}

void writeRgb(const std::string& path, int w, int h) {
  std::vector<unsigned char> pixels(size_t(w) * size_t(h) * 3, 128);
  ASSERT_NE(stbi_write_png(path.c_str(), w, h, 3, pixels.data(), w * 3), 0);
}

// A copy of the corpus with the images its fixtures refer to.
fs::path makeCorpus(const TempDir& dir) {
  fs::path root = dir.path / "configs";
  fs::copy(kCorpus, root, fs::copy_options::recursive);
  fs::path images = root / "images";
  fs::create_directories(images / "folder.png");
  writeGray((images / "height_9x9.png").string(), 9, 9);
  writeGray((images / "height_9x7.png").string(), 9, 7);
  writeGray((images / "river_5x5.png").string(), 5, 5);
  writeGray((images / "river_5x4.png").string(), 5, 4);
  writeGray((images / "river_5x6.png").string(), 5, 6);
  writeRgb((images / "rgb_9x9.png").string(), 9, 9);
  eco::test::writeBytes((images / "height_9x9.r16").string(), std::string(9 * 9 * 2, '\x10'));
  eco::test::writeBytes((images / "text.png").string(), "this is not an image\n");
  eco::test::writeBytes((images / "text.glb").string(), "this is not a mesh\n");
  // A float GeoTIFF with a 2 m pixel scale, and GeoJSON roads inside its 16 m world and out.
  std::vector<float> heights(81);
  for (size_t i = 0; i < heights.size(); ++i) heights[i] = float(i);
  eco::test::TiffSpec spec;
  spec.width = spec.height = 9;
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  spec.pixelScale = {2, 2, 0};
  eco::test::writeTiff((images / "height_9x9.tif").string(), spec, heights.data());
  const std::string road = R"({"type": "Feature", "properties": {"width": 1}, "geometry": {"type": "LineString", "coordinates": )";
  eco::test::writeBytes((images / "roads.geojson").string(), road + "[[1, 1], [15, 3]]}}");
  eco::test::writeBytes((images / "far_road.geojson").string(), road + "[[1, 1], [40, 3]]}}");
  return root;
}

std::vector<std::string> fixtures(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kCorpus / folder))
    if (entry.path().extension() == ".json") names.push_back(folder + "/" + entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json expectedProblems() {
  std::ifstream in(kCorpus / "expected_problems.json");
  return nlohmann::json::parse(in);
}

std::string describe(const std::vector<eco::ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += "\n  " + eco::formatProblem("config", p);
  return out;
}

void expectOneProblem(const std::string& name, const std::vector<eco::ConfigProblem>& problems,
                      const nlohmann::json& expected) {
  ASSERT_EQ(problems.size(), 1u) << name << describe(problems);
  EXPECT_EQ(problems[0].path, expected["path"].get<std::string>()) << name;
  EXPECT_NE(problems[0].reason.find(expected["reason"].get<std::string>()), std::string::npos)
      << name << ": " << problems[0].reason;
}

TEST(ConfigCorpus, EveryRejectedFixtureHasAnExpectation) {
  nlohmann::json expected = expectedProblems();
  size_t rejected = 0;
  for (const char* folder : {"invalid", "invalid_semantic", "invalid_inputs"}) {
    for (const std::string& name : fixtures(folder)) {
      EXPECT_TRUE(expected.contains(name)) << name;
      ++rejected;
    }
  }
  EXPECT_EQ(rejected, expected.size());
  EXPECT_GE(fixtures("valid").size(), 4u);
}

TEST(ConfigCorpus, CppAcceptsValidFixtures) {
  TempDir dir;
  fs::path root = makeCorpus(dir);
  for (const std::string& name : fixtures("valid")) {
    std::vector<eco::ConfigProblem> problems;
    eco::BiomeConfig config = eco::parseBiomeConfig((root / name).string(), problems);
    EXPECT_TRUE(problems.empty()) << name << describe(problems);
    eco::checkBiomeInputs(config, problems);
    EXPECT_TRUE(problems.empty()) << name << describe(problems);
    EXPECT_FALSE(config.species.empty()) << name;
  }
}

TEST(ConfigCorpus, CppRejectsInvalidFixturesAtTheExpectedPath) {
  nlohmann::json expected = expectedProblems();
  for (const char* folder : {"invalid", "invalid_semantic"}) {
    for (const std::string& name : fixtures(folder)) {
      std::vector<eco::ConfigProblem> problems;
      eco::parseBiomeConfig((kCorpus / name).string(), problems);
      expectOneProblem(name, problems, expected[name]);
    }
  }
}

TEST(ConfigCorpus, CppRejectsBadInputFilesAtTheFileField) {
  TempDir dir;
  fs::path root = makeCorpus(dir);
  nlohmann::json expected = expectedProblems();
  for (const std::string& name : fixtures("invalid_inputs")) {
    std::vector<eco::ConfigProblem> problems;
    eco::BiomeConfig config = eco::parseBiomeConfig((root / name).string(), problems);
    ASSERT_TRUE(problems.empty()) << name << describe(problems);
    eco::checkBiomeInputs(config, problems);
    expectOneProblem(name, problems, expected[name]);
  }
}

// Runs jsonschema over the files; returns file -> (verdict, JSON paths of the errors).
struct SchemaVerdict {
  std::string status;  // "ok", "error" or "invalid_json"
  std::vector<std::string> paths;
};

bool haveJsonSchema() { return std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") == 0; }

std::map<std::string, SchemaVerdict> validateWithSchema(const std::vector<std::string>& files) {
  TempDir dir;
  std::string script = dir.file("validate.py");
  eco::test::writeBytes(script,
                        "import json, sys\n"
                        "from jsonschema import Draft202012Validator as V\n"
                        "schema = json.load(open(sys.argv[1]))\n"
                        "V.check_schema(schema)\n"
                        "validator = V(schema)\n"
                        "for f in sys.argv[2:]:\n"
                        "    try:\n"
                        "        doc = json.load(open(f))\n"
                        "    except ValueError:\n"
                        "        print(f + '\\tinvalid_json\\t')\n"
                        "        continue\n"
                        "    paths = sorted({''.join('/' + str(p) for p in e.absolute_path) for e in validator.iter_errors(doc)})\n"
                        "    print(f + '\\t' + ('error' if paths else 'ok') + '\\t' + ' '.join(p or '/' for p in paths))\n");
  std::string command = "python3 '" + script + "' '" + (fs::path(ECO_SOURCE_DIR) / "schemas" / "biome.schema.json").string() + "'";
  for (const std::string& f : files) command += " '" + f + "'";
  command += " 2>&1";

  std::map<std::string, SchemaVerdict> verdicts;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return verdicts;
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << output;

  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string file, status, paths;
    std::getline(fields, file, '\t');
    std::getline(fields, status, '\t');
    std::getline(fields, paths);
    SchemaVerdict& v = verdicts[file];
    v.status = status;
    std::istringstream pathList(paths);
    for (std::string p; pathList >> p;) v.paths.push_back(p == "/" ? "" : p);
  }
  return verdicts;
}

bool isPointerPrefix(const std::string& prefix, const std::string& path) {
  return path.compare(0, prefix.size(), prefix) == 0 && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

TEST(ConfigCorpus, SchemaAgreesWithCpp) {
  if (!haveJsonSchema()) GTEST_SKIP() << "python3 with jsonschema not available";
  nlohmann::json expected = expectedProblems();
  std::vector<std::string> files;
  for (const char* folder : {"valid", "invalid", "invalid_semantic", "invalid_inputs"})
    for (const std::string& name : fixtures(folder)) files.push_back((kCorpus / name).string());
  std::map<std::string, SchemaVerdict> verdicts = validateWithSchema(files);
  ASSERT_EQ(verdicts.size(), files.size());

  for (const char* folder : {"valid", "invalid_semantic", "invalid_inputs"}) {
    for (const std::string& name : fixtures(folder)) {
      const SchemaVerdict& v = verdicts[(kCorpus / name).string()];
      EXPECT_EQ(v.status, "ok") << name << ": schema errors at " << ::testing::PrintToString(v.paths);
    }
  }
  for (const std::string& name : fixtures("invalid")) {
    const SchemaVerdict& v = verdicts[(kCorpus / name).string()];
    EXPECT_NE(v.status, "ok") << name << " is accepted by the schema";
    if (v.status != "error") continue;
    // The schema reports at the object holding the mistake; C++ at the field itself.
    std::string cppPath = expected[name]["path"];
    bool samePlace = std::any_of(v.paths.begin(), v.paths.end(),
                                 [&](const std::string& p) { return isPointerPrefix(p, cppPath); });
    EXPECT_TRUE(samePlace) << name << ": schema errors at " << ::testing::PrintToString(v.paths) << ", C++ at "
                           << cppPath;
  }
}

std::vector<std::string> shippedConfigs() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(fs::path(ECO_SOURCE_DIR) / "configs"))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ShippedConfigs, ParseCleanly) {
  std::vector<std::string> files = shippedConfigs();
  ASSERT_GE(files.size(), 2u);
  for (const std::string& file : files) {
    std::vector<eco::ConfigProblem> problems;
    eco::BiomeConfig config = eco::parseBiomeConfig(file, problems);
    EXPECT_TRUE(problems.empty()) << file << describe(problems);
    EXPECT_GE(config.species.size(), 5u) << file;
    EXPECT_EQ(config.river.source, eco::RiverSource::Distance) << file;
    EXPECT_FALSE(config.river.file.empty()) << file;
    bool kindUsed[4] = {};
    for (const eco::SpeciesConfig& s : config.species) kindUsed[int(s.kind)] = true;
    for (bool used : kindUsed) EXPECT_TRUE(used) << file << " lacks a growth form";
  }
}

TEST(ShippedConfigs, InputsExist) {
  fs::path world = fs::path(ECO_SOURCE_DIR) / "samples" / "world";
  if (!fs::exists(world / "heightmap.png") || !fs::exists(world / "river_distance.png"))
    GTEST_SKIP() << "sample world not generated yet";
  for (const std::string& file : shippedConfigs()) EXPECT_NO_THROW(eco::loadBiomeConfig(file)) << file;
}

// Until samples/world exists: images of the documented sizes (1025^2 heightmap, 513^2 river
// distance) in a copy of the layout, so the configs' extents are checked anyway.
TEST(ShippedConfigs, AcceptStandInSampleWorld) {
  TempDir dir;
  fs::create_directories(dir.path / "samples" / "world");
  writeGray((dir.path / "samples" / "world" / "heightmap.png").string(), 1025, 1025);
  writeGray((dir.path / "samples" / "world" / "river_distance.png").string(), 513, 513);
  fs::copy(fs::path(ECO_SOURCE_DIR) / "samples" / "world" / "meshes", dir.path / "samples" / "world" / "meshes");
  fs::create_directories(dir.path / "configs");
  for (const std::string& file : shippedConfigs()) {
    fs::path copy = dir.path / "configs" / fs::path(file).filename();
    fs::copy_file(file, copy);
    EXPECT_NO_THROW(eco::loadBiomeConfig(copy.string())) << file;
  }
}

TEST(ShippedConfigs, SchemaAccepts) {
  if (!haveJsonSchema()) GTEST_SKIP() << "python3 with jsonschema not available";
  std::vector<std::string> files = shippedConfigs();
  std::map<std::string, SchemaVerdict> verdicts = validateWithSchema(files);
  for (const std::string& file : files)
    EXPECT_EQ(verdicts[file].status, "ok") << file << ": " << ::testing::PrintToString(verdicts[file].paths);
}

}  // namespace
