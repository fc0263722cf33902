#include "bake/output_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.h"

namespace fs = std::filesystem;

namespace eco {

namespace {

constexpr const char* kStagingTag = ".ecobake-staging-";

// Staging folders of bakes that were killed: their pid no longer runs.
void removeStaleStaging(const fs::path& dest) {
  std::error_code ec;
  std::string prefix = dest.filename().string() + kStagingTag;
  for (const auto& entry : fs::directory_iterator(dest.parent_path(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && kill(pid_t(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

StagedDir::StagedDir(const std::string& dest) : destination(dest) {
  fs::path d = fs::absolute(dest).lexically_normal();
  if (d.filename().empty()) d = d.parent_path();
  std::error_code ec;
  if (fs::exists(d, ec)) {
    if (!fs::is_directory(d, ec)) throw InputError(dest + ": exists and is not a folder");
    if (!fs::is_empty(d, ec) && !fs::exists(d / "manifest.json", ec))
      throw InputError(dest + ": exists, is not empty and holds no manifest.json; refusing to replace it");
  }
  fs::create_directories(d.parent_path(), ec);
  if (ec) throw InputError(dest + ": cannot create parent folder: " + ec.message());
  removeStaleStaging(d);
  staging = (d.parent_path() / (d.filename().string() + kStagingTag + std::to_string(getpid()))).string();
  fs::remove_all(staging, ec);
  fs::create_directories(fs::path(staging) / "tiles", ec);
  if (ec) throw InputError(dest + ": cannot create staging folder " + staging + ": " + ec.message());
  destination = d.string();
}

StagedDir::~StagedDir() {
  if (committed) return;
  std::error_code ec;
  fs::remove_all(staging, ec);
}

void StagedDir::commit() {
  std::error_code ec;
  if (fs::exists(destination, ec)) {
    if (renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, destination.c_str(), RENAME_EXCHANGE) != 0)
      throw std::runtime_error("cannot swap " + staging + " into " + destination + ": " + std::strerror(errno));
    fs::remove_all(staging, ec);  // now holds the previous bake
  } else if (std::rename(staging.c_str(), destination.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + staging + " to " + destination + ": " + std::strerror(errno));
  }
  committed = true;
}

}  // namespace eco
