// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `stackscope-cli report`: the design review of a project written headless, the same document
// the workbench's File ▸ Export Design Review writes (ui::MainWindow::exportReport), drawn with
// Qt on its offscreen platform. Built only with the GUI (STACKSCOPE_BUILD_GUI); a headless
// build's `report` says so (make_report_unavailable_command).
#include "stackscope/cli/command.hpp"

namespace stackscope::cli {

Command make_report_command();

}  // namespace stackscope::cli
