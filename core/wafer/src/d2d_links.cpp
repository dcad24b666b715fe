// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/wafer/d2d_links.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace stackscope::wafer {

D2dLinks::D2dLinks(const hw::System& s) : topology_(s) {
  // The message's start-up cost: the level's per-step alpha (network/model.hpp).
  if (!s.levels.empty()) alpha_s_ = s.levels.front().latency_us * 1e-6;
  reset();
}

void D2dLinks::reset() {
  busy_until_.assign(topology_.links().size(), 0.0);
  bytes_.assign(topology_.links().size(), 0.0);
}

TransferTiming D2dLinks::cost(std::span<const network::Flow> flows) const {
  return cost(flows, nullptr);
}

TransferTiming D2dLinks::cost(std::span<const network::Flow> flows, std::vector<int>* used) const {
  TransferTiming t;
  const auto& links = topology_.links();
  // Per link: bytes and the first arrival of any flow on it.
  std::unordered_map<int, std::pair<double, double>> load;
  std::vector<int> path;
  double max_latency = 0;
  for (const auto& f : flows) {
    if (f.src == f.dst || f.bytes <= 0) continue;
    path.clear();
    topology_.route(f.src, f.dst, path);
    double arrival = 0;
    for (const int id : path) {
      // The first byte is across this link after its hop latency (network/model.cpp counts
      // the arrival at the link's far end).
      const auto& l = links[static_cast<std::size_t>(id)];
      arrival += l.latency_s;
      auto [it, fresh] = load.try_emplace(id, 0.0, arrival);
      it->second.first += f.bytes;
      it->second.second = std::min(it->second.second, arrival);
      t.energy_J += f.bytes * l.energy_J_per_byte;
    }
    max_latency = std::max(max_latency, arrival);
    t.max_hops = std::max(t.max_hops, static_cast<int>(path.size()));
    t.bytes += f.bytes;
  }
  if (load.empty()) return t;
  double busiest = 0;
  for (const auto& [id, v] : load) {
    busiest = std::max(busiest, v.second + v.first / links[static_cast<std::size_t>(id)].bw_Bps);
    if (used) used->push_back(id);
  }
  t.time_s = alpha_s_ + std::max(max_latency, busiest);
  return t;
}

TransferTiming D2dLinks::transfer(std::span<const network::Flow> flows, double now_s) {
  std::vector<int> used;
  TransferTiming t = cost(flows, &used);
  t.start_s = now_s;
  for (const int id : used)
    t.start_s = std::max(t.start_s, busy_until_[static_cast<std::size_t>(id)]);
  for (const int id : used) busy_until_[static_cast<std::size_t>(id)] = t.start_s + t.time_s;
  // Link loads for the view: every flow's bytes on every link of its path.
  std::vector<int> path;
  for (const auto& f : flows) {
    if (f.src == f.dst || f.bytes <= 0) continue;
    path.clear();
    topology_.route(f.src, f.dst, path);
    for (const int id : path) bytes_[static_cast<std::size_t>(id)] += f.bytes;
  }
  return t;
}

}  // namespace stackscope::wafer
