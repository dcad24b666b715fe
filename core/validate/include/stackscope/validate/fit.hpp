// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Calibrating a runtime profile on measured deployments (docs/validation.md): one grid search
// over the profile's numeric fields (runtime::numeric_field_names), each grid point applied to
// every row that runs under the profile, the rows run as validate runs them (run.hpp), and the
// point with the smallest objective kept. The objective is the mean of the TTFT and TPOT mean
// absolute percentage errors over those rows (both metrics count equally; a row that fails to
// run at a point costs 1, i.e. 100 %, on both, so a point cannot win by dropping rows). No
// per-row term exists: a profile is one set of values for every row of its backend.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/validate/run.hpp"

namespace stackscope::validate {

// "key=lo:hi:step" (lo, lo + step, ... <= hi + step/1000) or "key=v1|v2|v3", axes separated by
// ','. At most 8 axes and 10,000 points in all. Throws std::invalid_argument naming `what`, the
// axis and the allowed keys or range.
std::vector<GridAxis> parse_grid(std::string_view text, std::string_view what);

// Fits `profile_id` of `catalog` on those of `rows` whose mapped case runs under it. Throws
// std::invalid_argument when no row does or the profile is not in the catalog. A stop returns
// the points evaluated so far (best among them).
FitResult fit_profile(const std::vector<SiliconRow>& rows, const Catalog& catalog,
                      const std::string& profile_id, const std::vector<GridAxis>& axes,
                      const RunOptions& options);

// `catalog` with the profile's fields set to the point's values.
Catalog with_point(Catalog catalog, const std::string& profile_id,
                   const std::vector<GridAxis>& axes, const std::vector<double>& values);

}  // namespace stackscope::validate
