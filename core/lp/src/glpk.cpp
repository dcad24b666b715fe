// SPDX-License-Identifier: GPL-3.0-or-later
// lp::solve with GLPK 5.0 (lp.hpp). API as in the GLPK reference manual (doc/glpk.pdf of
// glpk-5.0): problem object §2.1-2.2, simplex §2.8.1 (glp_simplex, glp_smcp), branch-and-cut
// §2.10 (glp_intopt, glp_iocp) and its callback interface §5.1 (glp_ios_best_node,
// glp_ios_node_bound, glp_ios_heur_sol).
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "stackscope/lp/lp.hpp"

namespace stackscope::lp {

const char* to_string(Status s) {
  switch (s) {
    case Status::optimal: return "optimal";
    case Status::feasible: return "feasible (time limit)";
    case Status::infeasible: return "infeasible";
    case Status::unbounded: return "unbounded";
    case Status::no_solution: return "no solution (time limit)";
  }
  return "?";
}

bool Problem::is_mip() const {
  return std::any_of(variables.begin(), variables.end(),
                     [](const Variable& v) { return v.kind != VarKind::continuous; });
}

namespace {

std::string var_name(const Problem& p, std::size_t j) {
  const auto& n = p.variables[j].name;
  return "variable " + std::to_string(j) + (n.empty() ? "" : " (" + n + ")");
}
std::string row_name(const Problem& p, std::size_t i) {
  const auto& n = p.rows[i].name;
  return "row " + std::to_string(i) + (n.empty() ? "" : " (" + n + ")");
}

void check_bounds(double lo, double hi, const std::string& what) {
  if (std::isnan(lo) || std::isnan(hi) || lo > hi || lo == kInf || hi == -kInf)
    throw std::invalid_argument("lp: " + what + " has bounds [" + std::to_string(lo) + ", " +
                                std::to_string(hi) +
                                "] (allowed: lo <= hi, lo < +inf, hi > -inf, no NaN)");
}

void validate(const Problem& p, const Options& o) {
  if (p.variables.empty()) throw std::invalid_argument("lp: the problem has no variables");
  if (p.variables.size() > 10'000'000 || p.rows.size() > 10'000'000)
    throw std::invalid_argument("lp: more than 10^7 variables or rows");
  for (std::size_t j = 0; j < p.variables.size(); ++j) {
    const auto& v = p.variables[j];
    check_bounds(v.lo, v.hi, var_name(p, j));
    if (!std::isfinite(v.cost))
      throw std::invalid_argument("lp: " + var_name(p, j) + " has a non-finite cost");
    if (v.kind == VarKind::binary && (v.lo > 1 || v.hi < 0))
      throw std::invalid_argument("lp: binary " + var_name(p, j) +
                                  " has bounds outside [0, 1] (allowed: a subset of [0, 1])");
  }
  const auto n = static_cast<int>(p.variables.size());
  std::vector<std::size_t> seen(p.variables.size(), 0);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const auto& r = p.rows[i];
    check_bounds(r.lo, r.hi, row_name(p, i));
    for (const auto& [j, a] : r.terms) {
      if (j < 0 || j >= n)
        throw std::invalid_argument("lp: " + row_name(p, i) + " uses variable " +
                                    std::to_string(j) + " (allowed: 0.." + std::to_string(n - 1) +
                                    ")");
      if (!std::isfinite(a))
        throw std::invalid_argument("lp: " + row_name(p, i) + " has a non-finite coefficient of " +
                                    var_name(p, static_cast<std::size_t>(j)));
      if (seen[static_cast<std::size_t>(j)] == i + 1)
        throw std::invalid_argument("lp: " + row_name(p, i) + " names " +
                                    var_name(p, static_cast<std::size_t>(j)) + " twice");
      seen[static_cast<std::size_t>(j)] = i + 1;
    }
  }
  if (!(o.time_limit_s > 0 && o.time_limit_s <= 1e6))
    throw std::invalid_argument("lp: time limit " + std::to_string(o.time_limit_s) +
                                " s out of range (allowed: (0, 1e6] s)");
  if (!(o.mip_gap >= 0) || !std::isfinite(o.mip_gap))
    throw std::invalid_argument("lp: MIP gap must be a finite number >= 0");
  if (!o.warm_start.empty() && o.warm_start.size() != p.variables.size())
    throw std::invalid_argument("lp: the warm start has " + std::to_string(o.warm_start.size()) +
                                " values for " + std::to_string(p.variables.size()) + " variables");
}

int bound_type(double lo, double hi) {
  const bool l = std::isfinite(lo), h = std::isfinite(hi);
  if (l && h) return lo == hi ? GLP_FX : GLP_DB;
  if (l) return GLP_LO;
  if (h) return GLP_UP;
  return GLP_FR;
}

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// What the branch-and-cut callback sees and leaves.
struct Search {
  const std::vector<double>* warm = nullptr;  // 1-based copy for glp_ios_heur_sol
  bool tried = false, accepted = false;
  bool have_bound = false;
  double bound = 0;
  std::stop_token stop;
};

void callback(glp_tree* tree, void* info) {
  auto* s = static_cast<Search*>(info);
  if (s->stop.stop_requested()) {
    glp_ios_terminate(tree);
    return;
  }
  if (const int best = glp_ios_best_node(tree); best != 0) {
    s->bound = glp_ios_node_bound(tree, best);
    s->have_bound = true;
  }
  if (glp_ios_reason(tree) == GLP_IHEUR && s->warm && !s->tried) {
    s->tried = true;
    s->accepted = glp_ios_heur_sol(tree, s->warm->data()) == 0;
  }
}

// Restores GLPK's terminal output on every exit.
class Quiet {
 public:
  Quiet() : previous_(glp_term_out(GLP_OFF)) {}
  ~Quiet() { glp_term_out(previous_); }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  int previous_;
};

}  // namespace

Solution solve(const Problem& p, const Options& o) {
  validate(p, o);
  const Quiet quiet;
  std::unique_ptr<glp_prob, ProbDeleter> prob(glp_create_prob());
  glp_prob* g = prob.get();
  glp_set_obj_dir(g, p.minimise ? GLP_MIN : GLP_MAX);
  const int n = static_cast<int>(p.variables.size());
  glp_add_cols(g, n);
  for (int j = 1; j <= n; ++j) {
    const auto& v = p.variables[static_cast<std::size_t>(j - 1)];
    double lo = v.lo, hi = v.hi;
    if (v.kind == VarKind::binary) {
      lo = std::max(lo, 0.0);
      hi = std::min(hi, 1.0);
    }
    glp_set_col_kind(g, j, v.kind == VarKind::continuous ? GLP_CV : GLP_IV);
    glp_set_col_bnds(g, j, bound_type(lo, hi), std::isfinite(lo) ? lo : 0.0,
                     std::isfinite(hi) ? hi : 0.0);
    glp_set_obj_coef(g, j, v.cost);
  }
  const int m = static_cast<int>(p.rows.size());
  std::vector<int> ia(1), ja(1);
  std::vector<double> ar(1);
  if (m > 0) {
    glp_add_rows(g, m);
    for (int i = 1; i <= m; ++i) {
      const auto& r = p.rows[static_cast<std::size_t>(i - 1)];
      glp_set_row_bnds(g, i, bound_type(r.lo, r.hi), std::isfinite(r.lo) ? r.lo : 0.0,
                       std::isfinite(r.hi) ? r.hi : 0.0);
      for (const auto& [j, a] : r.terms) {
        ia.push_back(i);
        ja.push_back(j + 1);
        ar.push_back(a);
      }
    }
    glp_load_matrix(g, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  }

  Solution out;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const auto ms_left = [&] {
    const double left = o.time_limit_s - elapsed();
    return static_cast<int>(std::clamp(left * 1e3, 1.0, 2e9));
  };
  // The LP (or the MILP's relaxation) by the primal simplex, no presolver: its status is then
  // always defined (glp_get_status), and the MILP keeps the problem's own columns, which the
  // warm start refers to.
  glp_smcp sm;
  glp_init_smcp(&sm);
  sm.msg_lev = GLP_MSG_OFF;
  sm.tm_lim = ms_left();
  // Scaled first, as glpsol does by default (GLPK reference manual, glp_scale_prob): rows whose
  // coefficients span many orders of magnitude otherwise make the simplex fail (GLP_EFAIL).
  glp_scale_prob(g, GLP_SF_AUTO);
  const int rc = glp_simplex(g, &sm);
  if (rc != 0 && rc != GLP_ETMLIM)
    throw std::runtime_error("lp: GLPK's simplex failed (glp_simplex code " + std::to_string(rc) +
                             ")");
  const int lp_status = glp_get_status(g);
  const bool mip = p.is_mip();
  const auto take_lp = [&](Status status) {
    out.status = status;
    out.objective = glp_get_obj_val(g);
    out.bound = status == Status::optimal ? out.objective : -kInf;
    out.gap = status == Status::optimal ? 0.0 : kInf;  // a stopped simplex proves no bound
    out.x.resize(p.variables.size());
    for (int j = 1; j <= n; ++j) out.x[static_cast<std::size_t>(j - 1)] = glp_get_col_prim(g, j);
    out.seconds = elapsed();
    return out;
  };
  if (lp_status == GLP_NOFEAS || lp_status == GLP_UNBND) {
    // A MILP whose relaxation is unbounded is unbounded or infeasible; reported as unbounded.
    out.status = lp_status == GLP_NOFEAS ? Status::infeasible : Status::unbounded;
    out.seconds = elapsed();
    return out;
  }
  if (lp_status != GLP_OPT) {
    if (rc != GLP_ETMLIM)
      throw std::runtime_error("lp: GLPK's simplex ended with status " + std::to_string(lp_status));
    if (!mip && lp_status == GLP_FEAS) return take_lp(Status::feasible);
    out.status = Status::no_solution;
    out.seconds = elapsed();
    return out;
  }
  if (!mip) return take_lp(Status::optimal);

  // Branch and cut from the optimal relaxation.
  const double relaxation = glp_get_obj_val(g);
  Search search;
  search.stop = o.stop;
  std::vector<double> warm;
  if (!o.warm_start.empty()) {
    warm.assign(1, 0.0);  // glp_ios_heur_sol reads x[1..n]
    warm.insert(warm.end(), o.warm_start.begin(), o.warm_start.end());
    search.warm = &warm;
  }
  glp_iocp io;
  glp_init_iocp(&io);
  io.msg_lev = GLP_MSG_OFF;
  io.tm_lim = ms_left();
  io.mip_gap = o.mip_gap;
  io.presolve = GLP_OFF;
  io.cb_func = callback;
  io.cb_info = &search;
  const int irc = glp_intopt(g, &io);
  const bool stopped = irc == GLP_ETMLIM || irc == GLP_ESTOP;
  if (irc != 0 && !stopped && irc != GLP_EMIPGAP)
    throw std::runtime_error("lp: GLPK's branch and cut failed (glp_intopt code " +
                             std::to_string(irc) + ")");
  out.warm_start_used = search.accepted;
  const int mip_status = glp_mip_status(g);
  switch (mip_status) {
    case GLP_OPT: out.status = Status::optimal; break;
    case GLP_FEAS:  // stopped at the gap tolerance (optimal within it) or by the time limit
      out.status = stopped ? Status::feasible : Status::optimal;
      break;
    case GLP_NOFEAS: out.status = Status::infeasible; break;
    default: out.status = Status::no_solution; break;
  }
  if (out.status == Status::optimal || out.status == Status::feasible) {
    out.objective = glp_mip_obj_val(g);
    out.x.resize(p.variables.size());
    for (int j = 1; j <= n; ++j) out.x[static_cast<std::size_t>(j - 1)] = glp_mip_col_val(g, j);
  }
  if (out.status == Status::optimal) {
    out.bound = out.objective;
    if (irc == GLP_EMIPGAP && search.have_bound) out.bound = search.bound;
  } else {
    out.bound = search.have_bound ? search.bound : relaxation;
  }
  if (out.status == Status::optimal || out.status == Status::feasible)
    out.gap = std::abs(out.objective - out.bound) / std::max(std::abs(out.objective), 1e-10);
  out.seconds = elapsed();
  return out;
}

}  // namespace stackscope::lp
