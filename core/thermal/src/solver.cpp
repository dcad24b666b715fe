// SPDX-License-Identifier: GPL-3.0-or-later
// Grid model after HotSpot (Huang et al., IEEE TVLSI 2006, section III; HotSpot 6
// temperature_grid.c): cells of each layer, vertical series half-cell resistances, a gridded
// spreader and sink under the chip footprint and lumped peripheral spreader/sink nodes.
#include "stackscope/thermal/solver.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <algorithm>
#include <array>
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

// The package outside the chip footprint, HotSpot's compact package model (Huang et al., IEEE
// TVLSI 2006, fig. 3; HotSpot 7 temperature.c populate_package_R and temperature_grid.c
// single_iteration_steady_pack). The spreader's overhang beyond the die is four trapezoids
// (west, east, north, south), each one node; the sink has a node under each of those (inner) and
// four more trapezoids beyond the spreader (outer). Lateral paths run from a trapezoid's inner
// edge to its centre line, a quarter of the overhang, through the width of that centre line
// ((s + 3.side) / 4); vertical paths cross the whole layer over the trapezoid's area; r_convec
// is shared by area over the sink's face. A single node for the whole overhang instead forces the
// heat through a die-edge-wide strip to the far half of the overhang and reaches the sink beyond
// the spreader only through the sink's own edge (8 of the 32 % excess rise on HotSpot's bare-die
// case).
struct PeripheryLink {
  int a = 0;   // periphery node
  int b = -1;  // periphery node, or -1 for ambient
  double g = 0.0;
};

struct PackageNetwork {
  std::array<bool, kPeripheryNodes> exists{};
  std::array<double, kPeripheryNodes> area_m2{};              // footprint of each node's trapezoid
  double r_sp1_x = 0, r_sp1_y = 0, r_hs1_x = 0, r_hs1_y = 0;  // edge to trapezoid centre, K/W
  std::vector<PeripheryLink> links;
};

PackageNetwork package_network(const Package& pk, double W, double H) {
  PackageNetwork net;
  const double ssp = pk.s_spreader_m, shs = pk.s_sink_m;
  const double ksp = pk.k_spreader_W_per_mK, tsp = pk.t_spreader_m;
  const double khs = pk.k_sink_W_per_mK, ths = pk.t_sink_m;
  const double eps = 1e-9 * std::max(W, H);
  const bool ox = ssp - W > eps, oy = ssp - H > eps, oo = shs - ssp > eps;
  // Path length over (conductivity x cross-section); 0 for a zero-length path.
  auto r = [](double k, double len, double area) { return len / (k * area); };
  net.r_sp1_x = r(ksp, (ssp - W) / 4, (ssp + 3 * H) / 4 * tsp);
  net.r_sp1_y = r(ksp, (ssp - H) / 4, (ssp + 3 * W) / 4 * tsp);
  net.r_hs1_x = r(khs, (ssp - W) / 4, (ssp + 3 * H) / 4 * ths);
  net.r_hs1_y = r(khs, (ssp - H) / 4, (ssp + 3 * W) / 4 * ths);
  const double r_hs2_x = r(khs, (ssp - W) / 4, (3 * ssp + H) / 4 * ths);
  const double r_hs2_y = r(khs, (ssp - H) / 4, (3 * ssp + W) / 4 * ths);
  const double r_hs = oo ? r(khs, (shs - ssp) / 4, (shs + 3 * ssp) / 4 * ths) : 0.0;
  const double a_x = (ssp + H) * (ssp - W) / 4, a_y = (ssp + W) * (ssp - H) / 4;
  const double a_out = (shs * shs - ssp * ssp) / 4, face = shs * shs;
  net.area_m2 = {a_x, a_x, a_y, a_y, a_x, a_x, a_y, a_y, a_out, a_out, a_out, a_out};
  for (int k : {kSpW, kSpE}) net.exists[static_cast<size_t>(k)] = ox;
  for (int k : {kSpN, kSpS}) net.exists[static_cast<size_t>(k)] = oy;
  // A sink-inner node with no spreader overhang above it is still the junction from the sink
  // edge to the outer sink.
  for (int k : {kSinkCW, kSinkCE}) net.exists[static_cast<size_t>(k)] = ox || oo;
  for (int k : {kSinkCN, kSinkCS}) net.exists[static_cast<size_t>(k)] = oy || oo;
  for (int k : {kSinkW, kSinkE, kSinkN, kSinkS}) net.exists[static_cast<size_t>(k)] = oo;
  auto add = [&](int a, int b, double res) { net.links.push_back({a, b, 1.0 / res}); };
  const int sp[4] = {kSpW, kSpE, kSpN, kSpS}, in[4] = {kSinkCW, kSinkCE, kSinkCN, kSinkCS};
  const int out[4] = {kSinkW, kSinkE, kSinkN, kSinkS};
  for (int d = 0; d < 4; ++d) {
    const bool xdir = d < 2, over = xdir ? ox : oy;
    const double a = xdir ? a_x : a_y;
    if (over) {
      add(sp[d], in[d], r(ksp, tsp, a));                                // r_sp_per
      add(in[d], -1, r(khs, ths, a) + pk.r_convec_K_per_W * face / a);  // r_hs_c_per + r_amb_c_per
    }
    if (oo) {
      add(in[d], out[d], (xdir ? r_hs2_x : r_hs2_y) + r_hs);
      add(out[d], -1,
          r(khs, ths, a_out) + pk.r_convec_K_per_W * face / a_out);  // r_hs_per + r_amb_per
    }
  }
  return net;
}

// The assembled network: G.theta = b for the rise theta over ambient, node capacitances for the
// transient solve.
struct System {
  std::vector<Layer> layers;
  Eigen::SparseMatrix<double> G;
  Eigen::VectorXd b;
  std::vector<double> g_amb, g_vert, cap;
  int n = 0, nl = 0, nc = 0, sp0 = 0, hs0 = 0;
  std::array<int, kPeripheryNodes> per{};  // node index of each periphery node, -1 if absent
  std::array<double, kPeripheryNodes> per_area_m2{};
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
  int n = (nl + 2) * nc;
  const PackageNetwork net = package_network(pk, W, H);
  std::array<int, kPeripheryNodes> per{};
  for (int k = 0; k < kPeripheryNodes; ++k)
    per[static_cast<size_t>(k)] = net.exists[static_cast<size_t>(k)] ? n++ : -1;

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
  // Vertical: HotSpot's grid model puts each layer's node on its face farther from the sink, so
  // the conductance from layer z to z+1 is layer z's whole thickness, k.A/t (temperature_grid.c
  // find_res: layers[n1].rz for n1 < n2). That is where the heat enters in the power layer (the
  // active side of a flip-chip die faces away from the spreader), and the spreader feeds the
  // sink's top face, where the sink spreads the heat sideways before crossing its base to the
  // fins. Series half-thicknesses instead put half the 6.9 mm sink base over the die footprint
  // ahead of any spreading (24 of the 32 % excess rise on HotSpot's bare-die case).
  std::vector<double> g_vert;  // conductance between column levels z and z+1, bottom up
  auto vertical = [&](int base_a, int base_b, double k, double t) {
    const double g = k * A / t;
    g_vert.push_back(g);
    for (int i = 0; i < nc; ++i) link(base_a + i, base_b + i, g);
  };
  for (int l = 0; l < nl; ++l) {
    const Layer& L = layers[static_cast<size_t>(l)];
    if (L.lateral_heat_flow) lateral(l * nc, L.conductivity_W_per_mK, L.thickness_m);
    vertical(l * nc, l + 1 < nl ? (l + 1) * nc : sp0, L.conductivity_W_per_mK, L.thickness_m);
  }
  lateral(sp0, pk.k_spreader_W_per_mK, pk.t_spreader_m);
  lateral(hs0, pk.k_sink_W_per_mK, pk.t_sink_m);
  vertical(sp0, hs0, pk.k_spreader_W_per_mK, pk.t_spreader_m);
  // The sink cells reach ambient through the whole sink base (convection acts on the fins beyond
  // it) and their share of r_convec by area (populate_R_model_grid: rz of the sink layer plus
  // r_convec.s_sink^2 / cell area).
  const double face = pk.s_sink_m * pk.s_sink_m;
  for (int i = 0; i < nc; ++i)
    g_amb[static_cast<size_t>(hs0 + i)] =
        1.0 / (pk.t_sink_m / (pk.k_sink_W_per_mK * A) + pk.r_convec_K_per_W * face / A);

  // Edge cells of the gridded spreader and sink to the trapezoid beside that edge: r1 (centre of
  // the trapezoid, see package_network) shared by the edge's cells, plus half a cell.
  auto edge = [&](int base, int node_w, int node_e, int node_s, int node_n, double k, double t,
                  double r1_x, double r1_y) {
    const double rx = dx / (k * dy * t), ry = dy / (k * dx * t);
    for (int r = 0; r < rows; ++r) {
      if (node_w >= 0) link(base + r * cols, node_w, 1.0 / (0.5 * rx + rows * r1_x));
      if (node_e >= 0) link(base + r * cols + cols - 1, node_e, 1.0 / (0.5 * rx + rows * r1_x));
    }
    for (int c = 0; c < cols; ++c) {
      if (node_s >= 0) link(base + c, node_s, 1.0 / (0.5 * ry + cols * r1_y));
      if (node_n >= 0) link(base + (rows - 1) * cols + c, node_n, 1.0 / (0.5 * ry + cols * r1_y));
    }
  };
  auto node = [&](int k) { return per[static_cast<size_t>(k)]; };
  edge(sp0, node(kSpW), node(kSpE), node(kSpS), node(kSpN), pk.k_spreader_W_per_mK, pk.t_spreader_m,
       net.r_sp1_x, net.r_sp1_y);
  edge(hs0, node(kSinkCW), node(kSinkCE), node(kSinkCS), node(kSinkCN), pk.k_sink_W_per_mK,
       pk.t_sink_m, net.r_hs1_x, net.r_hs1_y);
  for (const auto& pl : net.links) {
    if (!(pl.g > 0)) continue;
    if (pl.b < 0)
      g_amb[static_cast<size_t>(node(pl.a))] += pl.g;
    else
      link(node(pl.a), node(pl.b), pl.g);
  }
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
  for (int k = 0; k < kPeripheryNodes; ++k) {
    if (node(k) < 0) continue;
    const bool spreader = k <= kSpS;
    cap[static_cast<size_t>(node(k))] =
        (spreader ? pk.c_spreader_J_per_m3K * pk.t_spreader_m : pk.c_sink_J_per_m3K * pk.t_sink_m) *
        net.area_m2[static_cast<size_t>(k)];
  }

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
  sys.per = per;
  sys.per_area_m2 = net.area_m2;
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
  const int sp0 = sys.sp0, hs0 = sys.hs0;
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
  // Area-weighted means of the periphery nodes (junction nodes have no area of their own).
  double sp_sum = 0, sp_area = 0, hs_sum = 0, hs_area = 0;
  for (int k = 0; k < kPeripheryNodes; ++k) {
    const int i = sys.per[static_cast<size_t>(k)];
    sol.periphery_C[static_cast<size_t>(k)] =
        i >= 0 ? amb + theta[i] : std::numeric_limits<double>::quiet_NaN();
    if (i < 0) continue;
    const double a = sys.per_area_m2[static_cast<size_t>(k)];
    (k <= kSpS ? sp_sum : hs_sum) += a * theta[i];
    (k <= kSpS ? sp_area : hs_area) += a;
  }
  sol.spreader_periphery_C = sp_area > 0 ? amb + sp_sum / sp_area : sol.spreader_C[0];
  sol.sink_periphery_C = hs_area > 0 ? amb + hs_sum / hs_area : sol.sink_C[0];

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
    for (int k = 0; k < kPeripheryNodes; ++k) {
      const int i = sys.per[static_cast<size_t>(k)];
      if (i >= 0) theta[i] = s0.periphery_C[static_cast<size_t>(k)] - amb;
    }
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
