// Sharded bakes in the library (issue #19): the shard spec and the batch systems'
// environments, the split of tile rows by estimated work, and the part manifests a shard
// writes. The end-to-end runs (shards in any order, retries, merge, GNU parallel) are in
// cli_shard_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bake/bake.h"
#include "bake_world.h"
#include "config/config.h"
#include "core/error.h"
#include "tileio/tileio.h"

using eco::InputError;
using eco::ShardSpec;
using eco::test::TempDir;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the InputError f throws, or "" when it throws none.
template <typename F>
std::string errorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using Env = std::map<std::string, std::string>;
ShardSpec fromEnv(const Env& env, std::optional<int> count = {}, std::string* source = nullptr) {
  return eco::shardFromEnvironment(
      [&env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      count, source);
}
std::string envError(const Env& env, std::optional<int> count = {}) {
  return errorOf([&] { fromEnv(env, count); });
}

}  // namespace

TEST(ShardSpec, ParsesIOfN) {
  ShardSpec s = eco::parseShardSpec("3/7");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 7);
  s = eco::parseShardSpec("1/1");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 1);
  s = eco::parseShardSpec("1048576/1048576");
  EXPECT_EQ(s.index, 1048576);
  s = eco::parseShardSpec("007/010");  // leading zeros are still decimal
  EXPECT_EQ(s.index, 7);
  EXPECT_EQ(s.count, 10);
}

TEST(ShardSpec, RefusesMalformedSpecsNamingTheOption) {
  for (const char* text : {"0/3", "4/3", "1/0", "0/0", "a/b", "1/b", "a/3", "1/99999999999", "99999999999/3",
                           "99999999999999999999999/3", "1/1048577", "1/3/4", "", "/", "1/", "/3", "-1/3", "1/-3",
                           "+1/3", " 1/3", "1/3 ", "1.0/3", "1e1/30", "3", "auto/3", "1\\3", "1 / 3"}) {
    const std::string error = errorOf([&] { eco::parseShardSpec(text, "--shard"); });
    EXPECT_TRUE(has(error, "--shard")) << text << ": " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  EXPECT_TRUE(has(errorOf([] { eco::parseShardSpec("4/3"); }), "no shard 4 of 3"));
  EXPECT_TRUE(has(errorOf([] { eco::parseShardSpec("0/3"); }), "I runs from 1 to 3"));
}

TEST(ShardEnvironment, KubernetesIndexIsZeroBasedWithTheCountFromTheCommandLineOrEnvironment) {
  std::string source;
  ShardSpec s = fromEnv({{"JOB_COMPLETION_INDEX", "0"}}, 4, &source);
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(source, "JOB_COMPLETION_INDEX=0");
  s = fromEnv({{"JOB_COMPLETION_INDEX", "3"}, {"ECOBAKE_SHARD_COUNT", "4"}});
  EXPECT_EQ(s.index, 4);
  EXPECT_EQ(s.count, 4);
  // The command line wins over the environment.
  s = fromEnv({{"JOB_COMPLETION_INDEX", "5"}, {"ECOBAKE_SHARD_COUNT", "4"}}, 8);
  EXPECT_EQ(s.index, 6);
  EXPECT_EQ(s.count, 8);
  EXPECT_TRUE(has(envError({{"JOB_COMPLETION_INDEX", "4"}}, 4), "JOB_COMPLETION_INDEX=4 is shard 5"));
  EXPECT_TRUE(has(envError({{"JOB_COMPLETION_INDEX", "1"}}), "--shard-count"));
  EXPECT_TRUE(has(envError({{"JOB_COMPLETION_INDEX", "1"}}), "ECOBAKE_SHARD_COUNT"));
}

TEST(ShardEnvironment, SlurmIdsCountFromTheArraysMinimumAndStep) {
  // --array=1-4 (Slurm sets MIN, MAX, COUNT and, with a step, STEP)
  ShardSpec s = fromEnv({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}});
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 4);
  // --array=0-3
  s = fromEnv({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "0"}});
  EXPECT_EQ(s.index, 4);
  // --array=10-40:10
  s = fromEnv({{"SLURM_ARRAY_TASK_ID", "30"},
               {"SLURM_ARRAY_TASK_COUNT", "4"},
               {"SLURM_ARRAY_TASK_MIN", "10"},
               {"SLURM_ARRAY_TASK_STEP", "10"}});
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 4);
  // Without MIN the ids are taken as 1-based.
  s = fromEnv({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "2"}});
  EXPECT_EQ(s.index, 2);
  EXPECT_TRUE(has(envError({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}), "SLURM_ARRAY_TASK_ID=0"));
  EXPECT_TRUE(has(envError({{"SLURM_ARRAY_TASK_ID", "25"},
                            {"SLURM_ARRAY_TASK_COUNT", "4"},
                            {"SLURM_ARRAY_TASK_MIN", "10"},
                            {"SLURM_ARRAY_TASK_STEP", "10"}}),
                  "not an id of the array"));
  EXPECT_TRUE(has(envError({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}}),
                  "is shard 5"));
  // No SLURM_ARRAY_TASK_COUNT: ECOBAKE_SHARD_COUNT or the command line.
  s = fromEnv({{"SLURM_ARRAY_TASK_ID", "2"}, {"ECOBAKE_SHARD_COUNT", "3"}});
  EXPECT_EQ(s.count, 3);
  EXPECT_TRUE(has(envError({{"SLURM_ARRAY_TASK_ID", "2"}}), "SLURM_ARRAY_TASK_COUNT"));
}

TEST(ShardEnvironment, AwsBatchIndexIsZeroBased) {
  ShardSpec s = fromEnv({{"AWS_BATCH_JOB_ARRAY_INDEX", "9"}, {"ECOBAKE_SHARD_COUNT", "10"}});
  EXPECT_EQ(s.index, 10);
  EXPECT_EQ(s.count, 10);
  s = fromEnv({{"AWS_BATCH_JOB_ARRAY_INDEX", "0"}}, 2);
  EXPECT_EQ(s.index, 1);
}

TEST(ShardEnvironment, MissingAmbiguousOrMalformedValuesAreOneLineErrors) {
  std::string none = envError({});
  EXPECT_TRUE(has(none, "no shard index in the environment")) << none;
  EXPECT_TRUE(has(none, "JOB_COMPLETION_INDEX") && has(none, "SLURM_ARRAY_TASK_ID") &&
              has(none, "AWS_BATCH_JOB_ARRAY_INDEX"))
      << none;
  EXPECT_TRUE(has(envError({{"JOB_COMPLETION_INDEX", ""}}), "no shard index"));  // empty counts as unset
  EXPECT_TRUE(has(envError({{"JOB_COMPLETION_INDEX", "1"}, {"SLURM_ARRAY_TASK_ID", "1"}}, 4), "ambiguous"));
  for (const Env& env : std::vector<Env>{
           {{"JOB_COMPLETION_INDEX", "x"}, {"ECOBAKE_SHARD_COUNT", "3"}},
           {{"JOB_COMPLETION_INDEX", "-1"}, {"ECOBAKE_SHARD_COUNT", "3"}},
           {{"JOB_COMPLETION_INDEX", "1.5"}, {"ECOBAKE_SHARD_COUNT", "3"}},
           {{"JOB_COMPLETION_INDEX", "99999999999999999999999"}, {"ECOBAKE_SHARD_COUNT", "3"}},
           {{"JOB_COMPLETION_INDEX", "1"}, {"ECOBAKE_SHARD_COUNT", "0"}},
           {{"JOB_COMPLETION_INDEX", "1"}, {"ECOBAKE_SHARD_COUNT", "three"}},
           {{"JOB_COMPLETION_INDEX", "1"}, {"ECOBAKE_SHARD_COUNT", "99999999999"}},
           {{"SLURM_ARRAY_TASK_ID", "1\n2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}},
           {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_STEP", "0"}},
           {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_MIN", "-4"}},
           {{"AWS_BATCH_JOB_ARRAY_INDEX", " 1"}, {"ECOBAKE_SHARD_COUNT", "3"}},
       }) {
    const std::string error = envError(env);
    EXPECT_TRUE(has(error, "--shard auto")) << error;
    bool named = false;
    for (const auto& [name, value] : env) named = named || has(error, name);
    EXPECT_TRUE(named) << error;
  }
}

TEST(SplitRows, BandsAreContiguousNonEmptyAndCoverTheRows) {
  EXPECT_EQ(eco::splitRows(std::vector<double>(12, 1.0), 3), (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(eco::splitRows(std::vector<double>(5, 1.0), 1), (std::vector<int>{0, 5}));
  EXPECT_EQ(eco::splitRows(std::vector<double>(5, 1.0), 5), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // All work in one row: that row alone, the others still get a row each.
  EXPECT_EQ(eco::splitRows({0, 0, 0, 100, 0, 0}, 3), (std::vector<int>{0, 3, 4, 6}));
  EXPECT_EQ(eco::splitRows({100, 0, 0, 0, 0, 0}, 3), (std::vector<int>{0, 1, 2, 6}));
  EXPECT_EQ(eco::splitRows({0, 0, 0, 0}, 4), (std::vector<int>{0, 1, 2, 3, 4}));
  // The heavy row goes where the bands come out most even: 3 | 102, not 103 | 2.
  EXPECT_EQ(eco::splitRows({1, 1, 1, 100, 1, 1}, 2), (std::vector<int>{0, 3, 6}));
  EXPECT_TRUE(has(errorOf([] { eco::splitRows(std::vector<double>(6, 1.0), 7); }), "only 6 tile rows"));
}

// Against a brute-force search of every split: the bands' largest work is within two rows'
// work of the best possible (each boundary is the nearest to its share of the total).
TEST(SplitRows, BalanceIsNearTheBestSplit) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 300; ++trial) {
    const int rows = 1 + int(rng() % 12), count = 1 + int(rng() % unsigned(rows));
    std::vector<double> work(static_cast<size_t>(rows));
    for (double& w : work) w = double(rng() % 4 == 0 ? 0 : rng() % 1000);
    const std::vector<int> bounds = eco::splitRows(work, count);
    ASSERT_EQ(bounds.size(), size_t(count) + 1);
    EXPECT_EQ(bounds.front(), 0);
    EXPECT_EQ(bounds.back(), rows);
    double worst = 0;
    for (int k = 0; k < count; ++k) {
      ASSERT_LT(bounds[size_t(k)], bounds[size_t(k) + 1]);
      worst = std::max(worst, std::accumulate(work.begin() + bounds[size_t(k)], work.begin() + bounds[size_t(k) + 1], 0.0));
    }
    // The best split: every placement of count - 1 cuts among rows - 1 gaps.
    double best = 1e300;
    std::vector<bool> cut(size_t(rows - 1), false);
    std::fill(cut.begin(), cut.begin() + (count - 1), true);
    std::sort(cut.begin(), cut.end());
    do {
      double band = 0, most = 0;
      for (int r = 0; r < rows; ++r) {
        band += work[size_t(r)];
        if (r == rows - 1 || cut[size_t(r)]) most = std::max(most, band), band = 0;
      }
      best = std::min(best, most);
    } while (std::next_permutation(cut.begin(), cut.end()));
    const double maxRow = *std::max_element(work.begin(), work.end());
    EXPECT_LE(worst, best + 2 * maxRow) << "trial " << trial;
  }
}

TEST(ShardPlan, RowWorkIsTheSameForAnyThreadCountAndFollowsTheEstimate) {
  TempDir dir;
  eco::World world = eco::loadWorld(eco::test::writeRidgeWorld(dir));
  const std::vector<double> one = eco::tileRowWork(world, 1);
  ASSERT_EQ(one.size(), 8u);
  for (int threads : {2, 3, 8}) {
    const std::vector<double> many = eco::tileRowWork(world, threads);
    ASSERT_EQ(many.size(), one.size());
    for (size_t r = 0; r < one.size(); ++r) EXPECT_EQ(many[r], one[r]) << "row " << r << ", " << threads << " threads";
  }
  // The rows' instances (work less the fixed cost per tile) add up to about the estimate's.
  const double instances = std::accumulate(one.begin(), one.end(), 0.0) - 1000.0 * 8 * 8;
  const double estimated = eco::estimateBake(world, 1).instances;
  EXPECT_NEAR(instances / estimated, 1.0, 0.15) << instances << " vs " << estimated;
  // Each row's work against the estimate of that row alone.
  for (int r = 0; r < 8; ++r) {
    const double row = eco::estimateBake(world, 1, eco::TileRange{0, r, 8, r + 1}).instances;
    EXPECT_NEAR(one[size_t(r)] - 8000.0, row, 0.25 * row + 500) << "row " << r;
  }
  // Shards: bands of whole rows.
  for (int count : {1, 2, 3, 7, 8}) {
    int next = 0;
    for (int i = 1; i <= count; ++i) {
      const eco::ShardRange range = eco::planShard(world, {i, count}, 2);
      EXPECT_EQ(range.tiles.x0, 0);
      EXPECT_EQ(range.tiles.x1, 8);
      EXPECT_EQ(range.tiles.z0, next);
      EXPECT_GT(range.tiles.z1, range.tiles.z0);
      next = range.tiles.z1;
    }
    EXPECT_EQ(next, 8);
  }
  EXPECT_TRUE(has(errorOf([&] { eco::planShard(world, {1, 9}, 1); }), "only 8 tile rows"));
}
