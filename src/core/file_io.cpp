#include "core/file_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace eco {

static std::string errnoText() { return std::strerror(errno); }

std::string randomToken(size_t length) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string token(length, '0');
  size_t done = 0;
  while (done < length) {
    ssize_t n = ::getrandom(token.data() + done, length - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("getrandom: ") + errnoText());
    done += size_t(n);
  }
  for (char& c : token) c = kAlphabet[static_cast<unsigned char>(c) % 36];
  return token;
}

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

void syncFolderOf(const std::string& path) { syncFolder(std::filesystem::path(path).parent_path()); }

namespace {

const char* fileTypeName(mode_t mode);

// Where an output path leads: a regular file (new or existing) that is replaced by renaming a
// temporary over `target`, or a character device or FIFO written through (-o /dev/stdout,
// /dev/null, a pipe: such a path is the user's way to say "send it there", and renaming a
// regular file over it would destroy the node). Everything else is refused.
struct OutputTarget {
  std::string target;  // the file to replace (a symbolic link's final target), or the path to write through
  bool through = false;
};

OutputTarget resolveOutput(const std::string& path) {
  if (path.empty()) throw InputError("output file name is empty");
  if (path.back() == '/') throw InputError(path + ": names a folder, expected a file to write");
  auto special = [&](mode_t mode) -> OutputTarget {
    if (S_ISCHR(mode) || S_ISFIFO(mode)) return {path, true};
    if (S_ISBLK(mode)) throw InputError(path + ": is a block device (a disk); refusing to write over it");
    throw InputError(path + ": is " + std::string(fileTypeName(mode)) + ", expected a file to write");
  };
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) throw InputError(path + ": cannot write: " + errnoText());
    std::filesystem::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) throw InputError(path + ": cannot create folder: " + ec.message());
    return {path, false};
  }
  if (S_ISREG(link.st_mode)) return {path, false};
  if (!S_ISLNK(link.st_mode)) return special(link.st_mode);

  // A symbolic link is followed: its final target is what gets written, and the link stays.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    std::error_code ec;
    std::string to = std::filesystem::read_symlink(path, ec).string();
    if (err == ENOENT || err == ENOTDIR)
      throw InputError(path + ": is a symbolic link to '" + to + "', which does not exist");
    throw InputError(path + ": is a symbolic link that cannot be followed: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) return special(st.st_mode);
  // realpath names the file the link leads to; /proc/self/fd links (-o /dev/stdout redirected
  // to a file) may lead to a deleted or renamed one, which only writing through reaches.
  std::unique_ptr<char, decltype(&::free)> real(::realpath(path.c_str(), nullptr), &::free);
  struct stat resolved {};
  if (real && ::lstat(real.get(), &resolved) == 0 && S_ISREG(resolved.st_mode) && resolved.st_dev == st.st_dev &&
      resolved.st_ino == st.st_ino)
    return {real.get(), false};
  return {path, true};
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : shown_(path) {
  const OutputTarget out = resolveOutput(path);
  target_ = out.target;
  if (out.through) {
    // O_NONBLOCK: opening a FIFO nobody reads fails with ENXIO instead of waiting forever.
    fd_ = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) {
      if (errno == ENXIO) throw InputError(path + ": cannot write: no process is reading this FIFO or device");
      throw InputError(path + ": cannot write: " + errnoText());
    }
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);  // a pipe reader may be slower than us
    return;
  }
  // The temporary's name is random, not the pid: two writers in different PID namespaces
  // (both pid 1) must not share one.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    tmp_ = target_ + ".tmp." + randomToken(8);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0 && (errno != EEXIST || attempt == 16)) throw InputError(path + ": cannot write: " + errnoText());
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::fail(const std::string& why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
  throw InputError(shown_ + ": cannot write: " + why);
}

void OutputFile::write(const void* data, size_t size) {
  if (fd_ < 0 || committed_) throw std::logic_error("OutputFile::write after commit or failure");
  if (!writeAll(fd_, static_cast<const uint8_t*>(data), size)) fail(errnoText());
}

void OutputFile::commit() {
  if (fd_ < 0 || committed_) throw std::logic_error("OutputFile::commit twice or after failure");
  // fsync makes a regular file durable; pipes and character devices answer EINVAL (or EROFS).
  if (::fsync(fd_) != 0 && (!tmp_.empty() || (errno != EINVAL && errno != EROFS))) fail(errnoText());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errnoText());
  if (!tmp_.empty()) {
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errnoText());
    syncFolder(std::filesystem::path(target_).parent_path());
  }
  committed_ = true;
}

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  OutputFile out(path);
  out.write(data, size);
  out.commit();
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

bool isInsideFolder(const std::string& path, const std::string& folder) {
  std::error_code ec1, ec2;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec1);
  const std::filesystem::path f = std::filesystem::weakly_canonical(std::filesystem::absolute(folder), ec2);
  if (ec1 || ec2 || f.empty()) return false;
  // Component-wise prefix: "/a/bake2" is not inside "/a/bake".
  auto pi = p.begin();
  for (auto fi = f.begin(); fi != f.end(); ++fi, ++pi) {
    if (fi->empty()) continue;  // trailing separator of a folder path
    if (pi == p.end() || *pi != *fi) return false;
  }
  return true;
}

uint64_t regularFileSize(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path + ": file not found");
    throw InputError(path + ": cannot read: " + errnoText());
  }
  if (!S_ISREG(st.st_mode)) throwNotRegular(path, st.st_mode);
  return uint64_t(st.st_size);
}

namespace {

// Opens a regular file for reading and returns its size. O_NONBLOCK: open() of a FIFO
// without a writer would wait forever; the type check then refuses it. On a regular file
// O_NONBLOCK changes nothing.
uint64_t openRegularForReading(const std::string& path, Fd& file) {
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (file.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path + ": file not found");
    if (errno == EISDIR) throw InputError(path + ": is a folder, expected a regular file");
    throw InputError(path + ": cannot open for reading: " + errnoText());
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw InputError(path + ": cannot read: " + errnoText());
  if (!S_ISREG(st.st_mode)) throwNotRegular(path, st.st_mode);
  return uint64_t(st.st_size);
}

void readExactly(const std::string& path, const Fd& file, uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(file.fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read: " + errnoText());
    if (n == 0) throw InputError(path + ": file shrank while being read");
    done += size_t(n);
  }
}

}  // namespace

std::vector<uint8_t> readFileBytes(const std::string& path, uint64_t maxBytes, const char* what) {
  Fd file;
  const uint64_t size = openRegularForReading(path, file);
  if (size > maxBytes)
    throw InputError(path + ": " + what + " of " + std::to_string(size) + " bytes is larger than the limit of " +
                     std::to_string(maxBytes) + " bytes");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  readExactly(path, file, bytes.data(), bytes.size());
  return bytes;
}

std::vector<uint8_t> readFileHead(const std::string& path, uint64_t maxBytes) {
  Fd file;
  const uint64_t size = openRegularForReading(path, file);
  std::vector<uint8_t> bytes(static_cast<size_t>(std::min(size, maxBytes)));
  readExactly(path, file, bytes.data(), bytes.size());
  return bytes;
}

std::string readFileText(const std::string& path, uint64_t maxBytes, const char* what) {
  std::vector<uint8_t> bytes = readFileBytes(path, maxBytes, what);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace eco
