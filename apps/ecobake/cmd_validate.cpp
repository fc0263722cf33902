#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "config/biome_config.h"

namespace eco::cli {

namespace {
int gExitCode = 0;
}

void setExitCode(int code) { gExitCode = code; }
int exitCode() { return gExitCode; }

void addValidate(CLI::App& app) {
  auto config = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a biome config and its input files; list every problem");
  cmd->add_option("CONFIG", *config, "Biome config (JSON)")->required();
  cmd->callback([config] {
    std::vector<ConfigProblem> problems;
    BiomeConfig parsed = parseBiomeConfig(*config, problems);
    checkBiomeInputs(parsed, problems);
    for (const ConfigProblem& p : problems) std::fprintf(stderr, "%s\n", formatProblem(*config, p).c_str());
    if (!problems.empty()) {
      std::fprintf(stderr, "%s: %zu problem(s)\n", config->c_str(), problems.size());
      setExitCode(2);
      return;
    }
    std::printf("%s: ok (%zu species)\n", config->c_str(), parsed.species.size());
  });
}

}  // namespace eco::cli
