// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/wafer_view.hpp"

#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"
#include "wafer_heat_map.hpp"
#include "wafer_map.hpp"

namespace stackscope::ui {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// The design as `serve` runs it: the static batch is not used (memory is checked per
// iteration).
perf::Design servingDesign(perf::Design d) {
  d.workload.batch_auto = false;
  d.workload.batch = 1;
  return d;
}

// The first `limit` requests of the spec's stream (0 = all).
std::vector<serving::Request> requestsOf(const serving::ServingSpec& spec, int limit) {
  auto reqs = io::serving_requests(spec);
  if (limit > 0 && reqs.size() > static_cast<std::size_t>(limit))
    reqs.resize(static_cast<std::size_t>(limit));
  return reqs;
}

// The knobs the sweep offers: the wafer's architecture (coexplore::knobs(), wafer target).
QStringList sweepKnobs() {
  QStringList k;
  for (const auto& knob : coexplore::knobs())
    if (knob.target == coexplore::KnobTarget::wafer) k << qs(std::string(knob.name));
  return k;
}

}  // namespace

WaferView::WaferView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("waferView"));
  pool_.setMaxThreadCount(1);
  auto* box = new QVBoxLayout(this);

  // The map and its run.
  auto* mapBox = new QGroupBox(tr("Dies and D2D links of one run"), this);
  auto* mb = new QVBoxLayout(mapBox);
  auto* top = new QHBoxLayout();
  runMap_ = new QPushButton(tr("Run wafer"), mapBox);
  runMap_->setObjectName(QStringLiteral("waferRunMap"));
  runMap_->setToolTip(
      tr("Partition the dies (the central scheduler, or the Serving tab's given "
         "prefill:decode split) and replay the Serving tab's requests on them"));
  stop_ = new QPushButton(tr("Stop"), mapBox);
  stop_->setEnabled(false);
  top->addWidget(runMap_);
  top->addWidget(stop_);
  mapSummary_ = new QLabel(mapBox);
  mapSummary_->setObjectName(QStringLiteral("waferSummary"));
  mapSummary_->setWordWrap(true);
  mapSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(mapSummary_, 1);
  mb->addLayout(top);
  // The dies by role on the left, their temperatures on the right: the same grid twice.
  auto* split = new QSplitter(Qt::Horizontal, mapBox);
  split->setChildrenCollapsible(false);
  mapWidget_ = new WaferMap(split);
  split->addWidget(mapWidget_);
  auto* heat = new QWidget(split);
  auto* hb = new QVBoxLayout(heat);
  hb->setContentsMargins(0, 0, 0, 0);
  heatMap_ = new WaferHeatMap(heat);
  hb->addWidget(heatMap_, 1);
  thermalSummary_ = new QLabel(heat);
  thermalSummary_->setObjectName(QStringLiteral("waferThermalSummary"));
  thermalSummary_->setWordWrap(true);
  thermalSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hb->addWidget(thermalSummary_);
  split->addWidget(heat);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  mb->addWidget(split, 1);
  box->addWidget(mapBox, 3);

  // The sweep.
  auto* sweepBox = new QGroupBox(tr("Co-exploration sweep of one wafer knob"), this);
  auto* sb = new QVBoxLayout(sweepBox);
  auto* form = new QHBoxLayout();
  knob_ = new QComboBox(sweepBox);
  knob_->setObjectName(QStringLiteral("waferSweepKnob"));
  knob_->addItems(sweepKnobs());
  knob_->setCurrentText(QStringLiteral("dram_GB"));
  for (int i = 0; i < knob_->count(); ++i)
    if (const auto* k = coexplore::find_knob(knob_->itemText(i).toStdString()))
      knob_->setItemData(i,
                         qs(std::string(k->description)) + QStringLiteral(" (") +
                             qs(std::string(k->unit)) + QStringLiteral(")"),
                         Qt::ToolTipRole);
  values_ = new QLineEdit(QStringLiteral("16, 24, 32, 48, 64, 96, 128, 192"), sweepBox);
  values_->setObjectName(QStringLiteral("waferSweepValues"));
  values_->setToolTip(tr("Values of the knob, comma-separated, in its unit"));
  load_ = new QDoubleSpinBox(sweepBox);
  load_->setObjectName(QStringLiteral("waferSweepLoad"));
  load_->setRange(0.001, 1000);
  load_->setDecimals(2);
  load_->setValue(1);
  load_->setSuffix(QStringLiteral(" ×"));
  load_->setToolTip(tr("Arrival rate multiplier of the request stream (2 = twice as fast)"));
  requests_ = new QSpinBox(sweepBox);
  requests_->setObjectName(QStringLiteral("waferSweepRequests"));
  requests_->setRange(0, 100'000'000);
  requests_->setSpecialValueText(tr("all"));
  requests_->setValue(0);
  requests_->setToolTip(tr("Only the first N requests of the stream (quicker sweeps); all = 0"));
  runSweep_ = new QPushButton(tr("Run sweep"), sweepBox);
  runSweep_->setObjectName(QStringLiteral("waferRunSweep"));
  export_ = new QPushButton(tr("Export CSV…"), sweepBox);
  export_->setObjectName(QStringLiteral("waferExportCsv"));
  export_->setEnabled(false);
  form->addWidget(new QLabel(tr("Knob"), sweepBox));
  form->addWidget(knob_);
  form->addWidget(new QLabel(tr("Values"), sweepBox));
  form->addWidget(values_, 1);
  form->addWidget(new QLabel(tr("Load"), sweepBox));
  form->addWidget(load_);
  form->addWidget(new QLabel(tr("Requests"), sweepBox));
  form->addWidget(requests_);
  form->addWidget(runSweep_);
  form->addWidget(export_);
  sb->addLayout(form);
  error_ = new QLabel(sweepBox);
  error_->setObjectName(QStringLiteral("waferError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
  sb->addWidget(error_);
  plot_ = new QCustomPlot(sweepBox);
  plot_->setObjectName(QStringLiteral("waferSweepPlot"));
  plot_->setMinimumHeight(260);
  theme::stylePlot(plot_);
  sb->addWidget(plot_, 1);
  sweepSummary_ = new QLabel(sweepBox);
  sweepSummary_->setObjectName(QStringLiteral("waferSweepSummary"));
  sweepSummary_->setWordWrap(true);
  sweepSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  sb->addWidget(sweepSummary_);
  box->addWidget(sweepBox, 2);

  connect(runMap_, &QPushButton::clicked, this, [this] { runMap(); });
  connect(runSweep_, &QPushButton::clicked, this, [this] { runSweep(); });
  connect(stop_, &QPushButton::clicked, this, &WaferView::stop);
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(
        this, tr("Export sweep"), QStringLiteral("wafer-sweep.csv"), tr("CSV (*.csv)"));
    if (file.isEmpty()) return;
    try {
      io::save_text_atomic(file.toStdString(), sweepCsv().toStdString());
    } catch (const std::exception& e) {
      error_->setText(tr("Export failed: %1").arg(qs(e.what())));
    }
  });
  connect(&mapWatcher_, &QFutureWatcher<std::shared_ptr<const MapOutcome>>::finished, this,
          &WaferView::showMap);
  connect(&sweepWatcher_, &QFutureWatcher<std::shared_ptr<const SweepOutcome>>::finished, this,
          &WaferView::showSweep);
  drawSweep();
}

WaferView::~WaferView() {
  stopMap_.request_stop();
  stopSweep_.request_stop();
  pool_.waitForDone();
}

void WaferView::setDocument(ConfigDocument* doc) {
  doc_ = doc ? doc : &own_;
}

void WaferView::setDesign(const perf::Design& design) {
  // A run shown for another design (or none) would describe inputs that are gone: the map says
  // what this design has and how to see it. The same design again (a re-evaluation with nothing
  // changed, a theme switch) keeps the run on show.
  if (map_ && !mapDesign_.empty() && io::project_to_json(design) == mapDesign_) return;
  design_ = design;
  map_.reset();
  thermalSummary_->clear();
  if (!design.wafer) {
    mapWidget_->show(nullptr, 0,
                     tr("This design has no wafer. Load a wafer project (e.g. "
                        "llama-3-70b-wafer-serving) to see its dies and D2D links."));
    heatMap_->show(nullptr, tr("This design has no wafer: the temperature map is for wafer "
                               "projects (the Thermal tab solves one device's stack)."));
    mapSummary_->clear();
    return;
  }
  heatMap_->show(nullptr,
                 tr("Run wafer: the temperature map of its %1 dies follows, each die at its "
                    "mean power over the run.")
                     .arg(design.system.devices));
  mapWidget_->show(nullptr, 0,
                   tr("A wafer of %1 dies. Run wafer partitions them into prefill and decode "
                      "instances and replays the Serving tab's requests on them: the dies by "
                      "role and the D2D links by load appear here.")
                       .arg(design.system.devices));
  mapSummary_->clear();
}

void WaferView::clearDesign() {
  design_.reset();
  stop();
}

QString WaferView::error() const {
  return error_text_;
}

void WaferView::setSweep(const QString& knob, const QString& values, double load, int requests) {
  knob_->setCurrentText(knob);
  values_->setText(values);
  load_->setValue(load);
  requests_->setValue(requests);
}

bool WaferView::runMap() {
  const auto fail = [&](const QString& e) {
    error_text_ = e;
    mapSummary_->setText(e);
    return false;
  };
  if (!design_ || !design_->wafer) return fail(tr("The design has no wafer"));
  mapDesign_ = io::project_to_json(*design_);  // what the run about to start is of
  const perf::Design d = servingDesign(*design_);
  const serving::ServingSpec spec = doc_->serving();
  if (const auto issues = serving::validate(spec); !issues.empty())
    return fail(qs(format_issue(issues.front())));
  stopMap_.request_stop();
  stopMap_ = std::stop_source();
  const std::stop_token stop = stopMap_.get_token();
  const int limit = requests_->value();
  error_text_.clear();
  stop_->setEnabled(true);
  mapSummary_->setText(tr("Partitioning the wafer and replaying the requests…"));
  mapWatcher_.setFuture(QtConcurrent::run(&pool_, [d, spec, stop, limit] {
    auto o = std::make_shared<MapOutcome>();
    o->design = d;
    try {
      // The serve operation (runs/serve.hpp) on the first `limit` requests: the project's
      // split, or the central scheduler's when it gives none.
      runs::ServeOptions so;
      so.central.threads = 1;  // this is already the view's worker thread
      runs::ServeRun served = runs::serve(d, spec, requestsOf(spec, limit), so, {}, stop);
      if (!served.wafer)
        throw std::invalid_argument(served.stopped ? "stopped before a partition was chosen"
                                                   : "the design has no wafer");
      o->partition = served.partition;
      o->run = std::move(*served.wafer);
      o->text = qs(served.partition_text);
      // The temperature map of the dies' mean powers: a fraction of a second beside the run.
      try {
        o->thermal = std::make_shared<const wafer::WaferThermalMap>(
            wafer::wafer_thermal_map(d, o->run));
      } catch (const std::exception& e) {
        o->thermalError = qs(e.what());
      }
    } catch (const std::exception& e) {
      o->error = qs(e.what());
    }
    return std::shared_ptr<const MapOutcome>(std::move(o));
  }));
  return true;
}

void WaferView::showMap() {
  stop_->setEnabled(sweepWatcher_.isRunning());
  auto o = mapWatcher_.result();
  if (!o->error.isEmpty()) {
    error_text_ = o->error;
    mapSummary_->setText(tr("No run: %1").arg(o->error));
    map_.reset();
    mapWidget_->show(nullptr, 0, o->error);
    heatMap_->show(nullptr, tr("No temperature map: the wafer run failed (%1).").arg(o->error));
    thermalSummary_->clear();
    emit mapFinished();
    return;
  }
  map_ = o;
  const auto& r = o->run.result;
  const auto& l = o->run.wafer.layout;
  double busiest = 0;
  for (const double u : o->run.link_utilisation) busiest = std::max(busiest, u);
  mapSummary_->setText(
      tr("%1 × %2 dies (%3 usable), %4. Goodput %5 req/s (%6 % of all requests within the SLOs), "
         "TTFT p90 %7 s, TPOT p90 %8 ms, wafer %9 kW (%10 req/s per kW); KV moved %11 GB, busiest D2D link "
         "%12 % of the run.")
          .arg(l.dies_x)
          .arg(l.dies_y)
          .arg(l.usable_dies)
          .arg(o->text)
          .arg(r.goodput_rps, 0, 'f', 2)
          .arg(100 * r.slo_attainment, 0, 'f', 1)
          .arg(r.ttft.p90, 0, 'f', 3)
          .arg(1e3 * r.tpot.p90, 0, 'f', 1)
          .arg(o->run.power_W / 1e3, 0, 'f', 2)
          .arg(o->run.goodput_per_kW, 0, 'f', 2)
          .arg(r.kv_transfer_bytes / 1e9, 0, 'f', 1)
          .arg(100 * busiest, 0, 'f', 2));
  // The map holds the run alive through an aliasing pointer into the outcome.
  mapWidget_->show(std::shared_ptr<const wafer::WaferRun>(o, &o->run), o->partition.prefill);
  showThermal();
  emit mapFinished();
}

void WaferView::showThermal() {
  const wafer::WaferThermalMap* m = thermalMap();
  if (m == nullptr) {
    const QString why = map_ && !map_->thermalError.isEmpty() ? map_->thermalError
                                                              : tr("no wafer run");
    heatMap_->show(nullptr, tr("No temperature map: %1").arg(why));
    thermalSummary_->setText(tr("No temperature map: %1").arg(why));
    return;
  }
  heatMap_->show(map_->thermal);
  double coolest = m->peak_C;
  for (const double t : m->die_peak_C) coolest = std::min(coolest, t);
  const auto hot = static_cast<std::size_t>(m->hottest_die);
  thermalSummary_->setText(
      tr("Hottest die: %1 at %2 °C (%3 W); coolest die peak %4 °C; ambient %5 °C. %6 kW from "
         "the dies' mean powers over the run, solved on a %7 × %8 grid. Cooling: a %9 mm "
         "copper cold plate at HotSpot's default heat-sink coefficient (%10 W/m²K, air): a "
         "liquid-cooled wafer runs cooler.")
          .arg(qs(wafer::die_name(*m, m->hottest_die)))
          .arg(m->peak_C, 0, 'f', 1)
          .arg(m->die_power_W[hot], 0, 'f', 0)
          .arg(coolest, 0, 'f', 1)
          .arg(m->ambient_C, 0, 'f', 0)
          .arg(m->total_power_W / 1e3, 0, 'f', 2)
          .arg(m->cols)
          .arg(m->rows)
          .arg(m->plate_side_m * 1e3, 0, 'f', 0)
          .arg(1.0 / (m->r_convec_K_per_W * m->plate_side_m * m->plate_side_m), 0, 'f', 0));
}

QWidget* WaferView::heatMap() const {
  return heatMap_;
}

QString WaferView::thermalSummary() const {
  return thermalSummary_->text();
}

bool WaferView::runSweep() {
  const auto fail = [&](const QString& e) {
    error_text_ = e;
    error_->setText(e);
    return false;
  };
  if (!design_ || !design_->wafer) return fail(tr("The design has no wafer"));
  coexplore::Space space;
  space.base.design = servingDesign(*design_);
  space.base.spec = doc_->serving();
  if (const auto issues = serving::validate(space.base.spec); !issues.empty())
    return fail(qs(format_issue(issues.front())));
  std::vector<double> values;
  for (const QString& part : values_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const double v = part.trimmed().toDouble(&ok);
    if (!ok) return fail(tr("Values: '%1' is not a number").arg(part.trimmed()));
    values.push_back(v);
  }
  if (values.empty()) return fail(tr("Values: give at least one, comma-separated"));
  space.axes = {{knob_->currentText().toStdString(), values}, {"load", {load_->value()}}};
  std::optional<coexplore::CompiledSpace> compiled;
  try {
    compiled.emplace(space);
  } catch (const ConfigError& e) {
    const Issue& i = e.issues().front();
    return fail(
        tr("Values: %1 (got %2; allowed %3)").arg(qs(i.message), qs(i.value), qs(i.allowed)));
  }
  stopSweep_.request_stop();
  stopSweep_ = std::stop_source();
  const std::stop_token stop = stopSweep_.get_token();
  const int limit = requests_->value();
  error_text_.clear();
  error_->clear();
  stop_->setEnabled(true);
  sweepSummary_->setText(
      tr("Sweeping %1 points, each partitioned by the central scheduler…").arg(compiled->size()));
  QPointer<QLabel> progress = sweepSummary_;
  sweepWatcher_.setFuture(
      QtConcurrent::run(&pool_, [c = std::move(*compiled), stop, limit, progress] {
        auto o = std::make_shared<SweepOutcome>();
        try {
          const auto reqs = requestsOf(c.space().base.spec, limit);
          struct Progress final : coexplore::Sink {
            QPointer<QLabel> label;
            void on_progress(const coexplore::Progress& p) override {
              // eta_s is 0 until two points have given a rate (search/eta.hpp).
              QString t = WaferView::tr("Swept %1 of %2 points…").arg(p.done).arg(p.total);
              if (p.done < p.total)
                t += p.eta_s > 0 ? WaferView::tr(" ETA %1 s").arg(readable(p.eta_s))
                                 : WaferView::tr(" ETA —");
              QMetaObject::invokeMethod(
                  label,
                  [l = label, t] {
                    if (l) l->setText(t);
                  },
                  Qt::QueuedConnection);
            }
          } sink;
          sink.label = progress;
          coexplore::RunOptions ro;
          ro.threads = 1;
          auto s = coexplore::run(c, reqs, ro, sink, stop);
          o->records = std::move(s.records);
          o->frontier = std::move(s.frontier);
          o->space.emplace(c);
        } catch (const std::exception& e) {
          o->error = qs(e.what());
        }
        return std::shared_ptr<const SweepOutcome>(std::move(o));
      }));
  return true;
}

void WaferView::showSweep() {
  stop_->setEnabled(mapWatcher_.isRunning());
  sweepOut_ = sweepWatcher_.result();
  if (!sweepOut_->error.isEmpty()) {
    error_text_ = sweepOut_->error;
    error_->setText(sweepOut_->error);
  }
  sweep_ = sweepOut_->records;
  export_->setEnabled(!sweep_.empty());
  drawSweep();
  emit sweepFinished();
}

QString WaferView::sweepCsv() const {
  if (!sweepOut_ || !sweepOut_->space) return {};
  return qs(io::coexplore_to_csv(*sweepOut_->space, sweepOut_->records, sweepOut_->frontier));
}

void WaferView::drawSweep() {
  QCustomPlot* p = plot_;
  p->clearGraphs();
  p->clearItems();
  theme::stylePlot(p);
  const QString knob = sweepOut_ && sweepOut_->space ? qs(sweepOut_->space->space().axes[0].knob)
                                                     : knob_->currentText();
  const auto* k = coexplore::find_knob(knob.toStdString());
  // "DRAM capacity per die (GB)": the description without its parenthetical remark.
  QString what = k ? qs(std::string(k->description)) : knob;
  if (const auto cut = what.indexOf(QStringLiteral(" (")); cut > 0) what.truncate(cut);
  p->xAxis->setLabel(k ? QStringLiteral("%1 (%2)").arg(what, qs(std::string(k->unit))) : knob);
  // A knob value with its unit: "96 GB".
  const auto unitValue = [k](double v) {
    return k ? QStringLiteral("%1 %2").arg(v).arg(qs(std::string(k->unit))) : QString::number(v);
  };
  p->yAxis->setLabel(tr("goodput (req/s within both SLOs)"));
  p->yAxis2->setVisible(true);
  p->yAxis2->setLabel(tr("goodput per kW of wafer power (req/s/kW)"));
  p->legend->setVisible(true);
  p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignHCenter);
  const QColor blue(0x3b, 0x7d, 0xd8), orange(0xe0, 0x7b, 0x2c);
  auto* g = p->addGraph(p->xAxis, p->yAxis);
  g->setName(tr("goodput"));
  g->setPen(QPen(blue, 2));
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, blue, blue, 7));
  auto* h = p->addGraph(p->xAxis, p->yAxis2);
  h->setName(tr("goodput per kW"));
  h->setPen(QPen(orange, 2, Qt::DashLine));
  h->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, orange, orange, 7));
  if (sweep_.empty()) {
    p->xAxis->setRange(0, 1);
    p->yAxis->setRange(0, 1);
    p->yAxis2->setRange(0, 1);
    if (!sweepOut_)
      sweepSummary_->setText(
          tr("Run a sweep: each value gets its own wafer layout (e.g. more DRAM per die leaves "
             "room for fewer dies), its own partition from the central scheduler and a replay "
             "of the Serving tab's requests."));
    p->replot();
    return;
  }
  double xmin = 1e300, xmax = -1e300, ymax = 0, y2max = 0;
  QStringList infeasible;
  // Infeasible values as crosses on the axis, so the axis range they widen is explained.
  auto* bad = p->addGraph(p->xAxis, p->yAxis);
  bad->setName(tr("infeasible"));
  bad->setLineStyle(QCPGraph::lsNone);
  bad->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(0xc0, 0x39, 0x2b),
                                       QColor(0xc0, 0x39, 0x2b), 9));
  // Visited in the knob's order, the die count labelled where it changes (equal labels on
  // neighbouring points would overlap and say nothing new).
  std::vector<const coexplore::Record*> byX;
  for (const auto& r : sweep_) byX.push_back(&r);
  std::stable_sort(byX.begin(), byX.end(),
                   [](const auto* a, const auto* b) { return a->values[0] < b->values[0]; });
  int lastDies = -1;
  for (const auto* rp : byX) {
    const auto& r = *rp;
    const double x = r.values[0];
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    if (!r.feasible) {
      infeasible << QString::number(x);
      bad->addData(x, 0);
      continue;
    }
    g->addData(x, r.goodput_rps);
    h->addData(x, r.goodput_per_kW);
    ymax = std::max(ymax, r.goodput_rps);
    y2max = std::max(y2max, r.goodput_per_kW);
    if (r.usable_dies == lastDies) continue;
    lastDies = r.usable_dies;
    // The die count above the goodput point: what the knob traded.
    auto* t = new QCPItemText(p);
    t->position->setAxes(p->xAxis, p->yAxis);
    t->position->setCoords(x, r.goodput_rps);
    t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    t->setText(tr("%1 dies").arg(r.usable_dies));
    t->setColor(theme::quietInk());
    t->setPadding(QMargins(0, 0, 0, 6));
  }
  if (infeasible.isEmpty()) bad->removeFromLegend();
  const double pad = (xmax - xmin) * 0.06 + (xmax == xmin ? 1 : 0);
  p->xAxis->setRange(xmin - pad, xmax + pad);
  // Headroom for the die-count labels and the legend above the highest point.
  p->yAxis->setRange(0, std::max(1.0, ymax * 1.4));
  p->yAxis2->setRange(0, std::max(1.0, y2max * 1.4));
  // The report `search` gives: where the best goodput lies along the knob.
  QString text;
  if (sweepOut_ && sweepOut_->space) {
    const auto lines =
        coexplore::optimum_along_axis(*sweepOut_->space, sweep_, 0, coexplore::Metric::goodput_rps);
    if (!lines.empty() && lines.front().found) {
      const auto& o = lines.front();
      const auto best = std::find_if(sweep_.begin(), sweep_.end(), [&](const auto& r) {
        return r.feasible && r.values[0] == o.best_value;
      });
      text = tr("Best goodput %1 req/s at %2 = %3 (%4 dies, %5)%6.")
                 .arg(o.best_metric, 0, 'f', 2)
                 .arg(what)
                 .arg(unitValue(o.best_value))
                 .arg(best != sweep_.end() ? best->usable_dies : 0)
                 .arg(best != sweep_.end() ? qs(best->partition) : QString())
                 .arg(sweep_.size() >= 3 ? (o.interior ? tr(": an interior optimum, both ends "
                                                            "more than 1 % worse")
                                                       : tr(": not interior"))
                                         : QString());
    } else {
      text = tr("No value of the sweep serves the requests.");
    }
  }
  if (!infeasible.isEmpty())
    text += tr(" Infeasible at %1 = %2 (see the CSV's reason column).")
                .arg(what, infeasible.join(QStringLiteral(", ")) +
                                         (k ? QStringLiteral(" ") + qs(std::string(k->unit))
                                            : QString()));
  sweepSummary_->setText(text);
  p->replot();
}

void WaferView::stop() {
  stopMap_.request_stop();
  stopSweep_.request_stop();
  stop_->setEnabled(false);
}

void WaferView::waitForIdle() {
  mapWatcher_.waitForFinished();
  sweepWatcher_.waitForFinished();
  QCoreApplication::processEvents();
}

void WaferView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange && plot_ != nullptr) {
    drawSweep();
    mapWidget_->update();
  }
}

ReviewSection WaferView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Wafer");
  s.missing = tr("No wafer run (a wafer project's Wafer tab partitions and replays it).");
  if (mapRun() != nullptr) {
    if (const QString t = plainText(mapSummary_); !t.isEmpty()) s.paragraphs << t;
    s.figures << mapWidget_;
    if (const QString t = plainText(thermalSummary_); !t.isEmpty()) s.paragraphs << t;
    if (thermalMap() != nullptr) s.figures << heatMap_->plot();
  }
  if (!sweep_.empty()) {
    if (const QString t = plainText(sweepSummary_); !t.isEmpty()) s.paragraphs << t;
    s.figures << plot_;
  }
  return s;
}

}  // namespace stackscope::ui
