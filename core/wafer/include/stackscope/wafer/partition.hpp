// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Serving on a wafer (docs/model.md §15.2-§15.3).
//
// deploy(): the memory scheduler's and the placement's view of one partition. The die mesh is
// split into prefill and decode instances (Splitwise/DistServe disaggregation, serving/spec.hpp),
// each a rectangle of dies (placement.hpp) costed as its own w x h D2D mesh. Every request's KV
// cache is built on its prefill region and moves, hop by hop, to the decode region the router
// picks. The flows are the re-sharding routes of serving/kv_reshard.hpp, between the two
// regions' dies, with first-come link reservations on the whole wafer mesh (d2d_links.hpp).
// A decode instance whose own dies' memory fills can hold KV on idle neighbouring dies (the
// usable dies no instance took, each lent to the first decode region beside it). Their
// memory adds KV blocks. Every iteration whose context exceeds the instance's own blocks reads
// the excess over the lenders' D2D links: time (excess bytes / the lenders' link bandwidth
// into the region) and energy (bytes x the link energy) are added to the iteration.
//
// choose_partition(): the central scheduler. It enumerates partitions (instance sizes, counts
// of each role, each pool's tp/pp, placement order) and keeps the one of highest goodput
// (DistServe's: completed requests meeting both SLOs per s) on the whole stream. Ties go to the
// higher SLO attainment, then the lower p90 TTFT, then fewer dies. When candidates x requests
// is within `exhaustive_budget` every candidate runs on the whole stream (exact). Otherwise
// each is screened on `screen_windows` windows of the stream spread evenly over it
// (`screen_requests` in all; a trace's load changes over its hour, so its first minutes alone
// mislead), and the best `finalists` run on the whole stream. Designs without a wafer (a GPU
// cluster) get the same search over pool sizes and counts on consecutive devices
// (serving::deploy). Deterministic for a given input.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/wafer/placement.hpp"

namespace stackscope::wafer {

// d2d_links.hpp; not included here so that Qt code (whose `slots` macro clashes with
// network::Topology's members) can include this header.
class D2dLinks;

struct Partition {
  int prefill = 1, decode = 1;
  serving::PoolConfig prefill_pool, decode_pool;  // tp/pp (0 = the design's)
  PlacementOrder order = PlacementOrder::interleaved;
  bool kv_borrow = true;
  bool operator==(const Partition&) const = default;
};
// "2 prefill (tp4) + 3 decode (tp2), interleaved"
std::string partition_text(const Partition& p, const perf::Design& design);

struct WaferDeployment {
  serving::Deployment deployment;  // instances (prefill, then decode), options, layout, pools
  hw::WaferLayout layout;
  PlacementResult placement;
  std::shared_ptr<D2dLinks> links;         // reservations and link loads (after the run)
  std::vector<int> lender_of;              // per die: the decode instance it lends memory to, or -1
  std::vector<long long> borrowed_blocks;  // per instance
};

// Throws std::invalid_argument naming the reason: no wafer, a pool plan that does not fit its
// region, regions that do not fit the grid, no room for a KV block.
WaferDeployment deploy(const perf::Design& design, const serving::ServingSpec& spec,
                       const Partition& partition);

struct SchedulerOptions {
  // Candidates x requests simulated on the whole stream without screening (about 7 s for 68
  // wafer partitions of the 19,366-request Azure trace).
  double exhaustive_budget = 4e6;
  std::size_t screen_requests = 4000;  // requests of the screening windows together
  int screen_windows = 4;              // windows spread evenly over the stream
  int finalists = 8;                   // re-run on the whole stream
  // Instance sizes (dies) tried; empty = 1, 2, 4, ... up to the usable dies.
  std::vector<int> sizes;
  // Only partitions with no room left for one more instance of either size (fewer to screen);
  // false = every partition. On a wafer "room" is geometric: one more rectangle must fit the
  // grid beside the others (place()). Partitions whose rectangles do not fit are never
  // candidates.
  bool maximal_only = true;
  int threads = 0;  // 0 = hardware concurrency
  // Requested: candidates not yet run are marked "stopped" and the one running stops too.
  std::stop_token stop;
  // Called after each candidate run (screening and finals), from the worker threads one at a
  // time, with the runs done and their total so far; null = none.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct Candidate {
  Partition partition;
  std::string text;
  bool feasible = false;
  std::string reason;  // why not
  int dies = 0;
  double goodput_rps = 0, slo_attainment = 0;
  double ttft_p90_s = 0, tpot_p90_s = 0;
  std::size_t requests = 0;  // simulated
};

struct PartitionChoice {
  Candidate best;                   // feasible unless every candidate failed
  bool exhaustive = false;          // every candidate ran on the whole stream
  std::vector<Candidate> screened;  // every candidate, best first
  std::vector<Candidate> finals;    // the finalists on the whole stream, best first
};

// True if a ranks before b (the objective above).
bool better(const Candidate& a, const Candidate& b);

PartitionChoice choose_partition(const perf::Design& design, const serving::ServingSpec& spec,
                                 std::span<const serving::Request> requests,
                                 const SchedulerOptions& options = {});

// One candidate simulated on `requests` (wafer::deploy or serving::deploy); a stop requested
// on `stop` ends the simulation and leaves the candidate infeasible ("stopped").
Candidate evaluate_partition(const perf::Design& design, const serving::ServingSpec& spec,
                             const Partition& partition,
                             std::span<const serving::Request> requests,
                             std::stop_token stop = {});

// The spec with the partition's disaggregation (for serving::deploy on a non-wafer design).
serving::ServingSpec with_partition(serving::ServingSpec spec, const Partition& partition);

// The design `serve` (and validate-project, for a serving project) checks with perf::validate.
// The design itself, except on a wafer whose partition the central scheduler chooses
// (`auto_partition`) and whose plan does not divide the dies (e.g. a grid refitted with
// --wafer-set): there every pool gets its own plan, so what is checked is the smallest
// instance of 2^k dies at tp 2^k that holds the model (the instance sizes choose_partition
// tries), or the largest such instance when none does (its issues then say why).
perf::Design design_to_validate(const perf::Design& design, bool auto_partition);

}  // namespace stackscope::wafer
