// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A search space (docs/model.md §16.1): a base design, hardware axes (named knobs from an
// explicit registry), inner schedule axes (parallel degrees, sequence parallelism, batch,
// overlap, per-module degrees), constraints and objectives. Plain aggregates; the JSON mapping
// lives in core/io.
//
// Indexing: a point is (hardware index, inner index). Hardware points are a mixed-radix number
// over the hardware axes (the class axes - `devices`, then the model and workload axes - are the
// most significant digits, then the other axes in the order given, the last varying fastest). The
// inner space of a hardware point depends only on its device count: the valid parallel groups (tp,
// pp, ep, dp, cp, attention tp, MoE ep) in a fixed order, times sequence_parallel x batch x
// overlap, the group being the most significant digit, overlap the least. The same index always
// decodes to the same design.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::search {

// Exact counts of points; spaces of 10^14 points and more are common (DeepStack: 2.5 x 10^14).
__extension__ typedef unsigned __int128 Count;
std::string to_string(Count n);  // decimal
double to_double(Count n);       // for display and rates

// ---- Hardware knobs: an explicit registry, looked up by name ----
// A knob writes one value into a design. Multipliers ("scale") apply to the base design's value;
// every hardware point starts from a fresh copy of the base, so each knob is applied once.
// apply() throws std::invalid_argument when the value cannot be applied to this design (e.g.
// a device count the system's network levels cannot hold); Space compilation reports it.
// What a knob's value reaches, for the engine's pruning (engine.hpp):
//  - hardware: anything in the design;
//  - system: only Design::system (network levels), never the hardware, the device count or the
//    plan, so bounds that leave collectives out do not depend on it;
//  - workload: the model or the workload (Design::model, input/output lengths), never the
//    hardware or the system. Like `devices` it defines a class of hardware points: the valid
//    parallel groups, the memory footprint and the decode work depend on it, so class axes
//    (devices, then the workload axes in the order given) are the most significant digits.
enum class KnobEffect { hardware, system, workload };

struct Knob {
  std::string_view name;
  std::string_view description;
  std::string_view unit;
  bool integer = false;  // values must be whole numbers
  double min = 0;        // smallest allowed value (inclusive)
  void (*apply)(perf::Design& design, double value) = nullptr;
  KnobEffect effect = KnobEffect::hardware;
  // Largest allowed value (inclusive). Integer knobs stay far inside int (space.cpp says why
  // each bound), so no value that passes can wrap or overflow a product.
  double max = std::numeric_limits<double>::infinity();
  // True when a stack described layer by layer (hw::Memory::layers) sets this quantity for
  // every die, so an axis on the knob would leave the design unchanged (CompiledSpace refuses
  // it); null for knobs the layer list never overrides.
  bool (*set_by_layers)(const hw::Memory& memory) = nullptr;
};
std::span<const Knob> knobs();
// Null when unknown.
const Knob* find_knob(std::string_view name);
// "a, b, c": the known knob names, for error messages.
std::string knob_names();

// Values one axis may hold, a list or an expanded range (8 MiB of doubles): far above any
// useful sweep, while a factor of 1.0000000001 (10^11 values) is refused before it is expanded.
inline constexpr std::uint64_t kMaxAxisValues = std::uint64_t{1} << 20;

// Value lists; ranges expand to lists. linear: min, min+step, ... <= max (+1e-9 relative
// slack); geometric: min, min*factor, ... <= max. Throw std::invalid_argument on empty or
// non-terminating ranges (step <= 0, factor <= 1, min > max) and on ranges of more than
// kMaxAxisValues values (counted first, never expanded).
std::vector<double> linear_range(double min, double max, double step);
std::vector<double> geometric_range(double min, double max, double factor);

// How many values linear_range / geometric_range give, counted without expanding: exact up to
// 2 x kMaxAxisValues (the expansion's own loop, run without storing), the closed form
// (max - min) / step + 1 or log(max / min) / log(factor) + 1 above, saturating at UINT64_MAX.
// Throw std::invalid_argument for the ranges the expansions refuse as non-terminating.
std::uint64_t linear_range_count(double min, double max, double step);
std::uint64_t geometric_range_count(double min, double max, double factor);

// Points of a space whose axes have these sizes: the product, exact, saturating at the largest
// Count (a space of 10^14 points is common, of 2^128 is not searchable either way).
Count count_points(std::span<const std::uint64_t> axis_sizes);

struct HardwareAxis {
  std::string knob;            // a name from knobs()
  std::vector<double> values;  // in the knob's unit, in visiting order
};

// Inner (schedule) axes. Empty per-module lists keep the base plan's value. An empty batch list
// keeps the base workload's batch (or batch_auto). A (tp, pp, ep, dp, cp, attention tp, moe ep)
// combination is a point of the space only if tp*pp*ep*dp*cp equals the hardware point's device
// count and perf::validate() finds no /parallel issue for it (divisibility of heads, FFN, experts,
// prompt by cp, pp <= layers, module plans using the whole stage...).
struct InnerAxes {
  std::vector<int> tp{1}, pp{1}, ep{1}, dp{1}, cp{1};
  std::vector<int> sequence_parallel{0};  // 0 = off, 1 = on
  std::vector<int> batch;                 // requests per replica (>= 1)
  std::vector<parallel::Overlap> overlap{parallel::Overlap::off};
  std::vector<int> attention_tp;  // Plan::attention.tp values (0 = derived from tp)
  std::vector<int> moe_ep;        // Plan::moe.ep values (0 = derived)
};

// Points violating a constraint, and infeasible results, are never on the frontier.
// Infinity = no constraint.
struct Constraints {
  double max_power_W = std::numeric_limits<double>::infinity();  // mean power per device
  double max_die_area_mm2 = std::numeric_limits<double>::infinity();
  double max_dram_C = std::numeric_limits<double>::infinity();  // compact-model DRAM peak
  double ttft_slo_s = std::numeric_limits<double>::infinity();
  double tpot_slo_s = std::numeric_limits<double>::infinity();
};

enum class Metric {
  stps,                // system decode tokens/s (perf::Metrics::stps)
  stps_per_device,     // stps / devices
  stps_per_mm2,        // stps / (die area x devices), silicon of the whole system
  stps_per_W,          // stps / (mean power per device x devices)
  utps,                // 1 / tpot
  energy_per_token_j,  // J per output token, whole system
  area_mm2,            // die area x devices
  ttft_s,
  tpot_s,
};
enum class Direction { maximize, minimize };
std::string_view to_string(Metric m);
std::string_view to_string(Direction d);
// Throughputs are maximised, the rest minimised.
Direction default_direction(Metric m);

struct Objective {
  Metric metric = Metric::stps;
  Direction direction = Direction::maximize;
};
inline Objective objective(Metric m) {
  return {m, default_direction(m)};
}
inline constexpr std::size_t kMaxObjectives = 8;

// A whole device and system to compare (e.g. GPUs vs 3D-stacked chips), chosen by the
// "variant" hardware axis (values = indices into Space::variants).
struct Variant {
  std::string name;
  hw::Hardware hardware;
  hw::System system;
  // Every variant runs under the base design's runtime profile (a fair comparison: the same
  // software on every side) unless the user gives this variant its own.
  std::optional<runtime::Profile> runtime;
};

struct Space {
  perf::Design base;
  std::vector<Variant> variants;
  std::vector<workload::Model> models;  // chosen by the "model" axis (values = indices)
  std::vector<HardwareAxis> hardware;
  InnerAxes inner;
  Constraints constraints;
  std::vector<Objective> objectives{objective(Metric::stps), objective(Metric::utps)};
};

// The name of an index-valued axis value: the variant's name ("variant" axis), the model's id
// ("model" axis); empty for numeric axes (format the number).
std::string axis_value_name(const Space& space, std::size_t axis, double value);

class CompiledSpace;

// The checks of a search project beyond the space's structure (which CompiledSpace's
// constructor refuses with a ConfigError): the base design's model, workload and runtime
// (perf::validate_base, at the axes' first values; a workload with output_len 0 makes every
// point invalid, and the search would visit them all), every model of the "model" axis (at
// /search/hardware/<axis>/values/<i>/...), and a space with no point (at /search/parallel, with
// empty_reason()). `search`, `validate-project` and the GUI call it after compiling; empty
// means the search may run.
std::vector<Issue> validate(const CompiledSpace& space);

// One parallel combination of the inner space.
struct ParallelGroup {
  int tp = 1, pp = 1, ep = 1, dp = 1, cp = 1;
  int attention_tp = 0, moe_ep = 0;
};

struct PointId {
  std::uint64_t hw = 0;
  std::uint64_t inner = 0;
  friend auto operator<=>(const PointId&, const PointId&) = default;
};

// Inner index split into its digits.
struct InnerDigits {
  std::uint64_t group = 0;
  std::size_t sequence_parallel = 0, batch = 0, overlap = 0;
};

// A space checked and prepared for indexing. Immutable after construction; thread-safe.
class CompiledSpace {
 public:
  // Throws ConfigError (issues with paths below "/search") when the space is unusable: unknown
  // knobs, values out of range or not applicable, no objectives, too many objectives...
  explicit CompiledSpace(Space space);

  const Space& space() const { return space_; }
  std::uint64_t hardware_points() const { return hw_points_; }
  // Exact number of points: sum over hardware points of their inner points.
  Count size() const { return size_; }
  // Why size() is 0 (no parallel plan fits any device count, or every one that does fails
  // validation, with the first such plan and its issue); empty when the space has points.
  const std::string& empty_reason() const { return empty_reason_; }
  // Points of shard `index` of `count` (hardware points with hw % count == index).
  Count points_in_shard(std::uint64_t index, std::uint64_t count) const;
  // Inner points of one hardware point.
  std::uint64_t inner_points(std::uint64_t hw) const;
  // Valid parallel groups for this hardware point's device count.
  std::span<const ParallelGroup> groups(std::uint64_t hw) const;
  // Points per parallel group: sequence_parallel x batch x overlap.
  std::uint64_t points_per_group() const { return per_group_; }
  // Device count of a hardware point.
  int devices(std::uint64_t hw) const;

  // Digit (value index) of each hardware axis at hardware point `hw`, in Space::hardware order,
  // and the axis values themselves (in the knobs' units).
  std::vector<std::size_t> hardware_digits(std::uint64_t hw) const;
  std::vector<double> hardware_values(std::uint64_t hw) const;
  // The hardware point's design (base plan and workload; parallel plan not yet set).
  perf::Design hardware_design(std::uint64_t hw) const;
  // Writes the inner point's plan and batch into a design made by hardware_design(id.hw).
  void apply_inner(perf::Design& design, std::uint64_t hw, std::uint64_t inner) const;
  InnerDigits inner_digits(std::uint64_t inner) const;
  std::uint64_t inner_index(const InnerDigits& digits) const;
  // Hardware index from one digit per axis (in the order of Space::hardware).
  std::uint64_t hardware_index(std::span<const std::size_t> digits) const;
  // Batch of a batch digit: 0 = the base workload's (auto or fixed) batch.
  int batch_value(std::size_t digit) const;
  std::size_t batch_count() const { return batches_.size(); }
  perf::Design decode(PointId id) const;

  // Device classes (one per combination of the class axes' values - devices, model,
  // workload -, or one): hardware points of a class share the device count, the model and
  // workload, and the parallel groups.
  std::size_t device_classes() const { return classes_.size(); }
  std::size_t device_class(std::uint64_t hw) const { return class_of(hw); }
  // The first hardware point of class `c`.
  std::uint64_t class_hardware(std::size_t c) const { return c * hw_per_class_; }
  // Axis a's digit of hardware point hw, without decoding the others.
  std::size_t hardware_digit(std::uint64_t hw, std::size_t a) const {
    return static_cast<std::size_t>(hw / stride_[a] % space_.hardware[a].values.size());
  }
  // Weight of one step of axis a in the hardware index.
  std::uint64_t hardware_stride(std::size_t a) const { return stride_[a]; }
  // Axes in index order, most significant first.
  std::span<const std::size_t> axis_order() const { return order_; }
  const Knob* knob(std::size_t a) const { return knob_[a]; }

  // The point with global rank `rank` (0 <= rank < size()), hardware-major order. Used by
  // random sampling to draw uniformly over all points.
  PointId point_at(Count rank) const;

 private:
  struct DeviceClass {
    int devices = 1;
    std::vector<ParallelGroup> groups;
  };
  Space space_;
  std::vector<const Knob*> knob_;      // per axis
  std::vector<std::size_t> order_;     // axis indices, most significant first
  std::vector<std::uint64_t> stride_;  // per axis
  std::vector<int> batches_;           // batch digit -> value (0 = base)
  std::vector<DeviceClass> classes_;   // per value of the devices axis (or one)
  int devices_axis_ = -1;
  int variant_axis_ = -1;
  int model_axis_ = -1;
  std::vector<std::size_t> class_axes_;  // devices, then workload axes (index order)
  std::uint64_t hw_points_ = 1;
  std::uint64_t hw_per_class_ = 1;  // hardware points sharing one devices value
  std::uint64_t per_group_ = 1;
  Count size_ = 0;
  std::string empty_reason_;

  std::size_t class_of(std::uint64_t hw) const;
};

}  // namespace stackscope::search
