// SPDX-License-Identifier: GPL-3.0-or-later
// Dynamic scheduling: HD-MoE pre-broadcast and FasterMoE shadowing (dynamic.hpp has the models
// and their sources).
#include "stackscope/experts/dynamic.hpp"

#include "layer_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace stackscope::experts {
namespace {

using detail::num;

void check_mesh(const MeshConfig& m, const std::string& who) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(who + ": " + what);
  };
  if (m.x < 1 || m.y < 1)
    fail("mesh.x × mesh.y = " + std::to_string(m.x) + " × " + std::to_string(m.y) +
         " out of range (allowed: x >= 1, y >= 1)");
  if (!(m.link_Bps > 0) || !std::isfinite(m.link_Bps))
    fail("mesh.link_Bps = " + num(m.link_Bps) + " out of range (allowed: finite, > 0)");
  if (!(m.alpha_s >= 0) || !std::isfinite(m.alpha_s))
    fail("mesh.alpha_s = " + num(m.alpha_s) + " out of range (allowed: finite, >= 0)");
  if (!(m.chunk_bytes > 0) || !std::isfinite(m.chunk_bytes))
    fail("mesh.chunk_bytes = " + num(m.chunk_bytes) + " out of range (allowed: finite, > 0)");
}

int depth_from(const MeshConfig& m, int root) {
  const int rx = root % m.x, ry = root / m.x;
  return std::max(rx, m.x - 1 - rx) + std::max(ry, m.y - 1 - ry);
}

int chunks_for(const MeshConfig& m, double bytes) {
  // As simulate_layer cuts messages: ceil, guarded against b an exact multiple of the chunk.
  return std::max(1, static_cast<int>(std::ceil(bytes / m.chunk_bytes * (1 - 1e-12))));
}

double expert_bytes_of(const LayerBatch& b) {
  return 3.0 * b.hidden * static_cast<double>(b.intermediate) * b.weight_bytes;
}

// Runs simulate_layer, prefixing its errors with the caller's name.
LayerResult simulate(const std::string& who, const MeshConfig& mesh, const Placement& p,
                     const LayerBatch& b, CopyChoice choice) {
  try {
    return simulate_layer(mesh, p, b, choice);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(who + ": " + e.what());
  }
}

void check_capacity(const std::string& who, const Placement& p, int nodes, double expert_bytes,
                    double capacity) {
  if (!(capacity > 0))
    throw std::invalid_argument(who + ": capacity_bytes_per_node = " + num(capacity) +
                                " out of range (allowed: > 0, +inf for none)");
  if (const auto issues =
          validate(p, static_cast<int>(p.experts.size()), nodes, expert_bytes, capacity);
      !issues.empty())
    throw std::invalid_argument(who + ": static placement rejected (capacity " + num(capacity) +
                                " B per node): " + format_issues(issues));
}

std::vector<double> token_counts(const LayerBatch& b, std::size_t experts) {
  std::vector<double> c(experts, 0.0);
  for (const int e : b.expert_ids) c[static_cast<std::size_t>(e)] += 1;
  return c;
}

// Expected per-node work of the placement on this batch, in token-expert units (a copy of an
// expert with C copies serves T_e / C of its tokens). Only used to divide a chunk's work.
std::vector<double> node_loads(const Placement& p, const std::vector<double>& counts, int nodes) {
  std::vector<double> load(static_cast<std::size_t>(nodes), 0.0);
  for (std::size_t e = 0; e < p.experts.size(); ++e) {
    const auto& copies = p.experts[e].copies;
    for (const auto& c : copies)
      for (const auto& s : c.shares)
        load[static_cast<std::size_t>(s.node)] +=
            counts[e] / static_cast<double>(copies.size()) * s.fraction;
  }
  return load;
}

// Water-filling: amounts w_n >= 0 with Σ w_n = amount minimising max_n (load_n + w_n); every
// node below the level λ is raised to it, the others get nothing.
std::vector<double> water_fill(const std::vector<double>& load, double amount) {
  std::vector<std::size_t> order(load.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return load[a] < load[b]; });
  double prefix = 0, level = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    prefix += load[order[i]];
    level = (amount + prefix) / static_cast<double>(i + 1);
    if (i + 1 == order.size() || level <= load[order[i + 1]]) break;
  }
  std::vector<double> w(load.size(), 0.0);
  for (std::size_t n = 0; n < load.size(); ++n) w[n] = std::max(0.0, level - load[n]);
  return w;
}

void add_broadcast(DynamicResult& r, const BroadcastCost& c) {
  r.broadcast_bytes += c.delivered_bytes;
  r.broadcast_link_busy_s += c.link_busy_s;
  r.broadcast_time_s += c.time_s;
}

}  // namespace

BroadcastCost xy_tree_broadcast(const MeshConfig& mesh, int root, double bytes) {
  check_mesh(mesh, "xy_tree_broadcast");
  const int n = mesh.nodes();
  if (root < 0 || root >= n)
    throw std::invalid_argument("xy_tree_broadcast: root " + std::to_string(root) +
                                " out of range (allowed: 0.." + std::to_string(n - 1) + ")");
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw std::invalid_argument("xy_tree_broadcast: bytes = " + num(bytes) +
                                " out of range (allowed: finite, >= 0)");
  BroadcastCost c;
  c.root = root;
  c.bytes = bytes;
  if (bytes == 0 || n == 1) return c;
  c.depth = depth_from(mesh, root);
  c.chunks = chunks_for(mesh, bytes);
  const double m = c.chunks;
  c.time_s = (c.depth + m - 1) * (mesh.alpha_s + bytes / (m * mesh.link_Bps));
  c.delivered_bytes = (n - 1) * bytes;
  c.link_busy_s = (n - 1) * (m * mesh.alpha_s + bytes / mesh.link_Bps);
  return c;
}

double largest_broadcast_within(const MeshConfig& mesh, int root, double max_bytes,
                                double budget_s) {
  (void)xy_tree_broadcast(mesh, root, 0);  // checks the mesh and root
  if (!(max_bytes > 0) || !(budget_s >= 0) || std::isnan(budget_s)) return 0;
  if (mesh.nodes() == 1) return max_bytes;
  const double d = depth_from(mesh, root), c = mesh.chunk_bytes, beta = mesh.link_Bps;
  const double m_max = std::ceil(max_bytes / c);
  double best = 0;
  // With m chunks b may lie in ((m-1)c, mc] and needs (D+m-1)(α + b/(mβ)) <= budget.
  for (double m = 1; m <= m_max; ++m) {
    if ((m - 1) * c > beta * budget_s) break;  // the time bound m β B / (D+m-1) < β B
    const double by_time = m * beta * (budget_s / (d + m - 1) - mesh.alpha_s);
    const double by_size = std::min(m * c, max_bytes);
    // A hair under a binding time bound so t_bc(b) <= budget survives rounding.
    const double b = by_time < by_size ? by_time * (1 - 1e-12) : by_size;
    if (b > (m - 1) * c && b > best) best = b;
  }
  return best;
}

DynamicResult pre_broadcast(const PreBroadcastInput& in) {
  const std::string who = "pre_broadcast";
  const auto fail = [&](const std::string& m) { throw std::invalid_argument(who + ": " + m); };
  DynamicResult r;
  r.static_time_s = simulate(who, in.mesh, in.placement, in.batch, in.choice).time_s;
  const int n = in.mesh.nodes();
  const auto N = static_cast<std::size_t>(n);
  const auto E = in.placement.experts.size();
  const double eb = expert_bytes_of(in.batch);
  check_capacity(who, in.placement, n, eb, in.capacity_bytes_per_node);
  if (!(in.overlap_s >= 0) || !std::isfinite(in.overlap_s))
    fail("overlap_s = " + num(in.overlap_s) + " out of range (allowed: finite, >= 0 s)");
  if (!(in.max_fraction > 0 && in.max_fraction <= 1))
    fail("max_fraction = " + num(in.max_fraction) + " out of range (allowed: (0, 1])");
  {
    std::vector<char> seen(E, 0);
    for (std::size_t i = 0; i < in.predicted.size(); ++i) {
      const int e = in.predicted[i];
      const std::string at = "predicted[" + std::to_string(i) + "] = " + std::to_string(e);
      if (e < 0 || static_cast<std::size_t>(e) >= E)
        fail(at + " out of range (allowed: 0.." + std::to_string(E - 1) + ")");
      if (seen[static_cast<std::size_t>(e)]) fail(at + " repeated (allowed: distinct experts)");
      seen[static_cast<std::size_t>(e)] = 1;
      if (in.placement.experts[static_cast<std::size_t>(e)].copies.size() != 1)
        fail(at + " has " +
             std::to_string(in.placement.experts[static_cast<std::size_t>(e)].copies.size()) +
             " copies (allowed: 1; pre-broadcast extends a single-copy placement)");
    }
  }

  Placement p = in.placement;
  const auto counts = token_counts(in.batch, E);
  auto load = node_loads(p, counts, n);
  auto held = node_weight_bytes(p, n, eb);
  double remaining_s = in.overlap_s;
  for (const int e : in.predicted) {
    Copy& copy = p.experts[static_cast<std::size_t>(e)].copies[0];
    std::size_t root_i = 0;
    for (std::size_t s = 1; s < copy.shares.size(); ++s)
      if (copy.shares[s].fraction > copy.shares[root_i].fraction ||
          (copy.shares[s].fraction == copy.shares[root_i].fraction &&
           copy.shares[s].node < copy.shares[root_i].node))
        root_i = s;
    const int root = copy.shares[root_i].node;
    const double cap = std::min(in.max_fraction, copy.shares[root_i].fraction);
    double by_memory = std::numeric_limits<double>::infinity();
    for (int v = 0; v < n; ++v)
      if (v != root)
        by_memory = std::min(by_memory,
                             (in.capacity_bytes_per_node - held[static_cast<std::size_t>(v)]) / eb);
    by_memory = std::max(0.0, by_memory);
    const double by_time = in.fit_under_overlap
                               ? largest_broadcast_within(in.mesh, root, cap * eb, remaining_s) / eb
                               : cap;
    ExpertBroadcast x;
    x.expert = e;
    const double wanted = std::min(cap, by_time);
    x.fraction = std::min(wanted, by_memory);
    x.shrunk_by_memory = by_memory < wanted;
    if (n == 1) x.fraction = 0;  // one node already holds everything
    const auto bc = xy_tree_broadcast(in.mesh, root, x.fraction * eb);
    x.broadcasts.push_back(bc);
    x.time_s = bc.time_s;
    add_broadcast(r, bc);
    remaining_s = std::max(0.0, remaining_s - bc.time_s);
    for (int v = 0; v < n; ++v)
      if (v != root) held[static_cast<std::size_t>(v)] += x.fraction * eb;
    const double te = counts[static_cast<std::size_t>(e)];
    if (x.fraction > 0 && te > 0) {
      // The rest stays; the chunk's work φ·T_e is water-filled over the k least-loaded nodes
      // (all of them hold the chunk), k = 0 leaving the chunk unused; simulate_layer picks k.
      std::vector<double> frac(N, 0.0), rest_load = load;
      for (const auto& s : copy.shares) {
        frac[static_cast<std::size_t>(s.node)] = s.fraction;
        rest_load[static_cast<std::size_t>(s.node)] -= te * s.fraction;
      }
      frac[static_cast<std::size_t>(root)] -= x.fraction;
      for (std::size_t v = 0; v < N; ++v) rest_load[v] += te * frac[v];
      std::vector<std::size_t> by_load(N);
      std::iota(by_load.begin(), by_load.end(), std::size_t{0});
      std::stable_sort(by_load.begin(), by_load.end(),
                       [&](std::size_t u, std::size_t v) { return rest_load[u] < rest_load[v]; });
      const Copy unused = copy;
      double best_s = simulate(who, in.mesh, p, in.batch, in.choice).time_s;
      Copy best_copy = unused;
      std::vector<double> best_load = load;
      for (std::size_t k = 1;; k = std::min(N, 2 * k)) {
        std::vector<double> sub(k);
        for (std::size_t i = 0; i < k; ++i) sub[i] = rest_load[by_load[i]];
        const auto w = water_fill(sub, x.fraction * te);
        std::vector<double> f = frac, next_load = rest_load;
        for (std::size_t i = 0; i < k; ++i) {
          f[by_load[i]] += w[i] / te;
          next_load[by_load[i]] += w[i];
        }
        Copy next;
        double sum = 0;
        for (std::size_t v = 0; v < N; ++v)
          if (f[v] > 1e-9) {  // as node_balance drops P <= 1e-9
            next.shares.push_back({static_cast<int>(v), f[v]});
            sum += f[v];
          }
        for (auto& sh : next.shares) sh.fraction = std::min(1.0, sh.fraction / sum);
        copy = next;
        const double t = simulate(who, in.mesh, p, in.batch, in.choice).time_s;
        if (t < best_s) {
          best_s = t;
          best_copy = std::move(next);
          best_load = std::move(next_load);
          x.spread_nodes = static_cast<int>(k);
        }
        if (k == N) break;
      }
      copy = std::move(best_copy);
      load = std::move(best_load);
    }
    r.experts.push_back(std::move(x));
  }
  r.placement = std::move(p);
  r.batch = in.batch;
  r.layer = simulate(who, in.mesh, r.placement, r.batch, in.choice);
  r.hidden_s = std::min(r.broadcast_time_s, in.overlap_s);
  r.exposed_s = r.broadcast_time_s - r.hidden_s;
  r.total_s = r.layer.time_s + r.exposed_s;
  return r;
}

DynamicResult shadow(const ShadowInput& in) {
  const std::string who = "shadow";
  const auto fail = [&](const std::string& m) { throw std::invalid_argument(who + ": " + m); };
  const LayerResult base = simulate(who, in.mesh, in.placement, in.batch, in.choice);
  const int n = in.mesh.nodes();
  const auto E = in.placement.experts.size();
  const double eb = expert_bytes_of(in.batch);
  check_capacity(who, in.placement, n, eb, in.capacity_bytes_per_node);
  if (in.max_shadowed < 0)
    fail("max_shadowed = " + std::to_string(in.max_shadowed) + " out of range (allowed: >= 0)");
  if (!(in.threshold >= 0) || !std::isfinite(in.threshold))
    fail("threshold = " + num(in.threshold) +
         " out of range (allowed: finite, >= 0; a multiple of the mean count)");

  const auto counts = token_counts(in.batch, E);
  const double mean = static_cast<double>(in.batch.expert_ids.size()) / static_cast<double>(E);
  std::vector<int> candidates;
  for (std::size_t e = 0; e < E; ++e)
    if (counts[e] > in.threshold * mean && counts[e] > 0) candidates.push_back(static_cast<int>(e));
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return counts[static_cast<std::size_t>(a)] > counts[static_cast<std::size_t>(b)];
  });
  if (candidates.size() > static_cast<std::size_t>(in.max_shadowed))
    candidates.resize(static_cast<std::size_t>(in.max_shadowed));

  // Shadowed expert k becomes virtual experts E + k·N + v, whole on node v; each token of it
  // selects the one on its home.
  const auto build = [&](const std::vector<int>& set, Placement& p, LayerBatch& b) {
    p = in.placement;
    b = in.batch;
    std::vector<int> slot(E, -1);
    for (std::size_t k = 0; k < set.size(); ++k) {
      slot[static_cast<std::size_t>(set[k])] = static_cast<int>(k);
      for (int v = 0; v < n; ++v) p.experts.push_back({{Copy{{{v, 1.0}}}}});
    }
    const auto K = static_cast<std::size_t>(b.top_k);
    for (std::size_t i = 0; i < b.expert_ids.size(); ++i) {
      const int k = slot[static_cast<std::size_t>(b.expert_ids[i])];
      if (k >= 0) b.expert_ids[i] = static_cast<int>(E) + k * n + b.home[i / K];
    }
  };

  DynamicResult r;
  r.static_time_s = base.time_s;
  r.placement = in.placement;
  r.batch = in.batch;
  r.layer = base;
  auto held = node_weight_bytes(in.placement, n, eb);
  double best_total = base.time_s;
  std::vector<int> chosen;
  for (const int e : candidates) {
    const Copy& c0 = in.placement.experts[static_cast<std::size_t>(e)].copies[0];
    std::vector<double> own(static_cast<std::size_t>(n), 0.0);
    for (const auto& s : c0.shares) own[static_cast<std::size_t>(s.node)] = s.fraction;
    bool fits = true;
    for (int v = 0; v < n; ++v)
      if (held[static_cast<std::size_t>(v)] + (1 - own[static_cast<std::size_t>(v)]) * eb >
          in.capacity_bytes_per_node * (1 + 1e-12))
        fits = false;
    if (!fits) {
      r.skipped.push_back(e);
      continue;
    }
    ExpertBroadcast x;
    x.expert = e;
    x.fraction = 1;
    for (const auto& s : c0.shares) {  // each share from its holder, one after another
      x.broadcasts.push_back(xy_tree_broadcast(in.mesh, s.node, s.fraction * eb));
      x.time_s += x.broadcasts.back().time_s;
    }
    auto trial = chosen;
    trial.push_back(e);
    Placement p;
    LayerBatch b;
    build(trial, p, b);
    LayerResult layer = simulate(who, in.mesh, p, b, in.choice);
    const double total = layer.time_s + r.broadcast_time_s + x.time_s;
    if (!(total < best_total)) break;  // FasterMoE: shadow only while it saves more than it costs
    best_total = total;
    chosen = std::move(trial);
    for (int v = 0; v < n; ++v)
      held[static_cast<std::size_t>(v)] += (1 - own[static_cast<std::size_t>(v)]) * eb;
    for (const auto& bc : x.broadcasts) add_broadcast(r, bc);
    r.experts.push_back(std::move(x));
    r.placement = std::move(p);
    r.batch = std::move(b);
    r.layer = std::move(layer);
  }
  r.hidden_s = 0;  // decided after this layer's gate: nothing left to hide under
  r.exposed_s = r.broadcast_time_s;
  r.total_s = r.layer.time_s + r.exposed_s;
  return r;
}

}  // namespace stackscope::experts
