// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CSV record reader core/io's table formats share (silicon samples, kernel tables).
// Private to core/io.
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

}  // namespace stackscope::io::detail
