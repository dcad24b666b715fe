// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured serving deployments and the designs they map to (docs/validation.md).
//
// A SiliconRow is one deployment as NVIDIA AIConfigurator's silicon sample records it
// (github.com/ai-dynamo/aiconfigurator, aic-core/src/aiconfigurator_core/systems/
// silicon_sample.csv; data/aic-silicon holds its H100 rows): a backend (trtllm, vllm, sglang)
// and version, a model (Hugging Face id), a system (h100_sxm, h200_sxm, b200_sxm, ...), the GEMM
// and MoE quantisation, input and output lengths, the plan of an aggregated worker or of the
// prefill and decode workers of a disaggregated deployment, and the measured mean TTFT and
// TPOT in ms. core/io reads the CSV (io/silicon_sample.hpp).
//
// map_row() turns a row into a Case: the design of each worker (device, model, numerics,
// per-module plan with attention data parallelism and MoE TP/EP), the scheduler its backend
// runs, the runtime profile of that backend, and the benchmark that measured it (closed loop at
// the row's concurrency, the request count and length spread of its load generator). A row that
// cannot be expressed gets a Case with `unmapped` set to the reason (never dropped).
//
// Units: lengths in tokens, times in ms as the sample writes them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::validate {

// One worker kind's plan and load, as the sample's columns name them (0 = empty cell).
struct SiliconStage {
  int batch = 0;         // batch_size: concurrent requests per attention-DP rank
  int workers = 0;       // *_num_workers (disaggregated only)
  int tp = 0;            // tp_size
  int pp = 0;            // pp_size
  int attention_dp = 0;  // attention_dp_size (GPUs per worker = tp x attention_dp x pp)
  int moe_tp = 0;        // moe_tp_size
  int moe_ep = 0;        // moe_ep_size
};

struct SiliconRow {
  std::string origin;  // "<file>:<line>"
  std::string id;
  std::string source;  // silicon_data_source: where and how the row was measured
  std::string backend, backend_version, model, system, precision, mode;
  std::string gemm_quant, moe_quant;
  int isl = 0, osl = 0;
  SiliconStage agg, prefill, decode;
  double ttft_ms = 0, tpot_ms = 0;
};

// The presets a mapping may use, by registry id (core/io fills it from the preset registry).
struct Catalog {
  std::map<std::string, hw::Hardware> hardware;
  std::map<std::string, hw::System> systems;
  std::map<std::string, workload::Model> models;
  std::map<std::string, runtime::Profile> runtimes;
};

// The load generator that measured a row, recognised from its silicon_data_source:
//  - aiperf: AIConfigurator's own benchmark (its generator's bench_run.sh.j2 and sflow.py:
//    `aiperf profile --concurrency C --num-requests 20·C --warmup-request-count 2·C`, fixed
//    ISL/OSL with stddev 0, ignore_eos, streaming) -- the rows whose source names its
//    gap-analysis files;
//  - benchmark_serving: SemiAnalysis InferenceX runs (vLLM's benchmark_serving fork:
//    `--max-concurrency C --num-prompts 10·C --random-range-ratio 0.8`, ignore_eos,
//    streaming; lengths uniform in [0.8 L, L]) -- the rows with model=/measured= sources.
enum class LoadGenerator { aiperf, benchmark_serving };
const char* to_string(LoadGenerator g);

// The benchmark a case runs: closed loop, `requests` requests all released at t = 0 up to
// `concurrency` in flight, lengths uniform in [min, max] drawn with `seed`.
struct Benchmark {
  LoadGenerator generator = LoadGenerator::aiperf;
  int concurrency = 1;
  std::size_t requests = 1;
  int isl_min = 1, isl_max = 1, osl_min = 1, osl_max = 1;
  std::uint64_t seed = 1;
};

// One worker pool: `count` replicas of `design` under `scheduler`.
struct Worker {
  perf::Design design;
  serving::SchedulerConfig scheduler;
  int count = 1;
};

struct Case {
  SiliconRow row;
  // Partition keys (AIConfigurator's own regression partition, model|system|backend|mode).
  std::string partition;
  bool moe = false;                // the model has routed experts
  std::string model_preset;        // registry id the row's model mapped to ("" when unmapped)
  std::string unmapped;            // why the row cannot be run; empty when it can
  std::vector<std::string> notes;  // assumptions the mapping made for this row
  // Aggregated: one worker in `workers`; disaggregated: the prefill pool, then the decode pool.
  std::vector<Worker> workers;
  Benchmark bench;
  std::string runtime;  // runtime profile id
};

// Registry ids the sample's names map to (each mapping sourced in silicon.cpp).
std::optional<std::string> hardware_for_system(const std::string& system);
// The model preset of a Hugging Face id, or the reason none is used.
struct ModelMapping {
  std::string preset;  // "" = refused
  std::string reason;  // why refused, or a note on the mapping (an alias)
};
ModelMapping model_for_path(const std::string& model_path);

// The row's concurrency: the silicon_concurrency the source records when present, else the
// columns' (aggregated: batch x attention_dp; disaggregated: decode batch x workers x
// attention_dp).
int row_concurrency(const SiliconRow& row);

LoadGenerator load_generator_of(const SiliconRow& row);

// Maps a row (see the file comment). Never throws for a row the CSV reader accepted.
Case map_row(const SiliconRow& row, const Catalog& catalog);

// Marks every case that repeats an earlier case's measurement (the sample exports some
// measurements twice, under two ids: same model, system, backend, mode, lengths and the same
// TTFT and TPOT to the last digit) as unmapped with the first one's id, so each measurement is
// counted once.
void mark_duplicates(std::vector<Case>& cases);

}  // namespace stackscope::validate
