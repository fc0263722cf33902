#include "bookmarks.h"

#include <cmath>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json.h"

namespace ecoview {

namespace {

using eco::Json;
using eco::JsonProblem;
using eco::Limits;
using eco::ObjectReader;

// The same limits as --camera: positions beyond 1e8 m lose all float precision, and a pitch of
// +-90 degrees has no camera basis.
constexpr double kMaxCoordinate = 1e8;
constexpr uint64_t kMaxFileBytes = 64 * 1024;  // nine bookmarks take well under 2 KiB

}  // namespace

std::string bookmarksJson(const Bookmarks& marks) {
  Json list = Json::array();
  for (int k = 0; k < kBookmarkSlots; ++k) {
    if (!marks.slots[size_t(k)]) continue;
    const eco::render::Camera& c = *marks.slots[size_t(k)];
    // doubles of the floats: written with round-trip precision, read back to the same floats
    list.push_back({{"key", k + 1},
                    {"position", {double(c.position.x), double(c.position.y), double(c.position.z)}},
                    {"yaw_deg", double(c.yawDeg)},
                    {"pitch_deg", double(c.pitchDeg)}});
  }
  return Json{{"bookmarks", list}}.dump(2) + "\n";
}

std::optional<Bookmarks> parseBookmarks(const std::string& text, const std::string& file,
                                        const eco::render::Camera& base, std::string* problem) {
  std::vector<JsonProblem> problems;
  Bookmarks marks;
  auto fail = [&]() -> std::optional<Bookmarks> {
    if (problem) {
      *problem = eco::formatProblem(file, problems.front());
      if (problems.size() > 1) *problem += " (and " + std::to_string(problems.size() - 1) + " more problems)";
    }
    return std::nullopt;
  };
  // the JSON policy of every input (core/json.h): no NUL byte, no duplicate key
  if (std::string why = eco::jsonNulProblem(text); !why.empty()) {
    problems.push_back({"", why + "; a bookmarks file is JSON text"});
    return fail();
  }
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // line and column of the byte where the parser stopped
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      column = text[i] == '\n' ? 1 : column + 1;
      line += text[i] == '\n';
    }
    problems.push_back({"", "not JSON: syntax error at line " + std::to_string(line) + ", column " +
                                std::to_string(column)});
    return fail();
  } catch (const nlohmann::json::out_of_range&) {
    problems.push_back({"", "a number is too large for a double"});
    return fail();
  }
  if (!json.is_object()) {
    problems.push_back({"", "expected a JSON object at the top level, got " + eco::jsonTypeName(json)});
    return fail();
  }
  if (std::vector<std::string> twice = eco::duplicateJsonKeys(text); !twice.empty()) {
    problems.push_back({twice.front(), eco::kDuplicateKeyReason});
    return fail();
  }
  ObjectReader root(json, "", problems);
  const Json* list = root.array("bookmarks", true);
  root.rejectUnknownKeys();
  if (list && list->size() > size_t(kBookmarkSlots)) {
    problems.push_back({root.pathOf("bookmarks"), "at most " + std::to_string(kBookmarkSlots) +
                                                      " bookmarks (keys 1 to 9), got " + std::to_string(list->size())});
    return fail();
  }
  if (list) {
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string at = eco::jsonPointer(root.pathOf("bookmarks"), i);
      const Json& item = (*list)[i];
      if (!item.is_object()) {
        problems.push_back({at, "expected an object, got " + eco::jsonTypeName(item)});
        continue;
      }
      ObjectReader r(item, at, problems);
      int64_t key = 0;
      eco::render::Camera c = base;
      bool ok = r.integer("key", key, Limits::between(1, kBookmarkSlots), true);
      ok = r.number("yaw_deg", c.yawDeg, Limits::between(-3600, 3600), true) && ok;
      ok = r.number("pitch_deg", c.pitchDeg, Limits::between(-89.9, 89.9), true) && ok;
      if (const Json* p = r.array("position", true)) {
        if (p->size() != 3) {
          r.report(r.pathOf("position"), "expected 3 numbers (x, y, z), got " + std::to_string(p->size()));
          ok = false;
        }
        for (size_t j = 0; j < p->size() && j < 3; ++j) {
          const Json& v = (*p)[j];
          const std::string vp = eco::jsonPointer(r.pathOf("position"), j);
          if (!v.is_number()) {
            r.report(vp, "expected a number, got " + eco::jsonTypeName(v));
            ok = false;
          } else if (double d = v.get<double>(); !(std::fabs(d) <= kMaxCoordinate)) {
            r.report(vp, "expected a number in [-1e8, 1e8] metres, got " + eco::describeNumber(d));
            ok = false;
          } else {
            (&c.position.x)[j] = float(d);
          }
        }
      } else {
        ok = false;
      }
      r.rejectUnknownKeys();
      if (!ok) continue;
      if (marks.slots[size_t(key - 1)]) {
        problems.push_back({r.pathOf("key"), "key " + std::to_string(key) + " appears twice"});
        continue;
      }
      marks.slots[size_t(key - 1)] = c;
    }
  }
  if (!problems.empty()) return fail();
  return marks;
}

BookmarkFile openBookmarks(const std::string& path, const eco::render::Camera& base) {
  BookmarkFile f;
  f.path = path;
  if (path.empty()) return f;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return f;  // created by the first store
  try {
    std::string text = eco::readFileText(path, kMaxFileBytes, "bookmarks file");
    std::optional<Bookmarks> marks = parseBookmarks(text, path, base, &f.warning);
    if (marks) {
      f.marks = *marks;
    } else {
      f.writable = false;
    }
  } catch (const eco::InputError& e) {
    f.warning = eco::printableLine(e.what());
    f.writable = false;
  }
  if (!f.writable) f.warning += "; going on without bookmarks, and not writing that file";
  return f;
}

bool storeBookmark(BookmarkFile& f, int key, const eco::render::Camera& camera) {
  if (key < 1 || key > kBookmarkSlots) return false;
  f.marks.slots[size_t(key - 1)] = camera;
  if (f.path.empty() || !f.writable) return f.path.empty();
  try {
    std::string text = bookmarksJson(f.marks);
    eco::writeFileAtomic(f.path, text.data(), text.size());
    return true;
  } catch (const eco::InputError& e) {
    f.warning = eco::printableLine(e.what());
    return false;
  }
}

}  // namespace ecoview
