// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Event-driven serving simulator (docs/model.md §11.2): requests arrive, a router sends each to an
// instance, and every instance runs scheduler iterations back to back while it has work — the
// continuous ("in-flight") batching of vLLM v1 and TensorRT-LLM, named as they name it:
//  - a token budget per iteration (max_num_batched_tokens) and a cap on running sequences
//    (max_num_seqs);
//  - running sequences first (decodes and unfinished prefill chunks, in admission order), then
//    waiting requests FCFS while budget, sequence slots and KV blocks last;
//  - chunked prefill (a prompt split over iterations within the budget) or whole prompts;
//  - a paged KV cache of kv_blocks blocks of block_size tokens; when a running sequence needs a
//    block and none is free, the most recently admitted running sequence is preempted by
//    recompute (its blocks freed; it re-enters the queue's head and later re-prefills its prompt
//    and the tokens it had generated) — vLLM's default preemption mode;
//  - requests that can never run (more blocks than the cache, a prompt over the budget without
//    chunked prefill, over max_model_len) are rejected with a reason at arrival.
// An iteration's time and energy come from a cost function (perf::IterationModel in practice;
// anything in tests). Times in s, energy in J.
//
// Contract: simulate() is deterministic (single-threaded, ties broken by instance index and
// request id) and pure apart from the cost function it calls; it never throws for a valid
// configuration (std::invalid_argument otherwise, naming the field).
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/perf/iteration.hpp"
#include "stackscope/serving/request.hpp"

namespace stackscope::serving {

// How KV blocks are committed (TensorRT-LLM's CapacitySchedulerPolicy names):
//  - max_utilization: blocks are allocated as tokens are scheduled; a shortage preempts (vLLM's
//    behaviour, TensorRT-LLM MAX_UTILIZATION);
//  - guaranteed_no_evict: a request is admitted only when blocks for its whole input + output
//    are free, and they are reserved at once, so nothing is ever preempted (TensorRT-LLM's
//    default, GUARANTEED_NO_EVICT).
enum class KvPolicy { max_utilization, guaranteed_no_evict };

struct SchedulerConfig {
  int max_num_seqs = 256;             // vLLM max_num_seqs; TensorRT-LLM max_batch_size
  int max_num_batched_tokens = 8192;  // vLLM max_num_batched_tokens; TensorRT-LLM max_num_tokens
  bool chunked_prefill = true;        // vLLM enable_chunked_prefill; TRT-LLM enable_chunked_context
  // true: prefill chunks and decodes share an iteration (vLLM v1, TensorRT-LLM in-flight
  // batching). false: SGLang's default scheduling (enable_mixed_chunk off): an iteration runs
  // prefill only -- unfinished prompt chunks, then waiting requests -- whenever there is prefill
  // work that fits, and the running decodes wait for it; otherwise it runs every decode.
  bool mixed_batches = true;
  // The overlap scheduler (TensorRT-LLM PyTorch executor's _executor_loop_overlap, SGLang's
  // default overlap schedule): the host forms and launches iteration n+1 while the device runs
  // n, and reads n's tokens only after that. So an iteration admits only the requests that had
  // reached the engine when the iteration before it started (an arrival waits for the
  // iteration in flight and the next one), and a sequence that ends in iteration n still holds
  // its slot and KV blocks through n+1, where it decodes one discarded token. An instance that
  // was idle schedules its arrivals at once. Tokens reach the client when their iteration ends.
  bool overlap_scheduler = false;
  int block_size = 16;                // tokens per KV block (vLLM's default)
  // Longest input + output admitted; 0 = no limit. Instances built from a design
  // (cluster.hpp) take the model's max_context_tokens for 0, as vLLM does.
  int max_model_len = 0;
  KvPolicy kv_policy = KvPolicy::max_utilization;
  // Share of the memory left after weights and activations given to the KV cache (TensorRT-LLM
  // kv_cache_free_gpu_mem_fraction, 0.9 by default); used where instances are built from a
  // design (cluster.hpp).
  double kv_cache_fraction = 1.0;
  // CUDA-graph batch sizes (TensorRT-LLM cuda_graph_config.batch_sizes with enable_padding,
  // vLLM cudagraph_capture_sizes): an iteration of decodes only runs the captured graph of the
  // smallest listed size >= its sequences, padded with dummy decodes (one token of context) that
  // cost compute but produce nothing; larger batches and iterations with a prefill chunk run
  // unpadded (eager). Empty = no padding. Ascending, each >= 1.
  std::vector<int> cuda_graph_batch_sizes;
  bool operator==(const SchedulerConfig&) const = default;
};

// The batch a decode-only iteration of `seqs` sequences runs at under `s` (see
// cuda_graph_batch_sizes): seqs itself when no listed size is >= seqs.
int graph_padded_batch(const SchedulerConfig& s, int seqs);

// TensorRT-LLM's defaults as trtllm-bench runs them: max_batch_size 2048, max_num_tokens 8192
// (trtllm-build defaults), tokens_per_block 32, GUARANTEED_NO_EVICT, 90 % of the free memory for
// the KV cache, chunked context on.
SchedulerConfig tensorrt_llm_defaults();

using CostFn = std::function<perf::IterationCost(std::span<const perf::SequenceChunk>)>;

// Prefill/decode disaggregation (Splitwise, DistServe): a prefill instance hands every request
// whose first token it produced to a decode instance, after its KV cache crossed the network.
enum class Role { colocated, prefill, decode };

struct InstanceConfig {
  std::string name;
  Role role = Role::colocated;
  double kv_bytes_per_token = 0;  // KV of one token of context over the instance (transfers)
  SchedulerConfig scheduler;
  long long kv_blocks = 0;  // KV cache of the instance, in blocks of scheduler.block_size
  int devices = 1;          // devices of the instance (power per device)
  // Static power of the instance's devices while it runs no iteration (W; the iterations'
  // energy already holds it over their own time): idle time costs energy too.
  double idle_power_W = 0;
  CostFn cost;
};

enum class Router {
  round_robin,
  join_shortest_queue,  // fewest requests waiting or running
  least_kv,             // lowest fraction of KV blocks in use
};

// Time and energy to move a request's KV cache from instance `from` to instance `to`, asked at
// simulated time `now_s`; `bytes` is its tokens x the source's kv_bytes_per_token (a
// re-sharding transfer may move another amount, and says so in KvTransfer::bytes).
struct KvTransfer {
  double time_s = 0;  // from its start until the KV is usable at the destination
  double energy_J = 0;
  double bytes = -1;  // bytes that crossed the network; < 0 = the bytes asked for
  // >= now_s: the function scheduled the transfer itself (it models its links, e.g. the
  // wafer's D2D reservations) and it starts then; < 0: the simulator's rule (SimOptions).
  double start_s = -1;
  // How long the transfer holds the source instance's egress and the destination instance's
  // ingress (s); < 0 = time_s. A pair of multi-device instances sends from and receives into
  // several NICs, so one end can be busy for less than the whole transfer.
  double egress_s = -1, ingress_s = -1;
};
using KvTransferFn = std::function<KvTransfer(int from, int to, double bytes, double now_s)>;

struct SimOptions {
  Router router = Router::join_shortest_queue;
  // Closed loop (trtllm-bench --concurrency, vLLM benchmark --max-concurrency): at most this many
  // requests in the system; the next one is released when one finishes. 0 = open (arrival times).
  int concurrency = 0;
  double slo_ttft_s = std::numeric_limits<double>::infinity();
  double slo_tpot_s = std::numeric_limits<double>::infinity();
  std::size_t max_timeline_points = 2000;  // per instance, decimated evenly
  // Disaggregation: the transfer cost (null: instantaneous). A transfer holds its prefill
  // instance's egress and its decode instance's ingress links: transfers out of one prefill
  // instance, or into one decode instance, queue behind each other; arrivals go to the prefill and
  // co-located instances, handed-off requests to the decode instances, each by `router`.
  KvTransferFn kv_transfer;
  // The serving front end's time per request (runtime::Profile::request_latency_us): a request
  // arriving at t is admitted by the router at t + this; its TTFT, E2E and queueing time still
  // count from t. In a closed loop the next request is sent when one finishes, and reaches the
  // engine this much later. s, >= 0.
  double request_latency_s = 0;
  std::stop_token stop;
  // Called from the simulating thread every 1024 events with the requests finished (completed
  // or rejected) so far, the total and the simulated time in s; null = none (the CLI's progress
  // line on a terminal).
  std::function<void(std::size_t done, std::size_t total, double sim_s)> progress;
};

enum class Rejection : std::uint8_t { none, kv_capacity, prompt_over_budget, over_max_model_len };
inline constexpr std::size_t kRejectionKinds = 4;  // Rejection's values, none included
const char* to_string(Rejection r);  // what happened, for people
const char* key(Rejection r);        // "kv_capacity", ...: the name in JSON (rejected_by)

struct RequestResult {
  std::uint64_t id = 0;
  int instance = -1;
  int input_tokens = 0, output_tokens = 0;
  double arrival_s = 0;          // as released (closed loop: when a slot freed)
  double first_scheduled_s = 0;  // first iteration that computed any of it
  double first_token_s = 0;
  double finish_s = 0;
  int preemptions = 0;
  Rejection rejected = Rejection::none;
  bool finished = false;
  bool done() const { return finished; }
  double ttft_s() const { return first_token_s - arrival_s; }
  double queue_s() const { return first_scheduled_s - arrival_s; }
  double e2e_s() const { return finish_s - arrival_s; }
  // Mean decode step seen by the request (0 for a single output token).
  double tpot_s() const {
    return output_tokens > 1 ? (finish_s - first_token_s) / (output_tokens - 1) : 0.0;
  }
};

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  std::size_t count = 0;
};

struct TimelinePoint {
  double t_s = 0;
  int running = 0;
  int waiting = 0;
  double kv_utilisation = 0;  // blocks in use / kv_blocks
  int batch_tokens = 0;       // tokens computed by the iteration starting at t_s
};

struct InstanceStats {
  std::string name;
  std::uint64_t iterations = 0;
  std::uint64_t preemptions = 0;
  double busy_s = 0;
  double energy_J = 0;       // iterations + idle_energy_J
  double idle_energy_J = 0;  // idle_power_W over the makespan's time without an iteration
  double kv_peak_utilisation = 0;
  std::uint64_t requests = 0;  // routed here
  std::vector<TimelinePoint> timeline;
};

struct SimResult {
  std::vector<RequestResult> requests;  // in id order
  std::vector<InstanceStats> instances;
  Percentiles ttft, tpot, itl, e2e, queue;  // over completed requests (tpot: output > 1);
                                            // itl: every gap between a request's tokens
  std::size_t completed = 0, rejected = 0;
  // Rejected requests per reason, indexed by Rejection (rejected_by[0], none, stays 0).
  std::array<std::size_t, kRejectionKinds> rejected_by{};
  double start_s = 0, makespan_s = 0;  // first arrival to last finish
  double input_tokens_per_s = 0, output_tokens_per_s = 0, requests_per_s = 0;
  double goodput_rps = 0;  // completed requests meeting both SLOs, per s of makespan
  // Fraction of all requests (completed + rejected) that completed within both SLOs: a rejected
  // request is a miss (DistServe, Zhong et al., OSDI 2024: the share of the requests sent that
  // meet the SLOs). 0 when nothing finished or was rejected.
  double slo_attainment = 0;
  double energy_per_output_token_J = 0;  // iterations, idle power and KV transfers
  std::uint64_t iterations = 0;
  std::uint64_t kv_transfers = 0;
  double kv_transfer_bytes = 0, kv_transfer_energy_J = 0;
  Percentiles kv_transfer_s;  // queueing behind earlier transfers included
  bool stopped = false;
};

SimResult simulate(std::span<const Request> requests, std::vector<InstanceConfig> instances,
                   const SimOptions& options);

// The reasons of a run's rejections with their counts, the commonest first: "7 input + output
// over max_model_len (...), 1 needs more KV blocks than the instance holds"; "" when none.
std::string rejection_text(const SimResult& result);

}  // namespace stackscope::serving
