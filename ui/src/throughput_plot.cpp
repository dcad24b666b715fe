// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/throughput_plot.hpp"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

constexpr int kMaxSweepBatch = 4096;  // beyond this static batching is not a serving regime

}  // namespace

ThroughputPlot::ThroughputPlot(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("throughputPlot"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* title = new QLabel(tr("Throughput vs interactivity (batch sweep)"), this);
  title->setObjectName(QStringLiteral("sectionTitle"));
  box->addWidget(title);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("throughputCurve"));
  plot_->setMinimumHeight(240);
  plot_->setAntialiasedElements(QCP::aeAll);
  plot_->xAxis->setLabel(tr("Interactivity: UTPS (tokens/s per user)"));
  plot_->yAxis->setLabel(tr("Throughput: STPS (tokens/s, system)"));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->legend->setVisible(true);
  plot_->legend->setFont(font());
  // The legend sits in its own row above the axes: inside them it would hide points.
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setMargins(QMargins(4, 2, 4, 0));
  box->addWidget(plot_, 1);
  attachExportMenu(plot_, QStringLiteral("throughput-vs-interactivity"));
  // Only an invalid design has no curve: say what to do instead of drawing empty axes.
  setPlotHint(plot_, tr("The design is not valid: fix the fields marked in red on the left to "
                        "see its throughput against interactivity"));
}

void ThroughputPlot::clear() {
  plot_->clearPlottables();
  plot_->clearItems();
  points_ = 0;
  plot_->replot();
}

void ThroughputPlot::showDesign(const perf::Design& design, int currentBatch) {
  plot_->clearPlottables();
  plot_->clearItems();
  const int maxBatch = std::min(kMaxSweepBatch, perf::max_batch_that_fits(design));
  std::set<int> batches;
  for (int b = 1; b <= maxBatch; b *= 2) batches.insert(b);
  if (maxBatch >= 1) batches.insert(maxBatch);
  if (currentBatch >= 1) batches.insert(currentBatch);

  QVector<double> x, y;
  double curX = 0, curY = 0;
  perf::Design d = design;
  d.workload.batch_auto = false;
  // One evaluator for the whole sweep: the system's network model is built once, not per point.
  perf::Evaluator evaluator;
  for (int b : batches) {
    d.workload.batch = b;
    const perf::Result r = evaluator.evaluate(d);
    x.push_back(r.metrics.utps);
    y.push_back(r.metrics.stps);
    if (b == currentBatch) {
      curX = r.metrics.utps;
      curY = r.metrics.stps;
    }
  }
  points_ = static_cast<int>(x.size());

  // A parametric curve keeps batch order (a graph would sort the points by UTPS).
  auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
  curve->setName(tr("batch 1 … %1 (fits memory)").arg(maxBatch));
  curve->setData(x, y);
  curve->setPen(QPen(QColor(0x4C, 0x72, 0xB0), 2));
  curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0x4C, 0x72, 0xB0),
                                         palette().color(QPalette::Base), 7));

  auto* current = plot_->addGraph();
  current->setName(tr("current B=%1").arg(currentBatch));
  current->setLineStyle(QCPGraph::lsNone);
  current->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0xC4, 0x4E, 0x52), 12));
  current->setData(QVector<double>{curX}, QVector<double>{curY});

  plot_->rescaleAxes();
  // Headroom so the end labels are not clipped by the axis rect.
  auto pad = [](QCPAxis* a, double lo, double hi) {
    const QCPRange r = a->range();
    const double span = r.size() > 0 ? r.size() : std::max(1.0, std::abs(r.upper));
    a->setRange(std::max(0.0, r.lower - lo * span), r.upper + hi * span);
  };
  pad(plot_->xAxis, 0.05, 0.18);
  pad(plot_->yAxis, 0.05, 0.15);
  // Label points with their batch, skipping ones that would overlap a label already placed
  // (small batches bunch up at high UTPS); the current and the largest batch always get one.
  // Crowding is judged in fractions of the axis ranges, so it works before the first layout.
  const QCPRange xr = plot_->xAxis->range(), yr = plot_->yAxis->range();
  std::vector<QPointF> placed;
  const std::vector<int> order(batches.rbegin(), batches.rend());
  std::vector<int> priority = {currentBatch, maxBatch};
  for (int b : order) priority.push_back(b);
  std::set<int> done;
  for (int b : priority) {
    if (b < 1 || !done.insert(b).second) continue;
    const auto idx = static_cast<int>(std::distance(batches.begin(), batches.find(b)));
    if (idx >= points_) continue;
    const QPointF px((x[idx] - xr.lower) / xr.size(), (y[idx] - yr.lower) / yr.size());
    const bool crowded = std::any_of(placed.begin(), placed.end(), [&](const QPointF& q) {
      return std::abs(q.x() - px.x()) < 0.12 && std::abs(q.y() - px.y()) < 0.07;
    });
    if (crowded) continue;
    placed.push_back(px);
    auto* label = new QCPItemText(plot_);
    label->position->setCoords(x[idx], y[idx]);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setText(QStringLiteral("  B=%1").arg(b));
    label->setColor(b == currentBatch ? QColor(0xC4, 0x4E, 0x52) : theme::quietInk());
    label->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  }
  plot_->replot();
}

}  // namespace stackscope::ui
