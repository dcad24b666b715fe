// SPDX-License-Identifier: GPL-3.0-or-later
// The append-only search log (issue 5: "a killed search resumes with --resume without losing or
// duplicating points"); format in io/search.hpp.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <unordered_set>

#include "json_detail.hpp"
#include "stackscope/io/search.hpp"

namespace stackscope::io {

using detail::Json;

namespace {

constexpr const char* kLogName = "points.jsonl";

Json header_json(const SearchLogHeader& h) {
  return {{"kind", "search_log"},
          {"schema_version", perf::kSchemaVersion},
          {"fingerprint", h.fingerprint},
          {"strategy", h.strategy},
          {"seed", h.seed},
          {"samples", h.samples},
          {"shard_index", h.shard_index},
          {"shard_count", h.shard_count}};
}

std::optional<SearchLogHeader> header_from(const Json& j) {
  if (!j.is_object() || j.value("kind", "") != "search_log") return std::nullopt;
  try {
    SearchLogHeader h;
    h.fingerprint = j.at("fingerprint").get<std::string>();
    h.strategy = j.at("strategy").get<std::string>();
    h.seed = j.at("seed").get<std::uint64_t>();
    h.samples = j.at("samples").get<std::uint64_t>();
    h.shard_index = j.at("shard_index").get<std::uint64_t>();
    h.shard_count = j.at("shard_count").get<std::uint64_t>();
    return h;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

Json unit_json(std::uint64_t unit, const UnitCounters& c) {
  return {{"unit", unit},
          {"evaluated", c.evaluated},
          {"pruned", c.pruned},
          {"pruned_bound", c.pruned_bound},
          {"infeasible", c.infeasible}};
}

std::FILE* open_append(const std::filesystem::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "ab");
  if (!f)
    throw std::runtime_error("cannot open search log '" + p.string() +
                             "': " + std::strerror(errno));
  return f;
}

void write_line(std::FILE* f, const std::string& line, const std::filesystem::path& p) {
  if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fputc('\n', f) == EOF)
    throw std::runtime_error("cannot write search log '" + p.string() +
                             "': " + std::strerror(errno));
}

std::string header_text(const SearchLogHeader& h) {
  return "strategy " + h.strategy + ", seed " + std::to_string(h.seed) + ", samples " +
         std::to_string(h.samples) + ", shard " + std::to_string(h.shard_index) + "/" +
         std::to_string(h.shard_count) + ", space " + h.fingerprint;
}

}  // namespace

SearchLog SearchLog::create(const std::filesystem::path& dir, const SearchLogHeader& header) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error("cannot create output directory '" + dir.string() + "'");
  SearchLog log;
  log.path_ = dir / kLogName;
  if (std::filesystem::exists(log.path_, ec))
    throw ConfigError({{"", "'" + log.path_.string() + "' already exists (a search was run there)",
                        "", "--resume to continue it, or another --out directory"}});
  log.file_ = open_append(log.path_);
  write_line(log.file_, detail::dump(header_json(header), -1), log.path_);
  std::fflush(log.file_);
  return log;
}

SearchLog SearchLog::resume(const std::filesystem::path& dir, const SearchLogHeader& header,
                            std::span<const search::Objective> objectives, ResumeState& state) {
  SearchLog log;
  log.path_ = dir / kLogName;
  std::ifstream in(log.path_, std::ios::binary);
  if (!in)
    throw ConfigError({{"", "--resume: no search log '" + log.path_.string() + "' to resume", "",
                        "the --out directory of an earlier run (without --resume to start one)"}});
  std::string line;
  std::getline(in, line);
  const Json hj = Json::parse(line, nullptr, false);
  const auto found = hj.is_discarded() ? std::nullopt : header_from(hj);
  if (!found)
    throw ConfigError({{"", "'" + log.path_.string() + "' is not a StackScope search log", "",
                        "points.jsonl written by stackscope-cli search"}});
  if (!(*found == header))
    throw ConfigError({{"",
                        "'" + log.path_.string() + "' belongs to a different search (" +
                            header_text(*found) + "; this run: " + header_text(header) + ")",
                        "", "the same project, strategy, seed, samples and shard"}});

  // Pass 1: which units finished (a unit line is written after all of the unit's points).
  std::unordered_set<std::uint64_t> done;
  std::vector<std::string> unit_lines;
  while (std::getline(in, line)) {
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded()) break;  // a line cut short by the kill: everything after is lost
    if (j.is_object() && j.contains("unit") && !j.contains("hw")) {
      UnitCounters c;
      try {
        c = {j.at("evaluated").get<std::uint64_t>(), j.at("pruned").get<std::uint64_t>(),
             j.at("pruned_bound").get<std::uint64_t>(), j.at("infeasible").get<std::uint64_t>()};
      } catch (const Json::exception&) {
        break;
      }
      if (done.insert(j["unit"].get<std::uint64_t>()).second) {
        state.totals.evaluated += c.evaluated;
        state.totals.pruned += c.pruned;
        state.totals.pruned_bound += c.pruned_bound;
        state.totals.infeasible += c.infeasible;
        unit_lines.push_back(line);
      }
    }
  }
  // Pass 2: keep the points of finished units, in a new file that replaces the old atomically.
  state.archive = search::Archive(objectives);
  in.clear();
  in.seekg(0);
  std::getline(in, line);
  std::string kept = detail::dump(header_json(header), -1) + "\n";
  while (std::getline(in, line)) {
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded()) break;
    if (!j.contains("hw")) continue;  // unit lines are appended below, after their points
    auto p = point_from_jsonl(line);
    if (!p) break;
    if (!done.count(p->unit)) {
      ++state.dropped_points;
      continue;
    }
    state.archive.insert(*p);
    kept += line;
    kept += '\n';
  }
  for (const auto& u : unit_lines) {
    kept += u;
    kept += '\n';
  }
  in.close();
  save_text_atomic(log.path_, kept);
  state.done_units.assign(done.begin(), done.end());
  std::sort(state.done_units.begin(), state.done_units.end());
  log.file_ = open_append(log.path_);
  return log;
}

SearchLog::SearchLog(SearchLog&& o) noexcept : path_(std::move(o.path_)), file_(o.file_) {
  o.file_ = nullptr;
}

SearchLog& SearchLog::operator=(SearchLog&& o) noexcept {
  if (this != &o) {
    if (file_) std::fclose(file_);
    path_ = std::move(o.path_);
    file_ = o.file_;
    o.file_ = nullptr;
  }
  return *this;
}

SearchLog::~SearchLog() {
  if (file_) std::fclose(file_);
}

void SearchLog::append(std::span<const search::PointRecord> points) {
  for (const auto& p : points) write_line(file_, point_to_jsonl(p), path_);
  std::fflush(file_);
}

void SearchLog::unit_done(std::uint64_t unit, const UnitCounters& counters) {
  write_line(file_, detail::dump(unit_json(unit, counters), -1), path_);
  std::fflush(file_);
}

}  // namespace stackscope::io
