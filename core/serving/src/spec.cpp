// SPDX-License-Identifier: GPL-3.0-or-later
// The serving settings of a project (spec.hpp): ranges, length texts, the request stream and
// the instances they describe.
#include "stackscope/serving/spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"

namespace stackscope::serving {
namespace {

// The CLI's flag ranges (app/cli/cmd_serve.cpp), so a project and a command line accept the
// same values.
constexpr double kMaxRequests = 1e8;
constexpr double kMaxTokens = 1e8;
constexpr double kMaxLength = 2147483647;  // parse_length_dist's bound on one length
constexpr int kMaxInstances = 65'536;
constexpr int kMaxSeqs = 1 << 20;
constexpr int kMaxBlockSize = 1 << 16;
constexpr int kMaxConcurrency = 1 << 30;

std::string num(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

class Checker {
 public:
  Checker(const std::string& root, std::vector<Issue>& issues) : root_(root), issues_(issues) {}

  void range(const std::string& key, double v, double lo, double hi, const std::string& what,
             bool integer = false) {
    const bool whole = !integer || v == std::floor(v);
    if (std::isfinite(v) && v >= lo && v <= hi && whole) return;
    // Integer bounds in full ("100000000", not "1e+08").
    const auto bound = [&](double b) {
      return integer ? std::to_string(static_cast<long long>(b)) : num(b);
    };
    const bool exact = integer && whole && std::abs(v) < 9e18;
    issues_.push_back(
        {root_ + "/" + key, what + " out of range",
         exact ? std::to_string(static_cast<long long>(v)) : num(v),
         (integer ? "integer in [" : "number in [") + bound(lo) + ", " + bound(hi) + "]"});
  }
  void fail(const std::string& key, const std::string& message, const std::string& value,
            const std::string& allowed) {
    issues_.push_back({root_ + "/" + key, message, value, allowed});
  }

 private:
  const std::string& root_;
  std::vector<Issue>& issues_;
};

void check_length(Checker& c, const std::string& key, const LengthDist& d, bool fixed_only) {
  const std::string text = length_dist_text(d);
  constexpr const char* kForms =
      "N, uniform:MIN:MAX (whole numbers, 1 <= MIN <= MAX <= 2147483647) or "
      "lognormal:MEDIAN:SIGMA (MEDIAN in [1, 1048576], SIGMA >= 0); tokens";
  const auto whole = [](double v) { return v >= 1 && v <= kMaxLength && v == std::floor(v); };
  switch (d.kind) {
    case LengthDist::Kind::fixed:
      if (!whole(d.a)) c.fail(key, "length must be a whole number of tokens", text, kForms);
      break;
    case LengthDist::Kind::uniform:
      if (!whole(d.a) || !whole(d.b) || d.a > d.b)
        c.fail(key, "uniform bounds must be whole numbers with MIN <= MAX", text, kForms);
      break;
    case LengthDist::Kind::lognormal:
      if (!(d.a >= 1 && d.a <= d.max) || !(d.b >= 0) || !std::isfinite(d.b))
        c.fail(key, "lognormal MEDIAN or SIGMA out of range", text, kForms);
      break;
    case LengthDist::Kind::resample:
      c.fail(key, "a resampled length distribution cannot be stored in a project", text, kForms);
      return;
  }
  if (fixed_only && d.kind != LengthDist::Kind::fixed)
    c.fail(key, "a benchmark needs a fixed length (as trtllm-bench's synthetic datasets)", text,
           "a whole number of tokens N");
}

}  // namespace

std::vector<Issue> validate(const ServingSpec& s, const std::string& root) {
  std::vector<Issue> issues;
  Checker c(root, issues);
  switch (s.source) {
    case SourceKind::benchmark:
    case SourceKind::generated:
      c.range("requests", static_cast<double>(s.requests), 1, kMaxRequests, "requests", true);
      check_length(c, "input_len", s.input, s.source == SourceKind::benchmark);
      check_length(c, "output_len", s.output, s.source == SourceKind::benchmark);
      break;
    case SourceKind::trace:
      if (s.trace.empty())
        c.fail("trace", "a trace source needs a trace file", "\"\"",
               "path to an Azure (TIMESTAMP,ContextTokens,GeneratedTokens) or plain "
               "(arrival_s,input_tokens,output_tokens) CSV file");
      break;
  }
  // Checked whatever the source, so a value the file holds is never silently wrong.
  c.range("rate_per_s", s.rate_per_s, 1e-9, 1e9, "request rate");
  c.range("cv", s.cv, 1e-3, 1e3, "coefficient of variation");
  c.range("time_scale", s.time_scale, 1e-6, 1e6, "time scale");
  c.range("concurrency", s.concurrency, 0, kMaxConcurrency, "concurrency", true);
  c.range("instances", s.instances, 0, kMaxInstances, "instances", true);
  const auto& d = s.disaggregate;
  if (d.enabled()) {
    c.range("disaggregate/prefill", d.prefill, 1, kMaxInstances, "prefill instances", true);
    c.range("disaggregate/decode", d.decode, 1, kMaxInstances, "decode instances", true);
    for (const auto& [key, pool] : {std::pair{"disaggregate/prefill_pool/", &d.prefill_pool},
                                    std::pair{"disaggregate/decode_pool/", &d.decode_pool}}) {
      const std::string k(key);
      c.range(k + "tp", pool->tp, 0, kMaxInstances, "tensor-parallel degree", true);
      c.range(k + "pp", pool->pp, 0, kMaxInstances, "pipeline-parallel degree", true);
      c.range(k + "ep", pool->ep, 0, kMaxInstances, "expert-parallel degree", true);
      c.range(k + "cp", pool->cp, 0, kMaxInstances, "context-parallel degree", true);
      c.range(k + "max_num_seqs", pool->max_num_seqs, 0, kMaxSeqs, "max_num_seqs", true);
      c.range(k + "max_num_batched_tokens", pool->max_num_batched_tokens, 0, kMaxTokens,
              "max_num_batched_tokens", true);
    }
  } else if (d.prefill < 0 || d.decode < 0) {
    c.fail("disaggregate", "instance counts must not be negative",
           std::to_string(d.prefill) + ":" + std::to_string(d.decode),
           "0:0 (co-located) or P:D with P, D >= 1");
  }
  const auto& q = s.scheduler;
  c.range("scheduler/max_num_seqs", q.max_num_seqs, 1, kMaxSeqs, "max_num_seqs", true);
  c.range("scheduler/max_num_batched_tokens", q.max_num_batched_tokens, 1, kMaxTokens,
          "max_num_batched_tokens", true);
  c.range("scheduler/block_size", q.block_size, 1, kMaxBlockSize, "block_size", true);
  c.range("scheduler/max_model_len", q.max_model_len, 0, kMaxTokens, "max_model_len", true);
  for (std::size_t k = 0; k < q.cuda_graph_batch_sizes.size(); ++k) {
    const int b = q.cuda_graph_batch_sizes[k];
    if (b < 1 || b > kMaxSeqs || (k > 0 && b <= q.cuda_graph_batch_sizes[k - 1])) {
      c.fail("scheduler/cuda_graph_batch_sizes/" + std::to_string(k),
             "CUDA-graph batch sizes must be ascending", std::to_string(b),
             "ascending integers in [1, 1048576]");
      break;
    }
  }
  if (!(q.kv_cache_fraction > 0 && q.kv_cache_fraction <= 1))
    c.fail("scheduler/kv_cache_fraction", "KV-cache fraction out of range",
           num(q.kv_cache_fraction), "number in (0, 1]");
  c.range("slo/ttft_s", s.slo.ttft_s, 0, 1e9, "TTFT SLO");
  c.range("slo/tpot_s", s.slo.tpot_s, 0, 1e9, "TPOT SLO");
  return issues;
}

std::string length_dist_text(const LengthDist& d) {
  switch (d.kind) {
    case LengthDist::Kind::fixed: return num(d.a);
    case LengthDist::Kind::uniform: return "uniform:" + num(d.a) + ":" + num(d.b);
    case LengthDist::Kind::lognormal: return "lognormal:" + num(d.a) + ":" + num(d.b);
    case LengthDist::Kind::resample: return "resample";
  }
  return "?";
}

std::vector<Request> build_requests(const ServingSpec& spec, std::vector<Request> trace_rows) {
  switch (spec.source) {
    case SourceKind::benchmark:
      return benchmark(spec.requests, static_cast<int>(spec.input.a),
                       static_cast<int>(spec.output.a));
    case SourceKind::generated: {
      GeneratorSpec g;
      g.arrivals.kind = spec.arrivals;
      g.arrivals.rate_per_s = spec.rate_per_s;
      g.arrivals.cv = spec.cv;
      g.input = spec.input;
      g.output = spec.output;
      g.requests = spec.requests;
      g.seed = spec.seed;
      return generate(g);
    }
    case SourceKind::trace:
      return spec.time_scale == 1 ? std::move(trace_rows)
                                  : scale_time(std::move(trace_rows), spec.time_scale);
  }
  return {};
}

int colocated_count(const ServingSpec& spec, const perf::Design& design) {
  return spec.instances > 0 ? spec.instances : std::max(1, design.parallel.dp);
}

perf::Design pool_design(const perf::Design& design, const PoolConfig& pool) {
  perf::Design d = design;
  d.parallel.dp = 1;
  if (!pool.plan_changed()) return d;
  if (pool.tp > 0) d.parallel.tp = pool.tp;
  if (pool.pp > 0) d.parallel.pp = pool.pp;
  if (pool.ep > 0) d.parallel.ep = pool.ep;
  if (pool.cp > 0) d.parallel.cp = pool.cp;
  d.parallel.attention = {};
  d.parallel.dense_ffn = {};
  d.parallel.moe = {};
  d.parallel.micro_batches = 0;
  return d;
}

SchedulerConfig pool_scheduler(const SchedulerConfig& base, const PoolConfig& pool) {
  SchedulerConfig s = base;
  if (pool.max_num_seqs > 0) s.max_num_seqs = pool.max_num_seqs;
  if (pool.max_num_batched_tokens > 0) s.max_num_batched_tokens = pool.max_num_batched_tokens;
  return s;
}

Deployment deploy(const perf::Design& design, const ServingSpec& spec) {
  Deployment out;
  auto& o = out.options;
  o.router = spec.router;
  o.concurrency = spec.concurrency;
  if (spec.slo.ttft_s > 0) o.slo_ttft_s = spec.slo.ttft_s;
  if (spec.slo.tpot_s > 0) o.slo_tpot_s = spec.slo.tpot_s;
  if (spec.disaggregate.enabled()) {
    const auto& dis = spec.disaggregate;
    const auto pool = [&](const PoolConfig& c, int count, const char* key) {
      Pool p{pool_design(design, c), pool_scheduler(spec.scheduler, c), count};
      if (c.plan_changed()) {
        // One replica of the pool on its own: the pools share the system's devices, so the
        // plan need not cover all of them (disaggregated_instances checks that they fit).
        perf::Design replica = p.design;
        replica.system.devices = parallel::devices_per_replica(replica.parallel);
        auto issues = perf::validate(replica);
        if (!issues.empty())
          throw std::invalid_argument(std::string("/serving/disaggregate/") + key +
                                      ": the pool's plan " +
                                      parallel::short_text(p.design.parallel) +
                                      " does not fit the design: " + format_issue(issues.front()));
      }
      return p;
    };
    const Pool prefill = pool(dis.prefill_pool, dis.prefill, "prefill_pool");
    const Pool decode = pool(dis.decode_pool, dis.decode, "decode_pool");
    auto built = disaggregated_instances(prefill, decode);
    out.instances = std::move(built.instances);
    o.kv_transfer = std::move(built.transfer);
    out.layout =
        std::to_string(dis.prefill) + " prefill + " + std::to_string(dis.decode) + " decode";
    if (dis.prefill_pool.plan_changed() || dis.decode_pool.plan_changed())
      out.layout = std::to_string(dis.prefill) + " prefill (" +
                   parallel::short_text(prefill.design.parallel) + ") + " +
                   std::to_string(dis.decode) + " decode (" +
                   parallel::short_text(decode.design.parallel) + ")";
  } else {
    const int n = colocated_count(spec, design);
    out.instances = colocated_instances(design, spec.scheduler, n);
    out.layout = std::to_string(n) + " co-located";
  }
  return out;
}

}  // namespace stackscope::serving
