// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Co-exploration of a wafer-scale chip's architecture with how it serves a request stream
// (docs/model.md §17; WSC-LLM, ISCA 2025, co-explores the same two).
//
// A point = one value per axis. Wafer axes write a field of the base design's hw::Wafer (its
// area split between compute, SRAM, D2D PHYs and DRAM, the DRAM capacity and bandwidth per
// die, the die size and grid...); serving axes write the scheduler's limits or scale the load.
// Each point's wafer is laid out (hw::wafer_layout; a wafer that is not physical is infeasible
// with the layout's first issue), then the central scheduler (wafer::choose_partition) picks
// the partition (instance sizes and counts, pool plans, placement) of highest goodput under the
// SLOs, and that partition is run on the whole stream (wafer::run_on_wafer) for the point's
// metrics. The partition is therefore the inner, optimised dimension of every point, as in
// WSC-LLM, and the axes are the outer one.
//
// Indexing: mixed radix over the axes in the order given, the last varying fastest; the same
// index always decodes to the same point. Shards take the points with index % count == k (the
// engine's rule, search::Shard). The Pareto frontier is search::Archive over the chosen
// objectives (ties to the lowest index), so shard frontiers merge to the single-run frontier.
// A point is one work unit (a scheduler run of seconds to minutes), so the engine's bound
// pruning has nothing to gain here: every point is evaluated.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/search/archive.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/wafer/partition.hpp"

namespace stackscope::coexplore {

// What a point's design and serving are made of before an axis value is written.
struct PointConfig {
  perf::Design design;        // with a wafer
  serving::ServingSpec spec;  // scheduler limits, SLOs, router
  double load = 1;            // arrival-rate multiplier of the request stream
};

// ---- Axes: an explicit registry of knobs, looked up by name ----
enum class KnobTarget { wafer, serving };
struct Knob {
  std::string_view name;  // the hw::Wafer JSON key for wafer knobs (io/project.hpp "wafer")
  std::string_view description;
  std::string_view unit;
  KnobTarget target = KnobTarget::wafer;
  bool integer = false;
  double min = 0, max = std::numeric_limits<double>::infinity();  // inclusive
  void (*apply)(PointConfig& point, double value) = nullptr;
};
std::span<const Knob> knobs();
const Knob* find_knob(std::string_view name);  // null when unknown
std::string knob_names();                      // "a, b, c"

struct Axis {
  std::string knob;
  std::vector<double> values;  // in the knob's unit, in visiting order
};

enum class Metric {
  goodput_rps,          // requests/s meeting both SLOs (DistServe), per wafer
  goodput_per_kW,       // 1000 x goodput / wafer power
  goodput_per_die,      // goodput / usable dies
  slo_attainment,       // fraction of completed requests meeting both SLOs
  output_tokens_per_s,  // whole wafer
  ttft_p90_s,
  tpot_p90_s,
  energy_per_token_J,  // per output token, iterations + idle + KV transfers
  power_W,             // whole wafer (wafer/run.hpp)
  usable_dies,
};
std::string_view to_string(Metric m);
std::optional<Metric> metric_from_string(std::string_view s);
search::Direction default_direction(Metric m);  // rates maximised, the rest minimised
std::string metric_names();

struct Objective {
  Metric metric = Metric::goodput_rps;
  search::Direction direction = search::Direction::maximize;
};

// Points violating a constraint are never on the frontier (infinity/0 = none).
struct Constraints {
  double min_slo_attainment = 0;                                 // 0..1
  double max_power_W = std::numeric_limits<double>::infinity();  // whole wafer
};

struct Space {
  PointConfig base;
  std::vector<Axis> axes;
  Constraints constraints;
  std::vector<Objective> objectives{{Metric::goodput_rps, search::Direction::maximize},
                                    {Metric::goodput_per_kW, search::Direction::maximize}};
  // The central scheduler's settings for every point (threads and stop come from RunOptions).
  wafer::SchedulerOptions scheduler;
};

// A space checked and prepared for indexing. Throws ConfigError (issues at "/coexplore/...")
// for: a base design without a wafer, unknown knobs (naming the known ones), an empty or
// repeated axis, values out of a knob's range or not whole for integer knobs, no objectives or
// more than search::kMaxObjectives, constraints out of range.
class CompiledSpace {
 public:
  explicit CompiledSpace(Space space);
  const Space& space() const { return space_; }
  std::uint64_t size() const { return size_; }
  std::vector<std::size_t> digits(std::uint64_t index) const;
  std::vector<double> values(std::uint64_t index) const;  // one per axis
  // Base + every axis value applied, the static batch at 1 (as `serve`).
  PointConfig decode(std::uint64_t index) const;
  const Knob& knob(std::size_t axis) const { return *knobs_[axis]; }

 private:
  Space space_;
  std::vector<const Knob*> knobs_;
  std::vector<std::uint64_t> stride_;
  std::uint64_t size_ = 1;
};

// The checks of a co-exploration project beyond the space's structure (which CompiledSpace's
// constructor refuses with a ConfigError): the base design's model, workload and runtime
// (perf::validate_base: the points replace the wafer and the partition, not these) and the
// serving section with the ranges `serve` checks (serving::validate: rate, request count, SLOs,
// scheduler limits...), so a point is never run on a stream `serve` would refuse. `search` and
// `validate-project` call it after compiling (and after the CLI's --trace/--time-scale); empty
// means the co-exploration may run.
std::vector<Issue> validate(const CompiledSpace& space);

// One evaluated point.
struct Record {
  std::uint64_t index = 0;
  std::vector<double> values;  // axis values
  bool feasible = false;       // served, and within every constraint
  std::string reason;          // why not (layout issue, no partition, constraint)
  // Wafer.
  int dies_x = 0, dies_y = 0, usable_dies = 0, used_dies = 0;
  double die_mm2 = 0, wafer_yield = 0, dram_GB_per_die = 0, dram_TB = 0, sram_GB = 0;
  double peak_PFLOPS = 0;
  // Serving, with the chosen partition, on the whole stream.
  std::string partition;  // wafer::partition_text
  int prefill = 0, decode = 0;
  int candidates = 0;  // partitions the scheduler compared
  double goodput_rps = 0, slo_attainment = 0, output_tokens_per_s = 0;
  double ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;
  double tpot_p50_s = 0, tpot_p90_s = 0, tpot_p99_s = 0;
  double energy_per_token_J = 0, power_W = 0, goodput_per_kW = 0;
  double kv_transfer_p90_s = 0;
  std::size_t requests = 0;
  // The objective values in the space's order (raw, as metric() returns).
  std::vector<double> objectives;
};
double metric(const Record& r, Metric m);
// The archive's view of a record: id {index, 0}, feasibility, objectives.
search::PointRecord archive_record(const Record& r);

struct RunOptions {
  search::Shard shard;
  int threads = 0;  // the scheduler's threads per point (0 = hardware concurrency)
  // Points an earlier run finished (any order): skipped; their records seed the frontier.
  std::vector<Record> done;
  std::uint64_t max_points = 0;  // stop after this many new points (0 = no limit)
};

struct Progress {
  std::uint64_t total = 0;    // points of the shard
  std::uint64_t done = 0;     // finished, resumed ones included
  std::uint64_t resumed = 0;  // from RunOptions::done
  std::uint64_t feasible = 0;
  double elapsed_s = 0;
  // Seconds left at the rate of the last two minutes or two points (search/eta.hpp); 0 while
  // unknown (fewer than two points this run) and once the run is done.
  double eta_s = 0;
  std::size_t frontier = 0;
};

// Calls are serialised, from the thread that called run().
class Sink {
 public:
  virtual ~Sink() = default;
  // A finished point (never a resumed one), before the next starts.
  virtual void on_point(const Record& /*record*/) {}
  virtual void on_progress(const Progress& /*progress*/) {}
};

struct Summary {
  Progress progress;
  bool complete = false;  // every point of the shard is done
  bool stopped = false;
  std::vector<Record> records;   // every point done (resumed ones too), by index
  search::Archive archive;       // the frontier
  std::vector<Record> frontier;  // the frontier's records, by index
};

// One point, as run() evaluates it. `requests` is the stream at load 1.
Record evaluate(const CompiledSpace& space, std::uint64_t index,
                std::span<const serving::Request> requests, int threads = 0,
                std::stop_token stop = {});

// Every point of the shard not in options.done, in index order. Throws std::invalid_argument
// for a shard index >= count. A point cut short by `stop` is not reported or recorded.
Summary run(const CompiledSpace& space, std::span<const serving::Request> requests,
            const RunOptions& options, Sink& sink, std::stop_token stop = {});

// Requests with arrivals divided by `load` (load 2 = twice the rate), ids and lengths kept.
std::vector<serving::Request> scale_load(std::span<const serving::Request> requests, double load);

// Where the best value of `metric` lies along axis `axis`, for each combination of the other
// axes' values (a line): interior when both ends of the axis were evaluated and each is worse
// than the line's best feasible value by more than 1 % of it (so a plateau inside the axis is
// interior); best_value is the first axis value reaching the best.
struct OptimumAlongAxis {
  std::vector<double> others;  // the other axes' values (space order, `axis` left out)
  double best_value = 0;       // of `axis`
  double best_metric = 0;
  bool interior = false;
  bool found = false;  // some point of the line is feasible
};
std::vector<OptimumAlongAxis> optimum_along_axis(const CompiledSpace& space,
                                                 std::span<const Record> records, std::size_t axis,
                                                 Metric metric);

}  // namespace stackscope::coexplore
