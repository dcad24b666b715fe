// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/thermal_view.hpp"

#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QSplitter>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>

#include "stackscope/memory/dram.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "temperature_map.hpp"

namespace stackscope::ui {
namespace {

// DRAM limits (docs/model.md §14.3): refresh doubles above 85 C; above 95 C the design is throttled
// (or infeasible without throttling).
constexpr double kRefreshC = memory::kRefreshDoublingC;
constexpr double kLimitC = memory::kDramLimitC;

// 48 x 48 cells: ~0.1 s for an 8-high stack, fine enough to show core and channel blocks.
constexpr int kGrid = 48;

QString roleName(perf::LayerRole r) {
  switch (r) {
    case perf::LayerRole::logic: return QObject::tr("logic die");
    case perf::LayerRole::bond: return QObject::tr("bond");
    case perf::LayerRole::dram: return QObject::tr("DRAM die");
    case perf::LayerRole::tim: return QObject::tr("TIM");
  }
  return {};
}

}  // namespace

ThermalView::ThermalView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("thermalView"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout();
  auto* title = new QLabel(tr("Temperature of the die stack (steady decode)"), this);
  title->setObjectName(QStringLiteral("sectionTitle"));
  top->addWidget(title, 1);
  top->addWidget(new QLabel(tr("Layer:"), this));
  layer_ = new QComboBox(this);
  layer_->setObjectName(QStringLiteral("thermalLayer"));
  layer_->setToolTip(
      tr("Stack layer to show, from the logic die (bottom) up to the TIM under "
         "the heat spreader"));
  layer_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  top->addWidget(layer_);
  box->addLayout(top);
  stats_ = new QLabel(this);
  stats_->setObjectName(QStringLiteral("thermalStats"));
  stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->addWidget(stats_);

  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(260);
  plot_->xAxis->setLabel(tr("x (mm)"));
  plot_->yAxis->setLabel(tr("y (mm)"));
  const detail::TemperatureMap t = detail::addTemperatureMap(plot_, 0);
  map_ = t.map;
  scale_ = t.scale;
  attachExportMenu(plot_, QStringLiteral("thermal"));
  // The cross-section beside the map: every layer's hottest and mean temperature, bottom of the
  // stack at the bottom, against the DRAM limits (85 °C normal, 95 °C extended: JEDEC JESD79
  // and JESD235 refresh ranges).
  profile_ = new QCustomPlot(this);
  profile_->setObjectName(QStringLiteral("thermalProfile"));
  profile_->setMinimumWidth(220);
  profile_->xAxis->setLabel(tr("Temperature (°C)"));
  profile_->plotLayout()->insertRow(0);
  profile_->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(profile_, tr("By layer (cross-section)"),
                         QFont(font().family(), font().pointSize(), QFont::Bold)));
  // The legend under the axes, in one row (inside it would cover the bottom layers' bars).
  profile_->plotLayout()->addElement(2, 0, profile_->legend);
  profile_->plotLayout()->setRowStretchFactor(2, 0.001);
  profile_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  profile_->legend->setBorderPen(Qt::NoPen);
  attachExportMenu(profile_, QStringLiteral("thermal-layers"));
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setChildrenCollapsible(false);
  split->addWidget(plot_);
  split->addWidget(profile_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  box->addWidget(split, 1);

  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("hint"));
  note_->setWordWrap(true);
  box->addWidget(note_);

  connect(layer_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) showLayer(layer_->itemData(i).toInt());
  });
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<Solved>>::finished, this,
          &ThermalView::onFinished);
  clear();
}

ThermalView::~ThermalView() {
  watcher_.waitForFinished();
}

void ThermalView::clear() {
  solved_.reset();
  layer_->clear();
  map_->data()->clear();
  stats_->setText(tr("No result: the design is not valid"));
  statsWithoutTime_.clear();
  note_->clear();
  setPlotHint(plot_, tr("The design is not valid: fix the fields marked in red on the left to "
                        "see the temperature of its die stack"));
  plot_->replot();
  profile_->clearPlottables();
  profile_->clearItems();
  profile_->replot();
}

void ThermalView::showDesign(const perf::Design& design, const perf::Result& result) {
  const int gen = ++generation_;
  pending_generation_ = gen;
  stats_->setText(tr("Solving the thermal grid…"));
  statsWithoutTime_.clear();
  setPlotHint(plot_, tr("Solving the thermal grid… the temperature map of each layer appears "
                        "here"));
  // Value copies cross to the worker; nothing of the UI does.
  auto job = [design, result]() {
    auto s = std::make_shared<Solved>();
    s->design = perf::thermal_model(design, result);
    thermal::GridOptions opt;
    opt.rows = opt.cols = kGrid;
    s->solution = thermal::solve_steady(s->design.stack, s->design.power, opt);
    s->compact = result.thermal.modelled;
    s->compact_dram_C = result.thermal.dram_peak_C;
    return s;
  };
  watcher_.setFuture(QtConcurrent::run(job));
}

void ThermalView::waitForIdle() {
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
  if (pending_generation_ != 0 && watcher_.isFinished() && solved_ == nullptr) onFinished();
}

void ThermalView::onFinished() {
  if (!watcher_.isFinished() || watcher_.future().resultCount() == 0) return;
  std::shared_ptr<Solved> s;
  try {
    s = watcher_.result();
  } catch (const std::exception& e) {
    stats_->setText(tr("Thermal solve failed: %1").arg(QString::fromLocal8Bit(e.what())));
    statsWithoutTime_.clear();
    return;
  }
  if (pending_generation_ != generation_) return;  // a newer design is being solved
  const int previous = layer_->currentIndex() >= 0 ? layer_->currentData().toInt() : -1;
  solved_ = std::move(s);
  const auto& td = solved_->design;
  const auto& sol = solved_->solution;
  QSignalBlocker block(layer_);
  layer_->clear();
  for (std::size_t l = 0; l < sol.layers.size(); ++l) {
    const auto role = l < td.roles.size() ? td.roles[l] : perf::LayerRole::tim;
    layer_->addItem(tr("%1 — %2 (max %3 °C)")
                        .arg(QString::fromStdString(sol.layers[l].name), roleName(role))
                        .arg(sol.layers[l].max_C, 0, 'f', 1),
                    static_cast<int>(l));
  }
  // Default: the hottest DRAM die (the one the 85/95 C limits apply to), else the logic die.
  int show = perf::hottest_layer(td, sol, perf::LayerRole::dram);
  if (show < 0) show = 0;
  if (previous >= 0 && previous < layer_->count()) show = previous;
  layer_->setCurrentIndex(show);
  showLayer(show);
  drawProfile();
  emit solved();
}

void ThermalView::drawProfile() {
  profile_->clearPlottables();
  profile_->clearItems();
  if (!solved_) return;
  const auto& td = solved_->design;
  const auto& layers = solved_->solution.layers;
  const int n = static_cast<int>(layers.size());
  QVector<double> pos, maxC, meanC;
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  double lo = 1e300, hi = -1e300;
  bool dram = false;
  // A stack whose DRAM dies differ in thickness (a per-layer stack) labels each die with it.
  double thin = 1e300, thick = 0;
  for (std::size_t l = 0; l < td.roles.size() && l < td.stack.layers.size(); ++l)
    if (td.roles[l] == perf::LayerRole::dram) {
      thin = std::min(thin, td.stack.layers[l].thickness_m);
      thick = std::max(thick, td.stack.layers[l].thickness_m);
    }
  const bool showThickness = thick > thin;
  for (int l = 0; l < n; ++l) {
    pos << l;
    maxC << layers[static_cast<std::size_t>(l)].max_C;
    meanC << layers[static_cast<std::size_t>(l)].mean_C;
    QString tick = QString::fromStdString(layers[static_cast<std::size_t>(l)].name);
    if (showThickness && static_cast<std::size_t>(l) < td.roles.size() &&
        td.roles[static_cast<std::size_t>(l)] == perf::LayerRole::dram)
      tick += tr(" · %1 µm")
                  .arg(td.stack.layers[static_cast<std::size_t>(l)].thickness_m * 1e6, 0, 'g', 4);
    ticks->addTick(l, tick);
    lo = std::min(lo, layers[static_cast<std::size_t>(l)].min_C);
    hi = std::max(hi, layers[static_cast<std::size_t>(l)].max_C);
    const auto k = static_cast<std::size_t>(l);
    dram |= k < td.roles.size() && td.roles[k] == perf::LayerRole::dram;
  }
  auto* bars = new QCPBars(profile_->yAxis, profile_->xAxis);  // horizontal bars
  bars->setName(tr("hottest"));
  bars->setData(pos, maxC, true);
  bars->setWidth(0.7);
  bars->setBaseValue(0);
  const QColor barColour(0x4c, 0x72, 0xb0), meanColour(0xdd, 0x84, 0x52);
  bars->setPen(Qt::NoPen);
  bars->setBrush(barColour);
  auto* mean = new QCPGraph(profile_->yAxis, profile_->xAxis);
  mean->setName(tr("mean"));
  mean->setData(pos, meanC, true);
  mean->setLineStyle(QCPGraph::lsNone);
  mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, meanColour, meanColour, 8));
  if (dram) {
    for (const double limit : {85.0, 95.0}) {
      auto* line = new QCPItemStraightLine(profile_);
      line->point1->setCoords(limit, 0);
      line->point2->setCoords(limit, 1);
      line->setPen(QPen(limit < 90 ? QColor(0xd0, 0x8c, 0x00) : QColor(0xc0, 0x39, 0x2b), 1,
                        Qt::DashLine));
    }
    hi = std::max(hi, 95.0);
  }
  profile_->yAxis->setTicker(ticks);
  profile_->yAxis->setRange(-0.6, n - 0.4);
  const double pad = std::max(1.0, 0.05 * (hi - std::min(lo, hi)));
  profile_->xAxis->setRange(std::max(0.0, lo - 5 * pad), hi + pad);
  profile_->legend->setVisible(true);
  profile_->replot();
}

int ThermalView::currentLayer() const {
  return layer_->currentIndex();
}

// The whole die, drawn to scale: the axes span the die exactly, and the room the plot has to
// spare in one direction becomes margin around the axis rectangle (so the axes never run far
// past the die into empty millimetres).
void ThermalView::fitDie() {
  if (die_w_mm_ <= 0 || die_h_mm_ <= 0) return;
  QCPAxisRect* ar = plot_->axisRect();
  plot_->xAxis->setRange(0, die_w_mm_);
  plot_->yAxis->setRange(0, die_h_mm_);
  plot_->xAxis2->setRange(plot_->xAxis->range());
  plot_->yAxis2->setRange(plot_->yAxis->range());
  // Lay out with the labels' own margins first, then pad the longer side.
  ar->setMinimumMargins(QMargins(0, 0, 0, 0));
  plot_->replot(QCustomPlot::rpImmediateRefresh);
  const QRect r = ar->rect();
  const QMargins m = ar->margins();
  if (r.width() > 0 && r.height() > 0) {
    const double per_mm = std::min(r.width() / die_w_mm_, r.height() / die_h_mm_);
    const int pad_x = static_cast<int>((r.width() - die_w_mm_ * per_mm) / 2);
    const int pad_y = static_cast<int>((r.height() - die_h_mm_ * per_mm) / 2);
    ar->setMinimumMargins(QMargins(m.left() + pad_x, m.top() + pad_y, m.right() + pad_x,
                                   m.bottom() + pad_y));
  }
  plot_->replot();
}

void ThermalView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitDie();
}

const thermal::Solution* ThermalView::solution() const {
  return solved_ ? &solved_->solution : nullptr;
}

void ThermalView::showLayer(int layer) {
  if (!solved_) return;
  const auto& td = solved_->design;
  const auto& sol = solved_->solution;
  if (layer < 0 || static_cast<std::size_t>(layer) >= sol.temperature_C.size()) return;
  const auto& t = sol.temperature_C[static_cast<std::size_t>(layer)];
  const double w_mm = td.stack.chip_width_m * 1e3, h_mm = td.stack.chip_height_m * 1e3;
  map_->data()->setSize(sol.cols, sol.rows);
  // Cell centres: row 0 at the bottom (y = 0).
  map_->data()->setRange(QCPRange(0.5 * w_mm / sol.cols, w_mm - 0.5 * w_mm / sol.cols),
                         QCPRange(0.5 * h_mm / sol.rows, h_mm - 0.5 * h_mm / sol.rows));
  int hot = 0;
  for (int r = 0; r < sol.rows; ++r)
    for (int c = 0; c < sol.cols; ++c) {
      const int i = r * sol.cols + c;
      map_->data()->setCell(c, r, t[static_cast<std::size_t>(i)]);
      if (t[static_cast<std::size_t>(i)] > t[static_cast<std::size_t>(hot)]) hot = i;
    }
  // One colour range for every layer of the stack, widened to show the DRAM limits: layers can
  // be compared by colour and a cool stack looks cool.
  double lo = 1e300, hi = -1e300;
  for (const auto& ls : sol.layers) {
    lo = std::min(lo, ls.min_C);
    hi = std::max(hi, ls.max_C);
  }
  const bool dram = td.dram_layers > 0;
  if (dram) hi = std::max(hi, kLimitC + 2.0);
  map_->setDataRange(QCPRange(std::floor(lo), std::ceil(hi)));
  // Ticks of the scale: a few round values plus the labelled limits.
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  // About five round steps (1, 2 or 5 x 10^k) over the range.
  const double span = std::max(1e-6, std::ceil(hi) - std::floor(lo));
  const double raw = span / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5   ? mag
                      : raw / mag < 3.5 ? 2 * mag
                      : raw / mag < 7.5 ? 5 * mag
                                        : 10 * mag;
  for (double v = std::ceil(lo / step) * step; v <= hi; v += step)
    if (!dram || (std::abs(v - kRefreshC) > step / 3 && std::abs(v - kLimitC) > step / 3))
      ticker->addTick(v, QString::number(v, 'f', step < 1 ? 1 : 0));
  if (dram) {
    ticker->addTick(kRefreshC, tr("85 refresh ×2"));
    ticker->addTick(kLimitC, tr("95 limit"));
  }
  scale_->axis()->setTicker(ticker);

  // Floorplan outlines and the hottest cell.
  plot_->clearItems();
  const auto& ly = td.stack.layers[static_cast<std::size_t>(layer)];
  if (ly.floorplan >= 0 && static_cast<std::size_t>(ly.floorplan) < td.stack.floorplans.size()) {
    const auto& blocks = td.stack.floorplans[static_cast<std::size_t>(ly.floorplan)].blocks;
    if (blocks.size() <= 400) {
      for (const auto& b : blocks) {
        auto* rect = new QCPItemRect(plot_);
        rect->topLeft->setCoords(b.x_m * 1e3, (b.y_m + b.height_m) * 1e3);
        rect->bottomRight->setCoords((b.x_m + b.width_m) * 1e3, b.y_m * 1e3);
        rect->setPen(QPen(QColor(255, 255, 255, 90), 0.8));
        rect->setBrush(Qt::NoBrush);
      }
    }
  }
  const double hx = (hot % sol.cols + 0.5) * w_mm / sol.cols;
  const double hy = (hot / sol.cols + 0.5) * h_mm / sol.rows;
  auto* mark = new QCPItemEllipse(plot_);
  const double rx = 0.04 * w_mm, ry = 0.04 * h_mm;
  mark->topLeft->setCoords(hx - rx, hy + ry);
  mark->bottomRight->setCoords(hx + rx, hy - ry);
  mark->setPen(QPen(Qt::white, 2.0));
  detail::addHottestLabel(plot_, hx, hy + 1.6 * ry, Qt::AlignHCenter | Qt::AlignBottom,
                          tr("hottest %1 °C").arg(t[static_cast<std::size_t>(hot)], 0, 'f', 1),
                          font());

  die_w_mm_ = w_mm;
  die_h_mm_ = h_mm;
  fitDie();

  const auto& st = sol.layers[static_cast<std::size_t>(layer)];
  statsWithoutTime_ = tr("%1: max %2 °C · mean %3 °C · min %4 °C · %5 W in the stack")
                          .arg(QString::fromStdString(st.name))
                          .arg(st.max_C, 0, 'f', 1)
                          .arg(st.mean_C, 0, 'f', 1)
                          .arg(st.min_C, 0, 'f', 1)
                          .arg(sol.total_power_W, 0, 'f', 1);
  stats_->setText(statsWithoutTime_ +
                  tr(" · solved in %1 ms").arg(sol.solve_seconds * 1e3, 0, 'f', 0));
  if (dram) {
    note_->setText(tr("DRAM limits: above 85 °C the DRAM refreshes twice as often; at 95 °C the "
                      "design is throttled (or infeasible). Grid %1 × %2; the compact model of "
                      "the search says %3 °C at the DRAM peak.")
                       .arg(sol.cols)
                       .arg(sol.rows)
                       .arg(solved_->compact_dram_C, 0, 'f', 1));
  } else {
    note_->setText(
        tr("The DRAM of this design sits beside the die (HBM on an interposer) or is "
           "absent: the stack is the logic die and its TIM, and the 85/95 °C DRAM "
           "limits do not apply here."));
  }
}

ReviewSection ThermalView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Thermal");
  s.missing = tr("No thermal solution for this design.");
  if (!hasSolution()) return s;
  s.figures << plot_ << profile_;
  // The stats line without its solve time, so that the same design gives the same review.
  if (!statsWithoutTime_.isEmpty()) s.paragraphs << statsWithoutTime_;
  if (const QString t = plainText(note_); !t.isEmpty()) s.paragraphs << t;
  return s;
}

}  // namespace stackscope::ui
