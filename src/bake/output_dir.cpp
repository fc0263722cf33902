#include "bake/output_dir.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "core/file_io.h"
#include "tileio/manifest.h"

namespace fs = std::filesystem;

namespace eco {

namespace {

constexpr const char* kStagingTag = ".ecobake-staging-";
constexpr const char* kLockSuffix = ".ecobake-lock";
constexpr const char* kStagingLockName = ".ecobake-staging-lock";
constexpr size_t kStagingTokenLength = 10;  // 36^10: no collision across hosts sharing a folder

std::string errnoText(int err = errno) { return std::strerror(err); }

// Absolute, with symbolic links resolved, so every spelling of one folder (a link, "..", a
// bind mount's path) finds the same lock and staging folders beside it.
fs::path resolveDestination(const std::string& dest) {
  if (dest.empty()) throw InputError("output folder name is empty (-o \"\")");
  std::string trimmed = dest;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  struct stat link {};
  if (::lstat(trimmed.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    struct stat st {};
    if (::stat(trimmed.c_str(), &st) != 0) {
      const int err = errno;
      std::error_code ec;
      std::string to = fs::read_symlink(trimmed, ec).string();
      if (err == ENOENT || err == ENOTDIR)
        throw InputError(dest + ": is a symbolic link to '" + to + "', which does not exist");
      throw InputError(dest + ": is a symbolic link that cannot be followed: " + errnoText(err));
    }
  }
  std::error_code ec;
  fs::path d = fs::absolute(trimmed, ec);
  if (!ec) d = fs::weakly_canonical(d, ec);
  if (ec) throw InputError(dest + ": cannot resolve the output folder: " + ec.message());
  if (d.filename().empty()) d = d.parent_path();
  if (d == d.root_path() || d.filename().empty()) throw InputError(dest + ": cannot bake into the root folder");
  const std::string name = d.filename().string();
  if (name.find(kStagingTag) != std::string::npos || name.find(kLockSuffix) != std::string::npos)
    throw InputError(dest + ": names ending like '" + kStagingTag + "...' or '" + kLockSuffix +
                     "' are ecobake's own working files; choose another output folder");
  return d;
}

// The parent can be created and written: its nearest existing ancestor is a folder we may
// write in (the staging folder and the lock file go beside the output folder). Creates nothing.
void checkParent(const fs::path& d, const std::string& shown) {
  fs::path p = d.parent_path();
  for (;;) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw InputError(shown + ": cannot create the output folder: " + p.string() + " is not a folder");
      if (::access(p.c_str(), W_OK | X_OK) != 0)
        throw InputError(shown + ": cannot write in " + p.string() +
                         " (a bake is staged beside its output folder, then swapped in): " + errnoText());
      return;
    }
    const int err = errno;
    if (err == ENOENT && ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      std::error_code ec;
      throw InputError(shown + ": cannot create the output folder: " + p.string() + " is a symbolic link to '" +
                       fs::read_symlink(p, ec).string() + "', which does not exist");
    }
    if (err != ENOENT && err != ENOTDIR) throw InputError(shown + ": cannot examine " + p.string() + ": " + errnoText(err));
    if (p == p.parent_path()) return;
    p = p.parent_path();  // missing, or a file somewhere above it (ENOTDIR): found further up
  }
}

// What a bake may replace: nothing there, an empty folder, or a previous bake.
void checkReplaceable(const fs::path& d, const std::string& shown) {
  struct stat st {};
  if (::lstat(d.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw InputError(shown + ": cannot examine the output folder: " + errnoText());
  }
  if (!S_ISDIR(st.st_mode)) throw InputError(shown + ": exists and is not a folder; refusing to replace it");
  std::error_code ec;
  bool empty = fs::is_empty(d, ec);
  if (ec) throw InputError(shown + ": cannot read the output folder: " + ec.message());
  if (empty) return;
  std::string why;
  if (hasEcobakeManifest(d.string(), &why)) return;
  throw InputError(shown + ": is not empty and is not a previous ecobake bake (" + why +
                   "); refusing to replace it: choose a new or empty folder");
}

// flock(LOCK_EX | LOCK_NB) on path, created if missing. Returns the fd, or -1 when another
// process holds the lock. The file may be unlinked by its holder as it finishes (see
// release), so a lock is only ours once the path still names the inode we locked.
int tryLock(const std::string& path, const std::string& shown) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0 && errno == EACCES) fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw InputError(shown + ": cannot create the lock file " + path + ": " + errnoText());
    struct stat held {};
    if (::fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
      ::close(fd);
      throw InputError(shown + ": the lock file " + path + " is not a regular file; remove it");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) return -1;
      throw InputError(shown + ": cannot lock " + path + ": " + errnoText(err));
    }
    struct stat now {};
    if (::stat(path.c_str(), &now) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino) return fd;
    ::close(fd);  // its holder removed it after we opened it: lock the new one
  }
  throw InputError(shown + ": cannot lock " + path + ": it keeps being replaced");
}

[[noreturn]] void throwBusy(const std::string& shown, const std::string& lockPath) {
  throw InputError(shown + ": another ecobake bake is writing this folder (it holds " + lockPath +
                   "); wait for it to finish or choose another folder");
}

void unlock(const std::string& path, int& fd) {
  if (fd < 0) return;
  ::unlink(path.c_str());  // while still held: see tryLock
  ::close(fd);
  fd = -1;
}

// The staging folders of this destination left by bakes that died: named DEST.ecobake-staging-
// followed by [a-z0-9] only (older ecobake versions used a pid), a real folder (not a link),
// and no live bake holds the lock inside it. A folder without the lock file is a bake killed
// before it took the lock, or a previous bake whose deletion was interrupted; we hold the
// destination's lock, so no live bake of this destination can be that young.
void removeStaleStaging(const fs::path& dest) {
  std::error_code ec;
  const std::string prefix = dest.filename().string() + kStagingTag;
  for (const auto& entry : fs::directory_iterator(dest.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    bool ours = true;
    for (size_t i = prefix.size(); i < name.size(); ++i)
      ours = ours && ((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9'));
    struct stat st {};
    if (!ours || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    const std::string lockPath = (entry.path() / kStagingLockName).string();
    int fd = ::open(lockPath.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno != ENOENT) continue;
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);  // a live bake
      continue;
    }
    std::error_code removeError;
    fs::remove_all(entry.path(), removeError);
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace

void checkOutputFolder(const std::string& dest) {
  fs::path d = resolveDestination(dest);
  checkParent(d, dest);
  checkReplaceable(d, dest);
  // A bake already running there: said now rather than after the inputs are loaded. Only a
  // probe, without creating or removing anything; StagedDir takes the lock for real.
  const std::string lockPath = d.string() + kLockSuffix;
  int fd = ::open(lockPath.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (held) throwBusy(dest, lockPath);
}

StagedDir::StagedDir(const std::string& dest) {
  fs::path d = resolveDestination(dest);
  checkParent(d, dest);
  std::error_code ec;
  fs::create_directories(d.parent_path(), ec);
  if (ec) throw InputError(dest + ": cannot create parent folder: " + ec.message());

  lockPath_ = d.string() + kLockSuffix;
  lockFd_ = tryLock(lockPath_, dest);
  if (lockFd_ < 0) throwBusy(dest, lockPath_);
  try {
    checkReplaceable(d, dest);  // under the lock, so no other bake swaps it meanwhile
    removeStaleStaging(d);
    for (int attempt = 0; staging.empty(); ++attempt) {
      std::string candidate = d.string() + kStagingTag + randomToken(kStagingTokenLength);
      if (::mkdir(candidate.c_str(), 0777) == 0) {
        staging = candidate;
      } else if (errno != EEXIST || attempt == 16) {
        throw InputError(dest + ": cannot create staging folder " + candidate + ": " + errnoText());
      }
    }
    stagingLockPath_ = staging + "/" + kStagingLockName;
    stagingLockFd_ = tryLock(stagingLockPath_, dest);
    if (stagingLockFd_ < 0) throw InputError(dest + ": staging folder " + staging + " is locked by another process");
    fs::create_directories(fs::path(staging) / "tiles", ec);
    if (ec) throw InputError(dest + ": cannot create staging folder " + staging + ": " + ec.message());
  } catch (...) {
    release();
    throw;
  }
  destination = d.string();
}

StagedDir::~StagedDir() { release(); }

void StagedDir::release() {
  if (!committed && !staging.empty()) {
    std::error_code ec;
    fs::remove_all(staging, ec);
  }
  unlock(stagingLockPath_, stagingLockFd_);
  unlock(lockPath_, lockFd_);
}

void StagedDir::commit() {
  const fs::path d(destination);
  // A person may have put files there while the bake ran.
  checkReplaceable(d, destination);
  // Not part of the bake. The destination lock still keeps other bakes' cleanup away.
  unlock(stagingLockPath_, stagingLockFd_);

  bool swapped = false;
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, destination.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno != EEXIST && errno != ENOTEMPTY && errno != EINVAL)
      throw InputError(destination + ": cannot move the bake into place: " + errnoText());
    // EINVAL: a file system without RENAME_NOREPLACE; the exchange below then tells.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, destination.c_str(), RENAME_EXCHANGE) == 0) {
      swapped = true;
    } else if (errno == ENOENT) {  // no destination after all, on a file system without NOREPLACE
      if (std::rename(staging.c_str(), destination.c_str()) != 0)
        throw InputError(destination + ": cannot move the bake into place: " + errnoText());
    } else {
      throw InputError(destination + ": cannot swap the new bake in (renameat2 RENAME_EXCHANGE): " + errnoText() +
                       "; the previous bake is unchanged");
    }
  }
  committed = true;
  syncFolderOf(destination);  // the swap itself survives a crash
  if (swapped) {
    // The staging name now holds the previous bake. Removed while we still hold the lock; if
    // this is interrupted, the next bake's cleanup finishes it (no staging lock inside).
    std::error_code ec;
    fs::remove_all(staging, ec);
  }
  release();
}

}  // namespace eco
