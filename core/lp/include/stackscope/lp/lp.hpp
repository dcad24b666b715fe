// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Linear and mixed-integer linear programs (HD-MoE's node balance, arXiv 2509.09420
// §IV-C, is a MILP of placement fractions and presence indicators). A plain problem description
// solved by GLPK's simplex and branch-and-cut (glp_simplex, glp_intopt; GLPK 5.0 reference
// manual §2.4, §2.8) under a wall-clock limit, with an optional warm start handed to the solver
// as its first incumbent, and the optimality gap reported.
//
// Every index and bound is checked here before GLPK sees it (GLPK aborts the process on a bad
// call): a malformed problem is std::invalid_argument naming the variable or row, never a
// crash.
#include <cstddef>
#include <limits>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace stackscope::lp {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

enum class VarKind { continuous, integer, binary };

struct Variable {
  double lo = 0, hi = kInf;  // bounds; -kInf / kInf = free on that side (binary: [0, 1])
  double cost = 0;           // objective coefficient
  VarKind kind = VarKind::continuous;
  std::string name;  // for messages
};

// lo <= Σ coef x[index] <= hi (lo = hi: an equality; -kInf / kInf: one-sided).
struct Row {
  std::vector<std::pair<int, double>> terms;
  double lo = -kInf, hi = kInf;
  std::string name;
};

struct Problem {
  bool minimise = true;
  std::vector<Variable> variables;
  std::vector<Row> rows;

  int add(Variable v) {
    variables.push_back(std::move(v));
    return static_cast<int>(variables.size()) - 1;
  }
  void add(Row r) { rows.push_back(std::move(r)); }
  bool is_mip() const;
};

struct Options {
  double time_limit_s = 10;  // wall clock, > 0 (GLPK's tm_lim, ms)
  double mip_gap = 1e-6;     // stop when the relative gap is at most this, >= 0
  // An assignment of every variable tried as the first incumbent (GLPK's heuristic callback,
  // glp_ios_heur_sol); ignored if it is infeasible. Empty = none.
  std::vector<double> warm_start;
  // Requested: the branch and cut stops as at the time limit (GLPK's glp_ios_terminate), with
  // the best solution found so far.
  std::stop_token stop;
};

enum class Status {
  optimal,      // proven optimal (within mip_gap)
  feasible,     // a solution, stopped by the time limit before proving it optimal
  infeasible,   // no solution exists
  unbounded,    // the objective is unbounded
  no_solution,  // stopped by the time limit before any solution was found
};
const char* to_string(Status s);

struct Solution {
  Status status = Status::no_solution;
  double objective = 0;  // of x (optimal or feasible)
  // The best bound proven on the optimum (a lower bound when minimising): the objective when
  // optimal; for a stopped MILP the best open node's bound (or the LP relaxation's).
  double bound = 0;
  double gap = 0;                // |objective - bound| / max(|objective|, 1e-10); 0 when optimal
  double seconds = 0;            // wall time spent in GLPK
  bool warm_start_used = false;  // the warm start was accepted as an incumbent
  std::vector<double> x;         // one value per variable (empty without a solution)
};

// Throws std::invalid_argument for a malformed problem (no variables, a bound pair with
// lo > hi or NaN, a binary variable with bounds other than [0, 1] subsets, an index out of
// range, a repeated index in one row, a non-finite coefficient or cost) or bad options (time
// limit <= 0 or > 1e6 s, a negative gap, a warm start of the wrong size); std::runtime_error
// when GLPK itself fails.
Solution solve(const Problem& problem, const Options& options = {});

}  // namespace stackscope::lp
