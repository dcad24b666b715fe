// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `search` on a co-exploration project (a "coexplore" section): wafer architecture x
// serving configuration, the central scheduler per point (cmd_coexplore.cpp).
#include <filesystem>
#include <string>

#include "stackscope/cli/args.hpp"
#include "stackscope/cli/command.hpp"
#include "stackscope/search/engine.hpp"

namespace stackscope::cli {

// --shard K/N (0 <= K < N); CliError naming the allowed form otherwise (cmd_search.cpp).
search::Shard parse_shard(const std::string& text);

// The search options that mean nothing to a co-exploration (refused with a message).
bool coexplore_refuses(std::string_view option);

// `text` is the project file's content, `base_dir` its folder (relative trace paths).
int run_coexplore(const ParsedArgs& args, const std::string& text,
                  const std::filesystem::path& base_dir, Context& ctx);

}  // namespace stackscope::cli
