// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Co-exploration projects and their results on disk.
//
// A co-exploration project is a project with a "wafer" (the base wafer), a "serving" section
// (the request stream, scheduler limits and SLOs) and a "coexplore" section:
//   "coexplore": {
//     "axes": [ {"knob": "dram_GB", "values": [16, 24, 32, 48, 64, 96]},
//               {"knob": "load", "min": 1, "max": 8, "factor": 2} ],
//     "constraints": { "min_slo_attainment": 0.9, "max_power_W": 20000 },
//     "objectives": ["goodput_rps", {"metric": "goodput_per_kW", "direction": "maximize"}],
//     "scheduler": { "exhaustive_budget": 4e6, "screen_requests": 4000, "screen_windows": 4,
//                    "finalists": 8, "all_partitions": false } }
// Knob names: coexplore::knobs(); metrics: coexplore::metric_names().
//
// Results (stackscope-cli search PROJECT --out DIR): DIR/coexplore.jsonl, a header line naming
// the run (kind "coexplore", the space fingerprint, the shard) then one line per finished point,
// each sealed with its CRC-32 as the search log's lines are (io/search.hpp). A killed run
// resumes from the longest prefix of lines that verify (the rest is dropped and reported);
// DIR/search.lock is held while a log is open. DIR/points.csv (every point), DIR/frontier.csv
// and DIR/summary.json are written atomically at the end of a run.
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"

namespace stackscope::io {

struct CoexploreProject {
  coexplore::Space space;
  std::string source;  // the project's name (for the report)
};

// A project file's text (the project files' size limit; ConfigError naming the file when it is
// missing, too large or unreadable).
std::string read_project_text(const std::filesystem::path& file);
// True when the JSON text is an object with a "coexplore" key (no other check).
bool has_coexplore_section(std::string_view json_text);
// Throws ConfigError with every structural issue (paths below "/coexplore"; "/wafer" and
// "/serving" when missing).
CoexploreProject parse_coexplore_project(std::string_view json_text, const PresetRegistry& presets,
                                         const std::filesystem::path& base_dir = {});
CoexploreProject load_coexplore_project(const std::filesystem::path& file,
                                        const PresetRegistry& presets);

// The canonical text of a space (base project with its serving section, and the section as
// written back) and its FNV-1a fingerprint: equal for files describing the same space. A trace
// source is named by the FNV-1a hash of the file's content, not its path (the file is read:
// ConfigError at /serving/trace when it cannot be).
std::string coexplore_canonical_text(const coexplore::Space& space);
std::string coexplore_fingerprint(const coexplore::Space& space);

// One record as one JSON line (no newline); doubles round-trip exactly. nullopt for a line that
// is not one.
std::string record_to_jsonl(const coexplore::Record& r);
std::optional<coexplore::Record> record_from_jsonl(std::string_view line);

// CSV, one row per record: index, the axis values (by knob name), on_frontier (1/0), feasible,
// wafer metrics (the die grid laid out as grid_dies_x, grid_dies_y: an axis may be dies_x),
// serving metrics, requests, the partition, reason. Column names are unique.
std::string coexplore_to_csv(const coexplore::CompiledSpace& space,
                             std::span<const coexplore::Record> records,
                             std::span<const coexplore::Record> frontier);
std::string coexplore_summary_json(const coexplore::CompiledSpace& space,
                                   const coexplore::Summary& summary, std::string_view fingerprint);

struct CoexploreLogHeader {
  std::string fingerprint;
  std::uint64_t shard_index = 0, shard_count = 1;
  std::uint64_t points = 0;  // of the space (index bound for resume)
  bool operator==(const CoexploreLogHeader&) const = default;
};

class CoexploreLog {
 public:
  // A new log in DIR (locking it). Refuses a DIR whose coexplore.jsonl holds a result.
  static CoexploreLog create(const std::filesystem::path& dir, const CoexploreLogHeader& header);
  // Reopens DIR/coexplore.jsonl (ConfigError if missing, or written by another run: the
  // message says what differs), keeps the points of the verified prefix (into `done`; notes
  // say what was dropped) and continues appending.
  static CoexploreLog resume(const std::filesystem::path& dir, const CoexploreLogHeader& header,
                             std::vector<coexplore::Record>& done, std::vector<std::string>& notes);
  CoexploreLog(CoexploreLog&&) noexcept;
  CoexploreLog& operator=(CoexploreLog&&) noexcept;
  ~CoexploreLog();
  void append(const coexplore::Record& r);  // written and flushed
  const std::filesystem::path& path() const { return path_; }

 private:
  CoexploreLog() = default;
  void close() noexcept;
  std::filesystem::path path_;
  AppendOutput out_;
  int lock_fd_ = -1;
};

}  // namespace stackscope::io
