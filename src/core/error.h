#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace eco {

// Bad input from the user (file, field, pixel, option). The CLI maps it to exit code 2 and
// prints what() as a single line, so the message must name the file/field and the problem.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A problem in a JSON document (a config, a manifest): where, as a JSON pointer
// (/species/2/elevation/min, "" for the whole document), and why, in plain words.
struct JsonProblem {
  std::string path;
  std::string reason;
};

// A message as the apps print it: one line of printable text. Control bytes (a newline in a
// species name, an escape sequence in a file name a user was handed) become \xNN, so an
// error can neither span lines nor drive the terminal.
inline std::string printableLine(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char ch : message) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out;
}

// One line: "<file>: <json path>: <reason>" (the path is left out when empty).
inline std::string formatProblem(const std::string& file, const JsonProblem& problem) {
  return printableLine(file + ": " + (problem.path.empty() ? "" : problem.path + ": ") + problem.reason);
}

}  // namespace eco
