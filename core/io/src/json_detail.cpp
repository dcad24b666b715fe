// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_detail.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace stackscope::io::detail {

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent + "/" + escape_pointer_token(key);
}

std::string child_path(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

std::string value_text(const Json& j) {
  constexpr std::size_t kMax = 60;
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > kMax) s = s.substr(0, kMax - 3) + "...";
  return s;
}

std::string type_text(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::string:
      return "string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "binary";
  }
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string s;
  for (const auto& item : items) {
    if (!s.empty()) s += sep;
    s += item;
  }
  return s;
}

namespace {

// 1-based line and column of byte offset `pos` (0-based) in `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, pos - line_start + 1};
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 3, column 8:
// syntax error while parsing value - unexpected ','; ..."; keep only the part after the
// location, since we compute the location ourselves.
std::string parse_error_detail(const std::string& what) {
  const auto colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// Tracks the JSON pointer of the element being parsed, to name duplicate keys.
struct Frame {
  bool is_object = false;
  std::vector<std::string> keys;
  std::string key;
  std::size_t next_index = 0;
};

}  // namespace

std::optional<Json> parse_json_text(std::string_view text, std::string_view where,
                                    const std::string& path, Issues& issues) {
  std::vector<Frame> stack;
  Issues duplicates;
  auto pointer = [&stack]() {
    std::string p;
    for (const auto& f : stack) {
      p += '/';
      p += f.is_object ? escape_pointer_token(f.key) : std::to_string(f.next_index - 1);
    }
    return p;
  };
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (!stack.empty() && !stack.back().is_object) ++stack.back().next_index;
        stack.push_back({event == Json::parse_event_t::object_start, {}, {}, 0});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case Json::parse_event_t::key: {
        auto& top = stack.back();
        top.key = parsed.get<std::string>();
        if (std::find(top.keys.begin(), top.keys.end(), top.key) != top.keys.end()) {
          // nlohmann keeps the last value silently; a duplicate is almost always an editing
          // mistake, so it is an error.
          duplicates.push_back({path + pointer(),
                                "duplicate key '" + top.key + "' in " + std::string(where), "",
                                "each key at most once per object"});
        } else {
          top.keys.push_back(top.key);
        }
        break;
      }
      case Json::parse_event_t::value:
        if (!stack.empty() && !stack.back().is_object) ++stack.back().next_index;
        break;
    }
    return true;
  };

  try {
    Json j = Json::parse(text.begin(), text.end(), callback);
    issues.insert(issues.end(), duplicates.begin(), duplicates.end());
    return j;
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based count of bytes read; the offending byte is the last one read.
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    issues.push_back({path,
                      "JSON syntax error in " + std::string(where) + " at line " +
                          std::to_string(line) + ", column " + std::to_string(column) + ": " +
                          parse_error_detail(e.what()),
                      "", "valid JSON (RFC 8259)"});
  } catch (const Json::out_of_range& e) {
    // Thrown for numbers beyond double range ("number overflow parsing '1e400'"); locate the
    // token in the text to give a line.
    std::string msg = parse_error_detail(e.what());
    std::string where_text;
    const auto q1 = msg.find('\'');
    const auto q2 = q1 == std::string::npos ? q1 : msg.find('\'', q1 + 1);
    if (q2 != std::string::npos) {
      const auto pos = text.find(msg.substr(q1 + 1, q2 - q1 - 1));
      if (pos != std::string_view::npos) {
        const auto [line, column] = line_column(text, pos);
        where_text = " at line " + std::to_string(line) + ", column " + std::to_string(column);
      }
    }
    issues.push_back({path,
                      "number out of range in " + std::string(where) + where_text + ": " + msg, "",
                      "finite numbers within double range"});
  } catch (const Json::exception& e) {
    issues.push_back({path, "cannot parse " + std::string(where) + ": " + e.what(), "", ""});
  }
  return std::nullopt;
}

std::string dump(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

namespace {

bool integral_value(const Json& j, long double& v) {
  if (j.is_number_unsigned()) {
    v = static_cast<long double>(j.get<std::uint64_t>());
    return true;
  }
  if (j.is_number_integer()) {
    v = static_cast<long double>(j.get<std::int64_t>());
    return true;
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) return false;
    v = d;
    return true;
  }
  return false;
}

}  // namespace

void read_value(const Json& j, const std::string& path, int& out, Issues& issues) {
  constexpr auto lo = std::numeric_limits<int>::min();
  constexpr auto hi = std::numeric_limits<int>::max();
  const std::string allowed = "integer";
  if (!j.is_number()) {
    issues.push_back({path, "expected integer, got " + type_text(j), value_text(j), allowed});
    return;
  }
  long double v = 0;
  if (!integral_value(j, v)) {
    issues.push_back({path, "expected integer, got non-integer number", value_text(j), allowed});
    return;
  }
  if (v < lo || v > hi) {
    issues.push_back({path, "integer out of range", value_text(j),
                      "integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"});
    return;
  }
  out = static_cast<int>(v);
}

void read_value(const Json& j, const std::string& path, std::uint64_t& out, Issues& issues) {
  const std::string allowed = "integer >= 0";
  if (j.is_number_unsigned()) {
    out = j.get<std::uint64_t>();
    return;
  }
  if (!j.is_number()) {
    issues.push_back({path, "expected integer, got " + type_text(j), value_text(j), allowed});
    return;
  }
  long double v = 0;
  if (!integral_value(j, v)) {
    issues.push_back({path, "expected integer, got non-integer number", value_text(j), allowed});
    return;
  }
  // Floats are exact integers only up to 2^53; beyond that the text did not mean this value.
  if (v < 0 || (j.is_number_float() && v > 9007199254740992.0L)) {
    issues.push_back({path, "integer out of range", value_text(j), allowed});
    return;
  }
  out = static_cast<std::uint64_t>(v);
}

void read_value(const Json& j, const std::string& path, double& out, Issues& issues) {
  if (!j.is_number()) {
    issues.push_back({path, "expected number, got " + type_text(j), value_text(j), "number"});
    return;
  }
  const double v = j.get<double>();
  if (!std::isfinite(v)) {
    issues.push_back({path, "number is not finite", value_text(j), "finite number"});
    return;
  }
  out = v;
}

void read_value(const Json& j, const std::string& path, bool& out, Issues& issues) {
  if (!j.is_boolean()) {
    issues.push_back(
        {path, "expected boolean, got " + type_text(j), value_text(j), "true or false"});
    return;
  }
  out = j.get<bool>();
}

void read_value(const Json& j, const std::string& path, std::string& out, Issues& issues) {
  if (!j.is_string()) {
    issues.push_back({path, "expected string, got " + type_text(j), value_text(j), "string"});
    return;
  }
  out = j.get<std::string>();
}

Json write_value(int v) {
  return Json(v);
}
Json write_value(std::uint64_t v) {
  return Json(v);
}
Json write_value(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}
Json write_value(bool v) {
  return Json(v);
}
Json write_value(const std::string& v) {
  return Json(v);
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string suggest_key(const std::string& key, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& k : known) {
    const std::size_t d = edit_distance(lower(key), lower(k));
    if (d < best_d) {
      best_d = d;
      best = k;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  if (best_d <= limit) return best;
  // "batchsize" for "batch": a known key that starts the unknown one (or the reverse).
  const std::string lk = lower(key);
  for (const auto& k : known) {
    const std::string lkn = lower(k);
    if (lkn.size() >= 3 && (lk.starts_with(lkn) || lkn.starts_with(lk)) && lk.size() >= 3) return k;
  }
  return {};
}

void ObjectReader::finish() {
  std::vector<std::string> all = known_;
  all.insert(all.end(), extra_.begin(), extra_.end());
  for (const auto& [key, value] : object_.items()) {
    if (std::find(all.begin(), all.end(), key) != all.end()) continue;
    std::string message = "unknown key '" + key + "'";
    if (auto s = suggest_key(key, all); !s.empty()) message += "; did you mean '" + s + "'?";
    issues_.push_back(
        {child_path(path_, key), message, value_text(value), "known keys: " + join(all)});
  }
}

}  // namespace stackscope::io::detail
