// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline placement strategies (strategies.hpp).
#include "stackscope/experts/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace stackscope::experts {
namespace {

void check_counts(int experts, int nodes) {
  if (experts < 1 || experts > 65'536)
    throw std::invalid_argument("placement: experts " + std::to_string(experts) +
                                " out of range (allowed: 1..65536)");
  if (nodes < 1 || nodes > 65'536)
    throw std::invalid_argument("placement: nodes " + std::to_string(nodes) +
                                " out of range (allowed: 1..65536)");
}

void check_loads(std::span<const double> loads) {
  for (std::size_t e = 0; e < loads.size(); ++e)
    if (!std::isfinite(loads[e]) || loads[e] < 0)
      throw std::invalid_argument("placement: load of expert " + std::to_string(e) + " is " +
                                  std::to_string(loads[e]) + " (allowed: finite, >= 0)");
}

// Balanced packing (eplb.py balanced_packing): items heaviest first (stable: ties keep their
// order) onto the lightest pack that has fewer than `per_pack` items (ties: lower pack).
// Returns the pack of each item.
std::vector<int> balanced_packing(std::span<const double> weight, int packs, int per_pack) {
  std::vector<std::size_t> order(weight.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<double> load(static_cast<std::size_t>(packs), 0.0);
  std::vector<int> count(static_cast<std::size_t>(packs), 0), pack(weight.size(), -1);
  for (const std::size_t i : order) {
    int best = -1;
    for (int p = 0; p < packs; ++p)
      if (count[static_cast<std::size_t>(p)] < per_pack &&
          (best < 0 || load[static_cast<std::size_t>(p)] < load[static_cast<std::size_t>(best)]))
        best = p;
    pack[i] = best;
    load[static_cast<std::size_t>(best)] += weight[i];
    ++count[static_cast<std::size_t>(best)];
  }
  return pack;
}

// replicate_experts of eplb.py: copies per expert after `slots` extra slots.
std::vector<int> replicate(std::span<const double> loads, int slots) {
  std::vector<int> copies(loads.size(), 1);
  for (int s = 0; s < slots; ++s) {
    std::size_t best = 0;
    for (std::size_t e = 1; e < loads.size(); ++e)
      if (loads[e] / copies[e] > loads[best] / copies[best]) best = e;
    ++copies[best];
  }
  return copies;
}

// Global EPLB over `experts` (ids) onto `nodes` (ids) with `slots` extra slots, into `out`.
void eplb_global(std::span<const double> loads, std::span<const int> experts,
                 std::span<const int> nodes, int slots, Placement& out) {
  std::vector<double> sub(experts.size());
  for (std::size_t i = 0; i < experts.size(); ++i)
    sub[i] = loads[static_cast<std::size_t>(experts[i])];
  const auto copies = replicate(sub, slots);
  std::vector<double> weight;
  std::vector<int> owner;
  for (std::size_t i = 0; i < experts.size(); ++i)
    for (int c = 0; c < copies[i]; ++c) {
      weight.push_back(sub[i] / copies[i]);
      owner.push_back(experts[i]);
    }
  const int n = static_cast<int>(nodes.size());
  const auto pack = balanced_packing(weight, n, static_cast<int>(weight.size()) / n);
  for (std::size_t k = 0; k < weight.size(); ++k)
    out.experts[static_cast<std::size_t>(owner[k])].copies.push_back(
        Copy{{Share{nodes[static_cast<std::size_t>(pack[k])], 1.0}}});
}

}  // namespace

Placement tp_placement(int experts, int nodes) {
  check_counts(experts, nodes);
  Placement p;
  p.experts.resize(static_cast<std::size_t>(experts));
  for (auto& e : p.experts) {
    Copy c;
    for (int n = 0; n < nodes; ++n) c.shares.push_back({n, 1.0 / nodes});
    e.copies.push_back(std::move(c));
  }
  return p;
}

Placement ep_placement(int experts, int nodes) {
  check_counts(experts, nodes);
  Placement p;
  p.experts.resize(static_cast<std::size_t>(experts));
  for (int e = 0; e < experts; ++e)
    p.experts[static_cast<std::size_t>(e)].copies.push_back(Copy{{Share{e % nodes, 1.0}}});
  return p;
}

Placement eplb_placement(std::span<const double> loads, int nodes, int redundant, int groups) {
  const int experts = static_cast<int>(loads.size());
  check_counts(experts, nodes);
  check_loads(loads);
  if (redundant < 0 || redundant > 65'536)
    throw std::invalid_argument("EPLB: redundant slots " + std::to_string(redundant) +
                                " out of range (allowed: 0..65536)");
  if ((experts + redundant) % nodes != 0)
    throw std::invalid_argument("EPLB: experts + redundant slots = " +
                                std::to_string(experts + redundant) + " is not a multiple of " +
                                std::to_string(nodes) + " nodes (every node gets as many slots)");
  if (groups < 1 || experts % groups != 0 || nodes % groups != 0 || redundant % groups != 0)
    throw std::invalid_argument("EPLB: " + std::to_string(groups) +
                                " groups must divide the experts (" + std::to_string(experts) +
                                "), the nodes (" + std::to_string(nodes) +
                                ") and the redundant slots (" + std::to_string(redundant) + ")");
  Placement p;
  p.experts.resize(static_cast<std::size_t>(experts));
  const int per_group = experts / groups, nodes_per_group = nodes / groups;
  // Step 1 (hierarchical): expert groups onto node groups by balanced packing, one each.
  std::vector<double> group_load(static_cast<std::size_t>(groups), 0.0);
  for (int e = 0; e < experts; ++e)
    group_load[static_cast<std::size_t>(e / per_group)] += loads[static_cast<std::size_t>(e)];
  const auto where = balanced_packing(group_load, groups, 1);
  for (int g = 0; g < groups; ++g) {
    std::vector<int> ids(static_cast<std::size_t>(per_group)), node_ids;
    std::iota(ids.begin(), ids.end(), g * per_group);
    const int ng = where[static_cast<std::size_t>(g)];
    for (int n = 0; n < nodes_per_group; ++n) node_ids.push_back(ng * nodes_per_group + n);
    // Steps 2 and 3: replicate within the node group, pack onto its nodes.
    eplb_global(loads, ids, node_ids, redundant / groups, p);
  }
  return p;
}

Placement balanced_placement(std::span<const double> loads, int nodes) {
  const int experts = static_cast<int>(loads.size());
  check_counts(experts, nodes);
  check_loads(loads);
  Placement p;
  p.experts.resize(static_cast<std::size_t>(experts));
  if (experts < nodes) {
    // Fewer experts than nodes: TP groups. Every expert gets one node, then each spare node
    // goes to the expert of the highest load per node (D'Hondt's divisor method, which
    // minimises the largest load per seat; Balinski & Young, "Fair Representation", 1982; ties
    // to the lower id). Groups are consecutive node blocks in expert order, each expert split
    // evenly over its block.
    std::vector<int> seats(static_cast<std::size_t>(experts), 1);
    for (int spare = nodes - experts; spare > 0; --spare) {
      std::size_t best = 0;
      for (std::size_t e = 1; e < seats.size(); ++e)
        if (loads[e] / seats[e] > loads[best] / seats[best]) best = e;
      ++seats[best];
    }
    int next = 0;
    for (std::size_t e = 0; e < seats.size(); ++e) {
      Copy c;
      for (int k = 0; k < seats[e]; ++k) c.shares.push_back({next++, 1.0 / seats[e]});
      p.experts[e].copies.push_back(std::move(c));
    }
    return p;
  }
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  const double mean = total / nodes;
  std::vector<double> node_load(static_cast<std::size_t>(nodes), 0.0);
  std::vector<std::size_t> whole;
  for (std::size_t e = 0; e < loads.size(); ++e) {
    if (loads[e] > mean && nodes > 1) {
      Copy c;
      for (int n = 0; n < nodes; ++n) {
        c.shares.push_back({n, 1.0 / nodes});
        node_load[static_cast<std::size_t>(n)] += loads[e] / nodes;
      }
      p.experts[e].copies.push_back(std::move(c));
    } else {
      whole.push_back(e);
    }
  }
  std::stable_sort(whole.begin(), whole.end(),
                   [&](std::size_t a, std::size_t b) { return loads[a] > loads[b]; });
  for (const std::size_t e : whole) {
    const auto n =
        static_cast<int>(std::min_element(node_load.begin(), node_load.end()) - node_load.begin());
    node_load[static_cast<std::size_t>(n)] += loads[e];
    p.experts[e].copies.push_back(Copy{{Share{n, 1.0}}});
  }
  return p;
}

std::vector<double> expected_node_load(const Placement& placement, std::span<const double> loads,
                                       int nodes) {
  if (placement.experts.size() != loads.size())
    throw std::invalid_argument("expected_node_load: " + std::to_string(loads.size()) +
                                " loads for " + std::to_string(placement.experts.size()) +
                                " experts");
  std::vector<double> out(static_cast<std::size_t>(std::max(nodes, 0)), 0.0);
  for (std::size_t e = 0; e < loads.size(); ++e) {
    const auto& copies = placement.experts[e].copies;
    for (const auto& c : copies)
      for (const auto& s : c.shares)
        if (s.node >= 0 && s.node < nodes)
          out[static_cast<std::size_t>(s.node)] +=
              loads[e] / static_cast<double>(copies.size()) * s.fraction;
  }
  return out;
}

std::vector<Scored> score(const MeshConfig& mesh, const LayerBatch& batch,
                          std::vector<std::pair<std::string, Placement>> placements,
                          double capacity_bytes_per_node, CopyChoice choice) {
  const double expert_bytes = 3.0 * batch.hidden * batch.intermediate * batch.weight_bytes;
  std::vector<Scored> out;
  for (auto& [name, placement] : placements) {
    const auto issues = validate(placement, static_cast<int>(placement.experts.size()),
                                 mesh.nodes(), expert_bytes, capacity_bytes_per_node);
    if (!issues.empty())
      throw std::invalid_argument("strategy " + name + ": " + format_issue(issues.front()));
    LayerResult r = simulate_layer(mesh, placement, batch, choice);
    out.push_back({name, std::move(placement), std::move(r)});
  }
  return out;
}

}  // namespace stackscope::experts
