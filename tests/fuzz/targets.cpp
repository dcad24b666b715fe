// SPDX-License-Identifier: GPL-3.0-or-later
#include "targets.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stackscope/cli/command.hpp"
#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/hotspot.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/io/kernel_table_foreign.hpp"
#include "stackscope/io/moe_trace.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/io/silicon_sample.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/moe/stats.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/search/space.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/spec.hpp"

namespace stackscope::fuzz {
namespace {

const io::PresetRegistry& presets() {
  static const io::PresetRegistry registry = [] {
    io::PresetRegistry r;
    r.register_builtins();
    return r;
  }();
  return registry;
}

// Relative file references (routing traces) resolve here and are not found: a fuzz input must
// not make the target read whatever file a mutation names. Traces have their own target.
const std::filesystem::path kNoBaseDir = "/nonexistent/stackscope-fuzz";

// A scratch directory of this process for the readers that take a file, not a buffer.
const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("stackscope-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

void write_file(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

template <class F>
Outcome refused_on_config_error(F&& f) {
  try {
    f();
    return Outcome::accepted;
  } catch (const ConfigError&) {
    return Outcome::refused;
  }
}

// `stackscope-cli evaluate PROJECT.json` and `validate-project`: parse, validate and, when
// valid, evaluate once and write the --json document.
Outcome project_text(const std::string& text);
Outcome project(std::string_view input) {
  return project_text(std::string(input));
}

// `stackscope-cli search`: the search section and the checks of its space, no search run; the
// first point is decoded (the space's indexing) when there is one.
Outcome search_space(std::string_view input) {
  return refused_on_config_error([&] {
    io::SearchProject sp = io::parse_search_project(input, presets(), kNoBaseDir);
    const search::CompiledSpace space(std::move(sp.space));
    if (space.hardware_points() > 0 && space.inner_points(0) > 0)
      (void)space.decode(search::PointId{0, 0});
  });
}

Outcome hotspot_flp(std::string_view input) {
  return refused_on_config_error([&] { (void)io::parse_flp(input, "fuzz.flp"); });
}
Outcome hotspot_lcf(std::string_view input) {
  return refused_on_config_error([&] { (void)io::parse_lcf(input, "fuzz.lcf"); });
}
Outcome hotspot_ptrace(std::string_view input) {
  return refused_on_config_error([&] { (void)io::parse_ptrace(input, "fuzz.ptrace"); });
}
Outcome hotspot_config(std::string_view input) {
  return refused_on_config_error([&] { (void)io::parse_hotspot_config(input, "fuzz.config"); });
}

// A routing trace (the format of data/mixtral-routing) for Mixtral's 8 experts, read from a file as
// load_routing_trace does for a project's routing.trace, and token by token as
// io::load_moe_trace reads it for placements: what that accepts must pass moe::check (it throws
// std::invalid_argument otherwise, which escapes as a crash) and agree with the frequencies.
Outcome routing_trace(std::string_view input) {
  const auto file = scratch_dir() / "trace.json";
  write_file(file, input);
  workload::Routing routing;
  routing.trace = file.string();
  const Outcome frequencies =
      refused_on_config_error([&] { io::load_routing_trace(routing, 8, {}); });
  moe::RoutingTrace tokens;
  const Outcome ids = refused_on_config_error([&] { tokens = io::load_moe_trace(file, 8); });
  if (ids == Outcome::accepted) {
    if (frequencies != Outcome::accepted) std::abort();  // one file, two verdicts
    for (std::size_t l = 0; l < tokens.layers.size(); ++l) {
      const auto s = moe::layer_stats(tokens, l);
      for (std::size_t e = 0; e < 8; ++e)
        if (std::abs(s.frequency[e] - routing.expert_frequency.at(l).at(e)) > 1e-9) std::abort();
    }
  }
  // The outcome is the frequency reader's: it accepts tokens of varying k (a seed has them),
  // which the token reader refuses.
  return frequencies;
}

// A serving request trace (Azure or plain CSV, serving::parse_trace). What it accepts must hold
// the promises the simulator relies on: ids in order, arrivals finite, >= 0 and sorted, lengths
// >= 1.
Outcome request_trace(std::string_view input) {
  return refused_on_config_error([&] {
    const auto reqs = serving::parse_trace(input, "fuzz.csv");
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const auto& r = reqs[i];
      if (r.id != i || !std::isfinite(r.arrival_s) || r.arrival_s < 0 || r.input_tokens < 1 ||
          r.output_tokens < 1 || (i > 0 && r.arrival_s < reqs[i - 1].arrival_s))
        std::abort();
    }
  });
}

// The checks on any accepted kernel table: rows at all, each measured row answered by its
// lookup with a positive finite time, twice a decode row's context answered (held ratio) or
// refused but never a bad number, the leave-one-out check finite and ordered.
void check_kernels(const kernels::Table& table) {
  if (table.gemm.empty() && table.attention.empty()) std::abort();
  const auto good = [](std::optional<double> t) { return t && *t > 0 && std::isfinite(*t); };
  for (const auto& r : table.gemm)
    if (!(r.time_s > 0) || !good(kernels::gemm_time(table, r.precision, r.m, r.n, r.k)))
      std::abort();
  for (const auto& r : table.attention) {
    if (!(r.time_s > 0) || !(r.seq >= 1) || !(r.batch >= 1)) std::abort();
    const bool decode = r.kind == kernels::AttentionKind::decode;
    const auto t =
        decode ? kernels::decode_attention_time(table, r.precision, r.heads, r.batch, r.seq)
               : kernels::prefill_attention_time(table, r.precision, r.heads, r.batch, r.seq);
    if (!t || !good(t->time_s)) std::abort();
    if (decode) {
      const auto far =
          kernels::decode_attention_time(table, r.precision, r.heads, r.batch, 2 * r.seq);
      if (far && !good(far->time_s)) std::abort();
    }
  }
  const auto loo = kernels::leave_one_out(table);
  for (const auto& l : {loo.gemm, loo.decode_attention, loo.prefill_attention, loo.all})
    if (l.predicted > l.rows || !std::isfinite(l.p90) || l.median > l.max + 1e-12) std::abort();
}

// A measured kernel table, as `kernels FILE.csv` reads it: parse, then check_kernels.
Outcome kernel_table(std::string_view input) {
  return refused_on_config_error(
      [&] { check_kernels(io::parse_kernel_table(input, "fuzz.csv")); });
}

// AIConfigurator's silicon-sample CSV, as `validate FILE.csv` reads it: parse, then map every
// row onto the built-in presets (no simulation). A mapped row's workers must be valid designs
// with a positive concurrency and request count; an unmapped one must say why.
Outcome silicon_sample(std::string_view input) {
  static const validate::Catalog catalog = io::silicon_catalog(presets());
  return refused_on_config_error([&] {
    const auto rows = io::parse_silicon_sample(input, "fuzz.csv");
    for (const auto& row : rows) {
      if (row.isl < 1 || row.osl < 1 || !(row.ttft_ms > 0) || !(row.tpot_ms > 0)) std::abort();
      const validate::Case c = validate::map_row(row, catalog);
      if (c.unmapped.empty()) {
        if (c.workers.empty() || c.workers.size() > 2 || c.bench.concurrency < 1 ||
            c.bench.requests < 1 || c.bench.isl_min > c.bench.isl_max ||
            c.bench.osl_min > c.bench.osl_max)
          std::abort();
        for (const auto& w : c.workers)
          if (w.count < 1 || w.scheduler.max_num_seqs < 1) std::abort();
      } else if (!c.workers.empty()) {
        std::abort();
      }
    }
  });
}

// The validation envelope (presets/validation/envelope.json, validate --envelope-out): an
// accepted table writes back to one that reads the same, and every design matches it without
// throwing.
Outcome envelope(std::string_view input) {
  return refused_on_config_error([&] {
    const auto env = io::parse_envelope(input, "fuzz.json");
    const auto back = io::parse_envelope(io::envelope_json(env), "back.json");
    if (back.entries.size() != env.entries.size()) std::abort();
    for (std::size_t i = 0; i < env.entries.size(); ++i)
      if (back.entries[i].hardware != env.entries[i].hardware ||
          back.entries[i].ttft.rows != env.entries[i].ttft.rows)
        std::abort();
    (void)validate::match_envelope(env, presets().project("default"));
  });
}

// The points.jsonl reader of `search --resume`: each line through point_from_jsonl, and a line
// that parses must write back to the same record.
Outcome search_points(std::string_view input) {
  Outcome outcome = Outcome::refused;
  while (!input.empty()) {
    const auto eol = input.find('\n');
    const std::string_view line = input.substr(0, eol);
    input.remove_prefix(eol == std::string_view::npos ? input.size() : eol + 1);
    const auto p = io::point_from_jsonl(line);
    if (!p) continue;
    outcome = Outcome::accepted;
    (void)io::point_from_jsonl(io::point_to_jsonl(*p));
  }
  return outcome;
}

// The whole points.jsonl as `search --resume` reads it (io/search.hpp SearchLog::resume):
// header, point lines and watermarks, resumed as the log of an exhaustive search of 1,000 units
// in strata order. A resume that is taken keeps a watermark within the run and a format it
// reads; the rewritten log resumes again to the same state.
Outcome search_log(std::string_view input) {
  const auto dir = scratch_dir() / "search-log";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "points.jsonl", std::ios::binary);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  io::SearchLogHeader h{"0123456789abcdef", "exhaustive", 0, 0, 0, 1, "", "fedcba9876543210"};
  h.units = 1000;
  h.strata_order = true;
  const std::vector<search::Objective> objectives = {search::objective(search::Metric::stps),
                                                     search::objective(search::Metric::utps)};
  io::ResumeLimits limits;
  limits.units = h.units;
  limits.point_ok = [](const search::PointRecord& p) {
    return p.unit == p.id.hw && p.id.hw < 1000;
  };
  io::ResumeState first, again;
  const Outcome outcome = refused_on_config_error([&] {
    { io::SearchLog log = io::SearchLog::resume(dir, h, objectives, first, limits); }
    if (first.done_below > limits.units || first.format < 1 ||
        first.format > io::kSearchLogVersion)
      std::abort();
    { io::SearchLog log = io::SearchLog::resume(dir, h, objectives, again, limits); }
    if (again.done_below != first.done_below || again.strata_order != first.strata_order ||
        again.archive.size() != first.archive.size())
      std::abort();
  });
  std::filesystem::remove_all(dir);
  return outcome;
}

// Parse, validate and (valid only) evaluate a project text, as `evaluate` does.
Outcome project_text(const std::string& text) {
  perf::Design design;
  if (refused_on_config_error([&] { design = io::parse_project(text, presets(), kNoBaseDir); }) ==
      Outcome::refused)
    return Outcome::refused;
  if (!perf::validate(design).empty()) return Outcome::refused;
  const perf::Result result = perf::evaluate(design);
  (void)io::result_to_json(design, result);
  return Outcome::accepted;
}

// A wafer project (a project with a "wafer" section; hw/wafer.hpp, presets/wafers/), as
// `evaluate` and `serve` read it: parsed (the die grid fitted to the usable area, the die's area
// split), the layout's promises checked (dies = grid, yields in [0, 1], finite power, the die
// device a fixed point of die_hardware()), validated and evaluated.
Outcome wafer(std::string_view input) {
  perf::Design design;
  if (refused_on_config_error([&] { design = io::parse_project(input, presets(), kNoBaseDir); }) ==
      Outcome::refused)
    return Outcome::refused;
  if (!design.wafer) return Outcome::refused;
  const hw::WaferLayout layout = hw::wafer_layout(*design.wafer, design.hardware);
  if (layout.issues.empty()) {
    if (layout.dies != layout.dies_x * layout.dies_y || layout.usable_dies < 1 ||
        !(layout.die_yield >= 0 && layout.die_yield <= 1) ||
        !(layout.wafer_yield >= 0 && layout.wafer_yield <= 1) ||
        !std::isfinite(layout.tdp_W_per_die) || layout.tdp_W_per_die < 0)
      std::abort();
    if (io::hardware_to_json(hw::die_hardware(*design.wafer, design.hardware)) !=
        io::hardware_to_json(design.hardware))
      std::abort();
  }
  if (!perf::validate(design).empty()) return Outcome::refused;
  const perf::Result result = perf::evaluate(design);
  (void)io::result_to_json(design, result);
  return Outcome::accepted;
}

// The routed experts' placement ("parallel"/"experts": strategy, EPLB groups, HD-MoE's solver
// limits, link balance) of the Mixtral-on-HD-MoE-mesh project (presets/projects/
// mixtral-hdmoe.json): the input is the section's value.
Outcome experts(std::string_view input) {
  std::string text =
      R"({"schema_version": 2, "name": "fuzz experts", "hardware": "hdmoe-node",
          "system": "hdmoe-mesh-4x8", "model": "mixtral-8x7b",
          "workload": {"batch": 16, "batch_auto": false, "input_len": 256, "output_len": 32,
                       "numerics": {"weights": "fp8", "activations": "fp8", "kv_cache": "fp8"},
                       "routing": {"kind": "zipf", "zipf_s": 1.2, "seed": 1}},
          "parallel": {"tp": 4, "pp": 1, "dp": 1, "ep": 8, "experts": )";
  text.append(input);
  text += "}}";
  return project_text(text);
}

// A project's "serving" section (io/serving.hpp), as `serve PROJECT` reads it: parsed and
// checked by serving::validate(); a valid spec must write back to text that reads back equal,
// and a benchmark or generated stream of up to 4096 requests is built and must keep the
// simulator's promises (ids in order, arrivals finite, >= 0 and sorted, lengths >= 1).
Outcome serving(std::string_view input) {
  return refused_on_config_error([&] {
    const auto spec = io::parse_serving_section(input, kNoBaseDir);
    if (!spec) throw ConfigError({{"/serving", "no serving section", "", "an object"}});
    const auto issues = serving::validate(*spec);
    if (!issues.empty()) throw ConfigError(issues);
    const std::string written = "{\"serving\": " + io::serving_section_to_json(*spec) + "}";
    const auto again = io::parse_serving_section(written, kNoBaseDir);
    if (!again || !(*again == *spec)) std::abort();  // a valid spec must round-trip
    if (spec->source == serving::SourceKind::trace || spec->requests > 4096) return;
    const auto reqs = serving::build_requests(*spec);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const auto& r = reqs[i];
      if (r.id != i || !std::isfinite(r.arrival_s) || r.arrival_s < 0 || r.input_tokens < 1 ||
          r.output_tokens < 1 || (i > 0 && r.arrival_s < reqs[i - 1].arrival_s))
        std::abort();
    }
  });
}

// A co-exploration project (io/coexplore.hpp), as `search PROJECT` reads it before running:
// parsed, the space compiled (points counted before anything is expanded) and its first point
// decoded; the fingerprint of a parsed space is stable.
Outcome coexplore(std::string_view input) {
  return refused_on_config_error([&] {
    io::CoexploreProject p = io::parse_coexplore_project(input, presets(), kNoBaseDir);
    const std::string fingerprint = io::coexplore_fingerprint(p.space);
    const coexplore::CompiledSpace space(std::move(p.space));
    if (io::coexplore_fingerprint(space.space()) != fingerprint) std::abort();
    if (space.size() > 0) (void)space.decode(0);
  });
}

// The CLI's option parsing: the input is one command line, a word per line. Commands that only
// read and print (evaluate, collective, dram, presets, validate-project, help, --version) run
// in-process; for the others the words go through their option table and number parsers only
// (running them is the other targets' and the CLI tests' business). Exit 3 ("error: internal")
// is a finding: every user mistake must be a named `error:` line with exit 2. Words that name
// a path ('/') or an output option are not run: a mutant must not write or read where it likes.
Outcome cli_options(std::string_view input) {
  static const cli::CommandRegistry registry = [] {
    cli::CommandRegistry r;
    cli::register_builtins(r);
    return r;
  }();
  std::vector<std::string> words;
  for (std::size_t start = 0; start <= input.size() && words.size() <= 64;) {
    const auto eol = std::min(input.find('\n', start), input.size());
    words.emplace_back(input.substr(start, eol - start));
    start = eol + 1;
  }
  if (words.empty() || words.size() > 64) return Outcome::refused;
  for (const auto& w : words)
    if (w.find('/') != std::string::npos || w.find('\\') != std::string::npos ||
        w.rfind("--out", 0) == 0 || w.rfind("--per-request", 0) == 0 ||
        w.rfind("--write", 0) == 0 || w.rfind("--mpi", 0) == 0 || w.rfind("--threads", 0) == 0)
      return Outcome::refused;
  static const std::array kRun = {std::string_view("evaluate"),
                                  std::string_view("collective"),
                                  std::string_view("dram"),
                                  std::string_view("presets"),
                                  std::string_view("validate-project"),
                                  std::string_view("help"),
                                  std::string_view("--version"),
                                  std::string_view("--help")};
  const bool runs = std::find(kRun.begin(), kRun.end(), words.front()) != kRun.end();
  if (runs) {
    std::ostringstream out, err;
    const int rc = cli::run(registry, words, out, err);
    if (rc == cli::kExitInternal) std::abort();
    if (rc != cli::kExitOk && err.str().find("error: ") == std::string::npos) std::abort();
    return rc == cli::kExitOk ? Outcome::accepted : Outcome::refused;
  }
  const cli::Command* command = registry.find(words.front());
  if (!command) return Outcome::refused;
  try {
    (void)cli::parse_args(command->name, std::span(words).subspan(1), command->options, 4);
    return Outcome::accepted;
  } catch (const cli::CliError&) {
    return Outcome::refused;
  }
}

// The checks every foreign kernel-table target makes on an accepted table: as many rows as its
// report counts, every left-out reason counted at a line, then check_kernels.
void check_foreign_kernels(const kernels::Table& table, const io::FileReport& report) {
  if (report.gemm != table.gemm.size() || report.decode + report.prefill != table.attention.size())
    std::abort();
  for (const auto& s : report.skipped)
    if (s.rows < 1 || s.first_line < 2 || s.reason.empty()) std::abort();
  check_kernels(table);
}

template <class Parse>
Outcome foreign_kernels(Parse parse) {
  return refused_on_config_error([&] {
    io::FileReport report;
    const auto table = parse(&report);
    check_foreign_kernels(table, report);
  });
}

Outcome either(Outcome a, Outcome b) {
  return a == Outcome::accepted || b == Outcome::accepted ? Outcome::accepted : Outcome::refused;
}

// AIConfigurator's gemm_perf, with fp8 rows as fp8 and with fp8_block rows standing for them.
Outcome aic_gemm(std::string_view input) {
  io::AicOptions block;
  block.fp8_block_as_fp8 = true;
  return either(foreign_kernels([&](io::FileReport* r) {
                  return io::parse_aic_gemm_perf(input, "fuzz.csv", r);
                }),
                foreign_kernels([&](io::FileReport* r) {
                  return io::parse_aic_gemm_perf(input, "fuzz.csv", r, block);
                }));
}

// AIConfigurator's generation and context attention tables (the same columns; an op_name
// column refuses the other reader).
Outcome aic_attention(std::string_view input) {
  return either(foreign_kernels([&](io::FileReport* r) {
                  return io::parse_aic_generation_attention(input, "fuzz.csv", r);
                }),
                foreign_kernels([&](io::FileReport* r) {
                  return io::parse_aic_context_attention(input, "fuzz.csv", r);
                }));
}

// Vidur's mlp.csv: four projections a row mapped onto GEMMs.
Outcome vidur_mlp(std::string_view input) {
  return foreign_kernels(
      [&](io::FileReport* r) { return io::parse_vidur_mlp(input, "fuzz.csv", r); });
}

// Vidur's attention.csv: decode and prefill rows.
Outcome vidur_attention(std::string_view input) {
  return foreign_kernels(
      [&](io::FileReport* r) { return io::parse_vidur_attention(input, "fuzz.csv", r); });
}

// Any kernel table, as `load_kernel_tables` reads a file: the layout detected from the header,
// then that layout's reader.
Outcome kernel_tables(std::string_view input) {
  return foreign_kernels(
      [&](io::FileReport* r) { return io::parse_any_kernel_table(input, "fuzz.csv", r); });
}

constexpr std::array kTargets = {
    Target{"project", project},
    Target{"search_space", search_space},
    Target{"hotspot_flp", hotspot_flp},
    Target{"hotspot_lcf", hotspot_lcf},
    Target{"hotspot_ptrace", hotspot_ptrace},
    Target{"hotspot_config", hotspot_config},
    Target{"routing_trace", routing_trace},
    Target{"search_points", search_points},
    Target{"search_log", search_log},
    Target{"request_trace", request_trace},
    Target{"silicon_sample", silicon_sample},
    Target{"kernel_table", kernel_table},
    Target{"envelope", envelope},
    Target{"coexplore", coexplore},
    Target{"wafer", wafer},
    Target{"serving", serving},
    Target{"experts", experts},
    Target{"cli_options", cli_options},
    Target{"aic_gemm", aic_gemm},
    Target{"aic_attention", aic_attention},
    Target{"vidur_mlp", vidur_mlp},
    Target{"vidur_attention", vidur_attention},
    Target{"kernel_tables", kernel_tables},
};

}  // namespace

std::span<const Target> targets() {
  return kTargets;
}

const Target* find_target(std::string_view name) {
  const auto it = std::find_if(kTargets.begin(), kTargets.end(),
                               [&](const Target& t) { return t.name == name; });
  return it == kTargets.end() ? nullptr : &*it;
}

}  // namespace stackscope::fuzz
