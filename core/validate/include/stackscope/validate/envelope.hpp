// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The validation envelope (docs/validation.md §6): how well each class of design is validated
// against measured deployments, as a table `stackscope-cli validate --envelope-out` writes
// (presets/validation/envelope.json ships the one computed from AIConfigurator's silicon
// sample) and every evaluate / serve result quotes: the nearest validated partition of the
// design -- its device, runtime profile and dense/MoE class -- with that partition's MAPE and
// row count, or "not validated".
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope::validate {

struct EnvelopeEntry {
  std::string hardware;  // hardware preset id the rows ran on ("h100-sxm")
  std::string runtime;   // runtime profile id ("vllm-2025")
  bool moe = false;
  Group group = Group::reported;  // fitted rows, held-out rows, or rows of no selection
  ErrorStats ttft, tpot;
};

struct Envelope {
  std::string command;  // the validate command line that computed it
  std::vector<std::string> inputs;
  std::vector<EnvelopeEntry> entries;
};

// The envelope of a validation report: one entry per (hardware, runtime, dense/MoE, group) over
// the rows that ran.
Envelope envelope_of(const Report& report, const std::string& command);

// How a design stands against an envelope.
//  - exact: rows of the same device, runtime profile and dense/MoE class;
//  - nearest: no such rows, but rows of the same device class (a GPU with a runtime profile of
//    the same device class) -- the closest by device, then runtime, then dense/MoE;
//  - none: nothing measured resembles it (3D-stacked, wafer and mesh accelerators have no
//    silicon to measure).
// Held-out rows are preferred to fitted ones (an out-of-sample error is the honest figure),
// then partitions with more rows; fitted figures are labelled as such.
struct EnvelopeMatch {
  enum class Kind { exact, nearest, none } kind = Kind::none;
  EnvelopeEntry entry;  // valid unless kind == none
  std::string text;     // one line for people: "validated: ..." / "nearest validated: ..." /
                        // "not validated: ..."
};
EnvelopeMatch match_envelope(const Envelope& envelope, const perf::Design& design);

}  // namespace stackscope::validate
