// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/search/space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::search {
namespace {

int as_int(double v) {
  return static_cast<int>(std::lround(v));
}

// Device count of a system: single-level systems resize their level; multi-level systems resize
// the outermost level, which needs the count to be a multiple of the inner levels' product.
// Grids whose explicit shape no longer matches fall back to the squarest shape (dims 0).
void set_devices(perf::Design& d, double value) {
  const int n = as_int(value);
  auto& s = d.system;
  s.devices = n;
  if (s.levels.empty()) return;
  long long inner = 1;
  for (std::size_t i = 0; i + 1 < s.levels.size(); ++i) inner *= std::max(1, s.levels[i].size);
  if (n % inner != 0)
    throw std::invalid_argument("devices = " + std::to_string(n) +
                                " is not a multiple of the inner network levels' " +
                                std::to_string(inner) + " devices");
  auto& outer = s.levels.back();
  const int units = static_cast<int>(n / inner);
  if (outer.size != 0) outer.size = units;
  const bool grid =
      outer.topology == hw::Topology::mesh2d || outer.topology == hw::Topology::torus2d;
  if (grid && outer.dims_x > 0 && outer.dims_y > 0 && outer.dims_x * outer.dims_y != units) {
    outer.dims_x = 0;
    outer.dims_y = 0;
  }
}

void scale_links(perf::Design& d, double f) {
  for (auto& l : d.system.levels) l.link_GBps *= f;
}
void scale_latency(perf::Design& d, double f) {
  for (auto& l : d.system.levels) {
    l.latency_us *= f;
    l.hop_latency_ns *= f;
  }
}

// Upper bounds (a devices value of 2^64 once reached lround and wrapped): perf::validate()'s
// numeric ranges (perf/limits.hpp, each argued there), so a knob value that passes here never
// makes an invalid design by its size alone. Lower bounds (clocks, bandwidths) are validate()'s
// too: a hardware point below them is invalid and pruned like any other, not a space error.
// Other sizes, areas and multipliers stay <= 10^12 of their unit (sums stay finite).
constexpr double kMaxDevices = static_cast<double>(perf::limits::kMaxDevices);
constexpr double kMaxLayers = perf::limits::kMaxMemoryLayers;
constexpr double kMaxStacks = perf::limits::kMaxStacks;
constexpr double kMaxChannels = perf::limits::kMaxChannels;
constexpr double kMaxCores = perf::limits::kMaxCores;
constexpr double kMaxTokens = perf::limits::kMaxTokens;
constexpr double kMaxReal = perf::limits::kMaxQuantity;
constexpr int kMaxBatch = perf::limits::kMaxBatch;
// Values of one inner list (parallel degrees, batch, overlap): with these the inner points of a
// hardware point stay below 2^52 (groups <= kMaxGroups, sequence parallelism x batch x overlap
// <= 2 x 4096 x 4096 after duplicates are refused) and the whole space below 2^62 x 2^52, inside
// the 128-bit Count.
constexpr std::size_t kMaxInnerValues = 4096;
// Valid parallel groups of one device class, and perf::validate() calls spent finding them over
// all classes (5-15 us each: about a second).
constexpr std::size_t kMaxGroups = 1 << 16;
constexpr std::size_t kMaxPlanChecks = 100'000;
// Device classes (each has its own plan list): 2^16.
constexpr std::uint64_t kMaxClasses = 1 << 16;
// Issues listed per axis before "N more values rejected".
constexpr std::size_t kMaxIssuesPerAxis = 10;

using E = KnobEffect;

// Knob::set_by_layers: any list gives the die count and links; a die's own pitch or capacity
// replaces the uniform one, so those knobs are overridden only when every die gives its own.
bool any_layer_list(const hw::Memory& m) {
  return !m.layers.empty();
}
template <double hw::DramLayer::*Member>
bool every_layer_sets(const hw::Memory& m) {
  return !m.layers.empty() && std::all_of(m.layers.begin(), m.layers.end(),
                                          [](const hw::DramLayer& l) { return l.*Member > 0; });
}

// The registry. Field names follow hw/hardware.hpp (JSON keys are the member names).
const Knob kKnobs[] = {
    {"devices", "devices in the system (resizes the outermost network level)", "devices", true, 1,
     set_devices, E::hardware, kMaxDevices},
    {"memory.layers_total", "DRAM dies per stack", "layers", true, 1,
     [](perf::Design& d, double v) { d.hardware.memory.layers_total = as_int(v); }, E::hardware,
     kMaxLayers, any_layer_list},
    {"memory.layers_connected", "DRAM dies with active vertical links (<= layers_total)", "layers",
     true, 1, [](perf::Design& d, double v) { d.hardware.memory.layers_connected = as_int(v); },
     E::hardware, kMaxLayers, any_layer_list},
    {"memory.stacks", "DRAM stacks per device", "stacks", true, 1,
     [](perf::Design& d, double v) { d.hardware.memory.stacks = as_int(v); }, E::hardware,
     kMaxStacks},
    {"memory.channels_per_layer", "channels per connected DRAM layer", "channels", true, 1,
     [](perf::Design& d, double v) { d.hardware.memory.channels_per_layer = as_int(v); },
     E::hardware, kMaxChannels},
    {"memory.clock_MHz", "DRAM interface clock", "MHz", false, 0,
     [](perf::Design& d, double v) { d.hardware.memory.clock_MHz = v; }, E::hardware,
     perf::limits::kMaxMemoryClockMHz},
    {"memory.capacity_per_layer_GiB", "capacity of one DRAM layer", "GiB", false, 0,
     [](perf::Design& d, double v) { d.hardware.memory.capacity_per_layer_GiB = v; }, E::hardware,
     kMaxReal, every_layer_sets<&hw::DramLayer::capacity_GiB>},
    {"memory.vertical.pitch_um", "TSV / hybrid-bond pitch", "um", false, 0,
     [](perf::Design& d, double v) { d.hardware.memory.vertical.pitch_um = v; }, E::hardware,
     kMaxReal, every_layer_sets<&hw::DramLayer::pitch_um>},
    {"compute.cores", "cores (PEs/SMs) on the die", "cores", true, 1,
     [](perf::Design& d, double v) { d.hardware.compute.cores = as_int(v); }, E::hardware,
     kMaxCores},
    {"compute.clock_GHz", "sustained core clock", "GHz", false, 0,
     [](perf::Design& d, double v) { d.hardware.compute.clock_GHz = v; }, E::hardware,
     perf::limits::kMaxClockGHz},
    {"compute.sram_per_core_KiB", "scratchpad SRAM per core", "KiB", false, 0,
     [](perf::Design& d, double v) { d.hardware.compute.sram_per_core_KiB = v; }, E::hardware,
     kMaxReal},
    {"compute.shared_buffer_MiB", "shared on-die SRAM", "MiB", false, 0,
     [](perf::Design& d, double v) { d.hardware.compute.shared_buffer_MiB = v; }, E::hardware,
     kMaxReal},
    {"compute.die_area_mm2", "logic die area", "mm2", false, 0,
     [](perf::Design& d, double v) { d.hardware.compute.die_area_mm2 = v; }, E::hardware, kMaxReal},
    // The on-die mesh's links and routers (compute/noc.hpp: operator traffic and fill).
    {"noc.link_GBps", "on-die mesh link bandwidth per direction", "GB/s", false, 0,
     [](perf::Design& d, double v) { d.hardware.noc.link_GBps = v; }, E::hardware,
     perf::limits::kMaxLinkGBps},
    {"noc.hop_latency_ns", "on-die mesh hop latency", "ns", false, 0,
     [](perf::Design& d, double v) { d.hardware.noc.hop_latency_ns = v; }, E::hardware, kMaxReal},
    {"system.link_bw_scale", "multiplier on the link bandwidth of every network level", "x", false,
     0, scale_links, E::system, kMaxReal},
    {"system.latency_scale", "multiplier on the step and hop latency of every network level", "x",
     false, 0, scale_latency, E::system, kMaxReal},
    // Index into Space::variants; applied first (whole hardware and system), then the other
    // knobs. CompiledSpace applies it (a knob cannot see the Space).
    {"variant", "index into the space's hardware/system variants", "index", true, 0, nullptr,
     E::hardware, kMaxDevices},
    // Index into Space::models (CompiledSpace applies it, before the other knobs).
    {"model", "index into the space's models", "index", true, 0, nullptr, E::workload, kMaxDevices},
    // The expert placement (parallel::ExpertPlacement; perf/expert_placement.hpp): a strategy
    // index in the order of parallel::ExpertStrategy (files may name them), and EPLB's
    // redundant slots per rank. They change the plan, not the device count.
    {"experts.placement",
     "expert placement strategy: 0 plan, 1 tp, 2 ep, 3 eplb, 4 balanced, 5 hd, 6 hd-dynamic, "
     "7 shadow",
     "strategy", true, 0,
     [](perf::Design& d, double v) {
       d.parallel.experts.strategy = static_cast<parallel::ExpertStrategy>(as_int(v));
     },
     E::hardware, static_cast<double>(parallel::ExpertStrategy::shadow)},
    {"experts.redundant_per_rank", "redundant expert slots per expert-parallel rank (EPLB)",
     "slots", true, 0,
     [](perf::Design& d, double v) { d.parallel.redundant_experts_per_rank = as_int(v); },
     E::hardware, perf::limits::kMaxExperts},
    {"workload.input_len", "prompt tokens per request", "tokens", true, 1,
     [](perf::Design& d, double v) { d.workload.input_len = as_int(v); }, E::workload, kMaxTokens},
    {"workload.output_len", "generated tokens per request", "tokens", true, 1,
     [](perf::Design& d, double v) { d.workload.output_len = as_int(v); }, E::workload, kMaxTokens},
};

}  // namespace

std::string axis_value_name(const Space& space, std::size_t axis, double value) {
  const std::string& knob = space.hardware.at(axis).knob;
  const auto i = static_cast<std::size_t>(value);
  if (knob == "variant" && i < space.variants.size()) return space.variants[i].name;
  if (knob == "experts.placement" && value == std::floor(value) && value >= 0 &&
      value <= static_cast<double>(parallel::ExpertStrategy::shadow))
    return std::string(parallel::to_string(static_cast<parallel::ExpertStrategy>(i)));
  if (knob == "model" && i < space.models.size())
    return space.models[i].id.empty() ? space.models[i].name : space.models[i].id;
  return {};
}

namespace {

Issue issue(std::string path, std::string message, std::string value, std::string allowed) {
  return {std::move(path), std::move(message), std::move(value), std::move(allowed)};
}

std::string num(double v) {
  return number_text(v);
}

bool starts_with(const std::string& s, std::string_view p) {
  return s.rfind(p, 0) == 0;
}

}  // namespace

std::string to_string(Count n) {
  if (n == 0) return "0";
  std::string s;
  while (n > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(n % 10)));
    n /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

double to_double(Count n) {
  const auto hi = static_cast<std::uint64_t>(n >> 64);
  const auto lo = static_cast<std::uint64_t>(n);
  return static_cast<double>(hi) * 18446744073709551616.0 + static_cast<double>(lo);
}

std::span<const Knob> knobs() {
  return kKnobs;
}

const Knob* find_knob(std::string_view name) {
  for (const Knob& k : kKnobs)
    if (k.name == name) return &k;
  return nullptr;
}

std::string knob_names() {
  std::string s;
  for (const Knob& k : kKnobs) {
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

namespace {

void check_linear(double min, double max, double step) {
  if (!(step > 0) || !(min <= max) || !std::isfinite(min) || !std::isfinite(max))
    throw std::invalid_argument("linear range needs finite min <= max and step > 0");
}
void check_geometric(double min, double max, double factor) {
  if (!(factor > 1) || !(min > 0) || !(min <= max) || !std::isfinite(max))
    throw std::invalid_argument("geometric range needs 0 < min <= max and factor > 1");
}

// The expansions' loops: `emit(x)` per value, stopping (false) after `limit` values.
template <class Emit>
void linear_values(double min, double max, double step, std::uint64_t limit, Emit emit) {
  const double slack = 1e-9 * std::max(1.0, std::abs(max));
  for (std::uint64_t i = 0; i < limit; ++i) {
    const double x = min + static_cast<double>(i) * step;
    if (x > max + slack) break;
    emit(x);
  }
}
template <class Emit>
void geometric_values(double min, double max, double factor, std::uint64_t limit, Emit emit) {
  const double slack = 1e-9 * max;
  std::uint64_t n = 0;
  for (double x = min; x <= max + slack && n < limit; x *= factor, ++n) emit(x);
}

// The closed-form count, or below 2 x kMaxAxisValues the loop's (which is what expands).
template <class Loop>
std::uint64_t range_count(double estimate, Loop loop) {
  constexpr auto kExact = 2 * kMaxAxisValues;
  if (!(estimate < static_cast<double>(kExact))) {
    // NaN cannot occur for checked ranges; 2^64 and beyond saturate.
    return estimate >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max()
                              : static_cast<std::uint64_t>(estimate);
  }
  std::uint64_t n = 0;
  loop(kExact + 1, [&n](double) { ++n; });
  return n;
}

std::string too_many(std::uint64_t n) {
  return "range has " + std::to_string(n) + " values (at most " + std::to_string(kMaxAxisValues) +
         " per axis)";
}

}  // namespace

std::uint64_t linear_range_count(double min, double max, double step) {
  check_linear(min, max, step);
  // (max - min) / step can overflow to inf for a denormal step: saturates.
  const double estimate = std::floor((max - min) / step) + 1;
  return range_count(estimate, [&](std::uint64_t limit, auto emit) {
    linear_values(min, max, step, limit, emit);
  });
}

std::uint64_t geometric_range_count(double min, double max, double factor) {
  check_geometric(min, max, factor);
  // log1p keeps a factor of 1 + 1e-10 exact enough (log(factor) would lose its digits).
  const double estimate = std::floor(std::log(max / min) / std::log1p(factor - 1)) + 1;
  return range_count(estimate, [&](std::uint64_t limit, auto emit) {
    geometric_values(min, max, factor, limit, emit);
  });
}

std::vector<double> linear_range(double min, double max, double step) {
  const std::uint64_t n = linear_range_count(min, max, step);
  if (n > kMaxAxisValues) throw std::invalid_argument("linear " + too_many(n));
  std::vector<double> v;
  v.reserve(n);
  linear_values(min, max, step, n, [&v](double x) { v.push_back(x); });
  return v;
}

std::vector<double> geometric_range(double min, double max, double factor) {
  const std::uint64_t n = geometric_range_count(min, max, factor);
  if (n > kMaxAxisValues) throw std::invalid_argument("geometric " + too_many(n));
  std::vector<double> v;
  v.reserve(n);
  geometric_values(min, max, factor, n, [&v](double x) { v.push_back(x); });
  return v;
}

Count count_points(std::span<const std::uint64_t> axis_sizes) {
  constexpr Count kMax = ~Count{0};
  Count n = 1;
  for (const std::uint64_t s : axis_sizes) {
    if (s == 0) return 0;
    n = n > kMax / s ? kMax : n * s;
  }
  return n;
}

std::string_view to_string(Metric m) {
  switch (m) {
    case Metric::stps: return "stps";
    case Metric::stps_per_device: return "stps_per_device";
    case Metric::stps_per_mm2: return "stps_per_mm2";
    case Metric::stps_per_W: return "stps_per_W";
    case Metric::utps: return "utps";
    case Metric::energy_per_token_j: return "energy_per_token_j";
    case Metric::area_mm2: return "area_mm2";
    case Metric::ttft_s: return "ttft_s";
    case Metric::tpot_s: return "tpot_s";
  }
  return "stps";
}

std::string_view to_string(Direction d) {
  return d == Direction::maximize ? "maximize" : "minimize";
}

Direction default_direction(Metric m) {
  switch (m) {
    case Metric::stps:
    case Metric::stps_per_device:
    case Metric::stps_per_mm2:
    case Metric::stps_per_W:
    case Metric::utps: return Direction::maximize;
    case Metric::energy_per_token_j:
    case Metric::area_mm2:
    case Metric::ttft_s:
    case Metric::tpot_s: return Direction::minimize;
  }
  return Direction::minimize;
}

CompiledSpace::CompiledSpace(Space space) : space_(std::move(space)) {
  std::vector<Issue> issues;
  const auto& sp = space_;
  if (sp.objectives.empty() || sp.objectives.size() > kMaxObjectives)
    issues.push_back(issue("/search/objectives", "between 1 and 8 objectives are needed",
                           std::to_string(sp.objectives.size()), "1..8 objectives"));
  // A metric twice is one objective counted twice (or, in opposite directions, a frontier of
  // every point): refused.
  for (std::size_t i = 0; i < sp.objectives.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (sp.objectives[j].metric == sp.objectives[i].metric) {
        issues.push_back(issue("/search/objectives/" + std::to_string(i),
                               "metric '" + std::string(to_string(sp.objectives[i].metric)) +
                                   "' is already /search/objectives/" + std::to_string(j),
                               std::string(to_string(sp.objectives[i].metric)),
                               "each metric once"));
        break;
      }

  // Hardware axes.
  constexpr std::uint64_t kMaxHw = std::uint64_t{1} << 62;
  std::vector<std::uint64_t> axis_sizes;
  for (const auto& axis : sp.hardware) axis_sizes.push_back(axis.values.size());
  // hw_points_ *= the axis's size (hardware indices are 64-bit; 2^62 leaves room for strides).
  // The first axis past the limit is named, with the count of all of them.
  auto count_axis = [&](const HardwareAxis& axis, const std::string& p) {
    if (axis.values.empty()) return;
    if (hw_points_ > kMaxHw / axis.values.size())
      issues.push_back(issue(p,
                             "more than 2^62 hardware points (the axes give " +
                                 to_string(count_points(axis_sizes)) + ")",
                             std::to_string(axis.values.size()) + " values",
                             "at most 2^62 hardware points"));
    else
      hw_points_ *= axis.values.size();
  };
  for (std::size_t a = 0; a < sp.hardware.size(); ++a) {
    const auto& axis = sp.hardware[a];
    const std::string p = "/search/hardware/" + std::to_string(a);
    const Knob* k = find_knob(axis.knob);
    knob_.push_back(k);
    if (!k) {
      issues.push_back(issue(p + "/knob", "unknown hardware knob", axis.knob, knob_names()));
      continue;
    }
    // A knob on two axes would be applied twice, the later value winning: the space would hold
    // every point twice over under different indices.
    if (const auto first = std::find(knob_.begin(), knob_.end() - 1, k); first != knob_.end() - 1) {
      const std::string other = "/search/hardware/" + std::to_string(first - knob_.begin());
      if (k->name != "variant" && k->name != "model" && k->name != "devices")
        issues.push_back(
            issue(p + "/knob",
                  "knob '" + axis.knob + "' is already the axis " + other + " (an axis per knob)",
                  axis.knob, "each knob on one axis: merge the values into " + other));
    }
    if (axis.values.empty())
      issues.push_back(
          issue(p + "/values", "an axis needs at least one value", "[]", "one or more values"));
    // Index-valued axes (whole variants, models): given once, every value an index into the
    // Space's list; applied by CompiledSpace itself (a knob cannot see the Space).
    if (k->name == "variant" || k->name == "model") {
      const bool variant = k->name == "variant";
      int& slot = variant ? variant_axis_ : model_axis_;
      const std::size_t n = variant ? sp.variants.size() : sp.models.size();
      const std::string what(k->name);
      if (slot >= 0)
        issues.push_back(issue(p + "/knob",
                               "the " + what + " axis is given twice (also /search/hardware/" +
                                   std::to_string(slot) + ")",
                               axis.knob, "at most one " + what + " axis"));
      slot = static_cast<int>(a);
      if (variant && sp.variants.empty())
        issues.push_back(issue(p + "/variants", "a variant axis needs variants", "[]",
                               "one or more {hardware, system} variants"));
      for (std::size_t i = 0; i < axis.values.size(); ++i) {
        const double v = axis.values[i];
        if (!(v >= 0 && v < static_cast<double>(n)) || v != std::floor(v))
          issues.push_back(issue(p + "/values/" + std::to_string(i), "no such " + what, num(v),
                                 "0.." + std::to_string(n) + " (exclusive)"));
      }
      count_axis(axis, p);
      continue;
    }
    // A knob the stack's layer list sets for every die: every value would be the same design.
    if (k->set_by_layers) {
      std::string where = k->set_by_layers(sp.base.hardware.memory) ? "/hardware/memory/layers" : "";
      for (std::size_t v = 0; v < sp.variants.size() && where.empty(); ++v)
        if (k->set_by_layers(sp.variants[v].hardware.memory))
          where = "variant '" + sp.variants[v].name + "': hardware/memory/layers";
      if (!where.empty())
        issues.push_back(issue(
            p + "/knob",
            "the stack is described layer by layer (" + where +
                "), which sets this for every die: the axis would not change the design",
            axis.knob,
            "a knob the layer list leaves open, or a stack without a layer list (each die's "
            "count, link, pitch and capacity are then the uniform values)"));
    }
    if (k->name == "devices") {
      if (devices_axis_ >= 0)
        issues.push_back(issue(p + "/knob",
                               "the devices axis is given twice (also /search/hardware/" +
                                   std::to_string(devices_axis_) + ")",
                               axis.knob, "at most one devices axis"));
      devices_axis_ = static_cast<int>(a);
    }
    // A million bad values give one line each for the first few, then a count.
    std::size_t bad = 0;
    auto report = [&](Issue is) {
      if (++bad <= kMaxIssuesPerAxis) issues.push_back(std::move(is));
    };
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      const double v = axis.values[i];
      const std::string vp = p + "/values/" + std::to_string(i);
      const bool whole = std::abs(v - std::round(v)) < 1e-9;
      if (!std::isfinite(v) || v < k->min || v > k->max || (k->integer && !whole)) {
        report(issue(vp, "value out of range for " + std::string(k->name), num(v),
                     std::string(k->integer ? "integer" : "number") + " in [" + num(k->min) + ", " +
                         num(k->max) + "] (" + std::string(k->unit) + ")"));
        continue;
      }
      perf::Design probe = sp.base;
      if (!sp.variants.empty()) {  // knobs apply on top of a variant (devices: its system)
        probe.hardware = sp.variants.front().hardware;
        probe.system = sp.variants.front().system;
      }
      try {
        k->apply(probe, v);
      } catch (const std::invalid_argument& e) {
        report(issue(vp, e.what(), num(v), std::string(k->description)));
      }
    }
    if (bad > kMaxIssuesPerAxis)
      issues.push_back(issue(p + "/values",
                             std::to_string(bad - kMaxIssuesPerAxis) + " more values rejected",
                             std::to_string(axis.values.size()) + " values", "values as above"));
    count_axis(axis, p);
  }
  // Class axes first (devices, then model and workload axes as given), then the others.
  if (devices_axis_ >= 0) class_axes_.push_back(static_cast<std::size_t>(devices_axis_));
  for (std::size_t a = 0; a < sp.hardware.size(); ++a)
    if (knob_[a] && knob_[a]->effect == KnobEffect::workload) class_axes_.push_back(a);
  order_ = class_axes_;
  for (std::size_t a = 0; a < sp.hardware.size(); ++a)
    if (std::find(class_axes_.begin(), class_axes_.end(), a) == class_axes_.end())
      order_.push_back(a);
  stride_.assign(sp.hardware.size(), 1);
  {
    std::uint64_t w = 1;
    for (std::size_t i = order_.size(); i-- > 0;) {
      stride_[order_[i]] = w;
      w *= std::max<std::size_t>(1, sp.hardware[order_[i]].values.size());
    }
  }

  // Inner axes.
  const auto& in = sp.inner;
  auto check_list = [&](const char* name, const std::vector<int>& v, int min, bool may_be_empty) {
    // Paths as in project files (io/search.hpp): /search/parallel/<degree>, /search/batch.
    const bool top = std::string_view(name) == "batch";
    const std::string p = std::string(top ? "/search/" : "/search/parallel/") + name;
    const int max = top ? kMaxBatch : static_cast<int>(kMaxDevices);
    if (v.empty() && !may_be_empty)
      issues.push_back(issue(p, "needs at least one value", "[]", "one or more values"));
    if (v.size() > kMaxInnerValues) {
      issues.push_back(issue(p, "too many values", std::to_string(v.size()) + " values",
                             "at most " + std::to_string(kMaxInnerValues) + " values"));
      return;
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if ((v[i] < min || v[i] > max) && ++bad <= kMaxIssuesPerAxis)
        issues.push_back(
            issue(p + "/" + std::to_string(i), "value out of range", std::to_string(v[i]),
                  "integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"));
      // A value listed twice gives every point of it twice.
      for (std::size_t j = 0; j < i; ++j)
        if (v[j] == v[i] && ++bad <= kMaxIssuesPerAxis) {
          issues.push_back(
              issue(p + "/" + std::to_string(i),
                    "value " + std::to_string(v[i]) + " is already " + p + "/" + std::to_string(j),
                    std::to_string(v[i]), "distinct values"));
          break;
        }
    }
    if (bad > kMaxIssuesPerAxis)
      issues.push_back(issue(p, std::to_string(bad - kMaxIssuesPerAxis) + " more values rejected",
                             std::to_string(v.size()) + " values", "values as above"));
  };
  check_list("tp", in.tp, 1, false);
  check_list("pp", in.pp, 1, false);
  check_list("ep", in.ep, 1, false);
  check_list("dp", in.dp, 1, false);
  check_list("cp", in.cp, 1, false);
  check_list("sequence_parallel", in.sequence_parallel, 0, false);
  check_list("batch", in.batch, 1, true);
  check_list("attention_tp", in.attention_tp, 0, true);
  check_list("moe_ep", in.moe_ep, 0, true);
  for (std::size_t i = 0; i < in.sequence_parallel.size(); ++i)
    if (in.sequence_parallel[i] > 1)
      issues.push_back(issue("/search/parallel/sequence_parallel/" + std::to_string(i),
                             "value out of range", std::to_string(in.sequence_parallel[i]),
                             "0 (off) or 1 (on)"));
  if (in.overlap.empty())
    issues.push_back(
        issue("/search/overlap", "needs at least one value", "[]", "off, fixed, auto"));
  if (in.overlap.size() > kMaxInnerValues)
    issues.push_back(issue("/search/overlap", "too many values",
                           std::to_string(in.overlap.size()) + " values",
                           "at most " + std::to_string(kMaxInnerValues) + " values"));
  std::size_t repeated = 0;
  for (std::size_t i = 0; i < in.overlap.size() && i < kMaxInnerValues; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (in.overlap[j] == in.overlap[i]) {
        if (++repeated > kMaxIssuesPerAxis) break;
        issues.push_back(
            issue("/search/overlap/" + std::to_string(i),
                  "overlap mode listed twice (also /search/overlap/" + std::to_string(j) + ")", "",
                  "distinct modes"));
        break;
      }
  if (!issues.empty()) throw ConfigError(std::move(issues));

  batches_ = in.batch.empty() ? std::vector<int>{0} : in.batch;
  per_group_ = in.sequence_parallel.size() * batches_.size() * in.overlap.size();

  // Valid parallel groups per class (device count x model x workload).
  int fixed_devices = sp.base.system.devices;
  if (devices_axis_ < 0 && variant_axis_ >= 0) {
    // Without a devices axis every variant keeps its system: they must agree on the count.
    const int n = sp.variants.front().system.devices;
    for (const auto& v : sp.variants)
      if (v.system.devices != n)
        throw ConfigError({issue("/search/hardware/" + std::to_string(variant_axis_),
                                 "variants have different device counts (" + std::to_string(n) +
                                     " and " + std::to_string(v.system.devices) + ")",
                                 v.name, "equal device counts, or a devices axis")});
    fixed_devices = n;
  }
  std::uint64_t n_classes = 1;
  for (std::size_t a : class_axes_) n_classes *= sp.hardware[a].values.size();
  std::size_t plan_checks = 0;
  std::string rejected;  // the first plan validation refused, for empty_reason()
  if (n_classes > kMaxClasses)
    throw ConfigError({issue("/search/hardware",
                             std::to_string(n_classes) +
                                 " device classes (combinations of the devices, model and "
                                 "workload axes' values)",
                             "", "at most " + std::to_string(kMaxClasses) + " combinations")});
  hw_per_class_ = hw_points_ / n_classes;
  const std::vector<int> at_list =
      in.attention_tp.empty() ? std::vector<int>{sp.base.parallel.attention.tp} : in.attention_tp;
  const std::vector<int> me_list =
      in.moe_ep.empty() ? std::vector<int>{sp.base.parallel.moe.ep} : in.moe_ep;
  for (std::uint64_t c = 0; c < n_classes; ++c) {
    DeviceClass dc;
    dc.devices = fixed_devices;
    perf::Design probe = sp.base;
    // The class's digits (mixed radix over class_axes_, the last fastest); the model first.
    std::vector<std::size_t> digit(sp.hardware.size(), 0);
    {
      std::uint64_t rest = c;
      for (std::size_t i = class_axes_.size(); i-- > 0;) {
        const std::size_t a = class_axes_[i];
        digit[a] = static_cast<std::size_t>(rest % sp.hardware[a].values.size());
        rest /= sp.hardware[a].values.size();
      }
    }
    if (model_axis_ >= 0) {
      const auto a = static_cast<std::size_t>(model_axis_);
      probe.model = sp.models[static_cast<std::size_t>(sp.hardware[a].values[digit[a]])];
    }
    for (std::size_t a : class_axes_) {
      if (static_cast<int>(a) == model_axis_) continue;
      const double v = sp.hardware[a].values[digit[a]];
      knob_[a]->apply(probe, v);
      if (static_cast<int>(a) == devices_axis_) dc.devices = as_int(v);
    }
    probe.workload.batch_auto = true;  // batch fit is a per-point feasibility check
    const long long n = dc.devices;
    // Only degrees dividing the device count can be in a group: each loop visits those dividing
    // what the outer degrees leave, so the work is the number of factorisations of n (not the
    // product of the list lengths), in the order of the nested lists as given.
    auto dividing = [n](const std::vector<int>& list) {
      std::vector<long long> out;
      for (int v : list)
        if (v >= 1 && n % v == 0) out.push_back(v);
      return out;
    };
    const auto tps = dividing(in.tp), pps = dividing(in.pp), eps = dividing(in.ep),
               dps = dividing(in.dp), cps = dividing(in.cp);
    for (long long tp : tps)
      for (long long pp : pps) {
        if ((n / tp) % pp != 0) continue;
        for (long long ep : eps) {
          if ((n / tp / pp) % ep != 0) continue;
          for (long long dp : dps) {
            if ((n / tp / pp / ep) % dp != 0) continue;
            const long long cp = n / tp / pp / ep / dp;
            if (std::find(cps.begin(), cps.end(), cp) == cps.end()) continue;
            for (int at : at_list)
              for (int me : me_list) {
                if (++plan_checks > kMaxPlanChecks)
                  throw ConfigError(
                      {issue("/search/parallel",
                             "the parallel lists give more than " + std::to_string(kMaxPlanChecks) +
                                 " plans to check (at " + std::to_string(n) + " devices, class " +
                                 std::to_string(c + 1) + " of " + std::to_string(n_classes) + ")",
                             "", "fewer values in /search/parallel or fewer device counts")});
                auto& pl = probe.parallel;
                pl.tp = static_cast<int>(tp), pl.pp = static_cast<int>(pp);
                pl.ep = static_cast<int>(ep), pl.dp = static_cast<int>(dp);
                pl.cp = static_cast<int>(cp);
                pl.attention.tp = at;
                pl.moe.ep = me;
                bool ok = true;
                for (const Issue& is : perf::validate(probe))
                  if (starts_with(is.path, "/parallel")) {
                    if (ok && rejected.empty())
                      rejected = "tp " + std::to_string(tp) + " pp " + std::to_string(pp) + " ep " +
                                 std::to_string(ep) + " dp " + std::to_string(dp) + " cp " +
                                 std::to_string(cp) + " at " + std::to_string(n) +
                                 " devices: " + is.path + ": " + is.message;
                    ok = false;
                  }
                if (ok) dc.groups.push_back({pl.tp, pl.pp, pl.ep, pl.dp, pl.cp, at, me});
              }
          }
        }
      }
    if (dc.groups.size() > kMaxGroups)
      throw ConfigError({issue("/search/parallel",
                               std::to_string(dc.groups.size()) + " valid parallel plans at " +
                                   std::to_string(n) + " devices",
                               "",
                               "at most " + std::to_string(kMaxGroups) +
                                   " plans per device "
                                   "count: fewer values in /search/parallel")});
    size_ += Count{hw_per_class_} * dc.groups.size() * per_group_;
    classes_.push_back(std::move(dc));
  }
  if (size_ == 0) {
    std::string counts;
    for (std::size_t c = 0; c < classes_.size() && c < 8; ++c)
      counts += (c ? ", " : "") + std::to_string(classes_[c].devices);
    if (classes_.size() > 8) counts += ", ...";
    empty_reason_ =
        plan_checks == 0
            ? "no combination of the /search/parallel degrees has tp*pp*ep*dp*cp equal to a "
              "device count of the space (" +
                  counts + ")"
            : "every plan whose degrees multiply to the device count fails validation (first: " +
                  rejected + ")";
  }
}

std::size_t CompiledSpace::class_of(std::uint64_t hw) const {
  return static_cast<std::size_t>(hw / hw_per_class_);
}

Count CompiledSpace::points_in_shard(std::uint64_t index, std::uint64_t count) const {
  auto below = [&](std::uint64_t b) { return b / count + (b % count > index ? 1 : 0); };
  Count n = 0;
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    const std::uint64_t lo = c * hw_per_class_, hi = lo + hw_per_class_;
    n += Count{below(hi) - below(lo)} * classes_[c].groups.size() * per_group_;
  }
  return n;
}

std::uint64_t CompiledSpace::inner_points(std::uint64_t hw) const {
  return classes_[class_of(hw)].groups.size() * per_group_;
}

std::span<const ParallelGroup> CompiledSpace::groups(std::uint64_t hw) const {
  return classes_[class_of(hw)].groups;
}

int CompiledSpace::devices(std::uint64_t hw) const {
  return classes_[class_of(hw)].devices;
}

std::vector<std::size_t> CompiledSpace::hardware_digits(std::uint64_t hw) const {
  // Digits, least significant last in order_.
  std::vector<std::size_t> digit(space_.hardware.size(), 0);
  std::uint64_t rest = hw;
  for (std::size_t i = order_.size(); i-- > 0;) {
    const std::size_t a = order_[i];
    const std::uint64_t radix = space_.hardware[a].values.size();
    digit[a] = static_cast<std::size_t>(rest % radix);
    rest /= radix;
  }
  return digit;
}

std::vector<double> CompiledSpace::hardware_values(std::uint64_t hw) const {
  const auto digit = hardware_digits(hw);
  std::vector<double> v(digit.size());
  for (std::size_t a = 0; a < digit.size(); ++a) v[a] = space_.hardware[a].values[digit[a]];
  return v;
}

perf::Design CompiledSpace::hardware_design(std::uint64_t hw) const {
  perf::Design d = space_.base;
  const auto digit = hardware_digits(hw);
  if (variant_axis_ >= 0) {
    const auto a = static_cast<std::size_t>(variant_axis_);
    const auto& v = space_.variants[static_cast<std::size_t>(space_.hardware[a].values[digit[a]])];
    d.hardware = v.hardware;
    d.system = v.system;
    if (v.runtime) d.runtime = *v.runtime;
  }
  if (model_axis_ >= 0) {
    const auto a = static_cast<std::size_t>(model_axis_);
    d.model = space_.models[static_cast<std::size_t>(space_.hardware[a].values[digit[a]])];
  }
  for (std::size_t a = 0; a < space_.hardware.size(); ++a)
    if (static_cast<int>(a) != variant_axis_ && static_cast<int>(a) != model_axis_)
      knob_[a]->apply(d, space_.hardware[a].values[digit[a]]);
  return d;
}

InnerDigits CompiledSpace::inner_digits(std::uint64_t inner) const {
  const auto& in = space_.inner;
  InnerDigits g;
  g.overlap = static_cast<std::size_t>(inner % in.overlap.size());
  inner /= in.overlap.size();
  g.batch = static_cast<std::size_t>(inner % batches_.size());
  inner /= batches_.size();
  g.sequence_parallel = static_cast<std::size_t>(inner % in.sequence_parallel.size());
  g.group = inner / in.sequence_parallel.size();
  return g;
}

std::uint64_t CompiledSpace::inner_index(const InnerDigits& g) const {
  const auto& in = space_.inner;
  return ((g.group * in.sequence_parallel.size() + g.sequence_parallel) * batches_.size() +
          g.batch) *
             in.overlap.size() +
         g.overlap;
}

std::uint64_t CompiledSpace::hardware_index(std::span<const std::size_t> digits) const {
  std::uint64_t hw = 0;
  for (std::size_t a : order_) hw = hw * space_.hardware[a].values.size() + digits[a];
  return hw;
}

int CompiledSpace::batch_value(std::size_t digit) const {
  return batches_[digit];
}

void CompiledSpace::apply_inner(perf::Design& d, std::uint64_t hw, std::uint64_t inner) const {
  const InnerDigits g = inner_digits(inner);
  const ParallelGroup& pg = groups(hw)[g.group];
  auto& pl = d.parallel;
  pl.tp = pg.tp, pl.pp = pg.pp, pl.ep = pg.ep, pl.dp = pg.dp, pl.cp = pg.cp;
  pl.attention.tp = pg.attention_tp;
  pl.moe.ep = pg.moe_ep;
  pl.sequence_parallel = space_.inner.sequence_parallel[g.sequence_parallel] != 0;
  pl.overlap = space_.inner.overlap[g.overlap];
  if (const int b = batches_[g.batch]; b > 0) {
    d.workload.batch = b;
    d.workload.batch_auto = false;
  }
}

perf::Design CompiledSpace::decode(PointId id) const {
  perf::Design d = hardware_design(id.hw);
  apply_inner(d, id.hw, id.inner);
  return d;
}

std::vector<Issue> validate(const CompiledSpace& cs) {
  const Space& sp = cs.space();
  std::vector<Issue> issues;
  const auto model_axis = std::find_if(sp.hardware.begin(), sp.hardware.end(),
                                       [](const HardwareAxis& x) { return x.knob == "model"; });
  if (cs.hardware_points() > 0)
    for (Issue& issue : perf::validate_base(cs.hardware_design(0)))
      // With a model axis, the models are checked one by one below, at the axis.
      if (model_axis == sp.hardware.end() || issue.path.rfind("/model", 0) != 0)
        issues.push_back(std::move(issue));
  for (std::size_t a = 0; a < sp.hardware.size(); ++a) {
    if (sp.hardware[a].knob != "model") continue;
    for (std::size_t i = 0; i < sp.models.size(); ++i) {
      perf::Design d = sp.base;
      d.model = sp.models[i];
      const std::string at =
          "/search/hardware/" + std::to_string(a) + "/values/" + std::to_string(i);
      for (Issue& issue : perf::validate_base(d)) {
        if (issue.path.rfind("/model", 0) != 0) continue;  // the workload's: reported above
        issue.path = at + issue.path.substr(std::string_view("/model").size());
        issues.push_back(std::move(issue));
      }
    }
  }
  if (cs.size() == 0)
    issues.push_back({"/search/parallel", "the space has no point: " + cs.empty_reason(), "",
                      "parallel degrees whose product is a device count of the space"});
  return issues;
}

PointId CompiledSpace::point_at(Count rank) const {
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    const Count inner = Count{classes_[c].groups.size()} * per_group_;
    const Count n = Count{hw_per_class_} * inner;
    if (rank < n) {
      return {c * hw_per_class_ + static_cast<std::uint64_t>(rank / inner),
              static_cast<std::uint64_t>(rank % inner)};
    }
    rank -= n;
  }
  throw std::out_of_range("point rank beyond the space size");
}

}  // namespace stackscope::search
