// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/common/issue.hpp"

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
