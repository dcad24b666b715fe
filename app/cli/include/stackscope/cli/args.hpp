// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Strict command-line parsing: unknown options, missing values and malformed numbers are
// errors that name the option, the bad text and what is allowed (never a silent default).
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stackscope::cli {

// Bad input to the CLI. Each line is one complete reason, printed as "error: <line>".
class CliError : public std::runtime_error {
 public:
  explicit CliError(std::string line);
  explicit CliError(std::vector<std::string> lines);
  const std::vector<std::string>& lines() const noexcept { return lines_; }

 private:
  std::vector<std::string> lines_;
};

struct OptionSpec {
  std::string name;        // "--tp"
  std::string value_name;  // "N"; empty for a flag that takes no value
  std::string help;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string, std::less<>> values;  // option -> value ("" for flags)

  bool has(std::string_view option) const { return values.find(option) != values.end(); }
  std::optional<std::string> get(std::string_view option) const;
};

// Accepts "--opt value" and "--opt=value"; "-h" is an alias of "--help". A repeated option is
// an error (which one wins would be a guess). `command` prefixes the messages.
ParsedArgs parse_args(std::string_view command, std::span<const std::string> args,
                      std::span<const OptionSpec> options, std::size_t max_positional);

// Whole-string integer in [min, max] (std::from_chars: no sign tricks, no trailing junk).
std::int64_t parse_int(std::string_view option, std::string_view text, std::int64_t min,
                       std::int64_t max);
// Whole-string finite number in [min, max].
double parse_double(std::string_view option, std::string_view text, double min, double max);

// Byte count: a whole integer with an optional binary suffix K, M or G (2^10, 2^20, 2^30;
// lower case accepted), e.g. "4096", "64K", "1G". Must lie in [min, max] bytes.
std::int64_t parse_bytes(std::string_view option, std::string_view text, std::int64_t min,
                         std::int64_t max);

// "--tp" etc. as one comma-separated list, for "allowed:" parts of messages.
std::string option_names(std::span<const OptionSpec> options);

}  // namespace stackscope::cli
