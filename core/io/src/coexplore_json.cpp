// SPDX-License-Identifier: GPL-3.0-or-later
// Co-exploration sections of project files and their result files; format in io/coexplore.hpp.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "json_detail.hpp"
#include "sections.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/io/serving.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

namespace {

constexpr const char* kLogName = "coexplore.jsonl";
constexpr const char* kRoot = "/coexplore";

void read_scheduler(const Json& j, const std::string& path, wafer::SchedulerOptions& so,
                    Issues& issues) {
  if (!j.is_object()) {
    issues.push_back({path, "expected an object, got " + detail::type_text(j),
                      detail::value_text(j), "{exhaustive_budget, screen_requests, ...}"});
    return;
  }
  detail::unknown_keys(
      j, path,
      {"exhaustive_budget", "screen_requests", "screen_windows", "finalists", "all_partitions"},
      issues);
  const auto bounded = [&](const char* key, double lo, double hi, auto& out) {
    auto it = j.find(key);
    if (it == j.end()) return;
    double v = 0;
    const std::size_t before = issues.size();
    detail::read_value(*it, detail::child_path(path, key), v, issues);
    if (issues.size() != before) return;
    if (!(v >= lo && v <= hi) ||
        (std::is_integral_v<std::decay_t<decltype(out)>> && v != std::floor(v))) {
      std::ostringstream allowed;
      allowed << (std::is_integral_v<std::decay_t<decltype(out)>> ? "an integer " : "") << lo
              << " .. " << hi;
      issues.push_back(
          {detail::child_path(path, key), "out of range", detail::value_text(*it), allowed.str()});
      return;
    }
    out = static_cast<std::decay_t<decltype(out)>>(v);
  };
  bounded("exhaustive_budget", 0, 1e15, so.exhaustive_budget);
  bounded("screen_requests", 1, 1e8, so.screen_requests);
  bounded("screen_windows", 1, 1000, so.screen_windows);
  bounded("finalists", 1, 1000, so.finalists);
  if (auto it = j.find("all_partitions"); it != j.end()) {
    bool all = false;
    detail::read_value(*it, detail::child_path(path, "all_partitions"), all, issues);
    so.maximal_only = !all;
  }
}

coexplore::Objective read_objective(const Json& j, const std::string& path, Issues& issues) {
  coexplore::Objective o;
  std::string name, dir;
  if (j.is_string()) {
    name = j.get<std::string>();
  } else if (j.is_object()) {
    detail::unknown_keys(j, path, {"metric", "direction"}, issues);
    if (auto it = j.find("metric"); it != j.end())
      detail::read_value(*it, path + "/metric", name, issues);
    else
      issues.push_back({path + "/metric", "missing", "", coexplore::metric_names()});
    if (auto it = j.find("direction"); it != j.end())
      detail::read_value(*it, path + "/direction", dir, issues);
  } else {
    issues.push_back({path, "expected a metric name or {metric, direction}", detail::value_text(j),
                      coexplore::metric_names()});
    return o;
  }
  if (name.empty()) return o;
  const auto m = coexplore::metric_from_string(name);
  if (!m) {
    issues.push_back({path, "unknown metric", name, coexplore::metric_names()});
    return o;
  }
  o.metric = *m;
  o.direction = coexplore::default_direction(*m);
  if (dir == "maximize")
    o.direction = search::Direction::maximize;
  else if (dir == "minimize")
    o.direction = search::Direction::minimize;
  else if (!dir.empty())
    issues.push_back({path + "/direction", "unknown direction", dir, "maximize, minimize"});
  return o;
}

void read_section(const Json& s, coexplore::Space& space, Issues& issues) {
  const std::string root = kRoot;
  if (!s.is_object()) {
    issues.push_back({root, "expected an object, got " + detail::type_text(s),
                      detail::value_text(s), "{axes, constraints, objectives, scheduler}"});
    return;
  }
  detail::unknown_keys(s, root, {"axes", "constraints", "objectives", "scheduler"}, issues);
  if (auto it = s.find("axes"); it != s.end()) {
    if (!it->is_array()) {
      issues.push_back({root + "/axes", "expected a list of axes", detail::value_text(*it),
                        "[{\"knob\": NAME, \"values\": [...]}, ...]"});
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const Json& a = (*it)[i];
        const std::string ap = root + "/axes/" + std::to_string(i);
        coexplore::Axis axis;
        if (!a.is_object() || !a.contains("knob")) {
          issues.push_back({ap,
                            "expected {\"knob\", \"values\"} or {\"knob\", min, max, step|factor}",
                            detail::value_text(a), "knobs: " + coexplore::knob_names()});
          continue;
        }
        detail::read_value(a["knob"], ap + "/knob", axis.knob, issues);
        if (a.contains("values")) {
          detail::unknown_keys(a, ap, {"knob", "values"}, issues);
          axis.values = detail::read_values(a["values"], ap + "/values", issues);
        } else {
          axis.values = detail::read_values(a, ap, issues);
        }
        space.axes.push_back(std::move(axis));
      }
    }
  }
  if (auto it = s.find("constraints"); it != s.end()) {
    const std::string cp = root + "/constraints";
    if (!it->is_object()) {
      issues.push_back(
          {cp, "expected an object", detail::value_text(*it), "{min_slo_attainment, max_power_W}"});
    } else {
      detail::unknown_keys(*it, cp, {"min_slo_attainment", "max_power_W"}, issues);
      if (auto c = it->find("min_slo_attainment"); c != it->end())
        detail::read_value(*c, cp + "/min_slo_attainment", space.constraints.min_slo_attainment,
                           issues);
      if (auto c = it->find("max_power_W"); c != it->end())
        detail::read_value(*c, cp + "/max_power_W", space.constraints.max_power_W, issues);
    }
  }
  if (auto it = s.find("objectives"); it != s.end()) {
    space.objectives.clear();
    if (!it->is_array())
      issues.push_back({root + "/objectives", "expected a list", detail::value_text(*it),
                        coexplore::metric_names()});
    else
      for (std::size_t i = 0; i < it->size(); ++i)
        space.objectives.push_back(
            read_objective((*it)[i], root + "/objectives/" + std::to_string(i), issues));
  }
  if (auto it = s.find("scheduler"); it != s.end())
    read_scheduler(*it, root + "/scheduler", space.scheduler, issues);
}

Json section_json(const coexplore::Space& space) {
  Json j = Json::object();
  Json axes = Json::array();
  for (const auto& a : space.axes) axes.push_back({{"knob", a.knob}, {"values", a.values}});
  j["axes"] = std::move(axes);
  Json c = Json::object();
  c["min_slo_attainment"] = space.constraints.min_slo_attainment;
  if (std::isfinite(space.constraints.max_power_W))
    c["max_power_W"] = space.constraints.max_power_W;
  j["constraints"] = std::move(c);
  Json o = Json::array();
  for (const auto& ob : space.objectives)
    o.push_back({{"metric", std::string(coexplore::to_string(ob.metric))},
                 {"direction", std::string(search::to_string(ob.direction))}});
  j["objectives"] = std::move(o);
  const auto& so = space.scheduler;
  j["scheduler"] = {{"exhaustive_budget", so.exhaustive_budget},
                    {"screen_requests", so.screen_requests},
                    {"screen_windows", so.screen_windows},
                    {"finalists", so.finalists},
                    {"all_partitions", !so.maximal_only}};
  return j;
}

// Record fields, one table for writing and reading (doubles round-trip: nlohmann writes the
// shortest text that reads back equal).
struct DoubleField {
  const char* key;
  double coexplore::Record::*member;
};
constexpr DoubleField kDoubles[] = {
    {"die_mm2", &coexplore::Record::die_mm2},
    {"wafer_yield", &coexplore::Record::wafer_yield},
    {"dram_GB_per_die", &coexplore::Record::dram_GB_per_die},
    {"dram_TB", &coexplore::Record::dram_TB},
    {"sram_GB", &coexplore::Record::sram_GB},
    {"peak_PFLOPS", &coexplore::Record::peak_PFLOPS},
    {"goodput_rps", &coexplore::Record::goodput_rps},
    {"slo_attainment", &coexplore::Record::slo_attainment},
    {"output_tokens_per_s", &coexplore::Record::output_tokens_per_s},
    {"ttft_p50_s", &coexplore::Record::ttft_p50_s},
    {"ttft_p90_s", &coexplore::Record::ttft_p90_s},
    {"ttft_p99_s", &coexplore::Record::ttft_p99_s},
    {"tpot_p50_s", &coexplore::Record::tpot_p50_s},
    {"tpot_p90_s", &coexplore::Record::tpot_p90_s},
    {"tpot_p99_s", &coexplore::Record::tpot_p99_s},
    {"energy_per_token_J", &coexplore::Record::energy_per_token_J},
    {"power_W", &coexplore::Record::power_W},
    {"goodput_per_kW", &coexplore::Record::goodput_per_kW},
    {"kv_transfer_p90_s", &coexplore::Record::kv_transfer_p90_s},
};
struct IntField {
  const char* key;
  int coexplore::Record::*member;
};
constexpr IntField kInts[] = {
    {"dies_x", &coexplore::Record::dies_x},           {"dies_y", &coexplore::Record::dies_y},
    {"usable_dies", &coexplore::Record::usable_dies}, {"used_dies", &coexplore::Record::used_dies},
    {"prefill", &coexplore::Record::prefill},         {"decode", &coexplore::Record::decode},
    {"candidates", &coexplore::Record::candidates},
};

Json record_json(const coexplore::Record& r) {
  Json j = Json::object();
  j["index"] = r.index;
  j["values"] = r.values;
  j["feasible"] = r.feasible;
  j["reason"] = r.reason;
  for (const auto& f : kInts) j[f.key] = r.*f.member;
  for (const auto& f : kDoubles) j[f.key] = r.*f.member;
  j["partition"] = r.partition;
  j["requests"] = r.requests;
  j["objectives"] = r.objectives;
  return j;
}

std::optional<coexplore::Record> record_from(const Json& j) {
  try {
    coexplore::Record r;
    r.index = detail::integer_at<std::uint64_t>(j, "index");
    r.values = j.at("values").get<std::vector<double>>();
    r.feasible = j.at("feasible").get<bool>();
    r.reason = j.at("reason").get<std::string>();
    for (const auto& f : kInts) r.*f.member = detail::integer_at<int>(j, f.key);
    for (const auto& f : kDoubles) r.*f.member = j.at(f.key).get<double>();
    r.partition = j.at("partition").get<std::string>();
    r.requests = detail::integer_at<std::size_t>(j, "requests");
    r.objectives = j.at("objectives").get<std::vector<double>>();
    return r;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

Json header_json(const CoexploreLogHeader& h) {
  return {{"kind", "coexplore"},          {"log_version", 1},
          {"fingerprint", h.fingerprint}, {"shard_index", h.shard_index},
          {"shard_count", h.shard_count}, {"points", h.points}};
}

std::optional<CoexploreLogHeader> header_from(const Json& j) {
  try {
    if (j.at("kind").get<std::string>() != "coexplore") return std::nullopt;
    CoexploreLogHeader h;
    h.fingerprint = j.at("fingerprint").get<std::string>();
    h.shard_index = detail::integer_at<std::uint64_t>(j, "shard_index");
    h.shard_count = detail::integer_at<std::uint64_t>(j, "shard_count");
    h.points = detail::integer_at<std::uint64_t>(j, "points");
    return h;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

std::string sealed(const Json& j) {
  return seal_log_line(detail::dump(j, -1));
}

ConfigError log_error(const std::filesystem::path& p, const std::string& message,
                      const std::string& allowed) {
  return ConfigError({{p.string(), message, "", allowed}});
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string g(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

}  // namespace

std::string read_project_text(const std::filesystem::path& file) {
  return detail::read_text_file(file, "");
}

bool has_coexplore_section(std::string_view json_text) {
  // Any problem of the text (syntax, a limit) is reported by the parser of the project it
  // turns out to be.
  Issues ignored;
  const auto j = detail::parse_json_text(json_text, "project", "", ignored);
  return j && j->is_object() && j->contains("coexplore");
}

CoexploreProject parse_coexplore_project(std::string_view text, const PresetRegistry& presets,
                                         const std::filesystem::path& base_dir) {
  CoexploreProject p;
  p.space.base.design = parse_project(text, presets, base_dir);  // throws on design issues
  Issues issues;
  auto root = detail::parse_json_text(text, "project", "", issues);
  if (!root || !root->is_object()) throw ConfigError(std::move(issues));
  if (!p.space.base.design.wafer)
    issues.push_back({"/wafer", "a co-exploration project needs a wafer", "",
                      "a wafer preset id (presets/wafers) or an inline wafer section"});
  auto spec = parse_serving_section(text, base_dir);
  if (!spec)
    issues.push_back({"/serving", "a co-exploration project needs a serving section", "",
                      "the request stream, scheduler limits and SLOs (see README)"});
  else
    p.space.base.spec = std::move(*spec);
  auto it = root->find("coexplore");
  if (it == root->end())
    issues.push_back({kRoot, "the project has no 'coexplore' section", "",
                      "object with axes, constraints, objectives, scheduler (see README)"});
  else
    read_section(*it, p.space, issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  p.source = p.space.base.design.name;
  return p;
}

CoexploreProject load_coexplore_project(const std::filesystem::path& file,
                                        const PresetRegistry& presets) {
  return parse_coexplore_project(detail::read_text_file(file, ""), presets, file.parent_path());
}

std::string coexplore_canonical_text(const coexplore::Space& space) {
  Json j = detail::project_json(space.base.design, space.base.spec, {});
  // A request trace stands in the text by its content, not by its path: a trace edited in place
  // is another stream (a resume must not mix points of both), while the same file named by a
  // relative or an absolute path, or a copy of it, is the same stream. A trace that is not
  // the source is not read.
  if (auto serving = j.find("serving"); serving != j.end() && serving->is_object()) {
    if (space.base.spec.source == serving::SourceKind::trace && !space.base.spec.trace.empty())
      (*serving)["trace"] =
          "fnv1a64:" + detail::fingerprint(detail::read_text_file(
                           space.base.spec.trace, "/serving/trace", limits::kMaxTraceFileBytes));
    else
      serving->erase("trace");
  }
  j["coexplore"] = section_json(space);
  j["load"] = space.base.load;
  return detail::dump(j, -1);
}

std::string coexplore_fingerprint(const coexplore::Space& space) {
  return detail::fingerprint(coexplore_canonical_text(space));
}

std::string record_to_jsonl(const coexplore::Record& r) {
  return detail::dump(record_json(r), -1);
}

std::optional<coexplore::Record> record_from_jsonl(std::string_view line) {
  const auto j = detail::parse_json_record(line);
  if (!j || !j->is_object()) return std::nullopt;
  return record_from(*j);
}

namespace {

// A record field's CSV column. The die grid laid out (after an automatic fit) is grid_dies_x /
// grid_dies_y, beside the dies_x / dies_y axes that asked for it (0 = fit to the area): the
// columns were repeated before.
std::string csv_column(std::string_view key) {
  return key == "dies_x" || key == "dies_y" ? "grid_" + std::string(key) : std::string(key);
}

}  // namespace

std::string coexplore_to_csv(const coexplore::CompiledSpace& space,
                             std::span<const coexplore::Record> records,
                             std::span<const coexplore::Record> frontier) {
  std::ostringstream o;
  o << "index";
  for (const auto& a : space.space().axes) o << "," << a.knob;
  o << ",on_frontier,feasible";
  for (const auto& f : kInts) o << "," << csv_column(f.key);
  for (const auto& f : kDoubles) o << "," << f.key;
  o << ",requests,partition,reason\n";
  for (const auto& r : records) {
    const bool on = std::any_of(frontier.begin(), frontier.end(),
                                [&](const coexplore::Record& f) { return f.index == r.index; });
    o << r.index;
    for (const double v : r.values) o << "," << g(v);
    o << "," << (on ? 1 : 0) << "," << (r.feasible ? 1 : 0);
    for (const auto& f : kInts) o << "," << r.*f.member;
    for (const auto& f : kDoubles) o << "," << g(r.*f.member);
    o << "," << r.requests << "," << csv_field(r.partition) << "," << csv_field(r.reason) << "\n";
  }
  return o.str();
}

std::string coexplore_summary_json(const coexplore::CompiledSpace& space,
                                   const coexplore::Summary& s, std::string_view fingerprint) {
  Json j = Json::object();
  j["kind"] = "coexplore_summary";
  j["space_fingerprint"] = std::string(fingerprint);
  j["space_points"] = space.size();
  j["shard_points"] = s.progress.total;
  j["done"] = s.progress.done;
  j["resumed"] = s.progress.resumed;
  j["feasible"] = s.progress.feasible;
  j["complete"] = s.complete;
  j["stopped"] = s.stopped;
  j["elapsed_s"] = s.progress.elapsed_s;
  Json f = Json::array();
  for (const auto& r : s.frontier) f.push_back(record_json(r));
  j["frontier"] = std::move(f);
  return detail::dump(j, 2) + "\n";
}

// ---- The log ----

CoexploreLog CoexploreLog::create(const std::filesystem::path& dir,
                                  const CoexploreLogHeader& header) {
  CoexploreLog log;
  log.lock_fd_ = lock_search_directory(dir);
  log.path_ = dir / kLogName;
  std::error_code ec;
  if (std::filesystem::is_regular_file(log.path_, ec) &&
      std::filesystem::file_size(log.path_, ec) > 0) {
    log.close();
    throw log_error(log.path_, "holds the results of an earlier co-exploration",
                    "--resume to continue it, or another --out directory");
  }
  log.out_ = AppendOutput(log.path_, "--out", AppendOutput::Mode::truncate);
  log.out_.write(sealed(header_json(header)) + "\n");
  return log;
}

CoexploreLog CoexploreLog::resume(const std::filesystem::path& dir,
                                  const CoexploreLogHeader& header,
                                  std::vector<coexplore::Record>& done,
                                  std::vector<std::string>& notes) {
  CoexploreLog log;
  log.lock_fd_ = lock_search_directory(dir);
  log.path_ = dir / kLogName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(log.path_, ec)) {
    log.close();
    throw log_error(log.path_, "no co-exploration log to resume",
                    "the --out directory of an earlier run (without --resume to start one)");
  }
  std::ifstream in(log.path_);
  std::string line;
  std::vector<std::string> kept;
  std::size_t n = 0, dropped = 0;
  bool bad = false;
  while (std::getline(in, line)) {
    ++n;
    if (bad) {
      ++dropped;
      continue;
    }
    const auto body = verify_log_line(line);
    const auto parsed = body ? detail::parse_json_record(*body) : std::nullopt;
    const Json j = parsed ? *parsed : Json();
    if (n == 1) {
      const auto h = parsed ? header_from(j) : std::nullopt;
      if (!h) {
        log.close();
        throw log_error(log.path_, "is not a co-exploration log (unreadable header)",
                        "remove it or use another --out directory");
      }
      if (!(*h == header)) {
        log.close();
        std::string what =
            h->fingerprint != header.fingerprint
                ? "the space (fingerprint " + h->fingerprint + " vs " + header.fingerprint + ")"
                : "the shard or the space size";
        throw log_error(log.path_, "was written by another co-exploration: " + what + " differs",
                        "the same project, trace and options as the run being resumed");
      }
      kept.push_back(line);
      continue;
    }
    const auto r = body && !j.is_discarded() ? record_from(j) : std::nullopt;
    if (!r || r->index >= header.points || r->index % header.shard_count != header.shard_index) {
      bad = true;
      ++dropped;
      notes.push_back("line " + std::to_string(n) + " of " + log.path_.string() +
                      " is damaged (cut short by a kill?); it and the lines after it are "
                      "dropped and their points run again");
      continue;
    }
    kept.push_back(line);
    done.push_back(*r);
  }
  if (n == 0) {
    log.close();
    throw log_error(log.path_, "is empty", "remove it and start a new run");
  }
  if (dropped) {
    std::string text;
    for (const auto& k : kept) text += k + "\n";
    save_text_atomic(log.path_, text);
  }
  log.out_ = AppendOutput(log.path_, "--out", AppendOutput::Mode::append);
  return log;
}

CoexploreLog::CoexploreLog(CoexploreLog&& o) noexcept
    : path_(std::move(o.path_)), out_(std::move(o.out_)), lock_fd_(o.lock_fd_) {
  o.lock_fd_ = -1;
}

CoexploreLog& CoexploreLog::operator=(CoexploreLog&& o) noexcept {
  if (this != &o) {
    close();
    path_ = std::move(o.path_);
    out_ = std::move(o.out_);
    lock_fd_ = o.lock_fd_;
    o.lock_fd_ = -1;
  }
  return *this;
}

CoexploreLog::~CoexploreLog() {
  close();
}

void CoexploreLog::close() noexcept {
  out_ = AppendOutput();
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

void CoexploreLog::append(const coexplore::Record& r) {
  out_.write(sealed(record_json(r)) + "\n");
}

}  // namespace stackscope::io
