// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/parallel/placement.hpp"

#include <algorithm>

namespace stackscope::parallel {
namespace {

constexpr std::array<Dim, kDims> kDefaultOrder = {Dim::tp, Dim::ep, Dim::cp, Dim::pp, Dim::dp};

bool name_to_dim(std::string_view s, Dim* d) {
  static constexpr std::pair<std::string_view, Dim> kNames[] = {
      {"tp", Dim::tp}, {"ep", Dim::ep}, {"cp", Dim::cp}, {"pp", Dim::pp}, {"dp", Dim::dp}};
  for (const auto& [n, v] : kNames)
    if (n == s) { *d = v; return true; }
  return false;
}

bool is_stage_dim(Dim d) { return d == Dim::tp || d == Dim::ep || d == Dim::cp; }

}  // namespace

bool parse_placement(std::string_view text, std::array<Dim, kDims>* order) {
  std::array<Dim, kDims> out{};
  std::array<bool, kDims> seen{};
  int n = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    const auto token = text.substr(pos, comma == std::string_view::npos ? text.size() - pos
                                                                         : comma - pos);
    Dim d;
    if (n >= kDims || !name_to_dim(token, &d) || seen[static_cast<int>(d)]) return false;
    seen[static_cast<int>(d)] = true;
    out[n++] = d;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (n != kDims) return false;
  *order = out;
  return true;
}

Placement::Placement(const Plan& p) {
  degree_ = {std::max(1, p.tp), std::max(1, p.ep), std::max(1, p.cp), std::max(1, p.pp),
             std::max(1, p.dp)};
  order_ = kDefaultOrder;
  parse_placement(p.placement, &order_);
  int stride = 1;
  for (Dim d : order_) {
    stride_[static_cast<int>(d)] = stride;
    stride *= degree_[static_cast<int>(d)];
  }
  devices_ = stride;
  stage_devices_ = degree(Dim::tp) * degree(Dim::ep) * degree(Dim::cp);
  auto divides = [&](int x) { return x > 0 && stage_devices_ % x == 0; };
  attention_tp_ = divides(p.attention.tp) ? p.attention.tp : degree(Dim::tp);
  ffn_tp_ = divides(p.dense_ffn.tp) ? p.dense_ffn.tp : degree(Dim::tp);
  moe_tp_ = divides(p.moe.tp) ? p.moe.tp : degree(Dim::tp);
  moe_ep_ = divides(p.moe.ep) && p.moe.ep * moe_tp_ == stage_devices_ ? p.moe.ep
                                                                       : stage_devices_ / moe_tp_;
}

int Placement::device(const Coord& c) const {
  int d = 0;
  for (int i = 0; i < kDims; ++i) d += c.at[i] * stride_[i];
  return d;
}

Coord Placement::coord(int device) const {
  Coord c;
  for (Dim d : order_) {
    const int i = static_cast<int>(d);
    c.at[i] = device % degree_[i];
    device /= degree_[i];
  }
  return c;
}

int Placement::stage_local(const Coord& c) const {
  int local = 0, scale = 1;
  for (Dim d : order_) {
    if (!is_stage_dim(d)) continue;
    local += c[d] * scale;
    scale *= degree(d);
  }
  return local;
}

void Placement::set_stage_local(int local, Coord& c) const {
  for (Dim d : order_) {
    if (!is_stage_dim(d)) continue;
    c[d] = local % degree(d);
    local /= degree(d);
  }
}

int Placement::group_size(GroupKind kind) const {
  switch (kind) {
    case GroupKind::attention_tp: return attention_tp_;
    case GroupKind::ffn_tp: return ffn_tp_;
    case GroupKind::moe_tp: return moe_tp_;
    case GroupKind::moe_ep: return moe_ep_;
    case GroupKind::cp: return degree(Dim::cp);
    case GroupKind::pp_next: return degree(Dim::pp) > 1 ? 2 : 1;
  }
  return 1;
}

int Placement::group(GroupKind kind, int device, int* out) const {
  Coord c = coord(device);
  const int n = group_size(kind);
  if (kind == GroupKind::cp) {
    for (int i = 0; i < n; ++i) {
      Coord g = c;
      g[Dim::cp] = i;
      out[i] = this->device(g);
    }
    return n;
  }
  if (kind == GroupKind::pp_next) {
    out[0] = device;
    if (n == 2) {
      Coord g = c;
      g[Dim::pp] = (c[Dim::pp] + 1) % degree(Dim::pp);
      out[1] = this->device(g);
    }
    return n;
  }
  // Module groups partition the stage-local index: tensor-parallel groups are runs of
  // consecutive local indices, expert-parallel groups stride over them by the expert's tp.
  const int local = stage_local(c);
  int first = 0, step = 1;
  if (kind == GroupKind::moe_ep) {
    first = local % moe_tp_;
    step = moe_tp_;
  } else {
    first = local - local % n;
    step = 1;
  }
  for (int i = 0; i < n; ++i) {
    Coord g = c;
    set_stage_local(first + i * step, g);
    out[i] = this->device(g);
  }
  return n;
}

}  // namespace stackscope::parallel
