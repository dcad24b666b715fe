// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON form of one collective on a system network, as `collective --json` prints it:
//   {"system", "op", "bytes", "group", "placement", "ranks", "time_s", "algorithm", "bus_GBps",
//    "alg_GBps", "steps", "links": [{"from", "to", "level", "level_name", "bytes",
//    "utilisation"}], "idle_links", with the reference simulator also "reference_time_s" and
//    "reference_error" (null when the simulator gave no time)}
// Bytes per rank, times in s, bandwidths in decimal GB/s (as nccl-tests prints them), link
// utilisation as the fraction of the collective's time the link is busy. Indented by two
// spaces, no trailing newline.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stackscope::io {

struct CollectiveLinkLoad {
  std::string from, to;
  int level = 0;
  std::string level_name;
  double bytes = 0;
  double utilisation = 0;
};

struct CollectiveReport {
  std::string system, op, placement, algorithm;
  std::int64_t bytes = 0;
  int group = 0;
  std::vector<int> ranks;
  double time_s = 0;
  double bus_GBps = 0, alg_GBps = 0;
  int steps = 0;
  std::vector<CollectiveLinkLoad> links;  // links that carry traffic, busiest first
  std::size_t idle_links = 0;
  // The flow-level reference simulator's time (s) when it ran; 0 = it gave no time.
  std::optional<double> reference_time_s;
};

std::string collective_json(const CollectiveReport& report);

}  // namespace stackscope::io
