// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The serving settings of a project: where the requests come from
// (a closed benchmark, a seeded generator or a trace file), how many instances of the design
// serve them and how (co-located or prefill/decode disaggregated, the router, the scheduler's
// limits) and the SLOs goodput is counted against. One plain struct with its defaults (the
// defaults of `stackscope-cli serve`); io/serving.hpp reads and writes it as the project's
// "serving" section, the CLI's flags and the workbench's Serving form edit it.
//
// Units: times in s, rates in requests/s, lengths in tokens. No I/O here: a trace source names
// its file and build_requests() takes the rows core/io read from it (io::serving_requests).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::serving {

// benchmark: `requests` identical requests at t = 0 (trtllm-bench, vLLM benchmark_serving with
//   an infinite request rate); fixed input and output lengths.
// generated: `requests` requests from an ArrivalProcess at rate_per_s with lengths drawn from
//   input/output, seeded by `seed` (generate()).
// trace: the rows of the CSV file `trace` (parse_trace() formats), arrivals x time_scale faster.
enum class SourceKind { benchmark, generated, trace };

// What one pool of a disaggregated deployment changes from the design and the spec's
// scheduler; 0 = unchanged. DistServe (Zhong et al., OSDI 2024, §4) chooses each pool's
// parallelism on its own: prefill latency-bound at lower tp, decode at higher tp or pp for
// memory. A pool that changes a degree derives its per-module plans (attention / FFN / MoE tp
// and ep) from its own degrees; placement, sequence parallelism and overlap stay the design's.
struct PoolConfig {
  int tp = 0, pp = 0, ep = 0, cp = 0;
  int max_num_seqs = 0;            // SchedulerConfig::max_num_seqs of the pool's instances
  int max_num_batched_tokens = 0;  // SchedulerConfig::max_num_batched_tokens of the pool's
  bool plan_changed() const { return tp > 0 || pp > 0 || ep > 0 || cp > 0; }
  bool operator==(const PoolConfig&) const = default;
};

// "tp=2,max-seqs=64": a pool's changes as the CLI's --prefill-pool and the Serving form take
// them (keys tp, pp, ep, cp, max-seqs, max-tokens; values whole numbers, degrees 0..65536,
// max-seqs 0..2^20, max-tokens 0..1e8; 0 = unchanged). Throws ConfigError naming `what`, the
// item and the allowed keys or range. pool_text() is the inverse ("" = no change).
PoolConfig parse_pool_text(std::string_view text, std::string_view what);
std::string pool_text(const PoolConfig& pool);

// Co-located instances of different plans behind one router: `count` replicas of the design
// changed by `pool` (its degrees and scheduler limits, as a disaggregated pool's), e.g. two
// TP2 and one TP4 replica of Llama-3-70B on 8 H100s. The groups lie on consecutive devices
// in their order and must fit the system together (deploy()).
struct InstanceGroup {
  int count = 1;
  PoolConfig pool;
  bool operator==(const InstanceGroup&) const = default;
};

// "2:tp=2+1:tp=4,max-seqs=128": groups separated by '+', each COUNT (1..65536) or
// COUNT:POOL (parse_pool_text), at most 1024 groups. Throws ConfigError naming `what`.
// instance_groups_text() is the inverse ("" = none).
std::vector<InstanceGroup> parse_instance_groups(std::string_view text, std::string_view what);
std::string instance_groups_text(const std::vector<InstanceGroup>& groups);

// Prefill/decode disaggregation (Splitwise, DistServe; cluster.hpp disaggregated_instances):
// `prefill` prefill instances and `decode` decode instances, each a replica of its pool's plan
// (the design's, changed by prefill_pool / decode_pool). 0:0 = co-located instances
// (ServingSpec::instances).
struct Disaggregation {
  int prefill = 0;
  int decode = 0;
  PoolConfig prefill_pool;
  PoolConfig decode_pool;
  bool enabled() const { return prefill > 0 || decode > 0; }
  bool operator==(const Disaggregation&) const = default;
};

// Service-level objectives of goodput (DistServe's definition: requests meeting both), in s;
// 0 = none.
struct Slo {
  double ttft_s = 0;  // time to first token
  double tpot_s = 0;  // mean time per output token after the first
  bool operator==(const Slo&) const = default;
};

// Who decides the split between prefill and decode instances (runs/serve.hpp).
enum class Partitioning {
  by_design,  // the central scheduler on a wafer whose settings give no split, else as given
  given,      // the instances, groups or disaggregation below (a wafer needs a split)
  automatic,  // the central scheduler (wafer/partition.hpp) chooses it, on a wafer or GPUs
};
// How the scheduler's limits are set.
enum class SchedulerSizing {
  as_given,      // the scheduler below
  trtllm_bench,  // trtllm-bench's rule from the requests' mean lengths (trtllm_bench.hpp); the
                 // scheduler below is not used (the CLI's scheduler flags still apply)
};

struct ServingSpec {
  SourceKind source = SourceKind::generated;
  std::size_t requests = 1000;  // benchmark and generated sources (CLI --requests default)
  double rate_per_s = 10;       // generated: mean arrival rate
  ArrivalProcess::Kind arrivals = ArrivalProcess::Kind::poisson;
  double cv = 1;  // gamma arrivals: coefficient of variation of the gaps (1 = Poisson-like)
  std::uint64_t seed = 1;
  std::string trace;      // trace: the CSV file (io resolves a relative one in a project file)
  double time_scale = 1;  // trace: arrivals divided by this (2 = twice the request rate)
  // Prompt and output lengths of benchmark and generated requests (CLI defaults 1024 / 256;
  // vLLM benchmark_serving's random dataset uses 1024 / 128).
  LengthDist input = fixed_length(1024);
  LengthDist output = fixed_length(256);
  // Closed loop (trtllm-bench --concurrency, vLLM --max-concurrency): at most this many
  // requests in the system. 0 = open (arrival times).
  int concurrency = 0;
  // Co-located instances, each a replica of the plan. 0 = the design's dp (its replicas).
  // Not used when disaggregated (the pools are disaggregate.prefill + disaggregate.decode).
  int instances = 0;
  // Co-located instances of their own plans (InstanceGroup); non-empty replaces `instances`
  // (which must then be 0) and excludes disaggregation.
  std::vector<InstanceGroup> instance_groups;
  Disaggregation disaggregate;
  Router router = Router::join_shortest_queue;
  Partitioning partitioning = Partitioning::by_design;
  SchedulerSizing sizing = SchedulerSizing::as_given;
  SchedulerConfig scheduler;  // vLLM / TensorRT-LLM names and defaults: simulator.hpp
  Slo slo;

  static LengthDist fixed_length(int tokens) {
    LengthDist d;
    d.a = tokens;
    return d;
  }
  // Member by member (a new field of any nested struct is compared without a change here).
  bool operator==(const ServingSpec&) const = default;
};

// The ranges every field must lie in (the CLI's flag ranges), as issues at "<root>/<key>"
// with the section's JSON keys (io/serving.hpp): requests 1..1e8, rate_per_s and the lengths
// as generate() takes them, a benchmark's lengths fixed, cv 1e-3..1e3, time_scale 1e-6..1e6,
// a trace file named when the source is a trace, concurrency 0..2^30, instances 0..65536,
// disaggregation 0:0 or both counts >= 1, instance groups (at most 1024, counts 1..65536, not
// with instances > 0 or disaggregation), a pool's or group's degrees 0..65536 and its scheduler
// limits 0 (the spec's) or in the scheduler's ranges, the scheduler's limits >= 1 (max_num_seqs <=
// 2^20, max_num_batched_tokens <= 1e8, block_size <= 65536), CUDA-graph batch sizes ascending in
// [1, 2^20], kv_cache_fraction in (0, 1], SLOs
// finite and >= 0. Empty when the spec can run (whether a trace file exists and parses, and
// whether the design has room for the instances, is known only when they are built).
std::vector<Issue> validate(const ServingSpec& spec, const std::string& root = "/serving");

// The spec's lengths against the model's context (workload::Model::max_context_tokens): an issue
// at <root>/input_len when even the shortest request a benchmark or a generator can draw is
// longer (every request would be rejected). A trace's requests are checked one by one when they
// arrive: those over the context are rejected with a reason (simulator.hpp).
std::vector<Issue> check_context(const ServingSpec& spec, const workload::Model& model,
                                 const std::string& root = "/serving");

// "1024", "uniform:64:512", "lognormal:1020:0.9": the text parse_length_dist() reads back to
// the same distribution (shortest round-trip doubles). A resample distribution has no text
// form: "resample" (validate() refuses it in a spec).
std::string length_dist_text(const LengthDist& d);

// The request stream of a valid spec (validate() first): a benchmark or a generated stream, or
// for a trace source `trace_rows` (the file's requests, e.g. from io::load_trace) scaled by
// time_scale. Throws std::invalid_argument for a spec out of range.
std::vector<Request> build_requests(const ServingSpec& spec, std::vector<Request> trace_rows = {});

// Instances of `design` and the simulator options a spec describes: co-located instances
// (instances, or the design's dp when 0), co-located instance groups of their own plans, or
// the disaggregated pools with their KV transfer, and the router, concurrency and SLOs (0 =
// none -> no limit). A pool or group runs pool_design() under spec.scheduler with its
// PoolConfig's limits.
struct DeployedPool {
  Role role = Role::colocated;
  std::size_t first = 0;  // its instances are instances[first, first + count)
  int count = 0;
  std::string plan;  // parallel::short_text of one replica's plan ("tp2")
};
struct Deployment {
  std::vector<InstanceConfig> instances;
  SimOptions options;  // stop token unset
  // "4 co-located" | "2 (tp2) + 1 (tp4) co-located" | "1 prefill + 3 decode" |
  // "2 prefill (tp2) + 1 decode (tp4)"
  std::string layout;
  std::vector<DeployedPool> pools;  // one per group of like instances, in `instances` order
};
// Throws std::invalid_argument when the design has no room for a KV block, a pool's or a
// group's plan is not valid for the design (the message names /serving/disaggregate/<pool> or
// /serving/instance_groups/<i> and perf::validate's issue) or the system has too few devices
// for the pools or groups (colocated_instances / disaggregated_instances).
Deployment deploy(const perf::Design& design, const ServingSpec& spec);

// A pool's design: `design` with the pool's degrees (dp = 1; per-module plans derived when a
// degree changes). Not validated here (deploy() does).
perf::Design pool_design(const perf::Design& design, const PoolConfig& pool);
// The pool's scheduler: `base` with the pool's limits.
SchedulerConfig pool_scheduler(const SchedulerConfig& base, const PoolConfig& pool);

// The co-located instance count a spec runs on `design`: instances, or the design's dp.
int colocated_count(const ServingSpec& spec, const perf::Design& design);

}  // namespace stackscope::serving
