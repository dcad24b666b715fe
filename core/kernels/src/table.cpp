// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/kernels/table.hpp"

#include <algorithm>
#include <cmath>

namespace stackscope::kernels {
namespace {

bool same_shape(const GemmRow& r, Precision p, double n, double k) {
  return r.precision == p && r.n == n && r.k == k;
}

double gemm_bytes(Precision p, double m, double n, double k) {
  // Operands at their precision, the output in 16 bit (cuBLAS / torch._scaled_mm write bf16).
  return (m * k + k * n) * bytes_per_element(p) + m * n * 2.0;
}

// The table's own roofline for a precision: the highest byte and FLOP rates any of its rows
// reach. Interpolating a row's time relative to it keeps the memory-to-compute knee that a
// plain log-log interpolation in m would cut across.
struct Roof {
  double bytes_per_s = 0, flops_per_s = 0;
  double time(Precision p, double m, double n, double k) const {
    return std::max(gemm_bytes(p, m, n, k) / bytes_per_s, 2.0 * m * n * k / flops_per_s);
  }
};

Roof roof_of(const std::vector<GemmRow>& rows, Precision p, const GemmRow* skip) {
  Roof r;
  for (const GemmRow& g : rows) {
    if (&g == skip || g.precision != p || !(g.time_s > 0)) continue;
    r.bytes_per_s = std::max(r.bytes_per_s, gemm_bytes(p, g.m, g.n, g.k) / g.time_s);
    r.flops_per_s = std::max(r.flops_per_s, 2.0 * g.m * g.n * g.k / g.time_s);
  }
  return r;
}

// Interpolation in log m over the rows of one shape, skipping row `skip` (or none), of the
// log of the time over the table's roofline.
std::optional<double> interpolate(const std::vector<GemmRow>& rows, Precision p, double m, double n,
                                  double k, const GemmRow* skip) {
  const GemmRow* lo = nullptr;
  const GemmRow* hi = nullptr;
  for (const GemmRow& r : rows) {
    if (&r == skip || !same_shape(r, p, n, k) || !(r.time_s > 0)) continue;
    if (r.m == m && skip == nullptr) return r.time_s;
    if (r.m <= m && (!lo || r.m > lo->m)) lo = &r;
    if (r.m >= m && (!hi || r.m < hi->m)) hi = &r;
  }
  if (!lo || !hi) return std::nullopt;
  if (lo->m == hi->m) return lo->time_s;
  const Roof roof = roof_of(rows, p, skip);
  const auto ratio = [&](const GemmRow& r) { return std::log(r.time_s / roof.time(p, r.m, n, k)); };
  const double x = (std::log(m) - std::log(lo->m)) / (std::log(hi->m) - std::log(lo->m));
  return roof.time(p, m, n, k) * std::exp(ratio(*lo) + x * (ratio(*hi) - ratio(*lo)));
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

}  // namespace

std::optional<double> gemm_time(const Table& table, Precision precision, double m, double n,
                                double k) {
  if (!(m > 0) || !(n > 0) || !(k > 0)) return std::nullopt;
  return interpolate(table.gemm, precision, m, n, k, nullptr);
}

LeaveOneOut leave_one_out(const Table& table) {
  LeaveOneOut out;
  std::vector<double> errors;
  for (const GemmRow& r : table.gemm) {
    ++out.rows;
    const auto t = interpolate(table.gemm, r.precision, r.m, r.n, r.k, &r);
    if (!t || !(r.time_s > 0)) continue;
    errors.push_back(std::abs(*t / r.time_s - 1.0));
  }
  out.predicted = static_cast<int>(errors.size());
  out.median = quantile(errors, 0.5);
  out.p90 = quantile(errors, 0.9);
  out.max = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  return out;
}

}  // namespace stackscope::kernels
