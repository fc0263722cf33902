#include "test_support.h"

#include <atomic>
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
