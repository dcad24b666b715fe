// SPDX-License-Identifier: GPL-3.0-or-later
// HD-MoE link balance by simulated annealing over the logical → physical node permutation
// (link_balance.hpp has the method and its sources).
#include "stackscope/experts/link_balance.hpp"

#include "layer_work.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace stackscope::experts {
namespace {

using detail::num;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("link_balance: " + what);
}

// Uniform integer in [0, n), n >= 1, by rejection on the raw 64-bit output: the 2^64 mod n
// lowest values are rejected so every residue is equally likely (no implementation-defined
// std::uniform_int_distribution).
std::uint64_t below(std::mt19937_64& g, std::uint64_t n) {
  const std::uint64_t reject = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    const std::uint64_t x = g();
    if (x >= reject) return x % n;
  }
}

// Uniform real in [0, 1) from the top 53 bits (the double's mantissa).
double unit(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

}  // namespace

Placement apply_permutation(const Placement& placement, std::span<const int> perm) {
  const auto n = static_cast<int>(perm.size());
  std::vector<char> seen(perm.size(), 0);
  for (std::size_t l = 0; l < perm.size(); ++l) {
    const int p = perm[l];
    if (p < 0 || p >= n || seen[static_cast<std::size_t>(p)])
      throw std::invalid_argument("apply_permutation: perm[" + std::to_string(l) +
                                  "] = " + std::to_string(p) + " (allowed: a permutation of 0.." +
                                  std::to_string(n - 1) + ", each value once)");
    seen[static_cast<std::size_t>(p)] = 1;
  }
  Placement out = placement;
  for (std::size_t e = 0; e < out.experts.size(); ++e)
    for (std::size_t c = 0; c < out.experts[e].copies.size(); ++c)
      for (std::size_t s = 0; s < out.experts[e].copies[c].shares.size(); ++s) {
        Share& sh = out.experts[e].copies[c].shares[s];
        if (sh.node < 0 || sh.node >= n)
          throw std::invalid_argument("apply_permutation: /experts/" + std::to_string(e) +
                                      "/copies/" + std::to_string(c) + "/shares/" +
                                      std::to_string(s) + "/node = " + std::to_string(sh.node) +
                                      " (allowed: 0.." + std::to_string(n - 1) + ")");
        sh.node = perm[static_cast<std::size_t>(sh.node)];
      }
  return out;
}

LinkBalanceResult link_balance(const LinkBalanceInput& in) {
  if (in.batches.empty()) bad("batches is empty (allowed: >= 1 batch to score on)");
  if (in.iterations < 0)
    bad("iterations = " + std::to_string(in.iterations) + " out of range (allowed: >= 0)");
  if (!(in.initial_temperature >= 0) || !std::isfinite(in.initial_temperature))
    bad("initial_temperature = " + num(in.initial_temperature) +
        " out of range (allowed: finite, >= 0; a fraction of the identity's layer time)");
  if (in.mesh.x < 1 || in.mesh.y < 1)
    bad("mesh " + std::to_string(in.mesh.x) + " × " + std::to_string(in.mesh.y) +
        " out of range (allowed: x, y >= 1)");
  const int n = in.mesh.nodes();
  if (in.placement.experts.empty()) bad("placement.experts is empty (allowed: >= 1 experts)");
  // Shapes are the batches' business; validate() needs only a positive expert size here.
  if (const auto issues = validate(in.placement, static_cast<int>(in.placement.experts.size()), n,
                                   1.0, std::numeric_limits<double>::infinity());
      !issues.empty())
    bad("placement rejected: " + format_issues(issues));

  const auto objective = [&](const Placement& p) {
    double sum = 0;
    for (std::size_t b = 0; b < in.batches.size(); ++b) {
      try {
        sum += simulate_layer(in.mesh, p, in.batches[b], in.choice).time_s;
      } catch (const std::invalid_argument& e) {
        bad("batch " + std::to_string(b) + ": " + e.what());
      }
    }
    return sum;
  };

  LinkBalanceResult r;
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  r.start_objective_s = objective(in.placement);
  double current = r.start_objective_s, best = current;
  std::vector<int> best_perm = perm;

  std::vector<int> occupied;  // logical nodes holding any share
  {
    std::vector<char> holds(static_cast<std::size_t>(n), 0);
    for (const auto& e : in.placement.experts)
      for (const auto& c : e.copies)
        for (const auto& s : c.shares) holds[static_cast<std::size_t>(s.node)] = 1;
    for (int l = 0; l < n; ++l)
      if (holds[static_cast<std::size_t>(l)]) occupied.push_back(l);
  }

  if (n >= 2 && !occupied.empty()) {
    std::mt19937_64 rng(in.seed);
    const double t0 = in.initial_temperature * r.start_objective_s;
    const double log_ratio = std::log(1e-3);
    for (int k = 0; k < in.iterations && !in.stop.stop_requested(); ++k) {
      if (in.progress && k % 1024 == 0) in.progress(k, in.iterations);
      const int a = occupied[below(rng, occupied.size())];
      int b = static_cast<int>(below(rng, static_cast<std::uint64_t>(n - 1)));
      if (b >= a) ++b;
      const double u = unit(rng);  // drawn every move so the stream does not depend on ΔJ
      std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
      const double cand = objective(apply_permutation(in.placement, perm));
      ++r.iterations;
      const double delta = cand - current;
      const double t = t0 * std::exp(log_ratio * k / in.iterations);
      if (delta <= 0 || (t > 0 && u < std::exp(-delta / t))) {
        current = cand;
        ++r.accepted;
        if (cand < best) {
          best = cand;
          best_perm = perm;
          ++r.improvements;
        }
      } else {
        std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
      }
    }
  }
  r.permutation = std::move(best_perm);
  r.placement = apply_permutation(in.placement, r.permutation);
  r.objective_s = best;
  return r;
}

}  // namespace stackscope::experts
