// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/common/issue.hpp"

#include <charconv>
#include <cmath>

namespace stackscope {

std::string format_issue(const Issue& issue) {
  std::string s = (issue.path.empty() ? std::string("/") : issue.path) + ": " + issue.message;
  if (!issue.value.empty() || !issue.allowed.empty()) {
    s += " (";
    if (!issue.value.empty()) s += "got " + issue.value;
    if (!issue.value.empty() && !issue.allowed.empty()) s += "; ";
    if (!issue.allowed.empty()) s += "allowed: " + issue.allowed;
    s += ")";
  }
  return s;
}

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(v);
  const auto r = a >= 1e15 ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                 : a >= 1e-4 || a == 0
                     ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                     : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string format_issues(const std::vector<Issue>& issues) {
  std::string s;
  for (const auto& i : issues) {
    if (!s.empty()) s += '\n';
    s += format_issue(i);
  }
  return s;
}

ConfigError::ConfigError(std::vector<Issue> issues)
    : std::runtime_error(format_issues(issues)), issues_(std::move(issues)) {}

}  // namespace stackscope
