// SPDX-License-Identifier: GPL-3.0-or-later
#include "targets.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/hotspot.hpp"
#include "stackscope/io/moe_trace.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/moe/stats.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/search/space.hpp"
#include "stackscope/serving/request.hpp"

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
Outcome project(std::string_view input) {
  perf::Design design;
  if (refused_on_config_error([&] { design = io::parse_project(input, presets(), kNoBaseDir); }) ==
      Outcome::refused)
    return Outcome::refused;
  if (!perf::validate(design).empty()) return Outcome::refused;
  const perf::Result result = perf::evaluate(design);
  (void)io::result_to_json(design, result);
  return Outcome::accepted;
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

constexpr std::array kTargets = {
    Target{"project", project},
    Target{"search_space", search_space},
    Target{"hotspot_flp", hotspot_flp},
    Target{"hotspot_lcf", hotspot_lcf},
    Target{"hotspot_ptrace", hotspot_ptrace},
    Target{"hotspot_config", hotspot_config},
    Target{"routing_trace", routing_trace},
    Target{"search_points", search_points},
    Target{"request_trace", request_trace},
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
