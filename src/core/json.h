#pragma once
// The one JSON reader: reads an object field by field and records every problem with its JSON
// pointer instead of stopping at the first one, so a user sees all mistakes of a config in
// one run. The config parser and the manifest reader both use it.
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace eco {

using Json = nlohmann::ordered_json;  // keeps document order, so problems come out in file order

std::string jsonPointer(const std::string& base, std::string_view key);  // escapes '~' and '/'
std::string jsonPointer(const std::string& base, size_t index);
size_t editDistance(std::string_view a, std::string_view b);
// " (did you mean 'x'?)" for the closest candidate within edit distance 2, else "".
std::string suggestion(std::string_view word, std::span<const std::string> candidates);
std::string describeNumber(double value);  // shortest readable form: 2, 0.5, 1e+20
// Why `path` cannot be a species' mesh asset path ("" when it can): at most 1024 bytes, no
// control characters and no '@' (the asset-path delimiter of USD layers). Config and manifest
// readers share it; ecobake never opens the path, exporters write it as given.
std::string meshAssetProblem(std::string_view path);

// Allowed interval for a number; open ends are exclusive.
struct Limits {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool lowOpen = false, highOpen = false;

  static Limits any() { return {}; }
  static Limits positive() { return {0, std::numeric_limits<double>::infinity(), true, false}; }
  static Limits atLeast(double v) { return {v, std::numeric_limits<double>::infinity(), false, false}; }
  static Limits between(double lo, double hi) { return {lo, hi, false, false}; }
  bool contains(double v) const;
  std::string describe() const;  // "> 0", ">= 1", "in [0, 1]"
};

class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string path, std::vector<JsonProblem>& problems);

  // Each getter marks the key as known and reports, at the key's JSON pointer, a missing
  // required key, a wrong type or a value outside its limits (numbers must also be finite as
  // floats: 1e39 is a finite double but overflows a float).
  // Each getter marks the key as known and leaves `out` untouched when the key is absent or
  // invalid. They return true only when a valid value was stored.
  bool number(const char* key, float& out, Limits limits, bool required = false);
  bool integer(const char* key, int64_t& out, Limits limits, bool required = false);
  bool unsignedInteger(const char* key, uint64_t& out, bool required = false);
  // Empty strings are a problem unless allowEmpty.
  bool string(const char* key, std::string& out, bool required = false, bool allowEmpty = false);
  // An array of integers in [0, 2^64 - 1].
  bool unsignedArray(const char* key, std::vector<uint64_t>& out, bool required = false);
  // Index into `names`; reports the allowed names (and the closest one) otherwise.
  bool choice(const char* key, std::span<const std::string> names, int& out, bool required = false);
  // The child when present with the right type; nullptr (reported if wrong or required).
  const Json* object(const char* key, bool required = false);
  const Json* array(const char* key, bool required = false);

  void markKnown(const char* key) { known_.emplace_back(key); }
  bool has(const char* key) const { return object_.contains(key); }
  std::string pathOf(std::string_view key) const { return jsonPointer(path_, key); }
  const std::string& path() const { return path_; }
  void report(std::string path, std::string reason);
  // Reports every key no getter asked for; call after all getters.
  void rejectUnknownKeys();

 private:
  const Json* find(const char* key, bool required);
  bool expect(const char* key, const Json& value, bool ok, const char* expected);

  const Json& object_;
  std::string path_;
  std::vector<JsonProblem>& problems_;
  std::vector<std::string> known_;
};

// "a number", "a string", ... as used in "expected X, got Y".
std::string jsonTypeName(const Json& value);


// The one policy for JSON text a user hands the tool (configs, GeoJSON): no NUL byte
// (nlohmann's parser stops at one and would drop whatever follows) and no duplicate key (JSON
// leaves them undefined; nlohmann keeps the last, so a stray second key would silently win).
// jsonNulProblem: "" or "byte N is a NUL byte"; call before parsing.
std::string jsonNulProblem(const std::string& text);
// The JSON pointers of keys given twice in one object (text that parses).
std::vector<std::string> duplicateJsonKeys(const std::string& text);
inline constexpr const char* kDuplicateKeyReason = "duplicate key (only one value per key; the last would silently win)";

// Follows a SAX parse to know the JSON pointer of the value being read when the parser
// stops: nlohmann reports a number too large for a double (1e400) without a position.
class JsonPointerTracker final : public nlohmann::json_sax<Json> {
 public:
  std::string pointer() const {
    std::string out;
    for (const Frame& f : frames_) out = f.array ? jsonPointer(out, f.index) : jsonPointer(out, f.key);
    return out;
  }
  std::string token;
  std::vector<std::string> duplicates;  // JSON pointers of keys seen twice in one object

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return push(false); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    f.key = k;
    // JSON leaves duplicate keys undefined and nlohmann keeps the last: a config editor's
    // stray second "seed" would silently win, so each one is reported.
    if (!f.keys.insert(k).second) duplicates.push_back(pointer());
    return true;
  }
  bool end_object() override { return pop(); }
  bool start_array(std::size_t) override { return push(true); }
  bool end_array() override { return pop(); }
  bool parse_error(std::size_t, const std::string& lastToken, const nlohmann::detail::exception&) override {
    token = lastToken;
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;  // objects: every key so far
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool push(bool array) {
    frames_.push_back({array, 0, {}, {}});
    return true;
  }
  bool pop() {
    frames_.pop_back();
    return value();
  }
  std::vector<Frame> frames_;
};

}  // namespace eco
