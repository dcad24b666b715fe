// SPDX-License-Identifier: GPL-3.0-or-later
// The design's expert placement in the evaluator (expert_placement.hpp).
#include "stackscope/perf/expert_placement.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/common/precision.hpp"
#include "stackscope/experts/fit.hpp"
#include "stackscope/experts/strategies.hpp"
#include "stackscope/lp/lp.hpp"
#include "stackscope/moe/trace.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/evaluator.hpp"

namespace stackscope::perf {
namespace {

using parallel::ExpertStrategy;

experts::Strategy to_experts(ExpertStrategy s) {
  switch (s) {
    case ExpertStrategy::tp: return experts::Strategy::tp;
    case ExpertStrategy::ep: return experts::Strategy::ep;
    case ExpertStrategy::eplb: return experts::Strategy::eplb;
    case ExpertStrategy::balanced: return experts::Strategy::balanced;
    case ExpertStrategy::hd: return experts::Strategy::hd;
    case ExpertStrategy::hd_dynamic: return experts::Strategy::hd_dynamic;
    case ExpertStrategy::shadow: return experts::Strategy::shadow;
    case ExpertStrategy::plan: break;
  }
  throw std::invalid_argument("expert placement 'plan' has no mesh placement");
}

// Squarest factorisation with dims_x >= dims_y (network/topology.cpp's rule for dims 0).
void squarest(int n, int& dx, int& dy) {
  dy = 1;
  for (int f = 1; static_cast<long long>(f) * f <= n; ++f)
    if (n % f == 0) dy = f;
  dx = n / dy;
}

// Fit batch: parallel.experts.fit_tokens, else the design's decode batch (64 when the batch is
// chosen automatically).
int fit_batch(const Design& d) {
  if (d.parallel.experts.fit_tokens > 0) return std::min(d.parallel.experts.fit_tokens, 65536);
  return std::clamp(d.workload.batch_auto ? 64 : d.workload.batch, 1, 65536);
}

// Everything a fitted placement depends on, as text (cache key).
std::string fit_key(const Design& d, const experts::MeshConfig& mesh, int row, double wb,
                    double capacity) {
  const auto& m = d.model;
  const auto& r = d.workload.routing;
  const auto& e = d.parallel.experts;
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the frequency rows' bits
  for (const auto& v : r.expert_frequency)
    for (const double f : v) {
      h ^= std::bit_cast<std::uint64_t>(f);
      h *= 1099511628211ULL;
    }
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "%s|%d|%d|%d|%d|%d|%d %d %.17g %.17g %.17g %.17g %.17g %.17g|%d %.17g %.17g %llu "
                "%zu %llx|%d %d %.17g %d %d %llu %d %d|%d %.17g %.17g",
                m.id.c_str(), m.hidden, m.moe.expert_ffn_dim, m.moe.experts, m.moe.top_k, m.layers,
                mesh.x, mesh.y, mesh.node_flops, mesh.mem_Bps, mesh.link_Bps, mesh.alpha_s,
                mesh.chunk_bytes, mesh.activation_bytes, static_cast<int>(r.kind), r.zipf_s,
                r.dirichlet_alpha, static_cast<unsigned long long>(r.seed),
                r.expert_frequency.size(), static_cast<unsigned long long>(h),
                static_cast<int>(e.strategy), e.eplb_groups, e.hd_time_limit_s, e.hd_max_sets,
                e.link_iterations, static_cast<unsigned long long>(e.seed),
                d.parallel.redundant_experts_per_rank, fit_batch(d), row, wb, capacity);
  return buf;
}

// The routing of MoE layer `row` alone (a recorded table's row; synthetic kinds have one row),
// so that token draws cost one layer, not all of them.
workload::Routing row_routing(const workload::Routing& r, int row) {
  workload::Routing one = r;
  if (r.expert_frequency.size() > 1)
    one.expert_frequency = {r.expert_frequency[static_cast<std::size_t>(row)]};
  return one;
}

// Seeds of layer `row`'s fit draw (eval draws take the next one): independent per layer.
std::uint64_t fit_seed(std::uint64_t seed, int row) {
  return seed + 2 * static_cast<std::uint64_t>(row);
}

struct Fitted {
  experts::CompareConfig cfg;
  experts::Placement placement;
  std::vector<int> predicted;  // hd-dynamic: the layer's most frequent expert
  int layers = 1;              // rows of the routing
};

// Process-wide memo tables, cleared when full (a search visits few distinct fits).
std::mutex g_mutex;
std::map<std::string, std::shared_ptr<const Fitted>> g_fits;
std::map<std::string, MeshMoeCost> g_costs;
constexpr std::size_t kMaxFits = 512, kMaxCosts = 1 << 16;
// Largest batch simulated at once (mesh_moe_layer). Our choice, bounding one simulation's
// cost; on the Mixtral mesh preset slicing a 16k-token prefill moved TTFT by 0.04 %. The fit
// draws (max(4096, 4 B) tokens, 4 batches) follow `stackscope-cli moe`'s defaults.
constexpr std::size_t kSliceTokens = 4096;
// GLPK is solved one problem at a time (its environment is per thread only when built with
// thread-local storage); fits are rare, so they are serialised.
std::mutex g_fit_mutex;

std::shared_ptr<const Fitted> fitted(const Design& d, const experts::MeshConfig& mesh, int row,
                                     double wb, double capacity, const std::string& key) {
  {
    std::lock_guard lock(g_mutex);
    if (auto it = g_fits.find(key); it != g_fits.end()) return it->second;
  }
  std::lock_guard fit_lock(g_fit_mutex);
  {
    std::lock_guard lock(g_mutex);
    if (auto it = g_fits.find(key); it != g_fits.end()) return it->second;
  }
  const auto& m = d.model;
  const auto& e = d.parallel.experts;
  auto f = std::make_shared<Fitted>();
  f->layers = moe::frequency_rows(d.workload.routing);
  auto& cfg = f->cfg;
  cfg.mesh = mesh;
  cfg.batch = fit_batch(d);
  cfg.batches = 4;
  cfg.weight_bytes = wb;
  cfg.capacity_bytes = capacity;
  cfg.eplb_groups = e.eplb_groups;
  cfg.hd_time_limit_s = e.hd_time_limit_s;
  cfg.hd_max_sets = e.hd_max_sets;
  cfg.link_iterations = e.link_iterations;
  cfg.seed = e.seed + static_cast<std::uint64_t>(row);
  const std::size_t tokens = std::max<std::size_t>(4096, 4 * static_cast<std::size_t>(cfg.batch));
  const auto trace = moe::synthetic_trace(row_routing(d.workload.routing, row), m.moe.experts,
                                          m.moe.top_k, 1, tokens, fit_seed(e.seed, row));
  const auto problem = experts::fit_problem(m, cfg, trace, 0);
  const int R = eplb_redundant_slots(m.moe.experts, mesh.nodes(),
                                     std::max(0, d.parallel.redundant_experts_per_rank));
  f->placement = experts::fit_placement(m, cfg, to_experts(e.strategy), trace, 0, problem, R);
  const auto issues = experts::validate(f->placement, m.moe.experts, mesh.nodes(),
                                        3.0 * m.hidden * m.moe.expert_ffn_dim * wb, capacity);
  if (!issues.empty())
    throw std::invalid_argument("expert placement '" +
                                std::string(parallel::to_string(e.strategy)) + "', MoE layer " +
                                std::to_string(row) + ": " + issues.front().message);
  const auto& freq = problem.stats.frequency;
  f->predicted = {static_cast<int>(std::max_element(freq.begin(), freq.end()) - freq.begin())};
  std::lock_guard lock(g_mutex);
  if (g_fits.size() >= kMaxFits) g_fits.clear();
  g_fits.emplace(key, f);
  return f;
}

// Free bytes per node for one MoE layer's routed experts: the capacity less everything but
// the routed experts (at their mean share E / N), shared over the fullest stage's MoE layers;
// at least the mean share, so that a design over capacity still gets a placement (its memory
// check fails on its own).
double expert_capacity(const Design& d, int nodes, double wb) {
  const auto& m = d.model;
  const MemoryFootprint f = memory_footprint(d, fit_batch(d));
  const auto p = parallel::param_counts(m);
  int moe_layers = 0;
  for (int s = 0; s < std::max(1, d.parallel.pp); ++s)
    moe_layers = std::max(moe_layers, parallel::stage_layers(m, std::max(1, d.parallel.pp), s).moe);
  moe_layers = std::max(1, moe_layers);
  const double mean = static_cast<double>(m.moe.experts) / nodes * p.expert * wb;
  const double others = f.total() - moe_layers * mean;
  return std::max(mean * (1 + 1e-9), (f.capacity - others) / moe_layers);
}

}  // namespace

int eplb_redundant_slots(int experts, int ranks, int redundant_per_rank) noexcept {
  if (ranks < 1 || experts < 1) return 0;
  long long r = 1LL * std::max(0, redundant_per_rank) * ranks;
  const long long rem = (experts + r) % ranks;
  if (rem != 0) r += ranks - rem;
  return static_cast<int>(std::min<long long>(r, 1 << 20));
}

std::string expert_mesh_unfit(const hw::System& s, int stage_devices) {
  if (s.levels.empty()) return "the system has no network levels";
  const auto& l = s.levels.front();
  if (l.topology != hw::Topology::mesh2d)
    return "its first network level '" + l.name + "' is not a mesh2d";
  const int size = l.size > 0 ? l.size : s.devices;
  if (size != stage_devices)
    return "its mesh has " + std::to_string(size) + " nodes, a pipeline stage " +
           std::to_string(stage_devices) + " devices (they must be equal)";
  return {};
}

bool simulated_on_mesh(const Design& d) {
  if (d.parallel.experts.strategy == ExpertStrategy::plan || !parallel::is_moe(d.model))
    return false;
  const int stage = parallel::devices_per_stage(d.parallel);
  return stage >= 1 && expert_mesh_unfit(d.system, stage).empty();
}

experts::MeshConfig expert_mesh(const hw::System& s, double node_flops, double mem_Bps,
                                double activation_bytes) {
  experts::MeshConfig mesh;
  const auto& l = s.levels.front();
  const int size = l.size > 0 ? l.size : s.devices;
  if (l.dims_x > 0 && l.dims_y > 0) {
    mesh.x = l.dims_x;
    mesh.y = l.dims_y;
  } else {
    squarest(size, mesh.x, mesh.y);
  }
  mesh.node_flops = node_flops;
  mesh.mem_Bps = mem_Bps;
  mesh.link_Bps = l.link_GBps * 1e9 * l.efficiency;
  mesh.alpha_s = l.latency_us * 1e-6;
  mesh.activation_bytes = activation_bytes;
  return mesh;
}

MeshMoeCost mesh_moe_layer(const Design& d, const experts::MeshConfig& mesh, int row, double tokens,
                           double wb) {
  const int N = mesh.nodes();
  // HD-MoE's MILP holds each node to its free memory; the other strategies' placements follow
  // fixed rules, and memory_footprint() counts what they put on the fullest node.
  const bool hd = d.parallel.experts.strategy == ExpertStrategy::hd ||
                  d.parallel.experts.strategy == ExpertStrategy::hd_dynamic ||
                  d.parallel.experts.strategy == ExpertStrategy::shadow;
  const double capacity = hd ? expert_capacity(d, N, wb) : lp::kInf;
  const std::string key = fit_key(d, mesh, row, wb, capacity);
  const auto T = static_cast<std::size_t>(std::max(1.0, std::round(tokens)));
  const std::string cost_key = key + "|" + std::to_string(T);
  {
    std::lock_guard lock(g_mutex);
    if (auto it = g_costs.find(cost_key); it != g_costs.end()) return it->second;
  }
  const auto f = fitted(d, mesh, row, wb, capacity, key);
  const auto& m = d.model;
  // Above kSliceTokens tokens (prefill passes), one slice of S <= kSliceTokens tokens is
  // simulated and its work scaled by T / S: the layer as consecutive slices, as chunked
  // prefill runs it (the slices' compute and traffic are linear in their tokens; a slice's
  // weight reads, latencies and broadcasts repeat). Keeps every simulation to a bounded batch.
  const std::size_t slices = (T + kSliceTokens - 1) / kSliceTokens;
  const std::size_t S = (T + slices - 1) / slices;
  const double scale = static_cast<double>(T) / static_cast<double>(S);
  const std::size_t draws = std::clamp<std::size_t>((kSliceTokens + S - 1) / S, 1, 4);
  const auto eval =
      moe::synthetic_trace(row_routing(d.workload.routing, row), m.moe.experts, m.moe.top_k, 1,
                           S * draws, fit_seed(d.parallel.experts.seed, row) + 1);
  const auto s = to_experts(d.parallel.experts.strategy);
  const double non_moe =
      experts::non_moe_time(m, mesh, static_cast<int>(S), std::max(1, d.workload.input_len), wb);
  MeshMoeCost out;
  out.imbalance = 0;
  const auto k = static_cast<std::size_t>(m.moe.top_k);
  for (std::size_t b = 0; b < draws; ++b) {
    experts::LayerBatch batch;
    batch.top_k = m.moe.top_k;
    batch.hidden = m.hidden;
    batch.intermediate = m.moe.expert_ffn_dim;
    batch.weight_bytes = wb;
    const auto& ids = eval.layers.front();
    batch.expert_ids.assign(ids.begin() + static_cast<std::ptrdiff_t>(b * S * k),
                            ids.begin() + static_cast<std::ptrdiff_t>((b + 1) * S * k));
    batch.home.resize(S);
    for (std::size_t t = 0; t < S; ++t)
      batch.home[t] = static_cast<int>(t % static_cast<std::size_t>(N));
    const auto sc = experts::score_batch(f->cfg, s, f->placement, batch, f->predicted, non_moe);
    const auto& r = sc.layer;
    out.time_s += r.time_s;
    const experts::NodeStats* busiest = &r.nodes.front();
    double sent = 0;
    for (const auto& n : r.nodes) {
      if (n.compute_s > busiest->compute_s) busiest = &n;
      sent += n.bytes_sent;
    }
    out.compute_s += busiest->compute_s;
    out.flops += busiest->flops;
    out.weight_bytes += busiest->weight_bytes;
    out.bytes_sent += sent / N;
    out.link_bytes += r.link_bytes;
    out.imbalance += r.load_imbalance;
    out.broadcast_bytes += sc.broadcast_bytes;
  }
  const double n = static_cast<double>(draws);
  out.time_s *= scale / n;
  out.compute_s *= scale / n;
  out.flops *= scale / n;
  out.weight_bytes *= scale / n;
  out.bytes_sent *= scale / n;
  out.link_bytes *= scale / n;
  out.imbalance /= n;
  out.broadcast_bytes *= scale / n;
  std::lock_guard lock(g_mutex);
  if (g_costs.size() >= kMaxCosts) g_costs.clear();
  g_costs.emplace(cost_key, out);
  return out;
}

moe::EpLoad placed_ep_load(const Design& d, const double* freq, int ranks, double tokens) {
  const auto& m = d.model;
  const int E = m.moe.experts;
  const auto s = d.parallel.experts.strategy;
  const int R =
      s == ExpertStrategy::eplb
          ? eplb_redundant_slots(E, ranks, std::max(0, d.parallel.redundant_experts_per_rank))
          : 0;
  const int groups = d.parallel.experts.eplb_groups;
  // The placement depends on the loads, not on the token count: the last few are kept per
  // thread (frequencies compared bitwise), so a search's evaluations of one routing row build
  // it once (the evaluator's hot path; moe::ep_load_memo does the same for the plan's layout).
  struct Memo {
    std::vector<double> freq;
    int ranks = 0, R = 0, groups = 0;
    ExpertStrategy strategy = ExpertStrategy::plan;
    experts::Placement placement;
  };
  constexpr std::size_t kMemo = 4;
  static thread_local std::vector<Memo> memo;
  static thread_local std::size_t next = 0;
  const Memo* hit = nullptr;
  for (const auto& x : memo)
    if (x.ranks == ranks && x.R == R && x.groups == groups && x.strategy == s &&
        x.freq.size() == static_cast<std::size_t>(E) &&
        std::equal(x.freq.begin(), x.freq.end(), freq, [](double a, double b) {
          return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
        })) {
      hit = &x;
      break;
    }
  if (!hit) {
    Memo x{std::vector<double>(freq, freq + E), ranks, R, groups, s, {}};
    x.placement = s == ExpertStrategy::eplb ? experts::eplb_placement(x.freq, ranks, R, groups)
                                            : experts::balanced_placement(x.freq, ranks);
    if (memo.size() < kMemo) {
      memo.push_back(std::move(x));
      hit = &memo.back();
    } else {
      memo[next] = std::move(x);
      hit = &memo[next];
      next = (next + 1) % kMemo;
    }
  }
  const experts::Placement& p = hit->placement;
  static thread_local std::vector<double> work, active;
  work.assign(static_cast<std::size_t>(ranks), 0.0);
  active.assign(work.size(), 0.0);
  for (int i = 0; i < E; ++i) {
    const auto& copies = p.experts[static_cast<std::size_t>(i)].copies;
    // A token of a copied expert goes to one copy; copies share its tokens evenly.
    const double share = freq[i] / static_cast<double>(copies.size());
    for (const auto& c : copies)
      for (const auto& sh : c.shares) {
        work[static_cast<std::size_t>(sh.node)] += share * tokens * sh.fraction;
        active[static_cast<std::size_t>(sh.node)] +=
            moe::hit_probability(share, tokens) * sh.fraction;
      }
  }
  moe::EpLoad out;
  for (int r = 0; r < ranks; ++r) {
    const moe::RankLoad l{work[static_cast<std::size_t>(r)], active[static_cast<std::size_t>(r)]};
    if (l.tokens > out.most_tokens.tokens) out.most_tokens = l;
    if (l.active_experts > out.most_experts.active_experts) out.most_experts = l;
  }
  return out;
}

double experts_per_device(const Design& d) noexcept {
  const auto& m = d.model;
  if (!parallel::is_moe(m)) return 0.0;
  const parallel::Placement place(d.parallel);
  const int tp_m = std::max(1, place.moe_tp()), ep_m = std::max(1, place.moe_ep());
  const int E = m.moe.experts;
  const int red = std::max(0, d.parallel.redundant_experts_per_rank);
  const auto s = d.parallel.experts.strategy;
  const bool mesh = simulated_on_mesh(d);
  const int ranks = mesh ? std::max(1, parallel::devices_per_stage(d.parallel)) : ep_m;
  const int split = mesh ? 1 : tp_m;
  switch (s) {
    case ExpertStrategy::plan: break;
    case ExpertStrategy::tp:
    case ExpertStrategy::hd:
    case ExpertStrategy::hd_dynamic:
    case ExpertStrategy::shadow: return static_cast<double>(E) / ranks;
    case ExpertStrategy::ep: return std::ceil(static_cast<double>(E) / ranks);
    case ExpertStrategy::eplb:
      return static_cast<double>(E + eplb_redundant_slots(E, ranks, red)) / ranks / split;
    case ExpertStrategy::balanced: {
      // Each layer's placement follows its own loads: the fullest device's mean per layer
      // over the routing's rows (used cyclically over the MoE layers).
      try {
        const int rows = std::max(1, moe::frequency_rows(d.workload.routing));
        double freq[moe::kMaxExperts];
        std::vector<double> held(static_cast<std::size_t>(ranks), 0.0);
        for (int row = 0; row < rows; ++row) {
          moe::expert_frequency(d.workload.routing, E, m.moe.top_k, row, freq);
          const auto p = experts::balanced_placement(std::vector<double>(freq, freq + E), ranks);
          for (const auto& ep : p.experts)
            for (const auto& c : ep.copies)
              for (const auto& sh : c.shares)
                held[static_cast<std::size_t>(sh.node)] += sh.fraction;
        }
        return *std::max_element(held.begin(), held.end()) / rows / split;
      } catch (...) {
        return static_cast<double>(E) / ranks / split;
      }
    }
  }
  return (static_cast<double>(E) / ep_m + red) / tp_m;
}

}  // namespace stackscope::perf
