// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the expert-placement view's files share (experts_view.cpp: the view, its form and runs;
// experts_view_results.cpp: the results shown; expert_mesh_canvas.hpp: the link map).

#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMap>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "stackscope/common/precision.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/io/moe_trace.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/trace.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/theme.hpp"

#include "stackscope/ui/experts_view.hpp"

namespace stackscope::ui::experts_view_detail {

using experts::Strategy;


constexpr int kDebounceMs = 300;
constexpr int kColumns = 10;  // speedups over TP, EP, balanced (end-to-end, MoE), times

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

inline QString strategyName(Strategy s) {
  switch (s) {
    case Strategy::tp: return QStringLiteral("TP");
    case Strategy::ep: return QStringLiteral("EP");
    case Strategy::eplb: return QStringLiteral("EPLB");
    case Strategy::balanced: return QStringLiteral("balanced");
    case Strategy::hd: return QStringLiteral("HD-MoE");
    case Strategy::hd_dynamic: return QStringLiteral("HD-MoE dynamic");
    case Strategy::shadow: return QStringLiteral("shadow");
  }
  return {};
}

inline QString strategyTip(Strategy s) {
  switch (s) {
    case Strategy::tp: return ExpertsView::tr("Every expert split over every node (1/N each)");
    case Strategy::ep: return ExpertsView::tr("Each expert whole on one node");
    case Strategy::eplb:
      return ExpertsView::tr("DeepSeek's EPLB: hot experts replicated into redundant slots");
    case Strategy::balanced:
      return ExpertsView::tr("Compute-balanced hybrid: experts split so node compute is even");
    case Strategy::hd:
      return ExpertsView::tr("HD-MoE: GLPK node balance (compute + communication), then link "
                             "balance of the node → mesh mapping");
    case Strategy::hd_dynamic:
      return ExpertsView::tr("HD-MoE's placement plus the pre-broadcast of the experts predicted "
                             "hottest, hidden under the non-MoE time");
    case Strategy::shadow:
      return ExpertsView::tr("HD-MoE's placement with FasterMoE's shadowing of the batch's "
                             "hottest experts (broadcast not hidden)");
  }
  return {};
}

// For the legend of a plot a third of the view wide.
inline QString shortName(Strategy s) {
  switch (s) {
    case Strategy::balanced: return QStringLiteral("bal.");
    case Strategy::hd: return QStringLiteral("HD");
    case Strategy::hd_dynamic: return QStringLiteral("HD dyn.");
    default: return strategyName(s);
  }
}

// One colour per strategy, fixed across the plots.
inline QColor strategyColour(Strategy s) {
  switch (s) {
    case Strategy::tp: return QColor(0x8c, 0x8c, 0x8c);
    case Strategy::ep: return QColor(0xdd, 0x84, 0x52);
    case Strategy::eplb: return QColor(0xc4, 0x4e, 0x52);
    case Strategy::balanced: return QColor(0x55, 0xa8, 0x68);
    case Strategy::hd: return QColor(0x4c, 0x72, 0xb0);
    case Strategy::hd_dynamic: return QColor(0x81, 0x72, 0xb3);
    case Strategy::shadow: return QColor(0x93, 0x78, 0x60);
  }
  return Qt::gray;
}

inline QString notApplicable() {
  return ExpertsView::tr(
      "The Experts view places MoE experts on a 2D mesh: pick an MoE model (e.g. Mixtral-8x7B) "
      "and a mesh system (e.g. hdmoe-mesh-4x8), or open the mixtral-hdmoe project");
}

inline QString us(double s) {
  return readable(s * 1e6);
}

inline QCustomPlot* makePlot(QWidget* parent, const QString& name) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(name);
  plot->setMinimumSize(280, 260);
  plot->plotLayout()->insertRow(0);
  auto* t = new QCPTextElement(
      plot, QString(), QFont(parent->font().family(), parent->font().pointSize(), QFont::Bold));
  plot->plotLayout()->addElement(0, 0, t);
  theme::stylePlot(plot);
  attachExportMenu(plot, name);
  return plot;
}

inline void setTitle(QCustomPlot* plot, const QString& text) {
  if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0))) t->setText(text);
}

// Integer ticks about every `n / 12` (1, 2, 4, 8, ...), so the labels never run together.
inline QSharedPointer<QCPAxisTickerFixed> integerTicker(int n) {
  auto t = QSharedPointer<QCPAxisTickerFixed>::create();
  double step = 1;
  while (n / step > 12) step *= 2;
  t->setTickStep(step);
  t->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  return t;
}

inline QCPColorGradient shareGradient() {
  QCPColorGradient g;
  const bool dark = theme::isDark();
  // Steep at the low end: a TP share (1/N) must read as "some", not as empty.
  g.setColorStopAt(0, dark ? QColor(0x2a, 0x2f, 0x36) : QColor(0xf2, 0xf4, 0xf7));
  g.setColorStopAt(0.02, dark ? QColor(0x33, 0x45, 0x60) : QColor(0xd3, 0xe0, 0xf2));
  g.setColorStopAt(0.15, dark ? QColor(0x3f, 0x63, 0x9c) : QColor(0x8d, 0xae, 0xdf));
  g.setColorStopAt(0.4, dark ? QColor(0x6a, 0x93, 0xd6) : QColor(0x3f, 0x6f, 0xb8));
  g.setColorStopAt(1, dark ? QColor(0xc4, 0xdb, 0xff) : QColor(0x14, 0x30, 0x6b));
  return g;
}

}  // namespace stackscope::ui::experts_view_detail
