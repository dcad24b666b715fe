// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Semantic validation of a design (ranges and combinations). The JSON layer (core/io) adds
// structural issues (unknown keys, wrong types) before this runs. Every issue carries the JSON
// pointer of the offending field, its value and the allowed range.
#include <map>
#include <string>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::perf {

// Returns every problem found; empty means evaluate() may be called.
// Checks: positive/finite sizes and rates, fractions in (0,1], layers_connected <= layers_total,
// heads % kv_heads, heads and kv/ffn splits divisible by their module's tp,
// tp*pp*dp*ep*cp == system.devices, placement a permutation, module plans that use all of a
// stage's devices, network level shapes (at most 3 levels, mesh/torus dims), pp <= layers,
// ep > 1 only for MoE with experts divisible by the MoE ep, input/output lengths >= 1, and
// (unless batch_auto) the batch fitting device memory.
// Ranges beyond "positive" (device counts, mesh sides, clocks, bandwidths, ...) are the ones of
// stackscope/perf/limits.hpp; products of counts are formed with checked arithmetic.
std::vector<Issue> validate(const Design& design);

// A field's allowed range as validate() checks it (the limits of stackscope/perf/limits.hpp).
struct FieldRange {
  double min = 0, max = 0;
  bool integer = false;
  bool min_exclusive = false;  // "positive": > min rather than >= min
};
// Every range validate() checks on `design`, by JSON pointer ("/hardware/memory/clock_MHz",
// "/system/levels/0/link_GBps"): what a form offers for each field, so the form and the
// validator never disagree. Fields whose bound depends on another field (layers_connected <=
// layers_total) carry the bound for `design`'s values.
std::map<std::string, FieldRange> field_ranges(const Design& design);

// The checks of validate() that hold whatever hardware, system and parallel plan the design
// runs on: the model's own fields (its splits by tp are the plan's checks), the workload and the
// runtime profile. A search or a co-exploration checks its base design with this once, before
// any point: its points replace the hardware, system and plan, but a workload with
// output_len 0 would make every one of them invalid.
std::vector<Issue> validate_base(const Design& design);

// The memory part of validate() for a hardware description alone (the `dram` command): the
// DRAM fields and the compute fields the DRAM model reads (cores, clock, SRAM bandwidth).
// Paths start with `prefix` ("/hardware" as in a project, "" for a hardware file).
std::vector<Issue> validate_memory(const hw::Hardware& hardware,
                                   const std::string& prefix = "/hardware");

}  // namespace stackscope::perf
