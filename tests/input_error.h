#pragma once
// Checks of eco::InputError messages shared by the suites: thrown at all, one line, and
// naming what it should.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace eco::test {

// Runs f and returns the InputError message; fails the test when nothing is thrown or the
// message spans several lines (the CLI prints it as one).
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "expected InputError";
  return "";
}

}  // namespace eco::test

// `call` throws InputError whose message contains both `path` and `fragment`.
#define EXPECT_INPUT_ERROR(call, path, fragment)                                \
  do {                                                                          \
    std::string message_ = ::eco::test::errorOf([&] { call; });                 \
    EXPECT_NE(message_.find(path), std::string::npos) << message_;              \
    EXPECT_NE(message_.find(fragment), std::string::npos) << message_;          \
  } while (0)
