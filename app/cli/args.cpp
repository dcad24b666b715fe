// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/cli/args.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>

namespace stackscope::cli {

CliError::CliError(std::string line) : CliError(std::vector<std::string>{std::move(line)}) {}

CliError::CliError(std::vector<std::string> lines)
    : std::runtime_error(lines.empty() ? std::string("bad input") : lines.front()),
      lines_(std::move(lines)) {}

std::optional<std::string> ParsedArgs::get(std::string_view option) const {
  auto it = values.find(option);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::string option_names(std::span<const OptionSpec> options) {
  std::string s;
  for (const auto& o : options) {
    if (!s.empty()) s += ", ";
    s += o.name;
  }
  return s;
}

namespace {

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

const OptionSpec* find_option(std::span<const OptionSpec> options, std::string_view name) {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

ParsedArgs parse_args(std::string_view command, std::span<const std::string> args,
                      std::span<const OptionSpec> options, std::size_t max_positional) {
  const std::string where(command);
  ParsedArgs parsed;
  bool options_done = false;  // after "--" everything is positional
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-' || arg == "-") {
      if (parsed.positional.size() >= max_positional) {
        throw CliError(where + ": unexpected argument " + quoted(arg) +
                       (max_positional == 0 ? " (this command takes no positional arguments)"
                                            : " (at most " + std::to_string(max_positional) +
                                                  " positional argument(s))"));
      }
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (name == "-h") name = "--help";
    const OptionSpec* spec = find_option(options, name);
    if (spec == nullptr) {
      throw CliError(where + ": unknown option " + quoted(name) +
                     " (allowed: " + option_names(options) + ")");
    }
    if (parsed.has(name)) throw CliError(where + ": option " + name + " given more than once");
    if (spec->value_name.empty()) {
      if (inline_value) throw CliError(where + ": option " + name + " takes no value");
      parsed.values.emplace(name, std::string());
      continue;
    }
    if (inline_value) {
      parsed.values.emplace(name, *inline_value);
      continue;
    }
    // A following "--x" is another option, not a value: "--tp --json" is a missing value.
    // Negative numbers are still caught, with a clearer message, by parse_int's range check.
    if (i + 1 >= args.size() ||
        (args[i + 1].size() > 2 && args[i + 1][0] == '-' && args[i + 1][1] == '-')) {
      throw CliError(where + ": option " + name + " needs a value (" + spec->value_name + ")");
    }
    parsed.values.emplace(name, args[++i]);
  }
  return parsed;
}

std::int64_t parse_int(std::string_view option, std::string_view text, std::int64_t min,
                       std::int64_t max) {
  const std::string allowed =
      "allowed: integer " + std::to_string(min) + ".." + std::to_string(max);
  std::int64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != last) {
    throw CliError(std::string(option) + ": not an integer: " + quoted(text) + " (" + allowed +
                   ")");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    throw CliError(std::string(option) + ": out of range: " + quoted(text) + " (" + allowed + ")");
  }
  return value;
}

std::int64_t parse_bytes(std::string_view option, std::string_view text, std::int64_t min,
                         std::int64_t max) {
  const std::string allowed = "allowed: integer bytes " + std::to_string(min) + ".." +
                              std::to_string(max) + ", optionally with suffix K, M or G";
  int shift = 0;
  std::string_view digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
      case 'k': shift = 10; break;
      case 'M':
      case 'm': shift = 20; break;
      case 'G':
      case 'g': shift = 30; break;
      default: break;
    }
    if (shift != 0) digits.remove_suffix(1);
  }
  std::int64_t value = 0;
  const char* last = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), last, value);
  if (digits.empty() || ec == std::errc::invalid_argument || ptr != last) {
    throw CliError(std::string(option) + ": not a byte count: " + quoted(text) + " (" + allowed +
                   ")");
  }
  // Byte counts are never negative; overflow of the suffix multiplication counts as out of
  // range, like from_chars' own.
  const bool overflow = ec == std::errc::result_out_of_range || value < 0 ||
                        value > (std::numeric_limits<std::int64_t>::max() >> shift);
  const std::int64_t bytes = overflow ? 0 : value * (std::int64_t{1} << shift);
  if (overflow || bytes < min || bytes > max)
    throw CliError(std::string(option) + ": out of range: " + quoted(text) + " (" + allowed + ")");
  return bytes;
}

double parse_double(std::string_view option, std::string_view text, double min, double max) {
  char range[96];
  std::snprintf(range, sizeof range, "allowed: number %g..%g", min, max);
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != last) {
    throw CliError(std::string(option) + ": not a number: " + quoted(text) + " (" + range + ")");
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(value) || value < min || value > max) {
    throw CliError(std::string(option) + ": out of range: " + quoted(text) + " (" + range + ")");
  }
  return value;
}

}  // namespace stackscope::cli
