// The output folders of `ecobake masks -o` and `ecosample -o` follow the bake's rules
// (core/output_dir.h): replaced only when missing, empty or the tool's own previous output
// (masks.json / ecosample.json), written in a staging folder and swapped in, every write
// checked. Reproduces the hostile tester's cases: masks into the inputs' folder, into a file,
// onto a full disk; ecosample over a user's README.md, into a file or "", --preview to a FIFO
// or /dev/full.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "bake_world.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result masks(const std::string& args) { return eco::test::runTool("ecobake", "masks " + args); }
Result sample(const std::string& args) { return eco::test::runTool("ecosample", args); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    files[fs::relative(e.path(), dir).string()] = e.is_directory() ? "/" : eco::test::readBytes(e.path().string());
  return files;
}

// Names beside `dir` that start with its name: the tools' staging folders and lock files.
std::vector<std::string> leftoversBeside(const fs::path& dir) {
  std::vector<std::string> out;
  const std::string prefix = dir.filename().string() + ".";
  for (const auto& e : fs::directory_iterator(dir.parent_path()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().filename().string());
  return out;
}

// A tmpfs of `bytes` mounted at `at` for the test's life; ok false where mounting is not
// allowed (not root, no CAP_SYS_ADMIN), and the test skips.
struct Tmpfs {
  std::string at;
  bool ok = false;
  Tmpfs(const std::string& where, size_t bytes) : at(where) {
    fs::create_directories(at);
    ok = eco::test::runCommand("mount -t tmpfs -o size=" + std::to_string(bytes) + " tmpfs " + at + " 2>/dev/null").code == 0;
  }
  ~Tmpfs() {
    if (ok) eco::test::runCommand("umount " + at);
  }
};

}  // namespace

// The tester's first case: -o the folder holding the config and heightmap. Before the fix
// masks overwrote files there (elevation.png over a user's own) and wrote into "/".
TEST(MasksOutput, InputsFolderAndRootAreRefusedWithTheInputsIntact) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  eco::test::writeBytes(dir.file("elevation.png"), "the user's own elevation image");
  const auto before = snapshot(dir.path);
  Result r = masks(config + " -o " + dir.path.string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(eco::test::lineCount(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, dir.path.string() + ": is not empty and is not a previous ecobake masks output")) << r.output;
  EXPECT_EQ(snapshot(dir.path), before);

  r = masks(config + " -o /");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "/: cannot write masks into the root folder")) << r.output;
  EXPECT_FALSE(fs::exists("/elevation.png"));
  EXPECT_EQ(snapshot(dir.path), before);
}

// A second run replaces the first one's folder (it carries masks.json); a file as -o is
// refused (was exit 1, filesystem_error) and survives.
TEST(MasksOutput, SecondRunReplacesItsOwnFolderAndAFileIsRefused) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  const fs::path out = dir.path / "previews";
  Result first = masks(config + " -o " + out.string());
  ASSERT_EQ(first.code, 0) << first.output;
  EXPECT_TRUE(has(first.output, (out / "elevation.png").string() + "\n")) << first.output;
  EXPECT_TRUE(has(eco::test::readBytes((out / "masks.json").string()), "\"format\": \"ecobake-masks\""));
  const auto firstFiles = snapshot(out);
  for (const char* name : {"elevation.png", "slope.png", "aspect.png", "sun.png", "moisture.png", "instances.png",
                           "suitability_pine.png", "masks.json"})
    EXPECT_TRUE(firstFiles.count(name)) << name;

  Result second = masks(config + " -o " + out.string());
  ASSERT_EQ(second.code, 0) << second.output;
  EXPECT_EQ(snapshot(out), firstFiles);  // same config, same bytes
  EXPECT_EQ(leftoversBeside(out), std::vector<std::string>{});

  eco::test::writeBytes(dir.file("afile"), "data");
  Result r = masks(config + " -o " + dir.file("afile"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("afile") + ": exists and is not a folder")) << r.output;
  EXPECT_EQ(eco::test::readBytes(dir.file("afile")), "data");
}

// Writes that fail (a full file system) are exit 2 naming the file, and the previous output
// stays whole. Before the fix: exit 0 with 0-byte PNGs. The tmpfs holds one masks output
// but not two (the new one is staged beside the old until the swap).
TEST(MasksOutput, FullDiskIsAnErrorAndThePreviousOutputStays) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(masks(config + " -o " + dir.file("probe")).code, 0);
  size_t bytes = 0;
  for (const auto& [name, data] : snapshot(dir.file("probe"))) bytes += data.size() + 4096;
  Tmpfs disk(dir.file("disk"), bytes * 3 / 2);
  if (!disk.ok) GTEST_SKIP() << "cannot mount a tmpfs here";
  const std::string out = dir.file("disk/out");
  ASSERT_EQ(masks(config + " -o " + out).code, 0);
  const auto before = snapshot(out);
  EXPECT_EQ(before, snapshot(dir.file("probe")));

  Result r = masks(config + " -o " + out);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(eco::test::lineCount(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, ".png: ") && has(r.output, "No space left on device")) << r.output;
  EXPECT_EQ(snapshot(out), before);
  EXPECT_EQ(leftoversBeside(out), std::vector<std::string>{});
}

// ecosample replaced a user's DIR/README.md and wrote into "/"; -o a file or "" was exit 1.
TEST(SampleOutput, UserFolderFileEmptyAndRootAreRefused) {
  TempDir dir;
  fs::create_directories(dir.file("notes"));
  eco::test::writeBytes(dir.file("notes/README.md"), "my notes");
  Result r = sample("-o " + dir.file("notes") + " --size 65");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("notes") + ": is not empty and is not a previous ecosample world")) << r.output;
  EXPECT_EQ(snapshot(dir.file("notes")), (std::map<std::string, std::string>{{"README.md", "my notes"}}));

  eco::test::writeBytes(dir.file("afile"), "data");
  r = sample("-o " + dir.file("afile") + " --size 65");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, ": exists and is not a folder")) << r.output;
  EXPECT_EQ(eco::test::readBytes(dir.file("afile")), "data");

  r = sample("-o '' --size 65");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "output folder name is empty")) << r.output;

  r = sample("-o / --size 65");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists("/heightmap.png"));
}

// Its own folder is replaced; --preview to a FIFO nobody reads or to /dev/full is exit 2 (was
// a hang and exit 0).
TEST(SampleOutput, OwnFolderIsReplacedAndPreviewWritesAreChecked) {
  TempDir dir;
  const std::string out = dir.file("world");
  ASSERT_EQ(sample("-o " + out + " --size 65 --seed 3").code, 0);
  EXPECT_EQ(eco::test::readBytes(out + "/ecosample.json"),
            "{\"format\": \"ecosample-world\", \"size\": 65, \"seed\": 3, \"files\": [\"heightmap.png\", "
            "\"river_distance.png\", \"meshes/cottonwood.glb\", \"meshes/pinyon_pine.glb\", \"README.md\"]}\n");
  const auto first = snapshot(out);
  Result r = sample("-o " + out + " --size 65 --seed 3 --preview " + dir.file("preview.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(snapshot(out), first);
  EXPECT_EQ(eco::test::readBytes(dir.file("preview.png")).substr(1, 3), "PNG");

  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0);
  r = eco::test::runTool("ecosample", "-o " + out + " --size 65 --preview " + dir.file("fifo"), 30);
  EXPECT_EQ(r.code, 2) << r.output;
  r = sample("-o " + out + " --size 65 --preview /dev/full");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "/dev/full: ")) << r.output;
}

// samples/world carries the marker, so the command its README gives runs, and regenerates
// the committed files byte for byte (the marker included).
TEST(SampleOutput, CommittedSampleWorldRegeneratesIdentically) {
  TempDir dir;
  const fs::path committed = fs::path(eco::test::sourceDir()) / "samples/world";
  fs::copy(committed, dir.file("world"));
  ASSERT_TRUE(has(eco::test::readBytes((committed / "README.md").string()), "ecosample -o samples/world --size 1025 --seed 7"));
  Result r = sample("-o " + dir.file("world") + " --size 1025 --seed 7");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(snapshot(dir.file("world")), snapshot(committed));
}

// The tester's valid config with cell_size 7700 (a 493 km square): instances.png at the
// default 0.25 px/m would be 123 000 px a side (std::bad_alloc). Now drawn at most 4096 px a
// side, the scale said on stderr and in masks.json.
TEST(MasksOutput, PreviewSizeIsCapped) {
  TempDir dir;
  const int n = 65;
  std::vector<uint16_t> pixels(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) pixels[size_t(j) * size_t(n) + size_t(i)] = uint16_t(20000 + 300 * i + 200 * j);
  eco::writePng16(dir.file("hm.png"), n, n, pixels.data());
  eco::test::writeBytes(dir.file("big.json"), R"({"name": "big", "terrain": {"heightmap": "hm.png", "cell_size": 7700,
    "min_elevation": 0, "max_elevation": 1200}, "tiling": {"tile_size": 4096}, "seed": 3, "species": [
    {"name": "pine", "kind": "tree", "radius": 400, "max_radius_factor": 3,
     "elevation": {"min": 250, "opt_low": 350, "opt_high": 650, "max": 750},
     "slope": {"max_deg": 35, "falloff_deg": 10}, "mesh": {"height": 20, "crown_radius": 30}}]})");
  Result r = masks(dir.file("big.json") + " -o " + dir.file("out"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "instances.png drawn at 0.0083")) << r.output;
  const std::string png = eco::test::readBytes(dir.file("out/instances.png"));
  ASSERT_GT(png.size(), 24u);
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 | uint32_t(uint8_t(png[at + 2])) << 8 |
           uint32_t(uint8_t(png[at + 3]));
  };
  EXPECT_GE(be32(16), 4000u);  // IHDR width, height: 64 * 7700 m at 4096 / 492800 px/m
  EXPECT_LE(be32(16), 4096u);
  EXPECT_EQ(be32(16), be32(20));
  EXPECT_TRUE(has(eco::test::readBytes(dir.file("out/masks.json")), "\"instances_pixels_per_metre\": 0.0083"));
}
