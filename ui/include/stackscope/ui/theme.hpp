// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Light and dark palettes (View > Theme). The application palette carries the theme; widgets
// that paint or style their own plots ask it for colours here, so a chart stays legible on a
// dark background. The choice is kept in QSettings ("view/theme").
#include <QColor>
#include <QString>
#include <QStringList>

class QChart;
class QCustomPlot;
class QWidget;

namespace stackscope::ui::theme {

enum class Mode { system, light, dark };

Mode saved();  // QSettings, default system
void save(Mode mode);
QString name(Mode mode);
// Sets the application palette (Fusion's light palette, a dark one, or the palette the
// application started with).
void apply(Mode mode);
Mode current();
// True when the application palette is dark (whatever the mode that made it).
bool isDark();

// The product style sheet with the dark overrides appended when the palette is dark.
QString styleSheet(const QString& base);
// Background, axes, grid, labels and legend of a plot from the palette (data colours are kept).
void stylePlot(QCustomPlot* plot);
void styleChart(QChart* chart);
// Every QCustomPlot and QChartView below `root`, restyled and repainted.
void restyle(QWidget* root);

// Marks a form field invalid (messages not empty: a tinted spin box, since a style-sheet border
// would replace its arrows, or a red border around anything else; the messages above its
// tooltip) or valid again (messages empty). The field's own tooltip is kept in its "baseTip"
// property; a field that was and stays valid is not touched (a style change re-polishes).
void markField(QWidget* field, const QStringList& messages);
// Colour for marks drawn over the plot background (frontier lines, outlines, labels), and a
// quieter one for secondary text.
QColor ink();
QColor quietInk();
// A soft highlight behind table cells that differ (readable with the palette's text colour).
QColor highlight();

}  // namespace stackscope::ui::theme
