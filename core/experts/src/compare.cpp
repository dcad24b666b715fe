// SPDX-License-Identifier: GPL-3.0-or-later
// The placement comparison (compare.hpp).
#include "stackscope/experts/compare.hpp"
#include "stackscope/experts/fit.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

#include "stackscope/common/issue.hpp"
#include "stackscope/experts/dynamic.hpp"
#include "stackscope/experts/link_balance.hpp"
#include "stackscope/experts/node_balance.hpp"
#include "stackscope/experts/strategies.hpp"
#include "stackscope/moe/predictor.hpp"
#include "stackscope/moe/stats.hpp"

namespace stackscope::experts {
namespace {

[[noreturn]] void fail(const std::string& m) {
  throw std::invalid_argument("moe compare: " + m);
}

void check_range(const char* name, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi) || !std::isfinite(v))
    fail(std::string(name) + " " + number_text(v) + " out of range (allowed: " + number_text(lo) +
         ".." + number_text(hi) + ")");
}

// The tokens of layer `layer` of every trace, joined into one single-layer trace.
moe::RoutingTrace join_layer(const std::vector<moe::RoutingTrace>& traces, int layer) {
  moe::RoutingTrace out;
  out.experts = traces.front().experts;
  out.top_k = traces.front().top_k;
  out.source = "fit traces";
  out.layers.resize(1);
  for (const auto& t : traces) {
    const auto& l = t.layers[static_cast<std::size_t>(layer)];
    out.layers[0].insert(out.layers[0].end(), l.begin(), l.end());
  }
  return out;
}

// Tokens [from, from + count) of one layer as a batch on the mesh.
LayerBatch batch_of(const moe::RoutingTrace& trace, int layer, std::size_t from, std::size_t count,
                    int nodes, const workload::Model& model, double weight_bytes) {
  LayerBatch b;
  b.top_k = trace.top_k;
  b.hidden = model.hidden;
  b.intermediate = model.moe.expert_ffn_dim;
  b.weight_bytes = weight_bytes;
  const auto k = static_cast<std::size_t>(trace.top_k);
  const auto& ids = trace.layers[static_cast<std::size_t>(layer)];
  b.expert_ids.assign(ids.begin() + static_cast<std::ptrdiff_t>(from * k),
                      ids.begin() + static_cast<std::ptrdiff_t>((from + count) * k));
  b.home.resize(count);
  for (std::size_t t = 0; t < count; ++t)
    b.home[t] = static_cast<int>(t % static_cast<std::size_t>(nodes));
  return b;
}

// Incoming links of each node of the mesh (2 to 4; 0 on a 1×1 mesh).
std::vector<int> in_links(const MeshConfig& m) {
  std::vector<int> n(static_cast<std::size_t>(m.nodes()), 0);
  for (int y = 0; y < m.y; ++y)
    for (int x = 0; x < m.x; ++x)
      n[static_cast<std::size_t>(y * m.x + x)] = (x > 0) + (x + 1 < m.x) + (y > 0) + (y + 1 < m.y);
  return n;
}

double busiest_link(const LayerResult& r) {
  double busy = 0;
  for (const auto& l : r.links) busy = std::max(busy, l.busy_s);
  return r.time_s > 0 ? busy / r.time_s : 0.0;
}

}  // namespace

std::string_view to_string(Strategy s) {
  switch (s) {
    case Strategy::tp: return "tp";
    case Strategy::ep: return "ep";
    case Strategy::eplb: return "eplb";
    case Strategy::balanced: return "balanced";
    case Strategy::hd: return "hd";
    case Strategy::hd_dynamic: return "hd-dynamic";
    case Strategy::shadow: return "shadow";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (const auto s : all_strategies())
    if (to_string(s) == text) return s;
  return std::nullopt;
}

std::vector<Strategy> all_strategies() {
  return {Strategy::tp, Strategy::ep,         Strategy::eplb,  Strategy::balanced,
          Strategy::hd, Strategy::hd_dynamic, Strategy::shadow};
}

const StrategyOutcome* CompareResult::find(Strategy s) const {
  for (const auto& o : strategies)
    if (o.strategy == s) return &o;
  return nullptr;
}

std::optional<double> CompareResult::speedup(Strategy of, Strategy over) const {
  const auto *a = find(of), *b = find(over);
  if (!a || !b || !(a->end_to_end_s > 0)) return std::nullopt;
  return b->end_to_end_s / a->end_to_end_s;
}

std::optional<double> CompareResult::moe_speedup(Strategy of, Strategy over) const {
  const auto *a = find(of), *b = find(over);
  if (!a || !b || !(a->moe_s > 0)) return std::nullopt;
  return b->moe_s / a->moe_s;
}

double non_moe_time(const workload::Model& model, const MeshConfig& mesh, int batch, int context,
                    double weight_bytes) {
  if (model.moe.experts < 1) fail("model " + model.id + " has no routed experts");
  if (batch < 1) fail("batch " + std::to_string(batch) + " (allowed: >= 1)");
  if (context < 1) fail("context " + std::to_string(context) + " (allowed: >= 1)");
  const double h = model.hidden, q = static_cast<double>(model.heads) * model.head_dim,
               kv = static_cast<double>(model.kv_heads) * model.head_dim;
  const double attention_weights = h * q + 2 * h * kv + q * h;  // Wq, Wk, Wv, Wo
  const double shared_ffn = model.moe.shared_expert_ffn_dim > 0 ? model.moe.shared_expert_ffn_dim
                                                                : model.moe.expert_ffn_dim;
  const double shared_weights = 3.0 * h * shared_ffn * model.moe.shared_experts;  // gated FFN
  const double b = batch, ctx = context;
  const double flops = 2 * (attention_weights + shared_weights) * b +
                       4 * b * ctx * static_cast<double>(model.heads) * model.head_dim;
  const double bytes = (attention_weights + shared_weights + b * 2 * kv * ctx) * weight_bytes;
  const double n = mesh.nodes();
  return std::max(flops / (n * mesh.node_flops), bytes / (n * mesh.mem_Bps));
}

moe::RoutingTrace token_range(const moe::RoutingTrace& trace, std::size_t from, std::size_t to) {
  std::size_t fewest = trace.layers.empty() ? 0 : trace.tokens(0);
  for (std::size_t l = 0; l < trace.layers.size(); ++l) fewest = std::min(fewest, trace.tokens(l));
  if (!(from < to) || to > fewest)
    throw std::invalid_argument("token range [" + std::to_string(from) + ", " + std::to_string(to) +
                                ") of " + trace.source +
                                " (allowed: from < to <= " + std::to_string(fewest) + ")");
  moe::RoutingTrace out;
  out.experts = trace.experts;
  out.top_k = trace.top_k;
  out.source = trace.source + " tokens " + std::to_string(from) + ".." + std::to_string(to);
  const auto k = static_cast<std::size_t>(trace.top_k);
  for (const auto& l : trace.layers)
    out.layers.emplace_back(l.begin() + static_cast<std::ptrdiff_t>(from * k),
                            l.begin() + static_cast<std::ptrdiff_t>(to * k));
  return out;
}

FitProblem fit_problem(const workload::Model& model, const CompareConfig& cfg,
                       const moe::RoutingTrace& fit, int layer) {
  const int N = cfg.mesh.nodes();
  const double h = model.hidden, I = model.moe.expert_ffn_dim;
  FitProblem out;
  out.stats = moe::layer_stats(fit, static_cast<std::size_t>(layer));
  NodeBalanceInput& nb = out.input;
  nb.loads = out.stats.frequency;
  std::size_t covered = 0;
  for (std::size_t g = 0;
       g < out.stats.sets.size() && g < static_cast<std::size_t>(cfg.hd_max_sets); ++g) {
    nb.sets.push_back(out.stats.sets[g]);
    covered += out.stats.sets[g].tokens;
  }
  out.set_coverage = out.stats.tokens > 0
                         ? static_cast<double>(covered) / static_cast<double>(out.stats.tokens)
                         : 0;
  const auto links = in_links(cfg.mesh);
  nb.nodes = N;
  nb.tokens = cfg.batch;
  nb.compute_s = 2 * 3 * h * I / cfg.mesh.node_flops;
  nb.expert_bytes = 3 * h * I * cfg.weight_bytes;
  nb.weight_read_s = nb.expert_bytes / cfg.mesh.mem_Bps;
  nb.comm_s.resize(static_cast<std::size_t>(N));
  for (int c = 0; c < N; ++c) {
    const int n = links[static_cast<std::size_t>(c)];
    nb.comm_s[static_cast<std::size_t>(c)] =
        n > 0 ? h * cfg.mesh.activation_bytes / (n * cfg.mesh.link_Bps) : 0.0;
  }
  nb.capacity_bytes = cfg.capacity_bytes;
  nb.solver.time_limit_s = cfg.hd_time_limit_s;
  nb.solver.mip_gap = cfg.hd_mip_gap;
  nb.solver.stop = cfg.stop;
  return out;
}

Placement fit_placement(const workload::Model& model, const CompareConfig& cfg, Strategy s,
                        const moe::RoutingTrace& fit, int layer, const FitProblem& problem,
                        int eplb_redundant, HdSolve* solve_out) {
  const int E = model.moe.experts, N = cfg.mesh.nodes();
  const auto& freq = problem.stats.frequency;
  switch (s) {
    case Strategy::tp: return tp_placement(E, N);
    case Strategy::ep: return ep_placement(E, N);
    case Strategy::eplb: return eplb_placement(freq, N, eplb_redundant, cfg.eplb_groups);
    case Strategy::balanced: return balanced_placement(freq, N);
    case Strategy::hd:
    case Strategy::hd_dynamic:
    case Strategy::shadow: break;
  }
  const NodeBalanceInput& nb = problem.input;
  const auto r = node_balance(nb);
  Placement p = r.placement;
  HdSolve solve;
  solve.layer = layer;
  solve.status = r.solution.status;
  solve.gap = r.solution.gap;
  solve.seconds = r.solution.seconds;
  solve.objective_s = r.objective_s;
  solve.warm_start = r.warm_start;
  solve.warm_start_objective_s = r.warm_start_objective_s;
  solve.split_experts = r.split_experts;
  solve.sets = static_cast<int>(nb.sets.size());
  solve.set_coverage = problem.set_coverage;
  // Polish (compare.hpp): the MILP's placement or a warm-start candidate, whichever simulates
  // fastest on the fit batches.
  std::vector<std::pair<std::string, Placement>> cands;
  cands.emplace_back("milp", r.placement);
  cands.emplace_back("ep", ep_placement(E, N));
  cands.emplace_back("tp", tp_placement(E, N));
  cands.emplace_back("interval", interval_placement(freq, N));
  cands.emplace_back("balanced", balanced_placement(freq, N));
  const auto B = static_cast<std::size_t>(cfg.batch);
  const std::size_t fit_batches = std::min<std::size_t>(
      static_cast<std::size_t>(cfg.batches), fit.tokens(static_cast<std::size_t>(layer)) / B);
  std::vector<LayerBatch> batches;
  for (std::size_t b = 0; b < fit_batches; ++b)
    batches.push_back(batch_of(fit, layer, b * B, B, N, model, cfg.weight_bytes));
  const double runs = static_cast<double>(std::max<std::size_t>(fit_batches, 1));
  double best = lp::kInf;
  for (auto& [name, cand] : cands) {
    if (!validate(cand, E, N, nb.expert_bytes, cfg.capacity_bytes).empty()) continue;
    double t = 0;
    for (const auto& batch : batches) t += simulate_layer(cfg.mesh, cand, batch).time_s;
    if (name == "milp") solve.milp_fit_s = t / runs;
    if (t < best) {
      best = t;
      solve.chosen = name;
      p = cand;
    }
  }
  solve.chosen_fit_s = best / runs;
  solve.linked_fit_s = solve.chosen_fit_s;
  if (cfg.link_iterations > 0 && fit_batches > 0) {
    LinkBalanceInput lb;
    lb.mesh = cfg.mesh;
    lb.placement = p;
    lb.batches = std::move(batches);
    lb.iterations = cfg.link_iterations;
    lb.seed = cfg.seed;
    lb.stop = cfg.stop;
    if (cfg.activity)
      lb.progress = [&](int done, int total) {
        cfg.activity("link balance, " + std::to_string(done) + " of " + std::to_string(total) +
                     " moves");
      };
    const auto linked = link_balance(lb);
    p = linked.placement;
    solve.linked_fit_s = linked.objective_s / static_cast<double>(fit_batches);
    solve.link_accepted = linked.accepted;
  }
  if (solve_out) *solve_out = solve;
  return p;
}

BatchScore score_batch(const CompareConfig& cfg, Strategy s, const Placement& placement,
                       const LayerBatch& batch, std::span<const int> predicted, double non_moe_s) {
  BatchScore out;
  if (s == Strategy::hd_dynamic && !predicted.empty()) {
    PreBroadcastInput in;
    in.mesh = cfg.mesh;
    in.placement = placement;
    in.batch = batch;
    in.predicted.assign(predicted.begin(), predicted.end());
    in.overlap_s = non_moe_s;
    in.capacity_bytes_per_node = cfg.capacity_bytes;
    auto d = pre_broadcast(in);
    out.exposed_s = d.total_s - d.layer.time_s;
    out.broadcast_bytes = d.broadcast_bytes;
    out.layer = std::move(d.layer);
  } else if (s == Strategy::shadow) {
    ShadowInput in;
    in.mesh = cfg.mesh;
    in.placement = placement;
    in.batch = batch;
    in.capacity_bytes_per_node = cfg.capacity_bytes;
    auto d = shadow(in);
    out.exposed_s = d.total_s - d.layer.time_s;
    out.broadcast_bytes = d.broadcast_bytes;
    out.shadowed = static_cast<int>(d.experts.size());
    out.layer = std::move(d.layer);
  } else {
    out.layer = simulate_layer(cfg.mesh, placement, batch,
                               s == Strategy::eplb ? cfg.eplb_choice : CopyChoice::round_robin);
  }
  out.layer.time_s += out.exposed_s;  // the layer ends when its work and its broadcasts are done
  return out;
}

CompareResult compare(const workload::Model& model, const CompareConfig& cfg,
                      const std::vector<moe::RoutingTrace>& fit,
                      const std::vector<moe::RoutingTrace>& eval) {
  const int E = model.moe.experts, K = model.moe.top_k, N = cfg.mesh.nodes();
  if (E < 1 || K < 1) fail("model " + model.id + " has no routed experts");
  if (cfg.mesh.x < 1 || cfg.mesh.y < 1 || cfg.mesh.x > kMaxMeshSide ||
      cfg.mesh.y > kMaxMeshSide || N > kMaxMeshNodes)
    fail("mesh " + std::to_string(cfg.mesh.x) + "x" + std::to_string(cfg.mesh.y) +
         " out of range (allowed: 1.." + std::to_string(kMaxMeshSide) + " per side, at most " +
         std::to_string(kMaxMeshNodes) + " nodes)");
  check_range("batch", cfg.batch, 1, 65536);
  check_range("batches", cfg.batches, 1, 1024);
  if (static_cast<long long>(cfg.batch) * cfg.batches > kMaxScoredTokens)
    fail("batch x batches = " + std::to_string(static_cast<long long>(cfg.batch) * cfg.batches) +
         " tokens out of range (allowed: at most " + std::to_string(kMaxScoredTokens) + ")");
  check_range("weight_bytes", cfg.weight_bytes, 0.125, 8);
  check_range("hd_time_limit_s", cfg.hd_time_limit_s, 1e-3, 1e5);
  check_range("hd_mip_gap", cfg.hd_mip_gap, 0, 1);
  check_range("hd_max_sets", cfg.hd_max_sets, 1, 100000);
  check_range("link_iterations", cfg.link_iterations, 0, kMaxLinkIterations);
  check_range("predicted_experts", cfg.predicted_experts, 1, 65536);
  check_range("context", cfg.context, 1, 1 << 24);
  if (!(cfg.capacity_bytes > 0)) fail("capacity_bytes must be > 0");
  if (fit.empty()) fail("no fit traces");
  if (eval.empty()) fail("no eval traces");
  std::size_t fewest_layers = SIZE_MAX;
  for (const auto* set : {&fit, &eval})
    for (const auto& t : *set) {
      moe::check(t);
      if (t.experts != E || t.top_k != K)
        fail("trace " + t.source + " has " + std::to_string(t.experts) + " experts, top-" +
             std::to_string(t.top_k) + "; the model " + model.id + " has " + std::to_string(E) +
             ", top-" + std::to_string(K));
      fewest_layers = std::min(fewest_layers, t.layers.size());
    }
  for (const auto& t : eval)
    for (std::size_t l = 0; l < t.layers.size(); ++l)
      if (t.tokens(l) < static_cast<std::size_t>(cfg.batch))
        fail("trace " + t.source + " layer " + std::to_string(l) + " has " +
             std::to_string(t.tokens(l)) + " tokens, fewer than one batch of " +
             std::to_string(cfg.batch));

  CompareResult out;
  out.experts = E;
  out.top_k = K;
  out.moe_layers = model.layers - model.moe.first_dense_layers;
  out.layers = cfg.layers;
  if (out.layers.empty())
    for (std::size_t l = 0; l < fewest_layers; ++l) out.layers.push_back(static_cast<int>(l));
  for (const int l : out.layers)
    if (l < 0 || static_cast<std::size_t>(l) >= fewest_layers)
      fail("layer " + std::to_string(l) + " out of range (allowed: 0.." +
           std::to_string(fewest_layers - 1) + ", the layers every trace has)");
  out.non_moe_s = cfg.non_moe_s >= 0
                      ? cfg.non_moe_s
                      : non_moe_time(model, cfg.mesh, cfg.batch, cfg.context, cfg.weight_bytes);
  int R = cfg.eplb_redundant;
  if (R < 0) {
    R = 1;
    while ((E + R) % N != 0) ++R;
  }
  out.eplb_redundant = R;

  const double expert_bytes = 3.0 * model.hidden * model.moe.expert_ffn_dim * cfg.weight_bytes;
  const auto strategies = cfg.strategies.empty() ? all_strategies() : cfg.strategies;
  for (const auto s : strategies) {
    StrategyOutcome o;
    o.strategy = s;
    out.strategies.push_back(std::move(o));
  }

  // HD-MoE's next-layer predictor, fitted on the fit traces only (moe/predictor.hpp).
  std::unique_ptr<moe::NextLayerPredictor> predictor;
  if (std::find(strategies.begin(), strategies.end(), Strategy::hd_dynamic) != strategies.end())
    predictor = std::make_unique<moe::NextLayerPredictor>(fit);
  const auto B = static_cast<std::size_t>(cfg.batch);
  // The experts predicted hottest for tokens [from, from + B) of `layer`, from their experts at
  // layer - 1 (Σ over the batch of each token's scores), hottest first, ties to the lower id.
  const auto predict = [&](const moe::RoutingTrace& t, int layer, std::size_t from) {
    std::vector<double> load(static_cast<std::size_t>(E), 0.0), sc(load.size());
    const auto prev = static_cast<std::size_t>(layer - 1);
    for (std::size_t k = 0; k < B; ++k) {
      predictor->scores(prev, t.token(prev, from + k), sc.data());
      for (std::size_t e = 0; e < load.size(); ++e) load[e] += sc[e];
    }
    std::vector<int> order(load.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      return load[static_cast<std::size_t>(x)] > load[static_cast<std::size_t>(y)];
    });
    order.resize(static_cast<std::size_t>(std::min(cfg.predicted_experts, E)));
    return order;
  };
  const std::size_t steps = out.layers.size() * strategies.size();
  std::size_t step = 0;
  const auto stopped = [&] {
    if (cfg.stop.stop_requested()) out.stopped = true;
    return out.stopped;
  };
  for (const int layer : out.layers) {
    if (stopped()) break;
    const auto joined = join_layer(fit, layer);
    const FitProblem problem = fit_problem(model, cfg, joined, 0);
    // HD-MoE's static placement, built once per layer for hd, hd-dynamic and shadow.
    std::optional<Placement> hd_cache;
    std::vector<std::pair<std::string, Placement>> placements;
    for (const auto s : strategies) {
      if (stopped()) break;
      const bool hd_family =
          s == Strategy::hd || s == Strategy::hd_dynamic || s == Strategy::shadow;
      Placement p;
      if (hd_family && hd_cache) {
        p = *hd_cache;
      } else {
        HdSolve solve;
        CompareConfig lc = cfg;  // link balance seeded per layer
        lc.seed = cfg.seed + static_cast<std::uint64_t>(layer);
        const std::string where =
            "layer " + std::to_string(layer) + ", " + std::string(to_string(s));
        if (cfg.activity) {
          cfg.activity(where + ": fitting");
          lc.activity = [&](std::string_view what) {
            cfg.activity(where + ": " + std::string(what));
          };
        }
        p = fit_placement(model, lc, s, joined, 0, problem, R, &solve);
        if (hd_family) {
          solve.layer = layer;
          out.hd.push_back(solve);
          hd_cache = p;
        }
      }
      placements.emplace_back(std::string(to_string(s)), std::move(p));
    }

    for (std::size_t si = 0; si < strategies.size() && !stopped(); ++si) {
      auto& o = out.strategies[si];
      const auto& placement = placements[si].second;
      const auto issues = validate(placement, E, N, expert_bytes, cfg.capacity_bytes);
      if (!issues.empty())
        fail("strategy " + placements[si].first + " at layer " + std::to_string(layer) + ": " +
             issues.front().path + ": " + issues.front().message);
      LayerOutcome lo;
      lo.layer = layer;
      lo.imbalance = 0;
      lo.surrogate_s = surrogate(placement, problem.input);
      double err = 0;
      int runs = 0;
      for (const auto& t : eval) {
        const std::size_t have =
            t.tokens(static_cast<std::size_t>(layer)) / static_cast<std::size_t>(cfg.batch);
        const std::size_t n = std::min(have, static_cast<std::size_t>(cfg.batches));
        for (std::size_t b = 0; b < n && !stopped(); ++b) {
          const auto batch =
              batch_of(t, layer, b * static_cast<std::size_t>(cfg.batch),
                       static_cast<std::size_t>(cfg.batch), N, model, cfg.weight_bytes);
          const bool predictable = predictor && layer > 0 &&
                                   static_cast<std::size_t>(layer - 1) < predictor->layer_pairs();
          std::vector<int> predicted;
          if (strategies[si] == Strategy::hd_dynamic && predictable)
            predicted = predict(t, layer, b * B);
          BatchScore sc =
              score_batch(cfg, strategies[si], placement, batch, predicted, out.non_moe_s);
          LayerResult& r = sc.layer;
          lo.exposed_broadcast_s += sc.exposed_s;
          lo.broadcast_bytes += sc.broadcast_bytes;
          lo.shadowed += sc.shadowed;
          lo.time_s += r.time_s;
          lo.imbalance += r.load_imbalance;
          lo.link_utilisation += busiest_link(r);
          lo.link_bytes += r.link_bytes;
          err += r.time_s > 0 ? std::abs(lo.surrogate_s - r.time_s) / r.time_s : 0.0;
          if (o.layers.empty() && runs == 0) o.first = std::move(r);
          ++runs;
        }
      }
      if (stopped()) break;  // an incomplete layer is not a result
      lo.time_s /= runs;
      lo.imbalance /= runs;
      lo.link_utilisation /= runs;
      lo.link_bytes /= runs;
      lo.broadcast_bytes /= runs;
      lo.exposed_broadcast_s /= runs;
      lo.shadowed /= runs;
      lo.surrogate_error = err / runs;
      o.layers.push_back(lo);
      o.placements.push_back(placement);
      if (cfg.progress) cfg.progress(++step, steps);
    }
  }
  summarise(out);
  return out;
}

void summarise(CompareResult& r) {
  for (auto& o : r.strategies) {
    double t = 0, imb = 0, util = 0, err = 0;
    for (const auto& l : o.layers) {
      t += l.time_s;
      imb += l.imbalance;
      util += l.link_utilisation;
      err += l.surrogate_error;
    }
    const double n = static_cast<double>(std::max<std::size_t>(o.layers.size(), 1));
    o.moe_s = t / n * r.moe_layers;
    o.end_to_end_s = o.moe_s + r.non_moe_s * r.moe_layers;
    o.imbalance = o.layers.empty() ? 1.0 : imb / n;
    o.link_utilisation = util / n;
    o.surrogate_error = err / n;
  }
}

}  // namespace stackscope::experts
