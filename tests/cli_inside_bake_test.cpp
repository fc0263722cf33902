// An output aimed inside the bake being read would overwrite it (a hostile tester's
// `export BAKE -o BAKE/manifest.json` destroyed the bake with exit 0): refused, bake intact.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bake_world.h"
#include "core/file_io.h"
#include "tileio/tileio.h"

namespace fs = std::filesystem;
using eco::test::runTool;
using eco::test::TempDir;

TEST(InsideBake, IsInsideFolderResolvesLinksAndDots) {
  TempDir dir;
  fs::create_directories(dir.file("bake/tiles"));
  fs::create_directories(dir.file("bake2"));
  fs::create_symlink(dir.file("bake"), dir.file("link"));
  const std::string bake = dir.file("bake");
  EXPECT_TRUE(eco::isInsideFolder(bake + "/manifest.json", bake));
  EXPECT_TRUE(eco::isInsideFolder(bake, bake));
  EXPECT_TRUE(eco::isInsideFolder(bake + "/tiles/new/x.csv", bake));  // need not exist
  EXPECT_TRUE(eco::isInsideFolder(dir.file("bake2/../bake/terrain.r32f"), bake));
  EXPECT_TRUE(eco::isInsideFolder(dir.file("link/manifest.json"), bake));
  EXPECT_TRUE(eco::isInsideFolder(bake + "/manifest.json", dir.file("link")));
  EXPECT_FALSE(eco::isInsideFolder(dir.file("bake2/x.csv"), bake));  // a sibling sharing a prefix
  EXPECT_FALSE(eco::isInsideFolder(dir.file("x.csv"), bake));
}

TEST(InsideBake, ExportAndViewerOutputsInsideTheBakeAreRefused) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  const std::string bake = dir.file("out");
  ASSERT_EQ(runTool("ecobake", "bake " + config + " -o " + bake + " -q").code, 0);
  const std::string manifestBefore = eco::test::readBytes(bake + "/manifest.json");
  const std::string targets[] = {bake + "/manifest.json", bake + "/terrain.r32f", bake + "/new.csv",
                                 dir.file("out/../out/manifest.json")};
  for (const std::string& target : targets) {
    eco::test::CommandResult r = runTool("ecobake", "export " + bake + " --format csv -o " + target);
    EXPECT_EQ(r.code, 2) << target << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << r.output;
    EXPECT_NE(r.output.find("inside the bake"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(bake + "/new.csv"));
  EXPECT_TRUE(eco::test::readBytes(bake + "/manifest.json") == manifestBefore);
  EXPECT_NO_THROW(eco::readManifest(bake));
  // Beside the bake is fine.
  EXPECT_EQ(runTool("ecobake", "export " + bake + " --format csv -o " + dir.file("out.csv")).code, 0);

  if (!fs::exists(eco::test::tool("ecoview"))) return;  // viewer not built
  for (const char* option : {"--stats", "--screenshot"}) {
    eco::test::CommandResult r =
        runTool("ecoview", bake + " --headless --frames 1 --size 8x8 " + option + " " + bake + "/manifest.json");
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_NE(r.output.find("inside the bake"), std::string::npos) << r.output;
  }
  EXPECT_TRUE(eco::test::readBytes(bake + "/manifest.json") == manifestBefore);
}
