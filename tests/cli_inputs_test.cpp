// The input images through the real binary (issue #13 items 2, 6, 8, 15): a bad input gives
// exit 2 and one line naming the file in `validate`, `bake` and `masks` alike (the same line:
// one code path), nothing blocks on a FIFO, and file types are matched case-insensitively.
#include <gtest/gtest.h>
#include <tinyexr.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <vector>

#include "terrain/png16.h"
#include "terrain/terrain.h"
#include "test_support.h"

namespace {

using eco::test::CommandResult;
using eco::test::lineCount;
using eco::test::readBytes;
using eco::test::runTool;
using eco::test::TempDir;
using eco::test::writeBytes;

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }
// The error line without the tool's "ecobake: error: " prefix.
std::string errorLine(const std::string& s) {
  std::string line = firstLine(s);
  const std::string prefix = "ecobake: error: ";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// The shipped sample world (heightmap + river distance) with its config, copied into dir.
std::string copySampleWorld(const TempDir& dir) {
  const std::string source = eco::test::sourceDir();
  for (const char* name : {"heightmap.png", "river_distance.png"})
    std::filesystem::copy_file(source + "/samples/world/" + name, dir.file(name));
  std::string config = readBytes(source + "/configs/temperate_mountain.json");
  for (size_t at; (at = config.find("../samples/world/")) != std::string::npos;) config.erase(at, 17);
  writeBytes(dir.file("world.json"), config);
  return dir.file("world.json");
}

// A 64 m square world of 17 x 17 pixels with one grass species; `terrain` is the JSON of the
// terrain's file fields, `extra` more top-level fields (a river).
std::string writeTinyConfig(const TempDir& dir, const std::string& terrain, const std::string& extra = "") {
  std::string config = R"({"name": "tiny", "terrain": {)" + terrain +
                       R"(, "cell_size": 4, "min_elevation": 0, "max_elevation": 100},
    "tiling": {"tile_size": 32}, )" + extra + R"("species": [
    {"name": "grass", "kind": "grass", "radius": 2, "elevation": {"min": -10, "opt_low": 0, "opt_high": 100, "max": 110},
     "slope": {"max_deg": 80, "falloff_deg": 10}, "mesh": {"height": 0.5, "crown_radius": 0.4}}]})";
  writeBytes(dir.file("tiny.json"), config);
  return dir.file("tiny.json");
}

std::vector<uint16_t> ramp(int w, int h) {
  std::vector<uint16_t> v(size_t(w) * size_t(h));
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) v[size_t(j) * size_t(w) + size_t(i)] = uint16_t((i * 997 + j * 1499) % 65536);
  return v;
}

std::string rawR16(int w, int h) {
  std::string bytes;
  for (uint16_t s : ramp(w, h)) bytes += std::string{char(s & 0xff), char(s >> 8)};
  return bytes;
}

std::string rawR32f(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

void writeExr(const std::string& path, int w, int h, const std::vector<float>& values) {
  const char* err = nullptr;
  ASSERT_EQ(SaveEXR(values.data(), w, h, 1, 0, path.c_str(), &err), TINYEXR_SUCCESS);
}

// validate, bake and masks on one config: each exits 2; bake and masks print one line, which
// is validate's first line; it names `file`. Returns that line.
std::string expectSameOneLineError(const TempDir& dir, const std::string& config, const std::string& file) {
  CommandResult validate = runTool("ecobake", "validate " + config, 60);
  CommandResult bake = runTool("ecobake", "bake " + config + " -o " + dir.file("out") + " -q", 60);
  CommandResult masks = runTool("ecobake", "masks " + config + " -o " + dir.file("masks"), 60);
  EXPECT_EQ(validate.code, 2) << validate.output;
  EXPECT_EQ(bake.code, 2) << bake.output;
  EXPECT_EQ(masks.code, 2) << masks.output;
  EXPECT_EQ(lineCount(bake.output), 1u) << bake.output;
  EXPECT_EQ(lineCount(masks.output), 1u) << masks.output;
  EXPECT_EQ(firstLine(validate.output), errorLine(bake.output));
  EXPECT_EQ(errorLine(masks.output), errorLine(bake.output));
  EXPECT_NE(bake.output.find(file), std::string::npos) << bake.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
  return errorLine(bake.output);
}

}  // namespace

// Issue #13 item 2, exactly: byte 33 |= 0x80 (the top bit of the IDAT length) in the sample
// heightmap, then in the river image. Before the fix validate passed and bake, masks and the
// river path died with SIGSEGV (a null stbi_failure_reason appended to a string).
TEST(CliInputs, IdatLengthWithTopBitSetIsExit2OneLine) {
  for (const char* target : {"heightmap.png", "river_distance.png"}) {
    SCOPED_TRACE(target);
    TempDir dir;
    std::string config = copySampleWorld(dir);
    std::string bytes = readBytes(dir.file(target));
    bytes[33] = char(uint8_t(bytes[33]) | 0x80);
    writeBytes(dir.file(target), bytes);
    std::string line = expectSameOneLineError(dir, config, target);
    EXPECT_NE(line.find("corrupt PNG (chunk 'IDAT' at byte 33 has an invalid length"), std::string::npos) << line;
  }
}

// Item 8: what bake refuses, validate refuses with the same line (full decode, NaN scan, the
// river extent rule, sizes). Before the fix validate read headers only and passed all but
// the raw size and 1xN cases.
TEST(CliInputs, ValidateRunsTheBakesInputChecks) {
  struct Case {
    const char* name;
    std::function<std::string(const TempDir&)> write;  // writes the inputs, returns the config
    const char* fragment;
  };
  std::vector<Case> cases = {
      {"nan.exr",
       [](const TempDir& d) {
         std::vector<float> v(17 * 17, 0.5f);
         v[5 * 17 + 3] = std::numeric_limits<float>::quiet_NaN();
         writeExr(d.file("nan.exr"), 17, 17, v);
         return writeTinyConfig(d, R"("heightmap": "nan.exr")");
       },
       "pixel 3,5 is NaN"},
      {"inf.r32f",
       [](const TempDir& d) {
         std::vector<float> v(17 * 17, 0.5f);
         v[16 * 17 + 16] = std::numeric_limits<float>::infinity();
         writeBytes(d.file("inf.r32f"), rawR32f(v));
         return writeTinyConfig(d, R"("heightmap": "inf.r32f", "raw_width": 17, "raw_height": 17)");
       },
       "pixel 16,16 is infinite"},
      {"damaged.png",
       [](const TempDir& d) {
         eco::writePng16(d.file("damaged.png"), 17, 17, ramp(17, 17).data());
         std::string bytes = readBytes(d.file("damaged.png"));
         size_t data = bytes.find("IDAT") + 4;
         for (size_t i = 2; i < 12; ++i) bytes[data + i] = char(0xff);
         writeBytes(d.file("damaged.png"), bytes);
         return writeTinyConfig(d, R"("heightmap": "damaged.png")");
       },
       "corrupt PNG"},
      {"short.r16",
       [](const TempDir& d) {
         writeBytes(d.file("short.r16"), rawR16(17, 16));
         return writeTinyConfig(d, R"("heightmap": "short.r16", "raw_width": 17, "raw_height": 17)");
       },
       "should be 578 bytes but is 544 bytes"},
      {"thin.png",
       [](const TempDir& d) {
         eco::writePng16(d.file("thin.png"), 1, 17, ramp(1, 17).data());
         return writeTinyConfig(d, R"("heightmap": "thin.png")");
       },
       "at least 2 x 2"},
      {"river.png",  // within half a cell along z, a whole cell off along x
       [](const TempDir& d) {
         eco::writePng16(d.file("h.png"), 1001, 112, ramp(1001, 112).data());
         eco::writePng16(d.file("river.png"), 10, 2, ramp(10, 2).data());
         return writeTinyConfig(d, R"("heightmap": "h.png")",
                                R"("river": {"distance": "river.png", "distance_scale": 10}, )");
       },
       "does not cover the same area"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    std::string config = c.write(dir);
    std::string line = expectSameOneLineError(dir, config, c.name);
    EXPECT_NE(line.find(c.fragment), std::string::npos) << line;
  }
}

// Item 6 (inputs): a FIFO, a device or a folder as an input is refused at once (exit 2, one
// line), never waited on. The timeout turns a hang into exit 124.
TEST(CliInputs, NonRegularInputsAreRefusedWithoutHanging) {
  struct Case {
    const char* name;
    const char* terrain;
    const char* kind;
  };
  const Case cases[] = {
      {"hm.png", R"("heightmap": "hm.png")", "FIFO"},
      {"hm.exr", R"("heightmap": "hm.exr")", "FIFO"},
      {"hm.r16", R"("heightmap": "hm.r16", "raw_width": 17, "raw_height": 17)", "FIFO"},
      {"hm.r32f", R"("heightmap": "hm.r32f", "raw_width": 17, "raw_height": 17)", "FIFO"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    ASSERT_EQ(mkfifo(dir.file(c.name).c_str(), 0644), 0);
    std::string config = writeTinyConfig(dir, c.terrain);
    for (const std::string& command : {"validate " + config, "bake " + config + " -o " + dir.file("out")}) {
      CommandResult r = runTool("ecobake", command, 20);
      EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
      EXPECT_EQ(lineCount(r.output), command.rfind("bake", 0) == 0 ? 1u : 2u) << r.output;
      EXPECT_NE(r.output.find(std::string(c.name) + ": is a " + c.kind), std::string::npos) << r.output;
    }
  }

  TempDir dir;
  eco::writePng16(dir.file("h.png"), 17, 17, ramp(17, 17).data());
  ASSERT_EQ(mkfifo(dir.file("river.png").c_str(), 0644), 0);
  std::string config =
      writeTinyConfig(dir, R"("heightmap": "h.png")", R"("river": {"distance": "river.png", "distance_scale": 10}, )");
  std::string line = expectSameOneLineError(dir, config, "river.png: is a FIFO");

  std::filesystem::create_symlink("/dev/zero", dir.file("zero.png"));
  config = writeTinyConfig(dir, R"("heightmap": "zero.png")");
  line = expectSameOneLineError(dir, config, "zero.png: is a device");

  std::filesystem::create_directory(dir.file("folder.r16"));
  config = writeTinyConfig(dir, R"("heightmap": "folder.r16", "raw_width": 17, "raw_height": 17)");
  line = expectSameOneLineError(dir, config, "folder.r16: is a folder");
}

// Item 15: the file type is the extension in any case, in validate and bake alike, and the
// upper-case names bake the same bytes as the lower-case ones.
TEST(CliInputs, FileTypesAreCaseInsensitiveInValidateAndBake) {
  struct Case {
    const char* lower;
    const char* upper;
    const char* sizes;
  };
  const Case cases[] = {
      {"hm.r16", "HM.R16", R"(, "raw_width": 17, "raw_height": 17)"},
      {"hm.r32f", "HM.R32F", R"(, "raw_width": 17, "raw_height": 17)"},
      {"hm.png", "HM.PNG", ""},
      {"hm.exr", "Hm.Exr", ""},
  };
  std::vector<float> floats;
  for (uint16_t s : ramp(17, 17)) floats.push_back(float(s) / 65535.f);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.upper);
    std::string bakes[2];
    for (int upper = 0; upper < 2; ++upper) {
      TempDir dir;
      const std::string name = upper ? c.upper : c.lower;
      const std::string ext = eco::inputFormatExtension(eco::inputFormatOf(name));
      if (ext == ".r16") writeBytes(dir.file(name), rawR16(17, 17));
      if (ext == ".r32f") writeBytes(dir.file(name), rawR32f(floats));
      if (ext == ".png") eco::writePng16(dir.file(name), 17, 17, ramp(17, 17).data());
      if (ext == ".exr") writeExr(dir.file(name), 17, 17, floats);
      std::string config = writeTinyConfig(dir, "\"heightmap\": \"" + name + "\"" + c.sizes);
      CommandResult validate = runTool("ecobake", "validate " + config, 60);
      EXPECT_EQ(validate.code, 0) << validate.output;
      CommandResult bake = runTool("ecobake", "bake " + config + " -o " + dir.file("out") + " -q", 60);
      ASSERT_EQ(bake.code, 0) << bake.output;
      // Every file but the manifest (which names the config's inputs), in a fixed order.
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.file("out")))
        if (entry.is_regular_file() && entry.path().filename() != "manifest.json")
          files.push_back(std::filesystem::relative(entry.path(), dir.file("out")).string());
      std::sort(files.begin(), files.end());
      for (const std::string& f : files) bakes[upper] += f + "\n" + readBytes(dir.file("out/" + f));
    }
    EXPECT_FALSE(bakes[0].empty());
    EXPECT_EQ(bakes[0], bakes[1]);
  }
}
