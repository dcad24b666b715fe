// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rank placement (docs/model.md §5.2): which device holds which rank of each parallel
// dimension, and the device groups that communicate. The placement order lists dimensions
// innermost first; consecutive indices of the innermost dimension sit on consecutive devices.
// Inside one pipeline stage of one replica the tp x ep x cp devices are re-partitioned per
// module (attention, dense FFN, MoE) by a stage-local index that follows the same order.
#include <array>
#include <string_view>

#include "stackscope/parallel/plan.hpp"

namespace stackscope::parallel {

enum class Dim { tp, ep, cp, pp, dp };
inline constexpr int kDims = 5;

struct Coord {
  std::array<int, kDims> at{};  // indexed by Dim
  int& operator[](Dim d) { return at[static_cast<int>(d)]; }
  int operator[](Dim d) const { return at[static_cast<int>(d)]; }
};

// Order of dimensions, innermost first. Returns false (and leaves the default order) if `text`
// is not a permutation of tp, ep, cp, pp, dp.
bool parse_placement(std::string_view text, std::array<Dim, kDims>* order);

// Communicating groups. Module groups live inside one stage's tp x ep x cp devices.
enum class GroupKind {
  attention_tp,  // tensor parallel group of attention
  ffn_tp,        // tensor parallel group of dense FFN layers
  moe_tp,        // tensor parallel group inside an expert
  moe_ep,        // expert-parallel group (all-to-all)
  cp,            // context-parallel ring (prefill ring attention)
  pp_next,       // a device and its peer in the next pipeline stage
};

class Placement {
 public:
  explicit Placement(const Plan& plan);

  int devices() const { return devices_; }
  int degree(Dim d) const { return degree_[static_cast<int>(d)]; }
  // Module degrees after applying per-module plans (0 fields derived).
  int attention_tp() const { return attention_tp_; }
  int ffn_tp() const { return ffn_tp_; }
  int moe_tp() const { return moe_tp_; }
  int moe_ep() const { return moe_ep_; }
  int stage_devices() const { return stage_devices_; }

  int device(const Coord& c) const;
  Coord coord(int device) const;

  // Devices of the group of `kind` that contains `device`, in rank order; returns the size.
  // `out` must hold at least group_size(kind) entries.
  int group(GroupKind kind, int device, int* out) const;
  int group_size(GroupKind kind) const;

 private:
  std::array<int, kDims> degree_{};
  std::array<Dim, kDims> order_{};
  std::array<int, kDims> stride_{};  // device stride of each dimension
  int devices_ = 1;
  int stage_devices_ = 1;
  int attention_tp_ = 1, ffn_tp_ = 1, moe_tp_ = 1, moe_ep_ = 1;
  // Stage-local index <-> (tp, ep, cp) coordinates, in placement order.
  int stage_local(const Coord& c) const;
  void set_stage_local(int local, Coord& c) const;
};

}  // namespace stackscope::parallel
