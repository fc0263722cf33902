#include "core/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace eco {

static std::string errnoText() { return std::strerror(errno); }

static bool writeAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

// Makes the rename itself durable; failure here is not worth failing the write over.
static void syncFolder(const std::filesystem::path& folder) {
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) throw InputError(path + ": cannot create folder: " + ec.message());

  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path + ": cannot write: " + errnoText());
  bool ok = writeAll(fd, static_cast<const uint8_t*>(data), size) && ::fsync(fd) == 0;
  std::string why = ok ? std::string() : errnoText();
  if (::close(fd) != 0 && ok) ok = false, why = errnoText();
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false, why = errnoText();
  if (!ok) {
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write: " + why);
  }
  syncFolder(target.parent_path());
}

void writeFilePlain(const std::string& path, const void* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path + ": cannot write: " + errnoText());
  bool ok = writeAll(fd, static_cast<const uint8_t*>(data), size);
  std::string why = ok ? std::string() : errnoText();
  // Starts writeback now rather than at the final flush, so the disk works while the bake
  // computes. Advisory: a failure here shows up at the flush.
  if (ok) ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  if (::close(fd) != 0 && ok) ok = false, why = errnoText();
  if (!ok) throw InputError(path + ": cannot write: " + why);
}

void syncFileSystemOf(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool ok = fd >= 0 && ::syncfs(fd) == 0;
  std::string why = ok ? std::string() : errnoText();
  if (fd >= 0) ::close(fd);
  if (!ok) throw InputError(folder + ": cannot flush to disk: " + why);
}

namespace {

const char* fileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void throwNotRegular(const std::string& path, mode_t mode) {
  throw InputError(path + ": is " + fileTypeName(mode) + ", expected a regular file");
}

// Closes on every path out of the readers.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

uint64_t regularFileSize(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path + ": file not found");
    throw InputError(path + ": cannot read: " + errnoText());
  }
  if (!S_ISREG(st.st_mode)) throwNotRegular(path, st.st_mode);
  return uint64_t(st.st_size);
}

std::vector<uint8_t> readFileBytes(const std::string& path, uint64_t maxBytes, const char* what) {
  // O_NONBLOCK: open() of a FIFO without a writer would wait forever; the type check below
  // then refuses it. On a regular file O_NONBLOCK changes nothing.
  Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path + ": file not found");
    if (errno == EISDIR) throw InputError(path + ": is a folder, expected a regular file");
    throw InputError(path + ": cannot open for reading: " + errnoText());
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw InputError(path + ": cannot read: " + errnoText());
  if (!S_ISREG(st.st_mode)) throwNotRegular(path, st.st_mode);
  const uint64_t size = uint64_t(st.st_size);
  if (size > maxBytes)
    throw InputError(path + ": " + what + " of " + std::to_string(size) + " bytes is larger than the limit of " +
                     std::to_string(maxBytes) + " bytes");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read: " + errnoText());
    if (n == 0) throw InputError(path + ": file shrank while being read");
    done += size_t(n);
  }
  return bytes;
}

std::string readFileText(const std::string& path, uint64_t maxBytes, const char* what) {
  std::vector<uint8_t> bytes = readFileBytes(path, maxBytes, what);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace eco
