// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Request streams for the serving simulator (docs/model.md §11.1): trace files, seeded generators
// and closed benchmarks. Times in s, lengths in tokens. No I/O here: parse_trace() takes the file's
// text (core/io reads files); every function is pure and deterministic for a given seed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stackscope::serving {

// Longest stream the simulator takes: 366 days of arrivals (a leap year, 31,622,400 s). Past
// it a run is a mistake (a timestamp in the wrong century, a rate in the wrong unit) and times
// in s lose the resolution of one decode step (ms) as they grow.
inline constexpr double kMaxStreamSeconds = 366.0 * 86400.0;

struct Request {
  std::uint64_t id = 0;   // 0, 1, 2, ... in arrival order
  double arrival_s = 0;   // from the start of the stream (see parse_trace and generate)
  int input_tokens = 1;   // >= 1
  int output_tokens = 1;  // >= 1 (the first comes from prefill)
};

// ---- Traces ----
// azure: the Azure LLM inference trace format (Patel et al., "Splitwise", ISCA 2024;
//   data/azure-llm-2023, CC-BY-4.0): header TIMESTAMP,ContextTokens,GeneratedTokens, the
//   timestamp "YYYY-MM-DD HH:MM:SS[.fraction]" (UTC, 0-9 fractional digits, 'T' accepted for
//   the space); arrivals become seconds after the first row (so the first is 0), computed
//   exactly from the nanosecond difference (no time zone, locale or mktime).
// plain: header arrival_s,input_tokens,output_tokens with arrival_s in seconds (finite, >= 0),
//   taken as written (not shifted to 0): a generated stream written with round-trip precision
//   reads back equal.
// automatic: from the header line (header names compared case-insensitively).
enum class TraceFormat { automatic, azure, plain };

// Throws ConfigError (common/issue.hpp) with one issue per bad line — the path is
// "<source>:<line>" — for: a missing or unknown header, a wrong field count, a bad or
// non-finite timestamp, an arrival more than kMaxStreamSeconds after the start (azure: the
// first row; plain: 0), token counts that are not whole numbers >= 1 (GeneratedTokens 0 in an
// Azure trace is raised to 1 and counted in TraceStats::zero_outputs, since the first token
// always comes from prefill), rows out of time order, an empty trace. At most 20 issues are
// listed, then "N more". CRLF line ends, a UTF-8 BOM, blank lines and spaces around fields
// are accepted; ids are 0, 1, 2, ... in file order.
struct TraceStats {
  std::size_t rows = 0;
  std::size_t zero_outputs = 0;
  double duration_s = 0;  // last arrival
};
std::vector<Request> parse_trace(std::string_view text, std::string_view source,
                                 TraceFormat format = TraceFormat::automatic,
                                 TraceStats* stats = nullptr);

// Arrivals divided by `rate_scale` (x2 = twice the request rate); throws std::invalid_argument
// unless rate_scale is finite and > 0 and the last arrival stays within kMaxStreamSeconds.
std::vector<Request> scale_time(std::vector<Request> requests, double rate_scale);

// ---- Generators ----
struct LengthDist {
  enum class Kind { fixed, uniform, lognormal, resample };
  Kind kind = Kind::fixed;
  double a = 128;            // fixed: the length; uniform: min; lognormal: median
  double b = 0;              // uniform: max (inclusive); lognormal: sigma of ln(length)
  std::vector<int> samples;  // resample: lengths drawn uniformly from these (e.g. a trace's)
  int max = 1 << 20;         // lognormal draws are clamped to [1, max]
  bool operator==(const LengthDist&) const = default;
};
// Parses "128" (or "fixed:128"), "uniform:64:512", "lognormal:256:0.8" (what: the option name
// for errors; lengths are whole numbers >= 1, the median >= 1 and sigma >= 0);
// throws ConfigError naming `what`, the text and the allowed forms.
LengthDist parse_length_dist(std::string_view text, std::string_view what);

struct ArrivalProcess {
  enum class Kind { poisson, gamma };
  Kind kind = Kind::poisson;
  double rate_per_s = 1;  // mean arrival rate > 0
  double cv = 1;          // gamma: coefficient of variation of the gaps (burstiness), > 0
};

struct GeneratorSpec {
  ArrivalProcess arrivals;
  LengthDist input, output;
  std::size_t requests = 1000;
  std::uint64_t seed = 1;
};
// Throws std::invalid_argument for a rate, cv or length parameter out of range (message names
// the field and the allowed range). The same spec gives the same stream on every platform
// (std::mt19937_64 with hand-written inverse-CDF/Box-Muller draws, not std:: distributions,
// whose output is implementation-defined); arrivals, inputs and outputs each have their own
// engine seeded from `seed`, so changing one distribution leaves the others' draws alone.
// The first arrival is at the first gap (not at 0): every gap, the first included, follows
// the arrival process. A stream whose last arrival is past kMaxStreamSeconds is refused
// (std::invalid_argument naming rate_per_s and requests). Gamma gaps have shape k = 1/cv^2 (Marsaglia-Tsang); lognormal lengths
// are rounded to the nearest integer, then clamped to [1, max].
std::vector<Request> generate(const GeneratorSpec& spec);

// Closed benchmark (trtllm-bench, vLLM benchmark_serving): `requests` identical requests all
// arriving at t = 0 (the simulator's concurrency limit, if any, releases them); throws
// std::invalid_argument for token counts < 1.
std::vector<Request> benchmark(std::size_t requests, int input_tokens, int output_tokens);

}  // namespace stackscope::serving
