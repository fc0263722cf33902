#include "test_support.h"

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace eco::test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path = std::filesystem::temp_directory_path() /
         ("ecotest-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string sourceDir() { return ECO_SOURCE_DIR; }

std::string demDir() {
  auto dir = std::filesystem::path(ECO_SOURCE_DIR).parent_path() / "shared" / "data" / "dem";
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

CommandResult runCommand(const std::string& commandLine, int timeoutSeconds) {
  // coreutils timeout: a hang fails the test with exit 124 instead of blocking the suite.
  std::string cmd = "timeout -k 5 " + std::to_string(timeoutSeconds) + " " + commandLine + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string tool(const std::string& name) { return std::string(ECO_BINARY_DIR) + "/apps/" + name + "/" + name; }

CommandResult runTool(const std::string& name, const std::string& args, int timeoutSeconds) {
  return runCommand(tool(name) + " " + args, timeoutSeconds);
}

size_t lineCount(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace eco::test
