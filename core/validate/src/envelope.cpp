// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/validate/envelope.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "stackscope/runtime/profile.hpp"

namespace stackscope::validate {
namespace {

std::string pct(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * f);
  return b;
}

// Held-out figures first: they are the out-of-sample error; then rows of no selection, then
// fitted rows.
int group_rank(Group g) {
  switch (g) {
    case Group::held_out: return 0;
    case Group::reported: return 1;
    case Group::fitted: return 2;
  }
  return 3;
}

std::string describe(const EnvelopeEntry& e) {
  std::string s = e.hardware + " / " + e.runtime + " / " + (e.moe ? "MoE" : "dense") + " (" +
                  to_string(e.group) + " rows): TTFT " + pct(e.ttft.mape) + ", TPOT " +
                  pct(e.tpot.mape) + " MAPE over " + std::to_string(e.ttft.rows) + " rows";
  return s;
}

}  // namespace

Envelope envelope_of(const Report& report, const std::string& command) {
  using Key = std::tuple<std::string, std::string, bool, int>;
  std::map<Key, std::pair<std::vector<double>, std::vector<double>>> acc;
  for (const auto& r : report.results) {
    if (!r.ran) continue;
    const Case& c = report.cases.at(r.index);
    if (c.workers.empty()) continue;
    const Key k{c.workers.front().design.hardware.id, c.runtime, c.moe, static_cast<int>(r.group)};
    acc[k].first.push_back(std::abs(r.ttft_err));
    acc[k].second.push_back(std::abs(r.tpot_err));
  }
  Envelope env;
  env.command = command;
  env.inputs = report.inputs;
  for (auto& [k, v] : acc) {
    EnvelopeEntry e;
    e.hardware = std::get<0>(k);
    e.runtime = std::get<1>(k);
    e.moe = std::get<2>(k);
    e.group = static_cast<Group>(std::get<3>(k));
    e.ttft = error_stats(std::move(v.first));
    e.tpot = error_stats(std::move(v.second));
    env.entries.push_back(std::move(e));
  }
  return env;
}

EnvelopeMatch match_envelope(const Envelope& envelope, const perf::Design& design) {
  EnvelopeMatch m;
  const bool moe = design.model.moe.experts > 0;
  if (design.wafer || runtime::device_class_of(design.hardware) != runtime::DeviceClass::gpu) {
    m.text =
        "not validated: no measured deployment of this kind of device (3D-stacked, wafer-scale "
        "and mesh accelerators have no silicon to measure); the GPU calibration does not carry "
        "over";
    return m;
  }
  if (envelope.entries.empty()) {
    m.text = "not validated: no validation table";
    return m;
  }
  // Best entry: same device, runtime and class first, then by how many of the three agree
  // (device before runtime before class), then held-out before fitted.
  const EnvelopeEntry* best = nullptr;
  int best_score = -1, best_rank = 9;
  for (const auto& e : envelope.entries) {
    const int score = (e.hardware == design.hardware.id ? 4 : 0) +
                      (e.runtime == design.runtime.id ? 2 : 0) + (e.moe == moe ? 1 : 0);
    const int rank = group_rank(e.group);
    // Ties: held-out rows before fitted ones, then the partition with more rows.
    if (score > best_score || (score == best_score && rank < best_rank) ||
        (score == best_score && rank == best_rank && e.ttft.rows > best->ttft.rows)) {
      best = &e;
      best_score = score;
      best_rank = rank;
    }
  }
  m.entry = *best;
  if (best_score == 7) {
    m.kind = EnvelopeMatch::Kind::exact;
    m.text = "validated: " + describe(*best);
    return m;
  }
  m.kind = EnvelopeMatch::Kind::nearest;
  std::string differs;
  const auto add = [&](const std::string& what) {
    differs += (differs.empty() ? "" : ", ") + what;
  };
  if (best->hardware != design.hardware.id)
    add("device " + (design.hardware.id.empty() ? design.hardware.name : design.hardware.id));
  if (best->runtime != design.runtime.id) add("runtime " + design.runtime.id);
  if (best->moe != moe) add(moe ? "an MoE model" : "a dense model");
  m.text = "nearest validated: " + describe(*best) + "; this design differs: " + differs;
  return m;
}

}  // namespace stackscope::validate
