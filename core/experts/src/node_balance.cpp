// SPDX-License-Identifier: GPL-3.0-or-later
// HD-MoE node balance as a MILP (node_balance.hpp).
#include "stackscope/experts/node_balance.hpp"

#include "stackscope/experts/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace stackscope::experts {
namespace {

double total_tokens(const std::vector<moe::TopKSet>& sets) {
  double n = 0;
  for (const auto& g : sets) n += static_cast<double>(g.tokens);
  return n;
}

void check(const NodeBalanceInput& in) {
  const auto fail = [](const std::string& m) { throw std::invalid_argument("node balance: " + m); };
  const auto e = static_cast<int>(in.loads.size());
  if (e < 1 || e > 4096) fail("experts " + std::to_string(e) + " out of range (allowed: 1..4096)");
  if (in.nodes < 1 || in.nodes > 4096)
    fail("nodes " + std::to_string(in.nodes) + " out of range (allowed: 1..4096)");
  for (int i = 0; i < e; ++i)
    if (!std::isfinite(in.loads[static_cast<std::size_t>(i)]) ||
        in.loads[static_cast<std::size_t>(i)] < 0)
      fail("load of expert " + std::to_string(i) + " must be finite and >= 0");
  if (in.sets.empty()) fail("no top-k sets (allowed: the layer's sets, LayerStats::sets)");
  if (in.sets.size() * static_cast<std::size_t>(in.nodes) > 2'000'000)
    fail(std::to_string(in.sets.size()) + " sets x " + std::to_string(in.nodes) +
         " nodes is too large a MILP (allowed: at most 2,000,000 presence variables; keep the "
         "most frequent sets)");
  for (std::size_t g = 0; g < in.sets.size(); ++g)
    for (const auto i : in.sets[g].experts)
      if (i >= e)
        fail("set " + std::to_string(g) + " names expert " + std::to_string(i) + " (allowed: 0.." +
             std::to_string(e - 1) + ")");
  if (!(total_tokens(in.sets) > 0)) fail("the sets hold no tokens");
  if (!(in.tokens > 0) || !std::isfinite(in.tokens)) fail("tokens per batch must be > 0");
  if (!(in.compute_s > 0) || !std::isfinite(in.compute_s)) fail("compute_s must be > 0");
  if (in.comm_s.size() != static_cast<std::size_t>(in.nodes))
    fail("comm_s has " + std::to_string(in.comm_s.size()) + " entries for " +
         std::to_string(in.nodes) + " nodes");
  for (const double c : in.comm_s)
    if (!(c >= 0) || !std::isfinite(c)) fail("comm_s must be finite and >= 0");
  if (!(in.weight_read_s >= 0) || !std::isfinite(in.weight_read_s))
    fail("weight_read_s must be finite and >= 0");
  if (!(in.expert_bytes > 0) || !std::isfinite(in.expert_bytes)) fail("expert_bytes must be > 0");
  if (!(in.capacity_bytes > 0)) fail("capacity_bytes must be > 0");
}


// The surrogate's terms of any placement: per node the roofline compute (FLOPs side and weight
// side) and the traffic; each copy's share counts 1 / copies of the expert's load and presence.
// comp and comm are the maxima over nodes (the MILP's T_comp and T_comm at that placement).
struct Terms {
  std::vector<double> presence;  // [i * N + c]: share of expert i's copies with a part on c
  std::vector<double> fraction;  // [i * N + c]: Σ over copies of fraction / copies (P[i,c])
  double comp = 0, comm = 0;
};

Terms terms(const Placement& placement, const NodeBalanceInput& in) {
  const int N = in.nodes;
  const auto E = in.loads.size();
  if (placement.experts.size() != E)
    throw std::invalid_argument("node balance surrogate: the placement has " +
                                std::to_string(placement.experts.size()) + " experts, the loads " +
                                std::to_string(E));
  const auto n = static_cast<std::size_t>(N);
  Terms t;
  t.presence.assign(E * n, 0.0);
  t.fraction.assign(E * n, 0.0);
  std::vector<double> flops(n, 0.0), weights(n, 0.0), comm(n, 0.0);
  for (std::size_t i = 0; i < E; ++i) {
    const auto& copies = placement.experts[i].copies;
    const double per_copy = copies.empty() ? 0.0 : 1.0 / static_cast<double>(copies.size());
    for (const auto& c : copies)
      for (const auto& sh : c.shares) {
        if (sh.node < 0 || sh.node >= N) continue;
        const auto node = static_cast<std::size_t>(sh.node);
        flops[node] += in.tokens * in.compute_s * in.loads[i] * sh.fraction * per_copy;
        // Each copy's share is stored (and read) in full, whatever share of the tokens it gets.
        weights[node] += in.weight_read_s * sh.fraction;
        t.presence[i * n + node] += per_copy;
        t.fraction[i * n + node] += sh.fraction * per_copy;
      }
  }
  const double set_tokens = total_tokens(in.sets);
  const double away = N > 1 ? 1.0 - 1.0 / N : 0.0;
  for (const auto& g : in.sets) {
    const double fg = static_cast<double>(g.tokens) / set_tokens;
    for (std::size_t c = 0; c < n; ++c) {
      double y = 0;
      for (const auto i : g.experts) y = std::max(y, t.presence[i * n + c]);
      comm[c] += in.tokens * in.comm_s[c] * away * fg * y;
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    t.comp = std::max({t.comp, flops[c], weights[c]});
    t.comm = std::max(t.comm, comm[c]);
  }
  return t;
}

// Bytes per node of a placement (every copy's shares in full).
bool fits(const Placement& placement, const NodeBalanceInput& in) {
  if (!std::isfinite(in.capacity_bytes)) return true;
  const auto bytes = node_weight_bytes(placement, in.nodes, in.expert_bytes);
  for (const double b : bytes)
    if (b > in.capacity_bytes * (1 + 1e-12)) return false;
  return true;
}

}  // namespace

NodeBalanceResult node_balance(const NodeBalanceInput& in) {
  check(in);
  const int E = static_cast<int>(in.loads.size()), N = in.nodes;
  const int G = static_cast<int>(in.sets.size());
  const double set_tokens = total_tokens(in.sets);
  const auto P = [N](int i, int c) { return i * N + c; };
  const auto Z = [E, N](int i, int c) { return E * N + i * N + c; };
  const auto Y = [E, N](int g, int c) { return 2 * E * N + g * N + c; };
  const int tcomp = 2 * E * N + G * N, tcomm = tcomp + 1;

  // Times enter the MILP in units of TP's surrogate time (any positive reference would do), so
  // its coefficients are near 1 whatever the hardware: raw seconds (1e-7 .. 1e-3) next to the
  // 0/1 presence variables leave GLPK's simplex numerically fragile. Memory rows count experts.
  double unit = 1;
  {
    const auto t = terms(tp_placement(E, N), in);
    if (t.comp + 2 * t.comm > 0) unit = t.comp + 2 * t.comm;
  }

  lp::Problem p;
  for (int i = 0; i < E; ++i)
    for (int c = 0; c < N; ++c) p.add(lp::Variable{0, 1, 0, lp::VarKind::continuous, {}});
  for (int i = 0; i < E; ++i)
    for (int c = 0; c < N; ++c) p.add(lp::Variable{0, 1, 0, lp::VarKind::binary, {}});
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < N; ++c) p.add(lp::Variable{0, 1, 0, lp::VarKind::continuous, {}});
  p.add(lp::Variable{0, lp::kInf, 1, lp::VarKind::continuous, "T_comp"});
  p.add(lp::Variable{0, lp::kInf, 2, lp::VarKind::continuous, "T_comm"});

  for (int i = 0; i < E; ++i) {
    lp::Row sum;
    sum.lo = sum.hi = 1;
    sum.name = "expert " + std::to_string(i) + " placed";
    for (int c = 0; c < N; ++c) {
      sum.terms.push_back({P(i, c), 1});
      p.add(lp::Row{{{P(i, c), 1}, {Z(i, c), -1}}, -lp::kInf, 0, {}});  // P <= Z
    }
    p.add(std::move(sum));
  }
  for (int g = 0; g < G; ++g)
    for (const auto i : in.sets[static_cast<std::size_t>(g)].experts)
      for (int c = 0; c < N; ++c)
        p.add(lp::Row{{{Y(g, c), 1}, {Z(i, c), -1}}, 0, lp::kInf, {}});  // Y >= Z (the OR)
  const double away = N > 1 ? 1.0 - 1.0 / N : 0.0;
  for (int c = 0; c < N; ++c) {
    lp::Row comp, comm, mem;
    comp.name = "compute of node " + std::to_string(c);
    comp.terms.push_back({tcomp, 1});
    for (int i = 0; i < E; ++i)
      comp.terms.push_back(
          {P(i, c), -in.tokens * in.compute_s * in.loads[static_cast<std::size_t>(i)] / unit});
    comp.lo = 0;
    p.add(std::move(comp));
    if (in.weight_read_s > 0) {
      lp::Row read;
      read.name = "weight reads of node " + std::to_string(c);
      read.terms.push_back({tcomp, 1});
      for (int i = 0; i < E; ++i) read.terms.push_back({P(i, c), -in.weight_read_s / unit});
      read.lo = 0;
      p.add(std::move(read));
    }
    comm.name = "traffic of node " + std::to_string(c);
    comm.terms.push_back({tcomm, 1});
    for (int g = 0; g < G; ++g) {
      const double fg =
          static_cast<double>(in.sets[static_cast<std::size_t>(g)].tokens) / set_tokens;
      comm.terms.push_back(
          {Y(g, c), -in.tokens * in.comm_s[static_cast<std::size_t>(c)] * away * fg / unit});
    }
    comm.lo = 0;
    p.add(std::move(comm));
    if (std::isfinite(in.capacity_bytes)) {
      mem.name = "memory of node " + std::to_string(c);
      for (int i = 0; i < E; ++i) mem.terms.push_back({P(i, c), 1.0});
      mem.hi = in.capacity_bytes / in.expert_bytes;  // in experts
      p.add(std::move(mem));
    }
  }

  // Warm start: the best of EP, TP, the interval split and the balanced hybrid under the surrogate (header).
  std::vector<std::pair<std::string, Placement>> starts;
  starts.emplace_back("ep", ep_placement(E, N));
  starts.emplace_back("tp", tp_placement(E, N));
  starts.emplace_back("interval", interval_placement(in.loads, N));
  starts.emplace_back("balanced", balanced_placement(in.loads, N));
  lp::Options opt = in.solver;
  std::string start_name;
  double start_objective = lp::kInf;
  for (const auto& [name, placement] : starts) {
    if (!fits(placement, in)) continue;
    const auto t = terms(placement, in);
    if (!(t.comp + 2 * t.comm < start_objective)) continue;
    start_objective = t.comp + 2 * t.comm;
    start_name = name;
    opt.warm_start.assign(p.variables.size(), 0.0);
    for (int i = 0; i < E; ++i)
      for (int c = 0; c < N; ++c) {
        const auto k = static_cast<std::size_t>(i * N + c);
        opt.warm_start[static_cast<std::size_t>(P(i, c))] = t.fraction[k];
        opt.warm_start[static_cast<std::size_t>(Z(i, c))] = t.presence[k] > 0 ? 1.0 : 0.0;
      }
    for (int g = 0; g < G; ++g)
      for (int c = 0; c < N; ++c) {
        double y = 0;
        for (const auto i : in.sets[static_cast<std::size_t>(g)].experts)
          y = std::max(y, t.presence[static_cast<std::size_t>(i * N + c)] > 0 ? 1.0 : 0.0);
        opt.warm_start[static_cast<std::size_t>(Y(g, c))] = y;
      }
    opt.warm_start[static_cast<std::size_t>(tcomp)] = t.comp / unit;
    opt.warm_start[static_cast<std::size_t>(tcomm)] = t.comm / unit;
  }

  NodeBalanceResult out;
  out.solution = lp::solve(p, opt);
  const auto& s = out.solution;
  const auto to_seconds = [&](lp::Solution& sol) {
    if (std::isfinite(sol.bound)) sol.bound *= unit;
    if (sol.x.empty()) return;
    sol.objective *= unit;
    sol.x[static_cast<std::size_t>(tcomp)] *= unit;
    sol.x[static_cast<std::size_t>(tcomm)] *= unit;
  };
  to_seconds(out.solution);
  if (s.status == lp::Status::infeasible)
    throw std::invalid_argument("node balance: no placement fits the nodes' memory (" +
                                std::to_string(E) + " experts of " +
                                std::to_string(in.expert_bytes) + " B on " + std::to_string(N) +
                                " nodes of " + std::to_string(in.capacity_bytes) + " B)");
  // GLPK may stop without an incumbent (its time limit ran out in the relaxation or before its
  // first heuristic call) or with one worse than the start: the start is then the answer, and
  // the status and gap say what was proven.
  if ((s.x.empty() || !(s.objective <= start_objective)) && !start_name.empty()) {
    // 0 bounds T_comp + 2 T_comm from below whatever GLPK proved.
    const double bound = std::isfinite(s.bound) ? std::max(s.bound, 0.0) : 0.0;
    out.solution.x = opt.warm_start;
    out.solution.x[static_cast<std::size_t>(tcomp)] *= unit;
    out.solution.x[static_cast<std::size_t>(tcomm)] *= unit;
    out.solution.objective = start_objective;
    out.solution.bound = bound;
    out.solution.gap = (start_objective - bound) / std::max(start_objective, 1e-30);
    if (out.solution.status == lp::Status::no_solution) out.solution.status = lp::Status::feasible;
    out.from_warm_start = true;
  }
  if (s.x.empty())
    throw std::invalid_argument("node balance: GLPK found no placement within the time limit of " +
                                std::to_string(in.solver.time_limit_s) + " s (" +
                                lp::to_string(s.status) + ") and no start fits the memory");
  out.placement.experts.resize(static_cast<std::size_t>(E));
  for (int i = 0; i < E; ++i) {
    Copy copy;
    double sum = 0;
    for (int c = 0; c < N; ++c) {
      const double v = s.x[static_cast<std::size_t>(P(i, c))];
      if (v > 1e-9) {
        copy.shares.push_back({c, v});
        sum += v;
      }
    }
    for (auto& sh : copy.shares) sh.fraction /= sum;
    if (copy.shares.size() > 1) ++out.split_experts;
    out.placement.experts[static_cast<std::size_t>(i)].copies.push_back(std::move(copy));
  }
  out.t_comp_s = s.x[static_cast<std::size_t>(tcomp)];
  out.t_comm_s = s.x[static_cast<std::size_t>(tcomm)];
  out.objective_s = s.objective;
  out.warm_start = start_name;
  out.warm_start_objective_s = start_name.empty() ? 0.0 : start_objective;
  return out;
}

double surrogate(const Placement& placement, const NodeBalanceInput& in) {
  check(in);
  const auto t = terms(placement, in);
  return t.comp + 2 * t.comm;
}

Placement interval_placement(const std::vector<double>& loads, int nodes) {
  if (loads.empty()) throw std::invalid_argument("interval placement: no experts");
  if (nodes < 1)
    throw std::invalid_argument("interval placement: nodes " + std::to_string(nodes) +
                                " (allowed: >= 1)");
  double total = 0;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    if (!std::isfinite(loads[i]) || loads[i] < 0)
      throw std::invalid_argument("interval placement: load of expert " + std::to_string(i) +
                                  " must be finite and >= 0");
    total += loads[i];
  }
  const double n = nodes;
  Placement out;
  out.experts.resize(loads.size());
  double at = 0;  // start of the next interval, in node lengths
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const double len = total > 0 ? n * loads[i] / total : n / static_cast<double>(loads.size());
    const double a = at, b = std::min(n, at + len);
    at = b;
    Copy copy;
    if (!(b - a > 1e-12)) {
      copy.shares.push_back({std::clamp(static_cast<int>(std::floor(a)), 0, nodes - 1), 1.0});
    } else {
      for (int c = std::clamp(static_cast<int>(std::floor(a)), 0, nodes - 1); c < nodes; ++c) {
        const double lo = std::max(a, static_cast<double>(c)), hi = std::min(b, c + 1.0);
        if (hi - lo > 1e-12 * n) copy.shares.push_back({c, (hi - lo) / (b - a)});
        if (c + 1.0 >= b) break;
      }
      double sum = 0;
      for (const auto& sh : copy.shares) sum += sh.fraction;
      for (auto& sh : copy.shares) sh.fraction /= sum;
    }
    out.experts[i].copies.push_back(std::move(copy));
  }
  return out;
}

}  // namespace stackscope::experts
