// SPDX-License-Identifier: GPL-3.0-or-later
// The network model against measured collective bandwidths (data/nccl-collectives/collectives.json:
// nccl-tests busBW on NVSwitch and InfiniBand, NVLink point-to-point copies). busBW follows
// nccl-tests PERFORMANCE.md: algBW = bytes / time, busBW = algBW x 2(n-1)/n for all-reduce.
// The algorithm is the one NCCL uses on large messages (NVLS where the switch reduces, rings
// otherwise); the other one is printed for comparison. Every row must be within 10%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/network/model.hpp"

namespace stackscope {
namespace {

using network::Algorithm;
using network::Collective;

nlohmann::json reference_rows() {
  std::ifstream in(STACKSCOPE_DATA_DIR "/nccl-collectives/collectives.json");
  EXPECT_TRUE(in.good()) << "data/nccl-collectives/collectives.json not found";
  return nlohmann::json::parse(in)["rows"];
}

double measured(const nlohmann::json& rows, const std::string& id, const std::string& key) {
  for (const auto& r : rows)
    if (r["id"] == id) return r[key].get<double>();
  ADD_FAILURE() << "no reference row " << id;
  return 0;
}

struct Row {
  std::string id;
  std::string what;
  double measured_GBps;
  double model_GBps;
  std::string algorithm;
  bool asserted = true;
  double error() const { return (model_GBps - measured_GBps) / measured_GBps; }
};

network::CollectiveCost run(network::NetworkModel& m, Collective op, double bytes, int n,
                            Algorithm a) {
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  network::CollectiveRequest r;
  r.op = op;
  r.bytes = bytes;
  r.ranks = ranks;
  r.algorithm = a;
  return m.cost(r);
}

TEST(Validation, CollectiveBandwidths) {
  io::PresetRegistry presets;
  presets.register_builtins();
  const auto rows = reference_rows();
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  std::vector<Row> table;

  // 8x H100 on NVSwitch, 1 GiB (nccl-tests "large", > 256 MB).
  network::NetworkModel h100(presets.system("h100-sxm-x8"));
  const auto nvls = run(h100, Collective::all_reduce, GiB, 8, Algorithm::in_network);
  const auto ring = run(h100, Collective::all_reduce, GiB, 8, Algorithm::ring);
  const auto chosen = run(h100, Collective::all_reduce, GiB, 8, Algorithm::automatic);
  EXPECT_EQ(nvls.algorithm, Algorithm::in_network);
  EXPECT_EQ(chosen.algorithm, Algorithm::in_network);  // what NCCL picks on NVLS systems
  table.push_back({"nccl-h100x8-allreduce-nvls", "busBW, 1 GiB",
                   measured(rows, "nccl-h100x8-allreduce-nvls", "bus_GBps"),
                   nvls.bus_bandwidth_Bps / 1e9, "in_network"});
  table.push_back({"nccl-h100x8-allreduce-nvls", "algBW, 1 GiB",
                   measured(rows, "nccl-h100x8-allreduce-nvls", "alg_GBps"),
                   GiB / nvls.time_s / 1e9, "in_network"});
  table.push_back({"nccl-h100x8-ring", "busBW, 1 GiB",
                   measured(rows, "nccl-h100x8-ring", "bus_GBps"), ring.bus_bandwidth_Bps / 1e9,
                   "ring"});
  // The same fabric's ring reduce-scatter / all-gather (the row covers all three).
  const auto ag = run(h100, Collective::all_gather, GiB, 8, Algorithm::ring);
  table.push_back({"nccl-h100x8-ring", "all_gather busBW",
                   measured(rows, "nccl-h100x8-ring", "bus_GBps"), ag.bus_bandwidth_Bps / 1e9,
                   "ring"});

  // 8x H200: peak of NCCL's default (NVLS) over the 64 KB - 4 GB sweep.
  network::NetworkModel h200(presets.system("h200-x8"));
  double peak = 0, peak_ring = 0;
  std::string peak_alg;
  for (double b = 64 * 1024.0; b <= 4 * GiB; b *= 2) {
    const auto c = run(h200, Collective::all_reduce, b, 8, Algorithm::automatic);
    if (c.bus_bandwidth_Bps > peak) {
      peak = c.bus_bandwidth_Bps;
      peak_alg = std::string(network::to_string(c.algorithm));
    }
    peak_ring = std::max(
        peak_ring, run(h200, Collective::all_reduce, b, 8, Algorithm::ring).bus_bandwidth_Bps);
  }
  table.push_back({"nccl-h200x8-allreduce", "peak busBW, 64 KB-4 GB",
                   measured(rows, "nccl-h200x8-allreduce", "bus_GBps"), peak / 1e9, peak_alg});
  table.push_back({"nccl-h200x8-allreduce", "peak busBW if ring",
                   measured(rows, "nccl-h200x8-allreduce", "bus_GBps"), peak_ring / 1e9, "ring",
                   false});

  // 2 nodes x 8 H100, one NDR NIC per GPU: busBW of a 16-rank ring all-reduce per NIC (8 per
  // node). The rings run one channel per rail, so all 8 NICs carry the inter-node traffic.
  network::NetworkModel ib(presets.system("h100-sxm-x16-ib"));
  const auto ib_ring = run(ib, Collective::all_reduce, 4 * GiB, 16, Algorithm::ring);
  const auto ib_hier = run(ib, Collective::all_reduce, 4 * GiB, 16, Algorithm::hierarchical);
  EXPECT_EQ(ib_ring.outermost_level, 1);
  table.push_back({"nccl-ib-ndr-per-nic", "busBW / 8 NICs, 4 GiB",
                   measured(rows, "nccl-ib-ndr-per-nic", "bus_GBps_per_nic"),
                   ib_ring.bus_bandwidth_Bps / 8 / 1e9, "ring"});
  table.push_back({"nccl-ib-ndr-per-nic", "same, hierarchical",
                   measured(rows, "nccl-ib-ndr-per-nic", "bus_GBps_per_nic"),
                   ib_hier.bus_bandwidth_Bps / 8 / 1e9, "hierarchical", false});

  // NVLink point-to-point copy, one direction, 1 GiB.
  network::NetworkModel pair(presets.system("h100-sxm-x8"));
  const auto p2p = run(pair, Collective::point_to_point, GiB, 2, Algorithm::automatic);
  table.push_back({"p2p-h100", "unidirectional, 1 GiB",
                   measured(rows, "p2p-h100", "unidirectional_GBps"), GiB / p2p.time_s / 1e9,
                   "direct"});

  std::printf("%-28s %-24s %-13s %10s %10s %8s\n", "row", "quantity", "algorithm", "measured",
              "model", "error");
  for (const auto& r : table)
    std::printf("%-28s %-24s %-13s %10.1f %10.1f %+7.1f%%%s\n", r.id.c_str(), r.what.c_str(),
                r.algorithm.c_str(), r.measured_GBps, r.model_GBps, 100 * r.error(),
                r.asserted ? "" : "  (not NCCL's choice)");
  std::fflush(stdout);
  for (const auto& r : table) {
    if (r.asserted) {
      EXPECT_LE(std::abs(r.error()), 0.10) << r.id << " " << r.what;
    }
  }
}

}  // namespace
}  // namespace stackscope
