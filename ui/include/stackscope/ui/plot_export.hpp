// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Export of any view: PNG (raster, 2x), PDF and SVG (vector). A
// QCustomPlot uses its own vector PDF writer; other widgets render through QPdfWriter /
// QSvgGenerator. Every plot gets a right-click "Save plot as…" menu.
#include <QString>

class QWidget;

namespace stackscope::ui {

// Writes `view` to `file`; the format comes from the suffix (.png, .pdf, .svg). False and the
// reason on failure (unknown suffix, unwritable file).
bool saveView(QWidget* view, const QString& file, QString* error);

// Adds a context menu with "Save plot as…" to `view` (file dialog, default name `baseName`).
void attachExportMenu(QWidget* view, const QString& baseName);

}  // namespace stackscope::ui
