#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

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

// The estimate limits shared by validate and bake (cmd_validate.cpp); numbers stay text until
// parseLimits checks them strictly.
struct LimitArgs {
  std::optional<std::string> maxInstances, maxOutput, maxMemory;
  bool allow = false;
};
void addLimitOptions(CLI::App* cmd, LimitArgs& args);
BakeLimits parseLimits(const LimitArgs& args);

void setExitCode(int code);
int exitCode();

}  // namespace eco::cli
