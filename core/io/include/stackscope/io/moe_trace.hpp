// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Token-level MoE routing traces (moe/trace.hpp) from files in the format of data/mixtral-routing
// (HD-MoE's artifact, MIT licence): {"<layer>": [[e0, e1], ...one list of expert ids per token]},
// layers "0".."L-1". Read as a stream (nlohmann SAX), at most limits::kMaxTraceFileBytes.
#include <filesystem>

#include "stackscope/moe/trace.hpp"

namespace stackscope::io {

// The trace of a model with `experts` routed experts (1..65536); every token must select
// `top_k` distinct experts (0 = as many as the file's first token). Throws ConfigError with the
// issues at the file's path, each naming the file, the layer and the token (a JSON pointer such
// as /3/17 for layer "3", token 17): a missing, oversized or malformed file, a layer key that is
// not 0, 1, ..., a missing or empty layer, a token with the wrong number of experts, an id out of
// range or selected twice by one token.
moe::RoutingTrace load_moe_trace(const std::filesystem::path& file, int experts, int top_k = 0);

}  // namespace stackscope::io
