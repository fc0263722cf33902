#pragma once
// Numbers that arrive as text on a command line, parsed strictly. CLI11 would take "nan" and
// "1e30" for a float, wrap "-1" to 2^64-1 for an unsigned, accept "1e23" for an integer and
// let an int overflow downstream. Every number here must be decimal, finite and within the
// caller's range; otherwise InputError naming `what` (the option) and the text, so the tools
// exit 2 with one line.
#include <cstdint>
#include <string>

namespace eco {

double parseReal(const std::string& text, const std::string& what, double lo, double hi);
// Decimal digits with an optional leading '-'; no '+', spaces, exponent or fraction.
int64_t parseInteger(const std::string& text, const std::string& what, int64_t lo, int64_t hi);
// Decimal digits only: 0 .. 2^64-1 (seeds).
uint64_t parseUnsigned(const std::string& text, const std::string& what);

}  // namespace eco
