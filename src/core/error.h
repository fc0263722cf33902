#pragma once
#include <stdexcept>
#include <string>

namespace eco {

// Bad input from the user (file, field, pixel, option). The CLI maps it to exit code 2 and
// prints what() as a single line, so the message must name the file/field and the problem.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace eco
