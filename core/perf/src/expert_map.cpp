// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/perf/expert_map.hpp"

#include <algorithm>
#include <map>

#include "stackscope/moe/ep_placement.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/evaluator.hpp"

namespace stackscope::perf {

ExpertMap expert_map(const Design& d) {
  ExpertMap out;
  const auto& m = d.model;
  if (!parallel::is_moe(m) || m.moe.experts <= 0) return out;
  out.moe = true;
  out.routed_experts = std::min(m.moe.experts, moe::kMaxExperts);
  out.top_k = m.moe.top_k;
  out.redundant_per_rank = std::max(0, d.parallel.redundant_experts_per_rank);
  const parallel::Placement place(d.parallel);
  out.moe_tp = place.moe_tp();
  // Every stage routes the whole decode batch of its replica once per step (all micro-batches).
  const int batch = d.workload.batch_auto ? max_batch_that_fits(d) : d.workload.batch;
  out.step_tokens = std::max(0, batch);

  std::vector<double> freq(static_cast<std::size_t>(moe::kMaxExperts));
  moe::expert_frequency(d.workload.routing, out.routed_experts, m.moe.top_k, 0, freq.data());
  std::vector<moe::RankShare> ranks(static_cast<std::size_t>(moe::kMaxExperts));
  out.moe_ep = moe::ep_ranks(freq.data(), out.routed_experts, place.moe_ep(), out.step_tokens,
                             out.redundant_per_rank, ranks.data());

  const int n = place.devices();
  out.devices.resize(static_cast<std::size_t>(n));
  std::vector<int> members(
      static_cast<std::size_t>(std::max({1, place.group_size(parallel::GroupKind::moe_ep),
                                         place.group_size(parallel::GroupKind::moe_tp)})));
  std::map<int, int> group_of_first;  // first device of an EP group -> group index
  for (int dev = 0; dev < n; ++dev) {
    auto& x = out.devices[static_cast<std::size_t>(dev)];
    const parallel::Coord c = place.coord(dev);
    x.stage = c[parallel::Dim::pp];
    x.tp = c[parallel::Dim::tp];
    x.ep = c[parallel::Dim::ep];
    x.cp = c[parallel::Dim::cp];
    x.dp = c[parallel::Dim::dp];
    const int size = place.group(parallel::GroupKind::moe_ep, dev, members.data());
    const int first = *std::min_element(members.begin(), members.begin() + size);
    x.ep_rank =
        static_cast<int>(std::find(members.begin(), members.begin() + size, dev) - members.begin());
    x.ep_group =
        group_of_first.emplace(first, static_cast<int>(group_of_first.size())).first->second;
    const int tp_size = place.group(parallel::GroupKind::moe_tp, dev, members.data());
    x.moe_tp_rank = static_cast<int>(std::find(members.begin(), members.begin() + tp_size, dev) -
                                     members.begin());
    const auto& r = ranks[static_cast<std::size_t>(std::min(x.ep_rank, out.moe_ep - 1))];
    x.experts = r.experts;
    x.replicas = r.replicas;
    x.tokens = r.tokens;
    out.busiest_tokens = std::max(out.busiest_tokens, x.tokens);
  }
  out.ep_groups = static_cast<int>(group_of_first.size());
  return out;
}

}  // namespace stackscope::perf
