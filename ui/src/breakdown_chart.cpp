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
#include <algorithm>
#include <iterator>
#include <vector>

#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {

BreakdownChart::BreakdownChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("breakdownChart"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout();
  title_ = new QLabel(tr("Time by bounding resource"), this);
  title_->setObjectName(QStringLiteral("sectionTitle"));
  bar->addWidget(title_);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Scale:"), this));
  mode_ = new QComboBox(this);
  mode_->setObjectName(QStringLiteral("breakdownMode"));
  mode_->addItem(tr("Share of phase time (%)"));
  mode_->addItem(tr("Time (ms)"));
  mode_->addItem(tr("Decode power by component (W)"));
  mode_->addItem(tr("Die area (mm²)"));
  mode_->addItem(tr("Share of phase time by operator (%)"));
  mode_->addItem(tr("Time by operator (ms)"));
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
  const int mode = mode_->currentIndex();
  const bool share = mode == 0 || mode == 4;
  const bool by_op = mode >= 4;
  title_->setText(mode == 2   ? tr("Decode power by component")
                  : mode == 3 ? tr("Die area by block")
                  : by_op     ? tr("Time by operator class")
                              : tr("Time by bounding resource"));

  if (!hasResult_) {
    theme::styleChart(chart);
    view_->setChart(chart);  // the view owns and deletes the previous chart
    showHint(view_, tr("The design is not valid: fix the fields marked in red on the left to "
                       "see where its time, power and area go"));
    return;
  }
  hideHint(view_);

  if (mode == 2 || mode == 3) {
    // One stacked bar: where the decode power goes, or what the die area holds.
    const bool power = mode == 2;
    auto* stack = new QHorizontalStackedBarSeries();
    const auto& p = result_.power;
    const auto& a = result_.area;
    const std::vector<std::pair<QString, double>> parts =
        power ? std::vector<std::pair<QString, double>>{{tr("Cores"), p.logic_dynamic_W},
                                                        {tr("Static"), p.logic_static_W},
                                                        {tr("NoC"), p.noc_W},
                                                        {tr("Vertical"), p.vertical_W},
                                                        {tr("DRAM"), p.dram_access_W},
                                                        {tr("Refresh"), p.dram_background_W}}
              : std::vector<std::pair<QString, double>>{
                    {tr("Cores"), a.cores},
                    {tr("SRAM"), a.shared_sram},
                    {tr("NoC"), a.noc},
                    {tr("PHYs"), a.phy},
                    {tr("Vertical"), a.vertical},
                    {tr("Uncore"), a.other},
                    {tr("Unused"), std::max(0.0, a.die - a.used)}};
    const QColor colours[] = {QColor(0x4C, 0x72, 0xB0), QColor(0x93, 0x78, 0x60),
                              QColor(0x81, 0x72, 0xB3), QColor(0x55, 0xA8, 0x68),
                              QColor(0xDD, 0x84, 0x52), QColor(0xCC, 0xB9, 0x74),
                              QColor(0xC8, 0xCE, 0xD6)};
    std::size_t k = 0;
    for (const auto& [name, v] : parts) {
      const QColor col = colours[k++ % std::size(colours)];
      if (!(v > 0)) continue;
      auto* set = new QBarSet(name);
      set->setColor(col);
      set->setBorderColor(col.darker(115));
      *set << v;
      const QString unit = power ? QStringLiteral("W") : QStringLiteral("mm²");
      connect(set, &QBarSet::hovered, view_, [name = name, v = v, unit](bool on, int) {
        if (on)
          QToolTip::showText(QCursor::pos(),
                             QStringLiteral("%1: %2 %3").arg(name, readable(v), unit));
        else
          QToolTip::hideText();
      });
      stack->append(set);
    }
    stack->setBarWidth(0.5);
    chart->addSeries(stack);
    auto* cat = new QBarCategoryAxis();
    cat->append(power ? tr("Decode\n%1 W").arg(readable(p.total_W))
                      : tr("Die %1 mm²\n(reticle %2)").arg(readable(a.die), readable(a.reticle)));
    chart->addAxis(cat, Qt::AlignLeft);
    stack->attachAxis(cat);
    auto* value = new QValueAxis();
    value->setTitleText(power ? tr("Power per device (W)") : tr("Area (mm²)"));
    value->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(value, Qt::AlignBottom);
    stack->attachAxis(value);
    value->applyNiceNumbers();
    theme::styleChart(chart);
    view_->setChart(chart);
    return;
  }

  QAbstractBarSeries* series =
      share ? static_cast<QAbstractBarSeries*>(new QHorizontalPercentBarSeries())
            : static_cast<QAbstractBarSeries*>(new QHorizontalStackedBarSeries());
  // Category order bottom-to-top in a horizontal chart: decode first puts prefill on top.
  // Segments: the time each resource bounds, or each operator class's time (its launch and,
  // for collectives, only the part left exposed after overlap).
  const std::size_t n = by_op ? perf::kOpClasses : perf::kResources;
  for (std::size_t i = 0; i < n; ++i) {
    const double pre = (by_op ? result_.prefill.op_s[i] : result_.prefill.resource_s[i]) * 1e3;
    const double dec = (by_op ? result_.decode.op_s[i] : result_.decode.resource_s[i]) * 1e3;
    if (pre <= 0 && dec <= 0) continue;
    const QString label = by_op ? opClassLabel(static_cast<perf::OpClass>(i))
                                : resourceLabel(static_cast<perf::Resource>(i));
    const QColor colour = by_op ? opClassColor(static_cast<perf::OpClass>(i))
                                : resourceColor(static_cast<perf::Resource>(i));
    // Twelve operator classes need the legend at the side, so their names stay short there.
    auto* set = new QBarSet(by_op ? opClassShortLabel(static_cast<perf::OpClass>(i)) : label);
    set->setColor(colour);
    set->setBorderColor(colour.darker(115));
    *set << dec << pre;
    connect(set, &QBarSet::hovered, view_, [label, pre, dec](bool on, int index) {
      if (!on) {
        QToolTip::hideText();
        return;
      }
      const double v = index == 0 ? dec : pre;
      QToolTip::showText(QCursor::pos(), QStringLiteral("%1: %2 ms").arg(label, readable(v)));
    });
    series->append(set);
  }
  series->setBarWidth(0.6);
  chart->addSeries(series);
  if (by_op) chart->legend()->setAlignment(Qt::AlignRight);

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
    value->setTitleText(by_op ? tr("Share of the phase's time (%)")
                              : tr("Share of the phase's resource-bound time (%)"));
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
  theme::styleChart(chart);
  view_->setChart(chart);
}

}  // namespace stackscope::ui
