// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/parallel/plan.hpp"

namespace stackscope::parallel {

std::string short_text(const Plan& p) {
  std::string s = "tp" + std::to_string(p.tp);
  if (p.pp > 1) s += " pp" + std::to_string(p.pp);
  if (p.ep > 1) s += " ep" + std::to_string(p.ep);
  if (p.dp > 1) s += " dp" + std::to_string(p.dp);
  if (p.cp > 1) s += " cp" + std::to_string(p.cp);
  if (p.sequence_parallel) s += " sp";
  return s;
}

}  // namespace stackscope::parallel
