// SPDX-License-Identifier: GPL-3.0-or-later
// `moe`: expert placement of an MoE model on a 2D mesh of near-memory nodes: each strategy
// fitted on routing traces and scored by the one MoE-layer
// simulator (experts/compare.hpp) on the same or other traces.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "design_args.hpp"
#include "long_run.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/precision.hpp"
#include "stackscope/experts/compare.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/io/experts_json.hpp"
#include "stackscope/io/moe_trace.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/memory/dram.hpp"

namespace stackscope::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultProject = "mixtral-hdmoe";

std::vector<OptionSpec> moe_options() {
  return {
      {"--model", "ID", "model preset id or JSON file (default: the project's)"},
      {"--trace", "FILE|DIR",
       "routing trace (JSON, plain or .gz; Mixtral's in data/mixtral-routing), or a folder of them"},
      {"--skew", "zipf:S|dirichlet:A|uniform",
       "synthetic routing instead of a trace (seeded; fitted on one draw, scored on another)"},
      {"--fit-on", "TRACES",
       "comma-separated traces to fit on: names in --trace DIR or files, NAME:first or "
       "NAME:second for half of its tokens"},
      {"--eval-on", "TRACES", "comma-separated traces to score on (default: as --fit-on)"},
      {"--mesh", "XxY", "mesh of nodes (default: the system's mesh2d level, e.g. 8x4)"},
      {"--node-tflops", "F", "compute per node, TFLOP/s (default: the device's BF16 peak)"},
      {"--link-GBps", "B", "per directed mesh link, GB/s (default: the system's)"},
      {"--mem-GBps", "M", "memory per node, GB/s (default: the device's peak)"},
      {"--batch", "N", "tokens per batch (default: the project's batch)"},
      {"--batches", "N", "batches scored per layer and trace (default 4)"},
      {"--layers", "LIST", "MoE layers scored: 0,4,8 or every:K (default every:4)"},
      {"--strategy", "S", "tp | ep | eplb | balanced | hd | hd-dynamic | shadow (default hd)"},
      {"--predicted-experts", "N", "hd-dynamic: hottest predicted experts pre-broadcast (default 1)"},
      {"--compare", "", "run every strategy; print speedups over TP, EP and balanced"},
      {"--hd-time-limit", "S", "GLPK time limit per layer for HD-MoE's node balance (default 2)"},
      {"--link-iterations", "N",
       "HD-MoE link balance: annealing swaps over the node -> mesh mapping (default 200; 0 off)"},
      {"--eplb-redundant", "R", "EPLB redundant slots (default: fewest making E + R a multiple of N)"},
      {"--eplb-groups", "G", "EPLB groups: 1 = global (default), > 1 hierarchical"},
      {"--context", "N", "context tokens for the non-MoE (attention) time (default 1024)"},
      {"--seed", "N", "seed of synthetic routing and of link balance (default: the project's)"},
      {"--progress", "",
       "print progress lines on stderr even when it is not a terminal (on a terminal: always)"},
      {"--json", "", "print the result as JSON"},
      {"--help", "", "show this help"},
  };
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// A routing trace file: NAME.json, or NAME.json.gz (gzip; io::read_text_file reads both).
bool is_trace_file(const fs::path& p) {
  const std::string f = p.filename().string();
  return (f.size() > 5 && f.ends_with(".json")) || (f.size() > 8 && f.ends_with(".json.gz"));
}

// The trace's name: its file name without .json or .json.gz ("data/mixtral-routing/math.json.gz"
// -> "math").
std::string trace_name(const fs::path& p) {
  std::string f = p.filename().string();
  if (f.ends_with(".gz")) f.resize(f.size() - 3);
  if (f.ends_with(".json")) f.resize(f.size() - 5);
  return f;
}

// A trace named NAME in DIR (NAME.json, else NAME.json.gz) or a path.
fs::path trace_path(const std::string& name, const std::optional<fs::path>& dir) {
  if (dir && name.find('/') == std::string::npos) {
    if (is_trace_file(name)) return *dir / name;
    std::error_code ec;
    const fs::path plain = *dir / (name + ".json"), gz = *dir / (name + ".json.gz");
    return !fs::exists(plain, ec) && fs::exists(gz, ec) ? gz : plain;
  }
  return name;
}

moe::RoutingTrace load_trace(const fs::path& p, int experts, int top_k) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec))
    throw CliError("moe: cannot read routing trace '" + p.string() +
                   "' (no such file; allowed: a JSON routing trace, plain or gzip, as in data/mixtral-routing)");
  try {
    auto t = io::load_moe_trace(p, experts, top_k);
    t.source = trace_name(p);
    return t;
  } catch (const std::invalid_argument& e) {
    throw CliError(std::string("moe: ") + e.what());
  }
}

// NAME, NAME:first or NAME:second (that half of every layer's tokens), as load_trace.
moe::RoutingTrace load_named(const std::string& item, const std::optional<fs::path>& dir,
                             int experts, int top_k) {
  std::string name = item, half;
  if (const auto colon = item.rfind(':'); colon != std::string::npos) {
    half = item.substr(colon + 1);
    name = item.substr(0, colon);
    if (half != "first" && half != "second")
      throw CliError("moe: trace '" + item + "': unknown part '" + half +
                     "' (allowed: NAME, NAME:first, NAME:second)");
  }
  auto t = load_trace(trace_path(name, dir), experts, top_k);
  if (half.empty()) return t;
  std::size_t fewest = t.tokens(0);
  for (std::size_t l = 0; l < t.layers.size(); ++l) fewest = std::min(fewest, t.tokens(l));
  if (fewest < 2) throw CliError("moe: trace '" + name + "' has fewer than 2 tokens in a layer");
  auto part = half == "first" ? experts::token_range(t, 0, fewest / 2)
                              : experts::token_range(t, fewest / 2, fewest);
  part.source = t.source + ":" + half;
  return part;
}

workload::Routing parse_skew(const std::string& s) {
  workload::Routing r;
  const auto colon = s.find(':');
  const std::string kind = s.substr(0, colon);
  if (kind == "uniform" && colon == std::string::npos) {
    r.kind = workload::RoutingKind::uniform;
  } else if (kind == "zipf" && colon != std::string::npos) {
    r.kind = workload::RoutingKind::zipf;
    r.zipf_s = parse_double("--skew zipf", s.substr(colon + 1), 0, 10);
  } else if (kind == "dirichlet" && colon != std::string::npos) {
    r.kind = workload::RoutingKind::dirichlet;
    r.dirichlet_alpha = parse_double("--skew dirichlet", s.substr(colon + 1), 1e-3, 1e6);
  } else {
    throw CliError("--skew: '" + s + "' is not a routing (allowed: zipf:S, dirichlet:A, uniform)");
  }
  return r;
}

experts::MeshConfig mesh_of(const perf::Design& d, const ParsedArgs& a) {
  experts::MeshConfig m;
  const hw::NetworkLevel* level = nullptr;
  for (const auto& l : d.system.levels)
    if (l.topology == hw::Topology::mesh2d) {
      level = &l;
      break;
    }
  if (level) {
    m.x = level->dims_x;
    m.y = level->dims_y;
    m.link_Bps = level->link_GBps * 1e9;
    m.alpha_s = level->latency_us * 1e-6;
  }
  if (auto v = a.get("--mesh")) {
    const auto x = v->find('x');
    const std::string allowed = "allowed: e.g. 4x8, 1.." + std::to_string(experts::kMaxMeshSide) +
                                " per side, at most " + std::to_string(experts::kMaxMeshNodes) +
                                " nodes";
    if (x == std::string::npos)
      throw CliError("--mesh: '" + *v + "' is not XxY (" + allowed + ")");
    m.x = static_cast<int>(parse_int("--mesh", v->substr(0, x), 1, experts::kMaxMeshSide));
    m.y = static_cast<int>(parse_int("--mesh", v->substr(x + 1), 1, experts::kMaxMeshSide));
    if (m.x * m.y > experts::kMaxMeshNodes)
      throw CliError("--mesh: " + *v + " is " + std::to_string(m.x * m.y) + " nodes (" + allowed +
                     ")");
  } else if (!level) {
    throw CliError("moe: the system '" + d.system.id +
                   "' has no mesh2d level; give --mesh XxY (and --link-GBps)");
  }
  m.node_flops = hw::matrix_peak_flops(d.hardware.compute, Precision::bf16);
  m.mem_Bps = memory::effective_bandwidth(d.hardware.memory, d.hardware.compute, {}).peak_Bps;
  if (auto v = a.get("--node-tflops")) m.node_flops = parse_double("--node-tflops", *v, 1e-3, 1e6) * 1e12;
  if (auto v = a.get("--link-GBps")) m.link_Bps = parse_double("--link-GBps", *v, 1e-3, 1e6) * 1e9;
  if (auto v = a.get("--mem-GBps")) m.mem_Bps = parse_double("--mem-GBps", *v, 1e-3, 1e7) * 1e9;
  if (!(m.node_flops > 0) || !(m.mem_Bps > 0) || !(m.link_Bps > 0))
    throw CliError("moe: the device gives no BF16 compute, memory or link rate; give "
                   "--node-tflops, --mem-GBps and --link-GBps");
  return m;
}

std::vector<int> parse_layers(const std::string& s, int layers) {
  std::vector<int> out;
  if (s.rfind("every:", 0) == 0) {
    const auto k = static_cast<int>(parse_int("--layers every", s.substr(6), 1, 1 << 16));
    for (int l = 0; l < layers; l += k) out.push_back(l);
    return out;
  }
  for (const auto& item : split_list(s))
    out.push_back(static_cast<int>(parse_int("--layers", item, 0, layers - 1)));
  if (out.empty()) throw CliError("--layers: no layer given (allowed: 0,4,8 or every:K)");
  return out;
}

std::string pct(double x) { return fixed(100 * x, 1) + " %"; }
std::string us(double s) { return fixed(s * 1e6, 1); }

int run_moe(std::span<const std::string> args, Context& ctx) {
  std::vector<OptionSpec> options = moe_options();
  const ParsedArgs a = parse_args("moe", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_moe_command(), ctx.out);
    return kExitOk;
  }
  perf::Design design = a.positional.empty() ? ctx.presets.project(kDefaultProject)
                                             : load_design("moe", a, ctx.presets);
  if (auto v = a.get("--model")) design.model = io::resolve_model(*v, ctx.presets);
  const auto& model = design.model;
  if (model.moe.experts < 1)
    throw CliError("moe: model '" + model.id +
                   "' has no routed experts (allowed: an MoE model, e.g. mixtral-8x7b, "
                   "deepseek-v2-lite, qwen2-57b-a14b, deepseek-v3, qwen3-235b-a22b)");
  const int moe_layers = model.layers - model.moe.first_dense_layers;

  experts::CompareConfig cfg;
  cfg.mesh = mesh_of(design, a);
  cfg.batch = static_cast<int>(a.get("--batch") ? parse_int("--batch", *a.get("--batch"), 1, 65536)
                                                : design.workload.batch);
  if (auto v = a.get("--batches")) cfg.batches = static_cast<int>(parse_int("--batches", *v, 1, 1024));
  if (static_cast<long long>(cfg.batch) * cfg.batches > experts::kMaxScoredTokens)
    throw CliError("--batch x --batches: " + std::to_string(cfg.batch) + " x " +
                   std::to_string(cfg.batches) + " = " +
                   std::to_string(static_cast<long long>(cfg.batch) * cfg.batches) +
                   " tokens scored per layer and trace (allowed: at most " +
                   std::to_string(experts::kMaxScoredTokens) + " = 2^20)");
  if (auto v = a.get("--hd-time-limit")) cfg.hd_time_limit_s = parse_double("--hd-time-limit", *v, 1e-3, 3600);
  else cfg.hd_time_limit_s = 2;
  if (auto v = a.get("--predicted-experts"))
    cfg.predicted_experts = static_cast<int>(parse_int("--predicted-experts", *v, 1, 65536));
  if (auto v = a.get("--link-iterations"))
    cfg.link_iterations =
        static_cast<int>(parse_int("--link-iterations", *v, 0, experts::kMaxLinkIterations));
  if (auto v = a.get("--seed")) cfg.seed = static_cast<std::uint64_t>(parse_int("--seed", *v, 0, INT64_MAX));
  if (auto v = a.get("--eplb-redundant"))
    cfg.eplb_redundant = static_cast<int>(parse_int("--eplb-redundant", *v, 0, 1 << 16));
  if (auto v = a.get("--eplb-groups")) cfg.eplb_groups = static_cast<int>(parse_int("--eplb-groups", *v, 1, 4096));
  if (auto v = a.get("--context")) cfg.context = static_cast<int>(parse_int("--context", *v, 1, 1 << 24));
  cfg.capacity_bytes = hw::memory_capacity_bytes(design.hardware.memory);
  if (a.has("--compare") && a.has("--strategy"))
    throw CliError("moe: --compare runs every strategy; --strategy picks one (give one of them)");
  if (auto v = a.get("--strategy")) {
    const auto s = experts::parse_strategy(*v);
    if (!s)
      throw CliError("--strategy: unknown strategy '" + *v +
                     "' (allowed: tp, ep, eplb, balanced, hd, hd-dynamic, shadow)");
    cfg.strategies = {*s};
  } else if (!a.has("--compare")) {
    cfg.strategies = {experts::Strategy::hd};
  }

  // Traces.
  std::vector<moe::RoutingTrace> fit, eval;
  std::string fit_text, eval_text;
  if (a.has("--skew") && a.has("--trace"))
    throw CliError("moe: give --trace or --skew, not both");
  std::optional<fs::path> dir;
  std::vector<fs::path> files;
  if (auto v = a.get("--trace")) {
    std::error_code ec;
    if (fs::is_directory(*v, ec)) {
      dir = fs::path(*v);
      for (const auto& e : fs::directory_iterator(*dir))
        if (is_trace_file(e.path())) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      if (files.empty())
        throw CliError("moe: no routing traces (.json or .json.gz) in '" + *v + "'");
    } else {
      files.push_back(*v);
    }
  } else if (!a.has("--skew") && design.workload.routing.kind == workload::RoutingKind::trace &&
             !design.workload.routing.trace.empty()) {
    files.push_back(design.workload.routing.trace);
  }
  if ((a.has("--fit-on") || a.has("--eval-on")) && a.has("--skew"))
    throw CliError("moe: --fit-on and --eval-on name traces; --skew draws synthetic routing");
  const int layers_needed = moe_layers;
  if (!files.empty() || a.has("--fit-on")) {
    const int E = model.moe.experts, K = model.moe.top_k;
    if (auto v = a.get("--fit-on")) {
      for (const auto& n : split_list(*v)) fit.push_back(load_named(n, dir, E, K));
      const auto ev = a.get("--eval-on");
      for (const auto& n : split_list(ev ? *ev : *v)) eval.push_back(load_named(n, dir, E, K));
      if (fit.empty()) throw CliError("--fit-on: no trace named");
      if (eval.empty()) throw CliError("--eval-on: no trace named");
      for (const auto& t : fit) fit_text += (fit_text.empty() ? "" : ", ") + t.source;
      for (const auto& t : eval) eval_text += (eval_text.empty() ? "" : ", ") + t.source;
      if (!ev) eval_text += " (the fit traces themselves)";
    } else {
      if (a.has("--eval-on")) throw CliError("moe: --eval-on needs --fit-on");
      // Held out within each trace: fit on its first half of tokens, score on the second.
      for (const auto& f : files) {
        const auto t = load_trace(f, E, K);
        std::size_t fewest = t.tokens(0);
        for (std::size_t l = 0; l < t.layers.size(); ++l) fewest = std::min(fewest, t.tokens(l));
        if (fewest < 2)
          throw CliError("moe: trace '" + f.string() + "' has fewer than 2 tokens in a layer");
        fit.push_back(experts::token_range(t, 0, fewest / 2));
        eval.push_back(experts::token_range(t, fewest / 2, fewest));
        fit_text += (fit_text.empty() ? "" : ", ") + t.source;
      }
      eval_text = fit_text + " (second half of tokens; fitted on the first)";
      fit_text += " (first half of tokens)";
    }
  } else {
    const workload::Routing r = a.get("--skew") ? parse_skew(*a.get("--skew")) : design.workload.routing;
    std::uint64_t seed = r.seed;
    if (auto v = a.get("--seed")) seed = static_cast<std::uint64_t>(parse_int("--seed", *v, 0, INT64_MAX));
    const std::size_t tokens = static_cast<std::size_t>(cfg.batch) * static_cast<std::size_t>(cfg.batches);
    const std::size_t fit_tokens = std::max<std::size_t>(tokens, 4096);
    try {
      fit.push_back(moe::synthetic_trace(r, model.moe.experts, model.moe.top_k, layers_needed,
                                         fit_tokens, seed));
      eval.push_back(moe::synthetic_trace(r, model.moe.experts, model.moe.top_k, layers_needed,
                                          tokens, seed + 1));
    } catch (const std::invalid_argument& e) {
      throw CliError(std::string("moe: ") + e.what());
    }
    fit_text = fit.front().source + " (" + std::to_string(fit_tokens) + " tokens)";
    eval_text = eval.front().source;
  }
  std::size_t trace_layers = SIZE_MAX;
  for (const auto* v : {&fit, &eval})
    for (const auto& t : *v) trace_layers = std::min(trace_layers, t.layers.size());
  cfg.layers = parse_layers(a.get("--layers").value_or("every:4"), static_cast<int>(trace_layers));

  experts::CompareResult r;
  {
    // Ctrl-C stops the comparison; a progress line while it runs (long_run.hpp).
    LongRun run("moe", a.has("--progress"), a.has("--json"));
    cfg.stop = run.token();
    std::size_t steps_done = 0;
    cfg.progress = [&](std::size_t done, std::size_t total) {
      steps_done = done;
      run.progress(std::to_string(done) + " of " + std::to_string(total) +
                   " layer x strategy steps fitted and scored");
    };
    cfg.activity = [&](std::string_view what) {
      run.progress(std::to_string(steps_done) + " steps fitted and scored; now " +
                   std::string(what));
    };
    try {
      r = experts::compare(model, cfg, fit, eval);
    } catch (const std::invalid_argument& e) {
      throw CliError(std::string(e.what()));
    }
    run.clear();
    if (r.stopped || run.interrupted()) {
      ctx.err << "error: " << run.interrupted_text() << "\n";
      return kExitInterrupted;
    }
  }

  using experts::Strategy;
  const std::vector<Strategy> over = {Strategy::tp, Strategy::ep, Strategy::balanced};
  if (a.has("--json")) {
    ctx.out << io::expert_comparison_json(model.id, cfg, fit_text, eval_text, r) << "\n";
    return kExitOk;
  }

  auto& out = ctx.out;
  out << "moe: " << model.name << " (" << r.experts << " experts, top-" << r.top_k << ", "
      << r.moe_layers << " MoE layers) on a " << cfg.mesh.x << "x" << cfg.mesh.y << " mesh: "
      << readable(cfg.mesh.node_flops / 1e12) << " TFLOPS, " << readable(cfg.mesh.link_Bps / 1e9)
      << " GB/s links, " << readable(cfg.mesh.mem_Bps / 1e9) << " GB/s memory per node\n";
  out << "fit on: " << fit_text << "\nscored on: " << eval_text << "\n";
  std::string layers;
  for (const int l : r.layers) layers += (layers.empty() ? "" : ",") + std::to_string(l);
  out << "batch " << cfg.batch << " tokens, " << cfg.batches << " batches per layer and trace; layers "
      << layers << "; non-MoE time " << us(r.non_moe_s) << " us per layer (context "
      << cfg.context << ")\n\n";
  Table t({"strategy", "MoE us/layer", "end-to-end us/token", "imbalance", "busiest link",
           "surrogate error"},
          "lrrrrr");
  for (const auto& o : r.strategies)
    t.row({std::string(experts::to_string(o.strategy)), us(o.moe_s / r.moe_layers),
           us(o.end_to_end_s), fixed(o.imbalance, 2), pct(o.link_utilisation),
           pct(o.surrogate_error)});
  out << t.str();
  if (r.strategies.size() > 1) {
    out << "\nspeedup, end-to-end time between tokens (MoE layers alone):\n";
    Table s({"strategy", "over tp", "over ep", "over balanced"}, "lrrr");
    for (const auto& o : r.strategies) {
      std::vector<std::string> row = {std::string(experts::to_string(o.strategy))};
      for (const auto b : over) {
        const auto e2e = r.speedup(o.strategy, b), m = r.moe_speedup(o.strategy, b);
        row.push_back(e2e ? fixed(*e2e, 2) + " (" + fixed(*m, 2) + ")" : "-");
      }
      s.row(std::move(row));
    }
    out << s.str();
  } else {
    out << "\nper layer:\n";
    Table l({"layer", "MoE us", "imbalance", "busiest link", "link MB"}, "rrrrr");
    for (const auto& x : r.strategies.front().layers)
      l.row({std::to_string(x.layer), us(x.time_s), fixed(x.imbalance, 2), pct(x.link_utilisation),
             fixed(x.link_bytes / 1e6, 2)});
    out << l.str();
  }
  if (!r.hd.empty()) {
    out << "\nHD-MoE node balance (GLPK MILP, " << readable(cfg.hd_time_limit_s)
        << " s limit per layer):\n";
    Table h({"layer", "status", "gap", "s", "start", "chosen", "split experts", "sets (tokens)",
             "fit us", "linked us"},
            "llrrllrrrr");
    for (const auto& x : r.hd)
      h.row({std::to_string(x.layer), std::string(lp::to_string(x.status)),
             std::isfinite(x.gap) ? pct(x.gap) : "-", fixed(x.seconds, 2), x.warm_start, x.chosen,
             std::to_string(x.split_experts),
             std::to_string(x.sets) + " (" + pct(x.set_coverage) + ")", us(x.chosen_fit_s),
             us(x.linked_fit_s)});
    out << h.str();
  }
  return kExitOk;
}

}  // namespace

Command make_moe_command() {
  Command c;
  c.name = "moe";
  c.synopsis = "moe [PROJECT.json] [--trace FILE|DIR | --skew zipf:S] [--compare] [options]";
  c.summary = "MoE expert placement on a mesh: TP, EP, EPLB, balanced, HD-MoE, one simulator";
  c.description =
      "Places the routed experts of an MoE model on a 2D mesh of near-memory nodes with each\n"
      "strategy - TP, EP, DeepSeek's EPLB, the compute-balanced hybrid and HD-MoE's node\n"
      "balance (a GLPK MILP) - fitted on routing traces, and scores every one of them with the\n"
      "same discrete-event simulation of the MoE layer (dispatch, expert compute, combine; XY\n"
      "routing, per-link serialisation). Prints the MoE time per layer, the end-to-end time\n"
      "between tokens (with attention at --context), load imbalance (max/mean node compute) and\n"
      "the busiest link's utilisation; --compare prints speedups over TP, EP and balanced.\n"
      "Without PROJECT the builtin 'mixtral-hdmoe' project (HD-MoE's 4x8 mesh). With --trace\n"
      "alone each trace is fitted on its first half of tokens and scored on its second half.\n"
      "Mixtral-8x7B's routing on MT-Bench (HD-MoE's artifact, MIT) ships in data/mixtral-routing\n"
      "(installed: share/stackscope/data/mixtral-routing).\n"
      "Example: moe --trace data/mixtral-routing --fit-on math,coding\n"
      "         --eval-on writing,roleplay --compare";
  c.options = moe_options();
  c.run = run_moe;
  return c;
}

}  // namespace stackscope::cli
