// SPDX-License-Identifier: GPL-3.0-or-later
// The "serving" section of project files (format in io/serving.hpp).
#include <utility>

#include "json_detail.hpp"
#include "mapping.hpp"
#include "sections.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"

namespace stackscope::io {
namespace detail {

template <>
struct EnumTable<serving::SourceKind> {
  static constexpr std::string_view what = "request source";
  static constexpr std::array<std::pair<serving::SourceKind, std::string_view>, 3> entries{{
      {serving::SourceKind::benchmark, "benchmark"},
      {serving::SourceKind::generated, "generated"},
      {serving::SourceKind::trace, "trace"},
  }};
};

template <>
struct EnumTable<serving::ArrivalProcess::Kind> {
  static constexpr std::string_view what = "arrival process";
  static constexpr std::array<std::pair<serving::ArrivalProcess::Kind, std::string_view>, 2>
      entries{{
          {serving::ArrivalProcess::Kind::poisson, "poisson"},
          {serving::ArrivalProcess::Kind::gamma, "gamma"},
      }};
};

// The CLI's --router names.
template <>
struct EnumTable<serving::Router> {
  static constexpr std::string_view what = "router";
  static constexpr std::array<std::pair<serving::Router, std::string_view>, 3> entries{{
      {serving::Router::round_robin, "rr"},
      {serving::Router::join_shortest_queue, "jsq"},
      {serving::Router::least_kv, "kv"},
  }};
};

// The CLI's --partition names, and "design" for the default.
template <>
struct EnumTable<serving::Partitioning> {
  static constexpr std::string_view what = "partitioning";
  static constexpr std::array<std::pair<serving::Partitioning, std::string_view>, 3> entries{{
      {serving::Partitioning::by_design, "design"},
      {serving::Partitioning::given, "given"},
      {serving::Partitioning::automatic, "auto"},
  }};
};

// "given", or the CLI's --scheduler trtllm-bench.
template <>
struct EnumTable<serving::SchedulerSizing> {
  static constexpr std::string_view what = "scheduler sizing";
  static constexpr std::array<std::pair<serving::SchedulerSizing, std::string_view>, 2> entries{{
      {serving::SchedulerSizing::as_given, "given"},
      {serving::SchedulerSizing::trtllm_bench, "trtllm-bench"},
  }};
};

// TensorRT-LLM's CapacitySchedulerPolicy names, lower case.
template <>
struct EnumTable<serving::KvPolicy> {
  static constexpr std::string_view what = "KV policy";
  static constexpr std::array<std::pair<serving::KvPolicy, std::string_view>, 2> entries{{
      {serving::KvPolicy::max_utilization, "max_utilization"},
      {serving::KvPolicy::guaranteed_no_evict, "guaranteed_no_evict"},
  }};
};

// The scheduler's limits under vLLM's names (simulator.hpp gives the TensorRT-LLM ones);
// cuda_graph_batch_sizes, a list of integers, is read and written beside them.
template <class V, Is<serving::SchedulerConfig> S>
void describe(V& v, S& s) {
  v("max_num_seqs", s.max_num_seqs);
  v("max_num_batched_tokens", s.max_num_batched_tokens);
  v("chunked_prefill", s.chunked_prefill);
  v("mixed_batches", s.mixed_batches);
  v("overlap_scheduler", s.overlap_scheduler);
  v("block_size", s.block_size);
  v("max_model_len", s.max_model_len);
  v("kv_policy", s.kv_policy);
  v("kv_cache_fraction", s.kv_cache_fraction);
}

// A pool's changes to the design's plan and the scheduler's limits; 0 = unchanged.
template <class V, Is<serving::PoolConfig> S>
void describe(V& v, S& p) {
  v("tp", p.tp);
  v("pp", p.pp);
  v("ep", p.ep);
  v("cp", p.cp);
  v("max_num_seqs", p.max_num_seqs);
  v("max_num_batched_tokens", p.max_num_batched_tokens);
}

// A co-located group of its own plan: its count beside the pool's keys, in one object
// ({"count": 2, "tp": 2}).
template <class V, Is<serving::InstanceGroup> S>
void describe(V& v, S& g) {
  v("count", g.count);
  describe(v, g.pool);
}

template <class V, Is<serving::Disaggregation> S>
void describe(V& v, S& d) {
  v("prefill", d.prefill);
  v("decode", d.decode);
  v("prefill_pool", d.prefill_pool);
  v("decode_pool", d.decode_pool);
}

template <class V, Is<serving::Slo> S>
void describe(V& v, S& s) {
  v("ttft_s", s.ttft_s);
  v("tpot_s", s.tpot_s);
}

}  // namespace detail

namespace {

using detail::Issues;
using detail::Json;

constexpr std::string_view kRoot = "/serving";

void read_length(const Json& j, const std::string& path, serving::LengthDist& out, Issues& issues) {
  if (!j.is_string()) {
    issues.push_back({path, "expected a length distribution string, got " + detail::type_text(j),
                      detail::value_text(j),
                      "\"N\", \"uniform:MIN:MAX\" or \"lognormal:MEDIAN:SIGMA\" (tokens)"});
    return;
  }
  try {
    out = serving::parse_length_dist(j.get_ref<const std::string&>(), path);
  } catch (const ConfigError& e) {
    issues.insert(issues.end(), e.issues().begin(), e.issues().end());
  }
}

void read_scheduler(const Json& j, const std::string& path, serving::SchedulerConfig& out,
                    Issues& issues) {
  if (!j.is_object()) {
    issues.push_back(
        {path, "expected object, got " + detail::type_text(j), detail::value_text(j), "object"});
    return;
  }
  detail::ObjectReader r(j, path, issues);
  r.allow({"cuda_graph_batch_sizes"});
  describe(r, out);
  r.finish();
  const auto it = j.find("cuda_graph_batch_sizes");
  if (it == j.end()) return;
  const std::string p = path + "/cuda_graph_batch_sizes";
  if (!it->is_array()) {
    issues.push_back({p, "expected a list of batch sizes, got " + detail::type_text(*it),
                      detail::value_text(*it), "[1, 2, 4, 8, ...] (ascending integers >= 1)"});
    return;
  }
  std::vector<int> sizes;
  for (std::size_t i = 0; i < it->size(); ++i) {
    int b = 0;
    const std::size_t before = issues.size();
    detail::read_value((*it)[i], detail::child_path(p, i), b, issues);
    if (issues.size() == before) sizes.push_back(b);
  }
  out.cuda_graph_batch_sizes = std::move(sizes);
}

serving::ServingSpec read_serving(const Json& s, const std::filesystem::path& base_dir,
                                  Issues& issues) {
  const std::string root(kRoot);
  serving::ServingSpec spec;
  if (!s.is_object()) {
    issues.push_back({root, "expected an object, got " + detail::type_text(s),
                      detail::value_text(s), "object (see io/serving.hpp)"});
    return spec;
  }
  detail::ObjectReader r(s, root, issues);
  r.allow({"input_len", "output_len", "requests", "scheduler", "notes"});
  r("source", spec.source);
  r("trace", spec.trace);
  r("time_scale", spec.time_scale);
  if (auto it = s.find("requests"); it != s.end()) {
    std::uint64_t n = spec.requests;
    const std::size_t before = issues.size();
    detail::read_value(*it, root + "/requests", n, issues);
    if (issues.size() == before) {
      // validate() holds it to 1..1e8; beyond size_t it could not even be stored.
      if (std::in_range<std::size_t>(n))
        spec.requests = static_cast<std::size_t>(n);
      else
        issues.push_back({root + "/requests", "integer out of range", detail::value_text(*it),
                          "integer in [1, 1e8]"});
    }
  }
  r("rate_per_s", spec.rate_per_s);
  r("arrivals", spec.arrivals);
  r("cv", spec.cv);
  if (auto it = s.find("input_len"); it != s.end())
    read_length(*it, root + "/input_len", spec.input, issues);
  if (auto it = s.find("output_len"); it != s.end())
    read_length(*it, root + "/output_len", spec.output, issues);
  r("seed", spec.seed);
  r("concurrency", spec.concurrency);
  r("instances", spec.instances);
  r("instance_groups", spec.instance_groups);
  r("disaggregate", spec.disaggregate);
  r("router", spec.router);
  r("partition", spec.partitioning);
  r("scheduler_sizing", spec.sizing);
  if (auto it = s.find("scheduler"); it != s.end())
    read_scheduler(*it, root + "/scheduler", spec.scheduler, issues);
  r("slo", spec.slo);
  r.finish();
  // A project's traces travel with it: relative to its folder, not to the working directory.
  if (!spec.trace.empty() && !base_dir.empty()) {
    const std::filesystem::path p(spec.trace);
    if (p.is_relative()) spec.trace = (base_dir / p).lexically_normal().string();
  }
  return spec;
}

// Relative to the project's folder when the trace lies below it ("../x" would break when the
// project moves alone), else absolute: a path relative to the working directory would be read
// against the project's folder.
std::string trace_text(const std::string& trace, const std::filesystem::path& base_dir) {
  if (base_dir.empty()) return trace;
  std::error_code ec;
  const auto file = std::filesystem::absolute(trace, ec).lexically_normal();
  if (ec) return trace;
  const auto base = std::filesystem::absolute(base_dir, ec).lexically_normal();
  if (ec) return file.string();
  const auto rel = file.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") return file.string();
  return rel.generic_string();
}

Json serving_json(const serving::ServingSpec& s, const std::filesystem::path& base_dir) {
  using detail::write_value;
  Json j = Json::object();
  j["source"] = write_value(s.source);
  if (!s.trace.empty()) j["trace"] = trace_text(s.trace, base_dir);
  j["time_scale"] = write_value(s.time_scale);
  j["requests"] = write_value(static_cast<std::uint64_t>(s.requests));
  j["rate_per_s"] = write_value(s.rate_per_s);
  j["arrivals"] = write_value(s.arrivals);
  j["cv"] = write_value(s.cv);
  j["input_len"] = serving::length_dist_text(s.input);
  j["output_len"] = serving::length_dist_text(s.output);
  j["seed"] = write_value(s.seed);
  j["concurrency"] = write_value(s.concurrency);
  j["instances"] = write_value(s.instances);
  if (!s.instance_groups.empty()) j["instance_groups"] = write_value(s.instance_groups);
  j["disaggregate"] = write_value(s.disaggregate);
  j["router"] = write_value(s.router);
  j["partition"] = write_value(s.partitioning);
  j["scheduler_sizing"] = write_value(s.sizing);
  j["scheduler"] = write_value(s.scheduler);
  if (!s.scheduler.cuda_graph_batch_sizes.empty()) {
    Json sizes = Json::array();
    for (int b : s.scheduler.cuda_graph_batch_sizes) sizes.push_back(b);
    j["scheduler"]["cuda_graph_batch_sizes"] = std::move(sizes);
  }
  j["slo"] = write_value(s.slo);
  return j;
}

}  // namespace

std::optional<serving::ServingSpec> parse_serving_section(std::string_view project_json,
                                                          const std::filesystem::path& base_dir) {
  Issues issues;
  auto root = detail::parse_json_text(project_json, "project", "", issues);
  if (!root) throw ConfigError(std::move(issues));
  if (!root->is_object()) {
    issues.push_back({"", "a project must be a JSON object, got " + detail::type_text(*root),
                      detail::value_text(*root), "object"});
    throw ConfigError(std::move(issues));
  }
  auto it = root->find(std::string(kRoot.substr(1)));
  if (it == root->end()) return std::nullopt;
  auto spec = read_serving(*it, base_dir, issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  return spec;
}

std::optional<serving::ServingSpec> load_serving_section(const std::filesystem::path& file) {
  return parse_serving_section(detail::read_text_file(file, ""), file.parent_path());
}

std::string serving_section_to_json(const serving::ServingSpec& spec,
                                    const std::filesystem::path& base_dir) {
  return detail::dump(serving_json(spec, base_dir), 2) + "\n";
}

namespace detail {

Json project_json(const perf::Design& design, const serving::ServingSpec& spec,
                  const std::filesystem::path& base_dir) {
  Json j = project_json(design);
  if (!(spec == serving::ServingSpec{})) j["serving"] = serving_json(spec, base_dir);
  return j;
}

}  // namespace detail

std::string project_to_json(const perf::Design& design, const serving::ServingSpec& spec,
                            const std::filesystem::path& base_dir) {
  return detail::dump(detail::project_json(design, spec, base_dir), 2) + "\n";
}

std::vector<serving::Request> serving_requests(const serving::ServingSpec& spec,
                                               serving::TraceStats* stats) {
  if (spec.source != serving::SourceKind::trace) return serving::build_requests(spec);
  return serving::build_requests(spec,
                                 load_trace(spec.trace, serving::TraceFormat::automatic, stats));
}

}  // namespace stackscope::io
