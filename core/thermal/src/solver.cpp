// SPDX-License-Identifier: GPL-3.0-or-later
// Grid model after HotSpot (Huang et al., IEEE TVLSI 2006, section III; HotSpot 6
// temperature_grid.c): cells of each layer, vertical series half-cell resistances, a gridded
// spreader and sink under the chip footprint and lumped peripheral spreader/sink nodes.
#include "stackscope/thermal/solver.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace stackscope::thermal {

Extent floorplan_extent(const Floorplan& fp) {
  Extent e;
  for (const auto& b : fp.blocks) {
    e.width_m = std::max(e.width_m, b.x_m + b.width_m);
    e.height_m = std::max(e.height_m, b.y_m + b.height_m);
  }
  return e;
}

std::optional<BlockOverlap> find_overlap(const Floorplan& fp) {
  const auto& blocks = fp.blocks;
  const Extent e = floorplan_extent(fp);
  constexpr double kRel = 1e-9;
  const double tol_x = kRel * e.width_m, tol_y = kRel * e.height_m;
  std::vector<std::size_t> order(blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return blocks[a].x_m < blocks[b].x_m; });
  std::vector<std::size_t> active;  // blocks whose x range reaches the sweep line
  for (const std::size_t i : order) {
    const Block& b = blocks[i];
    std::erase_if(
        active, [&](std::size_t j) { return blocks[j].x_m + blocks[j].width_m <= b.x_m + tol_x; });
    for (const std::size_t j : active) {
      const Block& o = blocks[j];
      const double w = std::min(o.x_m + o.width_m, b.x_m + b.width_m) - b.x_m;
      const double h = std::min(o.y_m + o.height_m, b.y_m + b.height_m) - std::max(o.y_m, b.y_m);
      if (w > tol_x && h > tol_y) return BlockOverlap{std::min(i, j), std::max(i, j), w, h};
    }
    active.push_back(i);
  }
  return std::nullopt;
}

namespace {

struct Overlap {
  int r0 = 0, r1 = -1, c0 = 0, c1 = -1;  // inclusive cell ranges
};

// Cell index ranges that a clipped rectangle touches.
Overlap cell_range(double x0, double x1, double y0, double y1, double dx, double dy, int rows,
                   int cols) {
  Overlap o;
  if (x1 <= x0 || y1 <= y0) return o;
  o.c0 = std::clamp(static_cast<int>(std::floor(x0 / dx)), 0, cols - 1);
  o.c1 = std::clamp(static_cast<int>(std::ceil(x1 / dx)) - 1, 0, cols - 1);
  o.r0 = std::clamp(static_cast<int>(std::floor(y0 / dy)), 0, rows - 1);
  o.r1 = std::clamp(static_cast<int>(std::ceil(y1 / dy)) - 1, 0, rows - 1);
  return o;
}

double overlap_1d(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

template <typename F>
void for_each_cell_overlap(const Block& b, double chip_w, double chip_h, int rows, int cols,
                           F&& f) {
  const double dx = chip_w / cols, dy = chip_h / rows;
  const double x0 = std::max(0.0, b.x_m), x1 = std::min(chip_w, b.x_m + b.width_m);
  const double y0 = std::max(0.0, b.y_m), y1 = std::min(chip_h, b.y_m + b.height_m);
  const Overlap o = cell_range(x0, x1, y0, y1, dx, dy, rows, cols);
  for (int r = o.r0; r <= o.r1; ++r) {
    const double oy = overlap_1d(y0, y1, r * dy, (r + 1) * dy);
    if (oy <= 0) continue;
    for (int c = o.c0; c <= o.c1; ++c) {
      const double ox = overlap_1d(x0, x1, c * dx, (c + 1) * dx);
      if (ox > 0) f(r * cols + c, ox * oy);
    }
  }
}

std::vector<Layer> effective_layers(const StackModel& s) {
  std::vector<Layer> layers = s.layers;
  if (s.append_interface_layer) {
    Layer tim;
    tim.name = "TIM";
    tim.thickness_m = s.package.t_interface_m;
    tim.conductivity_W_per_mK = s.package.k_interface_W_per_mK;
    tim.volumetric_heat_capacity_J_per_m3K = s.package.c_interface_J_per_m3K;
    layers.push_back(tim);
  }
  return layers;
}

void validate(const StackModel& s, const std::vector<Layer>& layers, const GridOptions& opt) {
  if (opt.rows < 1 || opt.cols < 1) throw std::invalid_argument("thermal: grid must be >= 1x1");
  if (layers.empty()) throw std::invalid_argument("thermal: stack has no layers");
  if (!(s.chip_width_m > 0) || !(s.chip_height_m > 0))
    throw std::invalid_argument("thermal: chip width/height must be positive");
  for (const auto& l : layers) {
    if (!(l.thickness_m > 0) || !(l.conductivity_W_per_mK > 0))
      throw std::invalid_argument("thermal: layer '" + l.name +
                                  "' needs positive thickness and conductivity");
    if (l.floorplan >= static_cast<int>(s.floorplans.size()))
      throw std::invalid_argument("thermal: layer '" + l.name + "' has a bad floorplan index");
  }
  const auto& p = s.package;
  const double chip_side = std::max(s.chip_width_m, s.chip_height_m);
  if (p.s_spreader_m < chip_side * (1 - 1e-9) || p.s_sink_m < p.s_spreader_m * (1 - 1e-9))
    throw std::invalid_argument("thermal: need s_sink >= s_spreader >= chip side");
  if (!(p.r_convec_K_per_W > 0) || !(p.t_spreader_m > 0) || !(p.t_sink_m > 0) ||
      !(p.k_spreader_W_per_mK > 0) || !(p.k_sink_W_per_mK > 0))
    throw std::invalid_argument("thermal: package parameters must be positive");
}

// Preconditioned conjugate gradient for the conductance matrix. Thin layers couple far more
// strongly vertically than laterally, so the preconditioner solves each vertical column of cells
// (chip layers, spreader, sink) exactly as a tridiagonal system (line relaxation), and adds a
// coarse correction over per-layer aggregates of cells (additive two-level Schwarz) for the smooth
// lateral modes that the weak convection boundary leaves badly conditioned.
struct PcgResult {
  Eigen::VectorXd x;
  int iterations = 0;
  double residual = 0.0;
};

constexpr int kCoarse = 16;  // coarse grid side (per layer)

PcgResult solve_pcg(const Eigen::SparseMatrix<double>& G, const Eigen::VectorXd& b,
                    const std::vector<double>& g_vert, int rows, int cols, const GridOptions& opt,
                    const Eigen::VectorXd* x0) {
  const int n = static_cast<int>(G.rows());
  const int nc = rows * cols;
  const int nz = static_cast<int>(g_vert.size()) + 1;  // column levels
  const int ncol_nodes = nz * nc;
  const Eigen::VectorXd diag = G.diagonal();
  // Column LDL^T factors: D per node, l per node (multiplier to the level below).
  Eigen::VectorXd D(ncol_nodes), lmul(ncol_nodes);
  for (int i = 0; i < nc; ++i) {
    D[i] = diag[i];
    lmul[i] = 0.0;
    for (int z = 1; z < nz; ++z) {
      const int k = z * nc + i, km = k - nc;
      lmul[k] = -g_vert[static_cast<size_t>(z) - 1] / D[km];
      D[k] =
          diag[k] - g_vert[static_cast<size_t>(z) - 1] * g_vert[static_cast<size_t>(z) - 1] / D[km];
    }
  }
  // Coarse aggregates: per level, blocks of cells on an at most 16 x 16 coarse grid, plus one
  // aggregate per extra (periphery) node; the coarse system is a small 3D grid (sparse LDL^T).
  const int br = (rows + kCoarse - 1) / kCoarse, bc = (cols + kCoarse - 1) / kCoarse;
  const int crows = (rows + br - 1) / br, ccols = (cols + bc - 1) / bc;
  const int nagg = nz * crows * ccols + (n - ncol_nodes);
  std::vector<int> agg(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    if (k < ncol_nodes) {
      const int i = k % nc, r = i / cols, c = i % cols;
      agg[static_cast<size_t>(k)] = (k / nc) * crows * ccols + (r / br) * ccols + c / bc;
    } else {
      agg[static_cast<size_t>(k)] = nz * crows * ccols + (k - ncol_nodes);
    }
  }
  std::vector<Eigen::Triplet<double>> ct;
  ct.reserve(static_cast<size_t>(G.nonZeros()));
  for (int j = 0; j < G.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(G, j); it; ++it)
      ct.emplace_back(agg[static_cast<size_t>(it.row())], agg[static_cast<size_t>(j)], it.value());
  Eigen::SparseMatrix<double> Ac(nagg, nagg);
  Ac.setFromTriplets(ct.begin(), ct.end());
  const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> coarse(Ac);

  Eigen::VectorXd rc(nagg), tmp(n);
  auto coarse_add = [&](const Eigen::VectorXd& r, Eigen::VectorXd& y) {
    rc.setZero();
    for (int k = 0; k < n; ++k) rc[agg[static_cast<size_t>(k)]] += r[k];
    const Eigen::VectorXd ec = coarse.solve(rc);
    for (int k = 0; k < n; ++k) y[k] += ec[agg[static_cast<size_t>(k)]];
  };
  // Thomas sweeps level by level over all columns at once (contiguous memory).
  auto line_add = [&](const Eigen::VectorXd& r, Eigen::VectorXd& y) {
    for (int i = 0; i < nc; ++i) tmp[i] = r[i];
    for (int z = 1; z < nz; ++z)
      for (int k = z * nc, e = k + nc; k < e; ++k) tmp[k] = r[k] - lmul[k] * tmp[k - nc];
    for (int k = (nz - 1) * nc; k < ncol_nodes; ++k) tmp[k] /= D[k];
    for (int z = nz - 2; z >= 0; --z)
      for (int k = z * nc, e = k + nc; k < e; ++k)
        tmp[k] = tmp[k] / D[k] - lmul[k + nc] * tmp[k + nc];
    for (int k = 0; k < ncol_nodes; ++k) y[k] += tmp[k];
    for (int k = ncol_nodes; k < n; ++k) y[k] += r[k] / diag[k];
  };

  // Additive two-level Schwarz: column line solves plus the coarse correction.
  auto precondition = [&](const Eigen::VectorXd& r, Eigen::VectorXd& y) {
    y.setZero(n);
    line_add(r, y);
    coarse_add(r, y);
  };

  PcgResult res;
  res.x = x0 ? *x0 : Eigen::VectorXd::Zero(n);
  const double bnorm = b.norm();
  if (bnorm == 0.0) {
    res.x.setZero();
    return res;
  }
  Eigen::VectorXd r = b - G * res.x, z, p, q;
  res.residual = r.norm() / bnorm;
  if (res.residual <= opt.tolerance) return res;
  precondition(r, z);
  p = z;
  double rz = r.dot(z);
  for (int it = 1; it <= opt.max_iterations; ++it) {
    q.noalias() = G * p;
    const double alpha = rz / p.dot(q);
    res.x += alpha * p;
    r -= alpha * q;
    res.iterations = it;
    res.residual = r.norm() / bnorm;
    if (res.residual <= opt.tolerance) break;
    precondition(r, z);
    const double rz_new = r.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
  }
  return res;
}

}  // namespace

std::vector<double> rasterise_power(const StackModel& stack, int layer,
                                    const std::vector<double>& block_power_W, int rows, int cols) {
  std::vector<double> cell(static_cast<size_t>(rows) * cols, 0.0);
  if (block_power_W.empty()) return cell;
  const Layer& l = stack.layers.at(static_cast<size_t>(layer));
  const double W = stack.chip_width_m, H = stack.chip_height_m;
  if (l.floorplan < 0) {
    if (block_power_W.size() != 1)
      throw std::invalid_argument("thermal: layer '" + l.name +
                                  "' has no floorplan; give one uniform power value");
    std::fill(cell.begin(), cell.end(), block_power_W[0] / (static_cast<double>(rows) * cols));
    return cell;
  }
  const auto& fp = stack.floorplans.at(static_cast<size_t>(l.floorplan));
  if (block_power_W.size() != fp.blocks.size())
    throw std::invalid_argument("thermal: layer '" + l.name + "' power has " +
                                std::to_string(block_power_W.size()) + " values for " +
                                std::to_string(fp.blocks.size()) + " blocks");
  for (size_t i = 0; i < fp.blocks.size(); ++i) {
    const Block& b = fp.blocks[i];
    const double p = block_power_W[i];
    if (p == 0.0) continue;
    const double in_area =
        overlap_1d(0, W, b.x_m, b.x_m + b.width_m) * overlap_1d(0, H, b.y_m, b.y_m + b.height_m);
    if (!(in_area > 0))
      throw std::invalid_argument("thermal: block '" + b.name + "' with power lies off the chip");
    for_each_cell_overlap(b, W, H, rows, cols, [&](int idx, double a) {
      cell[static_cast<size_t>(idx)] += p * a / in_area;
    });
  }
  return cell;
}

namespace {

// The assembled network: G.theta = b for the rise theta over ambient, node capacitances for the
// transient solve.
struct System {
  std::vector<Layer> layers;
  Eigen::SparseMatrix<double> G;
  Eigen::VectorXd b;
  std::vector<double> g_amb, g_vert, cap;
  int n = 0, nl = 0, nc = 0, sp0 = 0, hs0 = 0, p_sp = -1, p_hs = -1;
  double total_power = 0.0;
};

System assemble(const StackModel& stack, const PowerMap& power, const GridOptions& opt) {
  const std::vector<Layer> layers = effective_layers(stack);
  validate(stack, layers, opt);
  const int rows = opt.rows, cols = opt.cols;
  const int nl = static_cast<int>(layers.size());
  const int nc = rows * cols;
  const double W = stack.chip_width_m, H = stack.chip_height_m;
  const double dx = W / cols, dy = H / rows, A = dx * dy;
  const Package& pk = stack.package;

  // Node numbering: chip layers, spreader grid, sink grid, then the periphery nodes.
  const int sp0 = nl * nc, hs0 = (nl + 1) * nc;
  const double chip_area = W * H;
  const double a_sp_per = pk.s_spreader_m * pk.s_spreader_m - chip_area;
  const double a_hs_per = pk.s_sink_m * pk.s_sink_m - chip_area;
  const bool has_sp_per = a_sp_per > 1e-9 * chip_area;
  const bool has_hs_per = a_hs_per > 1e-9 * chip_area;
  int n = (nl + 2) * nc;
  const int p_sp = has_sp_per ? n++ : -1;
  const int p_hs = has_hs_per ? n++ : -1;

  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(static_cast<size_t>(n) * 7);
  std::vector<double> g_amb(static_cast<size_t>(n), 0.0);
  std::vector<double> gdiag(static_cast<size_t>(n), 0.0);  // diagonal summed separately
  auto link = [&](int i, int j, double g) {
    gdiag[static_cast<size_t>(i)] += g;
    gdiag[static_cast<size_t>(j)] += g;
    trip.emplace_back(i, j, -g);
    trip.emplace_back(j, i, -g);
  };
  auto lateral = [&](int base, double k, double t) {
    const double gx = k * t * dy / dx, gy = k * t * dx / dy;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const int i = base + r * cols + c;
        if (c + 1 < cols) link(i, i + 1, gx);
        if (r + 1 < rows) link(i, i + cols, gy);
      }
  };
  std::vector<double> g_vert;  // conductance between column levels z and z+1, bottom up
  auto vertical = [&](int base_a, double ra_half, int base_b, double rb_half) {
    // ra_half, rb_half: half-thickness / k of each side (per unit area)
    const double g = A / (ra_half + rb_half);
    g_vert.push_back(g);
    for (int i = 0; i < nc; ++i) link(base_a + i, base_b + i, g);
  };

  for (int l = 0; l < nl; ++l) {
    const Layer& L = layers[static_cast<size_t>(l)];
    if (L.lateral_heat_flow) lateral(l * nc, L.conductivity_W_per_mK, L.thickness_m);
    const double half = 0.5 * L.thickness_m / L.conductivity_W_per_mK;
    if (l + 1 < nl) {
      const Layer& U = layers[static_cast<size_t>(l) + 1];
      vertical(l * nc, half, (l + 1) * nc, 0.5 * U.thickness_m / U.conductivity_W_per_mK);
    } else {
      vertical(l * nc, half, sp0, 0.5 * pk.t_spreader_m / pk.k_spreader_W_per_mK);
    }
  }
  lateral(sp0, pk.k_spreader_W_per_mK, pk.t_spreader_m);
  lateral(hs0, pk.k_sink_W_per_mK, pk.t_sink_m);
  vertical(sp0, 0.5 * pk.t_spreader_m / pk.k_spreader_W_per_mK, hs0,
           0.5 * pk.t_sink_m / pk.k_sink_W_per_mK);

  // Edge cells to the peripheral node: from the cell centre to the middle of the overhang
  // (HotSpot's r_sp1_x / r_hs1_x use the same half-overhang path length).
  auto periphery = [&](int base, int node, double k, double t, double side) {
    const double wx = 0.5 * (side - W), wy = 0.5 * (side - H);
    for (int r = 0; r < rows; ++r) {
      if (wx > 0) {
        const double g = k * t * dy / (0.5 * dx + 0.5 * wx);
        link(base + r * cols, node, g);
        link(base + r * cols + cols - 1, node, g);
      }
    }
    for (int c = 0; c < cols; ++c) {
      if (wy > 0) {
        const double g = k * t * dx / (0.5 * dy + 0.5 * wy);
        link(base + c, node, g);
        link(base + (rows - 1) * cols + c, node, g);
      }
    }
  };
  const double sink_face = pk.s_sink_m * pk.s_sink_m;
  if (has_sp_per) periphery(sp0, p_sp, pk.k_spreader_W_per_mK, pk.t_spreader_m, pk.s_spreader_m);
  if (has_hs_per) periphery(hs0, p_hs, pk.k_sink_W_per_mK, pk.t_sink_m, pk.s_sink_m);
  if (has_sp_per && has_hs_per) {
    const double r =
        (0.5 * pk.t_spreader_m / pk.k_spreader_W_per_mK + 0.5 * pk.t_sink_m / pk.k_sink_W_per_mK) /
        a_sp_per;
    link(p_sp, p_hs, 1.0 / r);
  }
  // r_convec spread over the sink's whole face by area.
  for (int i = 0; i < nc; ++i)
    g_amb[static_cast<size_t>(hs0 + i)] = A / sink_face / pk.r_convec_K_per_W;
  if (has_hs_per) g_amb[static_cast<size_t>(p_hs)] = a_hs_per / sink_face / pk.r_convec_K_per_W;
  for (int i = 0; i < n; ++i)
    trip.emplace_back(i, i, gdiag[static_cast<size_t>(i)] + g_amb[static_cast<size_t>(i)]);

  // Right-hand side: power per cell (solving for the rise over ambient).
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  double total_power = 0.0;
  if (power.size() > stack.layers.size())
    throw std::invalid_argument("thermal: power map has more layers than the stack");
  for (size_t l = 0; l < power.size(); ++l) {
    if (power[l].empty()) continue;
    const bool any = std::any_of(power[l].begin(), power[l].end(), [](double p) { return p != 0; });
    if (!any) continue;
    if (!stack.layers[l].dissipates_power)
      throw std::invalid_argument("thermal: power given for non-dissipating layer '" +
                                  stack.layers[l].name + "'");
    const auto cell = rasterise_power(stack, static_cast<int>(l), power[l], rows, cols);
    for (int i = 0; i < nc; ++i) {
      b[static_cast<int>(l) * nc + i] += cell[static_cast<size_t>(i)];
      total_power += cell[static_cast<size_t>(i)];
    }
  }

  Eigen::SparseMatrix<double> G(n, n);
  G.setFromTriplets(trip.begin(), trip.end());
  G.makeCompressed();

  // Heat capacities (J/K): volumetric capacity x cell volume (HotSpot scales these by a fitting
  // factor C_FACTOR for the block model; the grid model here uses the physical values).
  std::vector<double> cap(static_cast<size_t>(n), 0.0);
  for (int l = 0; l < nl; ++l)
    for (int i = 0; i < nc; ++i)
      cap[static_cast<size_t>(l * nc + i)] =
          layers[static_cast<size_t>(l)].volumetric_heat_capacity_J_per_m3K *
          layers[static_cast<size_t>(l)].thickness_m * A;
  for (int i = 0; i < nc; ++i) {
    cap[static_cast<size_t>(sp0 + i)] = pk.c_spreader_J_per_m3K * pk.t_spreader_m * A;
    cap[static_cast<size_t>(hs0 + i)] = pk.c_sink_J_per_m3K * pk.t_sink_m * A;
  }
  if (has_sp_per)
    cap[static_cast<size_t>(p_sp)] = pk.c_spreader_J_per_m3K * pk.t_spreader_m * a_sp_per;
  if (has_hs_per) cap[static_cast<size_t>(p_hs)] = pk.c_sink_J_per_m3K * pk.t_sink_m * a_hs_per;

  System sys;
  sys.layers = layers;
  sys.G = std::move(G);
  sys.b = std::move(b);
  sys.g_amb = std::move(g_amb);
  sys.g_vert = std::move(g_vert);
  sys.cap = std::move(cap);
  sys.n = n;
  sys.nl = nl;
  sys.nc = nc;
  sys.sp0 = sp0;
  sys.hs0 = hs0;
  sys.p_sp = p_sp;
  sys.p_hs = p_hs;
  sys.total_power = total_power;
  return sys;
}

Eigen::VectorXd solve_system(const Eigen::SparseMatrix<double>& M, const Eigen::VectorXd& rhs,
                             const System& sys, const GridOptions& opt, const Eigen::VectorXd* x0,
                             Solution& sol) {
  Eigen::VectorXd theta;
  if (opt.method == GridOptions::Method::kCholesky) {
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(M);
    if (ldlt.info() != Eigen::Success) throw std::runtime_error("thermal: factorisation failed");
    theta = ldlt.solve(rhs);
    sol.residual = rhs.norm() > 0 ? (M * theta - rhs).norm() / rhs.norm() : 0.0;
  } else {
    const PcgResult r = solve_pcg(M, rhs, sys.g_vert, opt.rows, opt.cols, opt, x0);
    theta = r.x;
    sol.iterations += r.iterations;
    sol.residual = r.residual;
    if (!(sol.residual <= opt.tolerance))
      throw std::runtime_error("thermal: conjugate gradient did not converge (residual " +
                               std::to_string(sol.residual) + ")");
  }
  return theta;
}

void fill_solution(const StackModel& stack, const GridOptions& opt, const System& sys,
                   const Eigen::VectorXd& theta, Solution& sol) {
  const int rows = opt.rows, cols = opt.cols, n = sys.n, nl = sys.nl, nc = sys.nc;
  const int sp0 = sys.sp0, hs0 = sys.hs0, p_sp = sys.p_sp, p_hs = sys.p_hs;
  const bool has_sp_per = p_sp >= 0, has_hs_per = p_hs >= 0;
  const auto& layers = sys.layers;
  const auto& g_amb = sys.g_amb;
  const double W = stack.chip_width_m, H = stack.chip_height_m;
  const Package& pk = stack.package;
  const double total_power = sys.total_power;
  sol.rows = rows;
  sol.cols = cols;
  sol.heat_to_ambient_W = 0.0;
  sol.blocks.clear();
  const double amb = pk.ambient_C;
  sol.total_power_W = total_power;
  for (int i = 0; i < n; ++i) sol.heat_to_ambient_W += g_amb[static_cast<size_t>(i)] * theta[i];
  sol.temperature_C.assign(static_cast<size_t>(nl), std::vector<double>(static_cast<size_t>(nc)));
  sol.layers.resize(static_cast<size_t>(nl));
  for (int l = 0; l < nl; ++l) {
    auto& t = sol.temperature_C[static_cast<size_t>(l)];
    double sum = 0, mx = -std::numeric_limits<double>::infinity(), mn = -mx;
    for (int i = 0; i < nc; ++i) {
      t[static_cast<size_t>(i)] = amb + theta[l * nc + i];
      sum += t[static_cast<size_t>(i)];
      mx = std::max(mx, t[static_cast<size_t>(i)]);
      mn = std::min(mn, t[static_cast<size_t>(i)]);
    }
    sol.layers[static_cast<size_t>(l)] = {layers[static_cast<size_t>(l)].name, mx, sum / nc, mn};
  }
  sol.spreader_C.resize(static_cast<size_t>(nc));
  sol.sink_C.resize(static_cast<size_t>(nc));
  for (int i = 0; i < nc; ++i) {
    sol.spreader_C[static_cast<size_t>(i)] = amb + theta[sp0 + i];
    sol.sink_C[static_cast<size_t>(i)] = amb + theta[hs0 + i];
  }
  sol.spreader_periphery_C = has_sp_per ? amb + theta[p_sp] : sol.spreader_C[0];
  sol.sink_periphery_C = has_hs_per ? amb + theta[p_hs] : sol.sink_C[0];

  // Block temperatures on every layer that has a floorplan.
  sol.hottest.max_C = -std::numeric_limits<double>::infinity();
  for (int l = 0; l < static_cast<int>(stack.layers.size()); ++l) {
    const int f = stack.layers[static_cast<size_t>(l)].floorplan;
    if (f < 0) continue;
    const auto& t = sol.temperature_C[static_cast<size_t>(l)];
    for (const Block& blk : stack.floorplans[static_cast<size_t>(f)].blocks) {
      BlockTemperature bt{l, blk.name, -std::numeric_limits<double>::infinity(), 0.0};
      double wsum = 0;
      for_each_cell_overlap(blk, W, H, rows, cols, [&](int idx, double a) {
        bt.max_C = std::max(bt.max_C, t[static_cast<size_t>(idx)]);
        bt.mean_C += a * t[static_cast<size_t>(idx)];
        wsum += a;
      });
      if (wsum <= 0) continue;  // block entirely off the chip
      bt.mean_C /= wsum;
      if (bt.max_C > sol.hottest.max_C) sol.hottest = bt;
      sol.blocks.push_back(std::move(bt));
    }
  }
  if (sol.blocks.empty()) sol.hottest = {};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Solution solve_steady(const StackModel& stack, const PowerMap& power, const GridOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  const System sys = assemble(stack, power, opt);
  Solution sol;
  const Eigen::VectorXd theta = solve_system(sys.G, sys.b, sys, opt, nullptr, sol);
  fill_solution(stack, opt, sys, theta, sol);
  sol.solve_seconds = seconds_since(t_start);
  return sol;
}

std::vector<Solution> solve_transient(const StackModel& stack, const PowerMap& power,
                                      const GridOptions& opt, const TransientOptions& topt) {
  const auto t_start = std::chrono::steady_clock::now();
  if (!(topt.step_s > 0) || topt.steps < 1)
    throw std::invalid_argument("thermal: transient needs step_s > 0 and steps >= 1");
  const System sys = assemble(stack, power, opt);
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(sys.n);
  if (topt.initial) {
    const Solution& s0 = *topt.initial;
    if (s0.rows != opt.rows || s0.cols != opt.cols ||
        static_cast<int>(s0.temperature_C.size()) != sys.nl)
      throw std::invalid_argument("thermal: initial solution does not match the grid");
    const double amb = stack.package.ambient_C;
    for (int l = 0; l < sys.nl; ++l)
      for (int i = 0; i < sys.nc; ++i)
        theta[l * sys.nc + i] =
            s0.temperature_C[static_cast<size_t>(l)][static_cast<size_t>(i)] - amb;
    for (int i = 0; i < sys.nc; ++i) {
      theta[sys.sp0 + i] = s0.spreader_C[static_cast<size_t>(i)] - amb;
      theta[sys.hs0 + i] = s0.sink_C[static_cast<size_t>(i)] - amb;
    }
    if (sys.p_sp >= 0) theta[sys.p_sp] = s0.spreader_periphery_C - amb;
    if (sys.p_hs >= 0) theta[sys.p_hs] = s0.sink_periphery_C - amb;
  }
  // Backward Euler: (G + C/dt) theta' = C/dt theta + P, unconditionally stable.
  Eigen::VectorXd c_dt(sys.n);
  for (int i = 0; i < sys.n; ++i) c_dt[i] = sys.cap[static_cast<size_t>(i)] / topt.step_s;
  Eigen::SparseMatrix<double> M = sys.G;
  for (int i = 0; i < sys.n; ++i) M.coeffRef(i, i) += c_dt[i];
  std::vector<Solution> out;
  Solution work;
  for (int step = 1; step <= topt.steps; ++step) {
    const Eigen::VectorXd rhs = c_dt.cwiseProduct(theta) + sys.b;
    theta = solve_system(M, rhs, sys, opt, &theta, work);
    const bool record =
        step == topt.steps || (topt.record_every > 0 && step % topt.record_every == 0);
    if (!record) continue;
    Solution s = work;
    fill_solution(stack, opt, sys, theta, s);
    s.time_s = step * topt.step_s;
    s.solve_seconds = seconds_since(t_start);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace stackscope::thermal
