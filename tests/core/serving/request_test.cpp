// SPDX-License-Identifier: GPL-3.0-or-later
// Request streams: the shipped Azure traces, every class of malformed trace (each naming its
// file:line), the generators' statistics and determinism, scale_time, benchmark and
// parse_length_dist.
#include "stackscope/serving/request.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/read_file.hpp"

namespace stackscope::serving {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::filesystem::path kTraces = std::filesystem::path(STACKSCOPE_DATA_DIR) / "azure-llm-2023";

// A shipped trace's text (gzip, decompressed by the readers' own io::read_text_file).
std::string read_gz(const std::filesystem::path& file) {
  return io::read_text_file(file, file.string(), std::size_t{64} << 20);
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

long long total_input(const std::vector<Request>& rs) {
  return std::accumulate(rs.begin(), rs.end(), 0LL,
                         [](long long sum, const Request& r) { return sum + r.input_tokens; });
}
long long total_output(const std::vector<Request>& rs) {
  return std::accumulate(rs.begin(), rs.end(), 0LL,
                         [](long long sum, const Request& r) { return sum + r.output_tokens; });
}

void expect_well_formed(const std::vector<Request>& rs) {
  for (std::size_t i = 0; i < rs.size(); ++i) {
    ASSERT_EQ(rs[i].id, i);
    ASSERT_GE(rs[i].input_tokens, 1);
    ASSERT_GE(rs[i].output_tokens, 1);
    if (i > 0) {
      ASSERT_GE(rs[i].arrival_s, rs[i - 1].arrival_s) << "request " << i;
    }
  }
}

bool same(const std::vector<Request>& a, const std::vector<Request>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].arrival_s != b[i].arrival_s ||
        a[i].input_tokens != b[i].input_tokens || a[i].output_tokens != b[i].output_tokens)
      return false;
  return true;
}

// ---- The shipped traces ----
// Golden values from the files themselves: rows = `wc -l` + 1 (neither file ends in a newline;
// the header is line 1), token totals by `awk -F, 'NR>1{i+=$2; o+=$3}'`, first/last arrival
// from the first and last TIMESTAMP (conv: 18:15:46.6805900 .. 19:14:08.4025270).
TEST(Trace, AzureConversationTrace) {
  TraceStats stats;
  const auto rs = parse_trace(read_gz(kTraces / "conv.csv.gz"), "conv.csv",
                              TraceFormat::automatic, &stats);
  ASSERT_EQ(rs.size(), 19366u);
  expect_well_formed(rs);
  EXPECT_EQ(stats.rows, 19366u);
  EXPECT_EQ(stats.zero_outputs, 0u);
  EXPECT_EQ(rs.front().arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(rs.back().arrival_s, 3501.721937);  // 58 min 21.721937 s
  EXPECT_DOUBLE_EQ(stats.duration_s, 3501.721937);
  EXPECT_DOUBLE_EQ(rs[1].arrival_s, 4.314579);  // 18:15:50.9951690 - 18:15:46.6805900
  EXPECT_EQ(rs.front().input_tokens, 374);
  EXPECT_EQ(rs.front().output_tokens, 44);
  EXPECT_EQ(rs.back().input_tokens, 197);
  EXPECT_EQ(rs.back().output_tokens, 183);
  EXPECT_EQ(total_input(rs), 22361870);
  EXPECT_EQ(total_output(rs), 4088665);
}

// Code trace: 18:17:03.9799600 .. 19:14:19.9280160.
TEST(Trace, AzureCodeTrace) {
  TraceStats stats;
  const auto rs = parse_trace(read_gz(kTraces / "code.csv.gz"), "code.csv",
                              TraceFormat::azure, &stats);
  ASSERT_EQ(rs.size(), 8819u);
  expect_well_formed(rs);
  EXPECT_EQ(rs.front().arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(rs[1].arrival_s, 0.052);  // .0319600 - .9799600 a second earlier
  EXPECT_DOUBLE_EQ(rs.back().arrival_s, 3435.948056);
  EXPECT_DOUBLE_EQ(stats.duration_s, 3435.948056);
  EXPECT_EQ(rs.back().input_tokens, 549);
  EXPECT_EQ(rs.back().output_tokens, 173);
  EXPECT_EQ(total_input(rs), 18059974);
  EXPECT_EQ(total_output(rs), 245896);
}

TEST(Trace, AzureTimestampsAreExactCalendarArithmetic) {
  const auto arrivals = [](const std::vector<std::string>& stamps) {
    std::string text = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    for (const auto& s : stamps) text += s + ",1,1\n";
    std::vector<double> out;
    for (const auto& r : parse_trace(text, "t.csv")) out.push_back(r.arrival_s);
    return out;
  };
  // No fraction, fewer digits than Azure's 7, all 9; 'T' for the space.
  auto t = arrivals({"2023-11-16 18:17:03", "2023-11-16 18:17:03.5", "2023-11-16T18:17:03.75",
                     "2023-11-16 18:17:04.000000001"});
  EXPECT_EQ(t[1], 0.5);
  EXPECT_EQ(t[2], 0.75);
  EXPECT_DOUBLE_EQ(t[3], 1.000000001);
  // Year, leap-day and century boundaries (2024 is a leap year, 2100 is not, 2000 is).
  t = arrivals({"2023-12-31 23:59:59.9", "2024-01-01 00:00:00.1"});
  EXPECT_DOUBLE_EQ(t[1], 0.2);
  t = arrivals({"2024-02-28 00:00:00", "2024-03-01 00:00:00"});
  EXPECT_EQ(t[1], 2 * 86400.0);
  t = arrivals({"2100-02-28 00:00:00", "2100-03-01 00:00:00"});
  EXPECT_EQ(t[1], 86400.0);
  t = arrivals({"2000-02-28 00:00:00", "2000-03-01 00:00:00"});
  EXPECT_EQ(t[1], 2 * 86400.0);
  // 2023-11-16 is day 319 of 2023 (Python: date(2023,11,16) - date(2023,1,1)).
  t = arrivals({"2023-01-01 00:00:00", "2023-11-16 18:17:03.9799600"});
  EXPECT_DOUBLE_EQ(t[1], 319 * 86400.0 + 18 * 3600 + 17 * 60 + 3.97996);
  // A stream is at most 366 days long (kMaxStreamSeconds): 2024 is a leap year, so its last
  // second is still in, and a row a year and a day later is refused with its line.
  t = arrivals({"2024-01-01 00:00:00", "2025-01-01 00:00:00"});
  EXPECT_EQ(t[1], kMaxStreamSeconds);
  try {
    arrivals({"1970-01-01 00:00:00", "2023-11-16 18:17:03.9799600"});
    ADD_FAILURE() << "53 years of arrivals accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].path, "t.csv:3");
    EXPECT_NE(e.issues()[0].message.find("more than 366 days"), std::string::npos);
  }
}

TEST(Trace, ArrivalsPast366DaysAreRefused) {
  // Plain arrivals as written: 1e300 s is a mistake, not a stream.
  EXPECT_THROW(parse_trace("arrival_s,input_tokens,output_tokens\n0,1,1\n1e300,1,1\n", "p.csv"),
               ConfigError);
  // A time scale that stretches a valid trace past the bound, and a generator whose arrivals
  // would take 31.7 years.
  const std::vector<Request> day = {{0, 0, 1, 1}, {1, 86400, 1, 1}};
  EXPECT_NO_THROW(scale_time(day, 1.0 / 366));
  EXPECT_THROW(scale_time(day, 1.0 / 367), std::invalid_argument);
  GeneratorSpec g;
  g.arrivals.rate_per_s = 1e-6;
  g.requests = 1000;
  EXPECT_THROW(generate(g), std::invalid_argument);
}

TEST(Trace, CrlfBlankLinesAndTrailingNewlineAreTolerated) {
  const std::string lf =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:17:03.9799600,4808,10\n"
      "2023-11-16 18:17:04.0319600,3180,8";
  const std::string crlf =
      "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n\r\n"
      "2023-11-16 18:17:03.9799600, 4808 ,10\r\n"
      "   \r\n"
      "2023-11-16 18:17:04.0319600,3180,8\r\n\r\n";
  const auto a = parse_trace(lf, "lf.csv");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_TRUE(same(a, parse_trace(crlf, "crlf.csv")));
  EXPECT_TRUE(same(a, parse_trace(lf + "\n", "lf.csv")));
}

TEST(Trace, AzureZeroOutputIsRaisedToOneAndCounted) {
  TraceStats stats;
  const auto rs = parse_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,10,0\n2023-11-16 18:17:04,10,5",
      "t.csv", TraceFormat::automatic, &stats);
  EXPECT_EQ(rs[0].output_tokens, 1);
  EXPECT_EQ(rs[1].output_tokens, 5);
  EXPECT_EQ(stats.zero_outputs, 1u);
  EXPECT_EQ(stats.rows, 2u);
  EXPECT_EQ(stats.duration_s, 1.0);
}

TEST(Trace, PlainFormatKeepsArrivalsAsWrittenAndRoundTripsAGeneratedStream) {
  const auto rs = parse_trace("arrival_s,input_tokens,output_tokens\n0.5,100,10\n2.25,200,20\n",
                              "p.csv", TraceFormat::automatic);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].arrival_s, 0.5);
  EXPECT_EQ(rs[1].arrival_s, 2.25);
  EXPECT_EQ(rs[1].input_tokens, 200);

  GeneratorSpec spec;
  spec.requests = 500;
  spec.input = parse_length_dist("lognormal:256:1", "input");
  spec.output = parse_length_dist("uniform:1:300", "output");
  const auto generated = generate(spec);
  std::string text = "arrival_s,input_tokens,output_tokens\n";
  for (const auto& r : generated) {
    char buf[32];
    text.append(buf, std::to_chars(buf, buf + sizeof buf, r.arrival_s).ptr);
    for (const int tokens : {r.input_tokens, r.output_tokens}) {
      text += ',';
      text += std::to_string(tokens);
    }
    text += '\n';
  }
  EXPECT_TRUE(same(generated, parse_trace(text, "g.csv", TraceFormat::plain)));
}

// ---- Malformed traces: one issue per bad line, at "<source>:<file line>" ----
std::vector<Issue> issues_of(const std::string& text, TraceFormat format = TraceFormat::automatic) {
  try {
    (void)parse_trace(text, "bad.csv", format);
  } catch (const ConfigError& e) {
    for (const auto& i : e.issues()) EXPECT_FALSE(i.message.empty());
    return e.issues();
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return {};
}

const std::string kAzure = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string kRow = "2023-11-16 18:17:03.9799600,4808,10\n";

void expect_one(const std::vector<Issue>& issues, const std::string& path, std::string_view what,
                std::string_view value = {}) {
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, path);
  EXPECT_TRUE(contains(issues[0].message, what)) << issues[0].message;
  if (!value.empty()) {
    EXPECT_EQ(issues[0].value, value);
  }
  EXPECT_FALSE(issues[0].allowed.empty());
}

TEST(BadTrace, Timestamps) {
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:0x.1,1,1\n"), "bad.csv:3", "bad TIMESTAMP",
             "2023-11-16 18:17:0x.1");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04.,1,1\n"), "bad.csv:3", "fraction");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04.1234567890,1,1\n"), "bad.csv:3",
             "fraction");
  expect_one(issues_of(kAzure + kRow + "2023-02-29 18:17:04,1,1\n"), "bad.csv:3", "no such date");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 24:00:00,1,1\n"), "bad.csv:3", "time of day");
  expect_one(issues_of(kAzure + kRow + "1700158623.98,1,1\n"), "bad.csv:3", "form");
  expect_one(issues_of(kAzure + kRow + ",1,1\n"), "bad.csv:3", "TIMESTAMP");
}

TEST(BadTrace, PlainArrivalsMustBeFiniteAndNonNegative) {
  const std::string h = "arrival_s,input_tokens,output_tokens\n";
  expect_one(issues_of(h + "nan,1,1\n"), "bad.csv:2", "finite", "nan");
  expect_one(issues_of(h + "inf,1,1\n"), "bad.csv:2", "finite");
  expect_one(issues_of(h + "-1,1,1\n"), "bad.csv:2", ">= 0");
  expect_one(issues_of(h + "1s,1,1\n"), "bad.csv:2", "not a number", "1s");
  // Plain traces have no zero-output convention: 0 is an error there.
  expect_one(issues_of(h + "1,1,0\n"), "bad.csv:2", "output_tokens must be >= 1");
}

TEST(BadTrace, TokenCounts) {
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,-5,1\n"), "bad.csv:3",
             "ContextTokens must be >= 1", "-5");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,0,1\n"), "bad.csv:3",
             "ContextTokens must be >= 1", "0");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,12.5,1\n"), "bad.csv:3",
             "ContextTokens is not a whole number", "12.5");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,12,many\n"), "bad.csv:3",
             "GeneratedTokens is not a whole number", "many");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,1,-3\n"), "bad.csv:3",
             "GeneratedTokens must be >= 1");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,99999999999,1\n"), "bad.csv:3",
             "too large");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,,1\n"), "bad.csv:3", "empty");
}

TEST(BadTrace, RowsOutOfTimeOrder) {
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:03.9799599,1,1\n"), "bad.csv:3",
             "earlier than line 2");
  expect_one(issues_of("arrival_s,input_tokens,output_tokens\n2,1,1\n\n1,1,1\n"), "bad.csv:4",
             "earlier than line 2");
  // Equal times are in order.
  EXPECT_EQ(parse_trace(kAzure + kRow + kRow, "ok.csv").size(), 2u);
}

TEST(BadTrace, WrongFieldCount) {
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,5\n"), "bad.csv:3", "got 2");
  expect_one(issues_of(kAzure + kRow + "2023-11-16 18:17:04,5,6,7\n"), "bad.csv:3", "got 4");
}

TEST(BadTrace, Headers) {
  expect_one(issues_of("time,prompt,completion\n1,2,3\n"), "bad.csv:1", "unknown trace header",
             "time,prompt,completion");
  expect_one(issues_of("\n" + kRow), "bad.csv:2", "missing header");
  expect_one(issues_of(kAzure + kRow, TraceFormat::plain), "bad.csv:1",
             "the plain format was asked for");
  expect_one(issues_of("arrival_s,input_tokens,output_tokens\n1,1,1\n", TraceFormat::azure),
             "bad.csv:1", "the azure format was asked for");
  // Header names are matched without regard to case.
  EXPECT_EQ(parse_trace("Arrival_S,INPUT_TOKENS,output_tokens\n1,1,1\n", "ok.csv").size(), 1u);
}

TEST(BadTrace, EmptyTraces) {
  expect_one(issues_of(""), "bad.csv:1", "empty trace");
  expect_one(issues_of("\r\n\n  \n"), "bad.csv:1", "empty trace");
  expect_one(issues_of(kAzure), "bad.csv:1", "no requests");
  expect_one(issues_of("\n\n" + kAzure + "\n"), "bad.csv:3", "no requests");
}

TEST(BadTrace, LineNumbersCountBlankLinesAndOneIssuePerLine) {
  // Line 4 has a bad timestamp and bad tokens: one issue. Line 6 is after a blank line.
  const auto issues =
      issues_of(kAzure + kRow + kRow + "x,-1,y\n" + "\n" + "2023-11-16 18:17:04,1,1.5\n");
  ASSERT_EQ(issues.size(), 2u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, "bad.csv:4");
  EXPECT_TRUE(contains(issues[0].message, "TIMESTAMP"));
  EXPECT_EQ(issues[1].path, "bad.csv:6");
  EXPECT_TRUE(contains(issues[1].message, "GeneratedTokens"));
}

TEST(BadTrace, AtMostTwentyIssuesThenHowManyMore) {
  std::string text = kAzure;
  for (int i = 0; i < 30; ++i) text += "2023-11-16 18:17:04,0,1\n";
  const auto issues = issues_of(text);
  ASSERT_EQ(issues.size(), 21u);
  EXPECT_EQ(issues[0].path, "bad.csv:2");
  EXPECT_EQ(issues[19].path, "bad.csv:21");
  EXPECT_TRUE(contains(issues[20].message, "10 more")) << issues[20].message;
}

// ---- Generators ----
struct Moments {
  double mean = 0, cv = 0;
};
Moments gap_moments(const std::vector<Request>& rs) {
  std::vector<double> gaps;
  double previous = 0;
  for (const auto& r : rs) {
    gaps.push_back(r.arrival_s - previous);
    previous = r.arrival_s;
  }
  const double n = static_cast<double>(gaps.size());
  const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / n;
  double ss = 0;
  for (double g : gaps) ss += (g - mean) * (g - mean);
  return {mean, std::sqrt(ss / (n - 1)) / mean};
}

GeneratorSpec spec_of(ArrivalProcess::Kind kind, double rate, double cv, std::size_t n,
                      std::uint64_t seed = 7) {
  GeneratorSpec s;
  s.arrivals = {kind, rate, cv};
  s.requests = n;
  s.seed = seed;
  return s;
}

TEST(Generate, PoissonGapsHaveMeanOneOverRateAndCvOne) {
  constexpr std::size_t n = 100'000;
  const double rate = 12.5;
  const auto rs = generate(spec_of(ArrivalProcess::Kind::poisson, rate, 1, n));
  ASSERT_EQ(rs.size(), n);
  expect_well_formed(rs);
  EXPECT_GT(rs[0].arrival_s, 0.0) << "the first arrival is at the first gap, not at 0";
  const auto m = gap_moments(rs);
  // Exponential gaps: sd = mean, so the sample mean's sigma is (1/rate)/sqrt(n).
  EXPECT_NEAR(m.mean, 1 / rate, 3 * (1 / rate) / std::sqrt(double(n)));
  // The sample sd of exponential gaps has a relative sigma of ~sqrt(2/n) = 0.0045 (kurtosis 9).
  EXPECT_NEAR(m.cv, 1.0, 0.015);
}

TEST(Generate, GammaGapsHaveTheAskedCv) {
  constexpr std::size_t n = 100'000;
  for (const double cv : {2.0, 0.5}) {  // shape 0.25 (the k < 1 boost) and 4
    const auto rs = generate(spec_of(ArrivalProcess::Kind::gamma, 4.0, cv, n));
    expect_well_formed(rs);
    const auto m = gap_moments(rs);
    EXPECT_NEAR(m.cv, cv, 0.05 * cv) << "cv " << cv;
    EXPECT_NEAR(m.mean, 0.25, 3 * cv * 0.25 / std::sqrt(double(n))) << "cv " << cv;
  }
}

TEST(Generate, LengthDistributions) {
  GeneratorSpec s = spec_of(ArrivalProcess::Kind::poisson, 1, 1, 100'000);
  s.input = parse_length_dist("lognormal:256:0.8", "input");
  s.output = parse_length_dist("uniform:64:512", "output");
  const auto rs = generate(s);
  std::vector<int> in, out;
  for (const auto& r : rs) {
    in.push_back(r.input_tokens);
    out.push_back(r.output_tokens);
  }
  // Lognormal: median a; the median's sigma is a * sigma * sqrt(2 pi) / (2 sqrt(n)) ~ 0.3 %.
  std::nth_element(in.begin(), in.begin() + in.size() / 2, in.end());
  EXPECT_NEAR(in[in.size() / 2], 256, 256 * 0.015);
  double log_sum = 0, log_ss = 0;
  for (const auto& r : rs) log_sum += std::log(r.input_tokens);
  const double log_mean = log_sum / double(rs.size());
  for (const auto& r : rs) log_ss += std::pow(std::log(r.input_tokens) - log_mean, 2);
  EXPECT_NEAR(std::sqrt(log_ss / double(rs.size())), 0.8, 0.02);
  // Uniform: inclusive bounds, both reached, mean (64 + 512) / 2 (sigma of the mean 0.41).
  EXPECT_EQ(*std::min_element(out.begin(), out.end()), 64);
  EXPECT_EQ(*std::max_element(out.begin(), out.end()), 512);
  EXPECT_NEAR(std::accumulate(out.begin(), out.end(), 0.0) / double(out.size()), 288, 1.3);

  // Lognormal draws are clamped to [1, max]; fixed is fixed; resample draws only its samples.
  s.requests = 20'000;
  s.input = {LengthDist::Kind::lognormal, 100, 4, {}, 1000};
  s.output = {LengthDist::Kind::resample, 0, 0, {3, 7, 7, 1000}, 1 << 20};
  const auto clamped = generate(s);
  std::set<int> outs;
  int at_max = 0, at_one = 0;
  for (const auto& r : clamped) {
    ASSERT_GE(r.input_tokens, 1);
    ASSERT_LE(r.input_tokens, 1000);
    at_max += r.input_tokens == 1000;
    at_one += r.input_tokens == 1;
    outs.insert(r.output_tokens);
  }
  EXPECT_GT(at_max, 0);
  EXPECT_GT(at_one, 0);
  EXPECT_EQ(outs, (std::set<int>{3, 7, 1000}));
  s.input = parse_length_dist("128", "input");
  for (const auto& r : generate(s)) ASSERT_EQ(r.input_tokens, 128);
}

TEST(Generate, DeterministicPerSeedAndIndependentPerQuantity) {
  GeneratorSpec s = spec_of(ArrivalProcess::Kind::gamma, 3, 1.5, 2000, 42);
  s.input = parse_length_dist("lognormal:512:1", "input");
  s.output = parse_length_dist("uniform:1:1000", "output");
  const auto a = generate(s);
  EXPECT_TRUE(same(a, generate(s)));
  GeneratorSpec other = s;
  other.seed = 43;
  const auto b = generate(other);
  EXPECT_FALSE(same(a, b));
  std::size_t equal_arrivals = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal_arrivals += a[i].arrival_s == b[i].arrival_s;
  EXPECT_EQ(equal_arrivals, 0u);
  // Another output distribution leaves the arrivals and the inputs as they were.
  GeneratorSpec new_output = s;
  new_output.output = parse_length_dist("64", "output");
  const auto c = generate(new_output);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].arrival_s, c[i].arrival_s);
    ASSERT_EQ(a[i].input_tokens, c[i].input_tokens);
  }
}

TEST(Generate, RejectsOutOfRangeSpecsNamingTheField) {
  const auto message = [](const GeneratorSpec& s) {
    try {
      (void)generate(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  GeneratorSpec s;
  for (double rate : {0.0, -1.0, kNaN, kInf}) {
    s.arrivals.rate_per_s = rate;
    EXPECT_TRUE(contains(message(s), "rate_per_s")) << message(s);
  }
  s = {};
  s.arrivals.kind = ArrivalProcess::Kind::gamma;
  s.arrivals.cv = 0;
  EXPECT_TRUE(contains(message(s), "cv")) << message(s);
  s = {};
  s.input.a = 0;
  EXPECT_TRUE(contains(message(s), "input")) << message(s);
  s = {};
  s.output = {LengthDist::Kind::uniform, 10, 5, {}, 1 << 20};
  EXPECT_TRUE(contains(message(s), "output")) << message(s);
  s = {};
  s.output = {LengthDist::Kind::lognormal, 100, -1, {}, 1 << 20};
  EXPECT_TRUE(contains(message(s), "sigma")) << message(s);
  s = {};
  s.input = {LengthDist::Kind::resample, 0, 0, {}, 1 << 20};
  EXPECT_TRUE(contains(message(s), "resample")) << message(s);
  s = {};
  s.requests = 0;
  EXPECT_TRUE(generate(s).empty());
}

// ---- scale_time, benchmark ----
TEST(ScaleTime, TwiceTheRateHalvesEveryArrival) {
  const auto rs = generate(spec_of(ArrivalProcess::Kind::poisson, 2, 1, 100));
  const auto fast = scale_time(rs, 2.0);
  ASSERT_EQ(fast.size(), rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(fast[i].arrival_s, rs[i].arrival_s / 2);
    EXPECT_EQ(fast[i].id, rs[i].id);
    EXPECT_EQ(fast[i].input_tokens, rs[i].input_tokens);
  }
  for (double bad : {0.0, -2.0, kNaN, kInf})
    EXPECT_THROW((void)scale_time(rs, bad), std::invalid_argument) << bad;
}

TEST(Benchmark, IdenticalRequestsAllAtTimeZero) {
  const auto rs = benchmark(64, 1024, 128);
  ASSERT_EQ(rs.size(), 64u);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].id, i);
    EXPECT_EQ(rs[i].arrival_s, 0.0);
    EXPECT_EQ(rs[i].input_tokens, 1024);
    EXPECT_EQ(rs[i].output_tokens, 128);
  }
  EXPECT_THROW((void)benchmark(4, 0, 1), std::invalid_argument);
  EXPECT_THROW((void)benchmark(4, 1, -1), std::invalid_argument);
}

// ---- parse_length_dist ----
TEST(LengthDistText, AcceptsTheDocumentedForms) {
  auto d = parse_length_dist("128", "--input-len");
  EXPECT_EQ(d.kind, LengthDist::Kind::fixed);
  EXPECT_EQ(d.a, 128);
  d = parse_length_dist(" fixed:64 ", "--input-len");
  EXPECT_EQ(d.kind, LengthDist::Kind::fixed);
  EXPECT_EQ(d.a, 64);
  d = parse_length_dist("uniform:64:512", "--input-len");
  EXPECT_EQ(d.kind, LengthDist::Kind::uniform);
  EXPECT_EQ(d.a, 64);
  EXPECT_EQ(d.b, 512);
  d = parse_length_dist("uniform:7:7", "--input-len");
  EXPECT_EQ(d.b, 7);
  d = parse_length_dist("lognormal:256:0.8", "--input-len");
  EXPECT_EQ(d.kind, LengthDist::Kind::lognormal);
  EXPECT_EQ(d.a, 256);
  EXPECT_EQ(d.b, 0.8);
  EXPECT_EQ(parse_length_dist("lognormal:300.5:0", "x").a, 300.5);
}

TEST(LengthDistText, RejectsOtherFormsNamingTheOptionAndTheAllowedForms) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"0", "whole number"},
      {"-5", "whole number"},
      {"12.5", "whole number"},
      {"abc", "unknown length distribution 'abc'"},
      {"gauss:1:2", "unknown length distribution 'gauss'"},
      {"uniform:512:64", "greater than MAX"},
      {"uniform:64", "takes 2 parameters"},
      {"uniform:a:9", "MIN 'a' is not a number"},
      {"uniform:1:9:3", "takes 2 parameters"},
      {"fixed:", "not a number"},
      {"lognormal:256", "takes 2 parameters"},
      {"lognormal:256:-1", "SIGMA must be >= 0"},
      {"lognormal:0.5:1", "MEDIAN must be in [1"},
      {"lognormal:256:nan", "not a number"},
      {"99999999999", "whole number"},
  };
  for (const auto& [text, why] : cases) {
    try {
      (void)parse_length_dist(text, "--input-len");
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const ConfigError& e) {
      ASSERT_EQ(e.issues().size(), 1u);
      const Issue& i = e.issues()[0];
      EXPECT_EQ(i.path, "--input-len");
      EXPECT_EQ(i.value, text);
      EXPECT_TRUE(contains(i.message, why)) << text << ": " << i.message;
      EXPECT_TRUE(contains(i.allowed, "uniform:MIN:MAX")) << i.allowed;
      EXPECT_TRUE(contains(i.allowed, "lognormal:MEDIAN:SIGMA")) << i.allowed;
    }
  }
}

}  // namespace
}  // namespace stackscope::serving
