// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Empty plots as hints: a plot with nothing to show says what to do
// ("Run a search to see the Pareto frontier") in one centred sentence instead of drawing bare
// 0–5 axes. The hint is a child widget over the view: it covers the axes, grid and legend,
// repeats a plot's axis labels in grey beside a faint axis frame (so the reader sees what will
// appear), and takes its colours from the palette when it paints, so it follows the theme.
#include <QString>

class QCustomPlot;
class QWidget;

namespace stackscope::ui {

// Installs the hint of `plot`, or changes its text: shown whenever a replot finds no data (no
// visible plottable with a data point), hidden by the first replot that has some.
void setPlotHint(QCustomPlot* plot, const QString& text);

// The same hint over any other view (a Qt Charts view, a painted canvas); the caller shows and
// hides it.
void showHint(QWidget* view, const QString& text);
void hideHint(QWidget* view);

// The text of the hint shown over `view` (shown: not hidden, though its window may be), or an
// empty string.
QString shownHint(const QWidget* view);

// Whether any visible plottable of `plot` holds data (a colour map: a non-empty grid).
bool plotHasData(const QCustomPlot* plot);

}  // namespace stackscope::ui
