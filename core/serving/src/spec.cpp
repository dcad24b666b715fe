// SPDX-License-Identifier: GPL-3.0-or-later
// The serving settings of a project (spec.hpp): ranges, length texts, the request stream and
// the instances they describe.
#include "stackscope/serving/spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
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
constexpr std::size_t kMaxGroups = 1024;
constexpr const char* kPoolKeys = "tp, pp, ep, cp, max-seqs, max-tokens";

// Round-trip text, whole numbers in full ("200000", which parse_length_dist reads back).
std::string num(double v) {
  return number_text(v);
}

// Three significant digits, for spans and rates derived in messages.
std::string approx(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
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

void check_pool(Checker& c, const std::string& k, const PoolConfig& pool) {
  c.range(k + "tp", pool.tp, 0, kMaxInstances, "tensor-parallel degree", true);
  c.range(k + "pp", pool.pp, 0, kMaxInstances, "pipeline-parallel degree", true);
  c.range(k + "ep", pool.ep, 0, kMaxInstances, "expert-parallel degree", true);
  c.range(k + "cp", pool.cp, 0, kMaxInstances, "context-parallel degree", true);
  c.range(k + "max_num_seqs", pool.max_num_seqs, 0, kMaxSeqs, "max_num_seqs", true);
  c.range(k + "max_num_batched_tokens", pool.max_num_batched_tokens, 0, kMaxTokens,
          "max_num_batched_tokens", true);
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
  if (s.source != SourceKind::trace && s.time_scale != 1 && s.time_scale >= 1e-6 &&
      s.time_scale <= 1e6)
    c.fail("time_scale", "a time scale applies to a trace source only", num(s.time_scale),
           "1, or a trace source");
  // A generated stream longer than the simulator takes (request.hpp kMaxStreamSeconds): its
  // mean span is requests / rate.
  if (s.source == SourceKind::generated && s.rate_per_s > 0 &&
      static_cast<double>(s.requests) / s.rate_per_s > kMaxStreamSeconds)
    c.fail("rate_per_s",
           std::to_string(s.requests) + " requests at this rate arrive over about " +
               approx(static_cast<double>(s.requests) / s.rate_per_s) +
               " s, more than 366 days",
           num(s.rate_per_s),
           "at least requests / " + num(kMaxStreamSeconds) + " s = " +
               approx(static_cast<double>(s.requests) / kMaxStreamSeconds) + " per s");
  c.range("concurrency", s.concurrency, 0, kMaxConcurrency, "concurrency", true);
  c.range("instances", s.instances, 0, kMaxInstances, "instances", true);
  const auto& d = s.disaggregate;
  if (d.enabled()) {
    c.range("disaggregate/prefill", d.prefill, 1, kMaxInstances, "prefill instances", true);
    c.range("disaggregate/decode", d.decode, 1, kMaxInstances, "decode instances", true);
    check_pool(c, "disaggregate/prefill_pool/", d.prefill_pool);
    check_pool(c, "disaggregate/decode_pool/", d.decode_pool);
  } else if (d.prefill < 0 || d.decode < 0) {
    c.fail("disaggregate", "instance counts must not be negative",
           std::to_string(d.prefill) + ":" + std::to_string(d.decode),
           "0:0 (co-located) or P:D with P, D >= 1");
  }
  if (!s.instance_groups.empty()) {
    const auto& g = s.instance_groups;
    if (g.size() > kMaxGroups)
      c.fail("instance_groups", "too many instance groups", std::to_string(g.size()),
             "at most " + std::to_string(kMaxGroups) + " groups");
    if (s.instances != 0)
      c.fail("instances",
             "instances and instance_groups are exclusive (the groups give the counts)",
             std::to_string(s.instances), "0 with instance_groups");
    if (d.enabled())
      c.fail("instance_groups",
             "instance groups are co-located; a disaggregated deployment sizes its pools with "
             "disaggregate/prefill_pool and decode_pool",
             instance_groups_text(g), "[] with disaggregate P:D");
    for (std::size_t i = 0; i < std::min(g.size(), kMaxGroups); ++i) {
      const std::string k = "instance_groups/" + std::to_string(i) + "/";
      c.range(k + "count", g[i].count, 1, kMaxInstances, "instances of the group", true);
      check_pool(c, k, g[i].pool);
    }
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

PoolConfig parse_pool_text(std::string_view text, std::string_view what) {
  PoolConfig p;
  const auto fail = [&](const std::string& message, const std::string& item,
                        const std::string& allowed) {
    return ConfigError(
        {Issue{std::string(what), message, item.empty() ? "''" : "'" + item + "'", allowed}});
  };
  if (text.empty()) return p;
  std::vector<std::string> seen;  // a key given twice is a mistake, not "the last one wins"
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, comma - pos));
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw fail("expected KEY=VALUE", item, std::string("keys ") + kPoolKeys);
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw fail("key '" + key + "' given more than once", std::string(text),
                 std::string("each of ") + kPoolKeys + " at most once");
    seen.push_back(key);
    const auto whole = [&](long long hi) {
      long long v = -1;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || v < 0 ||
          v > hi)
        throw fail(key + " must be a whole number in [0, " + std::to_string(hi) + "]", item,
                   "0 (unchanged) .. " + std::to_string(hi));
      return static_cast<int>(v);
    };
    if (key == "tp")
      p.tp = whole(kMaxInstances);
    else if (key == "pp")
      p.pp = whole(kMaxInstances);
    else if (key == "ep")
      p.ep = whole(kMaxInstances);
    else if (key == "cp")
      p.cp = whole(kMaxInstances);
    else if (key == "max-seqs")
      p.max_num_seqs = whole(kMaxSeqs);
    else if (key == "max-tokens")
      p.max_num_batched_tokens = whole(static_cast<long long>(kMaxTokens));
    else
      throw ConfigError({Issue{std::string(what), "unknown key '" + key + "'", "", kPoolKeys}});
    pos = comma + 1;
  }
  return p;
}

std::string pool_text(const PoolConfig& p) {
  std::string s;
  const auto add = [&](const char* key, int v) {
    if (v == 0) return;
    if (!s.empty()) s += ',';
    s += std::string(key) + "=" + std::to_string(v);
  };
  add("tp", p.tp);
  add("pp", p.pp);
  add("ep", p.ep);
  add("cp", p.cp);
  add("max-seqs", p.max_num_seqs);
  add("max-tokens", p.max_num_batched_tokens);
  return s;
}

std::vector<InstanceGroup> parse_instance_groups(std::string_view text, std::string_view what) {
  constexpr const char* kForms =
      "COUNT[:KEY=VALUE,...] groups joined by '+', e.g. 2:tp=2+1:tp=4 (COUNT 1..65536; keys tp, "
      "pp, ep, cp, max-seqs, max-tokens)";
  std::vector<InstanceGroup> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t plus = std::min(text.find('+', pos), text.size());
    const std::string_view item = text.substr(pos, plus - pos);
    if (out.size() == kMaxGroups)
      throw ConfigError({Issue{std::string(what), "too many instance groups", "",
                               "at most " + std::to_string(kMaxGroups)}});
    const std::size_t colon = std::min(item.find(':'), item.size());
    const std::string_view count = item.substr(0, colon);
    InstanceGroup g;
    long long n = 0;
    const auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (count.empty() || ec != std::errc() || ptr != count.data() + count.size() || n < 1 ||
        n > kMaxInstances)
      throw ConfigError(
          {Issue{std::string(what), "a group must start with its instance count in [1, 65536]",
                 "'" + std::string(item) + "'", kForms}});
    g.count = static_cast<int>(n);
    if (colon < item.size()) {
      g.pool = parse_pool_text(item.substr(colon + 1), what);
      if (!g.pool.plan_changed() && g.pool.max_num_seqs == 0 && g.pool.max_num_batched_tokens == 0)
        throw ConfigError({Issue{std::string(what), "a group's ':' must be followed by its changes",
                                 "'" + std::string(item) + "'", kForms}});
    }
    out.push_back(g);
    pos = plus + 1;
  }
  return out;
}

std::string instance_groups_text(const std::vector<InstanceGroup>& groups) {
  std::string s;
  for (const auto& g : groups) {
    if (!s.empty()) s += '+';
    s += std::to_string(g.count);
    const std::string p = pool_text(g.pool);
    if (!p.empty()) s += ":" + p;
  }
  return s;
}

namespace {

// The shortest length a distribution can draw (generate.cpp: lognormal draws are clamped to
// [1, max]).
long long shortest(const LengthDist& d) {
  switch (d.kind) {
    case LengthDist::Kind::fixed:
    case LengthDist::Kind::uniform: return static_cast<long long>(std::ceil(d.a));
    case LengthDist::Kind::lognormal: return 1;
    case LengthDist::Kind::resample:
      return d.samples.empty() ? 1 : *std::min_element(d.samples.begin(), d.samples.end());
  }
  return 1;
}

}  // namespace

std::vector<Issue> check_context(const ServingSpec& spec, const workload::Model& model,
                                 const std::string& root) {
  std::vector<Issue> issues;
  const int context = model.max_context_tokens;
  if (context <= 0 || spec.source == SourceKind::trace) return issues;
  const long long in = shortest(spec.input), out = shortest(spec.output);
  if (in + out > context) {
    const bool fixed = spec.input.kind == LengthDist::Kind::fixed &&
                       spec.output.kind == LengthDist::Kind::fixed;
    issues.push_back(
        {root + "/input_len",
         std::string(fixed ? "every request is " : "the shortest request is ") +
             std::to_string(in) + " + " + std::to_string(out) + " = " + std::to_string(in + out) +
             " tokens, over the context of " + (model.id.empty() ? "the model" : model.id) + " (" +
             std::to_string(context) + " tokens): every one would be rejected",
         length_dist_text(spec.input) + " + " + length_dist_text(spec.output),
         "input + output <= " + std::to_string(context) + " tokens (the model's max_context_tokens)"});
  }
  return issues;
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
  o.request_latency_s = design.runtime.request_latency_us * 1e-6;
  if (spec.slo.ttft_s > 0) o.slo_ttft_s = spec.slo.ttft_s;
  if (spec.slo.tpot_s > 0) o.slo_tpot_s = spec.slo.tpot_s;
  // A pool's or a group's replicas, its plan checked on one replica of its own: the pools and
  // groups share the system's devices, so one plan need not cover all of them (the device
  // count is checked once they are all known).
  const auto pool = [&](const PoolConfig& c, int count, const std::string& key) {
    Pool p{pool_design(design, c), pool_scheduler(spec.scheduler, c), count};
    if (c.plan_changed()) {
      perf::Design replica = p.design;
      replica.system.devices = parallel::devices_per_replica(replica.parallel);
      auto issues = perf::validate(replica);
      if (!issues.empty())
        throw std::invalid_argument("/serving/" + key + ": the " +
                                    (key.starts_with("disaggregate") ? "pool" : "group") +
                                    "'s plan " + parallel::short_text(p.design.parallel) +
                                    " does not fit the design: " + format_issue(issues.front()));
    }
    return p;
  };
  if (spec.disaggregate.enabled()) {
    const auto& dis = spec.disaggregate;
    const Pool prefill = pool(dis.prefill_pool, dis.prefill, "disaggregate/prefill_pool");
    const Pool decode = pool(dis.decode_pool, dis.decode, "disaggregate/decode_pool");
    auto built = disaggregated_instances(prefill, decode);
    out.instances = std::move(built.instances);
    o.kv_transfer = std::move(built.transfer);
    const std::string prefill_plan = parallel::short_text(prefill.design.parallel);
    const std::string decode_plan = parallel::short_text(decode.design.parallel);
    out.pools = {{Role::prefill, 0, dis.prefill, prefill_plan},
                 {Role::decode, static_cast<std::size_t>(dis.prefill), dis.decode, decode_plan}};
    out.layout =
        std::to_string(dis.prefill) + " prefill + " + std::to_string(dis.decode) + " decode";
    if (dis.prefill_pool.plan_changed() || dis.decode_pool.plan_changed())
      out.layout = std::to_string(dis.prefill) + " prefill (" + prefill_plan + ") + " +
                   std::to_string(dis.decode) + " decode (" + decode_plan + ")";
  } else if (!spec.instance_groups.empty()) {
    // Plans and the device count first, so groups that cannot fit fail before any instance is
    // built.
    std::vector<Pool> groups;
    long long devices = 0;
    std::string sizes;
    for (std::size_t g = 0; g < spec.instance_groups.size(); ++g) {
      const InstanceGroup& group = spec.instance_groups[g];
      if (group.count < 1)
        throw std::invalid_argument("/serving/instance_groups/" + std::to_string(g) +
                                    "/count: a group needs at least one instance");
      groups.push_back(pool(group.pool, group.count, "instance_groups/" + std::to_string(g)));
      const int per = parallel::devices_per_replica(groups.back().design.parallel);
      devices += static_cast<long long>(group.count) * per;
      if (!sizes.empty()) sizes += " + ";
      sizes += std::to_string(group.count) + " x " + std::to_string(per);
    }
    if (devices > design.system.devices)
      throw std::invalid_argument("/serving/instance_groups: the groups' " + sizes +
                                  " devices need " + std::to_string(devices) +
                                  " devices; the system has " +
                                  std::to_string(design.system.devices));
    for (const Pool& p : groups) {
      auto built = colocated_instances(p.design, p.scheduler, p.count);
      const std::string plan = parallel::short_text(p.design.parallel);
      out.pools.push_back({Role::colocated, out.instances.size(), p.count, plan});
      if (!out.layout.empty()) out.layout += " + ";
      out.layout += std::to_string(p.count) + " (" + plan + ")";
      for (auto& c : built) {
        c.name = "instance " + std::to_string(out.instances.size());
        out.instances.push_back(std::move(c));
      }
    }
    out.layout += " co-located";
  } else {
    const int n = colocated_count(spec, design);
    out.instances = colocated_instances(design, spec.scheduler, n);
    out.pools = {{Role::colocated, 0, n, parallel::short_text(pool_design(design, {}).parallel)}};
    out.layout = std::to_string(n) + " co-located";
  }
  return out;
}

}  // namespace stackscope::serving
