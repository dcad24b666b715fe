// SPDX-License-Identifier: GPL-3.0-or-later
// `thermal`: steady-state temperatures of a layer stack read from HotSpot files, or derived
// from a project's design and its decode-phase activity (perf::thermal_model).
#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/hotspot.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/thermal_map.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/thermal/solver.hpp"

namespace stackscope::cli {
namespace {

constexpr int kMaxGrid = 1024;

std::vector<OptionSpec> thermal_options() {
  return {
      {"--hotspot", "CONFIG LCF PTRACE", "HotSpot config, .lcf (a .flp: 2D mode) and .ptrace"},
      {"--grid", "R C", "grid size (default: the config's -grid_rows/-grid_cols, or 64 64)"},
      {"--json", "", "print the result as JSON"},
      {"--write-hotspot", "DIR", "PROJECT form: also write the stack as HotSpot files to DIR"},
      {"--help", "", "show this help"},
  };
}

// --hotspot and --grid take several values; parse_args sees them as flags once their values
// are taken out here.
struct Split {
  std::vector<std::string> rest;
  std::vector<std::string> hotspot, grid;
};

Split split_multi(std::span<const std::string> args) {
  Split s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::vector<std::string>* dest = a == "--hotspot" ? &s.hotspot
                                     : a == "--grid"  ? &s.grid
                                                      : nullptr;
    s.rest.push_back(a);
    if (dest == nullptr) continue;
    const std::size_t n = dest == &s.hotspot ? 3 : 2;
    if (!dest->empty()) throw CliError("thermal: option " + a + " given more than once");
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= args.size() || args[i + k].rfind("--", 0) == 0) {
        throw CliError("thermal: option " + a + " needs " + std::to_string(n) + " values (" +
                       (n == 3 ? "CONFIG LCF PTRACE" : "R C") + ")");
      }
      dest->push_back(args[i + k]);
    }
    i += n;
  }
  return s;
}

int run_thermal(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> parse_spec = {{"--hotspot", "", ""},
                                                     {"--grid", "", ""},
                                                     {"--json", "", ""},
                                                     {"--help", "", ""},
                                                     {"--write-hotspot", "DIR", ""}};
  const Split split = split_multi(args);
  const ParsedArgs a = parse_args("thermal", split.rest, parse_spec, 1);
  if (a.has("--help")) {
    print_command_help(make_thermal_command(), ctx.out);
    return kExitOk;
  }
  if (!a.positional.empty() && !split.hotspot.empty()) {
    throw CliError("thermal: give either PROJECT.json or --hotspot CONFIG LCF PTRACE, not both");
  }
  if (a.positional.empty() && split.hotspot.empty()) {
    throw CliError("thermal: a PROJECT.json or --hotspot CONFIG LCF PTRACE is required");
  }
  if (a.has("--write-hotspot") && a.positional.empty()) {
    throw CliError("thermal: --write-hotspot needs the PROJECT.json form");
  }
  io::HotspotModel m;
  std::optional<perf::Result> result;  // PROJECT form: the evaluation the stack came from
  if (!a.positional.empty()) {
    const std::filesystem::path file = a.positional.front();
    std::error_code ec;
    // A directory, FIFO or device is refused by load_project, before it reads a byte.
    if (!std::filesystem::exists(file, ec)) {
      throw CliError("thermal: cannot read project file '" + file.string() +
                     "' (allowed: a project JSON file, or --hotspot CONFIG LCF PTRACE)");
    }
    const perf::Design design = io::load_project(file, ctx.presets);
    if (const auto issues = perf::validate(design); !issues.empty()) {
      print_issues(ctx.err, issues);
      return kExitBadInput;
    }
    result = perf::evaluate(design);
    perf::ThermalDesign td = perf::thermal_model(design, *result);
    m.stack = std::move(td.stack);
    m.power = std::move(td.power);
    if (design.hardware.memory.kind != hw::MemoryKind::stacked_3d) {
      m.warnings.push_back(
          "memory is not stacked_3d: the stack is the logic die only (its "
          "DRAM sits beside the die and is not modelled)");
    }
  } else {
    const std::filesystem::path middle = split.hotspot[1];
    m = middle.extension() == ".flp"
            ? io::read_hotspot_2d(split.hotspot[0], middle, split.hotspot[2])
            : io::read_hotspot(split.hotspot[0], middle, split.hotspot[2]);
  }

  thermal::GridOptions opt;
  opt.rows = m.grid_rows;
  opt.cols = m.grid_cols;
  if (!split.grid.empty()) {
    opt.rows = static_cast<int>(parse_int("--grid", split.grid[0], 1, kMaxGrid));
    opt.cols = static_cast<int>(parse_int("--grid", split.grid[1], 1, kMaxGrid));
  }
  thermal::Solution s;
  try {
    s = thermal::solve_steady(m.stack, m.power, opt);
  } catch (const std::invalid_argument& e) {
    throw CliError(std::string("thermal: ") + e.what());
  }
  for (const auto& w : m.warnings) ctx.err << "warning: " << w << "\n";
  if (a.has("--write-hotspot")) {
    const std::filesystem::path dir = *a.get("--write-hotspot");
    io::make_output_dir(dir, "--write-hotspot");
    try {
      io::write_hotspot(dir, "stack", m.stack, m.power, opt.rows, opt.cols);
    } catch (const io::OutputError& e) {
      throw CliError("--write-hotspot: " + format_issues(e.issues()));
    }
  }

  if (a.has("--json")) {
    std::optional<double> dram_peak;
    if (result) dram_peak = result->thermal.dram_peak_C;
    ctx.out << io::thermal_json(m, s, dram_peak) << "\n";
    return kExitOk;
  }

  ctx.out << "stack        " << m.stack.layers.size() << " layers, "
          << fixed(m.stack.chip_width_m * 1e3, 2) << " x " << fixed(m.stack.chip_height_m * 1e3, 2)
          << " mm, " << readable(s.total_power_W) << " W, ambient "
          << fixed(m.stack.package.ambient_C, 2) << " deg C\n"
          << "grid         " << s.rows << " x " << s.cols << " (solved in "
          << fixed(s.solve_seconds * 1e3, 1) << " ms)\n\n";
  Table t({"layer", "name", "max C", "mean C", "min C"}, "rl");
  for (std::size_t l = 0; l < s.layers.size(); ++l) {
    const auto& st = s.layers[l];
    t.row(
        {std::to_string(l), st.name, fixed(st.max_C, 2), fixed(st.mean_C, 2), fixed(st.min_C, 2)});
  }
  ctx.out << t.str();
  if (s.hottest.layer >= 0) {
    ctx.out << "\nhottest      " << s.hottest.block << " on layer " << s.hottest.layer << " ("
            << s.layers[static_cast<std::size_t>(s.hottest.layer)].name
            << "): " << fixed(s.hottest.max_C, 2) << " deg C\n";
  }
  if (result && result->thermal.modelled) {
    ctx.out << "compact      DRAM peak " << fixed(result->thermal.dram_peak_C, 2)
            << " deg C (R_base " << fixed(result->thermal.r_base_K_per_W, 4) << " + R_layer "
            << fixed(result->thermal.r_layer_K_per_W, 4) << " x L K/W at the decode power "
            << readable(result->power.total_W) << " W)\n";
  }
  return kExitOk;
}

}  // namespace

Command make_thermal_command() {
  Command c;
  c.name = "thermal";
  c.synopsis =
      "thermal (PROJECT.json [--write-hotspot DIR] | --hotspot CONFIG LCF PTRACE) [--grid R C] "
      "[--json]";
  c.summary = "steady-state temperatures of a layer stack (HotSpot files or a project)";
  c.description =
      "Reads a HotSpot 6 case (config file, .lcf layer configuration with its .flp floorplans,\n"
      ".ptrace power trace averaged to steady state), solves the thermal grid model and prints\n"
      "each layer's max/mean/min temperature in deg C in .lcf order, and the hottest block.\n"
      "Config keys it does not use are reported as warnings on stderr.\n"
      "With PROJECT.json it evaluates the design and derives the stack (logic die, then bond\n"
      "and DRAM layers for stacked_3d memory, then TIM), floorplans (core grid + uncore strip;\n"
      "one block per DRAM channel) and power from the decode phase; it also prints the\n"
      "compact model's DRAM peak for comparison (JSON: compact_dram_peak_C).";
  c.options = thermal_options();
  c.run = run_thermal;
  return c;
}

}  // namespace stackscope::cli
