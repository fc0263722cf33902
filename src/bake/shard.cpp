// Sharded bakes: which shard this worker is (the command line or a batch system's
// environment) and which band of tile rows it bakes. The bake itself is bake.cpp's, with a
// part manifest; merge.cpp puts the parts back together.
#include <algorithm>
#include <string>
#include <vector>

#include "bake/bake.h"
#include "core/error.h"
#include "core/parse_number.h"

namespace eco {

ShardSpec parseShardSpec(const std::string& text, const std::string& option) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw InputError(option + ": '" + text + "' is not I/N (shard I of N, 1-based: 1/4 .. 4/4) or auto");
  const std::string count = text.substr(slash + 1), index = text.substr(0, slash);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(index) || !digits(count))
    throw InputError(option + ": '" + text + "' is not I/N (shard I of N, 1-based: 1/4 .. 4/4) or auto");
  ShardSpec spec;
  spec.count = int(parseInteger(count, option + " count N", 1, kMaxShards));
  // Digits only, so a huge index is out of range, never a wrap-around.
  if (index.size() > 9 || std::stoll(index) < 1 || std::stoll(index) > spec.count)
    throw InputError(option + ": '" + text + "': there is no shard " + index + " of " + count + " (I runs from 1 to " +
                     std::to_string(spec.count) + ")");
  spec.index = int(std::stoll(index));
  return spec;
}

namespace {

// The variable's value as an integer in [lo, hi]; InputError naming it otherwise.
int64_t envInteger(const char* name, const char* value, int64_t lo, int64_t hi) {
  return parseInteger(value, std::string("--shard auto: ") + name, lo, hi);
}

}  // namespace

ShardSpec shardFromEnvironment(const std::function<const char*(const char*)>& env, std::optional<int> count,
                               std::string* source) {
  auto get = [&env](const char* name) -> const char* {
    const char* v = env(name);
    return v && *v ? v : nullptr;  // an empty variable counts as unset
  };
  static const char* const kIndexVariables[] = {"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
                                                "AWS_BATCH_JOB_ARRAY_INDEX"};
  std::vector<std::string> set;
  for (const char* name : kIndexVariables)
    if (get(name)) set.push_back(name);
  if (set.empty())
    throw InputError(
        "--shard auto: no shard index in the environment (JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, "
        "SLURM_ARRAY_TASK_ID of a Slurm array, AWS_BATCH_JOB_ARRAY_INDEX of an AWS Batch array job); "
        "pass --shard I/N");
  if (set.size() > 1)
    throw InputError("--shard auto: both " + set[0] + " and " + set[1] +
                     " are set, so the batch system is ambiguous; pass --shard I/N");
  const std::string name = set[0];

  // The count: the command line, else the engine's own variable, else ECOBAKE_SHARD_COUNT.
  std::string countFrom = "--shard-count";
  int n = count.value_or(0);
  if (!count) {
    const char* countVariable = name == "SLURM_ARRAY_TASK_ID" ? "SLURM_ARRAY_TASK_COUNT" : "ECOBAKE_SHARD_COUNT";
    const char* value = get(countVariable);
    if (!value && name == "SLURM_ARRAY_TASK_ID") countVariable = "ECOBAKE_SHARD_COUNT", value = get(countVariable);
    if (!value)
      throw InputError("--shard auto: " + name + " is set but the shard count is not: pass --shard-count N or set " +
                       (name == "SLURM_ARRAY_TASK_ID" ? "SLURM_ARRAY_TASK_COUNT" : "ECOBAKE_SHARD_COUNT"));
    n = int(envInteger(countVariable, value, 1, kMaxShards));
    countFrom = countVariable;
  }
  if (n < 1 || n > kMaxShards)
    throw InputError("--shard-count: " + std::to_string(n) + " is out of range (1 to " + std::to_string(kMaxShards) + ")");

  const char* value = get(name.c_str());
  int64_t index = 0;  // 1-based
  if (name == "SLURM_ARRAY_TASK_ID") {
    // Array ids are what the user wrote in --array (0-6, 1-7, 10-70:10): the position in
    // the array is (id - min) / step.
    const int64_t id = envInteger("SLURM_ARRAY_TASK_ID", value, 0, int64_t(1) << 40);
    const char* minText = get("SLURM_ARRAY_TASK_MIN");
    const char* stepText = get("SLURM_ARRAY_TASK_STEP");
    const int64_t min = minText ? envInteger("SLURM_ARRAY_TASK_MIN", minText, 0, int64_t(1) << 40) : 1;
    const int64_t step = stepText ? envInteger("SLURM_ARRAY_TASK_STEP", stepText, 1, int64_t(1) << 40) : 1;
    if (id < min || (id - min) % step != 0)
      throw InputError("--shard auto: SLURM_ARRAY_TASK_ID=" + std::string(value) + " is not an id of the array (min " +
                       std::to_string(min) + ", step " + std::to_string(step) + ")");
    index = (id - min) / step + 1;
  } else {
    index = envInteger(name.c_str(), value, 0, int64_t(1) << 40) + 1;  // 0-based
  }
  if (index > n)
    throw InputError("--shard auto: " + name + "=" + value + " is shard " + std::to_string(index) + ", but " +
                     countFrom + " says there are " + std::to_string(n));
  if (source) *source = name + "=" + value;
  return {int(index), n};
}

std::vector<int> splitRows(const std::vector<double>& work, int count) {
  const int rows = int(work.size());
  if (count < 1) throw InputError("--shard: the shard count must be at least 1");
  if (count > rows)
    throw InputError("--shard: " + std::to_string(count) + " shards, but the world has only " + std::to_string(rows) +
                     " tile rows (a shard bakes whole rows): use at most " + std::to_string(rows) + " shards");
  std::vector<double> prefix(size_t(rows) + 1, 0.0);  // prefix[r]: the work of rows 0..r-1
  for (int r = 0; r < rows; ++r) prefix[size_t(r) + 1] = prefix[size_t(r)] + std::max(0.0, work[size_t(r)]);
  const double total = prefix.back();
  std::vector<int> bounds(size_t(count) + 1, 0);
  bounds.back() = rows;
  for (int k = 1; k < count; ++k) {
    const double target = total * double(k) / double(count);
    // The first boundary whose prefix reaches the target, or the one before when nearer;
    // then at least one row per band on either side.
    int r = int(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
    if (r > 0 && target - prefix[size_t(r) - 1] < prefix[size_t(std::min(r, rows))] - target) --r;
    bounds[size_t(k)] = std::clamp(r, bounds[size_t(k) - 1] + 1, rows - (count - k));
  }
  return bounds;
}

ShardRange planShard(const World& world, ShardSpec spec, int threads) {
  const SamplerParams params = samplerParams(world, speciesOrder(world.config));
  const std::vector<int> bounds = splitRows(tileRowWork(world, threads), spec.count);
  return {spec, TileRange{0, bounds[size_t(spec.index) - 1], tilesX(params), bounds[size_t(spec.index)]}};
}

}  // namespace eco
