#include "core/parse_number.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "core/error.h"

namespace eco {

double parseReal(const std::string& text, const std::string& what, double lo, double hi) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end)
    throw InputError(what + ": '" + text + "' is not a number");
  if (ec != std::errc::result_out_of_range && !std::isfinite(v))  // "nan", "inf"
    throw InputError(what + ": '" + text + "' is not a finite number");
  if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
    std::ostringstream range;
    range << what << ": " << text << " is out of range (" << lo << " to " << hi << ")";
    throw InputError(range.str());
  }
  return v;
}

int64_t parseInteger(const std::string& text, const std::string& what, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end)
    throw InputError(what + ": '" + text + "' is not a whole number");
  if (ec == std::errc::result_out_of_range || v < lo || v > hi)
    throw InputError(what + ": " + text + " is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return v;
}

uint64_t parseUnsigned(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  // from_chars takes no sign for an unsigned type, so "-1" stops at once instead of wrapping.
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end)
    throw InputError(what + ": '" + text + "' is not a whole number from 0 to 18446744073709551615");
  if (ec == std::errc::result_out_of_range)
    throw InputError(what + ": " + text + " is out of range (0 to 18446744073709551615)");
  return v;
}

}  // namespace eco
