// SPDX-License-Identifier: GPL-3.0-or-later
// `search` and `merge`: run the core search engine over a project's search space,
// stream points to DIR/points.jsonl, write the frontier and a summary atomically, resume a killed
// run, run one shard of a partition, and merge shard frontiers.
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>

#include "coexplore_run.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "mpi_search.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/search/engine.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> search_options() {
  return {
      {"--strategy", "NAME", "exhaustive (default, or the project's), random or nsga2"},
      {"--threads", "N", "worker threads (default: all cores)"},
      {"--max-evals", "N", "stop after N evaluations"},
      {"--time-limit", "S", "stop after S seconds"},
      {"--seed", "N", "random seed (random strategy)"},
      {"--samples", "N", "points to draw (random strategy)"},
      {"--population", "N", "NSGA-II population (default 64)"},
      {"--generations", "N", "NSGA-II generations (default 50)"},
      {"--out", "DIR", "write points.jsonl, frontier.json, frontier.csv, summary.json to DIR"},
      {"--resume", "", "continue the search logged in --out DIR"},
      {"--log", "WHAT",
       "points.jsonl holds: frontier (points that entered the frontier when "
       "found; default) or all (every evaluated point)"},
      {"--shard", "K/N",
       "run shard K of N (0 <= K < N), e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"},
      {"--mpi", "",
       "under mpirun -np N: rank r runs shard r/N, rank 0 gathers and reports the frontier "
       "(--out DIR: each rank logs to DIR/rank-r)"},
      {"--no-bound-pruning", "", "evaluate every feasible point (for checking the pruning)"},
      {"--max-points", "N", "co-exploration: stop after N new points (resume later)"},
      {"--trace", "FILE", "co-exploration: the request stream from this trace (as serve --trace)"},
      {"--time-scale", "X", "co-exploration: trace arrivals x X faster"},
      {"--json", "",
       "print space_size, evaluated, pruned, evaluations_per_second, points_per_second, "
       "evaluations_per_core_second, frontier"},
      {"--help", "", "show this help"},
  };
}

// Streams points to the log and keeps the live progress line. With log_all false only points
// that enter the sink's own frontier when they arrive are logged: any other point is dominated
// by a point delivered earlier, which was logged (or, if its unit is redone after a kill,
// found again), so the resumed frontier is still exact while the log stays small.
class CliSink final : public search::ResultSink {
 public:
  CliSink(io::SearchLog* log, bool log_all, std::span<const search::Objective> objectives, bool tty,
          std::ostream& err)
      : log_(log), log_all_(log_all), seen_(objectives), tty_(tty), err_(err) {}
  void on_batch(std::span<const search::PointRecord> points) override {
    for (const auto& p : points) {
      if (p.feasible) {
        ++feasible_;
        continue;
      }
      for (std::uint32_t b = 0; b < 32; ++b)
        if (p.reasons & (1u << b)) ++reasons_[b];
    }
    if (!log_) return;
    if (log_all_) {
      log_->append(points);
      return;
    }
    keep_.clear();
    for (const auto& p : points)
      if (seen_.insert(p)) keep_.push_back(p);
    if (!keep_.empty()) log_->append(keep_);
  }
  void on_unit_done(std::uint64_t unit, const search::UnitStats& s) override {
    if (log_) log_->unit_done(unit, {s.evaluated, s.pruned, s.pruned_bound, s.infeasible});
  }
  void on_progress(const search::Progress& p) override {
    if (!tty_) return;
    const double total = search::to_double(p.total);
    const double done = static_cast<double>(p.evaluated + p.pruned + p.resumed);
    char line[200];
    std::snprintf(line, sizeof line,
                  "\r  %5.1f %%  evaluated %llu  pruned %llu  %s pts/s  ETA %s  frontier %zu   ",
                  total > 0 ? 100.0 * done / total : 0.0,
                  static_cast<unsigned long long>(p.evaluated),
                  static_cast<unsigned long long>(p.pruned), readable(p.rate_per_s).c_str(),
                  p.eta_s > 0 ? (readable(p.eta_s) + " s").c_str() : "-", p.frontier);
    err_ << line << std::flush;
    shown_ = true;
  }
  void end_line() {
    if (shown_) err_ << "\n";
  }
  std::uint64_t feasible() const { return feasible_; }
  // The reason bit most evaluated points failed on (0 when none failed).
  std::uint32_t commonest_reason(std::uint64_t* count) const {
    std::size_t best = 0;
    for (std::size_t b = 1; b < reasons_.size(); ++b)
      if (reasons_[b] > reasons_[best]) best = b;
    *count = reasons_[best];
    return reasons_[best] > 0 ? 1u << best : 0;
  }

 private:
  io::SearchLog* log_;
  bool log_all_;
  search::Archive seen_;
  std::vector<search::PointRecord> keep_;
  bool tty_;
  std::ostream& err_;
  bool shown_ = false;
  std::uint64_t feasible_ = 0;
  std::array<std::uint64_t, 32> reasons_{};
};

std::string plan_cell(const search::CompiledSpace& space, const search::PointRecord& p) {
  return parallel::short_text(space.decode(p.id).parallel);
}

void print_frontier(const search::CompiledSpace& space, const search::Archive& a,
                    std::ostream& out) {
  std::vector<std::string> head = {"#"};
  std::string align = "r";
  // One column per hardware axis (the knob's last name part), then the schedule.
  for (const auto& axis : space.space().hardware) {
    if (axis.knob == "devices") continue;  // the devices column below
    const auto dot = axis.knob.rfind('.');
    head.push_back(dot == std::string::npos ? axis.knob : axis.knob.substr(dot + 1));
    align += 'r';
  }
  head.insert(head.end(), {"devices", "plan", "batch"});
  align += "rlr";
  for (const auto& o : a.objectives()) {
    head.emplace_back(std::string(search::to_string(o.metric)) +
                      (o.direction == search::Direction::maximize ? " (max)" : " (min)"));
    align += 'r';
  }
  head.insert(head.end(), {"TPOT ms", "W/device"});
  align += "rr";
  Table t(head, align);
  const auto pts = a.sorted();
  constexpr std::size_t kShown = 30;
  for (std::size_t i = 0; i < pts.size() && i < kShown; ++i) {
    const auto& p = pts[i];
    std::vector<std::string> row = {std::to_string(i + 1)};
    const auto values = space.hardware_values(p.id.hw);
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (space.space().hardware[k].knob == "devices") continue;
      if (auto name = search::axis_value_name(space.space(), k, values[k]); !name.empty()) {
        row.push_back(std::move(name));
        continue;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", values[k]);
      row.emplace_back(buf);
    }
    row.insert(row.end(),
               {std::to_string(p.devices), plan_cell(space, p), std::to_string(p.batch)});
    for (int k = 0; k < p.n_objectives; ++k)
      row.push_back(readable(p.objectives[static_cast<std::size_t>(k)]));
    row.push_back(fixed(p.tpot_s * 1e3, 3));
    row.push_back(fixed(p.power_w, 1));
    t.row(std::move(row));
  }
  out << t.str();
  if (pts.size() > kShown)
    out << "  (" << pts.size() - kShown << " more points in frontier.json)\n";
}

// The exception being handled as "error: ..." lines and an exit code, as run() does (for the
// MPI path, where a rank must report before the job ends).
struct ErrorReport {
  std::vector<std::string> lines;
  int code = kExitBadInput;
};
ErrorReport current_error() {
  try {
    throw;
  } catch (const CliError& e) {
    return {e.lines()};
  } catch (const ConfigError& e) {
    ErrorReport r;
    for (const auto& issue : e.issues()) r.lines.push_back(format_issue(issue));
    if (r.lines.empty()) r.lines.emplace_back(e.what());
    return r;
  } catch (const std::filesystem::filesystem_error& e) {
    return {{e.what()}};
  } catch (const std::exception& e) {
    return {{std::string("internal: ") + e.what()}, kExitInternal};
  } catch (...) {
    return {{"internal: unknown exception"}, kExitInternal};
  }
}

// The points log of one run (or one rank) and what a resumed run had finished.
struct LogState {
  std::optional<io::SearchLog> log;
  io::ResumeState resumed;
};

// Creates DIR/points.jsonl, or reopens it with --resume and seeds `opt` with the finished units
// and frontier. `who` prefixes the resume message ("" or "rank 1: ").
LogState open_log(const std::filesystem::path& dir, const io::SearchProject& sp,
                  const search::CompiledSpace& space, search::RunOptions& opt, bool resume,
                  const std::string& who, std::ostream& err) {
  const char* strategy = opt.strategy == search::Strategy::random  ? "random"
                         : opt.strategy == search::Strategy::nsga2 ? "nsga2"
                                                                   : "exhaustive";
  const std::uint64_t n = opt.shard.count, k = opt.shard.index;
  const bool random = opt.strategy == search::Strategy::random;
  const std::uint64_t units = search::shard_units(space, opt);
  io::SearchLogHeader header{sp.fingerprint,
                             strategy,
                             random ? opt.seed : 0,
                             random ? opt.samples : 0,
                             opt.shard.index,
                             opt.shard.count,
                             sp.canonical,
                             sp.legacy_fingerprint};
  if (opt.strategy == search::Strategy::exhaustive) {
    header.units = units;
    header.strata_order = !opt.index_order;
  }
  LogState s;
  // One write per line: under mpirun the ranks share stderr.
  auto notes = [&](const std::vector<std::string>& lines) {
    for (const auto& line : lines) err << who + "note: " + line + "\n" << std::flush;
  };
  if (!resume) {
    std::vector<std::string> replaced;
    s.log.emplace(io::SearchLog::create(dir, header, &replaced));
    notes(replaced);
    return s;
  }
  // What the log's records are checked against: the run's work units, and points of the space
  // in this shard (a corrupted record must not resume as finished work).
  io::ResumeLimits limits;
  limits.units = units;
  limits.point_ok = [&space, random, n, k, units](const search::PointRecord& p) {
    if (p.id.hw >= space.hardware_points() || p.id.inner >= space.inner_points(p.id.hw))
      return false;
    return random ? p.unit < units : p.unit == p.id.hw && p.id.hw % n == k;
  };
  s.log.emplace(io::SearchLog::resume(dir, header, space.space().objectives, s.resumed, limits));
  notes(s.resumed.notes);
  opt.resume_below = s.resumed.done_below;
  opt.index_order = !s.resumed.strata_order;
  const auto seed = s.resumed.archive.sorted();
  opt.seed_points.assign(seed.begin(), seed.end());
  std::string line = who + "resuming: " + std::to_string(s.resumed.done_below) +
                     " finished work units, " + std::to_string(s.resumed.archive.size()) +
                     " frontier points";
  if (s.resumed.dropped_points)
    line += "; " + std::to_string(s.resumed.dropped_points) +
            " points of unfinished units re-evaluated";
  err << line + "\n" << std::flush;
  return s;
}

// Why nothing was feasible, from the points this process evaluated.
struct Infeasibility {
  std::uint64_t feasible = 0;   // points found feasible
  std::uint32_t commonest = 0;  // reason bit (perf::Infeasibility | search::SearchReason)
  std::uint64_t count = 0;      // points that failed on it
};

// Runs the search (of one shard) and adds the counters of the resumed, earlier part.
search::Summary execute(const search::CompiledSpace& space, const search::RunOptions& opt,
                        LogState& state, bool log_all, bool tty, std::ostream& err,
                        Infeasibility* why = nullptr, std::stop_token stop = {}) {
  CliSink sink(state.log ? &*state.log : nullptr, log_all, space.space().objectives, tty, err);
  search::Summary sum = search::run(space, opt, sink, stop);
  sink.end_line();
  if (why) {
    why->feasible = sink.feasible();
    why->commonest = sink.commonest_reason(&why->count);
  }
  if (state.log) state.log->flush_watermark();
  const auto& r = state.resumed.totals;
  sum.progress.evaluated += r.evaluated;
  sum.progress.pruned += r.pruned;
  sum.progress.pruned_bound += r.pruned_bound;
  sum.progress.infeasible += r.infeasible;
  return sum;
}

// The result files of write_results(), checked once the log holds the directory, so that a
// FIFO or a folder in their place is refused before the search rather than after it.
void check_results(const std::filesystem::path& dir) {
  for (const char* f : {"frontier.json", "frontier.csv", "summary.json"})
    io::check_output(dir / f, "--out");
}

void write_results(const std::filesystem::path& dir, const search::CompiledSpace& space,
                   const search::Summary& sum, const std::string& fingerprint) {
  io::write_output(dir / "frontier.json", io::frontier_to_json(space, sum.archive, fingerprint),
                   "--out");
  io::write_output(dir / "frontier.csv", io::frontier_to_csv(space, sum.archive), "--out");
  io::write_output(dir / "summary.json", io::summary_to_json(space, sum), "--out");
}

std::string reason_text(std::uint32_t bit) {
  switch (bit) {
    case search::kInvalidPoint: return "the design is invalid (perf::validate)";
    case search::kViolatesPower: return "mean power per device over constraints/max_power_W";
    case search::kViolatesArea: return "die area over constraints/max_die_area_mm2";
    case search::kViolatesDramTemp: return "DRAM peak temperature over constraints/max_dram_C";
    case search::kViolatesTtft: return "TTFT over constraints/ttft_slo_s";
    case search::kViolatesTpot: return "TPOT over constraints/tpot_slo_s";
    default: {
      const auto d = perf::describe(bit);
      return d.empty() ? "unknown" : d.front();
    }
  }
}

// The status line. A complete run that found no feasible point says so (exit code 0 still:
// the search did what was asked, and a shard of a feasible space may hold none), with the
// commonest reason among the points this process evaluated.
std::string status_text(const search::Summary& sum, const search::Shard& shard,
                        const Infeasibility* why) {
  const std::string status = sum.complete       ? "complete: the frontier is exact"
                             : sum.stopped      ? "stopped"
                             : sum.time_limited ? "time limit reached (resume with --resume)"
                                                : "evaluation limit reached";
  if (sum.archive.size() > 0) return status;
  if (sum.progress.total == 0)
    return "no points: the space has no point (no parallel plan of /search/parallel gives "
           "tp*pp*ep*dp*cp = a device count of the space and passes validation)";
  if (!sum.complete) return status + "; no feasible point found yet";
  std::string s = "complete: no point " +
                  std::string(shard.count > 1 ? "of this shard" : "of the space") + " is feasible";
  if (why && why->count > 0)
    s += " (commonest reason: " + reason_text(why->commonest) + ", " + std::to_string(why->count) +
         " of " + std::to_string(sum.progress.evaluated) + " evaluated points)";
  else if (sum.progress.pruned > 0 && sum.progress.pruned_bound == sum.progress.pruned)
    s += " (every point was pruned: even its optimistic bound misses the TTFT or TPOT SLO)";
  else if (sum.progress.pruned > 0)
    s += " (every point was pruned before evaluation: the memory footprint, die area, static "
         "power or DRAM temperature of its hardware alone fails)";
  return s + "; relax the constraints or widen the space";
}

// The report on stdout (table or --json). `ranks` > 0 for an MPI run over that many ranks.
void report(const search::CompiledSpace& space, const search::Summary& sum,
            const search::Shard& shard, bool json, const std::optional<std::string>& out_dir,
            int ranks, std::ostream& out, const Infeasibility* why = nullptr) {
  const auto& p = sum.progress;
  const std::string status = status_text(sum, shard, why);
  const bool none_feasible = sum.complete && (sum.archive.size() == 0);
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.evaluated) / p.elapsed_s : 0.0;
  if (json) {
    out << io::search_report_to_json(space, sum, status);
    return;
  }
  out << "space        " << search::to_string(sum.space_size) << " points ("
      << space.hardware_points() << " hardware points)";
  if (shard.count > 1)
    out << "; shard " << shard.index << "/" << shard.count << ": " << search::to_string(p.total)
        << " points";
  if (ranks > 0) out << "\nranks        " << ranks << " (MPI; rank r ran shard r/" << ranks << ")";
  out << "\nevaluated    " << p.evaluated << " (" << p.infeasible
      << " infeasible or outside the constraints)\n"
      << "pruned       " << p.pruned << " (" << p.pruned_bound << " by optimistic bounds)\n"
      << "time         " << fixed(p.elapsed_s, 2) << " s, " << readable(rate) << " evaluations/s ("
      << readable(p.evaluator_s > 0 ? static_cast<double>(p.evaluated) / p.evaluator_s : 0.0)
      << " per core-second inside the evaluator), "
      << readable(p.elapsed_s > 0
                      ? (static_cast<double>(p.evaluated) + static_cast<double>(p.pruned)) /
                            p.elapsed_s
                      : 0.0)
      << " points/s decided\n"
      << "status       " << status << "\n\nfrontier (" << sum.archive.size() << " points)\n";
  if (!none_feasible) print_frontier(space, sum.archive, out);
  if (out_dir) {
    out << "\nwritten to " << *out_dir << "/ (frontier.json, frontier.csv, summary.json, "
        << (ranks > 0 ? "rank-*/points.jsonl" : "points.jsonl") << ")\n";
  }
}

// `search --mpi`: rank r of N runs shard r/N (logging to DIR/rank-r), rank 0 gathers the
// counters and frontiers and reports like a single-process run. Set-up failures (a log
// directory that exists, a missing one on --resume) end every rank with exit 2 after one
// collective check; a failure during or after the search ends the job with MPI_Abort.
int run_search_mpi(const search::CompiledSpace& space, search::RunOptions opt,
                   const io::SearchProject& sp, bool resume, bool log_all, bool json,
                   const std::optional<std::string>& out_dir, Context& ctx) {
  mpi::World world;
  const std::string who = "rank " + std::to_string(world.rank()) + ": ";
  opt.shard = {static_cast<std::uint64_t>(world.rank()), static_cast<std::uint64_t>(world.size())};
  LogState state;
  std::optional<ErrorReport> setup_error;
  try {
    if (out_dir) {
      const auto dir = std::filesystem::path(*out_dir) / ("rank-" + std::to_string(world.rank()));
      state = open_log(dir, sp, space, opt, resume, who, ctx.err);
      if (world.rank() == 0) check_results(*out_dir);  // rank 0 writes the merged results
    }
  } catch (...) {
    setup_error = current_error();
  }
  if (!world.all_ok(!setup_error)) {
    if (setup_error)
      for (const auto& line : setup_error->lines) ctx.err << "error: " + who + line + "\n";
    return setup_error ? setup_error->code : kExitBadInput;
  }
  try {
    const bool tty = world.rank() == 0 && ::isatty(STDERR_FILENO) == 1 && !json;
    const search::Summary mine = execute(space, opt, state, log_all, tty, ctx.err);
    state.log.reset();  // close the rank's log before reporting
    const auto all = world.gather(mine, space.space().objectives);
    if (!all) return kExitOk;  // only rank 0 reports
    if (out_dir) write_results(*out_dir, space, *all, sp.fingerprint);
    report(space, *all, {}, json, out_dir, world.size(), ctx.out);
    ctx.out.flush();
  } catch (...) {
    const ErrorReport e = current_error();
    for (const auto& line : e.lines) ctx.err << "error: " + who + line + "\n";
    ctx.err.flush();
    world.abort(e.code);
  }
  return kExitOk;
}

int run_search(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = search_options();
  const ParsedArgs a = parse_args("search", args, options, 1);
  if (a.has("--help") || a.positional.empty()) {
    if (!a.has("--help"))
      throw CliError(
          "search: missing PROJECT.json (a project with a \"search\" section) or a search preset "
          "id");
    print_command_help(make_search_command(), ctx.out);
    return kExitOk;
  }
  const bool use_mpi = a.has("--mpi");
  if (use_mpi && a.has("--shard"))
    throw CliError(
        "search: --mpi and --shard exclude each other (--mpi runs shard r/N on rank r of "
        "mpirun -np N; --shard K/N is for separate processes, e.g. Slurm job arrays)");
  if (use_mpi && !mpi::available())
    throw CliError(
        "search: --mpi: this build has no MPI support; install libopenmpi-dev and rebuild "
        "(or run shards with --shard K/N and combine them with `stackscope-cli merge`)");
  {
    // A co-exploration project (a "coexplore" section): wafer x serving, cmd_coexplore.cpp.
    const std::string& arg = a.positional.front();
    std::error_code ec;
    if (!ctx.presets.contains(io::PresetKind::search, arg) &&
        std::filesystem::is_regular_file(arg, ec)) {
      const std::string text = io::read_project_text(arg);
      if (io::has_coexplore_section(text))
        return run_coexplore(a, args, text, std::filesystem::path(arg).parent_path(), ctx);
    } else if (ctx.presets.contains(io::PresetKind::project, arg)) {
      const std::string text(ctx.presets.json_text(io::PresetKind::project, arg));
      if (io::has_coexplore_section(text)) return run_coexplore(a, args, text, {}, ctx);
    }
  }
  for (const char* o : {"--max-points", "--trace", "--time-scale"})
    if (a.has(o))
      throw CliError(std::string("search: ") + o +
                     " is for co-exploration projects (a \"coexplore\" section)");
  io::SearchProject sp = io::resolve_search_project(a.positional.front(), ctx.presets);
  search::RunOptions opt = sp.run;
  opt.threads = 0;
  if (auto v = a.get("--strategy")) {
    if (*v == "exhaustive")
      opt.strategy = search::Strategy::exhaustive;
    else if (*v == "random")
      opt.strategy = search::Strategy::random;
    else if (*v == "nsga2")
      opt.strategy = search::Strategy::nsga2;
    else
      throw CliError("search: unknown --strategy '" + *v +
                     "' (allowed: exhaustive, random, nsga2)");
  }
  if (auto v = a.get("--threads"))
    opt.threads = static_cast<int>(parse_int("--threads", *v, 1, 1024));
  if (auto v = a.get("--max-evals"))
    opt.max_evals = static_cast<std::uint64_t>(parse_int("--max-evals", *v, 1, INT64_MAX));
  if (auto v = a.get("--time-limit"))
    opt.time_limit_s = parse_double("--time-limit", *v, 1e-3, 1e9);
  if (auto v = a.get("--seed"))
    opt.seed = static_cast<std::uint64_t>(parse_int("--seed", *v, 0, INT64_MAX));
  if (auto v = a.get("--samples"))
    opt.samples = static_cast<std::uint64_t>(parse_int("--samples", *v, 1, INT64_MAX));
  if (auto v = a.get("--population"))
    opt.population = static_cast<std::size_t>(parse_int("--population", *v, 2, 1'000'000));
  if (auto v = a.get("--generations"))
    opt.generations = static_cast<std::size_t>(parse_int("--generations", *v, 1, 1'000'000));
  if (auto v = a.get("--shard")) opt.shard = parse_shard(*v);
  if (opt.strategy == search::Strategy::nsga2 && opt.shard.count > 1)
    throw CliError("search: --shard does not apply to --strategy nsga2 (use exhaustive or random)");
  if (opt.strategy == search::Strategy::nsga2 && use_mpi)
    throw CliError("search: --mpi does not apply to --strategy nsga2 (use exhaustive or random)");
  if (opt.strategy == search::Strategy::nsga2 && a.has("--resume"))
    throw CliError("search: --resume applies to exhaustive and random searches, not nsga2");
  if (a.has("--no-bound-pruning")) opt.prune_bounds = false;
  const bool resume = a.has("--resume");
  bool log_all = false;
  if (auto v = a.get("--log")) {
    if (*v == "all")
      log_all = true;
    else if (*v != "frontier")
      throw CliError("search: unknown --log '" + *v + "' (allowed: frontier, all)");
  }
  const bool json = a.has("--json");
  const auto out_dir = a.get("--out");
  if (resume && !out_dir)
    throw CliError("search: --resume needs --out DIR (the search to continue)");

  // Every rank checks the space before MPI starts, so bad input never meets a collective.
  const search::CompiledSpace space(std::move(sp.space));
  // The base workload, the models, a space with no point (as validate-project checks them).
  if (auto issues = search::validate(space); !issues.empty()) throw ConfigError(std::move(issues));
  if (use_mpi) return run_search_mpi(space, opt, sp, resume, log_all, json, out_dir, ctx);

  // Ctrl-C stops the workers at their next point; finished units stay logged, the rest of the
  // log is dropped on resume (io::SearchLog), and what was found so far is written and shown.
  // Installed before the log is opened, so that a signal from then on is always handled.
  const Interrupt interrupt;
  LogState state;
  if (out_dir) {
    state = open_log(*out_dir, sp, space, opt, resume, "", ctx.err);
    check_results(*out_dir);
  }
  const bool tty = ::isatty(STDERR_FILENO) == 1 && !json;
  Infeasibility why;
  const search::Summary sum =
      execute(space, opt, state, log_all, tty, ctx.err, &why, interrupt.token());
  if (out_dir) write_results(*out_dir, space, sum, sp.fingerprint);
  report(space, sum, opt.shard, json, out_dir, 0, ctx.out, &why);
  if (interrupt.interrupted()) {
    ctx.out.flush();
    if (opt.strategy == search::Strategy::nsga2)
      ctx.err << "interrupted: an nsga2 search does not resume; run it again\n";
    else if (!out_dir)
      ctx.err << "interrupted: nothing was logged; run with --out DIR to be able to resume\n";
    else
      ctx.err << "interrupted: the log in " << *out_dir << " is consistent; continue with:\n  "
              << resume_command("search", args) << "\n";
    return kExitInterrupted;
  }
  return kExitOk;
}

int run_merge(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = {
      {"--out", "DIR", "write the merged frontier.json and frontier.csv to DIR"},
      {"--json", "", "print the merged frontier as JSON"},
      {"--help", "", "show this help"}};
  const ParsedArgs a = parse_args("merge", args, options, 1000);
  if (a.has("--help")) {
    print_command_help(make_merge_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty()) throw CliError("merge: name one or more search output directories");
  std::vector<std::filesystem::path> files;
  for (const auto& d : a.positional) {
    std::filesystem::path f = d;
    std::error_code ec;
    if (std::filesystem::is_directory(f, ec)) f /= "frontier.json";
    if (!std::filesystem::is_regular_file(f, ec))
      throw CliError("merge: '" + d +
                     "' has no frontier.json (allowed: directories written by "
                     "stackscope-cli search --out, or frontier.json files)");
    files.push_back(f);
  }
  // The output folder is checked before the frontiers are merged.
  if (auto out = a.get("--out")) {
    io::make_output_dir(*out, "--out");
    io::check_output(std::filesystem::path(*out) / "frontier.json", "--out");
  }
  const io::MergedFrontier m = io::merge_frontier_files(files);
  if (auto out = a.get("--out"))
    io::write_output(std::filesystem::path(*out) / "frontier.json", m.json, "--out");
  if (a.has("--json")) {
    ctx.out << m.json;
    return kExitOk;
  }
  ctx.out << "merged " << m.shards << " frontiers: " << m.archive.size() << " points\n";
  Table t({"hw", "inner", "devices", "batch", "objectives"}, "rrrrl");
  for (const auto& p : m.archive.sorted()) {
    std::string o;
    for (int k = 0; k < p.n_objectives; ++k)
      o += (k ? ", " : "") + readable(p.objectives[static_cast<std::size_t>(k)]);
    t.row({std::to_string(p.id.hw), std::to_string(p.id.inner), std::to_string(p.devices),
           std::to_string(p.batch), o});
  }
  ctx.out << t.str();
  return kExitOk;
}

}  // namespace

search::Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw CliError("search: --shard '" + text + "' is not K/N (allowed: 0 <= K < N, e.g. 2/8)");
  const auto n = parse_int("--shard N", text.substr(slash + 1), 1, 1'000'000'000);
  const auto k = parse_int("--shard K", text.substr(0, slash), 0, n - 1);
  return {static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n)};
}

Command make_search_command() {
  Command c;
  c.name = "search";
  c.synopsis =
      "search (PROJECT.json | SEARCH-PRESET) [--strategy exhaustive|random|nsga2] [--threads N] "
      "[--max-evals N] "
      "[--time-limit S] [--out DIR] [--resume] [--shard K/N | --mpi] [--json]";
  c.summary = "design-space search with an exact Pareto frontier";
  c.description =
      "Searches the project's \"search\" space (hardware axes outer, parallelism/batch/overlap\n"
      "inner) on all cores, pruning infeasible points and subspaces whose optimistic bound is\n"
      "dominated by the current frontier (never a true Pareto point). With --out DIR the\n"
      "points that enter the frontier (--log all: every evaluated point) are appended to\n"
      "DIR/points.jsonl as they are found, and the frontier\n"
      "(frontier.json with loadable designs, frontier.csv) and summary.json are written\n"
      "atomically at the end; a killed run continues with --resume. --shard K/N runs a\n"
      "deterministic 1/N of the hardware points (Slurm: --shard\n"
      "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT); `merge` combines the shard frontiers.\n"
      "Under `mpirun -np N ... --mpi`, rank r runs shard r/N with --threads threads (budgets\n"
      "apply per rank), logs to DIR/rank-r/points.jsonl (resumed per rank), and rank 0\n"
      "gathers the ranks' frontiers and prints and writes what a single-process run would.\n"
      "One --out DIR serves one search at a time (DIR/search.lock). A damaged points.jsonl is\n"
      "resumed from its last good record (format: io/search.hpp); one with an unreadable header\n"
      "is refused with how to start over. Ctrl-C stops the run at a consistent point (the\n"
      "frontier so far written, the log resumable) and prints the command that resumes it.\n"
      "Exit status: 0 when the search ran (also when no point is feasible: the status line\n"
      "says so, summary.json has \"frontier\": 0), 2 on bad input or an unusable --out DIR,\n"
      "3 on an internal error, 130 after Ctrl-C.";
  c.options = search_options();
  c.run = run_search;
  return c;
}

Command make_merge_command() {
  Command c;
  c.name = "merge";
  c.synopsis = "merge DIR... [--out DIR] [--json]";
  c.summary = "merge the frontiers of search shards into the exact frontier";
  c.description =
      "Reads DIR/frontier.json of each shard (or frontier.json files), checks they come from the\n"
      "same search, and prints the frontier of their union (= the single-run frontier).";
  c.options = {{"--out", "DIR", "write the merged frontier.json to DIR"},
               {"--json", "", "print the merged frontier.json"},
               {"--help", "", "show this help"}};
  c.run = run_merge;
  return c;
}

}  // namespace stackscope::cli
