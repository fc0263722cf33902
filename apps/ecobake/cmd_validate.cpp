#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <thread>

#include "bake/bake.h"
#include "commands.h"
#include "config/config.h"
#include "core/error.h"
#include "core/parse_number.h"
#include "core/species_kind.h"

namespace eco::cli {

namespace {
int gExitCode = 0;

// "64G", "1.5TB", "512MiB", "2e9": decimal prefixes are powers of 1000, binary (KiB, MiB,
// GiB, TiB) of 1024; no suffix means bytes.
double parseBytes(const std::string& text, const std::string& what) {
  static const struct {
    const char* suffix;
    double factor;
  } kUnits[] = {{"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}, {"KB", 1e3}, {"MB", 1e6},
                {"GB", 1e9},     {"TB", 1e12},    {"K", 1e3},       {"M", 1e6},       {"G", 1e9},  {"T", 1e12},
                {"B", 1}};
  for (const auto& unit : kUnits) {
    const std::string suffix = unit.suffix;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
      return parseReal(text.substr(0, text.size() - suffix.size()), what, 1, 1e18 / unit.factor) * unit.factor;
  }
  return parseReal(text, what, 1, 1e18);
}

}  // namespace

void setExitCode(int code) { gExitCode = code; }
int exitCode() { return gExitCode; }

void addLimitOptions(CLI::App* cmd, LimitArgs& a) {
  cmd->add_option("--max-instances", a.maxInstances, "Refuse a bake estimated above this many instances (default 1e9)");
  cmd->add_option("--max-output", a.maxOutput, "Refuse a bake estimated to write more (default 100GB; K/M/G/T, KiB..TiB)");
  cmd->add_option("--max-memory", a.maxMemory,
                  "Refuse a bake estimated to need more memory (default: 3/4 of this machine's or its cgroup's memory)");
  cmd->add_flag("--allow-large", a.allow, "Print the estimate but never refuse on it");
}

BakeLimits parseLimits(const LimitArgs& a) {
  BakeLimits limits;
  if (a.maxInstances) limits.maxInstances = parseReal(*a.maxInstances, "--max-instances", 1, 1e18);
  if (a.maxOutput) limits.maxOutputBytes = parseBytes(*a.maxOutput, "--max-output");
  if (a.maxMemory) limits.maxMemoryBytes = parseBytes(*a.maxMemory, "--max-memory");
  limits.allow = a.allow;
  return limits;
}

void addValidate(CLI::App& app) {
  struct Args {
    std::string config;
    std::string threads = "0";
    LimitArgs limits;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Check a biome config and its input files as bake would, list every problem and estimate the bake");
  cmd->add_option("CONFIG", a->config, "Biome config (JSON)")->required();
  cmd->add_option("-j,--threads", a->threads, "Threads the bake would use, for its memory estimate (default: all cores)");
  addLimitOptions(cmd, a->limits);
  cmd->callback([a] {
    const int requested = int(parseInteger(a->threads, "-j/--threads", 0, 1024));
    const int threads = requested > 0 ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
    const BakeLimits limits = parseLimits(a->limits);
    const std::string& config = a->config;
    std::vector<ConfigProblem> problems;
    BiomeConfig parsed = parseBiomeConfig(config, problems);
    BiomeInputs inputs;  // decoded once: the world below is made from them
    if (problems.empty()) inputs = loadBiomeInputs(parsed, problems);
    std::optional<BakeEstimate> estimate;
    std::string crs;
    if (problems.empty()) {
      // Everything bake does before sampling: decode the images, the checks on the loaded
      // world, then the estimate against the limits.
      try {
        World world = makeWorld(parsed, std::move(inputs));
        crs = world.crs;
        checkWorld(world, problems);
        if (problems.empty()) {
          estimate = estimateBake(world, threads);
          if (std::string why = limitProblem(*estimate, limits); !why.empty()) problems.push_back({"", why});
        }
      } catch (const InputError& e) {
        problems.push_back({"", e.what()});
      }
    }
    for (const ConfigProblem& p : problems) std::fprintf(stderr, "%s\n", formatProblem(config, p).c_str());
    if (!problems.empty()) {
      std::fprintf(stderr, "%s: %zu problem(s)\n", config.c_str(), problems.size());
      setExitCode(2);
      return;
    }
    std::printf("%s: ok (%zu species%s); %s with %d threads\n", config.c_str(), parsed.species.size(),
                crs.empty() ? "" : ("; heightmap CRS " + crs).c_str(), describeEstimate(*estimate).c_str(), threads);
    // How the viewer draws each species: a tree without mesh.form or a mesh file is drawn as a
    // broadleaf, which a pine is not, and a species without a colour in its kind's; said here
    // rather than found in the viewer.
    for (size_t i = 0; i < parsed.species.size(); ++i) {
      const SpeciesConfig& s = parsed.species[i];
      // its share of the estimate, so a reviewer sees which species a change moves
      std::printf("  %-24s %-12s about %9.0f  ", s.name.c_str(), speciesKindName(s.kind), estimate->speciesInstances[i]);
      if (!s.meshFile.empty())
        std::printf("drawn from its mesh.file");
      else if (s.meshFormGiven)
        std::printf("drawn as %s (mesh.form)", meshFormName(s.meshForm));
      else if (s.kind == SpeciesKind::Tree)
        std::printf("drawn as %s (the tree default: set /species/%zu/mesh/form to conifer for needle trees)",
                    meshFormName(s.meshForm), i);
      else
        std::printf("drawn as %s", meshFormName(s.meshForm));  // the kind's one form
      if (!s.colorGiven) std::printf(", in the %s default colour (set /species/%zu/color)", speciesKindName(s.kind), i);
      std::printf("\n");
    }
  });
}

}  // namespace eco::cli
