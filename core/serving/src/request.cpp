// SPDX-License-Identifier: GPL-3.0-or-later
// Trace files (Azure LLM inference CSV and the plain format), time scaling and closed benchmarks.
// One pass over the text with std::from_chars, no iostreams or locale: the 19k-row Azure trace
// parses in about a millisecond.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include "stackscope/common/issue.hpp"
#include "stackscope/serving/request.hpp"

namespace stackscope::serving {
namespace {

constexpr std::size_t kMaxListedIssues = 20;
constexpr std::size_t kMaxValueChars = 80;  // an offending value longer than this is cut

constexpr std::array<std::string_view, 3> kAzureHeader = {"TIMESTAMP", "ContextTokens",
                                                          "GeneratedTokens"};
constexpr std::array<std::string_view, 3> kPlainHeader = {"arrival_s", "input_tokens",
                                                          "output_tokens"};
constexpr std::string_view kAzureHeaderText = "TIMESTAMP,ContextTokens,GeneratedTokens";
constexpr std::string_view kPlainHeaderText = "arrival_s,input_tokens,output_tokens";
constexpr std::string_view kTimestampForm =
    "YYYY-MM-DD HH:MM:SS[.fraction] (UTC, 0-9 fractional digits)";
constexpr std::string_view kTokensAllowed = "whole number in [1, 2147483647]";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Shortest text that reads back to the same double.
std::string num(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string shown(std::string_view s) {
  if (s.size() <= kMaxValueChars) return std::string(s);
  return std::string(s.substr(0, kMaxValueChars)) + "...";
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Splits one line at commas into at most `out.size()` fields; returns the field count (which
// may exceed out.size(): the extra fields are counted, not stored).
template <std::size_t N>
std::size_t split_fields(std::string_view line, std::array<std::string_view, N>& out) {
  std::size_t count = 0;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    if (count < N) out[count] = trim(line.substr(pos, end - pos));
    ++count;
    if (comma == std::string_view::npos) return count;
    pos = comma + 1;
  }
}

template <std::size_t N>
bool header_is(const std::array<std::string_view, 3>& fields, std::size_t count,
               const std::array<std::string_view, N>& expected) {
  if (count != N) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (!iequals(fields[i], expected[i])) return false;
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil): exact integer arithmetic, no time zone or locale.
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);                 // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

unsigned days_in_month(long long y, unsigned m) {
  static constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

struct Timestamp {
  long long seconds = 0;  // since 1970-01-01 00:00:00 UTC
  long long nanos = 0;    // [0, 1e9)
};

// "YYYY-MM-DD HH:MM:SS[.fraction]" ('T' is accepted for the space, as ISO 8601 writes it).
// Returns a reason on failure.
std::optional<Timestamp> parse_timestamp(std::string_view s, std::string& why) {
  const auto digits = [&](std::size_t pos, std::size_t n, unsigned& value) {
    if (pos + n > s.size()) return false;
    value = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      value = value * 10 + unsigned(s[i] - '0');
    }
    return true;
  };
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (s.size() < 19 || !digits(0, 4, year) || s[4] != '-' || !digits(5, 2, month) || s[7] != '-' ||
      !digits(8, 2, day) || (s[10] != ' ' && s[10] != 'T') || !digits(11, 2, hour) ||
      s[13] != ':' || !digits(14, 2, minute) || s[16] != ':' || !digits(17, 2, second)) {
    why = "timestamp is not in the form " + std::string(kTimestampForm);
    return std::nullopt;
  }
  long long nanos = 0;
  if (s.size() > 19) {
    const std::size_t n = s.size() - 20;
    unsigned fraction = 0;
    if (s[19] != '.' || n == 0 || n > 9 || !digits(20, n, fraction)) {
      why = "timestamp has a bad fraction of a second";
      return std::nullopt;
    }
    nanos = fraction;
    for (std::size_t i = n; i < 9; ++i) nanos *= 10;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) {
    why = "timestamp has no such date";
    return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 59) {  // leap seconds (:60) are not represented
    why = "timestamp has no such time of day";
    return std::nullopt;
  }
  const long long days = days_from_civil(year, month, day);
  return Timestamp{days * 86400 + hour * 3600LL + minute * 60LL + second, nanos};
}

// Seconds from `t0` to `t`, correctly rounded from the exact nanosecond difference.
double seconds_between(const Timestamp& t0, const Timestamp& t) {
  const long long ds = t.seconds - t0.seconds;
  const long long dn = t.nanos - t0.nanos;
  if (std::llabs(ds) < 9'000'000'000LL)  // ~285 years: the nanoseconds fit in 63 bits
    return static_cast<double>(ds * 1'000'000'000LL + dn) / 1e9;
  return static_cast<double>(ds) + static_cast<double>(dn) / 1e9;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view source, TraceFormat format)
      : text_(text), source_(source), format_(format) {}

  std::vector<Request> run(TraceStats* stats) {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);  // UTF-8 byte-order mark
    requests_.reserve(static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
    int number = 0;
    bool have_header = false;
    int header_line = 0;
    for (std::size_t pos = 0; pos <= text_.size();) {
      std::size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      pos = end + 1;
      ++number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (trim(line).empty()) continue;
      if (!have_header) {
        if (!header(line, number)) break;
        have_header = true;
        header_line = number;
        continue;
      }
      row(line, number);
    }
    if (issues_.empty() && !have_header)
      add(1, "empty trace: no header and no requests", "", headers_allowed());
    if (issues_.empty() && requests_.empty())
      add(header_line, "no requests after the header", "", "one request per line");
    if (!issues_.empty()) {
      if (dropped_ > 0)
        issues_.push_back(
            {std::string(source_), std::to_string(dropped_) + " more issues not listed", "", ""});
      throw ConfigError(std::move(issues_));
    }
    if (stats) {
      stats->rows = requests_.size();
      stats->zero_outputs = zero_outputs_;
      stats->duration_s = requests_.back().arrival_s;
    }
    return std::move(requests_);
  }

 private:
  static std::string headers_allowed() {
    return std::string(kAzureHeaderText) + " (azure) or " + std::string(kPlainHeaderText) +
           " (plain)";
  }

  void add(int line, std::string message, std::string value, std::string allowed) {
    if (issues_.size() >= kMaxListedIssues) {
      ++dropped_;
      return;
    }
    issues_.push_back({std::string(source_) + ":" + std::to_string(line), std::move(message),
                       std::move(value), std::move(allowed)});
  }

  // Sets the format from the header; false (with an issue) when there is no usable header.
  bool header(std::string_view line, int number) {
    std::array<std::string_view, 3> f;
    const std::size_t count = split_fields(line, f);
    const bool azure = header_is(f, count, kAzureHeader);
    const bool plain = header_is(f, count, kPlainHeader);
    if (format_ == TraceFormat::automatic && (azure || plain)) {
      format_ = azure ? TraceFormat::azure : TraceFormat::plain;
      return true;
    }
    if ((format_ == TraceFormat::azure && azure) || (format_ == TraceFormat::plain && plain))
      return true;
    const bool data = !f[0].empty() && ((f[0][0] >= '0' && f[0][0] <= '9') || f[0][0] == '.');
    std::string allowed = format_ == TraceFormat::azure   ? std::string(kAzureHeaderText)
                          : format_ == TraceFormat::plain ? std::string(kPlainHeaderText)
                                                          : headers_allowed();
    if (data)
      add(number, "missing header: the first line is a data row", shown(line),
          "a header line: " + allowed);
    else if (azure || plain)
      add(number,
          std::string("header is the ") + (azure ? "azure" : "plain") + " format's, but the " +
              (azure ? "plain" : "azure") + " format was asked for",
          shown(line), allowed);
    else
      add(number, "unknown trace header", shown(line), allowed);
    return false;
  }

  // A token count; `zero_to_one` raises 0 to 1 (Azure GeneratedTokens).
  std::optional<int> tokens(std::string_view field, std::string_view name, int number,
                            bool zero_to_one) {
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty()) {
      add(number, std::string(name) + " is empty", "", std::string(kTokensAllowed));
      return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && ptr == field.data() + field.size() &&
         v > std::numeric_limits<int>::max())) {
      add(number, std::string(name) + " is too large", shown(field), std::string(kTokensAllowed));
      return std::nullopt;
    }
    if (ec != std::errc() || ptr != field.data() + field.size()) {
      add(number, std::string(name) + " is not a whole number", shown(field),
          std::string(kTokensAllowed));
      return std::nullopt;
    }
    if (v == 0 && zero_to_one) {
      ++zero_outputs_;
      return 1;
    }
    if (v < 1) {
      add(number, std::string(name) + " must be >= 1", shown(field), std::string(kTokensAllowed));
      return std::nullopt;
    }
    return static_cast<int>(v);
  }

  void row(std::string_view line, int number) {
    std::array<std::string_view, 3> f;
    const std::size_t count = split_fields(line, f);
    if (count != 3) {
      add(number, "expected 3 comma-separated fields, got " + std::to_string(count), shown(line),
          std::string(format_ == TraceFormat::azure ? kAzureHeaderText : kPlainHeaderText));
      return;
    }
    const bool azure = format_ == TraceFormat::azure;
    double arrival = 0;
    if (azure) {
      std::string why;
      const auto t = parse_timestamp(f[0], why);
      if (!t) {
        add(number, "bad TIMESTAMP: " + why, shown(f[0]), std::string(kTimestampForm));
        return;
      }
      if (!first_) first_ = *t;
      arrival = seconds_between(*first_, *t);
    } else {
      const auto [ptr, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), arrival);
      if (f[0].empty() || ec != std::errc() || ptr != f[0].data() + f[0].size()) {
        add(number, "arrival_s is not a number", shown(f[0]), "finite seconds >= 0");
        return;
      }
      if (!std::isfinite(arrival) || arrival < 0) {
        add(number, "arrival_s must be finite and >= 0", shown(f[0]), "finite seconds >= 0");
        return;
      }
    }
    if (arrival > kMaxStreamSeconds) {
      add(number,
          std::string(azure ? "TIMESTAMP is " + num(arrival) + " s after the first row's"
                            : "arrival_s is " + num(arrival) + " s") +
              ", more than 366 days into the stream",
          shown(f[0]),
          "arrivals within 366 days (" + num(kMaxStreamSeconds) + " s) of the start");
      return;
    }
    const auto input = tokens(f[1], azure ? kAzureHeader[1] : kPlainHeader[1], number, false);
    if (!input) return;
    const auto output = tokens(f[2], azure ? kAzureHeader[2] : kPlainHeader[2], number, azure);
    if (!output) return;
    if (previous_line_ > 0 && arrival < previous_arrival_) {
      add(number, "row is out of time order: earlier than line " + std::to_string(previous_line_),
          shown(f[0]), "rows in non-decreasing time order");
      return;
    }
    previous_line_ = number;
    previous_arrival_ = arrival;
    if (issues_.empty())  // after the first issue only checking goes on
      requests_.push_back({requests_.size(), arrival, *input, *output});
  }

  std::string_view text_;
  std::string_view source_;
  TraceFormat format_;
  std::vector<Request> requests_;
  std::vector<Issue> issues_;
  std::size_t dropped_ = 0;
  std::size_t zero_outputs_ = 0;
  std::optional<Timestamp> first_;
  int previous_line_ = 0;
  double previous_arrival_ = 0;
};

}  // namespace

std::vector<Request> parse_trace(std::string_view text, std::string_view source, TraceFormat format,
                                 TraceStats* stats) {
  return Parser(text, source, format).run(stats);
}

std::vector<Request> scale_time(std::vector<Request> requests, double rate_scale) {
  if (!(rate_scale > 0) || !std::isfinite(rate_scale))
    throw std::invalid_argument("scale_time: rate_scale must be finite and > 0 (got " +
                                num(rate_scale) + ")");
  for (auto& r : requests) r.arrival_s /= rate_scale;
  if (!requests.empty() && requests.back().arrival_s > kMaxStreamSeconds)
    throw std::invalid_argument("time scale " + num(rate_scale) + " spreads the trace over " +
                                num(requests.back().arrival_s) +
                                " s, more than 366 days (allowed: a time scale of at least the "
                                "trace's span / " +
                                num(kMaxStreamSeconds) + " s)");
  return requests;
}

std::vector<Request> benchmark(std::size_t requests, int input_tokens, int output_tokens) {
  if (input_tokens < 1 || output_tokens < 1)
    throw std::invalid_argument("benchmark: input_tokens and output_tokens must be >= 1 (got " +
                                std::to_string(input_tokens) + ", " +
                                std::to_string(output_tokens) + ")");
  std::vector<Request> out(requests);
  for (std::size_t i = 0; i < requests; ++i) out[i] = {i, 0.0, input_tokens, output_tokens};
  return out;
}

}  // namespace stackscope::serving
