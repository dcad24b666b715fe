// SPDX-License-Identifier: GPL-3.0-or-later
// One view's part of the design review (File ▸ Export Design Review): what it shows as figures
// (its plots and canvases alone, without the controls around them), tables and text. Each
// result view returns its section; review_report.cpp writes them into one HTML file.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QLabel;
class QTableWidget;
class QWidget;

namespace stackscope::ui {

struct ReviewSection {
  QString title;             // "Serving"
  QStringList paragraphs;    // plain text, in order
  QList<QWidget*> figures;   // rendered to PNG at their size on screen
  QList<const QTableWidget*> tables;
  // Nothing computed yet (no run, no search): the report says so with `missing`.
  bool shown() const { return !figures.isEmpty() || !tables.isEmpty() || !paragraphs.isEmpty(); }
  QString missing;
};

// A label's text as plain text (rich text's tags dropped); empty for an empty label or none.
QString plainText(const QLabel* label);
// A figure as an embedded PNG (data URI): a QCustomPlot rendered at its size on screen at twice
// the pixel density, any other widget grabbed as it is painted.
QString figureDataUri(QWidget* figure);
// A table widget as an HTML table: its header labels and cells, escaped.
QString tableHtml(const QTableWidget* table);
// The section as HTML: a heading, its paragraphs, tables and figures, or its `missing` line.
QString sectionHtml(const ReviewSection& section);

}  // namespace stackscope::ui
