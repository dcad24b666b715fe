// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_detail.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "stackscope/io/limits.hpp"

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
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::string: return "string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "number";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    default: return "binary";
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

// Builds the document from nlohmann's SAX events, enforcing the limits of io/limits.hpp as it
// goes and stopping at the first one exceeded, so a deep or huge document costs no more than
// the limit. nlohmann's callback parser is not used: it copies values recursively (a stack
// overflow at ~10^5 levels) and rescans the enclosing container at every object or array end
// (quadratic in the length of an array of objects).
class DomBuilder final : public nlohmann::json_sax<Json> {
 public:
  DomBuilder(std::string_view where, const std::string& path) : where_(where), path_(path) {}

  Json root;
  Issues duplicates;
  std::size_t more_duplicates = 0;
  std::optional<Issue> limit;  // the limit that stopped the parse
  // A syntax error or number overflow reported by the parser.
  bool failed = false;
  std::size_t error_position = 0;
  int error_id = 0;  // nlohmann exception id: 1xx parse_error, 406 number overflow
  std::string error_what;

  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override { return check_string(v, "string") && scalar(std::move(v)); }
  bool binary(binary_t&) override { return scalar(nullptr); }  // not produced by JSON text

  bool start_object(std::size_t) override { return open(Json::object()); }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    if (!check_string(k, "key")) return false;
    Frame& top = frames_.back();
    top.key = k;
    if (++top.count > limits::kMaxJsonObjectMembers)
      return exceed("object has more than " + count(limits::kMaxJsonObjectMembers) + " members",
                    "at most " + count(limits::kMaxJsonObjectMembers) + " members per object");
    auto& object = refs_.back()->get_ref<Json::object_t&>();
    if (top.keys.insert(k).second) {
      // A new key: append (ordered_map's own insert searches linearly for the key first).
      object.emplace_back(k, nullptr);
      element_ = &object.back().second;
      return true;
    }
    // nlohmann keeps the last value silently; a duplicate is almost always an editing mistake,
    // so it is an error (the value is still read, into the first occurrence).
    if (duplicates.size() < limits::kMaxIssues)
      duplicates.push_back({path_ + pointer(),
                            "duplicate key '" + k + "' in " + std::string(where_), "",
                            "each key at most once per object"});
    else
      ++more_duplicates;
    element_ = &object[k];
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    failed = true;
    error_position = position;
    error_id = ex.id;
    error_what = ex.what();
    return false;
  }

 private:
  struct Frame {
    std::string key;                       // objects: the member being parsed
    std::size_t count = 0;                 // members or elements so far
    std::unordered_set<std::string> keys;  // objects: keys seen
  };

  static std::string count(std::size_t n) { return std::to_string(n); }

  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      p += '/';
      p += refs_[i]->is_object() ? escape_pointer_token(frames_[i].key)
                                 : std::to_string(frames_[i].count - 1);
    }
    return p;
  }

  bool exceed(std::string message, std::string allowed) {
    limit = Issue{path_ + pointer(), std::move(message) + " in " + std::string(where_), "",
                  std::move(allowed)};
    return false;
  }

  bool check_string(const string_t& s, const char* what) {
    if (s.size() <= limits::kMaxJsonStringBytes) return true;
    return exceed(std::string(what) + " of " + count(s.size()) + " bytes",
                  "at most " + count(limits::kMaxJsonStringBytes) + " bytes per " + what);
  }

  // Places a new value (counting it against the limits); returns where it went.
  Json* place(Json&& value) {
    if (++values_ > limits::kMaxJsonValues) {
      exceed("more than " + count(limits::kMaxJsonValues) + " JSON values",
             "at most " + count(limits::kMaxJsonValues) + " values per document");
      return nullptr;
    }
    if (refs_.empty()) {
      root = std::move(value);
      return &root;
    }
    Json& parent = *refs_.back();
    if (parent.is_array()) {
      if (++frames_.back().count > limits::kMaxJsonArrayElements) {
        exceed("array has more than " + count(limits::kMaxJsonArrayElements) + " elements",
               "at most " + count(limits::kMaxJsonArrayElements) + " elements per array");
        return nullptr;
      }
      auto& array = parent.get_ref<Json::array_t&>();
      array.push_back(std::move(value));
      return &array.back();
    }
    *element_ = std::move(value);
    return element_;
  }

  template <class V>
  bool scalar(V&& v) {
    return place(Json(std::forward<V>(v))) != nullptr;
  }

  bool open(Json&& container) {
    Json* placed = place(std::move(container));
    if (placed == nullptr) return false;
    // The new container's depth is refs_.size() + 1 (the root is depth 1); placed first, so the
    // message's pointer ends at it.
    if (refs_.size() >= static_cast<std::size_t>(limits::kMaxJsonDepth))
      return exceed("JSON nested deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels",
                    "at most " + std::to_string(limits::kMaxJsonDepth) + " nested arrays/objects");
    refs_.push_back(placed);
    frames_.emplace_back();
    return true;
  }

  bool close() {
    refs_.pop_back();
    frames_.pop_back();
    return true;
  }

  std::string_view where_;
  const std::string& path_;
  std::vector<Json*> refs_;  // open containers, outermost first (pointers stay valid: a
                             // container's elements move only while it is the innermost)
  std::vector<Frame> frames_;
  Json* element_ = nullptr;  // the object member the next value goes to
  std::size_t values_ = 0;
};

}  // namespace

namespace {

// The text of a key as written between its quotes, with the common escapes undone (for the
// pointer of a message; \uXXXX stays as written).
std::string raw_key_text(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 == raw.size()) {
      out += raw[i];
      continue;
    }
    switch (const char e = raw[++i]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': out += "\\u"; break;
      default: out += e;  // \" \\ \/
    }
  }
  return out;
}

}  // namespace

std::optional<Issue> check_json_text(std::string_view text, std::string_view where,
                                     const std::string& path, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    return Issue{path,
                 "JSON text of " + std::string(where) + " is larger than the limit",
                 std::to_string(text.size()) + " bytes",
                 "at most " + std::to_string(max_bytes) + " bytes (" +
                     std::to_string(max_bytes / limits::kMiB) + " MiB)"};
  // One frame per open container: arrays count their elements (commas at their level), objects
  // remember the key of the member being read. Before the first syntax error the text is a
  // prefix of valid JSON, so this depth is the parser's; after it the parser stops anyway.
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string_view key;
  };
  std::vector<Frame> open;
  open.reserve(static_cast<std::size_t>(limits::kMaxJsonDepth));
  std::string_view last_string;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '"': {
        const std::size_t start = ++i;
        while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
        last_string = text.substr(start, std::min(i, text.size()) - start);
        break;
      }
      case '[':
      case '{':
        if (open.size() >= static_cast<std::size_t>(limits::kMaxJsonDepth)) {
          // The pointer ends at the container past the limit (the root is depth 1).
          std::string pointer = path;
          for (const Frame& f : open)
            pointer += "/" + (f.array ? std::to_string(f.index)
                                      : escape_pointer_token(raw_key_text(f.key)));
          return Issue{pointer,
                       "JSON nested deeper than " + std::to_string(limits::kMaxJsonDepth) +
                           " levels in " + std::string(where),
                       "", "at most " + std::to_string(limits::kMaxJsonDepth) +
                               " nested arrays/objects"};
        }
        open.push_back({c == '[', 0, {}});
        break;
      case ']':
      case '}':
        if (!open.empty()) open.pop_back();
        break;
      case ',':
        if (!open.empty() && open.back().array) ++open.back().index;
        break;
      case ':':
        if (!open.empty() && !open.back().array) open.back().key = last_string;
        break;
      default: break;
    }
  }
  return std::nullopt;
}

std::optional<Json> parse_json_record(std::string_view text, std::size_t max_bytes) {
  if (check_json_text(text, "record", "", max_bytes)) return std::nullopt;
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::optional<Json> parse_json_text(std::string_view text, std::string_view where,
                                    const std::string& path, Issues& issues,
                                    std::size_t max_bytes) {
  if (auto issue = check_json_text(text, where, path, max_bytes)) {
    issues.push_back(std::move(*issue));
    return std::nullopt;
  }
  DomBuilder dom(where, path);
  try {
    if (Json::sax_parse(text.begin(), text.end(), &dom) && !dom.failed && !dom.limit) {
      issues.insert(issues.end(), dom.duplicates.begin(), dom.duplicates.end());
      if (dom.more_duplicates > 0)
        issues.push_back({path,
                          "... and " + std::to_string(dom.more_duplicates) +
                              " more duplicate keys in " + std::string(where),
                          "", "each key at most once per object"});
      return std::move(dom.root);
    }
  } catch (const Json::exception& e) {
    issues.push_back({path, "cannot parse " + std::string(where) + ": " + e.what(), "", ""});
    return std::nullopt;
  }
  if (dom.limit) {
    issues.push_back(std::move(*dom.limit));
  } else if (dom.error_id == 406) {
    // Numbers beyond double range ("number overflow parsing '1e400'"); locate the token in the
    // text to give a line.
    std::string msg = parse_error_detail(dom.error_what);
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
  } else {
    // The position is the 1-based count of bytes read; the offending byte is the last one read.
    const std::size_t byte = dom.error_position;
    const auto [line, column] = line_column(text, byte == 0 ? 0 : byte - 1);
    issues.push_back({path,
                      "JSON syntax error in " + std::string(where) + " at line " +
                          std::to_string(line) + ", column " + std::to_string(column) + ": " +
                          parse_error_detail(dom.error_what),
                      "", "valid JSON (RFC 8259)"});
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
