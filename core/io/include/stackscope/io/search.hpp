// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Search spaces in project files, and the on-disk form of search results.
//
// A search project is a project (see project.hpp) with a "search" section:
//   "search": {
//     "hardware": [ {"knob": "memory.layers_total", "values": [4, 8, 12]},
//                   {"knob": "noc.link_GBps", "min": 100, "max": 800, "factor": 2},
//                   {"knob": "memory.layers_connected", "min": 1, "max": 8, "step": 1} ],
//     "parallel": { "tp": [1, 2, 4], "pp": {"min": 1, "max": 8, "factor": 2}, "ep": [...],
//                   "dp": [...], "cp": [...], "sequence_parallel": [false, true],
//                   "attention_tp": [...], "moe_ep": [...] },
//     "batch": [1, 16, 256] | {"min": 1, "max": 1024, "factor": 2},
//     "overlap": ["off", "auto"],
//     "constraints": { "max_power_W": 500, "max_die_area_mm2": 800, "max_dram_C": 95,
//                      "ttft_slo_s": 2, "tpot_slo_s": 0.05 },
//     "objectives": ["stps_per_mm2", {"metric": "energy_per_token_j", "direction": "minimize"}],
//     "strategy": "exhaustive" | "random", "seed": 1, "samples": 100000 }
// The rest of the project is the base design every point starts from. Hardware axes keep their
// file order (it fixes the point indexing); knob names come from search::knobs().
//
// Result files (stackscope-cli search --out DIR): points.jsonl, one evaluated point per line
// (append-only, flushed per batch), frontier.json and summary.json (written atomically).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/search/archive.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/search/visit_order.hpp"
#include "stackscope/search/space.hpp"

namespace stackscope::io {

struct SearchProject {
  search::Space space;      // base design + axes, constraints, objectives
  search::RunOptions run;   // strategy, seed, samples from the file (CLI flags override)
  std::string fingerprint;  // FNV-1a 64 of `canonical` (16 hex digits)
  std::string canonical;    // canonical_space_text(space)
  // The fingerprint of log format 1 (before the canonical form: the hash of the base design and
  // the search section as spelled in the file), so such logs can still be resumed.
  std::string legacy_fingerprint;
};

// Throws ConfigError with every structural issue (paths below "/search"); a project without a
// "search" section is an error. Semantic checks of the space are search::CompiledSpace's.
SearchProject parse_search_project(std::string_view json_text, const PresetRegistry& presets,
                                   const std::filesystem::path& base_dir = {});
SearchProject load_search_project(const std::filesystem::path& file, const PresetRegistry& presets);
// True when the JSON text is an object with a "search" key (no other check).
bool has_search_section(std::string_view json_text);
// A search preset id (presets/search/) or a path to a search project file.
SearchProject resolve_search_project(std::string_view id_or_file, const PresetRegistry& presets);

// One point as one line of JSON (no trailing newline); doubles round-trip exactly.
std::string point_to_jsonl(const search::PointRecord& p);
// Parses a line written by point_to_jsonl; nullopt for a line that is not one (e.g. a line cut
// short by a crash), so a reader can stop there.
std::optional<search::PointRecord> point_from_jsonl(std::string_view line);

// frontier.json: { "schema_version", "kind": "frontier", "space_fingerprint", "space_size",
//   "objectives": [{metric, direction}], "points": [ {hw, inner, feasible, objectives: [...],
//   key metrics, "plan": {...}, "design": {a complete project, loadable by evaluate / the GUI}} ]}
std::string frontier_to_json(const search::CompiledSpace& space, const search::Archive& archive,
                             std::string_view space_fingerprint);

// Merges the frontier.json files of shards (or of separate runs of the same search) into the
// exact frontier of their union. Throws ConfigError naming the file when one is malformed or
// comes from a different search (objectives or space fingerprint differ).
struct MergedFrontier {
  search::Archive archive;
  std::string json;  // frontier.json of the union
  int shards = 0;
};
MergedFrontier merge_frontier_files(const std::vector<std::filesystem::path>& files);

// summary.json: space size, counters, rate, frontier size, completion flags.
std::string summary_to_json(const search::CompiledSpace& space, const search::Summary& s);

// `search --json` on stdout: space_size, points_in_run, evaluated, pruned, pruned_by_bound,
// infeasible, the rates, elapsed_s, complete, feasible_found, `status` (the status line) and
// "frontier": the points as frontier.json has them.
std::string search_report_to_json(const search::CompiledSpace& space, const search::Summary& s,
                                  std::string_view status);

// The append-only point log of a search output directory (DIR/points.jsonl). Line 1 is a
// header naming the search (fingerprint, strategy, seed, samples, shard, and the canonical space
// it fingerprints); then point lines (with the work unit that evaluated them) and watermark
// lines {"done_below": W, cumulative counters} written after every point of the units with
// ordinal < W is in the file. The ordinal of a unit is its position in the run's ordered pass:
// for hardware point hw in shard {k, n}, unit j = (hw - k) / n, its position in
// search::visit_order(units) (format 3, header "order": "strata", "units": the shard's units), or
// j itself (formats 1 and 2, and "order": "index"); of a sample chunk: the chunk. Points count
// only below the last watermark, so a killed run resumes without losing or duplicating points,
// and the log stays small however many units the space has. Which points are logged is the
// caller's choice (every evaluated point, or those that entered the frontier when found).
//
// Log formats 2 and 3 (header "log_version"): every line is a JSON object whose last member is
// "crc": "xxxxxxxx", the CRC-32 (IEEE 802.3 / zlib polynomial) in hex of the line with that
// member removed (the text up to the comma before "crc", then "}"). Resume reads the longest
// prefix of lines that verify and make sense (a point inside the space, watermarks that never go
// back and stay within the run's units) and continues from the last watermark in it; anything
// after the first bad line is discarded (a line cut short by a kill is the common case) and
// reported. Format 1 logs (no "log_version", no checksums; their fingerprint is
// SearchProject::legacy_fingerprint) are accepted: read with the same sense checks but
// unverified, and rewritten in format 3 (in index order) by the resume, as are format 2 logs.
//
// The directory: DIR/search.lock is locked (flock) for as long as a SearchLog is open and holds
// the owner's pid, so a second search on one DIR is refused naming it; the kernel drops the lock
// when the process dies. Temporary files are mkstemp-unique (points.jsonl.tmp-PID-XXXXXX);
// leftovers of a killed resume are removed by the next one. points.jsonl must be a regular file
// (a FIFO or device is refused without blocking). A log with no complete line (empty, or a
// header cut short) holds no result and is replaced by a new run or by --resume (which then
// starts from the beginning); a log whose header is unreadable is refused, saying to remove it or
// use another directory.
struct SearchLogHeader {
  std::string fingerprint;
  std::string strategy;  // "exhaustive" | "random" | "nsga2"
  std::uint64_t seed = 0;
  std::uint64_t samples = 0;
  std::uint64_t shard_index = 0;
  std::uint64_t shard_count = 1;
  // SearchProject::canonical: lets a refused resume name what changed. Not compared (the
  // fingerprint is its hash); empty when unknown.
  std::string space;
  // SearchProject::legacy_fingerprint: what a format-1 log's header is compared with. Not
  // written.
  std::string legacy_fingerprint;
  // Exhaustive runs: the shard's work units (hardware points), and whether its ordered pass
  // visits them in search::visit_order(units) (true for runs of log format 3; logs of formats 1
  // and 2 were written in index order and resume in it). Not compared: a resume takes the
  // order of the log it continues, and the run's own unit count (the fingerprint and shard
  // already fix it; the header's copy is for readers of the file).
  std::uint64_t units = 0;
  bool strata_order = false;
  // Same search: every field but `space` and `legacy_fingerprint`.
  friend bool operator==(const SearchLogHeader& a, const SearchLogHeader& b) {
    return a.fingerprint == b.fingerprint && a.strategy == b.strategy && a.seed == b.seed &&
           a.samples == b.samples && a.shard_index == b.shard_index &&
           a.shard_count == b.shard_count;
  }
};

inline constexpr int kSearchLogVersion = 3;

struct UnitCounters {
  std::uint64_t evaluated = 0, pruned = 0, pruned_bound = 0, infeasible = 0;
};

// What an interrupted run had finished.
struct ResumeState {
  std::uint64_t done_below = 0;      // units with a lower ordinal are finished
  search::Archive archive;           // frontier of the points of finished units
  UnitCounters totals;               // summed over the finished units
  std::uint64_t dropped_points = 0;  // logged points of unfinished units (re-evaluated)
  int format = kSearchLogVersion;    // of the log as found
  // The ordered pass's order the log was written in (SearchLogHeader::strata_order; the run's
  // own when the log held no record): the resumed run must visit in it.
  bool strata_order = false;
  // What was found wrong and repaired, one sentence each (a corrupted line and how many lines
  // after it were discarded, an empty log restarted, a format-1 log upgraded).
  std::vector<std::string> notes;
};

// What resume checks records against (the defaults check nothing).
struct ResumeLimits {
  // Work units of the run (watermarks above it are corrupt).
  std::uint64_t units = UINT64_MAX;
  // A point record that belongs to the space and the run (ids in range, unit consistent).
  std::function<bool(const search::PointRecord&)> point_ok;
};

class SearchLog {
 public:
  // Starts a new log (taking the directory's lock first). Throws ConfigError if DIR cannot be
  // created or written, is locked by another process, or DIR/points.jsonl holds a log (never
  // overwrites a user's results; a log with no complete line is replaced, with a note in
  // `notes` if given).
  static SearchLog create(const std::filesystem::path& dir, const SearchLogHeader& header,
                          std::vector<std::string>* notes = nullptr);
  // Reopens DIR/points.jsonl (ConfigError if missing, not a regular file, unreadable, or if its
  // header names a different search: the message names what differs), keeps the points below
  // the last good watermark, rewrites the file without the rest (unique temp file + rename) and
  // reopens it for appending.
  static SearchLog resume(const std::filesystem::path& dir, const SearchLogHeader& header,
                          std::span<const search::Objective> objectives, ResumeState& state,
                          const ResumeLimits& limits = {});

  SearchLog(SearchLog&&) noexcept;
  SearchLog& operator=(SearchLog&&) noexcept;
  ~SearchLog();  // writes the final watermark, releases the lock

  void append(std::span<const search::PointRecord> points);  // written and flushed
  // Unit `unit` (PointRecord::unit numbering) finished with these counters, after its points
  // were appended. The watermark advances over consecutive finished units and is written at
  // most every `watermark_interval_s` (and by flush_watermark / the destructor).
  void unit_done(std::uint64_t unit, const UnitCounters& counters);
  void flush_watermark();
  std::uint64_t ordinal(std::uint64_t unit) const;
  const std::filesystem::path& path() const { return path_; }
  double watermark_interval_s = 0.5;

 private:
  SearchLog() = default;
  void close() noexcept;
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  int lock_fd_ = -1;
  SearchLogHeader header_;
  std::optional<search::VisitOrder> order_;  // of header_ (strata order), else none
  std::uint64_t done_below_ = 0, written_below_ = 0;
  UnitCounters totals_;
  std::map<std::uint64_t, UnitCounters> pending_;  // finished units above a gap, by ordinal
  double last_write_s_ = 0;
};

// Creates DIR if needed and takes its lock (DIR/search.lock, flock, holding the pid) for the
// process's lifetime or until the returned descriptor is closed; ConfigError naming the holder
// when another search or co-exploration has it. The co-exploration log (io/coexplore.hpp) uses
// it too, so one directory never receives two runs.
int lock_search_directory(const std::filesystem::path& dir);

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib's crc32()) of `text`; the
// checksum of log format 2. crc32("123456789") = 0xCBF43926 (the standard check value).
std::uint32_t crc32(std::string_view text);
// A log line: `json_object` (compact, ends with '}') with its checksum member appended.
std::string seal_log_line(std::string_view json_object);
// The line without its checksum member if it verifies; nullopt if it has none or it is wrong.
std::optional<std::string> verify_log_line(std::string_view line);

// The canonical text of a space (its base design and search section as search_writer writes
// them, compact, without run options or notes): equal for every file that describes the same
// space, whatever its key order or list-vs-range spelling. SearchProject::fingerprint hashes it.
std::string canonical_space_text(const search::Space& space);

// frontier.csv: one row per frontier point (ids, plan, objectives, key metrics).
std::string frontier_to_csv(const search::CompiledSpace& space, const search::Archive& archive);
// Any evaluated points as CSV (the GUI's "Export CSV"): the frontier_to_csv columns, plus
// on_frontier (1/0) when `frontier` is given.
std::string points_to_csv(const search::CompiledSpace& space,
                          std::span<const search::PointRecord> points,
                          const search::Archive* frontier);

}  // namespace stackscope::io
