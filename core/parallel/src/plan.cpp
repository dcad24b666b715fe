// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/parallel/plan.hpp"

#include <iterator>

namespace stackscope::parallel {

std::string short_text(const Plan& p) {
  std::string s = "tp" + std::to_string(p.tp);
  if (p.pp > 1) s += " pp" + std::to_string(p.pp);
  if (p.ep > 1) s += " ep" + std::to_string(p.ep);
  if (p.dp > 1) s += " dp" + std::to_string(p.dp);
  if (p.cp > 1) s += " cp" + std::to_string(p.cp);
  if (p.sequence_parallel) s += " sp";
  if (p.experts.strategy != ExpertStrategy::plan)
    s += " " + std::string(to_string(p.experts.strategy));
  return s;
}

namespace {
constexpr std::string_view kStrategyNames[] = {"plan",     "tp", "ep",         "eplb",
                                               "balanced", "hd", "hd-dynamic", "shadow"};
}  // namespace

std::string_view to_string(ExpertStrategy s) {
  return kStrategyNames[static_cast<std::size_t>(s)];
}

std::optional<ExpertStrategy> parse_expert_strategy(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kStrategyNames); ++i)
    if (kStrategyNames[i] == text) return static_cast<ExpertStrategy>(i);
  return std::nullopt;
}

bool mesh_only(ExpertStrategy s) {
  return s == ExpertStrategy::tp || s == ExpertStrategy::ep || s == ExpertStrategy::hd ||
         s == ExpertStrategy::hd_dynamic || s == ExpertStrategy::shadow;
}

}  // namespace stackscope::parallel
