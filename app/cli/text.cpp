// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/cli/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace stackscope::cli {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buf[64];
  if (std::fabs(value) >= kScientificFrom)
    std::snprintf(buf, sizeof buf, "%.*e", std::clamp(decimals, 2, 6), value);
  else
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string readable(double value) {
  if (!std::isfinite(value)) return "n/a";
  const double a = std::fabs(value);
  if (a == 0) return "0";
  if (a >= kScientificFrom) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
  }
  if (a >= 1000) return fixed(value, 0);
  if (a >= 100) return fixed(value, 1);
  if (a >= 10) return fixed(value, 2);
  if (a >= 0.01) return fixed(value, 3);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

namespace {

void print_more(std::ostream& err, std::size_t total) {
  if (total > kMaxPrintedErrors)
    err << "error: ... and " << total - kMaxPrintedErrors << " more problems (the first "
        << kMaxPrintedErrors << " of " << total << " are shown)\n";
}

}  // namespace

void print_errors(std::ostream& err, const std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < lines.size() && i < kMaxPrintedErrors; ++i)
    err << "error: " << lines[i] << "\n";
  print_more(err, lines.size());
}

void print_issues(std::ostream& err, const std::vector<Issue>& issues) {
  for (std::size_t i = 0; i < issues.size() && i < kMaxPrintedErrors; ++i)
    err << "error: " << format_issue(issues[i]) << "\n";
  print_more(err, issues.size());
}

namespace {

// Display width of UTF-8 text: count code points, not bytes ("×", "°C" are one column each).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

Table::Table(std::vector<std::string> header, std::string align) : align_(std::move(align)) {
  rows_.push_back(std::move(header));
}

void Table::row(std::vector<std::string> cells) {
  rows_.push_back(std::move(cells));
}

std::string Table::str(std::string_view indent) const {
  std::vector<std::size_t> widths;
  for (const auto& r : rows_) {
    if (widths.size() < r.size()) widths.resize(r.size(), 0);
    for (std::size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], width(r[c]));
  }
  std::string out;
  for (const auto& r : rows_) {
    std::string line(indent);
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(widths[c] - width(r[c]), ' ');
      if (c > 0) line += "  ";
      const bool left = c < align_.size() && align_[c] == 'l';
      line += left ? r[c] + pad : pad + r[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

}  // namespace stackscope::cli
