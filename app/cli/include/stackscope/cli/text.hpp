// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small helpers for the human-readable tables the CLI prints.
#include <string>
#include <string_view>
#include <vector>

namespace stackscope::cli {

// Fixed-point with `decimals` digits; "n/a" for non-finite values.
std::string fixed(double value, int decimals);
// Value with enough significant digits to read (e.g. 0.0123, 1.23, 123.4, 12345).
std::string readable(double value);

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
