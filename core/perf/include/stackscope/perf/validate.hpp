// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Semantic validation of a design (ranges and combinations). The JSON layer (core/io) adds
// structural issues (unknown keys, wrong types) before this runs. Every issue carries the JSON
// pointer of the offending field, its value and the allowed range.
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::perf {

// Returns every problem found; empty means evaluate() may be called.
// Checks: positive/finite sizes and rates, fractions in (0,1], layers_connected <= layers_total,
// heads % kv_heads, heads and kv/ffn splits divisible by tp, tp*pp*dp*ep == system.devices,
// pp <= layers, ep > 1 only for MoE with experts % ep == 0, input/output lengths >= 1,
// and (unless batch_auto) the batch fitting device memory.
std::vector<Issue> validate(const Design& design);

}  // namespace stackscope::perf
