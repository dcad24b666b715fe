// SPDX-License-Identifier: GPL-3.0-or-later
// HotSpot 6 file formats (HotSpot README, "Floorplan file format", "Layer configuration file"
// and "Power trace file" sections, and the example.flp/.lcf/.ptrace/hotspot.config it ships).
#include "stackscope/io/hotspot.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "sections.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"

namespace stackscope::io {
namespace {

struct Line {
  int number = 0;  // 1-based line in the file
  std::vector<std::string> fields;
  std::string name_note;  // NAME of a "# name: NAME" comment line right before this line
};

constexpr std::string_view kNameNote = "# name:";

[[noreturn]] void fail(const std::string& where, std::string message, std::string value = {},
                       std::string allowed = {}) {
  throw ConfigError({Issue{where, std::move(message), std::move(value), std::move(allowed)}});
}

// Shortest text that reads back to the same double (std::to_chars round-trip guarantee).
std::string num(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string at(const std::string& source, int line) {
  return source + ":" + std::to_string(line);
}

// Calls `take(Line&&)` for each non-blank line with '#' comments removed, split on whitespace
// (HotSpot reads with fscanf, so tabs and repeated spaces are separators). Streams: a long
// power trace is never held as fields all at once.
template <class Take>
void for_each_line(std::string_view text, Take take) {
  int number = 0;
  std::size_t pos = 0;
  std::string note;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    ++number;
    if (raw.substr(0, kNameNote.size()) == kNameNote) {
      std::string_view n = raw.substr(kNameNote.size());
      while (!n.empty() && std::isspace(static_cast<unsigned char>(n.front()))) n.remove_prefix(1);
      while (!n.empty() && std::isspace(static_cast<unsigned char>(n.back()))) n.remove_suffix(1);
      note = std::string(n);
    }
    if (const auto hash = raw.find('#'); hash != std::string_view::npos) raw = raw.substr(0, hash);
    Line line{number, {}, {}};
    std::size_t i = 0;
    while (i < raw.size()) {
      while (i < raw.size() && std::isspace(static_cast<unsigned char>(raw[i]))) ++i;
      std::size_t j = i;
      while (j < raw.size() && !std::isspace(static_cast<unsigned char>(raw[j]))) ++j;
      if (j > i) line.fields.emplace_back(raw.substr(i, j - i));
      i = j;
    }
    if (!line.fields.empty()) {
      line.name_note = std::move(note);
      note.clear();
      take(std::move(line));
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
}

std::vector<Line> tokenise(std::string_view text) {
  std::vector<Line> lines;
  for_each_line(text, [&](Line&& line) { lines.push_back(std::move(line)); });
  return lines;
}

// More than `limit` items of a kind in one file.
[[noreturn]] void too_many(const std::string& where, const std::string& what, std::size_t limit) {
  fail(where, "more than " + std::to_string(limit) + " " + what, {},
       "at most " + std::to_string(limit) + " " + what + " (io/limits.hpp)");
}

double number(const std::string& where, std::string_view what, const std::string& text) {
  double v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || !std::isfinite(v)) {
    fail(where, std::string(what) + ": not a number", "'" + text + "'", "a finite number");
  }
  return v;
}

double positive(const std::string& where, std::string_view what, const std::string& text) {
  const double v = number(where, what, text);
  if (!(v > 0)) fail(where, std::string(what) + ": out of range", text, "> 0");
  return v;
}

double non_negative(const std::string& where, std::string_view what, const std::string& text) {
  const double v = number(where, what, text);
  if (v < 0) fail(where, std::string(what) + ": out of range", text, ">= 0");
  return v;
}

bool yes_no(const std::string& where, std::string_view what, const std::string& text) {
  if (text == "Y" || text == "y") return true;
  if (text == "N" || text == "n") return false;
  fail(where, std::string(what) + ": expected Y or N", "'" + text + "'", "Y, N");
}

// The whole file, refused before reading if it is not a regular file or larger than the
// format's limit (a FIFO or /dev/zero in place of a file must not block or fill memory).
std::string read_text(const std::filesystem::path& file, std::string_view what,
                      std::size_t max_bytes = limits::kMaxHotspotFileBytes) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    fail(file.string(), "cannot read " + std::string(what) + " file", {},
         "an existing, readable file");
  }
  return detail::read_text_file(file, file.string(), max_bytes);
}

}  // namespace

HotspotFloorplan parse_flp(std::string_view text, const std::string& source) {
  HotspotFloorplan fp;
  std::vector<int> line_of;  // per block
  std::unordered_set<std::string> names;
  for (const Line& line : tokenise(text)) {
    const std::string where = at(source, line.number);
    if (fp.blocks.size() == limits::kMaxHotspotBlocks)
      too_many(where, "floorplan blocks", limits::kMaxHotspotBlocks);
    // HotSpot 6 accepts two optional trailing columns (per-block specific heat and
    // resistivity); the grid model here uses the layer's material, so they are read and dropped.
    if (line.fields.size() != 5 && line.fields.size() != 7) {
      fail(where, "floorplan line: wrong number of columns", std::to_string(line.fields.size()),
           "5: name width height left-x bottom-y (m), or 7 with specific heat and resistivity");
    }
    HotspotBlock b;
    b.name = line.fields[0];
    b.width_m = positive(where, "width", line.fields[1]);
    b.height_m = positive(where, "height", line.fields[2]);
    b.left_m = non_negative(where, "left-x", line.fields[3]);
    b.bottom_m = non_negative(where, "bottom-y", line.fields[4]);
    if (line.fields.size() == 7) {
      positive(where, "specific heat", line.fields[5]);
      positive(where, "resistivity", line.fields[6]);
    }
    if (!names.insert(b.name).second)
      fail(where, "duplicate block name", "'" + b.name + "'", "unique");
    fp.blocks.push_back(std::move(b));
    line_of.push_back(line.number);
  }
  if (fp.blocks.empty()) fail(source, "floorplan has no blocks", {}, "at least one block");
  thermal::Floorplan shape;
  for (const auto& b : fp.blocks)
    shape.blocks.push_back(thermal::Block{{}, b.width_m, b.height_m, b.left_m, b.bottom_m});
  if (const auto o = thermal::find_overlap(shape)) {
    const auto& a = fp.blocks[o->first];
    const auto& b = fp.blocks[o->second];
    fail(at(source, line_of[o->second]),
         "blocks '" + a.name + "' (line " + std::to_string(line_of[o->first]) + ") and '" + b.name +
             "' overlap by " + num(o->width_m) + " x " + num(o->height_m) + " m",
         {}, "blocks that tile the chip without overlapping (touching edges are fine)");
  }
  return fp;
}

std::vector<HotspotLayer> parse_lcf(std::string_view text, const std::string& source) {
  const std::vector<Line> lines = tokenise(text);
  std::vector<HotspotLayer> layers;
  constexpr std::size_t kPerLayer = 7;
  for (std::size_t i = 0; i < lines.size(); i += kPerLayer) {
    if (layers.size() == limits::kMaxHotspotLayers)
      too_many(at(source, lines[i].number), "layers", limits::kMaxHotspotLayers);
    if (i + kPerLayer > lines.size()) {
      fail(at(source, lines[i].number),
           "incomplete layer: " + std::to_string(lines.size() - i) + " of 7 lines", {},
           "layer number, lateral Y/N, power Y/N, specific heat, resistivity, thickness, "
           "floorplan file");
    }
    for (std::size_t k = 0; k < kPerLayer; ++k) {
      if (lines[i + k].fields.size() != 1) {
        fail(at(source, lines[i + k].number), "layer line: wrong number of columns",
             std::to_string(lines[i + k].fields.size()), "1 value per line");
      }
    }
    auto field = [&](std::size_t k) -> const std::string& { return lines[i + k].fields[0]; };
    auto where = [&](std::size_t k) { return at(source, lines[i + k].number); };
    HotspotLayer l;
    const double n = number(where(0), "layer number", field(0));
    if (n != static_cast<double>(layers.size())) {
      fail(where(0), "layer number out of sequence", field(0),
           std::to_string(layers.size()) + " (layers are numbered 0, 1, ... in order)");
    }
    l.number = static_cast<int>(n);
    l.name = lines[i].name_note;
    l.lateral = yes_no(where(1), "lateral heat flow", field(1));
    l.power = yes_no(where(2), "power dissipation", field(2));
    l.heat_capacity_J_m3K = positive(where(3), "specific heat capacity", field(3));
    l.resistivity_mK_W = positive(where(4), "resistivity", field(4));
    l.thickness_m = positive(where(5), "thickness", field(5));
    l.floorplan_file = field(6);
    l.floorplan_line = lines[i + 6].number;
    layers.push_back(std::move(l));
  }
  if (layers.empty()) fail(source, "layer configuration has no layers", {}, "at least one layer");
  return layers;
}

HotspotPowerTrace parse_ptrace(std::string_view text, const std::string& source) {
  HotspotPowerTrace t;
  bool header = true;
  for_each_line(text, [&](Line&& line) {
    const std::string where = at(source, line.number);
    if (header) {
      header = false;
      if (line.fields.size() > limits::kMaxPtraceColumns)
        too_many(where, "power trace columns", limits::kMaxPtraceColumns);
      std::unordered_set<std::string_view> seen;
      for (const auto& name : line.fields)
        if (!seen.insert(name).second)
          fail(where, "duplicate block name", "'" + name + "'", "unique");
      t.names = std::move(line.fields);
      t.header_line = line.number;
      t.average_W.assign(t.names.size(), 0.0);
      return;
    }
    if (line.fields.size() != t.names.size()) {
      fail(where, "power line: wrong number of columns", std::to_string(line.fields.size()),
           std::to_string(t.names.size()) + " (one per block in the header)");
    }
    for (std::size_t c = 0; c < t.names.size(); ++c) {
      t.average_W[c] += non_negative(where, "power of " + t.names[c], line.fields[c]);
    }
    ++t.steps;
  });
  if (header) fail(source, "power trace is empty", {}, "a header line of block names");
  if (t.steps == 0) fail(source, "power trace has no power lines", {}, "at least one time step");
  for (double& p : t.average_W) p /= static_cast<double>(t.steps);
  return t;
}

HotspotConfig parse_hotspot_config(std::string_view text, const std::string& source) {
  HotspotConfig c;
  std::map<std::string, int, std::less<>> line_of;
  for (const Line& line : tokenise(text)) {
    const std::string where = at(source, line.number);
    if (line_of.size() == limits::kMaxHotspotConfigKeys)
      too_many(where, "config keys", limits::kMaxHotspotConfigKeys);
    if (line.fields.size() != 2 || line.fields[0].size() < 2 || line.fields[0][0] != '-') {
      fail(where, "config line: expected '-key value'",
           std::to_string(line.fields.size()) + " field(s)", "-key value");
    }
    const std::string key = line.fields[0].substr(1);
    if (line_of.count(key) != 0) fail(where, "duplicate key", "-" + key, "each key once");
    line_of[key] = line.number;
    c.raw[key] = line.fields[1];
  }
  auto take = [&](std::string_view key, double& out, bool allow_zero) {
    const auto it = c.raw.find(key);
    if (it == c.raw.end()) return false;
    const std::string where = at(source, line_of.find(key)->second);
    const std::string what = "-" + std::string(key);
    out = allow_zero ? non_negative(where, what, it->second) : positive(where, what, it->second);
    return true;
  };
  take("s_sink", c.s_sink_m, false);
  take("t_sink", c.t_sink_m, false);
  take("k_sink", c.k_sink_W_mK, false);
  take("s_spreader", c.s_spreader_m, false);
  take("t_spreader", c.t_spreader_m, false);
  take("k_spreader", c.k_spreader_W_mK, false);
  take("p_sink", c.p_sink_J_m3K, false);
  take("p_spreader", c.p_spreader_J_m3K, false);
  take("t_interface", c.t_interface_m, false);
  take("k_interface", c.k_interface_W_mK, false);
  take("p_interface", c.p_interface_J_m3K, false);
  take("t_chip", c.t_chip_m, false);
  take("k_chip", c.k_chip_W_mK, false);
  take("p_chip", c.p_chip_J_m3K, false);
  take("r_convec", c.r_convec_K_W, false);
  take("ambient", c.ambient_K, false);
  for (const char* key : {"grid_rows", "grid_cols"}) {
    double v = 0;
    if (!take(key, v, false)) continue;
    const std::string where = at(source, line_of.find(key)->second);
    if (v != std::floor(v) || v > limits::kMaxHotspotGrid) {
      fail(where, "-" + std::string(key) + ": out of range", c.raw.find(key)->second,
           "integer in [1, " + std::to_string(limits::kMaxHotspotGrid) + "]");
    }
    (std::string_view(key) == "grid_rows" ? c.grid_rows : c.grid_cols) = static_cast<int>(v);
    c.has_grid = true;
  }
  // StackScope solves HotSpot's grid model; the block model's answer would differ.
  if (const auto it = c.raw.find("model_type"); it != c.raw.end() && it->second != "grid") {
    c.notes.push_back(at(source, line_of.find("model_type")->second) + ": -model_type " +
                      it->second + ": solving the grid model instead");
  }
  // The chip keys (-t_chip, -k_chip, -p_chip) are used by read_hotspot_2d only; the .lcf is
  // given explicitly, so -grid_layer_file only documents it.
  static constexpr std::string_view kUsed[] = {
      "s_sink",     "t_sink",     "k_sink",      "p_sink",          "s_spreader",  "t_spreader",
      "k_spreader", "p_spreader", "t_interface", "k_interface",     "p_interface", "r_convec",
      "ambient",    "grid_rows",  "grid_cols",   "grid_layer_file", "model_type"};
  for (const auto& [key, value] : c.raw) {
    if (std::find(std::begin(kUsed), std::end(kUsed), key) == std::end(kUsed)) {
      c.unused.push_back("-" + key);
    }
  }
  return c;
}

namespace {

constexpr double kZeroCelsius_K = 273.15;

thermal::Package package_of(const HotspotConfig& c) {
  thermal::Package p;
  p.ambient_C = c.ambient_K - kZeroCelsius_K;
  p.r_convec_K_per_W = c.r_convec_K_W;
  p.s_sink_m = c.s_sink_m;
  p.t_sink_m = c.t_sink_m;
  p.k_sink_W_per_mK = c.k_sink_W_mK;
  p.c_sink_J_per_m3K = c.p_sink_J_m3K;
  p.s_spreader_m = c.s_spreader_m;
  p.t_spreader_m = c.t_spreader_m;
  p.k_spreader_W_per_mK = c.k_spreader_W_mK;
  p.c_spreader_J_per_m3K = c.p_spreader_J_m3K;
  p.t_interface_m = c.t_interface_m;
  p.k_interface_W_per_mK = c.k_interface_W_mK;
  p.c_interface_J_per_m3K = c.p_interface_J_m3K;
  return p;
}

thermal::Floorplan floorplan_of(const HotspotFloorplan& f) {
  thermal::Floorplan fp;
  for (const auto& b : f.blocks) {
    fp.blocks.push_back(thermal::Block{b.name, b.width_m, b.height_m, b.left_m, b.bottom_m});
  }
  return fp;
}

// The chip is the bounding box of all floorplans (HotSpot requires every layer's floorplan to
// cover the same chip outline).
void set_chip_extent(thermal::StackModel& stack) {
  double w = 0, h = 0;
  for (const auto& fp : stack.floorplans) {
    const thermal::Extent e = thermal::floorplan_extent(fp);
    w = std::max(w, e.width_m);
    h = std::max(h, e.height_m);
  }
  if (w > 0 && h > 0) {
    stack.chip_width_m = w;
    stack.chip_height_m = h;
  }
}

// Averaged .ptrace powers to per-layer block powers. Blocks of power layers that the trace
// does not list dissipate nothing (reported as a warning).
thermal::PowerMap power_of(const thermal::StackModel& stack, const HotspotPowerTrace& trace,
                           const std::string& source, std::vector<std::string>& warnings) {
  thermal::PowerMap power(stack.layers.size());
  std::vector<std::vector<bool>> seen(stack.layers.size());
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    const auto& layer = stack.layers[l];
    if (layer.dissipates_power && layer.floorplan >= 0) {
      const auto n = stack.floorplans[static_cast<std::size_t>(layer.floorplan)].blocks.size();
      power[l].assign(n, 0.0);
      seen[l].assign(n, false);
    }
  }
  // Where each block name occurs, layer by layer (a hash lookup per column instead of a scan
  // of every floorplan: 10^4 columns x 10^4 blocks would be 10^8 comparisons).
  std::unordered_map<std::string_view, std::vector<std::pair<std::size_t, std::size_t>>> where;
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    const auto& layer = stack.layers[l];
    if (layer.floorplan < 0) continue;
    const auto& blocks = stack.floorplans[static_cast<std::size_t>(layer.floorplan)].blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) where[blocks[b].name].emplace_back(l, b);
  }
  for (std::size_t i = 0; i < trace.names.size(); ++i) {
    const std::string& name = trace.names[i];
    bool found = false;
    std::vector<int> unpowered;
    if (const auto it = where.find(name); it != where.end()) {
      for (const auto& [l, b] : it->second) {
        if (!stack.layers[l].dissipates_power) {
          unpowered.push_back(static_cast<int>(l));
          continue;
        }
        if (seen[l][b]) continue;  // a shared floorplan: the next power layer takes it
        power[l][b] = trace.average_W[i];
        seen[l][b] = true;
        found = true;
        break;
      }
    }
    if (found) continue;
    if (!unpowered.empty()) {
      fail(at(source, trace.header_line),
           "block '" + name + "' is on layer " + std::to_string(unpowered[0]) +
               ", which does not dissipate power (power dissipation N)",
           {}, "blocks of layers with power dissipation Y");
    }
    fail(at(source, trace.header_line), "unknown block name '" + name + "'", {},
         "a block of a power-dissipating layer's floorplan");
  }
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    for (std::size_t b = 0; b < seen[l].size(); ++b) {
      if (!seen[l][b]) {
        warnings.push_back(
            source + ": block '" +
            stack.floorplans[static_cast<std::size_t>(stack.layers[l].floorplan)].blocks[b].name +
            "' of layer " + std::to_string(l) + " has no power column (0 W)");
      }
    }
  }
  return power;
}

void config_warnings(const HotspotConfig& c, const std::string& source,
                     std::vector<std::string>& warnings,
                     std::initializer_list<std::string_view> also_used = {}) {
  warnings.insert(warnings.end(), c.notes.begin(), c.notes.end());
  for (const auto& key : c.unused) {
    if (std::find(also_used.begin(), also_used.end(), std::string_view(key).substr(1)) !=
        also_used.end()) {
      continue;
    }
    warnings.push_back(source + ": " + key + " not used");
  }
}

std::string stem_of(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

}  // namespace

HotspotModel read_hotspot(const std::filesystem::path& config, const std::filesystem::path& lcf,
                          const std::filesystem::path& ptrace) {
  const HotspotConfig cfg = parse_hotspot_config(read_text(config, "config"), config.string());
  const std::vector<HotspotLayer> layers =
      parse_lcf(read_text(lcf, "layer configuration"), lcf.string());
  HotspotModel m;
  m.stack.package = package_of(cfg);
  m.stack.append_interface_layer = false;  // the .lcf lists the TIM explicitly
  m.grid_rows = cfg.grid_rows;
  m.grid_cols = cfg.grid_cols;
  m.has_grid = cfg.has_grid;
  config_warnings(cfg, config.string(), m.warnings);

  const std::filesystem::path base = lcf.parent_path();
  std::vector<std::filesystem::path> loaded;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const HotspotLayer& hl = layers[l];
    const std::filesystem::path file = base / hl.floorplan_file;
    const auto key = file.lexically_normal();
    int index = -1;
    for (std::size_t k = 0; k < loaded.size(); ++k) {
      if (loaded[k] == key) index = static_cast<int>(k);
    }
    if (index < 0) {
      // Not opened to probe it: a FIFO would block; read_text refuses non-regular files.
      std::error_code ec;
      if (!std::filesystem::exists(file, ec)) {
        fail(at(lcf.string(), hl.floorplan_line), "cannot read floorplan file",
             "'" + file.string() + "'", "a floorplan file, relative to the .lcf's directory");
      }
      m.stack.floorplans.push_back(
          floorplan_of(parse_flp(read_text(file, "floorplan"), file.string())));
      loaded.push_back(key);
      index = static_cast<int>(loaded.size()) - 1;
    }
    thermal::Layer layer;
    layer.name = hl.name.empty() ? stem_of(hl.floorplan_file) : hl.name;
    layer.thickness_m = hl.thickness_m;
    layer.conductivity_W_per_mK = 1.0 / hl.resistivity_mK_W;
    layer.volumetric_heat_capacity_J_per_m3K = hl.heat_capacity_J_m3K;
    layer.lateral_heat_flow = hl.lateral;
    layer.dissipates_power = hl.power;
    layer.floorplan = index;
    m.stack.layers.push_back(std::move(layer));
  }
  set_chip_extent(m.stack);
  // HotSpot's grid model needs every layer's floorplan to span the same chip outline.
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& fp = m.stack.floorplans[static_cast<std::size_t>(m.stack.layers[l].floorplan)];
    const thermal::Extent e = thermal::floorplan_extent(fp);
    constexpr double kRel = 1e-9;
    if (std::abs(e.width_m - m.stack.chip_width_m) > kRel * m.stack.chip_width_m ||
        std::abs(e.height_m - m.stack.chip_height_m) > kRel * m.stack.chip_height_m) {
      m.warnings.push_back(at(lcf.string(), layers[l].floorplan_line) + ": floorplan " +
                           layers[l].floorplan_file + " spans " + num(e.width_m) + " x " +
                           num(e.height_m) + " m, the chip " + num(m.stack.chip_width_m) + " x " +
                           num(m.stack.chip_height_m) + " m");
    }
  }
  const HotspotPowerTrace trace =
      parse_ptrace(read_text(ptrace, "power trace", limits::kMaxPtraceFileBytes), ptrace.string());
  m.power = power_of(m.stack, trace, ptrace.string(), m.warnings);
  return m;
}

HotspotModel read_hotspot_2d(const std::filesystem::path& config, const std::filesystem::path& flp,
                             const std::filesystem::path& ptrace) {
  const HotspotConfig cfg = parse_hotspot_config(read_text(config, "config"), config.string());
  HotspotModel m;
  m.stack.package = package_of(cfg);
  m.grid_rows = cfg.grid_rows;
  m.grid_cols = cfg.grid_cols;
  m.has_grid = cfg.has_grid;
  config_warnings(cfg, config.string(), m.warnings, {"t_chip", "k_chip", "p_chip"});
  m.stack.floorplans.push_back(floorplan_of(parse_flp(read_text(flp, "floorplan"), flp.string())));
  // HotSpot's default 2D chip: silicon (layer 0, power) then the interface (layer 1).
  thermal::Layer si;
  si.name = stem_of(flp.string());
  si.thickness_m = cfg.t_chip_m;
  si.conductivity_W_per_mK = cfg.k_chip_W_mK;
  si.volumetric_heat_capacity_J_per_m3K = cfg.p_chip_J_m3K;
  si.dissipates_power = true;
  si.floorplan = 0;
  thermal::Layer tim;
  tim.name = "interface";
  tim.thickness_m = cfg.t_interface_m;
  tim.conductivity_W_per_mK = cfg.k_interface_W_mK;
  tim.volumetric_heat_capacity_J_per_m3K = cfg.p_interface_J_m3K;
  m.stack.layers = {si, tim};
  set_chip_extent(m.stack);
  const HotspotPowerTrace trace =
      parse_ptrace(read_text(ptrace, "power trace", limits::kMaxPtraceFileBytes), ptrace.string());
  m.power = power_of(m.stack, trace, ptrace.string(), m.warnings);
  return m;
}

namespace {

// File-name-safe version of a layer name.
std::string safe(const std::string& name) {
  std::string s;
  for (char ch : name) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
    s += ok ? ch : '_';
  }
  return s.empty() ? std::string("layer") : s;
}

// HotSpot reads block names with fscanf("%s"): no whitespace, and '#' would start a comment.
std::string block_name(const std::string& name) {
  std::string s = name;
  for (char& ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '#') ch = '_';
  }
  return s.empty() ? std::string("block") : s;
}

}  // namespace

HotspotPaths write_hotspot(const std::filesystem::path& dir, const std::string& base_name,
                           const thermal::StackModel& stack, const thermal::PowerMap& power,
                           int grid_rows, int grid_cols) {
  if (power.size() > stack.layers.size()) {
    fail("power", "more power entries than layers", std::to_string(power.size()),
         "<= " + std::to_string(stack.layers.size()));
  }
  struct OutLayer {
    thermal::Layer layer;
    thermal::Floorplan floorplan;
    std::vector<double> power;
    int source_floorplan = -1;  // shared floorplans are written once
    bool prefixed = false;
  };
  std::vector<OutLayer> out;
  for (std::size_t l = 0; l < stack.layers.size(); ++l) {
    const auto& layer = stack.layers[l];
    OutLayer o{layer, {}, l < power.size() ? power[l] : std::vector<double>{}, layer.floorplan};
    if (layer.floorplan >= 0) {
      if (static_cast<std::size_t>(layer.floorplan) >= stack.floorplans.size()) {
        fail("layers/" + std::to_string(l), "floorplan index out of range",
             std::to_string(layer.floorplan), "< " + std::to_string(stack.floorplans.size()));
      }
      o.floorplan = stack.floorplans[static_cast<std::size_t>(layer.floorplan)];
    } else {
      o.floorplan.blocks.push_back(
          thermal::Block{layer.name, stack.chip_width_m, stack.chip_height_m, 0, 0});
    }
    for (auto& b : o.floorplan.blocks) b.name = block_name(b.name);
    if (!layer.dissipates_power) {
      o.power.clear();
    } else if (o.power.size() != o.floorplan.blocks.size()) {
      fail("power/" + std::to_string(l), "power entries do not match the layer's blocks",
           std::to_string(o.power.size()), std::to_string(o.floorplan.blocks.size()));
    }
    out.push_back(std::move(o));
  }
  if (stack.append_interface_layer) {
    thermal::Layer tim;
    tim.name = "interface";
    tim.thickness_m = stack.package.t_interface_m;
    tim.conductivity_W_per_mK = stack.package.k_interface_W_per_mK;
    tim.volumetric_heat_capacity_J_per_m3K = stack.package.c_interface_J_per_m3K;
    thermal::Floorplan fp;
    fp.blocks.push_back(thermal::Block{"interface", stack.chip_width_m, stack.chip_height_m, 0, 0});
    out.push_back(OutLayer{tim, fp, {}, -1});
  }
  // Block names must be unique over the power layers (one .ptrace column each).
  std::vector<std::string> names;
  for (auto& o : out) {
    if (!o.layer.dissipates_power) continue;
    bool clash = false;
    for (const auto& b : o.floorplan.blocks) {
      clash = clash || std::find(names.begin(), names.end(), b.name) != names.end();
    }
    if (clash) {
      for (auto& b : o.floorplan.blocks) b.name = safe(o.layer.name) + "." + b.name;
      o.prefixed = true;
      o.source_floorplan = -1;
    }
    for (const auto& b : o.floorplan.blocks) names.push_back(b.name);
  }

  make_output_dir(dir, {});
  HotspotPaths paths;
  paths.config = dir / (base_name + ".config");
  paths.lcf = dir / (base_name + ".lcf");
  paths.ptrace = dir / (base_name + ".ptrace");

  const auto& p = stack.package;
  std::string cfg =
      "# HotSpot configuration written by StackScope (package and grid keys; HotSpot's\n"
      "# defaults apply to the rest).\n";
  auto key = [&](const char* k, double v) { cfg += std::string("-") + k + "\t" + num(v) + "\n"; };
  key("s_sink", p.s_sink_m);
  key("t_sink", p.t_sink_m);
  key("k_sink", p.k_sink_W_per_mK);
  key("p_sink", p.c_sink_J_per_m3K);
  key("s_spreader", p.s_spreader_m);
  key("t_spreader", p.t_spreader_m);
  key("k_spreader", p.k_spreader_W_per_mK);
  key("p_spreader", p.c_spreader_J_per_m3K);
  key("t_interface", p.t_interface_m);
  key("k_interface", p.k_interface_W_per_mK);
  key("p_interface", p.c_interface_J_per_m3K);
  key("r_convec", p.r_convec_K_per_W);
  key("ambient", p.ambient_C + kZeroCelsius_K);
  cfg += "-model_type\tgrid\n-grid_layer_file\t" + paths.lcf.filename().string() + "\n";
  cfg += "-grid_rows\t" + std::to_string(grid_rows) + "\n-grid_cols\t" + std::to_string(grid_cols) +
         "\n";

  std::string lcf =
      "# HotSpot layer configuration written by StackScope. Per layer: number, lateral heat\n"
      "# flow (Y/N), power dissipation (Y/N), specific heat (J/(m^3 K)), resistivity\n"
      "# ((m K)/W), thickness (m), floorplan file. Layer 0 is farthest from the heat sink.\n";
  std::vector<std::pair<int, std::string>> written;  // source floorplan -> file name
  std::string ptrace_names, ptrace_powers;
  for (std::size_t l = 0; l < out.size(); ++l) {
    const OutLayer& o = out[l];
    std::string file;
    for (const auto& [src, f] : written) {
      if (o.source_floorplan >= 0 && src == o.source_floorplan) file = f;
    }
    if (file.empty()) {
      file = base_name + "_" + safe(o.layer.name) + ".flp";
      for (const auto& w : written) {
        if (w.second == file) file = base_name + "_" + std::to_string(l) + ".flp";
      }
      std::string flp = "# Floorplan of layer " + std::to_string(l) + " (" + o.layer.name +
                        "): name width height left-x bottom-y, in metres.\n";
      for (const auto& b : o.floorplan.blocks) {
        flp += b.name + "\t" + num(b.width_m) + "\t" + num(b.height_m) + "\t" + num(b.x_m) + "\t" +
               num(b.y_m) + "\n";
      }
      save_text_atomic(dir / file, flp);
      paths.floorplans.push_back(dir / file);
      written.emplace_back(o.source_floorplan, file);
    }
    lcf += "\n# name: " + o.layer.name + "\n" + std::to_string(l) + "\n" +
           (o.layer.lateral_heat_flow ? "Y" : "N") + "\n" + (o.layer.dissipates_power ? "Y" : "N") +
           "\n" + num(o.layer.volumetric_heat_capacity_J_per_m3K) + "\n" +
           num(1.0 / o.layer.conductivity_W_per_mK) + "\n" + num(o.layer.thickness_m) + "\n" +
           file + "\n";
    for (std::size_t b = 0; b < o.power.size(); ++b) {
      if (!ptrace_names.empty()) {
        ptrace_names += '\t';
        ptrace_powers += '\t';
      }
      ptrace_names += o.floorplan.blocks[b].name;
      ptrace_powers += num(o.power[b]);
    }
  }
  save_text_atomic(paths.config, cfg);
  save_text_atomic(paths.lcf, lcf);
  // One line of powers: HotSpot's steady state is the average over the trace.
  save_text_atomic(paths.ptrace, ptrace_names + "\n" + ptrace_powers + "\n");
  return paths;
}

}  // namespace stackscope::io
