// ecobake as a user runs it: exit codes, one-line errors, and a bake killed midway.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "bake_world.h"
#include "tileio/manifest.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
const std::string kEcobake = eco::test::tool("ecobake");
Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }
size_t lines(const std::string& s) { return eco::test::lineCount(s); }

}  // namespace

TEST(Cli, BakeInspectExportSucceed) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  Result bake = run("bake " + config + " -o " + dir.file("out") + " -j 2");
  ASSERT_EQ(bake.code, 0) << bake.output;
  EXPECT_NE(bake.output.find("instances/s"), std::string::npos);
  Result inspect = run("inspect " + dir.file("out") + " --json");
  ASSERT_EQ(inspect.code, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("\"instances\""), std::string::npos);
  Result exported = run("export " + dir.file("out") + " --format ply -o " + dir.file("x.ply"));
  EXPECT_EQ(exported.code, 0) << exported.output;
  EXPECT_EQ(run("validate " + config).code, 0);
}

TEST(Cli, BadInputExitsTwoWithOneLineNamingTheFile) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  fs::remove(dir.file("heightmap.png"));
  Result r = run("bake " + config + " -o " + dir.file("out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("heightmap"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir.file("out")));

  eco::test::writeBytes(dir.file("heightmap.png"), "\x89PNG\r\n\x1a\n truncated");
  r = run("bake " + config + " -o " + dir.file("out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("heightmap.png"), std::string::npos) << r.output;

  r = run("inspect " + dir.file("nowhere"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.output), 1u) << r.output;

  EXPECT_EQ(run("bake").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
}

TEST(Cli, ValidateListsEveryProblem) {
  TempDir dir;
  eco::test::writeBytes(dir.file("bad.json"),
                        R"({"name": "x", "terrain": {"heightmap": "missing.png", "cell_size": -1,
                            "min_elevation": 0, "max_elevation": 10}, "speices": [] })");
  Result r = run("validate " + dir.file("bad.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("/terrain/cell_size"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("speices"), std::string::npos) << r.output;
  EXPECT_GE(lines(r.output), 3u) << r.output;
}

TEST(Cli, KilledBakeLeavesPreviousOutputReadable) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("out") + " -q").code, 0);
  std::string before = eco::test::readBytes(dir.file("out/manifest.json"));

  for (int delayMs : {20, 80, 200}) {
    pid_t pid = fork();
    if (pid == 0) {
      execl(kEcobake.c_str(), kEcobake.c_str(), "bake", config.c_str(), "-o", dir.file("out").c_str(), "-q", "--seed",
            "5", (char*)nullptr);
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    // Either the old bake or a complete new one, never a mix: every tile verifies.
    eco::Manifest m = eco::readManifest(dir.file("out"));
    for (const eco::TileEntry& e : m.tiles) eco::readTileVerified(dir.file("out"), e);
    if (m.seed == 11) {
      EXPECT_EQ(eco::test::readBytes(dir.file("out/manifest.json")), before);
    }
  }
}
