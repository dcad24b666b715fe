// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The performance evaluator (MODEL.md §1-5, §8).
//
// Contract: evaluate() is a pure function of a *validated* design (perf::validate() returned
// no issues). It is reentrant and thread-safe: no global state, no I/O, no heap allocation on
// its path. Units are SI (s, B, FLOP, J, W). Infeasible designs return feasible == false with
// reason flags and still carry every metric, so searches can rank near-misses.
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"

namespace stackscope::perf {

Result evaluate(const Design& design) noexcept;

// Largest batch per replica that fits device memory (0 if even batch 1 does not fit).
int max_batch_that_fits(const Design& design) noexcept;

// Memory footprint per device at the given batch per replica.
MemoryFootprint memory_footprint(const Design& design, int batch) noexcept;

}  // namespace stackscope::perf
