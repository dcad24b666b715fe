// SPDX-License-Identifier: GPL-3.0-or-later
// `search PROJECT` for a co-exploration project: every point's wafer laid out, partitioned by
// the central scheduler and served on the project's request stream; the Pareto frontier over
// the project's objectives; the optimum along each axis (is it interior?); CSV and a resumable,
// shardable log in --out DIR.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "coexplore_run.hpp"
#include "interrupt.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"

namespace stackscope::cli {
namespace {

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
std::string value_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

struct PointTable {
  const coexplore::CompiledSpace& space;
  std::ostream& out;
  void header() const {
    std::string h = pad("point", 6);
    for (const auto& a : space.space().axes)
      h += pad(a.knob, std::max<std::size_t>(9, a.knob.size() + 1));
    h += pad("dies", 6) + pad("goodput", 9) + pad("SLO %", 7) + pad("TTFT p90", 10) +
         pad("TPOT p90", 10) + pad("power kW", 10) + pad("/kW", 7) + "  partition";
    out << h << "\n";
  }
  void row(const coexplore::Record& r) const {
    std::string s = pad(std::to_string(r.index), 6);
    for (std::size_t a = 0; a < r.values.size(); ++a)
      s += pad(value_text(r.values[a]),
               std::max<std::size_t>(9, space.space().axes[a].knob.size() + 1));
    s += pad(std::to_string(r.usable_dies), 6);
    if (r.partition.empty()) {
      out << s << "  infeasible: " << r.reason << "\n";
      return;
    }
    s += pad(fixed(r.goodput_rps, 2), 9) + pad(fixed(100 * r.slo_attainment, 1), 7) +
         pad(fixed(r.ttft_p90_s, 3) + " s", 10) + pad(fixed(1e3 * r.tpot_p90_s, 1) + " ms", 10) +
         pad(fixed(r.power_W / 1e3, 2), 10) + pad(fixed(r.goodput_per_kW, 2), 7) + "  " +
         r.partition;
    if (!r.feasible) s += "  (" + r.reason + ")";
    out << s << "\n";
  }
};

class StreamSink final : public coexplore::Sink {
 public:
  StreamSink(const PointTable& table, io::CoexploreLog* log, bool tty, std::ostream& err)
      : table_(table), log_(log), tty_(tty), err_(err) {}
  void on_point(const coexplore::Record& r) override {
    if (log_) log_->append(r);
    clear();
    table_.row(r);
    table_.out.flush();
  }
  void on_progress(const coexplore::Progress& p) override {
    if (!tty_) return;
    clear();
    err_ << "co-exploration: " << p.done << " of " << p.total << " points, " << p.frontier
         << " on the frontier"
         << (p.eta_s > 0 ? ", about " + fixed(p.eta_s / 60, 1) + " min left" : std::string())
         << std::flush;
    drawn_ = true;
  }
  void clear() {
    if (drawn_) err_ << "\r" << std::string(78, ' ') << "\r" << std::flush;
    drawn_ = false;
  }

 private:
  const PointTable& table_;
  io::CoexploreLog* log_;
  bool tty_, drawn_ = false;
  std::ostream& err_;
};

}  // namespace

bool coexplore_refuses(std::string_view option) {
  static constexpr std::string_view kRefused[] = {
      "--strategy",   "--max-evals",   "--time-limit", "--seed", "--samples",
      "--population", "--generations", "--log",        "--mpi",  "--no-bound-pruning"};
  return std::find(std::begin(kRefused), std::end(kRefused), option) != std::end(kRefused);
}

int run_coexplore(const ParsedArgs& a, std::span<const std::string> raw_args,
                  const std::string& text, const std::filesystem::path& base_dir, Context& ctx) {
  for (const auto& [opt, v] : a.values)
    if (coexplore_refuses(opt))
      throw CliError("search: " + opt +
                     " does not apply to a co-exploration project (every point is run; options: "
                     "--threads, --max-points, --trace, --time-scale, --out, --resume, --shard, "
                     "--json)");
  io::CoexploreProject p = io::parse_coexplore_project(text, ctx.presets, base_dir);
  serving::ServingSpec& spec = p.space.base.spec;
  if (auto v = a.get("--trace")) {
    spec.source = serving::SourceKind::trace;
    spec.trace = *v;
  }
  if (auto v = a.get("--time-scale")) spec.time_scale = parse_double("--time-scale", *v, 1e-6, 1e6);
  const coexplore::CompiledSpace space(p.space);
  // The base workload and the serving section with serve's ranges (as validate-project).
  if (auto issues = coexplore::validate(space); !issues.empty())
    throw ConfigError(std::move(issues));
  const std::string fp = io::coexplore_fingerprint(space.space());
  serving::TraceStats stats;
  const std::vector<serving::Request> requests = io::serving_requests(spec, &stats);
  if (requests.empty()) throw CliError("search: the request stream is empty");

  coexplore::RunOptions opt;
  if (auto v = a.get("--shard")) opt.shard = parse_shard(*v);
  if (auto v = a.get("--threads"))
    opt.threads = static_cast<int>(parse_int("--threads", *v, 1, 1024));
  if (auto v = a.get("--max-points"))
    opt.max_points = static_cast<std::uint64_t>(parse_int("--max-points", *v, 1, 1LL << 40));
  const auto out_dir = a.get("--out");
  if (a.has("--resume") && !out_dir) throw CliError("search: --resume needs --out DIR");
  std::optional<io::CoexploreLog> log;
  const io::CoexploreLogHeader header{fp, opt.shard.index, opt.shard.count, space.size()};
  if (out_dir) {
    if (a.has("--resume")) {
      std::vector<std::string> notes;
      log.emplace(io::CoexploreLog::resume(*out_dir, header, opt.done, notes));
      for (const auto& n : notes) ctx.err << "note: " << n << "\n";
      ctx.err << "resuming: " << opt.done.size() << " points done\n";
    } else {
      log.emplace(io::CoexploreLog::create(*out_dir, header));
    }
    // The result files, refused before the run rather than after it.
    for (const char* f : {"points.csv", "frontier.csv", "summary.json"})
      io::check_output(std::filesystem::path(*out_dir) / f, "--out");
  }
  const bool json = a.has("--json");
  std::ostringstream sink_out;
  std::ostream& rows = json ? static_cast<std::ostream&>(sink_out) : ctx.out;
  const PointTable table{space, rows};
  std::string axes;
  for (const auto& ax : space.space().axes)
    axes += (axes.empty() ? "" : " x ") + ax.knob + " (" + std::to_string(ax.values.size()) + ")";
  if (!json) {
    ctx.out << "co-exploration  " << p.source << "\n";
    ctx.out << "space           " << space.size()
            << " points: " << (axes.empty() ? "the base" : axes)
            << (opt.shard.count > 1 ? "; shard " + std::to_string(opt.shard.index) + "/" +
                                          std::to_string(opt.shard.count)
                                    : std::string())
            << "\n";
    ctx.out << "requests        " << requests.size()
            << (spec.source == serving::SourceKind::trace ? " from " + spec.trace : " generated")
            << ", SLOs TTFT " << value_text(spec.slo.ttft_s) << " s, TPOT "
            << value_text(1e3 * spec.slo.tpot_s) << " ms; partition per point by the central "
            << "scheduler\n";
    std::string objs;
    for (const auto& o : space.space().objectives)
      objs += (objs.empty() ? "" : ", ") + std::string(search::to_string(o.direction)) + " " +
              std::string(coexplore::to_string(o.metric));
    ctx.out << "objectives      " << objs << "\n\n";
    table.header();
  }
  const bool tty = ::isatty(STDERR_FILENO) == 1 && !json;
  StreamSink sink(table, log ? &*log : nullptr, tty, ctx.err);
  // Ctrl-C cuts the point in progress short (not recorded); the finished points stay logged.
  const Interrupt interrupt;
  const coexplore::Summary s = coexplore::run(space, requests, opt, sink, interrupt.token());
  sink.clear();
  log.reset();
  // After the report: an interrupted run says how to continue, exit 130.
  const auto status = [&] {
    if (!interrupt.interrupted()) return kExitOk;
    ctx.out.flush();
    if (out_dir)
      ctx.err << "interrupted: the log in " << *out_dir << " is consistent; continue with:\n  "
              << resume_command("search", raw_args) << "\n";
    else
      ctx.err << "interrupted: nothing was logged; run with --out DIR to be able to resume\n";
    return kExitInterrupted;
  };
  if (out_dir) {
    const std::filesystem::path dir(*out_dir);
    io::write_output(dir / "points.csv", io::coexplore_to_csv(space, s.records, s.frontier),
                     "--out");
    io::write_output(dir / "frontier.csv", io::coexplore_to_csv(space, s.frontier, s.frontier),
                     "--out");
    io::write_output(dir / "summary.json", io::coexplore_summary_json(space, s, fp), "--out");
  }
  // The optimum along each axis with more than one value, per line of the other axes.
  struct Line {
    std::string axis;
    std::vector<coexplore::OptimumAlongAxis> lines;
  };
  std::vector<Line> optima;
  const coexplore::Metric first = space.space().objectives.front().metric;
  for (std::size_t ax = 0; ax < space.space().axes.size(); ++ax)
    if (space.space().axes[ax].values.size() >= 3 && space.space().axes[ax].knob != "load")
      optima.push_back({space.space().axes[ax].knob,
                        coexplore::optimum_along_axis(space, s.records, ax, first)});
  if (json) {
    ctx.out << io::coexplore_summary_json(space, s, fp);
    return status();
  }
  ctx.out << "\n"
          << (s.complete  ? "complete"
              : s.stopped ? "stopped"
                          : "stopped at --max-points")
          << ": " << s.progress.done << " of " << s.progress.total << " points ("
          << s.progress.resumed << " resumed), " << s.progress.feasible << " feasible, "
          << s.frontier.size() << " on the frontier, " << fixed(s.progress.elapsed_s, 1) << " s\n";
  for (const auto& r : s.frontier) {
    ctx.out << "frontier  point " << r.index << ":";
    for (std::size_t ax = 0; ax < r.values.size(); ++ax)
      ctx.out << " " << space.space().axes[ax].knob << "=" << value_text(r.values[ax]);
    ctx.out << "  goodput " << fixed(r.goodput_rps, 2) << " req/s, " << fixed(r.goodput_per_kW, 2)
            << " per kW, " << r.partition << "\n";
  }
  for (const auto& o : optima) {
    ctx.out << "optimum along " << o.axis << " (" << coexplore::to_string(first) << "):\n";
    for (const auto& l : o.lines) {
      std::string at;
      std::size_t k = 0;
      for (std::size_t ax = 0; ax < space.space().axes.size(); ++ax) {
        if (space.space().axes[ax].knob == o.axis) continue;
        if (space.space().axes[ax].values.size() > 1)
          at +=
              (at.empty() ? "" : " ") + space.space().axes[ax].knob + "=" + value_text(l.others[k]);
        ++k;
      }
      ctx.out << "  " << (at.empty() ? std::string("all points") : at) << ": ";
      if (!l.found) {
        ctx.out << "no feasible point\n";
        continue;
      }
      ctx.out << "best at " << o.axis << " = " << value_text(l.best_value) << " ("
              << fixed(l.best_metric, 2) << "), "
              << (l.interior ? "interior (both ends worse)" : "not interior") << "\n";
    }
  }
  if (out_dir)
    ctx.out << "wrote " << *out_dir << "/coexplore.jsonl, points.csv, frontier.csv, summary.json\n";
  return status();
}

}  // namespace stackscope::cli
