#pragma once
// Shared by the fuzz targets: a private folder per fuzzing process for the path-based readers.
// Expected rejections are eco::InputError; anything else escaping a target (another
// exception, a sanitizer report, a signal) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace eco::fuzz {

// Created on first use under $TMPDIR (mkdtemp), removed when the process exits normally; a
// crashing run leaves it behind for inspection.
inline const std::string& privateDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ecofuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    static std::string removeAtExit;
    removeAtExit = pattern;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removeAtExit, ec);
    });
    return pattern;
  }();
  return dir;
}

// Writes bytes to privateDir()/name (folders created) and returns the path. Aborts on an I/O
// failure: that is the harness, not the code under test.
inline std::string writeInput(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = privateDir() + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

}  // namespace eco::fuzz
