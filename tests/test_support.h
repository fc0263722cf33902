#pragma once
// Helpers shared by the test suites.
#include <filesystem>
#include <string>

namespace eco::test {

// A fresh empty folder under the system temp dir, removed when the object dies.
struct TempDir {
  std::filesystem::path path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string sourceDir();  // repository root
// ../shared/data/dem next to the repository, or "" when absent (tests then GTEST_SKIP).
std::string demDir();

// A command line as a user runs it: exit code (-1 when killed by a signal, 124 when it ran
// past timeoutSeconds: a hang) and stdout + stderr together.
struct CommandResult {
  int code = -1;
  std::string output;
};
CommandResult runCommand(const std::string& commandLine, int timeoutSeconds = 120);
// build/apps/<tool>/<tool> of this build, e.g. tool("ecobake").
std::string tool(const std::string& name);
// runCommand(tool(name) + " " + args).
CommandResult runTool(const std::string& name, const std::string& args, int timeoutSeconds = 120);
// Lines in s ('\n' count).
size_t lineCount(const std::string& s);

void writeBytes(const std::string& path, const std::string& bytes);
std::string readBytes(const std::string& path);

}  // namespace eco::test
