// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the CLI: resolving a preset id or file given to an option, with the option named
// in every error line ("--system 'x': ...").
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stackscope/cli/args.hpp"
#include "stackscope/common/issue.hpp"

namespace stackscope::cli {

// An issue about the whole argument has path "/" or none; "--model 'x': /: ..." reads badly.
inline std::string issue_text(const Issue& issue) {
  std::string s = format_issue(issue);
  if (issue.path.empty() || issue.path == "/") s.erase(0, s.find(": ") + 2);
  return s;
}

// Calls f(value); ConfigError issues become CliError lines prefixed with the option.
template <typename F>
auto resolve(std::string_view option, const std::string& value, F&& f) {
  try {
    return std::forward<F>(f)(value);
  } catch (const ConfigError& e) {
    std::vector<std::string> lines;
    for (const auto& issue : e.issues())
      lines.push_back(std::string(option) + " '" + value + "': " + issue_text(issue));
    if (lines.empty()) lines.push_back(std::string(option) + " '" + value + "': " + e.what());
    throw CliError(std::move(lines));
  }
}

}  // namespace stackscope::cli
