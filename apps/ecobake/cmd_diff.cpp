// ecobake diff A B: two bakes of one world, species by species, for review and CI gates.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "core/error.h"
#include "core/parse_number.h"
#include "report/report.h"

namespace eco::cli {

void addDiff(CLI::App& app) {
  struct Args {
    std::string a, b, failOn, report;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two bakes of one world: species counts, where their plants stand (elevation, slope, aspect), "
              "tiles that differ; exit 3 when a change is over --fail-on");
  cmd->add_option("A", args->a, "Bake folder (the reference)")->required();
  cmd->add_option("B", args->b, "Bake folder (the change)")->required();
  CLI::Option* failOnOption = cmd->add_option("--fail-on", args->failOn,
                  "PCT: exit 3 when a species' count changed by more than PCT percent or its share in an elevation, "
                  "slope or aspect bin by more than PCT percentage points (0 to 1e6)");
  cmd->add_flag("--json", args->json, "Print the whole comparison as JSON instead of the table");
  CLI::Option* report = cmd->add_option("--report", args->report,
                  "Also write DIR: maps of each species' moved density, index.html and diff.json (created, or replaced "
                  "when empty or a previous diff report)");
  cmd->callback([args, report, failOnOption] {
    if (report->count() > 0 && args->report.empty()) throw InputError("--report: output name is empty");
    std::optional<double> failOn;
    // given, even empty (an unset variable in a CI script), it must be a number: no silent pass
    if (failOnOption->count() > 0) failOn = parseReal(args->failOn, "--fail-on", 0, 1e6);
    const BakeDiff d = diffBakes(args->a, args->b, args->report, failOn);
    if (args->json)
      std::fputs(diffJson(d, failOn).c_str(), stdout);
    else
      std::fputs(describeDiff(d, failOn).c_str(), stdout);
    if (failOn) {
      const std::vector<std::string> over = d.exceeding(*failOn);
      if (!over.empty()) {
        std::fprintf(stderr, "ecobake diff: %zu species changed by more than %g %%: %s\n", over.size(), *failOn,
                     joined(over).c_str());
        setExitCode(3);
      }
    }
  });
}

}  // namespace eco::cli
