// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON form of an expert-placement comparison on a mesh (experts/compare.hpp), as
// `moe --json` prints it:
//   {"model", "experts", "top_k", "moe_layers",
//    "mesh": {"x", "y", "node_TFLOPS", "link_GBps", "mem_GBps", "alpha_s"}, "batch", "batches",
//    "fit", "eval", "layers", "non_moe_s_per_layer", "eplb_redundant",
//    "strategies": [{"strategy", "moe_s", "end_to_end_s", "imbalance",
//                    "busiest_link_utilisation", "surrogate_error",
//                    "layers": [{"layer", "time_s", "imbalance", "busiest_link_utilisation",
//                                "link_bytes", "surrogate_s", "broadcast_bytes",
//                                "exposed_broadcast_s", "shadowed"}],
//                    "speedup_over": {"tp", "ep", "balanced"}}],
//    "hd_node_balance": [{"layer", "status", "gap" (null when unbounded), "seconds",
//                         "warm_start", "chosen", "milp_fit_s", "chosen_fit_s", "linked_fit_s",
//                         "link_accepted", "split_experts", "sets", "set_coverage"}]}
// Times in s, rates in TFLOP/s and decimal GB/s. `fit` and `eval` name the routing the
// placements were fitted on and scored on. Indented by two spaces, no trailing newline.
#include <string>

#include "stackscope/experts/compare.hpp"

namespace stackscope::io {

std::string expert_comparison_json(const std::string& model_id,
                                   const experts::CompareConfig& config, const std::string& fit,
                                   const std::string& eval, const experts::CompareResult& result);

}  // namespace stackscope::io
