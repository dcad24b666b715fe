// SPDX-License-Identifier: GPL-3.0-or-later
// lp::solve (core/lp, GLPK): optima of problems solved by hand, infeasible and unbounded ones,
// a warm start, the time limit on a problem branch and bound cannot finish, and the errors of
// malformed problems (which GLPK itself would abort on).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "stackscope/lp/lp.hpp"

namespace stackscope::lp {
namespace {

Variable V(double lo, double hi, double cost, VarKind kind = VarKind::continuous,
           std::string name = {}) {
  Variable v;
  v.lo = lo;
  v.hi = hi;
  v.cost = cost;
  v.kind = kind;
  v.name = std::move(name);
  return v;
}
Row R(std::vector<std::pair<int, double>> terms, double lo, double hi, std::string name = {}) {
  Row r;
  r.terms = std::move(terms);
  r.lo = lo;
  r.hi = hi;
  r.name = std::move(name);
  return r;
}

// min x + y s.t. x + 2y >= 2, 3x + y >= 3, x, y >= 0: the two constraints meet at
// (x, y) = (4/5, 3/5), objective 7/5 (the vertices (0, 3) and (2, 0) give 3 and 2).
TEST(Lp, SolvesATwoVariableLpAtTheVertex) {
  Problem p;
  const int x = p.add(V(0, kInf, 1, VarKind::continuous, "x"));
  const int y = p.add(V(0, kInf, 1, VarKind::continuous, "y"));
  p.add(R({{x, 1}, {y, 2}}, 2, kInf, "a"));
  p.add(R({{x, 3}, {y, 1}}, 3, kInf, "b"));
  const auto s = solve(p);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.objective, 1.4, 1e-9);
  EXPECT_NEAR(s.x[0], 0.8, 1e-9);
  EXPECT_NEAR(s.x[1], 0.6, 1e-9);
  EXPECT_EQ(s.gap, 0.0);
}

// max 5a + 4b + 3c s.t. 2a + 3b + c <= 5, binary: {a, b} weighs 5 and is worth 9; {a, c} 8,
// {b, c} 7, {a, b, c} weighs 6. The LP relaxation is worth more (a = c = 1, b = 2/3: 10.67).
TEST(Lp, SolvesABinaryKnapsackByBranchAndCut) {
  Problem p;
  p.minimise = false;
  const int a = p.add(V(0, 1, 5, VarKind::binary, "a"));
  const int b = p.add(V(0, 1, 4, VarKind::binary, "b"));
  const int c = p.add(V(0, 1, 3, VarKind::binary, "c"));
  p.add(R({{a, 2}, {b, 3}, {c, 1}}, -kInf, 5, "weight"));
  const auto s = solve(p);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.objective, 9, 1e-9);
  EXPECT_NEAR(s.x[0], 1, 1e-9);
  EXPECT_NEAR(s.x[1], 1, 1e-9);
  EXPECT_NEAR(s.x[2], 0, 1e-9);
  EXPECT_NEAR(s.bound, 9, 1e-9);
  // The warm start {a, c} (worth 8) is a feasible incumbent GLPK accepts, and the optimum stays 9.
  Options o;
  o.warm_start = {1, 0, 1};
  const auto w = solve(p, o);
  EXPECT_TRUE(w.warm_start_used);
  EXPECT_NEAR(w.objective, 9, 1e-9);
}

TEST(Lp, ReportsInfeasibleAndUnbounded) {
  Problem p;
  const int x = p.add(V(0, 1, 1));
  p.add(R({{x, 1}}, 2, kInf));
  EXPECT_EQ(solve(p).status, Status::infeasible);
  p.variables[0].kind = VarKind::integer;
  EXPECT_EQ(solve(p).status, Status::infeasible);
  Problem u;
  u.add(V(0, kInf, -1));  // min -x, x >= 0
  EXPECT_EQ(solve(u).status, Status::unbounded);
}

// A market-split instance (Cornuéjols and Dawande, "A class of hard small 0-1 programs", IPCO
// 1998): 4 equality rows over 40 binaries with coefficients in [0, 99] and right-hand sides half
// the row sums, slack minimised. Branch and bound needs of the order of 2^40 / 2^(4 log 100)
// nodes, far more than the 0.2 s allowed: the solver must stop at the limit, with or without a
// solution, not run on.
TEST(Lp, HonoursTheTimeLimit) {
  Problem p;
  constexpr int kN = 40, kM = 4;
  for (int j = 0; j < kN; ++j) p.add(V(0, 1, 0, VarKind::binary));
  std::uint64_t x = 12345;
  const auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    return static_cast<int>((x >> 33) % 100);
  };
  for (int i = 0; i < kM; ++i) {
    Row r;
    double sum = 0;
    for (int j = 0; j < kN; ++j) {
      const int a = next();
      r.terms.push_back({j, a});
      sum += a;
    }
    const int sp = p.add(V(0, kInf, 1));  // slack above and below the target
    const int sm = p.add(V(0, kInf, 1));
    r.terms.push_back({sp, 1});
    r.terms.push_back({sm, -1});
    r.lo = r.hi = std::floor(sum / 2);
    p.add(r);
  }
  Options o;
  o.time_limit_s = 0.2;
  o.mip_gap = 0;
  const auto s = solve(p, o);
  EXPECT_NE(s.status, Status::optimal);
  EXPECT_TRUE(s.status == Status::feasible || s.status == Status::no_solution)
      << to_string(s.status);
  // Returned at the limit, not minutes later (generous: the machine may be loaded).
  EXPECT_LT(s.seconds, 20.0);
  if (s.status == Status::feasible) {
    EXPECT_GE(s.objective, s.bound - 1e-9);
    EXPECT_GT(s.gap, 0.0);
  }
}

TEST(Lp, MalformedProblemsAreErrorsNotAborts) {
  const auto bad = [](const Problem& p, const Options& o, const char* part) {
    try {
      (void)solve(p, o);
      ADD_FAILURE() << "accepted; expected " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  Problem p;
  bad(p, {}, "no variables");
  p.add(V(2, 1, 0, VarKind::continuous, "x"));
  bad(p, {}, "variable 0 (x) has bounds");
  p.variables[0] = V(0, 1, 0);
  p.add(R({{1, 1.0}}, 0, 1, "r"));
  bad(p, {}, "row 0 (r) uses variable 1");
  p.rows[0] = R({{0, 1.0}, {0, 2.0}}, 0, 1);
  bad(p, {}, "names variable 0 twice");
  p.rows[0] = R({{0, 1.0}}, 0, 1);
  p.variables[0].kind = VarKind::binary;
  p.variables[0].lo = 2;
  p.variables[0].hi = 3;
  bad(p, {}, "outside [0, 1]");
  p.variables[0] = V(0, 1, 0);
  Options o;
  o.time_limit_s = 0;
  bad(p, o, "time limit");
  o = {};
  o.warm_start = {1, 2};
  bad(p, o, "warm start has 2 values for 1 variables");
}

}  // namespace
}  // namespace stackscope::lp
