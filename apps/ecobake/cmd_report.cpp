// ecobake report BAKE -o DIR: a bake's ecology at a glance (docs/ci.md).
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "report/report.h"

namespace eco::cli {

void addReport(CLI::App& app) {
  struct Args {
    std::string bake, out;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write DIR/report.json and DIR/index.html: per species count, density, cover, plants in water, "
                "Clark-Evans, pair correlation, where it stands on the terrain; density and species maps");
  cmd->add_option("BAKE", args->bake, "Bake folder")->required();
  cmd->add_option("-o,--output", args->out, "Report folder (created, or replaced when empty or a previous report)")->required();
  cmd->add_flag("-q,--quiet", args->quiet, "Print only warnings and errors");
  cmd->callback([args] {
    const uint64_t n = writeReport(args->bake, args->out, progressReporter(args->quiet, "reported"));
    if (!args->quiet)
      std::fprintf(stderr, "%llu plants reported in %s/index.html\n", static_cast<unsigned long long>(n), args->out.c_str());
  });
}

}  // namespace eco::cli
