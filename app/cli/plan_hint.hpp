// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading `--tp T --ep E` the way TensorRT-LLM and vLLM mean it.
// There `--tp_size 8 --ep_size 8` (TensorRT-LLM) or `--tensor-parallel-size 8
// --enable-expert-parallel` (vLLM) on 8 GPUs shard attention 8 ways and spread the experts over
// the same 8 GPUs: moe_tp x moe_ep = tp. In StackScope tp, pp, dp, ep and cp are separate mesh
// dimensions (devices = tp x pp x dp x ep x cp), and per-module plans (--attention-tp, --moe-tp,
// --moe-ep) re-partition the devices of a stage. This states our convention and, when it is
// valid, the per-module plan that expresses the other reading.
#include <optional>
#include <string>

#include "stackscope/cli/args.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::cli {

// The note to print (several lines, each starting with "note: ") when the user gave both --tp
// and --ep (> 1) for an MoE model without per-module MoE options, and the design's device count
// is the one the other reading needs (tp x pp x dp x cp) rather than ours; nullopt otherwise.
// `design` is the design after the command-line overrides.
std::optional<std::string> plan_convention_hint(const perf::Design& design, const ParsedArgs& args);

}  // namespace stackscope::cli
