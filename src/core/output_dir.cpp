#include "core/output_dir.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"

namespace fs = std::filesystem;

namespace eco {

namespace {

constexpr const char* kStagingTag = ".ecobake-staging-";
constexpr const char* kLockSuffix = ".ecobake-lock";
constexpr const char* kStagingLockName = ".ecobake-staging-lock";
constexpr size_t kStagingTokenLength = 10;  // 36^10: no collision across hosts sharing a folder

std::string errnoText(int err = errno) { return std::strerror(err); }

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

// The mount that holds path (not following a last symbolic link): its device and, where the
// kernel says (5.8+), its mount id, so a bind mount of the same file system also differs.
struct MountOf {
  dev_t dev = 0;
  uint64_t mountId = 0;
  bool hasId = false;
  bool operator!=(const MountOf& o) const { return dev != o.dev || (hasId && o.hasId && mountId != o.mountId); }
};

bool mountOf(const fs::path& path, MountOf& out) {
  struct statx sx {};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) != 0) return false;
  out.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
  out.hasId = (sx.stx_mask & STATX_MNT_ID) != 0;
  out.mountId = sx.stx_mnt_id;
  return true;
}

// The first entry under dir that is on another mount, or empty. Symbolic links are not
// followed; the walk stops at the first crossing, before entering it. Fails closed: an entry
// or folder that cannot be examined is reported as if it were a mount point.
std::string mountPointInside(const fs::path& dir) {
  MountOf root;
  if (!mountOf(dir, root)) return dir.string();
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(dir, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    MountOf here;
    if (!mountOf(it->path(), here) || here != root) return it->path().string();
  }
  if (ec) return dir.string() + " (cannot be read: " + ec.message() + ")";
  return {};
}

// Absolute, with symbolic links resolved, so every spelling of one folder (a link, "..", a
// bind mount's path) finds the same lock and staging folders beside it.
fs::path resolveDestination(const std::string& dest, const OutputKind& kind) {
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
  if (d == d.root_path() || d.filename().empty()) throw InputError(dest + ": cannot " + kind.verb + " into the root folder");
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

// What a tool may replace: nothing there, an empty folder, or its own previous output that
// holds no mount point.
void checkReplaceable(const fs::path& d, const std::string& shown, const OutputKind& kind) {
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
  if (!kind.owns(d.string(), &why))
    throw InputError(shown + ": is not empty and is not a previous " + kind.previous + " (" + why +
                     "); refusing to replace it: choose a new or empty folder");
  const std::string mount = mountPointInside(d);
  if (!mount.empty())
    throw InputError(shown + ": " + mount + " is a mount point (another file system or a bind mount); refusing to "
                     "replace a folder whose deletion would reach into it: unmount it first");
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

[[noreturn]] void throwBusy(const std::string& shown, const std::string& lockPath, const OutputKind& kind) {
  throw InputError(shown + ": another " + kind.writer + " is writing this folder (it holds " + lockPath +
                   "); wait for it to finish or choose another folder");
}

void unlock(const std::string& path, int& fd) {
  if (fd < 0) return;
  ::unlink(path.c_str());  // while still held: see tryLock
  ::close(fd);
  fd = -1;
}

// The staging folders of this destination left by bakes that died: named DEST.ecobake-staging-
// followed by [a-z0-9] only, a real folder (not a link), holding the staging lock file that
// ecobake creates in every staging folder (and in a previous bake before deleting it), and no
// live bake holds that lock. A folder without the lock file may be a user's that happens to
// have such a name: kept (so is a bake killed between mkdir and taking its lock: a leak, not
// a loss). One holding a mount point is kept too.
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
    if (fd < 0) continue;
    struct stat lockSt {};
    if (::fstat(fd, &lockSt) != 0 || !S_ISREG(lockSt.st_mode) || ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
        !mountPointInside(entry.path()).empty()) {
      ::close(fd);  // a live bake, or not ours to delete
      continue;
    }
    std::error_code removeError;
    fs::remove_all(entry.path(), removeError);
    ::close(fd);
  }
}

}  // namespace

bool holdsOnly(const std::string& dir, const std::vector<std::string>& files, const std::vector<std::string>& folders,
               std::string* why) {
  std::set<std::string> fileSet, folderSet;
  auto addParents = [&](const std::string& rel) {
    for (fs::path p = fs::path(rel).parent_path(); !p.empty(); p = p.parent_path()) folderSet.insert(p.generic_string());
  };
  for (const std::string& f : files) {
    const std::string rel = fs::path(f).lexically_normal().generic_string();
    fileSet.insert(rel);
    addParents(rel);
  }
  for (const std::string& f : folders) {
    const std::string rel = fs::path(f).lexically_normal().generic_string();
    folderSet.insert(rel);
    addParents(rel);
  }
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st) && folderSet.count(rel)) continue;
    if (fs::is_regular_file(st) && fileSet.count(rel)) continue;
    if (why) *why = it->path().string() + ": is not a file the tool wrote there";
    return false;
  }
  if (ec) {
    if (why) *why = dir + ": cannot list (" + ec.message() + ")";
    return false;
  }
  return true;
}

OutputKind markedOutput(std::string previous, std::string writer, std::string verb, std::string markerFile,
                        std::string format, uint64_t markerLimit, std::vector<std::string> folders) {
  auto owns = [markerFile, format, markerLimit, folders](const std::string& dir, std::string* why) {
    const std::string path = (fs::path(dir) / markerFile).string();
    auto no = [why](std::string reason) {
      if (why) *why = std::move(reason);
      return false;
    };
    std::vector<uint8_t> bytes;
    try {
      bytes = readFileBytes(path, markerLimit, "marker");
    } catch (const InputError& e) {
      return no(e.what());
    }
    nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    auto f = j.is_object() ? j.find("format") : j.end();
    if (j.is_discarded() || !j.is_object() || f == j.end() || !f->is_string() || f->get_ref<const std::string&>() != format)
      return no(path + ": has no \"format\": \"" + format + "\"");
    auto listed = j.find("files");
    if (listed == j.end() || !listed->is_array())
      return no(path + ": lists no \"files\" (a bare marker, or an older version's output: remove it yourself or "
                       "choose another folder)");
    std::vector<std::string> files{markerFile};
    for (const nlohmann::json& e : *listed) {
      if (!e.is_string()) return no(path + ": \"files\" holds something other than a file name");
      const fs::path rel = fs::path(e.get<std::string>()).lexically_normal();
      if (rel.empty() || rel.is_absolute() || *rel.begin() == "..")
        return no(path + ": \"files\" names " + e.get<std::string>() + ", outside the folder");
      files.push_back(rel.generic_string());
    }
    return holdsOnly(dir, files, folders, why);
  };
  return {std::move(previous), std::move(writer), std::move(verb), "", owns};
}

void checkOutputFolder(const std::string& dest, const OutputKind& kind) {
  fs::path d = resolveDestination(dest, kind);
  checkParent(d, dest);
  checkReplaceable(d, dest, kind);
  // A bake already running there: said now rather than after the inputs are loaded. Only a
  // probe, without creating or removing anything; StagedDir takes the lock for real.
  const std::string lockPath = d.string() + kLockSuffix;
  int fd = ::open(lockPath.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (held) throwBusy(dest, lockPath, kind);
}

StagedDir::StagedDir(const std::string& dest, OutputKind kind) : kind_(std::move(kind)) {
  fs::path d = resolveDestination(dest, kind_);
  checkParent(d, dest);
  std::error_code ec;
  fs::create_directories(d.parent_path(), ec);
  if (ec) throw InputError(dest + ": cannot create parent folder: " + ec.message());

  lockPath_ = d.string() + kLockSuffix;
  lockFd_ = tryLock(lockPath_, dest);
  if (lockFd_ < 0) throwBusy(dest, lockPath_, kind_);
  try {
    checkReplaceable(d, dest, kind_);  // under the lock, so no other bake swaps it meanwhile
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
    if (!kind_.subfolder.empty()) fs::create_directories(fs::path(staging) / kind_.subfolder, ec);
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
  checkReplaceable(d, destination, kind_);
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
    // The staging name now holds the previous output. Removed while we still hold the lock,
    // the staging lock file put in first and deleted last, so that if this is interrupted the
    // next run's cleanup knows the folder as ecobake's and finishes it.
    const fs::path old(staging);
    int fd = ::open((old / kStagingLockName).c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd >= 0) ::close(fd);
    std::error_code ec, removeError;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(old, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->path().filename() != kStagingLockName) entries.push_back(it->path());
    for (const fs::path& p : entries) fs::remove_all(p, removeError);
    fs::remove_all(old, removeError);
  }
  release();
}

}  // namespace eco
