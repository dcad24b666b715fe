// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CSV record reader core/io's table formats share (silicon samples, kernel tables).
// Private to core/io.
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/common/issue.hpp"

namespace stackscope::io::detail {

// RFC 4180 records: fields separated by ',', records by LF or CRLF, a field in double quotes
// may hold ',', CR, LF and "" (one quote). `line` is the line a record starts on (1-based).
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : s_(text) {}
  // False at the end of the text. Throws ConfigError for a quote left open or text after a
  // closing quote.
  bool next(std::vector<std::string>& fields, std::size_t& line, const std::string& name) {
    fields.clear();
    // Blank lines between records are skipped (a trailing newline, an editor's empty last line).
    while (pos_ < s_.size() && (s_[pos_] == '\n' || s_[pos_] == '\r')) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= s_.size()) return false;
    line = line_;
    std::string field;
    while (true) {
      if (pos_ < s_.size() && s_[pos_] == '"') {
        ++pos_;
        while (true) {
          if (pos_ >= s_.size())
            throw ConfigError({{name + ":" + std::to_string(line), "a quoted field is never closed",
                                "", "RFC 4180 CSV"}});
          const char c = s_[pos_++];
          if (c == '"') {
            if (pos_ < s_.size() && s_[pos_] == '"') {
              field.push_back('"');
              ++pos_;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line_;
            field.push_back(c);
          }
        }
        if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n' && s_[pos_] != '\r')
          throw ConfigError({{name + ":" + std::to_string(line_), "text after a closing quote",
                              std::string(1, s_[pos_]), "',' or the end of the line"}});
      } else {
        while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n' && s_[pos_] != '\r')
          field.push_back(s_[pos_++]);
      }
      fields.push_back(std::move(field));
      field.clear();
      if (pos_ >= s_.size()) return true;
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '\r') ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '\n') {
        ++pos_;
        ++line_;
      }
      return true;
    }
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

// A value as an error message shows it: at most 40 characters.
inline std::string shown(const std::string& v) {
  return v.size() > 40 ? v.substr(0, 40) + "..." : v;
}

// The header row of a table read by column name.
struct CsvHeader {
  std::map<std::string, std::size_t> col;  // name -> field index
  std::size_t width = 0;                   // fields in the header: every row has as many
};

// The text without a UTF-8 byte-order mark (spreadsheet exports), which is not part of the
// first column's name.
inline std::string_view without_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

// Reads the header row from `reader`: an empty text, a column named twice (ambiguous) or a
// missing `required` column throws ConfigError at "<name>:<line>", saying the file should hold
// a header row and `rows`, and showing `header` (the expected header) for a missing column.
inline CsvHeader read_header(CsvReader& reader, std::size_t& line, const std::string& name,
                             std::initializer_list<const char*> required, const std::string& rows,
                             const std::string& header) {
  std::vector<std::string> fields;
  if (!reader.next(fields, line, name))
    throw ConfigError({{name, "empty file", "", "a header row and " + rows}});
  CsvHeader h;
  h.width = fields.size();
  std::vector<Issue> issues;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (!h.col.emplace(fields[i], i).second && !fields[i].empty())
      issues.push_back({name + ":" + std::to_string(line), "duplicate column", shown(fields[i]),
                        "each column named once"});
  for (const char* key : required)
    if (!h.col.contains(key))
      issues.push_back({name + ":" + std::to_string(line), "missing column", key, header});
  if (!issues.empty()) throw ConfigError(std::move(issues));
  return h;
}

}  // namespace stackscope::io::detail
