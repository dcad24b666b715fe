// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/validate/silicon.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <string_view>
#include <tuple>

#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/trtllm_bench.hpp"

namespace stackscope::validate {
namespace {

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// "key=123" inside a "; "-separated source string; 0 when absent or not a whole number.
int source_int(const std::string& source, std::string_view key) {
  const std::string needle = std::string(key) + "=";
  std::size_t at = 0;
  while ((at = source.find(needle, at)) != std::string::npos) {
    // The key must start the string or follow a separator, so "x_silicon_concurrency" is not it.
    if (at == 0 || source[at - 1] == ' ' || source[at - 1] == ';') break;
    at += needle.size();
  }
  if (at == std::string::npos) return 0;
  long long v = 0;
  std::size_t i = at + needle.size();
  const std::size_t start = i;
  while (i < source.size() && source[i] >= '0' && source[i] <= '9' && v < (1LL << 31)) {
    v = v * 10 + (source[i] - '0');
    ++i;
  }
  if (i == start || v <= 0 || v >= (1LL << 30)) return 0;
  return static_cast<int>(v);
}

int or1(int v) {
  return v > 0 ? v : 1;
}

// Numerics of a row: weights and activations from the GEMM quantisation, the KV cache from the
// backend's default for that checkpoint.
struct NumericsMapping {
  workload::Numerics numerics;
  std::string refused;
  std::string note;
};

bool fp8_family(const std::string& q) {
  return q == "fp8" || q == "fp8_block";
}
bool w4_weight_only(const std::string& q) {
  return q == "mxfp4" || q == "w4a16" || q == "int4_wo" || q == "w4a16_awq" || q == "int4";
}

NumericsMapping numerics_for(const SiliconRow& row, const hw::Hardware& hw) {
  NumericsMapping m;
  const std::string& q = row.gemm_quant;
  workload::Numerics& n = m.numerics;
  if (q.empty() || q == "bf16" || q == "fp16") {
    if (!row.precision.empty() && row.precision != "bf16" && row.precision != "fp16") {
      m.refused = "precision '" + row.precision + "' with no GEMM quantisation";
      return m;
    }
    n = {Precision::bf16, Precision::bf16, Precision::bf16};
  } else if (fp8_family(q)) {
    // fp8_block (DeepSeek-style 128 x 128 block scales) moves the same bytes and runs the same
    // FP8 tensor-core rate as per-tensor FP8; the scales are < 0.1 % of the weights.
    n = {Precision::fp8, Precision::fp8, Precision::bf16};
  } else if ((q == "nvfp4" || q == "mxfp4") && row.model.starts_with("openai/gpt-oss")) {
    // gpt-oss ships its experts in MXFP4 only (the sample files its rows as nvfp4). Hopper runs
    // them weight-only at BF16 (vLLM's Marlin / triton_kernels MoE, TensorRT-LLM's Triton MoE
    // backend); Blackwell runs MXFP4 x MXFP8 on its FP4 tensor cores (FlashInfer's and
    // TensorRT-LLM's trtllm-gen MoE), so the GEMMs go at the FP8 rate.
    const bool fp4_cores = hw.compute.matrix_flops_per_cycle_fp4 > 0;
    n = {Precision::fp4, fp4_cores ? Precision::fp8 : Precision::bf16, Precision::bf16};
    m.note = fp4_cores ? "gpt-oss MXFP4 experts x MXFP8 activations"
                       : "gpt-oss MXFP4 experts, weight-only: GEMMs at bf16";
    // KV cache at the model's dtype (the backends' "auto"): the rows do not say otherwise.
    if (row.moe_quant == q) return m;
  } else if (q == "nvfp4") {
    if (hw.compute.matrix_flops_per_cycle_fp4 <= 0) {
      m.refused = "NVFP4 GEMMs on " + row.system +
                  ", which has no FP4 tensor cores (Blackwell and later): the row's software "
                  "ran some other kernel the model cannot name";
      return m;
    }
    n = {Precision::fp4, Precision::fp4, Precision::fp8};
  } else if (w4_weight_only(q)) {
    // Weight-only 4-bit (INT4 AWQ/GPTQ, MXFP4 on Hopper): 4-bit weights dequantised in the GEMM,
    // which runs at the activations' precision (perf: a GEMM runs at its wider operand).
    n = {Precision::fp4, Precision::bf16, Precision::bf16};
    m.note = "weight-only " + q + ": 4-bit weights, GEMMs at bf16";
  } else {
    m.refused = "GEMM quantisation '" + q +
                "' (allowed: empty/bf16/fp16, fp8, fp8_block, nvfp4, mxfp4, w4a16, int4_wo)";
    return m;
  }
  // The MoE experts carry the model's one weight precision; a row whose experts are stored in
  // another width than its dense GEMMs cannot be expressed.
  const std::string& mq = row.moe_quant;
  if (!mq.empty() && mq != q) {
    const bool same_width = (fp8_family(mq) && fp8_family(q)) || (mq == "bf16" && q.empty());
    if (!same_width) {
      m.refused = "MoE quantisation '" + mq + "' differs in width from the GEMMs' '" + q +
                  "' (one weight precision per model)";
      return m;
    }
  }
  // KV cache: TensorRT-LLM's FP8 deployments keep an FP8 KV cache (the checkpoints' and
  // AIConfigurator's generated configs' kv_cache dtype fp8); vLLM and SGLang default to the
  // model's dtype (kv_cache_dtype "auto" = bf16) unless told otherwise, and the rows do not say.
  if (row.backend == "trtllm" && n.weights != Precision::bf16) n.kv_cache = Precision::fp8;
  if (n.weights == Precision::fp4 && n.activations == Precision::fp4) n.kv_cache = Precision::fp8;
  // SemiAnalysis InferenceX runs set the KV dtype in their launch scripts (repository
  // SemiAnalysisAI/InferenceX, benchmarks/): FP8 in 70b_fp8_h200_slurm.sh and
  // 70b_fp{4,8}_b200_docker.sh (vLLM, Llama-3.1-70B), gptoss_fp4_b200.sh (vLLM, gpt-oss on
  // B200) and dsr1_fp{4,8}_b200.sh (SGLang, DeepSeek-R1 on B200, fp8_e4m3); the H100/H200
  // gpt-oss and H200 DeepSeek-R1 SGLang scripts leave it at "auto". The database dump names
  // the same DeepSeek-R1 runs deepseek-ai/DeepSeek-V3 (their ids start dsr1_; load_generator_of).
  if (load_generator_of(row) == LoadGenerator::benchmark_serving && row.backend != "trtllm") {
    const bool b200 = row.system == "b200_sxm";
    const bool deepseek_r1 =
        row.model == "deepseek-ai/DeepSeek-R1" || row.model == "deepseek-ai/DeepSeek-V3";
    if ((row.model == "meta-llama/Llama-3.1-70B" && row.backend == "vllm") ||
        (row.model == "openai/gpt-oss-120b" && row.backend == "vllm" && b200) ||
        (deepseek_r1 && row.backend == "sglang" && b200))
      n.kv_cache = Precision::fp8;
  }
  return m;
}

// CUDA-graph padding sizes of a backend (each a batch of decodes per attention-DP rank),
// cut at `cap` with `cap` itself added when a listed size is larger.
std::vector<int> graph_sizes(const std::string& backend, int cap) {
  std::vector<int> base;
  if (backend == "trtllm") {
    // TensorRT-LLM cuda_graph_config with padding: 1, 2, 4, 8 and multiples of 8 up to
    // max_batch_size (pyexecutor's default batch_sizes list for enable_padding).
    for (int b : {1, 2, 4}) base.push_back(b);
    for (int b = 8; b <= 8192; b += 8) base.push_back(b);
  } else {
    // vLLM cudagraph_capture_sizes default: 1, 2, 4, then 8..256 step 8, 272..512 step 16
    // (vllm/config CompilationConfig); SGLang captures a similar list up to cuda_graph_max_bs.
    for (int b : {1, 2, 4}) base.push_back(b);
    for (int b = 8; b <= 256; b += 8) base.push_back(b);
    for (int b = 272; b <= 512; b += 16) base.push_back(b);
  }
  std::vector<int> out;
  for (int b : base) {
    if (b >= cap) break;
    out.push_back(b);
  }
  if (cap <= base.back()) out.push_back(cap);
  return out;
}

// The scheduler a backend runs one worker with: `seqs` concurrent sequences over the worker's
// `ranks` attention-DP ranks (the instance is the whole worker, so its caps are per-rank x
// ranks).
enum class StageRole { agg, prefill, decode };

serving::SchedulerConfig backend_scheduler(const SiliconRow& row, const perf::Design& design,
                                           StageRole role, int seqs, int ranks, int isl_max,
                                           int osl_max) {
  serving::SchedulerConfig s;
  const bool aic = load_generator_of(row) == LoadGenerator::aiperf;
  const int per_rank = std::max(1, seqs / ranks);
  // AIConfigurator's generator (rule_plugin/benchmark/{trtllm,vllm}.rule) sizes the token
  // budget per rank: aggregated batch + ISL + 1500, prefill ISL + 1500, decode the batch;
  // TensorRT-LLM rounds it up to its 32-token blocks.
  const auto aic_tokens = [&](int block) {
    const int t = role == StageRole::agg       ? per_rank + isl_max + 1500
                  : role == StageRole::prefill ? isl_max + 1500
                                               : per_rank;
    return ((t + block - 1) / block) * block * ranks;
  };
  if (row.backend == "trtllm") {
    // trtllm-serve with the PyTorch backend (GUARANTEED_NO_EVICT, 32-token blocks, chunked
    // prefill off, CUDA graphs with padding), max_batch_size = the row's batch per rank.
    s = serving::trtllm_bench_scheduler(design, isl_max, osl_max);
    s.max_num_seqs = seqs;
    s.max_num_batched_tokens = aic ? aic_tokens(32)
                                   : std::max(s.max_num_batched_tokens, isl_max + seqs);
  } else {
    // vLLM V1 (the InferenceX H100 scripts: --max-num-seqs = concurrency,
    // --max-num-batched-tokens 8192, prefix caching off, --gpu-memory-utilization 0.9) and
    // SGLang (--max-running-requests, chunked_prefill_size 8192 on 80-141 GB GPUs): chunked
    // prefill within an 8192-token budget, KV allocated as it grows with preemption. vLLM
    // runs of AIConfigurator's own workflow take its generated --max-num-batched-tokens.
    s.max_num_seqs = seqs;
    s.max_num_batched_tokens = aic && row.backend == "vllm" ? aic_tokens(1) : 8192;
    s.chunked_prefill = true;
    // SGLang runs prefill batches on their own, ahead of decode (enable_mixed_chunk is off by
    // default); vLLM V1 mixes them.
    s.mixed_batches = row.backend != "sglang";
    s.block_size = 16;
    s.kv_policy = serving::KvPolicy::max_utilization;
    // vLLM's --gpu-memory-utilization 0.9 is a share of the whole memory; the simulator's
    // fraction is of what weights and activations leave, so 0.9 here is an approximation.
    s.kv_cache_fraction = 0.9;
  }
  // The overlap scheduler: on in TensorRT-LLM's aggregated and decode workers (AIConfigurator's
  // generator rule benchmark/trtllm.rule: disable_overlap_scheduler false for agg and decode,
  // true for prefill) and in SGLang (disable_overlap_schedule off by default); vLLM V1 runs
  // synchronously unless --async-scheduling is given, which the sample's recipes do not.
  s.overlap_scheduler =
      (row.backend == "trtllm" && role != StageRole::prefill) || row.backend == "sglang";
  // Graphs are captured per attention-DP rank; the instance pads its whole decode batch.
  s.cuda_graph_batch_sizes.clear();
  for (int b : graph_sizes(row.backend, std::max(1, seqs / ranks)))
    s.cuda_graph_batch_sizes.push_back(b * ranks);
  return s;
}

// A worker's design: the base design with the stage's plan. Dense models run attention data
// parallelism as attention TP inside a wider FFN TP group; MoE models as the plan's ep ranks
// (attention-DP over them) with the experts' own TP x EP.
std::string apply_stage(perf::Design& d, const SiliconStage& st, bool moe) {
  const int tp = or1(st.tp), pp = or1(st.pp), adp = or1(st.attention_dp);
  parallel::Plan p;
  p.pp = pp;
  p.dp = 1;
  if (!moe) {
    p.tp = tp * adp;
    if (adp > 1) p.attention.tp = tp;
  } else {
    p.tp = tp;
    p.ep = adp;
    const int stage = tp * adp;
    int mtp = st.moe_tp, mep = st.moe_ep;
    if (mtp <= 0 && mep <= 0) {
      mtp = 1;
      mep = stage;
    } else if (mtp <= 0) {
      mtp = stage / mep;
    } else if (mep <= 0) {
      mep = stage / mtp;
    }
    if (mtp * mep != stage)
      return "moe_tp " + std::to_string(mtp) + " x moe_ep " + std::to_string(mep) +
             " does not use the worker's tp x attention_dp = " + std::to_string(stage) + " GPUs";
    p.moe.tp = mtp;
    p.moe.ep = mep;
  }
  d.parallel = p;
  return {};
}

}  // namespace

const char* to_string(LoadGenerator g) {
  return g == LoadGenerator::aiperf ? "aiperf" : "benchmark_serving";
}

std::optional<std::string> hardware_for_system(const std::string& system) {
  // AIConfigurator's system names (aic-core systems/*.yaml) -> StackScope hardware presets.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMap{{
      {"h100_sxm", "h100-sxm"},
      {"h200_sxm", "h200"},
      {"b200_sxm", "b200"},
      {"a100_sxm", "a100-sxm-80gb"},
  }};
  for (const auto& [k, v] : kMap)
    if (system == k) return std::string(v);
  return std::nullopt;
}

ModelMapping model_for_path(const std::string& path) {
  struct Entry {
    std::string_view path, preset, note;
  };
  static constexpr Entry kMap[] = {
      {"meta-llama/Llama-3.1-8B", "llama-3.1-8b", ""},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},
      {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},
      {"meta-llama/Llama-3.1-70B", "llama-3.1-70b", ""},
      {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", ""},
      {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", ""},
      {"meta-llama/Llama-3.1-405B", "llama-3.1-405b", ""},
      {"meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b", ""},
      {"Qwen/Qwen3-32B", "qwen3-32b", ""},
      {"Qwen/Qwen3-32B-FP8", "qwen3-32b", ""},
      {"Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b", ""},
      {"Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b", ""},
      // DeepSeek-R1 is a post-trained DeepSeek-V3: its config.json has V3's architecture
      // (huggingface.co/deepseek-ai/DeepSeek-R1, "model_type": "deepseek_v3").
      {"deepseek-ai/DeepSeek-V3", "deepseek-v3", ""},
      {"deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", "V3-0324 has V3's architecture"},
      {"deepseek-ai/DeepSeek-R1", "deepseek-v3", "R1 has V3's architecture"},
      {"deepseek-ai/DeepSeek-R1-0528", "deepseek-v3", "R1-0528 has V3's architecture"},
      // NVIDIA's ModelOpt checkpoints: the same architectures, quantised (the row's
      // gemm_quant_mode says how).
      {"nvidia/Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b", ""},
      {"nvidia/Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b", ""},
      {"nvidia/Qwen3-32B-FP8", "qwen3-32b", ""},
      {"nvidia/Qwen3-32B-NVFP4", "qwen3-32b", ""},
      {"nvidia/DeepSeek-R1-FP4", "deepseek-v3", "R1 has V3's architecture"},
      {"nvidia/DeepSeek-R1-NVFP4", "deepseek-v3", "R1 has V3's architecture"},
      {"nvidia/DeepSeek-R1-0528-FP4", "deepseek-v3", "R1-0528 has V3's architecture"},
      {"nvidia/DeepSeek-V3-0324-FP4", "deepseek-v3", "V3-0324 has V3's architecture"},
  };
  for (const auto& e : kMap)
    if (path == e.path) return {std::string(e.preset), std::string(e.note)};
  if (path == "openai/gpt-oss-120b") return {"gpt-oss-120b", ""};
  // MiniMax-M2, M2.1, M2.5 and M2.7 share one architecture (NVIDIA Megatron-Bridge's
  // MiniMax-M2 page); MiniMax-M1 / Text-01 use lightning (linear) attention, which the graph
  // cannot express.
  if (path.starts_with("MiniMaxAI/MiniMax-M2")) return {"minimax-m2.5", ""};
  if (path.starts_with("MiniMaxAI/"))
    return {"", path +
                    " uses lightning (linear) attention, which the operator graph cannot "
                    "express"};
  if (path.starts_with("Qwen/Qwen3.5") || path.starts_with("Qwen/Qwen3-Next"))
    return {"", path +
                    " mixes Gated DeltaNet (linear attention) layers with full attention; "
                    "the operator graph has full attention only"};
  return {"", "no model preset for '" + path + "'"};
}

int row_concurrency(const SiliconRow& row) {
  if (const int c = source_int(row.source, "silicon_concurrency"); c > 0) return c;
  if (row.mode == "disagg")
    return or1(row.decode.batch) * or1(row.decode.workers) * or1(row.decode.attention_dp);
  return or1(row.agg.batch) * or1(row.agg.attention_dp);
}

LoadGenerator load_generator_of(const SiliconRow& row) {
  // InferenceX (SemiAnalysis) rows carry "model=<name>; ...; measured=<date>" and no
  // AIConfigurator job ids. The 2026-04-27 database dump ("db-dump/...; config_id=...;
  // measured=...; workflow_run_id=...; <container>") is the same runs: 511 of its 882 rows in
  // the public sample repeat an InferenceX row's TTFT and TPOT to the last digit (e.g.
  // dsr1_h200_sglang_fp8_agg_1024x1024_c4_cfg81 and 2026_03_25_deepseek_r1_h200_sxm_sglang_
  // fp8_agg_1024x1024_c4_tp8_0_ep1_..., 259.9 ms / 10.29 ms). The rest come from
  // AIConfigurator's own aiperf workflow.
  const bool dump = contains(row.source, "db-dump") && contains(row.source, "measured=");
  const bool inferencex = dump || (contains(row.source, "model=") &&
                                   contains(row.source, "measured=") &&
                                   !contains(row.source, "gtl_job_id"));
  return inferencex ? LoadGenerator::benchmark_serving : LoadGenerator::aiperf;
}

namespace {

// The InferenceX rows of AIConfigurator's 2026-04-06 export give some aggregated MoE
// deployments tp_size (or attention_dp_size) multiplied by the expert-parallel degree: the id
// names tp8_ep8 and the columns say 64 GPUs with moe_tp 8 x moe_ep 8, where the same
// measurement exported on 2026-03-25 (same TTFT and TPOT to every digit) has 8 GPUs, tp 8,
// moe_tp 1, moe_ep 8. When the columns' GPUs are exactly the id's tp x ep with ep > 1, the
// id's degrees are taken: tp (or attention DP) divided by ep, moe_tp = tp / ep. Returns what
// was changed, "" when nothing was.
std::string repair_inflated_plan(SiliconRow& row) {
  if (row.mode != "agg") return {};
  static const std::regex kName(R"(_tp(\d+)(?:_\d+)?_ep(\d+)(?:_\d+)?_\d+$)");
  std::smatch m;
  if (!std::regex_search(row.id, m, kName)) return {};
  long long x = 0, y = 0;
  try {
    x = std::stoll(m[1].str());
    y = std::stoll(m[2].str());
  } catch (const std::exception&) {
    return {};
  }
  SiliconStage& st = row.agg;
  const long long tp = or1(st.tp), adp = or1(st.attention_dp);
  if (y <= 1 || x < y || x % y != 0 || tp * adp != x * y) return {};
  const std::string before = "tp " + std::to_string(tp) + " x attention-DP " +
                             std::to_string(adp) + " = " + std::to_string(tp * adp) + " GPUs";
  // The id's tp is the GPU count; the 2026-03-25 export splits it into tp and attention DP,
  // and the 2026-04-06 one multiplies one of the two by ep (MiniMax-M2.5 on H100: tp 4,
  // attention-DP 4 for tp 4; DeepSeek-R1 on B200: tp 64 or attention-DP 64 for tp 8).
  if (tp == x) {
    st.attention_dp = 1;
  } else if (adp == x) {
    st.tp = 1;
  } else if (tp > 1 && tp % y == 0 && adp == 1) {
    st.tp = static_cast<int>(tp / y);
  } else if (adp % y == 0 && tp == 1) {
    st.attention_dp = static_cast<int>(adp / y);
  } else {
    return {};
  }
  // batch_size is per attention-DP rank: the worker's batch (batch x attention DP) stays.
  if (st.batch > 0) {
    const long long worker_batch = static_cast<long long>(st.batch) * adp;
    const long long ranks = or1(st.attention_dp);
    if (worker_batch % ranks == 0) st.batch = static_cast<int>(worker_batch / ranks);
  }
  st.moe_ep = static_cast<int>(y);
  st.moe_tp = static_cast<int>(x / y);
  return "the columns give " + before + " where the id names tp" + std::to_string(x) + " ep" +
         std::to_string(y) + ": run on " + std::to_string(x) +
         " GPUs (moe tp " + std::to_string(x / y) + " x ep " + std::to_string(y) +
         "), the deployment the id names and the 2026-03-25 export of the same runs gives";
}

Case map_fixed(const SiliconRow& row, const Catalog& catalog);

}  // namespace

Case map_row(const SiliconRow& given, const Catalog& catalog) {
  SiliconRow row = given;
  const std::string repaired = repair_inflated_plan(row);
  Case c = map_fixed(row, catalog);
  c.row = given;
  if (!repaired.empty()) c.notes.push_back(repaired);
  return c;
}

void mark_duplicates(std::vector<Case>& cases) {
  std::map<std::tuple<std::string, std::string, std::string, std::string, int, int, double, double>,
           std::size_t>
      first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const SiliconRow& r = cases[i].row;
    // By the model preset when the row mapped: the database dump names DeepSeek-R1 runs
    // deepseek-ai/DeepSeek-V3 (one architecture), so a run and its re-export differ in the name.
    const auto key = std::make_tuple(
        cases[i].model_preset.empty() ? r.model : cases[i].model_preset, r.system, r.backend,
        r.mode, r.isl, r.osl, r.ttft_ms, r.tpot_ms);
    const auto [it, fresh] = first.emplace(key, i);
    if (fresh || !cases[i].unmapped.empty()) continue;
    cases[i].unmapped =
        "repeats an earlier row's measurement (the same model architecture, system, backend, "
        "mode, lengths, TTFT and TPOT to the last digit): counted once";
    cases[i].notes.push_back("the same measurement as " + cases[it->second].row.id + " (" +
                             cases[it->second].row.origin + ")");
    cases[i].workers.clear();
  }
}

namespace {

Case map_fixed(const SiliconRow& row, const Catalog& catalog) {
  Case c;
  c.row = row;
  c.partition = row.model + "|" + row.system + "|" + row.backend + "|" + row.mode;
  const auto refuse = [&](std::string why) {
    c.unmapped = std::move(why);
    c.workers.clear();
    return c;
  };
  if (row.mode != "agg" && row.mode != "disagg")
    return refuse("mode '" + row.mode + "' (allowed: agg, disagg)");
  if (row.backend != "trtllm" && row.backend != "vllm" && row.backend != "sglang")
    return refuse("backend '" + row.backend + "' (allowed: trtllm, vllm, sglang)");
  const auto hw_id = hardware_for_system(row.system);
  if (!hw_id || !catalog.hardware.contains(*hw_id))
    return refuse("no device preset for system '" + row.system + "'");
  const ModelMapping mm = model_for_path(row.model);
  if (mm.preset.empty()) return refuse(mm.reason);
  if (!catalog.models.contains(mm.preset))
    return refuse("model preset '" + mm.preset + "' is not in the registry");
  if (!mm.reason.empty()) c.notes.push_back(mm.reason);
  c.model_preset = mm.preset;

  perf::Design base;
  base.name = row.id;
  base.hardware = catalog.hardware.at(*hw_id);
  base.model = catalog.models.at(mm.preset);
  c.moe = base.model.moe.experts > 0;
  const NumericsMapping nm = numerics_for(row, base.hardware);
  if (!nm.refused.empty()) return refuse(nm.refused);
  if (!nm.note.empty()) c.notes.push_back(nm.note);
  base.workload.numerics = nm.numerics;

  // Runtime profile of the backend: the fitted profile of the backend's release era when the
  // registry has it, else the current-GPU default (noted).
  const std::string wanted = row.backend == "trtllm" ? "trtllm-2025"
                             : row.backend == "vllm" ? "vllm-2025"
                                                     : "sglang-2025";
  c.runtime = catalog.runtimes.contains(wanted) ? wanted : runtime::kModernGpuProfileId;
  if (c.runtime != wanted) c.notes.push_back("no " + wanted + " profile: " + c.runtime);
  if (!catalog.runtimes.contains(c.runtime))
    return refuse("runtime profile '" + c.runtime + "' is not in the registry");
  base.runtime = catalog.runtimes.at(c.runtime);

  // The benchmark.
  Benchmark& b = c.bench;
  b.generator = load_generator_of(row);
  b.concurrency = row_concurrency(row);
  const std::size_t rounds = b.generator == LoadGenerator::aiperf ? 20 : 10;
  b.requests = rounds * static_cast<std::size_t>(b.concurrency);
  b.isl_max = row.isl;
  b.osl_max = row.osl;
  if (b.generator == LoadGenerator::benchmark_serving) {
    b.isl_min = std::max(1, (row.isl * 4 + 4) / 5);  // ceil(0.8 L)
    b.osl_min = std::max(1, (row.osl * 4 + 4) / 5);
  } else {
    b.isl_min = row.isl;
    b.osl_min = row.osl;
  }
  const int context = base.model.max_context_tokens;
  if (context > 0 && row.isl + row.osl > context)
    return refuse("isl + osl = " + std::to_string(row.isl + row.osl) + " over " + mm.preset +
                  "'s context of " + std::to_string(context) + " tokens");

  // Workers.
  const auto worker_gpus = [](const SiliconStage& s) {
    return or1(s.tp) * or1(s.attention_dp) * or1(s.pp);
  };
  struct StageUse {
    const SiliconStage* stage;
    int count;
    int seqs;
  };
  std::vector<StageUse> uses;
  if (row.mode == "agg") {
    // batch_size is the batch of one worker (per attention-DP rank); a concurrency that is a
    // whole multiple of it names the replicas AIConfigurator deployed side by side (e.g.
    // Qwen3-32B-NVFP4 on B200: batch 13 at TP 2, 416 concurrent = 32 workers). A concurrency
    // below one worker's batch, or not a multiple of it, is one worker at that concurrency.
    const int per_worker = row.agg.batch > 0 ? row.agg.batch * or1(row.agg.attention_dp) : 0;
    int replicas = 1;
    if (per_worker > 0 && b.concurrency > per_worker) {
      if (b.concurrency % per_worker != 0)
        return refuse("concurrency " + std::to_string(b.concurrency) +
                      " is not a whole number of workers of batch " + std::to_string(per_worker) +
                      " (batch_size x attention_dp_size)");
      replicas = b.concurrency / per_worker;
      c.notes.push_back(std::to_string(replicas) + " aggregated workers of batch " +
                        std::to_string(per_worker) + " (concurrency " +
                        std::to_string(b.concurrency) + " over batch_size x attention_dp_size)");
    }
    uses.push_back({&row.agg, replicas, std::max(b.concurrency / replicas, 1)});
  } else {
    // A disaggregated deployment is its worker counts; rows that do not record them (the
    // InferenceX imports leave prefill_num_workers and decode_num_workers empty) cannot be
    // rebuilt, and a guessed count would move TTFT by orders of magnitude.
    if (row.prefill.workers <= 0 || row.decode.workers <= 0)
      return refuse("disaggregated row without its worker counts (prefill_num_workers, "
                    "decode_num_workers empty): the deployment cannot be rebuilt");
    const int pw = row.prefill.workers, dw = row.decode.workers;
    const int dseqs = std::max(or1(row.decode.batch) * or1(row.decode.attention_dp),
                               (b.concurrency + dw - 1) / dw);
    uses.push_back({&row.prefill, pw, or1(row.prefill.batch) * or1(row.prefill.attention_dp)});
    uses.push_back({&row.decode, dw, dseqs});
  }
  if (!c.moe)
    for (const auto& u : uses)
      if (or1(u.stage->attention_dp) > 1)
        c.notes.push_back("attention data parallelism on a dense model: attention TP " +
                          std::to_string(or1(u.stage->tp)) + " inside FFN TP " +
                          std::to_string(worker_gpus(*u.stage)));
  int total = 0;
  for (const auto& u : uses) total += worker_gpus(*u.stage) * u.count;
  // The system: the smallest preset of this device with room for every GPU of the deployment.
  const hw::System* sys = nullptr;
  for (const auto& [id, s] : catalog.systems)
    if (s.hardware == *hw_id && s.devices >= total && (!sys || s.devices < sys->devices)) sys = &s;
  if (!sys)
    return refuse(std::to_string(total) + " GPUs: no system preset of " + *hw_id +
                  " holds that many");
  base.system = *sys;
  for (const auto& u : uses) {
    Worker w;
    w.design = base;
    if (std::string why = apply_stage(w.design, *u.stage, c.moe); !why.empty()) return refuse(why);
    w.design.system.devices = worker_gpus(*u.stage);
    w.design.workload.batch = 1;
    w.design.workload.input_len = b.isl_max;
    w.design.workload.output_len = b.osl_max;
    auto issues = perf::validate(w.design);
    if (!issues.empty())
      return refuse("the plan " + parallel::short_text(w.design.parallel) +
                    " is not valid here: " + format_issue(issues.front()));
    w.count = u.count;
    const StageRole role = row.mode == "agg"           ? StageRole::agg
                           : u.stage == &row.prefill ? StageRole::prefill
                                                     : StageRole::decode;
    w.scheduler = backend_scheduler(row, w.design, role, std::max(1, u.seqs),
                                    or1(u.stage->attention_dp), b.isl_max, b.osl_max);
    // The whole deployment's system (the KV transfer of a disaggregated one crosses it).
    w.design.system.devices = total;
    c.workers.push_back(std::move(w));
  }
  return c;
}

}  // namespace

}  // namespace stackscope::validate
