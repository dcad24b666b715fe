// SPDX-License-Identifier: GPL-3.0-or-later
// Strict parsing of command-line values: whole string, range, clear messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interrupt.hpp"
#include "stackscope/cli/args.hpp"

namespace stackscope::cli {
namespace {

std::string int_error(std::string_view text) {
  try {
    parse_int("--n", text, 1, 100);
  } catch (const CliError& e) {
    return e.what();
  }
  return {};
}

TEST(ParseInt, AcceptsWholeIntegersInRange) {
  EXPECT_EQ(parse_int("--n", "1", 1, 100), 1);
  EXPECT_EQ(parse_int("--n", "100", 1, 100), 100);
  EXPECT_EQ(parse_int("--n", "42", 1, 100), 42);
}

TEST(ParseInt, RejectsJunkWithOptionValueAndRange) {
  for (const char* bad : {"", "abc", "12abc", "1.5", " 12", "12 ", "0x10", "1e3", "+5"}) {
    const std::string msg = int_error(bad);
    EXPECT_NE(msg.find("--n: not an integer"), std::string::npos) << bad << " -> " << msg;
    EXPECT_NE(msg.find("allowed: integer 1..100"), std::string::npos) << msg;
  }
}

TEST(ParseInt, RejectsOutOfRange) {
  for (const char* bad : {"0", "-1", "101", "99999999999999999999999"}) {
    const std::string msg = int_error(bad);
    EXPECT_NE(msg.find("--n: out of range"), std::string::npos) << bad << " -> " << msg;
  }
}

TEST(ParseDouble, RangeAndFiniteness) {
  EXPECT_DOUBLE_EQ(parse_double("--t", "85.5", -40, 150), 85.5);
  EXPECT_THROW(parse_double("--t", "nan", -40, 150), CliError);
  EXPECT_THROW(parse_double("--t", "inf", -40, 150), CliError);
  EXPECT_THROW(parse_double("--t", "200", -40, 150), CliError);
  EXPECT_THROW(parse_double("--t", "85C", -40, 150), CliError);
}

TEST(ParseBytes, SuffixesAreBinaryAndTheRangeHolds) {
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  EXPECT_EQ(parse_bytes("--bytes", "1", 1, kMax), 1);
  EXPECT_EQ(parse_bytes("--bytes", "4096", 1, kMax), 4096);
  EXPECT_EQ(parse_bytes("--bytes", "64K", 1, kMax), 64 * 1024);
  EXPECT_EQ(parse_bytes("--bytes", "64k", 1, kMax), 64 * 1024);
  EXPECT_EQ(parse_bytes("--bytes", "16M", 1, kMax), 16 << 20);
  EXPECT_EQ(parse_bytes("--bytes", "1G", 1, kMax), std::int64_t{1} << 30);
  auto error = [&](const char* text) {
    try {
      parse_bytes("--bytes", text, 1, kMax);
    } catch (const CliError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* bad : {"", "K", "1.5M", "1KB", "1T", "+4", " 1", "1e6"})
    EXPECT_NE(error(bad).find("--bytes: not a byte count"), std::string::npos) << bad;
  for (const char* bad : {"0", "-1", "0K", "2048G", "99999999999999999999", "9223372036854775807G"})
    EXPECT_NE(error(bad).find("--bytes: out of range"), std::string::npos) << bad;
  EXPECT_NE(error("0").find("optionally with suffix K, M or G"), std::string::npos);
}

const std::vector<OptionSpec> kOptions = {
    {"--tp", "N", "degree"}, {"--json", "", "json"}, {"--help", "", "help"}};

TEST(ParseArgs, ValuesFlagsAndPositionals) {
  const std::vector<std::string> args = {"p.json", "--tp", "4", "--json"};
  const ParsedArgs a = parse_args("cmd", args, kOptions, 1);
  ASSERT_EQ(a.positional.size(), 1u);
  EXPECT_EQ(a.positional[0], "p.json");
  EXPECT_EQ(a.get("--tp").value_or(""), "4");
  EXPECT_TRUE(a.has("--json"));
  EXPECT_FALSE(a.has("--help"));
}

TEST(ParseArgs, EqualsFormAndShortHelp) {
  const std::vector<std::string> args = {"--tp=8", "-h"};
  const ParsedArgs a = parse_args("cmd", args, kOptions, 0);
  EXPECT_EQ(a.get("--tp").value_or(""), "8");
  EXPECT_TRUE(a.has("--help"));
}

TEST(ParseArgs, Errors) {
  auto fails = [](std::vector<std::string> args, std::string_view expect) {
    try {
      parse_args("cmd", args, kOptions, 1);
    } catch (const CliError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "no error for " << expect;
  };
  fails({"--bogus"}, "unknown option '--bogus' (allowed: --tp, --json, --help)");
  fails({"--tp"}, "option --tp needs a value");
  fails({"--tp", "--json"}, "option --tp needs a value");
  fails({"--tp", "1", "--tp", "2"}, "given more than once");
  fails({"--json=yes"}, "takes no value");
  fails({"a.json", "b.json"}, "unexpected argument 'b.json'");
}

// The resume line printed after Ctrl-C: the arguments as given, quoted for a POSIX shell where
// they need it, and --resume once.
TEST(Interrupt, ResumeCommandQuotesForTheShellAndAddsResumeOnce) {
  const std::vector<std::string> args = {"my project.json", "--out", "out/dir",
                                         "--time-scale",    "0.5",   "it's"};
  EXPECT_EQ(resume_command("search", args),
            "stackscope-cli search 'my project.json' --out out/dir --time-scale 0.5 'it'\\''s' "
            "--resume");
  const std::vector<std::string> resumed = {"p.json", "--out", "o", "--resume"};
  EXPECT_EQ(resume_command("search", resumed), "stackscope-cli search p.json --out o --resume");
  EXPECT_EQ(resume_command("search", std::vector<std::string>{""}),
            "stackscope-cli search '' --resume");
}

}  // namespace
}  // namespace stackscope::cli
