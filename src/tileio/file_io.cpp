#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.h"
#include "tileio/tile_io.h"

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

std::vector<uint8_t> readFileBytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path + ": cannot open for reading");
  std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path + ": cannot read");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw InputError(path + ": cannot read");
  return bytes;
}

}  // namespace eco
