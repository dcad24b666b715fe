// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to core/io: the strict JSON reader, the writer and the JSON text helpers.
// nlohmann::ordered_json keeps keys in struct-member order on output and in file order on
// input, so saved projects read like the structs they came from.
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/limits.hpp"

namespace stackscope::io::detail {

using Json = nlohmann::ordered_json;
using Issues = std::vector<Issue>;

// JSON pointer helpers (RFC 6901: '~' -> "~0", '/' -> "~1").
std::string escape_pointer_token(std::string_view key);
std::string child_path(const std::string& parent, std::string_view key);
std::string child_path(const std::string& parent, std::size_t index);

// Short JSON text of a value for messages ("\"x\"", "2.5", "{...}" truncated).
std::string value_text(const Json& j);
// "string", "integer", "number", "boolean", "null", "array", "object".
std::string type_text(const Json& j);
// The known key closest to `key` (case-insensitive edit distance, or a prefix), if it is
// close enough to be a typo; "" otherwise.
std::string suggest_key(const std::string& key, const std::vector<std::string>& known);
// Issues for the keys of `obj` not in `known` (with a did-you-mean), at "<path>/<key>".
void unknown_keys(const Json& obj, const std::string& path, const std::vector<std::string>& known,
                  Issues& issues);
// A list of numbers, or a range object {min, max, step} / {min, max, factor} expanded by
// search::linear_range / geometric_range; issues at `path` (defined in search_json.cpp).
std::vector<double> read_values(const Json& j, const std::string& path, Issues& issues);
// FNV-1a 64 of `text` as 16 hex digits (search and co-exploration space fingerprints).
std::string fingerprint(std::string_view text);
// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// The one entry to nlohmann's parser: every JSON text core/io reads (project, preset, search
// and reference files, log records, routing traces) goes through parse_json_text,
// parse_json_record or sax_parse_json_text, and each of them first runs check_json_text on the
// raw text. No nlohmann::json::parse elsewhere: a DOM built from a 10^5-deep value overflows
// the stack when it is copied, whatever reads it next.
//
// The checks on the raw text, before any parse: at most `max_bytes` bytes, and brackets nested
// at most limits::kMaxJsonDepth deep outside strings (a linear scan keeping one frame per open
// container, so it costs nothing like the document). The issue names the first container past
// the limit by its JSON pointer (prefixed with `path`); nullopt when the text passes.
std::optional<Issue> check_json_text(std::string_view text, std::string_view where,
                                     const std::string& path,
                                     std::size_t max_bytes = limits::kMaxProjectFileBytes);

// Parses JSON text strictly. The limits of io/limits.hpp (size and depth first, on the raw
// text; then values, array elements, object members and string bytes while building), syntax
// errors (with line and column computed from the byte offset), out-of-range numbers and
// duplicate keys become issues at `path` (prefixed to the pointer of duplicates and limits);
// `where` names the text in messages ("project", "preset 'x'", a file path). Returns nullopt
// when the text is not JSON or is past a limit.
std::optional<Json> parse_json_text(std::string_view text, std::string_view where,
                                    const std::string& path, Issues& issues,
                                    std::size_t max_bytes = limits::kMaxProjectFileBytes);

// A record core/io wrote itself (a log line, a frontier file read back): check_json_text, then
// nlohmann's DOM parser. nullopt for text past a limit or not JSON (a line cut short by a kill,
// a damaged file), so a reader can stop or report there.
std::optional<Json> parse_json_record(std::string_view text,
                                      std::size_t max_bytes = limits::kMaxProjectFileBytes);

// Streams `text` to `sax` (a streamed reader such as the routing traces') after
// check_json_text; an issue past a limit, and false without parsing.
template <class Sax>
bool sax_parse_json_text(std::string_view text, Sax* sax, std::string_view where,
                         const std::string& path, Issues& issues, std::size_t max_bytes) {
  if (auto issue = check_json_text(text, where, path, max_bytes)) {
    issues.push_back(std::move(*issue));
    return false;
  }
  return nlohmann::json::sax_parse(text, sax);
}

// Serialises; invalid UTF-8 in strings is replaced rather than throwing.
std::string dump(const Json& j, int indent);

// A JSON integer that fits T exactly; nullopt for a float (get<int>() on 1e30 would be an
// out-of-range float conversion, undefined behaviour), a negative value for an unsigned T (it
// would wrap) or anything out of T's range.
template <class T>
std::optional<T> exact_integer(const Json& j) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  } else if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  }
  return std::nullopt;
}

// exact_integer, or Json::other_error (caught with the parse errors of the record).
template <class T>
T integer_at(const Json& j, const char* key) {
  if (auto v = exact_integer<T>(j.at(key))) return *v;
  throw Json::other_error::create(501, std::string("'") + key + "' is not an integer in range", &j);
}

// Enum <-> string tables. Explicit tables rather than NLOHMANN_JSON_SERIALIZE_ENUM because
// that macro maps unknown strings to the first enumerator, i.e. silently defaults.
template <class E>
struct EnumTable;  // static constexpr std::string_view what; static constexpr std::array entries

template <class E>
concept TabledEnum = std::is_enum_v<E> && requires {
  EnumTable<E>::entries;
};

template <TabledEnum E>
std::string_view enum_name(E value) {
  for (const auto& [e, name] : EnumTable<E>::entries)
    if (e == value) return name;
  return "?";
}

template <TabledEnum E>
std::string enum_names() {
  std::vector<std::string> names;
  for (const auto& entry : EnumTable<E>::entries) names.emplace_back(entry.second);
  return join(names);
}

// Scalar readers: on a wrong type or value they add one issue and leave `out` untouched.
void read_value(const Json& j, const std::string& path, int& out, Issues& issues);
void read_value(const Json& j, const std::string& path, std::uint64_t& out, Issues& issues);
void read_value(const Json& j, const std::string& path, double& out, Issues& issues);
void read_value(const Json& j, const std::string& path, bool& out, Issues& issues);
void read_value(const Json& j, const std::string& path, std::string& out, Issues& issues);

template <TabledEnum E>
void read_value(const Json& j, const std::string& path, E& out, Issues& issues) {
  const std::string allowed = "one of: " + enum_names<E>();
  if (!j.is_string()) {
    issues.push_back(
        {path, "expected " + std::string(EnumTable<E>::what) + " string, got " + type_text(j),
         value_text(j), allowed});
    return;
  }
  const auto& s = j.get_ref<const std::string&>();
  for (const auto& [e, name] : EnumTable<E>::entries) {
    if (name == s) {
      out = e;
      return;
    }
  }
  issues.push_back({path, "unknown " + std::string(EnumTable<E>::what) + " '" + s + "'",
                    value_text(j), allowed});
}

// Visits the members of an aggregate object: the reader reads each present key into the
// member and afterwards reports keys nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string path, Issues& issues)
      : object_(object), path_(std::move(path)), issues_(issues) {}

  // Keys accepted without being read (preset metadata such as "notes").
  void allow(std::initializer_list<std::string_view> keys) {
    for (auto k : keys) extra_.emplace_back(k);
  }

  template <class T>
  void operator()(std::string_view key, T& member);

  // Reports every key that is neither a member nor allowed, with a spelling suggestion.
  void finish();

  const std::string& path() const { return path_; }

 private:
  const Json& object_;
  std::string path_;
  Issues& issues_;
  std::vector<std::string> known_;
  std::vector<std::string> extra_;
};

class ObjectWriter {
 public:
  template <class T>
  void operator()(std::string_view key, const T& member);
  Json object = Json::object();
};

// A type with a describe(visitor, value) overload in mapping.hpp.
template <class T>
concept Described = std::is_class_v<T> && requires(ObjectWriter& w, const T& t) {
  describe(w, t);
};

template <Described T>
void read_value(const Json& j, const std::string& path, T& out, Issues& issues);
template <Described T>
void read_value(const Json& j, const std::string& path, std::vector<T>& out, Issues& issues);

Json write_value(int v);
Json write_value(std::uint64_t v);
Json write_value(double v);  // non-finite -> null, so the text stays valid JSON
Json write_value(bool v);
Json write_value(const std::string& v);
template <TabledEnum E>
Json write_value(E v) {
  return Json(std::string(enum_name(v)));
}
template <Described T>
Json write_value(const T& v);
template <Described T>
Json write_value(const std::vector<T>& v);

}  // namespace stackscope::io::detail
