// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured kernel tables (docs/model.md §3.4): times a device's kernel library reaches on given
// shapes, as a user's profiler or a vendor's tool records them, to be interpolated in place of
// the roofline's flat efficiencies where a device has them. SI units (s).
//
// Contract: lookups interpolate, never extrapolate. A GEMM is looked up among the rows of its
// precision and weight shape (n, k) between the two nearest measured token counts m: the ratio
// of their times to the table's own roofline (the highest byte and FLOP rates its rows of that
// precision reach) is interpolated linearly in log m, which keeps the memory-to-compute knee. A
// shape that was not measured, or an m outside the measured range, gives nullopt, and the
// caller keeps the analytical model for that kernel.
#include <optional>
#include <string>
#include <vector>

#include "stackscope/common/precision.hpp"

namespace stackscope::kernels {

struct GemmRow {
  Precision precision = Precision::bf16;
  double m = 0;  // tokens (rows of the activation matrix)
  double n = 0;  // output features
  double k = 0;  // input features
  double time_s = 0;
};

struct Table {
  std::string source;  // where the rows come from (a file name)
  std::vector<GemmRow> gemm;
};

// Time of an m x n x k GEMM at `precision`, interpolated from the table; nullopt when the
// table does not cover it (see the contract above).
std::optional<double> gemm_time(const Table& table, Precision precision, double m, double n,
                                double k);

// Leave-one-out check of the lookup: each row predicted from the table without it (rows at the
// ends of their shape's m range cannot be, and are counted apart). Relative errors |t'/t - 1|.
struct LeaveOneOut {
  int rows = 0;       // rows of the table
  int predicted = 0;  // rows that an interpolation could predict
  double median = 0;  // of the predicted rows' absolute relative errors
  double p90 = 0;
  double max = 0;
};
LeaveOneOut leave_one_out(const Table& table);

}  // namespace stackscope::kernels
