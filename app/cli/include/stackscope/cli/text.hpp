// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small helpers for the human-readable tables the CLI prints.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/common/issue.hpp"

namespace stackscope::cli {

// From this magnitude on, both print in scientific notation ("1.00e+308", "1e+308"), never as
// a 309-digit integer.
inline constexpr double kScientificFrom = 1e15;
// Fixed-point with `decimals` digits; "n/a" for non-finite values.
std::string fixed(double value, int decimals);
// Value with enough significant digits to read (e.g. 0.0123, 1.23, 123.4, 12345).
std::string readable(double value);

// Error lines of every command go through these: "error: <line>" for the first
// kMaxPrintedErrors, then one "error: ... and N more problems" line, so a file with a million bad
// values explains itself in a screenful instead of a million lines.
inline constexpr std::size_t kMaxPrintedErrors = 50;
void print_errors(std::ostream& err, const std::vector<std::string>& lines);
void print_issues(std::ostream& err, const std::vector<Issue>& issues);

// Columns separated by two spaces. `align` has one letter per column, 'l' or 'r'; columns
// past its end are right-aligned (numbers), the first column defaults to left.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::string align = "l");
  void row(std::vector<std::string> cells);
  std::string str(std::string_view indent = "") const;

 private:
  std::vector<std::vector<std::string>> rows_;
  std::string align_;
};

}  // namespace stackscope::cli
