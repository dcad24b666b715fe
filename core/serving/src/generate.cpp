// SPDX-License-Identifier: GPL-3.0-or-later
// Seeded request generators. Every draw is computed here from std::mt19937_64's bits (whose
// sequence the C++ standard fixes), not by std:: distributions (implementation-defined), so a
// spec gives the same stream with libstdc++, libc++ and MSVC.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>

#include "stackscope/common/issue.hpp"
#include "stackscope/serving/request.hpp"

namespace stackscope::serving {
namespace {

constexpr int kMaxLength = std::numeric_limits<int>::max();
constexpr std::string_view kLengthForms =
    "N, uniform:MIN:MAX (whole numbers, 1 <= MIN <= MAX) or lognormal:MEDIAN:SIGMA "
    "(MEDIAN >= 1, SIGMA >= 0); lengths in tokens";

std::string num(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool whole_length(double v) {
  return v >= 1 && v <= kMaxLength && v == std::floor(v);
}

// Why `d` cannot be drawn from, or nothing.
std::optional<std::string> length_problem(const LengthDist& d) {
  switch (d.kind) {
    case LengthDist::Kind::fixed:
      if (!whole_length(d.a))
        return "fixed length a must be a whole number in [1, 2147483647] (got " + num(d.a) + ")";
      return std::nullopt;
    case LengthDist::Kind::uniform:
      if (!whole_length(d.a) || !whole_length(d.b) || d.a > d.b)
        return "uniform bounds need whole numbers 1 <= a (min) <= b (max) <= 2147483647 (got " +
               num(d.a) + ", " + num(d.b) + ")";
      return std::nullopt;
    case LengthDist::Kind::lognormal:
      if (d.max < 1) return "lognormal max must be >= 1 (got " + std::to_string(d.max) + ")";
      if (!(d.a >= 1 && d.a <= d.max))
        return "lognormal median a must be in [1, max = " + std::to_string(d.max) + "] (got " +
               num(d.a) + ")";
      if (!(d.b >= 0) || !std::isfinite(d.b))
        return "lognormal sigma b must be finite and >= 0 (got " + num(d.b) + ")";
      return std::nullopt;
    case LengthDist::Kind::resample:
      if (d.samples.empty()) return "resample needs at least one sample length";
      for (std::size_t i = 0; i < d.samples.size(); ++i)
        if (d.samples[i] < 1)
          return "resample lengths must be >= 1 (samples[" + std::to_string(i) +
                 "] = " + std::to_string(d.samples[i]) + ")";
      return std::nullopt;
  }
  return "unknown length distribution kind";
}

// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): decorrelates the seeds of the per-quantity engines derived from one user seed.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}

  // Uniform on the open interval (0, 1): 53 random bits at the centre of their cell, so log()
  // and division never see 0 or 1.
  double uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1p-53; }

  // Standard normal, Box-Muller (Box & Muller, Ann. Math. Statist. 29, 1958); the pair's second
  // value is kept for the next call.
  double normal() {
    if (spare_) {
      const double z = *spare_;
      spare_.reset();
      return z;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double theta = 2.0 * std::numbers::pi * uniform();
    spare_ = r * std::sin(theta);
    return r * std::cos(theta);
  }

  // Exponential with mean 1, by inverting the CDF.
  double exponential() { return -std::log(uniform()); }

  // Gamma(shape k, scale 1): Marsaglia & Tsang, "A simple method for generating gamma
  // variables", ACM TOMS 26(3), 2000; k < 1 through Gamma(k + 1) * U^(1/k) (their section 6).
  double gamma(double k) {
    if (k < 1) return gamma(k + 1) * std::pow(uniform(), 1.0 / k);
    const double d = k - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
      double z = 0, v = 0;
      do {
        z = normal();
        v = 1.0 + c * z;
      } while (v <= 0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * (z * z) * (z * z)) return d * v;
      if (std::log(u) < 0.5 * z * z + d * (1.0 - v + std::log(v))) return d * v;
    }
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias: values below 2^64 mod n are
  // redrawn (Lemire, "Fast random integer generation in an interval", TOMACS 2019, sec. 2).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t reject_below = (0 - n) % n;
    while (true) {
      const std::uint64_t x = engine_();
      if (x >= reject_below) return x % n;
    }
  }

 private:
  std::mt19937_64 engine_;
  std::optional<double> spare_;
};

int draw_length(const LengthDist& d, Draws& draws) {
  switch (d.kind) {
    case LengthDist::Kind::fixed: return static_cast<int>(d.a);
    case LengthDist::Kind::uniform: {
      const auto lo = static_cast<std::uint64_t>(d.a);
      const auto span = static_cast<std::uint64_t>(d.b) - lo + 1;
      return static_cast<int>(lo + draws.below(span));
    }
    case LengthDist::Kind::lognormal: {
      const double x = std::floor(d.a * std::exp(d.b * draws.normal()) + 0.5);
      if (!(x >= 1)) return 1;
      return x >= d.max ? d.max : static_cast<int>(x);
    }
    case LengthDist::Kind::resample: return d.samples[draws.below(d.samples.size())];
  }
  return 1;
}

void check(const LengthDist& d, const char* field) {
  if (const auto problem = length_problem(d))
    throw std::invalid_argument(std::string("generate: ") + field + ": " + *problem);
}

}  // namespace

LengthDist parse_length_dist(std::string_view text, std::string_view what) {
  const auto fail = [&](const std::string& message) -> ConfigError {
    return ConfigError(
        {Issue{std::string(what), message, std::string(text), std::string(kLengthForms)}});
  };
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) throw fail("empty length distribution");

  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t colon = s.find(':', pos);
    parts.push_back(s.substr(pos, colon == std::string_view::npos ? s.npos : colon - pos));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  const auto number = [&](std::string_view p, const char* name) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
    if (p.empty() || ec != std::errc() || ptr != p.data() + p.size() || !std::isfinite(v))
      throw fail(std::string(name) + " '" + std::string(p) + "' is not a number");
    return v;
  };
  const auto length = [&](std::string_view p, const char* name) {
    const double v = number(p, name);
    if (!whole_length(v))
      throw fail(std::string(name) + " '" + std::string(p) +
                 "' is not a whole number of tokens in [1, 2147483647]");
    return v;
  };
  const auto arity = [&](std::size_t n, const char* form) {
    if (parts.size() != n + 1)
      throw fail(std::string(parts[0]) + " takes " + std::to_string(n) + " parameter" +
                 (n == 1 ? "" : "s") + " (" + form + "), got " + std::to_string(parts.size() - 1));
  };

  LengthDist d;
  const std::string_view kind = parts[0];
  if (parts.size() == 1 && !kind.empty() &&
      ((kind[0] >= '0' && kind[0] <= '9') || kind[0] == '-' || kind[0] == '.')) {
    d.kind = LengthDist::Kind::fixed;
    d.a = length(kind, "length");
  } else if (kind == "fixed") {
    arity(1, "fixed:N");
    d.kind = LengthDist::Kind::fixed;
    d.a = length(parts[1], "length");
  } else if (kind == "uniform") {
    arity(2, "uniform:MIN:MAX");
    d.kind = LengthDist::Kind::uniform;
    d.a = length(parts[1], "MIN");
    d.b = length(parts[2], "MAX");
    if (d.a > d.b) throw fail("uniform MIN is greater than MAX");
  } else if (kind == "lognormal") {
    arity(2, "lognormal:MEDIAN:SIGMA");
    d.kind = LengthDist::Kind::lognormal;
    d.a = number(parts[1], "MEDIAN");
    d.b = number(parts[2], "SIGMA");
    if (!(d.a >= 1 && d.a <= d.max))
      throw fail("lognormal MEDIAN must be in [1, " + std::to_string(d.max) + "]");
    if (d.b < 0) throw fail("lognormal SIGMA must be >= 0");
  } else {
    throw fail("unknown length distribution '" + std::string(kind) + "'");
  }
  return d;
}

std::vector<Request> generate(const GeneratorSpec& spec) {
  const ArrivalProcess& ap = spec.arrivals;
  if (!(ap.rate_per_s > 0) || !std::isfinite(ap.rate_per_s))
    throw std::invalid_argument("generate: arrivals.rate_per_s must be finite and > 0 (got " +
                                num(ap.rate_per_s) + ")");
  if (ap.kind == ArrivalProcess::Kind::gamma && (!(ap.cv > 0) || !std::isfinite(ap.cv)))
    throw std::invalid_argument("generate: arrivals.cv must be finite and > 0 (got " + num(ap.cv) +
                                ")");
  check(spec.input, "input");
  check(spec.output, "output");

  // One engine per quantity: changing the output distribution leaves arrivals and inputs alone.
  Draws gaps(splitmix64(spec.seed));
  Draws inputs(splitmix64(spec.seed ^ (1ULL << 62)));
  Draws outputs(splitmix64(spec.seed ^ (2ULL << 62)));
  const double mean_gap = 1.0 / ap.rate_per_s;
  const double shape = 1.0 / (ap.cv * ap.cv);  // Gamma CV = 1/sqrt(k)
  std::vector<Request> out(spec.requests);
  double t = 0;
  for (std::size_t i = 0; i < spec.requests; ++i) {
    const double gap = ap.kind == ArrivalProcess::Kind::poisson
                           ? gaps.exponential() * mean_gap
                           : gaps.gamma(shape) * (mean_gap / shape);
    t += gap;
    out[i] = {i, t, draw_length(spec.input, inputs), draw_length(spec.output, outputs)};
  }
  if (t > kMaxStreamSeconds) {
    char span[32];
    std::snprintf(span, sizeof span, "%.3g", t);
    throw std::invalid_argument(
        "generate: " + std::to_string(spec.requests) + " requests at rate_per_s " +
        num(ap.rate_per_s) + " arrive over " + span +
        " s, more than 366 days (allowed: rate_per_s of at least requests / " +
        num(kMaxStreamSeconds) + " s)");
  }
  return out;
}

}  // namespace stackscope::serving
