// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/breakdown_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHorizontalPercentBarSeries>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegendMarker>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include "stackscope/ui/format.hpp"

namespace stackscope::ui {

BreakdownChart::BreakdownChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("breakdownChart"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout();
  auto* label = new QLabel(tr("Time by bounding resource"), this);
  label->setObjectName(QStringLiteral("sectionTitle"));
  bar->addWidget(label);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Scale:"), this));
  mode_ = new QComboBox(this);
  mode_->setObjectName(QStringLiteral("breakdownMode"));
  mode_->addItem(tr("Share of phase time (%)"));
  mode_->addItem(tr("Time (ms)"));
  bar->addWidget(mode_);
  box->addLayout(bar);

  view_ = new QChartView(new QChart(), this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(240);
  box->addWidget(view_, 1);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  rebuild();
}

void BreakdownChart::showResult(const perf::Result& result) {
  result_ = result;
  hasResult_ = true;
  rebuild();
}

void BreakdownChart::clear() {
  hasResult_ = false;
  rebuild();
}

void BreakdownChart::rebuild() {
  auto* chart = new QChart();
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  const bool share = mode_->currentIndex() == 0;

  if (!hasResult_) {
    chart->setTitle(tr("No result: the design is not valid"));
    view_->setChart(chart);  // the view owns and deletes the previous chart
    return;
  }

  QAbstractBarSeries* series =
      share ? static_cast<QAbstractBarSeries*>(new QHorizontalPercentBarSeries())
            : static_cast<QAbstractBarSeries*>(new QHorizontalStackedBarSeries());
  // Category order bottom-to-top in a horizontal chart: decode first puts prefill on top.
  for (std::size_t i = 0; i < perf::kResources; ++i) {
    const auto res = static_cast<perf::Resource>(i);
    const double pre = result_.prefill.resource_s[i] * 1e3;
    const double dec = result_.decode.resource_s[i] * 1e3;
    if (pre <= 0 && dec <= 0) continue;
    auto* set = new QBarSet(resourceLabel(res));
    set->setColor(resourceColor(res));
    set->setBorderColor(resourceColor(res).darker(115));
    *set << dec << pre;
    connect(set, &QBarSet::hovered, view_, [res, pre, dec](bool on, int index) {
      if (!on) {
        QToolTip::hideText();
        return;
      }
      const double v = index == 0 ? dec : pre;
      QToolTip::showText(QCursor::pos(),
                         QStringLiteral("%1: %2 ms").arg(resourceLabel(res), readable(v)));
    });
    series->append(set);
  }
  series->setBarWidth(0.6);
  chart->addSeries(series);

  auto* phases = new QBarCategoryAxis();
  phases->append({tr("Decode step\n%1 ms").arg(readable(result_.decode.time_s * 1e3)),
                  tr("Prefill pass\n%1 ms").arg(readable(result_.prefill.time_s * 1e3))});
  phases->setTitleText(tr("Phase (wall time)"));
  chart->addAxis(phases, Qt::AlignLeft);
  series->attachAxis(phases);

  auto* value = new QValueAxis();
  if (share) {
    value->setRange(0, 100);
    value->setTickCount(6);
    value->setLabelFormat(QStringLiteral("%.0f %%"));
    value->setTitleText(tr("Share of the phase's resource-bound time (%)"));
  } else {
    value->setTitleText(tr("Time (ms)"));
  }
  chart->addAxis(value, Qt::AlignBottom);
  series->attachAxis(value);
  if (!share) {
    value->applyNiceNumbers();
    // printf formats only: pick decimals from the range ("%.3g" would print 2e+03).
    const double top = value->max();
    value->setLabelFormat(top >= 100 ? QStringLiteral("%.0f")
                          : top >= 1 ? QStringLiteral("%.1f")
                                     : QStringLiteral("%.3f"));
  }
  view_->setChart(chart);
}

}  // namespace stackscope::ui
