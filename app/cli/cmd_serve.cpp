// SPDX-License-Identifier: GPL-3.0-or-later
// `serve`: a request stream replayed on instances of a design (core/serving).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <utility>

#include "commands.hpp"
#include "stackscope/io/validation.hpp"
#include "design_args.hpp"
#include "long_run.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serve_run.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/wafer/partition.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::cli {
namespace {

constexpr std::int64_t kMaxRequests = 100'000'000;
constexpr std::int64_t kMaxTokens = 100'000'000;
constexpr std::int64_t kMaxInstances = 65'536;

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

std::vector<OptionSpec> serve_options() {
  std::vector<OptionSpec> o;
  for (auto& d : design_options())
    if (d.name != "--batch" && d.name != "--input-len" && d.name != "--output-len") o.push_back(d);
  const std::vector<OptionSpec> own = {
      {"--trace", "FILE",
       "requests from a trace: Azure TIMESTAMP,ContextTokens,GeneratedTokens "
       "or arrival_s,input_tokens,output_tokens CSV"},
      {"--time-scale", "X", "trace arrivals x X faster (2 = twice the request rate)"},
      {"--rate", "R", "generated requests: mean arrivals per s (with --requests)"},
      {"--requests", "N", "generated requests, or a project's benchmark requests (default 1000)"},
      {"--arrivals", "poisson|gamma", "arrival process of --rate (default poisson)"},
      {"--cv", "X", "gamma arrivals: coefficient of variation of the gaps (burstiness)"},
      {"--input-len", "DIST",
       "generated/benchmark prompt tokens: N, uniform:A:B or "
       "lognormal:MEDIAN:SIGMA (default 1024)"},
      {"--output-len", "DIST", "generated/benchmark output tokens, as --input-len (default 256)"},
      {"--benchmark", "N", "closed benchmark: N requests at an infinite rate (trtllm-bench)"},
      {"--concurrency", "C", "at most C requests in the system (the next when one finishes)"},
      {"--instances", "N", "co-located instances, each a replica of the plan (default: dp)"},
      {"--instance-groups", "N:K=V,...+...",
       "co-located instances of their own plans behind the router, e.g. 2:tp=2+1:tp=4 "
       "(keys as --prefill-pool; on consecutive devices)"},
      {"--disaggregate", "P:D",
       "P prefill + D decode instances (each a replica of the plan), "
       "KV moved over the system network"},
      {"--prefill-pool", "K=V,...",
       "the prefill pool's own plan and limits: tp, pp, ep, cp, max-seqs, max-tokens "
       "(e.g. tp=2,max-tokens=16384; 0 = the design's / the scheduler's)"},
      {"--decode-pool", "K=V,...", "the decode pool's, as --prefill-pool (e.g. tp=8,max-seqs=512)"},
      {"--scheduler", "vllm|tensorrt-llm|trtllm-bench",
       "scheduler limits to start from: vLLM's defaults (default), TensorRT-LLM's, or "
       "trtllm-bench's own sizing for the plan and the requests' mean lengths; the limit "
       "options below override it"},
      {"--router", "rr|jsq|kv", "round-robin, join-shortest-queue (default), least KV load"},
      {"--max-seqs", "N", "max_num_seqs: running sequences per instance (default 256)"},
      {"--max-tokens", "N", "max_num_batched_tokens per iteration (default 8192)"},
      {"--chunked-prefill", "on|off", "split prompts over iterations (default on)"},
      {"--mixed-batches", "on|off",
       "prefill chunks and decodes share an iteration (vLLM, TensorRT-LLM; default on), or off: "
       "prefill runs alone and first, as SGLang schedules by default"},
      {"--overlap-scheduler", "on|off",
       "form iteration n+1 while n runs (TensorRT-LLM's and SGLang's overlap scheduler): "
       "arrivals wait one more iteration and an ended sequence holds its slot for one "
       "(default off)"},
      {"--block-size", "N", "KV block size in tokens (default 16)"},
      {"--kv-policy", "max-utilization|guaranteed-no-evict",
       "allocate KV blocks as needed and preempt (vLLM; default), or reserve each request's "
       "whole length at admission (TensorRT-LLM's default)"},
      {"--kv-fraction", "X",
       "share of the memory left after weights for the KV cache (default 1; "
       "TensorRT-LLM 0.9)"},
      {"--partition", "auto|given",
       "auto: the central scheduler picks the prefill/decode split, pool plans and placement "
       "for goodput (default on a wafer without --disaggregate); given: --disaggregate's"},
      {"--wafer-placement", "interleaved|clustered",
       "wafer: lay prefill regions among decode regions, or apart (default interleaved)"},
      {"--kv-borrow", "on|off",
       "wafer: decode instances hold KV on idle neighbouring dies (default on)"},
      {"--screen-requests", "N",
       "--partition auto: when every candidate on every request is too much (see "
       "--exhaustive-budget), screen on N requests in 4 windows spread over the stream "
       "(default 4000)"},
      {"--finalists", "N",
       "--partition auto: re-run the best N screened on all requests (default 8)"},
      {"--exhaustive-budget", "X",
       "--partition auto: candidates x requests run in full without screening (default 4e6)"},
      {"--all-partitions", "", "--partition auto: screen every partition, not only maximal ones"},
      {"--slo-ttft", "S", "TTFT SLO in seconds for goodput (default none)"},
      {"--slo-tpot", "S", "TPOT SLO in seconds for goodput (default none)"},
      {"--seed", "N", "generator seed (default 1)"},
      {"--per-request", "FILE.csv", "write one row per request"},
      {"--progress", "",
       "print progress lines on stderr even when it is not a terminal (on a terminal: always, "
       "unless --json)"},
      {"--json", "", "print the result as JSON"},
      {"--help", "", "show this help"},
  };
  o.insert(o.end(), own.begin(), own.end());
  return o;
}

// A core parser's ConfigError as the CLI's one-line errors.
template <class F>
auto cli_parse(F&& parse) {
  try {
    return parse();
  } catch (const ConfigError& e) {
    std::vector<std::string> lines;
    for (const auto& i : e.issues()) lines.push_back(format_issue(i));
    throw CliError(lines.empty() ? std::vector<std::string>{e.what()} : lines);
  }
}

serving::LengthDist length(const ParsedArgs& a, const char* option,
                           const serving::LengthDist& fallback) {
  if (auto v = a.get(option))
    return cli_parse([&] { return serving::parse_length_dist(*v, option); });
  return fallback;
}

// The scheduler-limit flags given; they override whatever limits the settings or a sizing
// rule start from.
runs::SchedulerOverrides scheduler_overrides(const ParsedArgs& a) {
  runs::SchedulerOverrides o;
  if (auto v = a.get("--max-seqs"))
    o.max_num_seqs = static_cast<int>(parse_int("--max-seqs", *v, 1, 1 << 20));
  if (auto v = a.get("--max-tokens"))
    o.max_num_batched_tokens = static_cast<int>(parse_int("--max-tokens", *v, 1, kMaxTokens));
  if (auto v = a.get("--block-size"))
    o.block_size = static_cast<int>(parse_int("--block-size", *v, 1, 1 << 16));
  if (auto v = a.get("--kv-policy")) {
    if (*v == "max-utilization")
      o.kv_policy = serving::KvPolicy::max_utilization;
    else if (*v == "guaranteed-no-evict")
      o.kv_policy = serving::KvPolicy::guaranteed_no_evict;
    else
      throw CliError("--kv-policy: unknown policy '" + *v +
                     "' (allowed: max-utilization, guaranteed-no-evict)");
  }
  if (auto v = a.get("--kv-fraction"))
    o.kv_cache_fraction = parse_double("--kv-fraction", *v, 1e-3, 1.0);
  const auto on_off = [&](const char* flag) -> std::optional<bool> {
    auto v = a.get(flag);
    if (!v) return std::nullopt;
    if (*v != "on" && *v != "off")
      throw CliError(std::string(flag) + ": expected on or off, got '" + *v + "'");
    return *v == "on";
  };
  o.chunked_prefill = on_off("--chunked-prefill");
  o.mixed_batches = on_off("--mixed-batches");
  o.overlap_scheduler = on_off("--overlap-scheduler");
  return o;
}

// The serving settings of the run: the project's "serving" section (io/serving.hpp) when it has
// one, else the defaults (serving/spec.hpp); then every flag given overrides its field.
serving::ServingSpec serving_spec(const ParsedArgs& a, std::optional<serving::ServingSpec> file) {
  const int sources = a.has("--trace") + a.has("--rate") + a.has("--benchmark");
  if (sources > 1 || (sources == 0 && !file))
    throw CliError(std::string("serve: ") + (sources == 0 ? "no" : "more than one") +
                   " request source (allowed: exactly one of --trace FILE, --rate R [--requests "
                   "N], --benchmark N, or none with a PROJECT.json that has a \"serving\" "
                   "section)");
  serving::ServingSpec s = file.value_or(serving::ServingSpec{});
  if (auto f = a.get("--trace")) {
    s.source = serving::SourceKind::trace;
    s.trace = *f;
  }
  // A flag's source replaces the project's, and with it the project's trace time scale.
  if (a.has("--rate") || a.has("--benchmark")) s.time_scale = 1;
  if (auto v = a.get("--time-scale")) {
    if (a.has("--rate") || a.has("--benchmark") ||
        (!a.has("--trace") && s.source != serving::SourceKind::trace))
      throw CliError(
          "--time-scale: scales the arrivals of a trace; the requests here are " +
          std::string(a.has("--benchmark") || (!a.has("--rate") &&
                                               s.source == serving::SourceKind::benchmark)
                          ? "a closed benchmark"
                          : "generated") +
          " (allowed: with --trace FILE, or a project whose serving source is a trace; for "
          "generated requests change --rate)");
    s.time_scale = parse_double("--time-scale", *v, 1e-6, 1e6);
  }
  if (auto v = a.get("--rate")) {
    s.source = serving::SourceKind::generated;
    s.rate_per_s = parse_double("--rate", *v, 1e-9, 1e9);
  }
  if (auto v = a.get("--requests"))
    s.requests = static_cast<std::size_t>(parse_int("--requests", *v, 1, kMaxRequests));
  if (auto v = a.get("--benchmark")) {
    s.source = serving::SourceKind::benchmark;
    s.requests = static_cast<std::size_t>(parse_int("--benchmark", *v, 1, kMaxRequests));
  }
  if (auto k = a.get("--arrivals")) {
    if (*k == "poisson")
      s.arrivals = serving::ArrivalProcess::Kind::poisson;
    else if (*k == "gamma")
      s.arrivals = serving::ArrivalProcess::Kind::gamma;
    else
      throw CliError("--arrivals: unknown process '" + *k + "' (allowed: poisson, gamma)");
  }
  if (auto c = a.get("--cv")) s.cv = parse_double("--cv", *c, 1e-3, 1e3);
  if (auto v = a.get("--seed"))
    s.seed = static_cast<std::uint64_t>(
        parse_int("--seed", *v, 0, std::numeric_limits<std::int64_t>::max()));
  s.input = length(a, "--input-len", s.input);
  s.output = length(a, "--output-len", s.output);
  if (s.source == serving::SourceKind::benchmark) {
    // A flag's own distribution is named by the flag; the project's by its path (validate()).
    for (const auto& [option, d] :
         {std::pair{"--input-len", &s.input}, std::pair{"--output-len", &s.output}})
      if (a.has(option) && d->kind != serving::LengthDist::Kind::fixed)
        throw CliError(std::string(option) +
                       ": --benchmark needs fixed lengths (allowed: an integer, as trtllm-bench's "
                       "synthetic datasets)");
  }
  if (auto v = a.get("--concurrency"))
    s.concurrency = static_cast<int>(parse_int("--concurrency", *v, 1, 1 << 30));
  if (auto v = a.get("--instances"))
    s.instances = static_cast<int>(parse_int("--instances", *v, 1, kMaxInstances));
  if (auto v = a.get("--disaggregate")) {
    const auto colon = v->find(':');
    if (colon == std::string::npos)
      throw CliError("--disaggregate: expected P:D (prefill:decode instances), got '" + *v + "'");
    s.disaggregate.prefill =
        static_cast<int>(parse_int("--disaggregate", v->substr(0, colon), 1, kMaxInstances));
    s.disaggregate.decode =
        static_cast<int>(parse_int("--disaggregate", v->substr(colon + 1), 1, kMaxInstances));
  } else if (a.has("--instances") || a.has("--instance-groups")) {
    s.disaggregate = {};  // --instances N alone asks for N co-located instances
  }
  if (a.has("--instance-groups") && (a.has("--instances") || a.has("--disaggregate")))
    throw CliError(std::string("--instance-groups: not with ") +
                   (a.has("--instances") ? "--instances" : "--disaggregate") +
                   " (the groups are co-located instances and give their own counts)");
  if (auto v = a.get("--instance-groups")) {
    s.instance_groups =
        cli_parse([&] { return serving::parse_instance_groups(*v, "--instance-groups"); });
    s.instances = 0;
  } else if (a.has("--instances") || a.has("--disaggregate")) {
    s.instance_groups.clear();  // a project's groups give way to the flag's layout
  }
  if (auto v = a.get("--router")) {
    if (*v == "rr")
      s.router = serving::Router::round_robin;
    else if (*v == "jsq")
      s.router = serving::Router::join_shortest_queue;
    else if (*v == "kv")
      s.router = serving::Router::least_kv;
    else
      throw CliError("--router: unknown router '" + *v + "' (allowed: rr, jsq, kv)");
  }
  if (auto v = a.get("--scheduler")) {
    s.sizing = serving::SchedulerSizing::as_given;
    if (*v == "vllm")
      s.scheduler = serving::SchedulerConfig{};
    else if (*v == "tensorrt-llm")
      s.scheduler = serving::tensorrt_llm_defaults();
    else if (*v == "trtllm-bench")  // sized by runs::serve, once the requests are known
      s.sizing = serving::SchedulerSizing::trtllm_bench;
    else
      throw CliError("--scheduler: unknown scheduler '" + *v +
                     "' (allowed: vllm, tensorrt-llm, trtllm-bench)");
  }
  if (auto v = a.get("--partition")) {
    if (*v != "auto" && *v != "given")
      throw CliError("--partition: expected auto or given, got '" + *v + "'");
    s.partitioning =
        *v == "auto" ? serving::Partitioning::automatic : serving::Partitioning::given;
  }
  scheduler_overrides(a).apply(s.scheduler);
  if (auto v = a.get("--prefill-pool"))
    s.disaggregate.prefill_pool =
        cli_parse([&] { return serving::parse_pool_text(*v, "--prefill-pool"); });
  if (auto v = a.get("--decode-pool"))
    s.disaggregate.decode_pool =
        cli_parse([&] { return serving::parse_pool_text(*v, "--decode-pool"); });
  if ((a.has("--prefill-pool") || a.has("--decode-pool")) && !s.disaggregate.enabled())
    throw CliError(std::string(a.has("--prefill-pool") ? "--prefill-pool" : "--decode-pool") +
                   ": a pool needs disaggregation (add --disaggregate P:D)");
  if (auto v = a.get("--slo-ttft")) s.slo.ttft_s = parse_double("--slo-ttft", *v, 0, 1e9);
  if (auto v = a.get("--slo-tpot")) s.slo.tpot_s = parse_double("--slo-tpot", *v, 0, 1e9);
  return s;
}

// "trace FILE (N requests over T s)", "benchmark: N requests at an infinite rate",
// "N generated requests at R/s (Poisson)".
std::string source_text(const serving::ServingSpec& s, const serving::TraceStats& st,
                        const ParsedArgs& a) {
  switch (s.source) {
    case serving::SourceKind::trace: {
      std::string scale;
      if (auto x = a.get("--time-scale"))
        scale = ", x" + *x;
      else if (s.time_scale != 1)
        scale = ", x" + readable(s.time_scale);
      return "trace " + s.trace + " (" + std::to_string(st.rows) + " requests over " +
             fixed(st.duration_s, 0) + " s" + scale + ")";
    }
    case serving::SourceKind::benchmark:
      return "benchmark: " + std::to_string(s.requests) + " requests at an infinite rate";
    case serving::SourceKind::generated:
      return std::to_string(s.requests) + " generated requests at " + readable(s.rate_per_s) +
             "/s (" + (s.arrivals == serving::ArrivalProcess::Kind::poisson ? "Poisson" : "Gamma") +
             ")";
  }
  return {};
}

std::string pct_row(const char* name, const serving::Percentiles& p, double scale,
                    const char* unit) {
  std::ostringstream s;
  auto cell = [&](double v) { return pad_left(readable(v * scale), 10); };
  s << "  " << pad_right(name, 10) << cell(p.mean) << cell(p.p50) << cell(p.p90) << cell(p.p99)
    << cell(p.max) << "  " << unit << "\n";
  return s.str();
}

int run_serve(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = serve_options();
  const ParsedArgs a = parse_args("serve", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_serve_command(), ctx.out);
    return kExitOk;
  }
  perf::Design design = load_design("serve", a, ctx.presets);
  apply_overrides(design, a, ctx.presets, /*workload=*/false);
  design.workload.batch_auto = false;
  design.workload.batch = 1;  // the static batch is not used; memory is checked per iteration
  std::optional<serving::ServingSpec> file;
  if (!a.positional.empty()) file = io::load_serving_section(a.positional.front());
  const serving::ServingSpec spec = serving_spec(a, std::move(file));

  // How the run is set up (runs/serve.hpp owns the rest).
  runs::ServeOptions so;
  so.overrides = scheduler_overrides(a);
  if (auto v = a.get("--wafer-placement")) {
    if (*v == "interleaved")
      so.wafer_order = wafer::PlacementOrder::interleaved;
    else if (*v == "clustered")
      so.wafer_order = wafer::PlacementOrder::clustered;
    else
      throw CliError("--wafer-placement: expected interleaved or clustered, got '" + *v + "'");
  }
  if (auto v = a.get("--kv-borrow")) {
    if (*v != "on" && *v != "off")
      throw CliError("--kv-borrow: expected on or off, got '" + *v + "'");
    so.kv_borrow = *v == "on";
  }
  if (auto v = a.get("--screen-requests"))
    so.central.screen_requests =
        static_cast<std::size_t>(parse_int("--screen-requests", *v, 1, kMaxRequests));
  if (auto v = a.get("--finalists"))
    so.central.finalists = static_cast<int>(parse_int("--finalists", *v, 1, 1000));
  so.central.maximal_only = !a.has("--all-partitions");
  if (auto v = a.get("--exhaustive-budget"))
    so.central.exhaustive_budget = parse_double("--exhaustive-budget", *v, 0, 1e15);
  // A 0 s SLO flag keeps its meaning (an SLO nothing meets); in the spec 0 means none.
  if (a.has("--slo-ttft")) so.slo_ttft_s = spec.slo.ttft_s;
  if (a.has("--slo-tpot")) so.slo_tpot_s = spec.slo.tpot_s;

  // A bad output is refused before the run, not after it.
  if (auto f = a.get("--per-request")) io::check_output(*f, "--per-request");

  // Ctrl-C stops the partition search and the simulation; progress lines while they run
  // (long_run.hpp).
  LongRun run("serve", a.has("--progress"), a.has("--json"));
  runs::ServeProgress progress;
  progress.partitions = [&](std::size_t done, std::size_t total) {
    run.progress("central scheduler: " + std::to_string(done) + " of " + std::to_string(total) +
                 " partition runs done");
  };
  progress.requests = [&](std::size_t done, std::size_t total, double sim_s) {
    char line[160];
    std::snprintf(line, sizeof line, "%zu of %zu requests done (%.0f%%), simulated %.1f s", done,
                  total,
                  total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
                  sim_s);
    run.progress(line);
  };
  serving::TraceStats trace;
  std::vector<serving::Request> reqs;
  runs::ServeRun served;
  try {
    runs::check(design, spec);
    reqs = io::serving_requests(spec, &trace);
    served = runs::serve(design, spec, reqs, so, progress, run.token());
  } catch (ConfigError& e) {
    // Requests longer than the model's context drawn from --input-len / --output-len: the
    // issue names the flag (a trace's are rejected one by one, with the reason).
    std::vector<Issue> issues = e.issues();
    for (auto& i : issues)
      if ((a.has("--input-len") || a.has("--output-len")) &&
          i.path.starts_with("/serving/") && i.message.find("context") != std::string::npos)
        i.path = a.has("--input-len") ? "--input-len" : "--output-len";
    throw ConfigError(std::move(issues));
  } catch (const std::invalid_argument& e) {
    throw CliError(std::string("serve: ") + e.what());
  }
  run.clear();
  if (served.stopped || run.interrupted()) {
    ctx.err << "error: " << run.interrupted_text() << "\n";
    return kExitInterrupted;
  }
  const serving::SimResult& r = served.result;
  const std::size_t requests = served.requests;
  // Nothing served is not a result: no figure of such a run means anything.
  if (r.completed == 0 && r.rejected > 0)
    throw CliError("serve: every one of the " + std::to_string(requests) +
                   " requests was rejected (" + serving::rejection_text(r) +
                   "): nothing was served (allowed: a design, scheduler and lengths that serve "
                   "at least one request)");
  const serving::SchedulerConfig& sched = served.scheduler;
  const std::string source = source_text(spec, trace, a);
  const std::string& layout = served.layout;
  const auto& pools = served.pools;
  const long long kv_blocks = pools.front().kv_blocks;
  const int devices = pools.front().devices;
  const wafer::WaferRun* on_wafer = served.wafer ? &*served.wafer : nullptr;
  const bool partition_line = served.partition_chosen || on_wafer;
  const auto role_text = [](serving::Role role) {
    return role == serving::Role::prefill  ? "prefill"
           : role == serving::Role::decode ? "decode"
                                           : "co-located";
  };

  if (auto f = a.get("--per-request"))
    io::write_output(*f, io::per_request_csv(r), "--per-request");
  if (a.has("--json")) {
    ctx.out << io::serve_run_json(design, served, source) << "\n";
    return kExitOk;
  }
  auto& out = ctx.out;
  out << "design     " << design.name << "  (runtime " << design.runtime.id << ")\n";
  out << "envelope   " << validate::match_envelope(io::builtin_envelope(), design).text << "\n";
  out << "kernels    " << perf::kernel_source_text(design) << "\n";
  if (pools.size() == 1) {
    out << "instances  " << layout << " x " << devices << " devices, KV cache " << kv_blocks
        << " blocks of " << sched.block_size << " tokens each, max_num_seqs " << sched.max_num_seqs
        << ", max_num_batched_tokens " << sched.max_num_batched_tokens << ", chunked prefill "
        << (sched.chunked_prefill ? "on" : "off")
        << (sched.mixed_batches ? "" : ", prefill batches alone")
        << (sched.overlap_scheduler ? ", overlap scheduler" : "") << "\n";
  } else {
    out << "instances  " << layout << ", chunked prefill " << (sched.chunked_prefill ? "on" : "off")
        << "\n";
    for (const auto& p : pools)
      out << "  " << pad_right(role_text(p.role), 11) << p.count << " x " << p.devices << " devices ("
          << p.plan << "), KV cache " << p.kv_blocks << " blocks of " << p.scheduler.block_size
          << " tokens, max_num_seqs " << p.scheduler.max_num_seqs << ", max_num_batched_tokens "
          << p.scheduler.max_num_batched_tokens << "\n";
  }
  if (partition_line)
    out << "partition  " << served.partition_text << " (" << served.partition_note << ")\n";
  if (on_wafer) {
    const auto& l = on_wafer->wafer.layout;
    out << "wafer      " << l.dies_x << " x " << l.dies_y << " dies (" << l.usable_dies
        << " usable, " << l.dies - l.usable_dies << " spare; wafer yield "
        << fixed(100 * l.wafer_yield, 1)
        << " %), P prefill, D decode, b lends KV memory, x spare\n";
    for (const auto& row : wafer::die_map_rows(on_wafer->wafer, served.partition.prefill)) out << "          " << row << "\n";
  }
  out << "requests   " << source << "\n\n";
  out << "completed  " << r.completed << " of " << requests;
  if (r.rejected > 0)
    out << " (" << r.rejected << " rejected: " << serving::rejection_text(r) << ")";
  out << "\nmakespan   " << fixed(r.makespan_s, 2) << " s, " << r.iterations
      << " iterations\nthroughput " << readable(r.output_tokens_per_s) << " output tok/s, "
      << readable(r.input_tokens_per_s) << " input tok/s, " << fixed(r.requests_per_s, 2)
      << " req/s\n";
  const double slo_ttft = served.slo_ttft_s, slo_tpot = served.slo_tpot_s;
  if (std::isfinite(slo_ttft) || std::isfinite(slo_tpot))
    out << "goodput    " << fixed(r.goodput_rps, 2) << " req/s meeting TTFT <= "
        << (std::isfinite(slo_ttft) ? fixed(slo_ttft, 3) + " s" : "any") << " and TPOT <= "
        << (std::isfinite(slo_tpot) ? fixed(slo_tpot * 1e3, 1) + " ms" : "any") << " ("
        << fixed(100 * r.slo_attainment, 1) << " % of all " << requests << " requests"
        << (r.rejected > 0 ? ", the rejected ones as misses" : "") << ")\n";
  // A wafer's figures are those of a wafer that works; per wafer made only the yield serves.
  if (on_wafer && on_wafer->wafer.layout.wafer_yield < 1)
    out << "           per wafer made "
        << readable(r.goodput_rps * on_wafer->wafer.layout.wafer_yield)
        << " req/s expected: the wafer yield is "
        << readable(100 * on_wafer->wafer.layout.wafer_yield)
        << " % (the rest has a defective die without a spare)\n";
  out << "energy     " << fixed(r.energy_per_output_token_J, 3) << " J per output token\n";
  if (r.kv_transfers > 0)
    out << "KV moves   " << r.kv_transfers << " transfers, " << readable(r.kv_transfer_bytes / 1e9)
        << " GB, " << readable(r.kv_transfer_s.mean * 1e3) << " ms mean ("
        << readable(r.kv_transfer_s.p99 * 1e3) << " ms p99, queueing included), "
        << readable(r.kv_transfer_energy_J) << " J\n";
  if (on_wafer && r.kv_transfers > 0) {
    const auto b = wafer::busiest_link(on_wafer->wafer, r.makespan_s);
    out << "D2D links  busiest " << b.from << " -> " << b.to << ": " << readable(b.bytes / 1e9)
        << " GB, busy " << fixed(100 * b.utilisation, 2) << " % of the makespan\n";
  }
  out << "\n";
  out << "  " << pad_right("", 10) << pad_left("mean", 10) << pad_left("p50", 10)
      << pad_left("p90", 10) << pad_left("p99", 10) << pad_left("max", 10) << "\n";
  out << pct_row("TTFT", r.ttft, 1e3, "ms") << pct_row("TPOT", r.tpot, 1e3, "ms")
      << pct_row("ITL", r.itl, 1e3, "ms") << pct_row("E2E", r.e2e, 1.0, "s")
      << pct_row("queue", r.queue, 1e3, "ms") << "\n";
  std::size_t name_w = 14;  // wafer instances carry their region: "prefill 0 @(0,0) 4x2"
  for (const auto& s : r.instances) name_w = std::max(name_w, s.name.size() + 1);
  out << "  " << pad_right("instance", name_w)
      << " requests  iterations  preemptions  busy    KV peak    power\n";
  for (const auto& s : r.instances)
    out << "  " << pad_right(s.name, name_w) << pad_left(std::to_string(s.requests), 9)
        << pad_left(std::to_string(s.iterations), 12) << pad_left(std::to_string(s.preemptions), 13)
        << pad_left(fixed(r.makespan_s > 0 ? 100 * s.busy_s / r.makespan_s : 0, 0) + " %", 6)
        << pad_left(fixed(100 * s.kv_peak_utilisation, 0) + " %", 10)
        << pad_left(readable(r.makespan_s > 0 ? s.energy_J / r.makespan_s : 0) + " W", 11) << "\n";
  return kExitOk;
}

}  // namespace

Command make_serve_command() {
  Command c;
  c.name = "serve";
  c.synopsis = "serve [PROJECT.json] [--trace FILE | --rate R | --benchmark N] [options]";
  c.summary = "replay a request stream on instances of a design: TTFT/TPOT percentiles, goodput";
  c.description =
      "Replays requests (a trace, a seeded generator or a closed benchmark) on co-located\n"
      "instances of the design (each a replica of its plan) with continuous batching as vLLM v1\n"
      "and TensorRT-LLM do it: a token budget and a sequence cap per iteration, chunked prefill,\n"
      "a paged KV cache sized from the memory left after weights and activations, preemption by\n"
      "recompute. Every iteration is costed by the same operator model as evaluate, for its\n"
      "actual mix of prefill chunks and decodes. Prints throughput, goodput under the SLOs and\n"
      "TTFT/TPOT/ITL/E2E/queueing percentiles. The design options are evaluate's.\n"
      "SLO attainment is over all requests: a rejected one (over the model's context, more KV\n"
      "blocks than an instance holds) is a miss; a run that rejects every request is an error\n"
      "(exit 2). Ctrl-C stops a run (exit 130).\n"
      "A PROJECT.json with a \"serving\" section (source, lengths, instances, disaggregation,\n"
      "router, scheduler limits, SLOs) supplies the settings; each option given overrides its\n"
      "field, and a source option replaces the project's source.";
  c.options = serve_options();
  c.run = run_serve;
  return c;
}

}  // namespace stackscope::cli
