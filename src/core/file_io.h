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

// Writes bytes to path atomically: write path.tmp.<pid>, fsync, rename; creates parent
// folders. On failure throws InputError naming the path and leaves any previous file intact.
void writeFileAtomic(const std::string& path, const void* data, size_t size);
// Writes bytes to path in place, no fsync: for files in a private staging folder that is
// swapped in whole once syncFileSystemOf has made everything in it durable.
void writeFilePlain(const std::string& path, const void* data, size_t size);
// syncfs(2) on the file system holding `folder`; InputError naming it on failure.
void syncFileSystemOf(const std::string& folder);

}  // namespace eco
