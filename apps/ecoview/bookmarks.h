#pragma once
// Camera bookmarks: keys 1 to 9 recall, Ctrl+1 to 9 store. With --bookmarks FILE they persist
// in a small JSON file (written atomically after each store); without, they live in memory.
//
//   {"bookmarks": [{"key": 1, "position": [512, 260, 1150], "yaw_deg": 0, "pitch_deg": -25}]}
//
// A malformed file is a one-line warning naming the file and the field (JSON pointer); the
// viewer goes on without its bookmarks and never writes over that file, whose contents it
// does not understand.
#include <array>
#include <optional>
#include <string>

#include "render/camera.h"

namespace ecoview {

constexpr int kBookmarkSlots = 9;  // keys 1 .. 9

struct Bookmarks {
  std::array<std::optional<eco::render::Camera>, kBookmarkSlots> slots;  // slots[k - 1]: key k
};

// The file's text (keys in ascending order; positions as the floats' exact values).
std::string bookmarksJson(const Bookmarks& marks);
// The bookmarks of `text`, or nullopt with *problem set to one line: "file: /pointer: reason".
// Only position, yaw and pitch are stored; the rest of each camera is `base`'s.
std::optional<Bookmarks> parseBookmarks(const std::string& text, const std::string& file,
                                        const eco::render::Camera& base, std::string* problem);

struct BookmarkFile {
  std::string path;       // empty: in memory only
  Bookmarks marks;
  bool writable = true;   // false once the file was found malformed or unreadable
  std::string warning;    // the last problem (loading or writing), one line; empty if none
};
// Reads `path` if it exists (a missing file is an empty set that the first store creates).
BookmarkFile openBookmarks(const std::string& path, const eco::render::Camera& base);
// Sets key `key` (1 .. 9) and writes the file when there is one and it is writable. A failed
// write sets `warning` and keeps the bookmark in memory. Returns false when nothing was written
// to a file that should have been.
bool storeBookmark(BookmarkFile& file, int key, const eco::render::Camera& camera);

}  // namespace ecoview
