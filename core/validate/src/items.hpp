// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The comma-separated "KEY=VALUE" lists of the CLI's --fit-on / --hold-out / --only selectors
// and --grid axes (private to core/validate).
#include <string_view>
#include <vector>

namespace stackscope::validate::detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The items of `text` split at `sep`, each trimmed; empty items are dropped.
inline std::vector<std::string_view> items(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t at = text.find(sep);
    const std::string_view item = trim(text.substr(0, at));
    text = at == std::string_view::npos ? std::string_view{} : text.substr(at + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace stackscope::validate::detail
