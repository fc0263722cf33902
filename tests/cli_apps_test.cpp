// Exit codes of every app as documented in the README: 0 success (and --help), 2 usage or
// bad input with one line on stderr. CLI11's own codes (105, 109, ...) must never leak out.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bake_world.h"
#include "test_support.h"

namespace {

using eco::test::runTool;

struct Case {
  const char* tool;
  const char* args;
};

}  // namespace

TEST(CliApps, UsageErrorsExitTwoWithOneLine) {
  const Case cases[] = {
      {"ecobake", ""},
      {"ecobake", "no-such-command"},
      {"ecobake", "bake"},
      {"ecobake", "bake --no-such-flag x -o y"},
      {"ecobake", "inspect"},
      {"ecosample", ""},
      {"ecosample", "--no-such-flag"},
      {"ecosample", "-o x --size"},
      {"ecosample", "-o x --size 1e9"},
      {"ecosample", "-o x --size 100"},    // even
      {"ecosample", "-o x --size 9999999"},  // far past the limit: no absurd allocation
      {"ecosample", "-o x --seed -1"},
      {"ecosample", "-o x --seed 1e23"},
      {"ecoview", "--no-such-flag"},
      {"ecoview", "--frames"},
  };
  // Run inside a private folder: a regression that accepts the arguments writes its "x" there.
  eco::test::TempDir dir;
  for (const Case& c : cases) {
    if (!std::filesystem::exists(eco::test::tool(c.tool))) continue;  // ecoview: viewer not built
    eco::test::CommandResult r =
        eco::test::runCommand("sh -c 'cd " + dir.path.string() + " && " + eco::test::tool(c.tool) + " " + c.args + "'", 30);
    EXPECT_EQ(r.code, 2) << c.tool << " " << c.args << ": " << r.output;
    EXPECT_EQ(eco::test::lineCount(r.output), 1u) << c.tool << " " << c.args << ": " << r.output;
  }
}

TEST(CliApps, HelpExitsZero) {
  for (const char* tool : {"ecobake", "ecosample", "ecoview"}) {
    if (!std::filesystem::exists(eco::test::tool(tool))) continue;
    eco::test::CommandResult r = runTool(tool, "--help", 30);
    EXPECT_EQ(r.code, 0) << tool << ": " << r.output;
  }
}

// A file name a user was handed may carry an escape sequence, a tile's species name a
// newline: printed errors stay one line of printable text (\xNN for control bytes).
TEST(CliApps, ErrorsNeverPrintControlBytes) {
  eco::test::TempDir dir;
  std::string config = eco::test::writeRidgeWorld(dir);
  std::string text = eco::test::readBytes(config);
  const std::string from = R"("heightmap": "heightmap.png")";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), R"("heightmap": "a\u001b]0;PWNED\u0007b.png")");
  eco::test::writeBytes(config, text);
  for (const std::string& command : {std::string("validate "), "bake -o " + dir.file("out") + " "}) {
    eco::test::CommandResult r = eco::test::runTool("ecobake", command + config);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("\\x1b]0;PWNED\\x07"), std::string::npos) << r.output;
    std::string body = r.output.substr(0, r.output.size() - 1);  // without the final newline
    for (char c : body) {
      if (c == '\n') continue;  // validate prints one line per problem plus a count
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << "control byte " << int(c) << " in " << r.output;
    }
  }
}
