// SPDX-License-Identifier: GPL-3.0-or-later
#include "wafer_heat_map.hpp"

#include <qcustomplot.h>

#include <QEvent>
#include <QLabel>
#include <QStackedLayout>
#include <algorithm>
#include <cmath>

#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/theme.hpp"
#include "temperature_map.hpp"

namespace stackscope::ui {

WaferHeatMap::WaferHeatMap(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("waferHeatMap"));
  auto* stack = new QStackedLayout(this);
  stack->setContentsMargins(0, 0, 0, 0);
  empty_ = new QLabel(this);
  empty_->setObjectName(QStringLiteral("waferHeatMapEmpty"));
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setMargin(16);
  stack->addWidget(empty_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("waferHeatMapPlot"));
  plot_->setMinimumHeight(260);
  plot_->plotLayout()->insertRow(0);
  title_ =
      new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);
  plot_->xAxis->setLabel(tr("x on the wafer (mm)"));
  plot_->yAxis->setLabel(tr("y on the wafer (mm)"));
  const detail::TemperatureMap t = detail::addTemperatureMap(plot_, 1);
  colours_ = t.map;
  scale_ = t.scale;
  attachExportMenu(plot_, QStringLiteral("wafer-temperature"));
  stack->addWidget(plot_);
  show(nullptr);
}

void WaferHeatMap::show(std::shared_ptr<const wafer::WaferThermalMap> map, QString empty) {
  map_ = std::move(map);
  auto* stack = static_cast<QStackedLayout*>(layout());
  if (!map_) {
    empty_->setText(empty.isEmpty() ? tr("Run the wafer to see its temperature map: each die's "
                                         "mean power over the run on the wafer's die grid.")
                                    : empty);
    stack->setCurrentWidget(empty_);
    return;
  }
  empty_->clear();
  stack->setCurrentWidget(plot_);
  draw();
}

QString WaferHeatMap::title() const {
  return map_ ? title_->text() : QString();
}

QString WaferHeatMap::emptyText() const {
  return map_ ? QString() : empty_->text();
}

void WaferHeatMap::draw() {
  theme::stylePlot(plot_);
  title_->setTextColor(theme::ink());
  plot_->clearItems();
  if (!map_) {
    plot_->replot();
    return;
  }
  const auto& m = *map_;
  colours_->data()->setSize(m.cols, m.rows);
  // Cell centres: row 0 at the bottom (y = 0), as the solver and the die grid number them.
  colours_->data()->setRange(
      QCPRange(0.5 * m.width_mm / m.cols, m.width_mm - 0.5 * m.width_mm / m.cols),
      QCPRange(0.5 * m.height_mm / m.rows, m.height_mm - 0.5 * m.height_mm / m.rows));
  double lo = 1e300, hi = -1e300;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const double t = m.temperature_C[static_cast<std::size_t>(r * m.cols + c)];
      colours_->data()->setCell(c, r, t);
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
  // Whole degrees at both ends, at least one degree apart (a uniform map still has a scale).
  lo = std::floor(lo);
  hi = std::max(lo + 1, std::ceil(hi));
  colours_->setDataRange(QCPRange(lo, hi));

  // The die grid: every die outlined (its edge DRAM strip, if any, is the gap to its east).
  const QColor outline(255, 255, 255, 190);
  for (int d = 0; d < m.dies_x * m.dies_y; ++d) {
    const double x = (d % m.dies_x) * m.tile_width_mm, y = (d / m.dies_x) * m.tile_height_mm;
    auto* rect = new QCPItemRect(plot_);
    rect->topLeft->setCoords(x, y + m.die_height_mm);
    rect->bottomRight->setCoords(x + m.die_width_mm, y);
    const bool hottest = d == m.hottest_die;
    rect->setPen(hottest ? QPen(Qt::white, 2.5) : QPen(outline, 1.0));
    rect->setBrush(Qt::NoBrush);
  }
  // The hottest die: named over its outline and in the title.
  const QString name = QString::fromStdString(wafer::die_name(m, m.hottest_die));
  if (m.hottest_die >= 0) {
    const double cx = (m.hottest_die % m.dies_x) * m.tile_width_mm + m.die_width_mm / 2;
    const double cy = (m.hottest_die / m.dies_x) * m.tile_height_mm + m.die_height_mm / 2;
    QFont smaller = font();
    smaller.setPointSize(font().pointSize() - 1);
    detail::addHottestLabel(plot_, cx, cy, Qt::AlignCenter,
                            tr("hottest\n%1 °C").arg(m.peak_C, 0, 'f', 1), smaller)
        ->setObjectName(QStringLiteral("waferHottestLabel"));
  }
  title_->setText(tr("Wafer temperature\nhottest: %1, %2 °C").arg(name).arg(m.peak_C, 0, 'f', 1));
  fit();
}

// The grid to scale: equal millimetres both ways, the room to spare in one direction as margin
// around the axis rectangle (so the axes never run past the wafer into empty millimetres).
void WaferHeatMap::fit() {
  if (!map_ || map_->width_mm <= 0 || map_->height_mm <= 0) return;
  const double w = map_->width_mm, h = map_->height_mm;
  plot_->xAxis->setRange(0, w);
  plot_->yAxis->setRange(0, h);
  plot_->xAxis2->setRange(plot_->xAxis->range());
  plot_->yAxis2->setRange(plot_->yAxis->range());
  QCPAxisRect* ar = plot_->axisRect();
  ar->setMinimumMargins(QMargins(0, 0, 0, 0));
  plot_->replot(QCustomPlot::rpImmediateRefresh);
  const QRect r = ar->rect();
  const QMargins mg = ar->margins();
  if (r.width() > 0 && r.height() > 0) {
    const double per_mm = std::min(r.width() / w, r.height() / h);
    const int pad_x = static_cast<int>((r.width() - w * per_mm) / 2);
    const int pad_y = static_cast<int>((r.height() - h * per_mm) / 2);
    // The spare width goes to the left, so the colour scale stays beside the map, and the spare
    // height below, so the map stays under its title.
    ar->setMinimumMargins(
        QMargins(mg.left() + 2 * pad_x, mg.top(), mg.right(), mg.bottom() + 2 * pad_y));
  }
  plot_->replot();
}

void WaferHeatMap::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fit();
}

void WaferHeatMap::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange && plot_ != nullptr && map_) draw();
}

}  // namespace stackscope::ui
