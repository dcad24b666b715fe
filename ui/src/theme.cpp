// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/theme.hpp"

#include <qcustomplot.h>

#include <QAbstractAxis>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLineEdit>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QToolTip>

namespace stackscope::ui::theme {
namespace {

Mode g_mode = Mode::system;

// The palette the application had before any theme was applied (the desktop's).
const QPalette& startupPalette() {
  static const QPalette p = QApplication::palette();
  return p;
}

// A dark palette for Fusion in the product's blue-grey (header #1c2f4a).
QPalette darkPalette() {
  QPalette p;
  const QColor window(0x23, 0x27, 0x2e), base(0x1b, 0x1f, 0x25), text(0xe6, 0xea, 0xef);
  const QColor button(0x2c, 0x31, 0x39), disabledText(0x7d, 0x86, 0x92);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x25, 0x2a, 0x32));
  p.setColor(QPalette::ToolTipBase, QColor(0x30, 0x36, 0x40));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabledText);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, button);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  p.setColor(QPalette::Light, QColor(0x3a, 0x41, 0x4c));
  p.setColor(QPalette::Midlight, QColor(0x33, 0x39, 0x43));
  p.setColor(QPalette::Mid, QColor(0x2a, 0x2f, 0x37));
  p.setColor(QPalette::Dark, QColor(0x15, 0x18, 0x1d));
  p.setColor(QPalette::Shadow, QColor(0x0b, 0x0d, 0x10));
  p.setColor(QPalette::Highlight, QColor(0x4c, 0x72, 0xb0));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x8a, 0xb4, 0xf8));
  p.setColor(QPalette::LinkVisited, QColor(0xc5, 0x8a, 0xf9));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabledText);
  p.setColor(QPalette::Disabled, QPalette::Base, window);
  p.setColor(QPalette::Disabled, QPalette::Button, window);
  return p;
}

// Overrides of resources/stackscope.qss for a dark palette (same selectors, later wins).
const char* const kDarkSheet = R"(
QGroupBox { border: 1px solid #3a414c; background: #262b33; }
QGroupBox::title { color: #d5dde8; }
QFrame#metricCard { background: #2c323b; border: 1px solid #3d4450; }
QLabel#metricTitle { color: #a9b4c2; }
QLabel[objectName^="metric_"] { color: #eef2f6; }
QLabel#metricDetail { color: #98a3b1; }
QLabel#feasibilityBanner[state="ok"] { background: #1d3826; color: #bfe6c9; border: 1px solid #2f5a3c; }
QLabel#feasibilityBanner[state="bad"] { background: #451f1c; color: #f6c4bf; border: 1px solid #7a302a; }
QLabel#feasibilityBanner[state="warn"] { background: #43381a; color: #f3dfa6; border: 1px solid #6e5a23; }
QLabel#sectionTitle { color: #d5dde8; }
QLabel#hint { color: #9ba6b4; }
QProgressBar#memoryBar { background: #3a414c; }
QToolBox::tab { background: #2c323b; border: 1px solid #3a414c; border-radius: 3px; color: #e6eaef; }
QToolBox::tab:selected { background: #34506f; }
)";

const char* const kLightSheet = R"(
QToolBox::tab { background: #e9edf2; border: 1px solid #d5dae1; border-radius: 3px; color: #1c2f4a; }
QToolBox::tab:selected { background: #d3e0f0; font-weight: 600; }
)";

}  // namespace

Mode saved() {
  const QString v = QSettings().value(QStringLiteral("view/theme")).toString();
  if (v == QStringLiteral("light")) return Mode::light;
  if (v == QStringLiteral("dark")) return Mode::dark;
  return Mode::system;
}

void save(Mode mode) {
  QSettings().setValue(QStringLiteral("view/theme"), name(mode));
}

QString name(Mode mode) {
  switch (mode) {
    case Mode::light: return QStringLiteral("light");
    case Mode::dark: return QStringLiteral("dark");
    case Mode::system: break;
  }
  return QStringLiteral("system");
}

void apply(Mode mode) {
  startupPalette();  // remember the desktop's palette before the first change
  g_mode = mode;
  switch (mode) {
    case Mode::system: QApplication::setPalette(startupPalette()); break;
    case Mode::light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
    case Mode::dark: QApplication::setPalette(darkPalette()); break;
  }
  // Tooltips keep a palette of their own.
  QToolTip::setPalette(QApplication::palette());
}

Mode current() {
  return g_mode;
}

bool isDark() {
  const QPalette p = QApplication::palette();
  return p.color(QPalette::Window).lightness() < p.color(QPalette::WindowText).lightness();
}

QString styleSheet(const QString& base) {
  return base + QString::fromLatin1(isDark() ? kDarkSheet : kLightSheet);
}

QColor ink() {
  return isDark() ? QColor(0xe6, 0xea, 0xef) : QColor(0x1c, 0x2f, 0x4a);
}

QColor quietInk() {
  return isDark() ? QColor(0xa9, 0xb4, 0xc2) : QColor(0x55, 0x55, 0x55);
}

QColor highlight() {
  return isDark() ? QColor(0x5a, 0x4a, 0x1e) : QColor(0xff, 0xf4, 0xd6);
}

void stylePlot(QCustomPlot* plot) {
  const QPalette p = QApplication::palette();
  const bool dark = isDark();
  const QColor bg = p.color(QPalette::Base);
  const QColor fg = p.color(QPalette::Text);
  const QColor axis = dark ? QColor(0xa9, 0xb4, 0xc2) : QColor(0x30, 0x30, 0x30);
  const QColor grid = dark ? QColor(0x3a, 0x41, 0x4c) : QColor(200, 200, 200);
  const QColor subGrid = dark ? QColor(0x2c, 0x31, 0x39) : QColor(220, 220, 220);
  plot->setBackground(bg);
  const auto styleAxis = [&](QCPAxis* a) {
    a->setBasePen(QPen(axis, 0));
    a->setTickPen(QPen(axis, 0));
    a->setSubTickPen(QPen(axis, 0));
    a->setLabelColor(fg);
    a->setTickLabelColor(fg);
    a->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    a->grid()->setSubGridPen(QPen(subGrid, 0, Qt::DotLine));
    a->grid()->setZeroLinePen(Qt::NoPen);
  };
  for (QCPAxisRect* rect : plot->axisRects()) {
    rect->setBackground(Qt::NoBrush);
    for (QCPAxis* a : rect->axes()) styleAxis(a);
  }
  // Colour scales (the thermal map) carry their own axis.
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* scale = qobject_cast<QCPColorScale*>(plot->plotLayout()->elementAt(i)))
      styleAxis(scale->axis());
  plot->legend->setBrush(bg);
  plot->legend->setTextColor(fg);
  if (plot->legend->borderPen().style() != Qt::NoPen) plot->legend->setBorderPen(QPen(axis, 0));
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
      title->setTextColor(fg);
}

void styleChart(QChart* chart) {
  const QPalette p = QApplication::palette();
  const bool dark = isDark();
  const QColor fg = p.color(QPalette::Text);
  const QColor grid = dark ? QColor(0x3a, 0x41, 0x4c) : QColor(0xd5, 0xda, 0xe1);
  chart->setBackgroundBrush(p.color(QPalette::Base));
  chart->setBackgroundPen(Qt::NoPen);
  chart->setTitleBrush(fg);
  chart->legend()->setLabelColor(fg);
  for (QAbstractAxis* a : chart->axes()) {
    a->setLabelsColor(fg);
    a->setTitleBrush(fg);
    a->setLinePenColor(dark ? QColor(0xa9, 0xb4, 0xc2) : QColor(0x60, 0x60, 0x60));
    a->setGridLineColor(grid);
  }
}

void restyle(QWidget* root) {
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
    stylePlot(plot);
    plot->replot();
  }
  for (QChartView* view : root->findChildren<QChartView*>()) {
    styleChart(view->chart());
    view->setBackgroundBrush(QApplication::palette().color(QPalette::Base));
  }
}

void markField(QWidget* w, const QStringList& messages) {
  const bool bad = !messages.isEmpty();
  if (!w->property("baseTip").isValid()) w->setProperty("baseTip", w->toolTip());
  if (!bad && !w->property("invalid").toBool()) return;
  const QString base = w->property("baseTip").toString();
  QStringList lines;
  for (const QString& m : messages) lines << m.toHtmlEscaped();
  w->setToolTip(
      bad ? QStringLiteral("<p><b>%1</b></p>%2").arg(lines.join(QStringLiteral("<br>")), base)
          : base);
  if (qobject_cast<QAbstractSpinBox*>(w)) {
    QPalette tint;  // empty: inherit again
    if (bad) {
      tint = w->palette();
      tint.setColor(QPalette::Base, isDark() ? QColor(0x5a, 0x26, 0x26) : QColor(0xff, 0xdf, 0xdc));
    }
    w->setPalette(tint);
    for (auto* edit : w->findChildren<QLineEdit*>()) edit->setPalette(tint);
  } else {
    w->setStyleSheet(bad ? QStringLiteral("border: 2px solid #c62828; border-radius: 3px;")
                         : QString());
  }
  w->setProperty("invalid", bad);
}

}  // namespace stackscope::ui::theme
