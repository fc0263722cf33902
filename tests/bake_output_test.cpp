// The bake's output folder and the files the tools write (issue #13, items 1, 3, 5, 9): what a
// bake may replace, the lock that admits one bake per folder, staging names and the cleanup
// of dead bakes' staging folders, and output paths that are not plain files.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <regex>

#include "bake/bake.h"
#include "core/output_dir.h"
#include "bake_world.h"
#include "core/error.h"
#include "tileio/tileio.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }
size_t lines(const std::string& s) { return eco::test::lineCount(s); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every file under dir (relative name -> bytes); folders as "name/".
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string name = fs::relative(e.path(), dir).string();
    if (e.is_symlink()) files[name] = "-> " + fs::read_symlink(e.path()).string();
    else if (e.is_directory()) files[name + "/"] = "";
    else files[name] = eco::test::readBytes(e.path().string());
  }
  return files;
}

// Every tile of the bake at dir verifies against its manifest.
void expectCompleteBake(const std::string& dir) {
  eco::Manifest m = eco::readManifest(dir);
  EXPECT_FALSE(m.tiles.empty());
  for (const eco::TileEntry& e : m.tiles) EXPECT_NO_THROW(eco::readTileVerified(dir, m, e)) << e.file;
}

// An flock held by this test, as a live bake holds it.
struct HeldLock {
  int fd = -1;
  explicit HeldLock(const std::string& path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0) << path;
    EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << path;
  }
  ~HeldLock() { ::close(fd); }
};

// The smallest complete bake: a manifest that reads back whole (one species, one tile) and the
// files it lists, so a folder holding exactly these is one a bake may replace.
void writeTinyBake(const std::string& dir) {
  eco::Manifest m;
  m.name = "tiny";
  m.seed = 1;
  m.world = {6, 6, 0, 10};
  m.terrain = {"terrain.r32f", 2, 2, 6};
  m.tiling = {128, 1, 1};
  eco::SpeciesRecord s;
  s.id = 0;
  s.name = "pine";
  s.kind = 0;
  s.meshHeight = 10;
  s.scaleMin = 1;
  s.scaleMax = 1;
  s.baseColor = 0xff336622;
  m.species = {s};
  m.tiles = {{0, 0, "tiles/0_0.ecot", 0, 8, 0, {0}}};
  eco::computeTotals(m);
  fs::create_directories(dir + "/tiles");
  eco::writeManifest(dir, m);
  eco::test::writeBytes(dir + "/terrain.r32f", std::string(16, '\0'));
  eco::test::writeBytes(dir + "/tiles/0_0.ecot", "8 bytes!");
}

}  // namespace

// Issue #13 (1), its exact steps: a web project's manifest.json made the folder count as a
// bake, and background.js was deleted.
TEST(BakeOutput, WebProjectManifestIsNotABake) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  fs::create_directories(dir.file("w"));
  eco::test::writeBytes(dir.file("w/manifest.json"), "{\"manifest_version\":3}\n");
  eco::test::writeBytes(dir.file("w/background.js"), "x\n");
  const auto before = snapshot(dir.file("w"));

  Result r = run("bake " + config + " -o " + dir.file("w"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("w") + ": is not empty and is not a previous ecobake bake")) << r.output;
  EXPECT_TRUE(has(r.output, "manifest.json")) << r.output;
  EXPECT_EQ(snapshot(dir.file("w")), before);
  for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_FALSE(has(e.path().filename().string(), "ecobake"));
}

// Issue #13 (1): `-o .` in a project folder deleted the config, the images and the README.
TEST(BakeOutput, DotInAProjectFolderDeletesNothing) {
  TempDir dir;
  eco::test::writeRidgeWorld(dir);
  eco::test::writeBytes(dir.file("README.md"), "# my project\n");
  for (bool withManifest : {false, true}) {
    if (withManifest) eco::test::writeBytes(dir.file("manifest.json"), "{\"name\": \"my-extension\", \"version\": \"1.0\"}");
    const auto before = snapshot(dir.path);
    Result r = eco::test::runCommand("sh -c 'cd " + dir.path.string() + " && " + eco::test::tool("ecobake") +
                                     " bake world.json -o .'");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(has(r.output, "refusing to replace it")) << r.output;
    EXPECT_EQ(snapshot(dir.path), before);
  }
}

// What may be replaced: nothing there, an empty folder, a complete bake (a manifest that reads
// back whole, and nothing but the files it lists). Everything else is refused and left as it
// was: a bare format marker beside a user's file (issue #30: a thesis.txt was deleted), a real
// bake with a user's file put into it, a bake of an older format version.
TEST(BakeOutput, ReplacesOnlyEmptyFoldersAndEcobakeBakes) {
  TempDir dir;
  fs::create_directories(dir.file("empty"));
  { eco::StagedDir out(dir.file("empty"), eco::bakeOutput()); out.commit(); }
  { eco::StagedDir out(dir.file("new/deeper/out"), eco::bakeOutput()); out.commit(); }
  EXPECT_TRUE(fs::is_directory(dir.file("new/deeper/out/tiles")));

  writeTinyBake(dir.file("bake"));
  {
    eco::StagedDir out(dir.file("bake"), eco::bakeOutput());
    eco::test::writeBytes(out.staging + "/manifest.json", "new");
    out.commit();
  }
  EXPECT_FALSE(fs::exists(dir.file("bake/tiles/0_0.ecot")));
  EXPECT_EQ(eco::test::readBytes(dir.file("bake/manifest.json")), "new");

  auto refused = [&](const std::string& d, const std::string& why) {
    const auto before = snapshot(d);
    try {
      eco::StagedDir out(d, eco::bakeOutput());
      ADD_FAILURE() << d << " was accepted";
    } catch (const eco::InputError& e) {
      EXPECT_TRUE(has(e.what(), why)) << e.what();
    }
    EXPECT_EQ(snapshot(d), before) << d;
  };
  fs::create_directories(dir.file("marker"));
  eco::test::writeBytes(dir.file("marker/manifest.json"), R"({"format":"ecobake-manifest"})");
  eco::test::writeBytes(dir.file("marker/thesis.txt"), "years of work");
  refused(dir.file("marker"), "not a complete bake");
  writeTinyBake(dir.file("withnotes"));
  eco::test::writeBytes(dir.file("withnotes/tiles/notes.txt"), "mine");
  refused(dir.file("withnotes"), "withnotes/tiles/notes.txt: is not a file the tool wrote");
  writeTinyBake(dir.file("withfolder"));
  fs::create_directories(dir.file("withfolder/renders"));
  refused(dir.file("withfolder"), "withfolder/renders: is not a file the tool wrote");
  writeTinyBake(dir.file("linked"));
  fs::remove(dir.file("linked/terrain.r32f"));
  eco::test::writeBytes(dir.file("heights.r32f"), std::string(16, '\0'));  // a user's, the size the manifest says
  fs::create_symlink(dir.file("heights.r32f"), dir.file("linked/terrain.r32f"));
  refused(dir.file("linked"), "linked/terrain.r32f: is not a file the tool wrote");
  fs::create_directories(dir.file("old/tiles"));
  eco::test::writeBytes(dir.file("old/manifest.json"), R"({"format": "ecobake-manifest", "format_version": 1})");
  eco::test::writeBytes(dir.file("old/tiles/0_0.ecot"), "old tile");
  refused(dir.file("old"), "remove it yourself");

  const std::vector<std::string> notBakes = {
      "",                                             // empty manifest.json
      "{\"format\": \"ecobake-manifest\"",            // truncated
      "[\"format\", \"ecobake-manifest\"]",           // not an object
      "{\"format\": \"ecobake-manifesto\"}",          // another marker
      "{\"format\": [\"ecobake-manifest\"]}",         // not a string
      "{\"meta\": {\"format\": \"ecobake-manifest\"}}",  // not at the top
      "{\"Format\": \"ecobake-manifest\"}",
      "\xff\xfe{}",
  };
  for (size_t i = 0; i < notBakes.size(); ++i) {
    std::string d = dir.file("case" + std::to_string(i));
    fs::create_directories(d);
    eco::test::writeBytes(d + "/manifest.json", notBakes[i]);
    eco::test::writeBytes(d + "/data.txt", "keep");
    const auto before = snapshot(d);
    EXPECT_THROW(eco::StagedDir out(d, eco::bakeOutput()), eco::InputError) << notBakes[i];
    EXPECT_EQ(snapshot(d), before) << notBakes[i];
  }
  // manifest.json that is a FIFO (must not hang), a folder, or beyond the manifest size limit.
  fs::create_directories(dir.file("fifo"));
  ASSERT_EQ(::mkfifo(dir.file("fifo/manifest.json").c_str(), 0644), 0);
  fs::create_directories(dir.file("folder/manifest.json"));
  fs::create_directories(dir.file("huge"));
  eco::test::writeBytes(dir.file("huge/manifest.json"), "{\"format\": \"ecobake-manifest\"}");
  fs::resize_file(dir.file("huge/manifest.json"), uint64_t(300) << 20);  // sparse
  for (const char* name : {"fifo", "folder", "huge"}) {
    EXPECT_THROW(eco::StagedDir out(dir.file(name), eco::bakeOutput()), eco::InputError) << name;
    EXPECT_TRUE(fs::exists(dir.file(std::string(name) + "/manifest.json"))) << name;
  }
  // A file, not a folder.
  eco::test::writeBytes(dir.file("file"), "data");
  EXPECT_THROW(eco::StagedDir out(dir.file("file"), eco::bakeOutput()), eco::InputError);
  EXPECT_EQ(eco::test::readBytes(dir.file("file")), "data");
  for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_FALSE(has(e.path().filename().string(), ".ecobake-"));
}

// masks, export and ecosample outputs: their marker lists the files the run wrote, and a folder
// is replaced only when it holds nothing else.
TEST(BakeOutput, MarkedOutputsAreReplacedOnlyWhenTheyHoldWhatTheirMarkerLists) {
  TempDir dir;
  const eco::OutputKind kind = eco::markedOutput("test output", "test run", "test", "marker.json", "eco-test");
  auto make = [&](const std::string& name, const std::string& marker) {
    const std::string d = dir.file(name);
    fs::create_directories(d + "/sub");
    eco::test::writeBytes(d + "/marker.json", marker);
    eco::test::writeBytes(d + "/a.txt", "a");
    eco::test::writeBytes(d + "/sub/b.bin", "b");
    return d;
  };
  const std::string listed = R"({"format": "eco-test", "files": ["a.txt", "sub/b.bin", "sub/never-written.bin"]})";
  {
    eco::StagedDir out(make("own", listed), kind);
    out.commit();
  }
  EXPECT_FALSE(fs::exists(dir.file("own/a.txt")));
  auto refused = [&](const std::string& d, const std::string& why) {
    const auto before = snapshot(d);
    try {
      eco::StagedDir out(d, kind);
      ADD_FAILURE() << d << " was accepted";
    } catch (const eco::InputError& e) {
      EXPECT_TRUE(has(e.what(), why)) << e.what();
    }
    EXPECT_EQ(snapshot(d), before) << d;
  };
  refused(make("bare", R"({"format": "eco-test"})"), "lists no \"files\"");
  const std::string extra = make("extra", listed);
  eco::test::writeBytes(extra + "/sub/thesis.txt", "mine");
  refused(extra, "extra/sub/thesis.txt: is not a file the tool wrote");
  refused(make("escape", R"({"format": "eco-test", "files": ["a.txt", "sub/b.bin", "../x"]})"), "outside the folder");
  refused(make("short", R"({"format": "eco-test", "files": ["a.txt"]})"), "short/sub: is not a file the tool wrote");
  refused(make("other", R"({"format": "eco-other", "files": ["a.txt", "sub/b.bin"]})"), "has no \"format\"");
}

// Issue #30's reproduction through the command line: a bare marker beside a user's file.
TEST(BakeOutput, BareMarkerBesideAUsersFileIsRefusedByBake) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  const std::string out = dir.file("out");
  fs::create_directories(out);
  eco::test::writeBytes(out + "/manifest.json", R"({"format":"ecobake-manifest"})");
  eco::test::writeBytes(out + "/thesis.txt", "years of work");
  const auto before = snapshot(out);
  Result r = run("bake " + config + " -o " + out + " -q");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "not a complete bake")) << r.output;
  EXPECT_EQ(snapshot(out), before);
  // and a real bake is still replaced by the next one
  const std::string good = dir.file("good");
  ASSERT_EQ(run("bake " + config + " -o " + good + " -q").code, 0);
  ASSERT_EQ(run("bake " + config + " -o " + good + " -q").code, 0);
  expectCompleteBake(good);
}

// Files put into the destination while the bake ran are not deleted by its swap.
TEST(BakeOutput, CommitChecksTheDestinationAgain) {
  TempDir dir;
  fs::create_directories(dir.file("out"));
  eco::StagedDir out(dir.file("out"), eco::bakeOutput());
  eco::test::writeBytes(dir.file("out/notes.txt"), "written during the bake");
  EXPECT_THROW(out.commit(), eco::InputError);
  EXPECT_EQ(eco::test::readBytes(dir.file("out/notes.txt")), "written during the bake");
}

// Issue #13 (3): two bakes into one folder. The second fails at once with a message naming
// the folder, whichever way the folder is spelled.
TEST(BakeOutput, SecondBakeOfOneFolderFailsAtOnce) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("out") + " -q").code, 0);
  const auto before = snapshot(dir.file("out"));

  eco::StagedDir first(dir.file("out"), eco::bakeOutput());
  fs::create_symlink(dir.path, dir.file("alias"));
  for (std::string spelling : {dir.file("out"), dir.file("alias/out"), dir.file("out/"), dir.file("out/../out")}) {
    try {
      eco::StagedDir second(spelling, eco::bakeOutput());
      ADD_FAILURE() << "second StagedDir admitted for " << spelling;
    } catch (const eco::InputError& e) {
      EXPECT_TRUE(has(e.what(), "another ecobake bake is writing this folder")) << e.what();
    }
  }
  const auto start = std::chrono::steady_clock::now();
  Result r = run("bake " + config + " -o " + dir.file("alias/out") + " --seed 5");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("alias/out") + ": another ecobake bake is writing this folder")) << r.output;
  EXPECT_LT(seconds, 30.0);  // not after a bake
  EXPECT_EQ(snapshot(dir.file("out")), before);
}

// Staging names are random (not the pid: two bakes in separate PID namespaces both have pid 1),
// and a bake, committed or dropped, leaves nothing beside its destination.
TEST(BakeOutput, StagingNamesAreRandomAndNothingIsLeftBehind) {
  TempDir dir;
  const std::regex name(R"(out\.ecobake-staging-[a-z0-9]{10})");
  std::string firstStaging;
  {
    eco::StagedDir out(dir.file("out"), eco::bakeOutput());
    firstStaging = fs::path(out.staging).filename().string();
    EXPECT_TRUE(std::regex_match(firstStaging, name)) << firstStaging;
    EXPECT_FALSE(has(firstStaging, std::to_string(getpid())));
    EXPECT_EQ(fs::path(out.staging).parent_path(), dir.path);
    EXPECT_TRUE(fs::exists(dir.file("out.ecobake-lock")));
    writeTinyBake(out.staging);
    out.commit();
  }
  // The staging lock file is not part of the bake.
  const std::map<std::string, std::string> got = snapshot(dir.file("out"));
  std::set<std::string> names;
  for (const auto& entry : got) names.insert(entry.first);
  EXPECT_EQ(names, (std::set<std::string>{"manifest.json", "terrain.r32f", "tiles/", "tiles/0_0.ecot"}));
  {
    eco::StagedDir out(dir.file("out"), eco::bakeOutput());
    EXPECT_NE(fs::path(out.staging).filename().string(), firstStaging);
  }  // dropped: as when a bake throws
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"out"});
}

// A killed bake leaves its staging folder and the lock file. The next bake of that destination
// removes staging folders whose lock no live bake holds, and nothing else: not a live bake's,
// not another destination's, not a link, not a name ecobake does not make, not a folder
// without the staging lock file (a user's folder may have such a name).
TEST(BakeOutput, StaleStagingOfDeadBakesIsRemovedAndNothingElse) {
  TempDir dir;
  auto stagingWith = [&](const std::string& name, bool lockFile) {
    fs::create_directories(dir.file(name + "/tiles"));
    eco::test::writeBytes(dir.file(name + "/tiles/0_0.ecot"), "partial");
    if (lockFile) eco::test::writeBytes(dir.file(name + "/.ecobake-staging-lock"), "");
  };
  stagingWith("out.ecobake-staging-dead000001", true);   // killed while baking
  stagingWith("out.ecobake-staging-dead000002", false);  // no staging lock: could be a user's folder
  stagingWith("out.ecobake-staging-4242", false);        // likewise
  stagingWith("out.ecobake-staging-live000001", true);
  HeldLock live(dir.file("out.ecobake-staging-live000001/.ecobake-staging-lock"));
  stagingWith("other.ecobake-staging-dead000003", true);  // another destination's
  stagingWith("out.ecobake-staging-Mine", false);         // not a name ecobake makes
  stagingWith("out.ecobake-staging-", false);
  fs::create_directories(dir.file("precious"));
  eco::test::writeBytes(dir.file("precious/thesis.txt"), "do not delete");
  fs::create_symlink("precious", dir.file("out.ecobake-staging-link000001"));
  eco::test::writeBytes(dir.file("out.ecobake-staging-file000001"), "a file");
  eco::test::writeBytes(dir.file("out.ecobake-lock"), "");  // left by a killed bake

  { eco::StagedDir out(dir.file("out"), eco::bakeOutput()); out.commit(); }

  EXPECT_FALSE(fs::exists(dir.file("out.ecobake-staging-dead000001")));
  EXPECT_EQ(eco::test::readBytes(dir.file("out.ecobake-staging-dead000002/tiles/0_0.ecot")), "partial");
  EXPECT_EQ(eco::test::readBytes(dir.file("out.ecobake-staging-4242/tiles/0_0.ecot")), "partial");
  EXPECT_FALSE(fs::exists(dir.file("out.ecobake-lock")));
  EXPECT_EQ(eco::test::readBytes(dir.file("out.ecobake-staging-live000001/tiles/0_0.ecot")), "partial");
  EXPECT_TRUE(fs::exists(dir.file("other.ecobake-staging-dead000003/tiles/0_0.ecot")));
  EXPECT_TRUE(fs::exists(dir.file("out.ecobake-staging-Mine/tiles/0_0.ecot")));
  EXPECT_TRUE(fs::exists(dir.file("out.ecobake-staging-/tiles/0_0.ecot")));
  EXPECT_TRUE(fs::is_symlink(dir.file("out.ecobake-staging-link000001")));
  EXPECT_EQ(eco::test::readBytes(dir.file("precious/thesis.txt")), "do not delete");
  EXPECT_EQ(eco::test::readBytes(dir.file("out.ecobake-staging-file000001")), "a file");
  EXPECT_TRUE(fs::is_directory(dir.file("out/tiles")));
}

// Issue #13 (9): `-o ""` and a dangling-symlink -o were exit 1, the latter after the whole
// bake. Every unusable -o is exit 2 with one line, before the inputs are even read: the
// heightmap is missing here, and the message is about the output, not the heightmap.
TEST(BakeOutput, UnusableOutputIsRefusedBeforeTheBake) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  fs::rename(dir.file("heightmap.png"), dir.file("elsewhere.png"));
  fs::create_symlink("missing/folder", dir.file("dangling"));
  eco::test::writeBytes(dir.file("file"), "data");
  struct Case {
    std::string output, message;
  };
  const std::vector<Case> cases = {
      {"''", "output folder name is empty"},
      {dir.file("dangling"), dir.file("dangling") + ": is a symbolic link to 'missing/folder', which does not exist"},
      {dir.file("dangling/"), "which does not exist"},
      {dir.file("dangling/out"), dir.file("dangling") + " is a symbolic link to 'missing/folder', which does not exist"},
      {dir.file("file"), dir.file("file") + ": exists and is not a folder"},
      {dir.file("file/out"), dir.file("file/out") + ": cannot create the output folder: " + dir.file("file") + " is not a folder"},
      {dir.file("file/sub/out"), " is not a folder"},
      {"/", "cannot bake into the root folder"},
      {dir.file("out.ecobake-staging-abc"), "ecobake's own working files"},
      {dir.file("out.ecobake-lock"), "ecobake's own working files"},
  };
  for (const Case& c : cases) {
    Result r = run("bake " + config + " -o " + c.output);
    EXPECT_EQ(r.code, 2) << c.output << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(has(r.output, c.message)) << c.output << ": " << r.output;
    EXPECT_FALSE(has(r.output, "heightmap")) << r.output;
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling")));
  EXPECT_FALSE(fs::exists(dir.file("missing")));
  EXPECT_EQ(eco::test::readBytes(dir.file("file")), "data");

  if (geteuid() != 0) {  // root may write anywhere
    fs::create_directories(dir.file("readonly"));
    fs::permissions(dir.file("readonly"), fs::perms::owner_read | fs::perms::owner_exec);
    Result r = run("bake " + config + " -o " + dir.file("readonly/out"));
    fs::permissions(dir.file("readonly"), fs::perms::owner_all);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(has(r.output, "cannot write in " + dir.file("readonly"))) << r.output;
  }
}

// A symbolic link to a previous bake is followed: the bake it points to is replaced, the link
// stays a link.
TEST(BakeOutput, SymlinkedDestinationReplacesItsTarget) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("bakes/v1") + " -q").code, 0);
  fs::create_symlink("bakes/v1", dir.file("current"));
  Result r = run("bake " + config + " -o " + dir.file("current") + " -q --seed 5");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir.file("current")));
  EXPECT_EQ(fs::read_symlink(dir.file("current")), "bakes/v1");
  EXPECT_EQ(eco::readManifest(dir.file("bakes/v1")).seed, 5u);
  expectCompleteBake(dir.file("current"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.file("bakes"))) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"v1"});
}

// Issue #13 (5), through the CLI: `export -o` writes through a device or FIFO and never
// replaces one; a folder or dangling link is refused with exit 2.
TEST(BakeOutput, ExportWritesThroughDevicesAndNeverReplacesThem) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("out") + " -q").code, 0);
  const std::string exportCmd = "export " + dir.file("out") + " -o ";
  // Private device nodes as root, so a regression cannot replace the system's.
  auto device = [&dir](const char* name, unsigned minor) {
    std::string path = dir.file(name);
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0 ? path : std::string("/dev/") + name;
  };
  const std::string full = device("full", 7), null = device("null", 3);

  Result r = run(exportCmd + full);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, full + ": cannot write: No space left on device")) << r.output;
  r = run(exportCmd + null);
  EXPECT_EQ(r.code, 0) << r.output;
  for (const std::string& node : {full, null}) {
    struct stat st {};
    ASSERT_EQ(::stat(node.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << node << " was replaced";
  }
  // To stdout, through a pipe: the CSV arrives whole, and stdout carries nothing else (the
  // summary line goes to stderr), so it equals an export to a regular file byte for byte.
  ASSERT_EQ(run(exportCmd + dir.file("file.csv")).code, 0);
  r = eco::test::runCommand("sh -c '" + eco::test::tool("ecobake") + " " + exportCmd + "/dev/stdout 2>/dev/null | cat > " +
                            dir.file("piped.csv") + "'");
  EXPECT_EQ(r.code, 0) << r.output;
  // Compared as a bool: gtest's diff of two multi-megabyte strings would take gigabytes.
  const std::string piped = eco::test::readBytes(dir.file("piped.csv")), file = eco::test::readBytes(dir.file("file.csv"));
  EXPECT_TRUE(piped == file) << "piped " << piped.size() << " bytes, file " << file.size() << " bytes";

  ASSERT_EQ(::mkfifo(dir.file("pipe").c_str(), 0644), 0);
  r = run(exportCmd + dir.file("pipe"));  // nobody reads: an error, not a hang
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("pipe") + ": cannot write: no process is reading")) << r.output;
  EXPECT_TRUE(fs::is_fifo(dir.file("pipe")));

  fs::create_directories(dir.file("folder"));
  r = run(exportCmd + dir.file("folder"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, dir.file("folder") + ": is a folder")) << r.output;
  fs::create_symlink("nowhere/x.csv", dir.file("dangling.csv"));
  r = run(exportCmd + dir.file("dangling.csv"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "symbolic link to 'nowhere/x.csv', which does not exist")) << r.output;

  eco::test::writeBytes(dir.file("real.csv"), "old");
  fs::create_symlink("real.csv", dir.file("link.csv"));
  r = run(exportCmd + dir.file("link.csv"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir.file("link.csv")));
  EXPECT_EQ(eco::test::readBytes(dir.file("real.csv")).rfind("x,y,z,", 0), 0u);
}

// A user's folder that merely has a staging folder's name (no staging lock file inside)
// survives a bake of the destination it seems to belong to.
TEST(BakeOutput, UserFolderNamedLikeStagingSurvivesABake) {
  TempDir dir;
  const std::string config = eco::test::writeRidgeWorld(dir);
  fs::create_directories(dir.file("out.ecobake-staging-abc"));
  eco::test::writeBytes(dir.file("out.ecobake-staging-abc/thesis.txt"), "do not delete");
  Result r = run("bake " + config + " -o " + dir.file("out") + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(eco::test::readBytes(dir.file("out.ecobake-staging-abc/thesis.txt")), "do not delete");
}

// Replacing a previous bake deletes it; a mount inside it (a bind mount: same device, other
// mount; a tmpfs: other device) would have that deletion reach into another folder or file
// system. The rebake is refused before anything changes. Skipped where mounting is not allowed.
TEST(BakeOutput, MountPointInsideAPreviousBakeIsRefused) {
  TempDir dir;
  // Whatever happens (a broken build may move the mount with the swapped folder), nothing
  // stays mounted under dir: unmounted before TempDir removes it.
  struct UnmountAll {
    std::string under;
    ~UnmountAll() {
      for (int round = 0; round < 4; ++round)
        eco::test::runCommand("grep -o ' " + under + "[^ ]*' /proc/self/mounts | xargs -r -n1 umount -l 2>/dev/null");
    }
  } unmountAll{dir.path.string()};
  const std::string config = eco::test::writeRidgeWorld(dir);
  const std::string out = dir.file("out");
  ASSERT_EQ(run("bake " + config + " -o " + out + " -q").code, 0);
  // Mounted over the bake's own tiles folder, from empty sources: every entry the walk sees is
  // one the bake wrote (a file of someone else's would be refused before this check).
  fs::create_directories(dir.file("elsewhere"));
  const std::vector<std::string> mounts = {"mount --bind " + dir.file("elsewhere") + " " + out + "/tiles",
                                           "mount -t tmpfs -o size=64k tmpfs " + out + "/tiles"};
  for (const std::string& mount : mounts) {
    SCOPED_TRACE(mount);
    if (eco::test::runCommand(mount + " 2>/dev/null").code != 0) GTEST_SKIP() << "cannot mount here";
    const auto before = snapshot(out);
    Result r = run("bake " + config + " -o " + out + " -q");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(has(r.output, out + "/tiles is a mount point")) << r.output;
    EXPECT_EQ(snapshot(out), before);
    ASSERT_EQ(eco::test::runCommand("umount " + out + "/tiles").code, 0);
  }
  EXPECT_TRUE(fs::is_directory(dir.file("elsewhere")));
  ASSERT_EQ(run("bake " + config + " -o " + out + " -q").code, 0);  // unmounted: replaced again
  expectCompleteBake(out);
}

namespace {

struct CsvRow {
  double x = 0, z = 0;
  int tx = -1, tz = -1;  // the tile, where the test knows it
  std::string line, species;
};

// The data rows of an export, each with the fields a filter looks at (parsed here, apart from
// the exporter).
std::vector<CsvRow> csvRows(const std::string& text) {
  std::vector<CsvRow> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    CsvRow r;
    r.line = line;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string part; std::getline(fields, part, ',');) f.push_back(part);
    r.x = std::stod(f.at(0));
    r.z = std::stod(f.at(2));
    r.species = f.at(5);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

// Issue #17 (3): --tiles, --region and --species select exactly the rows of the full export
// that the filter describes (computed here from the full CSV), streamed tile by tile; a name
// that is not a species is a one-line error naming the bake's species; progress stays off stdout.
TEST(BakeOutput, ExportFiltersSelectExactlyTheirInstances) {
  TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  ASSERT_EQ(run("bake " + config + " -o " + dir.file("out") + " -q").code, 0);
  const std::string bake = dir.file("out");
  ASSERT_EQ(run("export " + bake + " -o " + dir.file("all.csv") + " -q").code, 0);
  std::vector<CsvRow> all = csvRows(eco::test::readBytes(dir.file("all.csv")));
  ASSERT_GT(all.size(), 1000u);
  const eco::Manifest m = eco::readManifest(bake);
  std::set<std::string> names;
  for (const CsvRow& r : all) names.insert(r.species);
  ASSERT_GE(names.size(), 2u);
  const std::string first = *names.begin(), second = *std::next(names.begin());

  // Rows printed within the CSV's rounding (5e-4 m) of a region's edge may lie on either side
  // of it: left out of both lists.
  auto expectRows = [&](const std::string& args, auto keep, auto ambiguous) {
    const std::string out = dir.file("part.csv");
    Result r = run("export " + bake + " -o " + out + " -q " + args);
    ASSERT_EQ(r.code, 0) << args << ": " << r.output;
    std::vector<std::string> got, want;
    for (const CsvRow& row : csvRows(eco::test::readBytes(out)))
      if (!ambiguous(row)) got.push_back(row.line);
    for (const CsvRow& row : all)
      if (keep(row) && !ambiguous(row)) want.push_back(row.line);
    EXPECT_GT(want.size(), 0u) << args;
    EXPECT_LT(want.size(), all.size()) << args;
    EXPECT_TRUE(got == want) << args << ": " << got.size() << " rows, expected " << want.size();
  };
  // The full export lists tiles in manifest order, each with its manifest count of rows.
  std::vector<std::pair<int, int>> tileOf;
  for (const eco::TileEntry& e : m.tiles) tileOf.insert(tileOf.end(), e.instances, {e.x, e.z});
  ASSERT_EQ(tileOf.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) all[i].tx = tileOf[i].first, all[i].tz = tileOf[i].second;
  auto near = [](double v, double edge) { return std::fabs(v - edge) <= 5e-4; };
  auto none = [](const CsvRow&) { return false; };
  expectRows("--tiles 1,0,2,1", [](const CsvRow& r) { return r.tx >= 1 && r.tx <= 2 && r.tz >= 0 && r.tz <= 1; }, none);
  expectRows("--region 100.5,200,420,515.25", [](const CsvRow& r) {
    return r.x >= 100.5 && r.x <= 420 && r.z >= 200 && r.z <= 515.25;
  }, [&](const CsvRow& r) { return near(r.x, 100.5) || near(r.x, 420) || near(r.z, 200) || near(r.z, 515.25); });
  expectRows("--species " + second + "," + first, [&](const CsvRow& r) { return r.species == first || r.species == second; },
             none);
  expectRows("--species " + first + " --region 0,0,500,500",
             [&](const CsvRow& r) { return r.species == first && r.x <= 500 && r.z <= 500; },
             [&](const CsvRow& r) { return near(r.x, 500) || near(r.z, 500); });

  // PLY with a region: the header's count is the vertices that follow (58 bytes each, binary).
  ASSERT_EQ(run("export " + bake + " --format ply -o " + dir.file("part.ply") + " -q --region 0,0,300,300").code, 0);
  const std::string ply = eco::test::readBytes(dir.file("part.ply"));
  std::smatch count;
  ASSERT_TRUE(std::regex_search(ply, count, std::regex("element vertex (\\d+)\n")));
  const size_t body = ply.size() - ply.find("end_header\n") - 11;
  EXPECT_EQ(body, std::stoull(count[1].str()) * 58);
  EXPECT_GT(body, 0u);

  Result r = run("export " + bake + " -o " + dir.file("x.csv") + " --species no_such_plant");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "--species: \"no_such_plant\" is not a species of") && has(r.output, first)) << r.output;
  EXPECT_FALSE(fs::exists(dir.file("x.csv")));
  r = run("export " + bake + " -o " + dir.file("x.csv") + " --region 5,5,1,1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--region: 5,5,1,1 is inverted")) << r.output;
}
