#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eco {
struct BakeLimits;
}

// Each add* registers one subcommand whose callback runs the command; commands throw
// eco::InputError for bad input and set the exit code for results like a failed validation.
namespace eco::cli {

void addValidate(CLI::App& app);
void addBake(CLI::App& app);
void addInspect(CLI::App& app);
void addExport(CLI::App& app);
void addMasks(CLI::App& app);
void addMerge(CLI::App& app);
void addDiff(CLI::App& app);
void addReport(CLI::App& app);

// The estimate limits shared by validate and bake (cmd_validate.cpp); numbers stay text until
// parseLimits checks them strictly.
struct LimitArgs {
  std::optional<std::string> maxInstances, maxOutput, maxMemory;
  bool allow = false;
};
void addLimitOptions(CLI::App* cmd, LimitArgs& args);
BakeLimits parseLimits(const LimitArgs& args);

// --tiles X0,Z0,X1,Z1 (inclusive, >= 0) and --region MINX,MINZ,MAXX,MAXZ (finite metres), each
// empty when not given, parsed strictly; InputError naming the option when malformed or inverted.
void parseArea(const std::vector<std::string>& tiles, const std::vector<std::string>& region,
               std::vector<int64_t>& tilesOut, std::vector<double>& regionOut);
// A redrawn bar on a terminal, a log line per 10 % otherwise ("<verb> 5/10 tiles"); none when quiet.
std::function<void(int, int)> progressReporter(bool quiet, const char* verb);
std::string joined(const std::vector<std::string>& parts);  // "a,b,c"

void setExitCode(int code);
int exitCode();

}  // namespace eco::cli
