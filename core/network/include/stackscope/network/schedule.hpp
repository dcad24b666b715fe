// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stage 1 of the dual-stage network abstraction (docs/model.md §5.3): a collective on a group of
// ranks becomes algorithm steps, each a set of flows (src, dst, bytes). Steps run one after
// another (a step starts when every flow of the previous one has arrived); flows inside a step
// run concurrently. Ranks are device ids (the placement is applied by the caller).
#include <span>
#include <string_view>
#include <vector>

namespace stackscope::network {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast,
                        point_to_point };
enum class Algorithm {
  automatic,         // choose the fastest applicable (analytic model)
  ring,              // all_reduce, all_gather, reduce_scatter, broadcast (pipelined chain)
  halving_doubling,  // recursive halving/doubling (all_reduce, all_gather, reduce_scatter)
  tree,              // binomial tree reduce + broadcast (all_reduce), broadcast
  two_d,             // 2D/3-stage: ring phases along grid rows then columns (all_reduce, ...)
  hierarchical,      // per network level: inner reduce-scatter, outer all-reduce, inner gather
  direct,            // every pair in one step (all_to_all, all_gather, reduce_scatter)
  pairwise,          // n-1 permutation steps (all_to_all)
  in_network,        // switch reduction (all_reduce on a switch level with NVLS-like support)
};
std::string_view to_string(Collective c);
std::string_view to_string(Algorithm a);

struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

struct Step {
  std::vector<Flow> flows;
  double alpha_s = 0;  // software/synchronisation cost of the step (level latency_us)
};

struct Schedule {
  Collective op = Collective::all_reduce;
  Algorithm algorithm = Algorithm::ring;
  std::vector<Step> steps;
};

// `bytes`: per-rank buffer (all_reduce: the vector; all_gather: the gathered output;
// reduce_scatter: the input; all_to_all: what each rank holds for all ranks together;
// broadcast: the message; point_to_point: the message, ranks = {src, dst}).
// `traffic` (all_to_all only, optional): n x n row-major fractions of `bytes` that rank i
// sends to rank j (rows sum to 1) for skewed / expert-routed exchanges.
struct CollectiveRequest {
  Collective op = Collective::all_reduce;
  double bytes = 0;
  std::span<const int> ranks;
  std::span<const double> traffic;
  Algorithm algorithm = Algorithm::automatic;
};

// True if `algorithm` can run `op` on this group (e.g. halving_doubling needs a power of 2).
bool applicable(Algorithm algorithm, const CollectiveRequest& request);

}  // namespace stackscope::network
