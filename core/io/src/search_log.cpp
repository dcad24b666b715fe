// SPDX-License-Identifier: GPL-3.0-or-later
// The append-only search log (issue 5: "a killed search resumes with --resume without losing or
// duplicating points"); format in io/search.hpp.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "json_detail.hpp"
#include "stackscope/io/search.hpp"

namespace stackscope::io {

using detail::Json;

namespace {

constexpr const char* kLogName = "points.jsonl";

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

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

Json watermark_json(std::uint64_t below, const UnitCounters& c) {
  return {{"done_below", below},
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

std::uint64_t ordinal_of(const SearchLogHeader& h, std::uint64_t unit) {
  if (h.strategy != "exhaustive" || h.shard_count <= 1) return unit;
  return unit >= h.shard_index ? (unit - h.shard_index) / h.shard_count : 0;
}

}  // namespace

SearchLog SearchLog::create(const std::filesystem::path& dir, const SearchLogHeader& header) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec))
    throw ConfigError({{"", "cannot create the output directory '" + dir.string() + "'", "",
                        "a directory that exists or can be created (not a file)"}});
  SearchLog log;
  log.path_ = dir / kLogName;
  log.header_ = header;
  if (std::filesystem::exists(log.path_, ec))
    throw ConfigError({{"", "'" + log.path_.string() + "' already exists (a search was run there)",
                        "", "--resume to continue it, or another --out directory"}});
  log.file_ = open_append(log.path_);
  write_line(log.file_, detail::dump(header_json(header), -1), log.path_);
  std::fflush(log.file_);
  log.last_write_s_ = now_s();
  return log;
}

SearchLog SearchLog::resume(const std::filesystem::path& dir, const SearchLogHeader& header,
                            std::span<const search::Objective> objectives, ResumeState& state) {
  SearchLog log;
  log.path_ = dir / kLogName;
  log.header_ = header;
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

  // Pass 1: the last complete watermark (everything after a line cut short by a kill is lost).
  state = ResumeState{};
  while (std::getline(in, line)) {
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded()) break;
    if (!j.is_object() || !j.contains("done_below")) continue;
    try {
      state.done_below = j.at("done_below").get<std::uint64_t>();
      state.totals = {j.at("evaluated").get<std::uint64_t>(), j.at("pruned").get<std::uint64_t>(),
                      j.at("pruned_bound").get<std::uint64_t>(),
                      j.at("infeasible").get<std::uint64_t>()};
    } catch (const Json::exception&) {
      break;
    }
  }
  // Pass 2: keep the points below the watermark, streamed into a new file that replaces the old
  // one by rename (a crash here leaves the old log intact).
  state.archive = search::Archive(objectives);
  in.clear();
  in.seekg(0);
  std::getline(in, line);
  std::filesystem::path tmp = log.path_;
  tmp += ".resume-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
    out << detail::dump(header_json(header), -1) << '\n';
    while (std::getline(in, line)) {
      const Json j = Json::parse(line, nullptr, false);
      if (j.is_discarded()) break;
      if (!j.is_object() || !j.contains("hw")) continue;  // watermarks: one is rewritten below
      auto p = point_from_jsonl(line);
      if (!p) break;
      if (ordinal_of(header, p->unit) >= state.done_below) {
        ++state.dropped_points;
        continue;
      }
      state.archive.insert(*p);
      out << line << '\n';
    }
    out << detail::dump(watermark_json(state.done_below, state.totals), -1) << '\n';
    out.flush();
    if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
  }
  in.close();
  std::error_code ec;
  std::filesystem::rename(tmp, log.path_, ec);
  if (ec) throw std::runtime_error("cannot replace '" + log.path_.string() + "': " + ec.message());
  log.file_ = open_append(log.path_);
  log.done_below_ = log.written_below_ = state.done_below;
  log.totals_ = state.totals;
  log.last_write_s_ = now_s();
  return log;
}

SearchLog::SearchLog(SearchLog&& o) noexcept
    : path_(std::move(o.path_)),
      file_(o.file_),
      header_(std::move(o.header_)),
      done_below_(o.done_below_),
      written_below_(o.written_below_),
      totals_(o.totals_),
      pending_(std::move(o.pending_)),
      last_write_s_(o.last_write_s_) {
  watermark_interval_s = o.watermark_interval_s;
  o.file_ = nullptr;
}

SearchLog& SearchLog::operator=(SearchLog&& o) noexcept {
  if (this != &o) {
    if (file_) std::fclose(file_);
    path_ = std::move(o.path_);
    file_ = o.file_;
    header_ = std::move(o.header_);
    done_below_ = o.done_below_;
    written_below_ = o.written_below_;
    totals_ = o.totals_;
    pending_ = std::move(o.pending_);
    last_write_s_ = o.last_write_s_;
    watermark_interval_s = o.watermark_interval_s;
    o.file_ = nullptr;
  }
  return *this;
}

SearchLog::~SearchLog() {
  if (!file_) return;
  try {
    flush_watermark();
  } catch (...) {  // a destructor must not throw; the last written watermark stays valid
  }
  std::fclose(file_);
}

std::uint64_t SearchLog::ordinal(std::uint64_t unit) const {
  return ordinal_of(header_, unit);
}

void SearchLog::append(std::span<const search::PointRecord> points) {
  for (const auto& p : points) write_line(file_, point_to_jsonl(p), path_);
  std::fflush(file_);
}

void SearchLog::unit_done(std::uint64_t unit, const UnitCounters& c) {
  const std::uint64_t o = ordinal(unit);
  if (o < done_below_) return;  // already counted (cannot happen with a well-behaved engine)
  pending_.emplace(o, c);
  // Advance over consecutive finished units (the map is ordered by ordinal).
  while (!pending_.empty() && pending_.begin()->first == done_below_) {
    const auto& u = pending_.begin()->second;
    totals_.evaluated += u.evaluated;
    totals_.pruned += u.pruned;
    totals_.pruned_bound += u.pruned_bound;
    totals_.infeasible += u.infeasible;
    ++done_below_;
    pending_.erase(pending_.begin());
  }
  if (done_below_ != written_below_ && now_s() - last_write_s_ >= watermark_interval_s)
    flush_watermark();
}

void SearchLog::flush_watermark() {
  if (done_below_ == written_below_) return;
  write_line(file_, detail::dump(watermark_json(done_below_, totals_), -1), path_);
  std::fflush(file_);
  written_below_ = done_below_;
  last_write_s_ = now_s();
}

}  // namespace stackscope::io
