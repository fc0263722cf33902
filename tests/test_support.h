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

void writeBytes(const std::string& path, const std::string& bytes);
std::string readBytes(const std::string& path);

}  // namespace eco::test
