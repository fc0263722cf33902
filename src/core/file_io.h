#pragma once
// File access shared by every stage. Inputs are untrusted: readers refuse anything but a
// regular file before reading (a FIFO would block, a device could be endless) and check the
// size against a caller-given limit before allocating. Outputs are written so that a failed
// write never leaves a half-written file where a reader expects a complete one.
#include <cstdint>
#include <string>
#include <vector>

namespace eco {

// Size of a regular file. InputError naming the path when it is missing, not a regular file
// (folder, FIFO, device, socket) or cannot be examined. Follows symbolic links.
uint64_t regularFileSize(const std::string& path);

// The whole file. Opens without blocking (O_NONBLOCK, so a FIFO cannot hang the open),
// refuses anything but a regular file and any file larger than maxBytes, all before
// allocating. `what` names the kind of file in the size message ("tile", "manifest").
// InputError naming the path on every failure.
std::vector<uint8_t> readFileBytes(const std::string& path, uint64_t maxBytes, const char* what = "file");
std::string readFileText(const std::string& path, uint64_t maxBytes, const char* what = "file");
// The first min(file size, maxBytes) bytes, with readFileBytes' checks: for header probes.
std::vector<uint8_t> readFileHead(const std::string& path, uint64_t maxBytes);

// Whether `path` (which need not exist) lies inside `folder` or is the folder itself, after
// resolving symbolic links, "." and ".." of both: an output written there would overwrite
// part of an input folder (a bake being exported or viewed).
bool isInsideFolder(const std::string& path, const std::string& folder);

// Writes bytes to path so that a reader sees the previous file or the whole new one: a
// temporary with a random name beside it, fsync, rename; creates parent folders. Never
// replaces what is not a regular file: a symbolic link is followed (its target is replaced,
// the link stays; a dangling one is refused), a character device or FIFO is written through
// (-o /dev/stdout, /dev/null, a pipe with a reader), a folder, block device or socket is
// refused. On failure throws InputError naming the path and leaves any previous file intact.
void writeFileAtomic(const std::string& path, const void* data, size_t size);
// writeFileAtomic in pieces, for outputs too large to hold (exports): the constructor resolves
// the path and opens the temporary (or the device or FIFO), write() appends, commit() fsyncs and
// renames. Destroyed without commit() (an error, an exception), it removes the temporary and the
// previous file stays; a device or FIFO has seen what was written. InputError naming the path.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(const void* data, size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why);
  std::string shown_, target_, tmp_;  // tmp_ empty: written through (device, FIFO)
  int fd_ = -1;
  bool committed_ = false;
};
// Writes bytes to path in place, no fsync: for files in a private staging folder that is
// swapped in whole once syncFileSystemOf has made everything in it durable.
void writeFilePlain(const std::string& path, const void* data, size_t size);
// fsync of the folder holding path, so a rename into it survives a crash; best effort.
void syncFolderOf(const std::string& path);
// syncfs(2) on the file system holding `folder`; InputError naming it on failure.
void syncFileSystemOf(const std::string& folder);

// `length` random characters from [a-z0-9] (getrandom): names that stay unique across
// processes, PID namespaces and hosts sharing a folder.
std::string randomToken(size_t length);

}  // namespace eco
