// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON writers of the commands' reports (core/io): the document each writes, its units and
// its nulls, read back with nlohmann.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "stackscope/io/network_json.hpp"
#include "stackscope/io/reproduction.hpp"

namespace stackscope::io {
namespace {

TEST(ReportJson, CollectiveCarriesEveryLinkAndTheReferenceError) {
  CollectiveReport r;
  r.system = "h100-sxm-x8";
  r.op = "all_reduce";
  r.placement = "packed";
  r.algorithm = "ring";
  r.bytes = 1 << 20;
  r.group = 8;
  r.ranks = {0, 1, 2, 3, 4, 5, 6, 7};
  r.time_s = 2e-5;
  r.bus_GBps = 91.75;
  r.alg_GBps = 52.43;
  r.steps = 14;
  r.links = {{"gpu0", "sw0", 0, "nvswitch", 1.5e6, 0.75}, {"gpu1", "sw0", 0, "nvswitch", 1e6, 0.5}};
  r.idle_links = 30;
  const auto j = nlohmann::json::parse(collective_json(r));
  EXPECT_EQ(j["system"], "h100-sxm-x8");
  EXPECT_EQ(j["bytes"], 1 << 20);
  EXPECT_EQ(j["ranks"].size(), 8u);
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["from"], "gpu0");
  EXPECT_DOUBLE_EQ(j["links"][0]["utilisation"].get<double>(), 0.75);
  EXPECT_EQ(j["idle_links"], 30);
  // No reference run: neither key is written.
  EXPECT_FALSE(j.contains("reference_time_s"));
  EXPECT_FALSE(j.contains("reference_error"));
  // A reference 4 % slower than the model: error = time / reference - 1.
  r.reference_time_s = 2.5e-5;
  const auto k = nlohmann::json::parse(collective_json(r));
  EXPECT_DOUBLE_EQ(k["reference_time_s"].get<double>(), 2.5e-5);
  EXPECT_DOUBLE_EQ(k["reference_error"].get<double>(), 2e-5 / 2.5e-5 - 1.0);
  // A reference that gave no time: the error is null, not 0 or infinity.
  r.reference_time_s = 0.0;
  EXPECT_TRUE(nlohmann::json::parse(collective_json(r))["reference_error"].is_null());
}

TEST(ReportJson, ReproductionGainsAreEachStepOverTheOneBefore) {
  repro::Report r;
  r.runtime = "modern-gpu-2025";
  for (int step = 1; step <= 2; ++step) {
    repro::Table4Row t;
    t.step = step;
    t.batch = 4;
    t.name = step == 1 ? "ASTRA-style" : "+ EP";
    t.paper_stps = 100.0 * step;
    t.paper_design.valid = t.paper_design.feasible = true;
    t.paper_design.stps = step == 1 ? 200.0 : 300.0;
    t.own.valid = t.own.feasible = true;
    t.own.stps = step == 1 ? 250.0 : 500.0;
    r.table4.push_back(t);
  }
  repro::StackPoint p;
  p.layers = 4;
  p.stps = 1234.5;
  r.stack_own.push_back(p);
  const auto j = nlohmann::json::parse(reproduction_json(r));
  EXPECT_EQ(j["runtime"], "modern-gpu-2025");
  ASSERT_EQ(j["table4"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["table4"][1]["paper_design_gain"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["table4"][1]["own_gain"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["table4"][1]["own"]["stps"].get<double>(), 500.0);
  ASSERT_TRUE(j["table4"][0]["own"].contains("decode_shares"));
  EXPECT_EQ(j["stack_own"][0]["layers"], 4);
  EXPECT_TRUE(j["stack_paper"].empty());
  EXPECT_TRUE(j["fig16"].empty());
}

}  // namespace
}  // namespace stackscope::io
