// SPDX-License-Identifier: GPL-3.0-or-later
// Routing traces (the format of data/mixtral-routing): frequencies from the real Mixtral traces and
// every class of malformed trace.
#include <cmath>
#include <fstream>
#include <numeric>

#include "stackscope/io/moe_trace.hpp"
#include "stackscope/moe/stats.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;

const std::filesystem::path kMixtral =
    std::filesystem::path(STACKSCOPE_DATA_DIR) / "mixtral-routing";

// Mixtral-8x7B: 32 MoE layers, 8 experts, top-2 (data/mixtral-routing/README.md), so each row
// sums to 2.
TEST(RoutingTrace, MixtralMathTraceGivesTop2Frequencies) {
  workload::Routing routing;
  routing.kind = workload::RoutingKind::trace;
  routing.trace = (kMixtral / "math.json.gz").string();
  load_routing_trace(routing, 8, {});
  ASSERT_EQ(routing.expert_frequency.size(), 32u);
  for (const auto& row : routing.expert_frequency) {
    ASSERT_EQ(row.size(), 8u);
    EXPECT_NEAR(std::accumulate(row.begin(), row.end(), 0.0), 2.0, 1e-9);
    for (double f : row) {
      EXPECT_GE(f, 0.0);
      EXPECT_LE(f, 1.0);
    }
  }
  // Real routing is skewed: some expert of some layer sees clearly more than the uniform 2/8.
  double hottest = 0;
  for (const auto& row : routing.expert_frequency)
    hottest = std::max(hottest, *std::max_element(row.begin(), row.end()));
  EXPECT_GT(hottest, 0.3);
}

TEST(RoutingTrace, RelativePathsResolveAgainstBaseDir) {
  workload::Routing routing;
  routing.trace = "math.json.gz";
  load_routing_trace(routing, 8, kMixtral);
  EXPECT_EQ(routing.expert_frequency.size(), 32u);
  EXPECT_EQ(routing.trace, "math.json.gz");  // the path itself is kept as written
}

class BadTrace : public ::testing::Test {
 protected:
  std::vector<Issue> load(const std::string& text, int experts = 4) {
    const auto file = dir_.path() / "t.json";
    { std::ofstream(file) << text; }
    workload::Routing routing;
    routing.trace = "t.json";
    routing.expert_frequency = {{9.0}};
    try {
      load_routing_trace(routing, experts, dir_.path());
    } catch (const ConfigError& e) {
      EXPECT_EQ(routing.expert_frequency, std::vector<std::vector<double>>{{9.0}})
          << "a failed load must leave the routing untouched";
      for (const auto& i : e.issues()) EXPECT_EQ(i.path, "/workload/routing/trace");
      return e.issues();
    }
    ADD_FAILURE() << "expected a ConfigError for " << text;
    return {};
  }
  testing::TempDir dir_{"io-trace"};
};

TEST_F(BadTrace, ExpertIdOutOfRange) {
  const auto issues = load(R"({"0": [[0, 1], [2, 4]]})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "at /0/1/1: expert id out of range"))
      << issues[0].message;
  EXPECT_EQ(issues[0].value, "4");
  EXPECT_EQ(issues[0].allowed, "integer in [0, 3]");
}

TEST_F(BadTrace, StructuralProblems) {
  EXPECT_TRUE(contains(load(R"([[0, 1]])").at(0).message, "expected an object keyed by layer"));
  EXPECT_TRUE(contains(load(R"({"a": [[0]]})").at(0).message, "layer key is not"));
  EXPECT_TRUE(contains(load(R"({"0": []})").at(0).message, "non-empty array of per-token"));
  EXPECT_TRUE(contains(load(R"({"0": [3]})").at(0).message, "non-empty array of expert ids"));
  EXPECT_TRUE(contains(load(R"({"0": [[1, 1]]})").at(0).message, "selected twice"));
  EXPECT_TRUE(contains(load(R"({"0": [[1.5]]})").at(0).message, "not an integer"));
  EXPECT_TRUE(contains(load(R"({"0": [[1]], "2": [[1]]})").at(0).message, "layer 1 is missing"));
  EXPECT_TRUE(contains(load(R"({})").at(0).message, "no layers"));
  EXPECT_TRUE(contains(load("{\"0\": [[1]],\n}").at(0).message, "at line 2, column 1"));
  EXPECT_TRUE(contains(load(R"({"0": [[1]]})", 0).at(0).message, "needs an MoE model"));
}

TEST_F(BadTrace, ManyBadEntriesAreCappedNotFlooded) {
  std::string text = R"({"0": [)";
  for (int i = 0; i < 1000; ++i) {
    if (i) text += ',';
    text += "[7]";
  }
  text += "]}";
  const auto issues = load(text);
  EXPECT_GE(issues.size(), 1u);
  EXPECT_LE(issues.size(), 10u);
}

TEST(RoutingTraceFile, MissingFileIsNamed) {
  workload::Routing routing;
  routing.trace = "/nonexistent/trace.json";
  try {
    load_routing_trace(routing, 8, {});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.issues().at(0).path, "/workload/routing/trace");
    EXPECT_TRUE(contains(e.what(), "/nonexistent/trace.json"));
  }
  routing.trace.clear();
  EXPECT_THROW(load_routing_trace(routing, 8, {}), ConfigError);
}

// Token-level traces (io/moe_trace.hpp): the reference Mixtral traces hold every token's two
// experts, and their per-layer statistics are the frequencies load_routing_trace() gives.
TEST(MoeTrace, MixtralTracesLoadTokenByToken) {
  const auto t = load_moe_trace(kMixtral / "math.json.gz", 8, 2);
  EXPECT_EQ(t.experts, 8);
  EXPECT_EQ(t.top_k, 2);
  ASSERT_EQ(t.layers.size(), 32u);
  for (std::size_t l = 0; l < 32; ++l) EXPECT_EQ(t.tokens(l), 10'307u) << l;  // math: 10,307
  // Its statistics agree with the frequency reader's.
  workload::Routing routing;
  routing.trace = (kMixtral / "math.json.gz").string();
  load_routing_trace(routing, 8, {});
  for (std::size_t l = 0; l < 32; ++l) {
    const auto s = moe::layer_stats(t, l);
    for (int e = 0; e < 8; ++e)
      EXPECT_NEAR(s.frequency[static_cast<std::size_t>(e)],
                  routing.expert_frequency[l][static_cast<std::size_t>(e)], 1e-12);
  }
  // top_k 0 takes the file's own k.
  EXPECT_EQ(load_moe_trace(kMixtral / "roleplay.json.gz", 8).top_k, 2);
  const auto role = load_moe_trace(kMixtral / "roleplay.json.gz", 8);
  EXPECT_EQ(role.token(0, 0)[0], 5);  // the file starts {"0": [[5, 1], [3, 6], ...
  EXPECT_EQ(role.token(0, 0)[1], 1);
  EXPECT_EQ(role.token(0, 1)[1], 6);
}

class BadMoeTrace : public ::testing::Test {
 protected:
  // The first issue's message; every issue is at the file's path and names the file.
  std::string error(const std::string& text, int experts = 4, int top_k = 0) {
    const auto file = dir_.path() / "bad.json";
    { std::ofstream(file) << text; }
    try {
      (void)load_moe_trace(file, experts, top_k);
    } catch (const ConfigError& e) {
      for (const auto& i : e.issues()) {
        EXPECT_EQ(i.path, file.string());
        EXPECT_FALSE(i.allowed.empty()) << i.message;
      }
      EXPECT_TRUE(contains(e.what(), "bad.json")) << e.what();
      return e.issues().at(0).message;
    }
    ADD_FAILURE() << "expected a ConfigError for " << text;
    return {};
  }
  testing::TempDir dir_{"io-moe-trace"};
};

TEST_F(BadMoeTrace, NamesTheFileLayerAndToken) {
  // Wrong k: token 1 of layer "1" selects 3 experts where the others select 2.
  auto m = error(R"({"0": [[0, 1], [2, 3]], "1": [[0, 1], [1, 2, 3]]})");
  EXPECT_TRUE(contains(m, "at /1/1: token selects 3 experts; the trace's tokens select 2")) << m;
  // The model's k given: every token must match it.
  m = error(R"({"0": [[0, 1]]})", 4, 3);
  EXPECT_TRUE(contains(m, "at /0/0: token selects 2 experts; the trace's tokens select 3")) << m;
  m = error(R"({"0": [[0, 1]], "1": [[0, 9]]})");
  EXPECT_TRUE(contains(m, "at /1/0/1: expert id out of range")) << m;
  m = error(R"({"0": [[0, 1]], "1": []})");
  EXPECT_TRUE(contains(m, "at /1: expected a non-empty array of per-token")) << m;
  m = error(R"({"0": [[0, 1]], "2": [[0, 1]]})");
  EXPECT_TRUE(contains(m, "layer 1 is missing")) << m;
  m = error(R"({"0": [[2, 2]]})");
  EXPECT_TRUE(contains(m, "at /0/0/1: expert selected twice")) << m;
  m = error(R"({})");
  EXPECT_TRUE(contains(m, "has no layers")) << m;
  m = error(R"({"0": [[0]]})", 0);
  EXPECT_TRUE(contains(m, "experts out of range")) << m;
  m = error(R"({"0": [[0]]})", 4, 5);
  EXPECT_TRUE(contains(m, "top_k out of range")) << m;
}

}  // namespace
}  // namespace stackscope::io
