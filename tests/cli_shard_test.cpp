// Sharded bakes as a batch system runs them (issue #19): `ecobake bake --shard I/N` in any
// order, retried, then `ecobake merge`, against a bake in one process, file for file; merge's
// refusals; readers refusing a lone part; the shards through GNU parallel.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bake_world.h"
#include "core/hash.h"
#include "meshes/meshes.h"
#include "tileio/tileio.h"
#include "test_support.h"

namespace fs = std::filesystem;
using eco::test::TempDir;

namespace {

using Result = eco::test::CommandResult;
Result run(const std::string& args) { return eco::test::runTool("ecobake", args); }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::string q(const fs::path& p) {
  std::string quoted = "'";
  quoted += p.string();
  quoted += "'";
  return quoted;
}

// Every file and folder under dir: relative name -> bytes ("" for folders, marked "name/").
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(e.path(), dir).string();
    if (e.is_directory())
      files[name + "/"] = "";
    else
      files[name] = eco::test::readBytes(e.path().string());
  }
  return files;
}

// Every file of a and b equal, and no file in one only; names the first difference.
void expectSameFiles(const fs::path& a, const fs::path& b, const std::string& what) {
  const auto fa = snapshot(a), fb = snapshot(b);
  EXPECT_GT(fa.size(), 3u) << a;
  for (const auto& [name, bytes] : fa) {
    auto it = fb.find(name);
    if (it == fb.end()) {
      ADD_FAILURE() << what << ": " << name << " is missing from " << b;
      return;
    }
    if (it->second != bytes) {
      ADD_FAILURE() << what << ": " << name << " differs";
      return;
    }
  }
  for (const auto& [name, bytes] : fb)
    if (!fa.count(name)) {
      ADD_FAILURE() << what << ": " << name << " is only in " << b;
      return;
    }
}

// The ridge world (8 x 8 tiles of 128 m) and its bake in one process, made once.
struct World {
  TempDir dir;
  std::string config;
  fs::path full;
  World() {
    config = eco::test::writeRidgeWorld(dir);
    // The pine draws a mesh file: parts and merge carry the bake's normalised copy too.
    const eco::LoadedMesh unit = eco::proceduralMesh(eco::MeshForm::Conifer, 0);
    eco::MetricMesh metric{unit.vertices, unit.indices};
    for (eco::MeshVertex& v : metric.vertices) v.position[0] *= 3, v.position[1] *= 20, v.position[2] *= 3;
    const std::vector<uint8_t> glb = eco::writeGlb(metric);
    eco::test::writeBytes(dir.file("pine.glb"), std::string(glb.begin(), glb.end()));
    std::string text = eco::test::readBytes(config);
    const std::string mesh = R"("mesh": {"height": 20, "crown_radius": 3})";
    const size_t at = text.find(mesh);
    EXPECT_NE(at, std::string::npos);
    text.replace(at, mesh.size(), R"("mesh": {"height": 20, "crown_radius": 3, "form": "conifer", "file": "pine.glb"})");
    eco::test::writeBytes(config, text);
    full = dir.path / "full";
    Result r = run("bake " + q(config) + " -o " + q(full) + " -q -j 2");
    EXPECT_EQ(r.code, 0) << r.output;
  }
};
World& world() {
  static World w;
  return w;
}

std::string shardCommand(const fs::path& part, int i, int n) {
  return "bake " + q(world().config) + " -o " + q(part) + " -q -j 1 --shard " + std::to_string(i) + "/" + std::to_string(n);
}

// Bakes every shard of n into parts/<i>, in a shuffled order, one of them twice (a retry into
// its own folder must give the same bytes).
void bakeParts(const fs::path& parts, int n, std::mt19937& rng) {
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[size_t(i)] = i + 1;
  std::shuffle(order.begin(), order.end(), rng);
  const int retried = order[rng() % order.size()];
  for (int i : order) {
    Result r = run(shardCommand(parts / std::to_string(i), i, n));
    ASSERT_EQ(r.code, 0) << r.output;
  }
  const auto before = snapshot(parts / std::to_string(retried));
  Result r = run(shardCommand(parts / std::to_string(retried), retried, n));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(snapshot(parts / std::to_string(retried)), before) << "shard " << retried << " of " << n << " retried";
}

}  // namespace

// Shards compute the suitability only around their band (bake.cpp): on 64 m tiles the ridge
// world is 16 rows, and each of 8 shards' band and halo (5 rows each side for its 4 classes)
// leaves rows out. No halo at all gives other bytes than the one-process bake; a halo a few
// rows short did not here (what those rows change rarely reaches the band in so small a world),
// so SamplingDeterminism.ABandsDensityReadsStayWithinTheRowsItsUnitsReachAndTheirMargin holds
// the rows the sampler reads to the halo's.
TEST(CliShard, NarrowBandsComputeOnlyTheirRowsAndStillEqualOneProcess) {
  TempDir tmp;
  const std::string config = eco::test::writeRidgeWorld(tmp, 11, 64.f);
  Result r = run("bake " + q(fs::path(config)) + " -o " + q(tmp.path / "full") + " -q -j 2");
  ASSERT_EQ(r.code, 0) << r.output;
  std::string parts;
  for (int i = 1; i <= 8; ++i) {
    const fs::path part = tmp.path / "parts" / std::to_string(i);
    r = run(std::string("bake ") + q(fs::path(config)) + " -o " + q(part) + " -q -j 1 --shard " + std::to_string(i) + "/8");
    ASSERT_EQ(r.code, 0) << r.output;
    parts += ' ';
    parts += q(part);
  }
  r = run("merge" + parts + " -o " + q(tmp.path / "merged"));
  ASSERT_EQ(r.code, 0) << r.output;
  expectSameFiles(tmp.path / "full", tmp.path / "merged", "merge of 8 narrow shards");
}

TEST(CliShard, MergedShardsEqualABakeInOneProcess) {
  std::mt19937 rng(1919);
  for (int n : {1, 2, 3, 7}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    TempDir tmp;
    bakeParts(tmp.path / "parts", n, rng);
    // A folder of parts, and the parts named one by one in a shuffled order.
    Result r = run("merge " + q(tmp.path / "parts") + " -o " + q(tmp.path / "merged"));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(has(r.output, std::to_string(n) + " parts")) << r.output;
    expectSameFiles(world().full, tmp.path / "merged", "merge of a folder of " + std::to_string(n) + " parts");

    std::vector<std::string> names;
    for (int i = 1; i <= n; ++i) names.push_back(q(tmp.path / "parts" / std::to_string(i)));
    std::shuffle(names.begin(), names.end(), rng);
    std::string args;
    for (const std::string& name : names) args += " " + name;
    r = run("merge" + args + " -o " + q(tmp.path / "merged2"));
    ASSERT_EQ(r.code, 0) << r.output;
    expectSameFiles(world().full, tmp.path / "merged2", "merge of parts named one by one");
  }
}

// The pine's mesh file is in the bake as meshes/0.glb, the manifest names it with its size
// and hash, and its sphere is the real mesh's; merge refuses a part whose copy was altered.
TEST(CliShard, TheMeshFileTravelsWithTheBakeAndItsParts) {
  const std::string glb = eco::test::readBytes((world().full / "meshes/0.glb").string());
  const eco::Manifest m = eco::readManifest(world().full.string());
  ASSERT_EQ(m.species[0].meshFile, "meshes/0.glb");
  EXPECT_EQ(m.species[0].meshBytes, glb.size());
  EXPECT_EQ(m.species[0].meshChecksum, eco::checksum64({reinterpret_cast<const uint8_t*>(glb.data()), glb.size()}));
  EXPECT_EQ(eco::speciesMeshForm(m.species[0]), eco::MeshForm::Conifer);
  EXPECT_TRUE(m.species[1].meshFile.empty());
  EXPECT_FALSE(fs::exists(world().full / "meshes/1.glb"));
  // the file in the bake is the loader's normalised copy of the config's file (which was
  // written by the same writer, so the same bytes)
  EXPECT_EQ(glb, eco::test::readBytes(world().dir.file("pine.glb")));

  TempDir tmp;
  for (int i = 1; i <= 2; ++i) ASSERT_EQ(run(shardCommand(tmp.path / "parts" / std::to_string(i), i, 2)).code, 0);
  eco::test::writeBytes((tmp.path / "parts/1/meshes/0.glb").string(), std::string(glb.size(), 'x'));
  Result r = run("merge " + q(tmp.path / "parts") + " -o " + q(tmp.path / "merged"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "meshes/0.glb: checksum mismatch")) << r.output;
}

TEST(CliShard, ShardsFromTheBatchSystemsEnvironment) {
  TempDir tmp;
  // The batch systems' variables of the test's own environment (a CI job inside Slurm) cleared,
  // then the given ones set.
  auto withEnv = [&](const std::string& vars, const fs::path& out, const std::string& extra = "") {
    return eco::test::runCommand(
        "env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_STEP "
        "-u SLURM_ARRAY_TASK_COUNT -u AWS_BATCH_JOB_ARRAY_INDEX -u ECOBAKE_SHARD_COUNT " +
        vars + " " + eco::test::tool("ecobake") + " bake " + q(world().config) + " -q -j 1 --shard auto -o " + q(out) +
        extra);
  };
  // Kubernetes (0-based index, count on the command line), Slurm (ids 5..7), AWS Batch (0-based,
  // count in the environment).
  Result r = withEnv("JOB_COMPLETION_INDEX=0", tmp.path / "parts/a", " --shard-count 3");
  ASSERT_EQ(r.code, 0) << r.output;
  r = withEnv("SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3", tmp.path / "parts/b");
  ASSERT_EQ(r.code, 0) << r.output;
  r = withEnv("AWS_BATCH_JOB_ARRAY_INDEX=2 ECOBAKE_SHARD_COUNT=3", tmp.path / "parts/c");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run("merge " + q(tmp.path / "parts") + " -o " + q(tmp.path / "merged"));
  ASSERT_EQ(r.code, 0) << r.output;
  expectSameFiles(world().full, tmp.path / "merged", "shards from the environment");

  for (const auto& [vars, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "no shard index in the environment"},
           {"JOB_COMPLETION_INDEX=1", "ECOBAKE_SHARD_COUNT"},
           {"JOB_COMPLETION_INDEX=3 ECOBAKE_SHARD_COUNT=3", "JOB_COMPLETION_INDEX=3 is shard 4"},
           {"JOB_COMPLETION_INDEX=x ECOBAKE_SHARD_COUNT=3", "JOB_COMPLETION_INDEX: 'x'"},
           {"SLURM_ARRAY_TASK_ID=1 AWS_BATCH_JOB_ARRAY_INDEX=1 ECOBAKE_SHARD_COUNT=3", "ambiguous"},
           {"SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_ID=0"},
           {"AWS_BATCH_JOB_ARRAY_INDEX=0 ECOBAKE_SHARD_COUNT=9", "only 8 tile rows"}}) {
    r = withEnv(vars, tmp.path / "x");
    EXPECT_EQ(r.code, 2) << vars << ": " << r.output;
    EXPECT_TRUE(has(r.output, expected)) << vars << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << vars << ": " << r.output;
    EXPECT_FALSE(fs::exists(tmp.path / "x")) << vars;
  }
}

TEST(CliShard, MalformedShardOptionsExitTwoBeforeAnythingIsWritten) {
  TempDir tmp;
  const fs::path out = tmp.path / "out";
  for (const char* spec : {"0/3", "4/3", "1/0", "a/b", "1/99999999999", "99999999999999999999/3", "1/3/4", "-1/3", "",
                           "1 /3", "1/9"}) {  // 1/9: the world has 8 tile rows
    Result r = run("bake " + q(world().config) + " -o " + q(out) + " -q --shard '" + spec + "'");
    EXPECT_EQ(r.code, 2) << spec << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--shard")) << spec << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << spec << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << spec;
  }
  Result r = run("bake " + q(world().config) + " -o " + q(out) + " --shard 1/2 --tiles 0,0,1,1");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run("bake " + q(world().config) + " -o " + q(out) + " --shard 1/2 --shard-count 3");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--shard-count")) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliShard, ALonePartIsNotABake) {
  TempDir tmp;
  const fs::path part = tmp.path / "part";
  Result r = run(shardCommand(part, 2, 3));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(part / "terrain.r32f"));  // part 1 carries the terrain
  for (const std::string& args : {"inspect " + q(part), "export " + q(part) + " --format csv -o " + q(tmp.path / "x.csv"),
                                  "masks " + q(world().config) + " -o " + q(tmp.path / "m") + " --bake " + q(part)}) {
    r = run(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, "is part 2 of 3 of a sharded bake")) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, "ecobake merge")) << r.output;
  }
  if (fs::exists(eco::test::tool("ecoview"))) {  // built with the viewer
    r = eco::test::runTool("ecoview", q(part) + " --headless --frames 1 --size 8x8");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(has(r.output, "is part 2 of 3 of a sharded bake")) << r.output;
  }
  // A part folder is ecobake's own: a whole bake may replace it.
  r = run("bake " + q(world().config) + " -o " + q(part) + " -q --tiles 0,0,0,0");
  EXPECT_EQ(r.code, 0) << r.output;
}

TEST(CliShard, MergeRefusesMissingDuplicatedForeignAndDamagedParts) {
  TempDir tmp;
  const fs::path parts = tmp.path / "parts";
  for (int i = 1; i <= 3; ++i) ASSERT_EQ(run(shardCommand(parts / std::to_string(i), i, 3)).code, 0);
  const fs::path out = tmp.path / "out";
  auto merge = [&](const std::string& inputs) { return run("merge -q " + inputs + " -o " + q(out)); };
  auto refused = [&](const Result& r, const std::string& expected, const std::string& what) {
    EXPECT_EQ(r.code, 2) << what << ": " << r.output;
    EXPECT_TRUE(has(r.output, expected)) << what << ": expected '" << expected << "' in " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << what << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << what;
  };
  const std::string p1 = q(parts / "1"), p2 = q(parts / "2"), p3 = q(parts / "3");

  refused(merge(p1 + " " + p3), "part 2 of 3 is missing", "missing part 2");
  refused(merge(p2 + " " + p3), "part 1 of 3 is missing", "missing part 1");
  refused(merge(p1), "parts 2, 3 of 3 are missing", "parts 2 and 3 missing");

  fs::copy(parts / "2", tmp.path / "copy-of-2", fs::copy_options::recursive);
  refused(merge(p1 + " " + p2 + " " + p3 + " " + q(tmp.path / "copy-of-2")),
          (tmp.path / "copy-of-2").string() + ": duplicates part 2 of 3", "duplicated part");
  refused(merge(p1 + " " + p2 + " " + p2 + " " + p3), "2: is given twice (part 2 of 3)", "a part given twice");

  // A part of the same world with another seed, and of another shard count.
  const fs::path foreign = tmp.path / "foreign";
  ASSERT_EQ(run(shardCommand(foreign, 2, 3) + " --seed 99").code, 0);
  refused(merge(p1 + " " + q(foreign) + " " + p3), foreign.string() + ": is a part of another bake: its seed is 99",
          "foreign seed");
  const fs::path otherSplit = tmp.path / "other-split";
  ASSERT_EQ(run(shardCommand(otherSplit, 2, 4)).code, 0);
  refused(merge(p1 + " " + q(otherSplit) + " " + p3), otherSplit.string() + ": is a part of another bake: its shard count is 4",
          "another shard count");
  // A whole bake among the parts.
  refused(merge(p1 + " " + q(world().full) + " " + p3), "is a whole bake, not a part", "a whole bake");

  // Not a folder, missing, empty, a folder of no parts.
  eco::test::writeBytes((tmp.path / "file").string(), "x");
  refused(merge(q(tmp.path / "file")), "file: is not a folder", "a file");
  refused(merge(q(tmp.path / "nothing")), "nothing: does not exist", "missing");
  fs::create_directories(tmp.path / "empty");
  refused(merge(q(tmp.path / "empty")), "empty: holds no manifest.json and no part folders", "empty folder");

  // Damaged parts: corrupt or truncated manifest, a tile that changed, the terrain gone.
  auto damaged = [&](const std::string& name, auto damage, const std::string& expected) {
    const fs::path copy = tmp.path / name;
    fs::copy(parts, copy, fs::copy_options::recursive);
    damage(copy);
    refused(merge(q(copy)), expected, name);
  };
  damaged("truncated", [](const fs::path& p) {
    const std::string text = eco::test::readBytes((p / "2/manifest.json").string());
    eco::test::writeBytes((p / "2/manifest.json").string(), text.substr(0, text.size() / 2));
  }, "2/manifest.json: not valid JSON");
  damaged("bad-index", [](const fs::path& p) {
    std::string text = eco::test::readBytes((p / "3/manifest.json").string());
    text.replace(text.find("\"index\": 3"), 10, "\"index\": 9");
    eco::test::writeBytes((p / "3/manifest.json").string(), text);
  }, "3/manifest.json: /part/index: 9 is above count 3");
  damaged("changed-tile", [](const fs::path& p) {
    for (const auto& e : fs::directory_iterator(p / "2/tiles")) {
      std::string bytes = eco::test::readBytes(e.path().string());
      bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
      eco::test::writeBytes(e.path().string(), bytes);
      break;
    }
  }, "checksum mismatch");
  damaged("missing-tile", [](const fs::path& p) { fs::remove(fs::directory_iterator(p / "3/tiles")->path()); },
          "file not found");
  damaged("no-terrain", [](const fs::path& p) { fs::remove(p / "1/terrain.r32f"); }, "terrain.r32f");
  damaged("part-is-a-file", [](const fs::path& p) {
    fs::remove_all(p / "2");
    eco::test::writeBytes((p / "2").string(), "not a folder");
  }, "part 2 of 3 is missing");

  // The output may not be a part, inside one, or hold one.
  Result r = run("merge " + q(parts) + " -o " + q(parts / "2"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "lies inside part")) << r.output;
  r = run("merge " + q(parts) + " -o " + q(parts / "1/tiles/x"));
  EXPECT_EQ(r.code, 2) << r.output;
  r = run("merge " + q(parts / "1") + " " + q(parts / "2") + " " + q(parts / "3") + " -o " + q(parts));
  EXPECT_EQ(r.code, 2) << r.output;  // the folder of parts is no bake
  // A previous bake that holds the parts: replacing it would delete them.
  const fs::path owned = tmp.path / "owned";
  fs::copy(world().full, owned, fs::copy_options::recursive);
  fs::copy(parts, owned / "parts", fs::copy_options::recursive);
  r = run("merge " + q(owned / "parts") + " -o " + q(owned));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "owned/parts: is not a file the tool wrote")) << r.output;
  EXPECT_TRUE(fs::exists(owned / "parts/2/manifest.json"));
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(fs::exists(parts / std::to_string(i) / "manifest.json"));
  // An output that is a file, someone else's folder or empty: refused, nothing touched.
  eco::test::writeBytes((tmp.path / "notes.txt").string(), "mine");
  r = run("merge " + q(parts) + " -o " + q(tmp.path / "notes.txt"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "is not a folder")) << r.output;
  EXPECT_EQ(eco::test::readBytes((tmp.path / "notes.txt").string()), "mine");
  fs::create_directories(tmp.path / "photos");
  eco::test::writeBytes((tmp.path / "photos/a.jpg").string(), "jpg");
  r = run("merge " + q(parts) + " -o " + q(tmp.path / "photos"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "is not a previous ecobake bake")) << r.output;
  EXPECT_EQ(eco::test::readBytes((tmp.path / "photos/a.jpg").string()), "jpg");
  r = run("merge " + q(parts) + " -o ''");
  EXPECT_EQ(r.code, 2) << r.output;

  // Staging folders of a killed shard beside the parts are not parts.
  fs::copy(parts / "2", parts / "2.ecobake-staging-abcdefghij", fs::copy_options::recursive);
  r = merge(q(parts));
  EXPECT_EQ(r.code, 0) << r.output;
  expectSameFiles(world().full, out, "merge beside a staging folder");
  // Merging again replaces the previous merge.
  r = merge(q(parts));
  EXPECT_EQ(r.code, 0) << r.output;
  expectSameFiles(world().full, out, "merge over a previous merge");
}

// The shards run by a real batch engine available on one machine: GNU parallel (Debian
// `parallel`, installed by scripts/install-deps.sh --tests); skipped where it is absent.
TEST(CliShard, ShardsThroughGnuParallel) {
  if (eco::test::runCommand("sh -c 'command -v parallel'").code != 0) GTEST_SKIP() << "GNU parallel is not installed";
  if (!has(eco::test::runCommand("parallel --version").output, "GNU parallel"))
    GTEST_SKIP() << "`parallel` here is not GNU parallel (moreutils?)";
  TempDir tmp;
  // The recipe of docs/distributed.md, with the shard's own folder per job.
  const std::string line = "parallel --will-cite --halt now,fail=1 -j 2 " + eco::test::tool("ecobake") + " bake " +
                           q(world().config) + " -o " + q(tmp.path / "parts") + "/{} --shard {}/5 -q -j 1 ::: 1 2 3 4 5";
  Result r = eco::test::runCommand(line, 300);
  ASSERT_EQ(r.code, 0) << line << "\n" << r.output;
  r = run("merge " + q(tmp.path / "parts") + " -o " + q(tmp.path / "merged") + " -q");
  ASSERT_EQ(r.code, 0) << r.output;
  expectSameFiles(world().full, tmp.path / "merged", "GNU parallel");
  r = eco::test::runCommand("diff -r " + q(world().full) + " " + q(tmp.path / "merged"));
  EXPECT_EQ(r.code, 0) << r.output;
}

// merge --link: the same folder, its files hard links to the parts' (so deleting or re-baking
// the parts leaves it intact); a tile whose size changed is still refused.
TEST(CliShard, MergeByHardLinks) {
  TempDir tmp;
  const fs::path parts = tmp.path / "parts";
  for (int i = 1; i <= 3; ++i) ASSERT_EQ(run(shardCommand(parts / std::to_string(i), i, 3)).code, 0);
  Result r = run("merge --link " + q(parts) + " -o " + q(tmp.path / "merged"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "all files hard-linked")) << r.output;
  expectSameFiles(world().full, tmp.path / "merged", "merge --link");
  struct stat part {}, merged {};
  ASSERT_EQ(::stat((parts / "1/terrain.r32f").c_str(), &part), 0);
  ASSERT_EQ(::stat((tmp.path / "merged/terrain.r32f").c_str(), &merged), 0);
  EXPECT_EQ(part.st_ino, merged.st_ino);
  // Re-baking a shard and deleting the parts leave the merged bake as it was.
  ASSERT_EQ(run(shardCommand(parts / "2", 2, 3)).code, 0);
  fs::remove_all(parts / "1");
  expectSameFiles(world().full, tmp.path / "merged", "merge --link after its parts changed");
  r = run("inspect " + q(tmp.path / "merged"));
  EXPECT_EQ(r.code, 0) << r.output;

  ASSERT_EQ(run(shardCommand(parts / "1", 1, 3)).code, 0);
  // Output on another file system: copied instead, the same bytes.
  struct stat shm {}, here {};
  if (::stat("/dev/shm", &shm) == 0 && ::stat(tmp.path.c_str(), &here) == 0 && shm.st_dev != here.st_dev &&
      ::access("/dev/shm", W_OK) == 0) {
    const fs::path other = fs::path("/dev/shm") / ("ecobake-link-test-" + std::to_string(::getpid()));
    r = run("merge --link " + q(parts) + " -o " + q(other));
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(has(r.output, "some files copied")) << r.output;
    expectSameFiles(world().full, other, "merge --link across file systems");
    fs::remove_all(other);
  }
  const fs::path tile = fs::directory_iterator(parts / "3/tiles")->path();
  eco::test::writeBytes(tile.string(), eco::test::readBytes(tile.string()) + "x");
  r = run("merge -q --link " + q(parts) + " -o " + q(tmp.path / "merged2"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, tile.filename().string())) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path / "merged2"));
}

// Raster layers (issue #20) in a sharded bake: every part lists them, part 1 carries the
// files, and the merge equals the bake in one process; parts baked with and without
// --layers masks are parts of different bakes.
TEST(CliShard, MergedShardsWithLayersEqualABakeInOneProcess) {
  TempDir tmp;
  const std::string config = eco::test::writeRiverRidgeWorld(tmp);
  const fs::path full = tmp.path / "full";
  Result r = run("bake " + q(config) + " -o " + q(full) + " -q -j 2 --layers masks");
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(fs::exists(full / "layers" / "river_distance.r16"));
  ASSERT_TRUE(fs::exists(full / "layers" / "suitability_3.r8"));
  const fs::path parts = tmp.path / "parts";
  for (int i : {3, 1, 2}) {
    r = run("bake " + q(config) + " -o " + q(parts / std::to_string(i)) + " -q -j 1 --layers masks --shard " +
            std::to_string(i) + "/3");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  EXPECT_TRUE(fs::exists(parts / "1" / "layers" / "elevation.r8"));
  EXPECT_FALSE(fs::exists(parts / "2" / "layers"));  // part 1 carries the files, like the terrain
  r = run("merge " + q(parts) + " -o " + q(tmp.path / "merged"));
  ASSERT_EQ(r.code, 0) << r.output;
  expectSameFiles(full, tmp.path / "merged", "merge of 3 parts with layers");
  r = run("merge --link " + q(parts) + " -o " + q(tmp.path / "linked"));
  ASSERT_EQ(r.code, 0) << r.output;
  expectSameFiles(full, tmp.path / "linked", "merge by hard links of 3 parts with layers");

  // Part 2 without --layers masks: another bake.
  r = run("bake " + q(config) + " -o " + q(tmp.path / "plain2") + " -q -j 1 --shard 2/3");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run("merge -q " + q(parts / "1") + " " + q(tmp.path / "plain2") + " " + q(parts / "3") + " -o " + q(tmp.path / "mixed"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "plain2: is a part of another bake: its layer count is 1")) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path / "mixed"));
  // A damaged layer file in part 1 is named, and nothing is written.
  fs::copy(parts / "1", tmp.path / "damaged1", fs::copy_options::recursive);
  std::string bytes = eco::test::readBytes((tmp.path / "damaged1" / "layers" / "slope.r8").string());
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
  eco::test::writeBytes((tmp.path / "damaged1" / "layers" / "slope.r8").string(), bytes);
  r = run("merge -q " + q(tmp.path / "damaged1") + " " + q(parts / "2") + " " + q(parts / "3") + " -o " +
          q(tmp.path / "bad"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "layers/slope.r8: checksum mismatch")) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path / "bad"));
}
