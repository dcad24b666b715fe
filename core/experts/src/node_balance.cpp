// SPDX-License-Identifier: GPL-3.0-or-later
// HD-MoE node balance as a MILP (node_balance.hpp).
#include "stackscope/experts/node_balance.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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
  if (!(in.expert_bytes > 0) || !std::isfinite(in.expert_bytes)) fail("expert_bytes must be > 0");
  if (!(in.capacity_bytes > 0)) fail("capacity_bytes must be > 0");
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
          {P(i, c), -in.tokens * in.compute_s * in.loads[static_cast<std::size_t>(i)]});
    comp.lo = 0;
    p.add(std::move(comp));
    comm.name = "traffic of node " + std::to_string(c);
    comm.terms.push_back({tcomm, 1});
    for (int g = 0; g < G; ++g) {
      const double fg =
          static_cast<double>(in.sets[static_cast<std::size_t>(g)].tokens) / set_tokens;
      comm.terms.push_back(
          {Y(g, c), -in.tokens * in.comm_s[static_cast<std::size_t>(c)] * away * fg});
    }
    comm.lo = 0;
    p.add(std::move(comm));
    if (std::isfinite(in.capacity_bytes)) {
      mem.name = "memory of node " + std::to_string(c);
      for (int i = 0; i < E; ++i) mem.terms.push_back({P(i, c), in.expert_bytes});
      mem.hi = in.capacity_bytes;
      p.add(std::move(mem));
    }
  }

  // EP warm start: expert i whole on node i mod N.
  lp::Options opt = in.solver;
  opt.warm_start.assign(p.variables.size(), 0.0);
  std::vector<double> node_comp(static_cast<std::size_t>(N), 0.0), node_comm(node_comp.size(), 0.0);
  for (int i = 0; i < E; ++i) {
    const int c = i % N;
    opt.warm_start[static_cast<std::size_t>(P(i, c))] = 1;
    opt.warm_start[static_cast<std::size_t>(Z(i, c))] = 1;
    node_comp[static_cast<std::size_t>(c)] +=
        in.tokens * in.compute_s * in.loads[static_cast<std::size_t>(i)];
  }
  for (int g = 0; g < G; ++g) {
    const double fg = static_cast<double>(in.sets[static_cast<std::size_t>(g)].tokens) / set_tokens;
    for (int c = 0; c < N; ++c) {
      bool present = false;
      for (const auto i : in.sets[static_cast<std::size_t>(g)].experts) present |= i % N == c;
      if (!present) continue;
      opt.warm_start[static_cast<std::size_t>(Y(g, c))] = 1;
      node_comm[static_cast<std::size_t>(c)] +=
          in.tokens * in.comm_s[static_cast<std::size_t>(c)] * away * fg;
    }
  }
  opt.warm_start[static_cast<std::size_t>(tcomp)] =
      *std::max_element(node_comp.begin(), node_comp.end());
  opt.warm_start[static_cast<std::size_t>(tcomm)] =
      *std::max_element(node_comm.begin(), node_comm.end());

  NodeBalanceResult out;
  out.solution = lp::solve(p, opt);
  const auto& s = out.solution;
  if (s.status == lp::Status::infeasible)
    throw std::invalid_argument("node balance: no placement fits the nodes' memory (" +
                                std::to_string(E) + " experts of " +
                                std::to_string(in.expert_bytes) + " B on " + std::to_string(N) +
                                " nodes of " + std::to_string(in.capacity_bytes) + " B)");
  if (s.x.empty())
    throw std::invalid_argument("node balance: GLPK found no placement within the time limit of " +
                                std::to_string(in.solver.time_limit_s) + " s (" +
                                lp::to_string(s.status) + ")");
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
  return out;
}

double surrogate(const Placement& placement, const NodeBalanceInput& in) {
  check(in);
  const int N = in.nodes;
  if (placement.experts.size() != in.loads.size())
    throw std::invalid_argument("node balance surrogate: the placement has " +
                                std::to_string(placement.experts.size()) + " experts, the loads " +
                                std::to_string(in.loads.size()));
  const double set_tokens = total_tokens(in.sets);
  const double away = N > 1 ? 1.0 - 1.0 / N : 0.0;
  std::vector<double> comp(static_cast<std::size_t>(N), 0.0), comm(comp.size(), 0.0);
  // presence[i][c]: the share of expert i's copies that hold a part on node c.
  std::vector<std::vector<double>> presence(in.loads.size(), std::vector<double>(comp.size(), 0.0));
  for (std::size_t i = 0; i < in.loads.size(); ++i) {
    const auto& copies = placement.experts[i].copies;
    for (const auto& c : copies)
      for (const auto& sh : c.shares) {
        if (sh.node < 0 || sh.node >= N) continue;
        comp[static_cast<std::size_t>(sh.node)] += in.tokens * in.compute_s * in.loads[i] *
                                                   sh.fraction / static_cast<double>(copies.size());
        presence[i][static_cast<std::size_t>(sh.node)] += 1.0 / static_cast<double>(copies.size());
      }
  }
  for (const auto& g : in.sets) {
    const double fg = static_cast<double>(g.tokens) / set_tokens;
    for (int c = 0; c < N; ++c) {
      double y = 0;
      for (const auto i : g.experts) y = std::max(y, presence[i][static_cast<std::size_t>(c)]);
      comm[static_cast<std::size_t>(c)] +=
          in.tokens * in.comm_s[static_cast<std::size_t>(c)] * away * fg * y;
    }
  }
  return *std::max_element(comp.begin(), comp.end()) +
         2 * *std::max_element(comm.begin(), comm.end());
}

}  // namespace stackscope::experts
