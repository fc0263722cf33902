// ecobake: the offline bake CLI. Thin front end over the stage libraries (bake, export); see README for the commands.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>

#include "commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  // Logs (warnings, progress) are diagnostics: stderr, so that stdout carries only results and
  // an export to -o /dev/stdout stays clean.
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  CLI::App app{"ecobake: ecological vegetation scattering, baked to streamable tiles"};
  app.require_subcommand(1);
  app.set_version_flag("--version", ECO_VERSION);
  eco::cli::addValidate(app);
  eco::cli::addBake(app);
  eco::cli::addInspect(app);
  eco::cli::addExport(app);
  eco::cli::addMasks(app);
  eco::cli::addMerge(app);
  eco::cli::addDiff(app);
  eco::cli::addReport(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ecobake: %s (see --help)\n", eco::printableLine(e.what()).c_str());
    return 2;
  } catch (const eco::InputError& e) {
    std::fprintf(stderr, "ecobake: error: %s\n", eco::printableLine(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecobake: internal error: %s\n", eco::printableLine(e.what()).c_str());
    return 1;
  }
  return eco::cli::exitCode();
}
