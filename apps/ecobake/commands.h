#pragma once
#include <CLI/CLI.hpp>

// Each add* registers one subcommand whose callback runs the command; commands throw
// eco::InputError for bad input and set the exit code for results like a failed validation.
namespace eco::cli {

void addValidate(CLI::App& app);
void addBake(CLI::App& app);
void addInspect(CLI::App& app);
void addExport(CLI::App& app);
void addMasks(CLI::App& app);

void setExitCode(int code);
int exitCode();

}  // namespace eco::cli
