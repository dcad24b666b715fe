// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the DeepStack reproduction tests: the builtin presets as a repro::Catalogue.
#include <string>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/repro/deepstack.hpp"

namespace stackscope::repro::testing {

inline const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

inline Catalogue catalogue() {
  Catalogue c;
  c.hardware = [](const std::string& id) { return io::resolve_hardware(id, presets()); };
  c.system = [](const std::string& id) { return io::resolve_system(id, presets()); };
  c.model = [](const std::string& id) { return io::resolve_model(id, presets()); };
  c.runtime = [](const std::string& id) { return io::resolve_runtime(id, presets()); };
  return c;
}

// The reproduction's agreement band for a gain against the paper's gain.
constexpr double kPaperBand = 0.30;

inline double paper_gain(const std::vector<Table4Row>& rows, std::size_t i) {
  return rows[i].step == 1 ? 1.0 : rows[i].paper_stps / rows[i - 1].paper_stps;
}

}  // namespace stackscope::repro::testing
