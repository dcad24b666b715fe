// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HotSpot 6 interchange (the file formats of HotSpot's grid model, as documented in its README
// and example files), so a stack can be cross-checked against HotSpot:
//   .flp     one block per line: "name width height left-x bottom-y" in metres ('#' comments).
//   .lcf     layer configuration: per layer, 7 non-comment lines in this order: layer number,
//            lateral heat flow (Y/N), power dissipation (Y/N), specific heat capacity
//            (J/(m^3 K)), resistivity ((m K)/W), thickness (m), floorplan file. Layer 0 is the
//            farthest from the heat sink; the spreader and sink of the config file follow the
//            last layer.
//   .ptrace  a header line of block names, then one line of powers (W) per time step; the
//            steady state uses the average of all steps.
//   config   lines "-key value" ('#' comments): package (-s_sink, -t_sink, -k_sink,
//            -s_spreader, -t_spreader, -k_spreader, -t_interface, -k_interface, -r_convec),
//            -ambient in kelvin, -grid_rows/-grid_cols. Unknown keys are kept and reported.
// Errors are ConfigError issues whose path is "file:line".
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/thermal/solver.hpp"
#include "stackscope/thermal/stack.hpp"

namespace stackscope::io {

// The files as HotSpot writes them (units as in the files: SI, kelvin).
struct HotspotBlock {
  std::string name;
  double width_m = 0;
  double height_m = 0;
  double left_m = 0;
  double bottom_m = 0;
};

struct HotspotFloorplan {
  std::vector<HotspotBlock> blocks;
};

struct HotspotLayer {
  int number = 0;
  // Not a HotSpot field: write_hotspot puts "# name: NAME" before a layer's lines so a round
  // trip keeps layer names; without it a layer is named after its floorplan file's stem.
  std::string name;
  bool lateral = true;  // lateral heat flow (HotSpot ignores N in its grid model, as we do)
  bool power = false;   // dissipates power (its floorplan's blocks appear in the .ptrace)
  double heat_capacity_J_m3K = 1.75e6;
  double resistivity_mK_W = 0.01;  // 1 / conductivity
  double thickness_m = 150e-6;
  std::string floorplan_file;  // as written in the .lcf (relative to the .lcf's directory)
  int floorplan_line = 0;      // its line in the .lcf, for messages
};

struct HotspotPowerTrace {
  std::vector<std::string> names;
  std::vector<double> average_W;  // per name, mean over the steps
  std::size_t steps = 0;
  int header_line = 1;
};

// HotSpot's defaults (hotspot.config of HotSpot 6) for the keys we use.
struct HotspotConfig {
  double s_sink_m = 0.06;
  double t_sink_m = 6.9e-3;
  double k_sink_W_mK = 400;
  double s_spreader_m = 0.03;
  double t_spreader_m = 1e-3;
  double k_spreader_W_mK = 400;
  double p_sink_J_m3K = 3.55e6;
  double p_spreader_J_m3K = 3.55e6;
  double t_interface_m = 2e-5;
  double k_interface_W_mK = 4;
  double p_interface_J_m3K = 4e6;
  double t_chip_m = 0.15e-3;  // the chip layer of the 2D mode (no .lcf)
  double k_chip_W_mK = 100;
  double p_chip_J_m3K = 1.75e6;
  double r_convec_K_W = 0.1;
  double ambient_K = 318.15;
  int grid_rows = 64;
  int grid_cols = 64;
  bool has_grid = false;  // -grid_rows or -grid_cols given
  // Keys present but not used ("-init_temp", ...); the chip keys count as used only in 2D mode.
  std::vector<std::string> unused;
  std::vector<std::string> notes;                       // other warnings ("file:line: ...")
  std::map<std::string, std::string, std::less<>> raw;  // every key as given
};

// Parsers of one file's text; `source` names the file in messages ("file:line").
HotspotFloorplan parse_flp(std::string_view text, const std::string& source);
std::vector<HotspotLayer> parse_lcf(std::string_view text, const std::string& source);
HotspotPowerTrace parse_ptrace(std::string_view text, const std::string& source);
HotspotConfig parse_hotspot_config(std::string_view text, const std::string& source);

struct HotspotModel {
  thermal::StackModel stack;
  thermal::PowerMap power;
  int grid_rows = 64;  // from the config (-grid_rows/-grid_cols) or HotSpot's default
  int grid_cols = 64;
  bool has_grid = false;
  std::vector<std::string> warnings;  // config keys not used, ...
};

// Reads a HotSpot 3D case. .flp paths in the .lcf resolve against the .lcf's directory.
// Throws ConfigError (path "file:line") on unreadable or malformed input.
HotspotModel read_hotspot(const std::filesystem::path& config, const std::filesystem::path& lcf,
                          const std::filesystem::path& ptrace);
// HotSpot's 2D mode (no .lcf): one silicon layer with the floorplan (-t_chip, -k_chip,
// -p_chip of the config) and the thermal interface layer (-t_interface, -k_interface).
HotspotModel read_hotspot_2d(const std::filesystem::path& config, const std::filesystem::path& flp,
                             const std::filesystem::path& ptrace);

struct HotspotPaths {
  std::filesystem::path config, lcf, ptrace;
  std::vector<std::filesystem::path> floorplans;
};

// Writes <base>.config, <base>.lcf, <base>.ptrace (one line: steady state) and the .flp files
// into `dir` (created if missing), each atomically. HotSpot needs a floorplan on every layer and
// block names unique over the power layers, so a layer without a floorplan gets one block
// covering the chip (named after the layer), and power layers whose block names clash get their
// own copy of the floorplan with "<layer>." prefixed names. append_interface_layer becomes an
// explicit TIM layer. Throws ConfigError if power does not match the floorplans.
// The config also names the grid (-model_type grid, -grid_layer_file, -grid_rows/-grid_cols)
// so `hotspot -c <base>.config -f <any .flp> -p <base>.ptrace` runs it from inside `dir`.
HotspotPaths write_hotspot(const std::filesystem::path& dir, const std::string& base_name,
                           const thermal::StackModel& stack, const thermal::PowerMap& power,
                           int grid_rows = 64, int grid_cols = 64);

// The JSON form of a steady-state solution of a stack, as `thermal --json` prints it:
//   {"layers": [{"index", "name", "max_C", "mean_C", "min_C"}],
//    "hottest": {"layer", "block", "temperature_C"}, "grid": {"rows", "cols"},
//    "total_power_W", "ambient_C", "solve_seconds",
//    "compact_dram_peak_C" (when the evaluator's compact model gave one), "warnings": [...]}
// Temperatures in deg C, power in W. Indented by two spaces, no trailing newline.
std::string thermal_json(const HotspotModel& model, const thermal::Solution& solution,
                         std::optional<double> compact_dram_peak_C);

}  // namespace stackscope::io
