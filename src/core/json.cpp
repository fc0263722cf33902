#include "core/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace eco {

std::string jsonPointer(const std::string& base, std::string_view key) {
  std::string out = base + "/";
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string jsonPointer(const std::string& base, size_t index) { return base + "/" + std::to_string(index); }

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::string suggestion(std::string_view word, std::span<const std::string> candidates) {
  const std::string* best = nullptr;
  size_t bestDistance = 3;
  for (const std::string& c : candidates) {
    size_t d = editDistance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = &c;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : std::string();
}

std::string meshAssetProblem(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (path.size() > 1024) return "is " + std::to_string(path.size()) + " bytes long; at most 1024";
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "must not contain control characters";
    if (c == '@') return "must not contain '@' (it delimits asset paths in USD)";
  }
  return "";
}

std::string describeNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

bool Limits::contains(double v) const {
  bool aboveLow = lowOpen ? v > low : v >= low;
  bool belowHigh = highOpen ? v < high : v <= high;
  return aboveLow && belowHigh;
}

std::string Limits::describe() const {
  bool boundedLow = std::isfinite(low), boundedHigh = std::isfinite(high);
  if (boundedLow && boundedHigh)
    return std::string("in ") + (lowOpen ? "(" : "[") + describeNumber(low) + ", " + describeNumber(high) +
           (highOpen ? ")" : "]");
  if (boundedLow) return (lowOpen ? "> " : ">= ") + describeNumber(low);
  if (boundedHigh) return (highOpen ? "< " : "<= ") + describeNumber(high);
  return "a number";
}

std::string jsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    case Json::value_t::number_float: return "a number (" + describeNumber(value.get<double>()) + ")";
    default: return "an integer";
  }
}

ObjectReader::ObjectReader(const Json& object, std::string path, std::vector<JsonProblem>& problems)
    : object_(object), path_(std::move(path)), problems_(problems) {}

void ObjectReader::report(std::string path, std::string reason) {
  problems_.push_back({std::move(path), std::move(reason)});
}

const Json* ObjectReader::find(const char* key, bool required) {
  known_.emplace_back(key);
  auto it = object_.find(key);
  if (it == object_.end()) {
    if (required) report(pathOf(key), "required field is missing");
    return nullptr;
  }
  return &*it;
}

bool ObjectReader::expect(const char* key, const Json& value, bool ok, const char* expected) {
  if (!ok) report(pathOf(key), std::string("expected ") + expected + ", got " + jsonTypeName(value));
  return ok;
}

bool ObjectReader::number(const char* key, float& out, Limits limits, bool required) {
  const Json* value = find(key, required);
  if (!value || !expect(key, *value, value->is_number(), "a number")) return false;
  double v = value->get<double>();
  if (!limits.contains(v)) {
    report(pathOf(key), "must be " + limits.describe() + ", got " + describeNumber(v));
    return false;
  }
  if (!std::isfinite(float(v))) {
    report(pathOf(key), "out of float range, got " + describeNumber(v));
    return false;
  }
  out = float(v);
  return true;
}

static bool isIntegral(const Json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  double v = value.get<double>();
  return std::isfinite(v) && v == std::floor(v);
}

bool ObjectReader::integer(const char* key, int64_t& out, Limits limits, bool required) {
  const Json* value = find(key, required);
  if (!value || !expect(key, *value, isIntegral(*value), "an integer")) return false;
  double v = value->get<double>();
  if (!limits.contains(v) || std::abs(v) > 9.0e15) {
    report(pathOf(key), "must be " + limits.describe() + ", got " + describeNumber(v));
    return false;
  }
  out = value->is_number_float() ? int64_t(v) : value->get<int64_t>();
  return true;
}

bool ObjectReader::unsignedInteger(const char* key, uint64_t& out, bool required) {
  const Json* value = find(key, required);
  if (!value || !expect(key, *value, isIntegral(*value), "an integer")) return false;
  if (value->is_number_unsigned()) {
    out = value->get<uint64_t>();
    return true;
  }
  double v = value->get<double>();
  if (v < 0 || v >= 18446744073709551616.0) {
    report(pathOf(key), "must be in [0, 2^64 - 1], got " + describeNumber(v));
    return false;
  }
  out = uint64_t(v);
  return true;
}

bool ObjectReader::string(const char* key, std::string& out, bool required, bool allowEmpty) {
  const Json* value = find(key, required);
  if (!value || !expect(key, *value, value->is_string(), "a string")) return false;
  if (!allowEmpty && value->get_ref<const std::string&>().empty()) {
    report(pathOf(key), "must not be empty");
    return false;
  }
  out = value->get<std::string>();
  return true;
}

bool ObjectReader::unsignedArray(const char* key, std::vector<uint64_t>& out, bool required) {
  const Json* value = find(key, required);
  if (!value || !expect(key, *value, value->is_array(), "an array")) return false;
  std::vector<uint64_t> values;
  values.reserve(value->size());
  for (size_t i = 0; i < value->size(); ++i) {
    const Json& e = (*value)[i];
    if (!e.is_number_unsigned()) {
      report(jsonPointer(pathOf(key), i), "expected a non-negative integer, got " + jsonTypeName(e));
      return false;
    }
    values.push_back(e.get<uint64_t>());
  }
  out = std::move(values);
  return true;
}

bool ObjectReader::choice(const char* key, std::span<const std::string> names, int& out, bool required) {
  std::string text;
  if (!string(key, text, required)) return false;
  auto it = std::find(names.begin(), names.end(), text);
  if (it != names.end()) {
    out = int(it - names.begin());
    return true;
  }
  std::string allowed;
  for (const std::string& n : names) allowed += (allowed.empty() ? "'" : ", '") + n + "'";
  report(pathOf(key), "unknown value '" + text + "'" + suggestion(text, names) + "; use one of " + allowed);
  return false;
}

const Json* ObjectReader::object(const char* key, bool required) {
  const Json* value = find(key, required);
  return value && expect(key, *value, value->is_object(), "an object") ? value : nullptr;
}

const Json* ObjectReader::array(const char* key, bool required) {
  const Json* value = find(key, required);
  return value && expect(key, *value, value->is_array(), "an array") ? value : nullptr;
}

void ObjectReader::rejectUnknownKeys() {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
    report(pathOf(it.key()), "unknown key '" + it.key() + "'" + suggestion(it.key(), known_));
  }
}

std::string jsonNulProblem(const std::string& text) {
  const size_t nul = text.find('\0');
  return nul == std::string::npos ? std::string() : "byte " + std::to_string(nul) + " is a NUL byte";
}

std::vector<std::string> duplicateJsonKeys(const std::string& text) {
  JsonPointerTracker tracker;
  Json::sax_parse(text, &tracker);
  return tracker.duplicates;
}

}  // namespace eco
