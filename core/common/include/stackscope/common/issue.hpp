// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace stackscope {

// One problem found in a configuration. `path` is a JSON pointer ("/hardware/compute/cores"),
// `value` the offending value as text, `allowed` the allowed range or set ("integer >= 1").
struct Issue {
  std::string path;
  std::string message;
  std::string value;
  std::string allowed;
};

// "path: message (got value; allowed: allowed)" on one line.
std::string format_issue(const Issue& issue);
std::string format_issues(const std::vector<Issue>& issues);

// A number as a message or a table shows it: the shortest text that reads back to the same
// double (std::to_chars): whole digits below 1e15 ("3000000000", "0.25"), scientific from 1e15
// on ("1e+308", never 309 digits) and below 1e-4 ("1e-300"); "inf", "-inf", "nan".
std::string number_text(double v);

// Thrown by parsers and loaders (never by the evaluator) when input is unusable.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Issue> issues);
  const std::vector<Issue>& issues() const noexcept { return issues_; }

 private:
  std::vector<Issue> issues_;
};

}  // namespace stackscope
