// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "stackscope/parallel/placement.hpp"

namespace stackscope::parallel {
namespace {

std::vector<int> group(const Placement& p, GroupKind k, int device) {
  std::vector<int> g(static_cast<std::size_t>(p.group_size(k)));
  p.group(k, device, g.data());
  return g;
}

TEST(Placement, TensorParallelIsInnermostByDefault) {
  Plan plan;
  plan.tp = 4;
  plan.ep = 8;
  plan.pp = 2;
  const Placement p(plan);
  EXPECT_EQ(p.devices(), 64);
  EXPECT_EQ(group(p, GroupKind::attention_tp, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(group(p, GroupKind::attention_tp, 6), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(group(p, GroupKind::moe_ep, 1), (std::vector<int>{1, 5, 9, 13, 17, 21, 25, 29}));
  EXPECT_EQ(group(p, GroupKind::pp_next, 3), (std::vector<int>{3, 35}));
}

TEST(Placement, CoordinatesRoundTrip) {
  Plan plan;
  plan.tp = 2;
  plan.ep = 3;
  plan.cp = 2;
  plan.pp = 2;
  plan.dp = 2;
  plan.placement = "pp,tp,dp,cp,ep";
  const Placement p(plan);
  std::set<int> seen;
  for (int d = 0; d < p.devices(); ++d) {
    EXPECT_EQ(p.device(p.coord(d)), d);
    seen.insert(d);
  }
  EXPECT_EQ(seen.size(), 48u);
  // pp innermost: the next stage is the next device.
  EXPECT_EQ(group(p, GroupKind::pp_next, 0), (std::vector<int>{0, 1}));
  // tp next: stride 2.
  EXPECT_EQ(group(p, GroupKind::attention_tp, 0), (std::vector<int>{0, 2}));
}

TEST(Placement, GroupsPartitionTheDevices) {
  Plan plan;
  plan.tp = 2;
  plan.ep = 4;
  plan.cp = 2;
  plan.pp = 3;
  plan.moe.tp = 4;  // experts split 4 ways: EP over the remaining 4 of the 16 stage devices
  const Placement p(plan);
  EXPECT_EQ(p.moe_tp(), 4);
  EXPECT_EQ(p.moe_ep(), 4);
  for (auto kind : {GroupKind::attention_tp, GroupKind::moe_tp, GroupKind::moe_ep, GroupKind::cp}) {
    std::set<int> covered;
    for (int d = 0; d < p.devices(); ++d) {
      const auto g = group(p, kind, d);
      EXPECT_NE(std::find(g.begin(), g.end(), d), g.end());  // a device is in its own group
      for (int x : g) {
        EXPECT_EQ(p.coord(x)[Dim::pp], p.coord(d)[Dim::pp]);  // module groups stay in a stage
        covered.insert(x);
      }
    }
    EXPECT_EQ(static_cast<int>(covered.size()), p.devices());
  }
}

TEST(Placement, ParseRejectsNonPermutations) {
  std::array<Dim, kDims> order{};
  EXPECT_TRUE(parse_placement("dp,pp,cp,ep,tp", &order));
  EXPECT_EQ(order[0], Dim::dp);
  EXPECT_FALSE(parse_placement("tp,ep,cp,pp", &order));
  EXPECT_FALSE(parse_placement("tp,tp,cp,pp,dp", &order));
  EXPECT_FALSE(parse_placement("tp,ep,cp,pp,xx", &order));
}

}  // namespace
}  // namespace stackscope::parallel
