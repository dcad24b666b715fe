// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/compare_view.hpp"

#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>

#include "stackscope/io/project.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

const QColor kColours[] = {QColor(0x4C, 0x72, 0xB0), QColor(0xDD, 0x84, 0x52),
                           QColor(0x55, 0xA8, 0x68), QColor(0x81, 0x72, 0xB3)};

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("compareView"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout();
  auto* title = new QLabel(tr("Compare designs"), this);
  title->setObjectName(QStringLiteral("sectionTitle"));
  top->addWidget(title, 1);
  sameRuntime_ = new QCheckBox(tr("Same runtime for all (the first design's)"), this);
  sameRuntime_->setObjectName(QStringLiteral("sameRuntimeCheck"));
  sameRuntime_->setChecked(true);
  sameRuntime_->setToolTip(
      tr("On: every design is evaluated under the first design's runtime profile (kernel "
         "efficiencies, launches, KV re-reads), so the columns compare hardware. Off: each "
         "design under its own profile, which compares software stacks as well."));
  connect(sameRuntime_, &QCheckBox::toggled, this, [this] { rebuild(); });
  top->addWidget(sameRuntime_);
  auto* clearButton = new QPushButton(tr("Clear"), this);
  top->addWidget(clearButton);
  box->addLayout(top);
  hint_ = new QLabel(this);
  hint_->setObjectName(QStringLiteral("hint"));
  hint_->setWordWrap(true);
  box->addWidget(hint_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  table_ = new QTableWidget(split);
  table_->setObjectName(QStringLiteral("compareTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  bars_ = new QCustomPlot(split);
  bars_->setMinimumWidth(320);
  bars_->legend->setVisible(true);
  bars_->legend->setFont(font());
  bars_->yAxis->setLabel(tr("Decode step time (ms)"));
  attachExportMenu(bars_, QStringLiteral("compare"));
  setPlotHint(bars_, tr("Design ▸ Add to Compare (Ctrl+D) puts the current design here: the "
                        "decode step time of each design, per bounding resource"));
  split->addWidget(table_);
  split->addWidget(bars_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  box->addWidget(split, 1);
  connect(clearButton, &QPushButton::clicked, this, &CompareView::clear);
  rebuild();
}

void CompareView::add(const perf::Design& design, const perf::Result& result) {
  entries_.push_back({design, result});
  if (entries_.size() > kMaxDesigns) entries_.erase(entries_.begin());
  rebuild();
}

void CompareView::clear() {
  entries_.clear();
  rebuild();
}

std::vector<CompareView::Entry> CompareView::shown() const {
  std::vector<Entry> out = entries_;
  if (!sameRuntime_->isChecked() || out.size() < 2) return out;
  const runtime::Profile& common = entries_.front().design.runtime;
  for (std::size_t i = 1; i < out.size(); ++i) {
    // The profile as written (every field, one place that lists them: core/io's mapping).
    if (io::runtime_to_json(out[i].design.runtime) == io::runtime_to_json(common)) continue;
    out[i].design.runtime = common;
    out[i].result = perf::evaluate(out[i].design);
  }
  return out;
}

void CompareView::rebuild() {
  const std::vector<Entry> entries = shown();
  QString hint = entries.empty()
                     ? tr("Design ▸ Add to Compare (Ctrl+D) puts the current design here; up to "
                          "%1 side by side.")
                           .arg(kMaxDesigns)
                     : tr("Highlighted rows differ between the designs; the best metric is bold.");
  // A metric is "best" only among designs doing the same work: a design that serves another
  // model or shorter requests is not better for being faster.
  QStringList unequal;
  if (entries.size() > 1) {
    const auto& w0 = entries.front().design;
    bool model = false, lengths = false;
    for (const auto& e : entries) {
      model = model || e.design.model.id != w0.model.id;
      lengths = lengths || e.design.workload.input_len != w0.workload.input_len ||
                e.design.workload.output_len != w0.workload.output_len;
    }
    if (model) unequal << tr("model");
    if (lengths) unequal << tr("input / output tokens");
  }
  const bool sameWork = unequal.isEmpty();
  if (!sameWork)
    hint = tr("Highlighted rows differ between the designs. They run different workloads (%1), "
              "so no metric is marked best.")
               .arg(unequal.join(tr(" and ")));
  if (entries.size() > 1)
    hint += sameRuntime_->isChecked()
                ? tr(" All columns run under runtime profile %1 (the first design's).")
                      .arg(qs(entries.front().design.runtime.id))
                : tr(" Each column runs under its own runtime profile: differences include "
                     "the software.");
  hint_->setText(hint);
  const int n = static_cast<int>(entries.size());
  struct Row {
    QString name;
    std::function<QString(const Entry&)> text;
    std::function<double(const Entry&)> value;  // metrics: for "best"
    bool higherIsBetter = true;
  };
  std::vector<Row> rows = {
      {tr("Design"),
       [](const Entry& e) { return e.design.name.empty() ? tr("(unnamed)") : qs(e.design.name); },
       nullptr},
      {tr("Hardware"),
       [](const Entry& e) {
         return qs(e.design.hardware.name.empty() ? e.design.hardware.id : e.design.hardware.name);
       },
       nullptr},
      {tr("Runtime profile"), [](const Entry& e) { return qs(e.design.runtime.id); }, nullptr},
      {tr("Devices"), [](const Entry& e) { return QString::number(e.design.system.devices); },
       nullptr},
      {tr("DRAM layers (connected)"),
       [](const Entry& e) {
         return QStringLiteral("%1 (%2)")
             .arg(e.design.hardware.memory.layers_total)
             .arg(e.design.hardware.memory.layers_connected);
       },
       nullptr},
      {tr("Model"),
       [](const Entry& e) {
         return qs(e.design.model.name.empty() ? e.design.model.id : e.design.model.name);
       },
       nullptr},
      {tr("Weights / KV precision"),
       [](const Entry& e) {
         return QStringLiteral("%1 / %2").arg(
             QString::fromLatin1(to_string(e.design.workload.numerics.weights).data()),
             QString::fromLatin1(to_string(e.design.workload.numerics.kv_cache).data()));
       },
       nullptr},
      {tr("Plan (TP·PP·EP·DP·CP)"),
       [](const Entry& e) {
         const auto& p = e.design.parallel;
         return QStringLiteral("%1·%2·%3·%4·%5%6")
             .arg(p.tp)
             .arg(p.pp)
             .arg(p.ep)
             .arg(p.dp)
             .arg(p.cp)
             .arg(p.sequence_parallel ? QStringLiteral(" SP") : QString());
       },
       nullptr},
      {tr("Batch per replica"), [](const Entry& e) { return QString::number(e.result.batch); },
       nullptr},
      {tr("Input / output tokens"),
       [](const Entry& e) {
         return QStringLiteral("%1 / %2")
             .arg(e.design.workload.input_len)
             .arg(e.design.workload.output_len);
       },
       nullptr},
      {tr("TTFT (ms)"), [](const Entry& e) { return readable(e.result.metrics.ttft_s * 1e3); },
       [](const Entry& e) { return e.result.metrics.ttft_s; }, false},
      {tr("TPOT (ms)"), [](const Entry& e) { return readable(e.result.metrics.tpot_s * 1e3); },
       [](const Entry& e) { return e.result.metrics.tpot_s; }, false},
      {tr("UTPS (tok/s)"), [](const Entry& e) { return readable(e.result.metrics.utps); },
       [](const Entry& e) { return e.result.metrics.utps; }, true},
      {tr("STPS (tok/s)"), [](const Entry& e) { return readable(e.result.metrics.stps); },
       [](const Entry& e) { return e.result.metrics.stps; }, true},
      {tr("STPS per device (tok/s)"),
       [](const Entry& e) {
         return readable(e.result.metrics.stps / std::max(1, e.design.system.devices));
       },
       [](const Entry& e) { return e.result.metrics.stps / std::max(1, e.design.system.devices); },
       true},
      {tr("Energy per token (J)"),
       [](const Entry& e) { return readable(e.result.metrics.energy_per_token_j); },
       [](const Entry& e) { return e.result.metrics.energy_per_token_j; }, false},
      {tr("Power per device (W)"),
       [](const Entry& e) { return readable(e.result.metrics.power_w); },
       [](const Entry& e) { return e.result.metrics.power_w; }, false},
      {tr("Memory per device (GiB)"),
       [](const Entry& e) { return readable(e.result.memory.total() / 1073741824.0); }, nullptr},
      {tr("Die area (mm²)"), [](const Entry& e) { return readable(e.result.area.die); }, nullptr},
      {tr("Peak DRAM (°C)"),
       [](const Entry& e) {
         return e.result.thermal.modelled ? QString::number(e.result.thermal.dram_peak_C, 'f', 1)
                                          : QStringLiteral("—");
       },
       nullptr},
      {tr("Feasible"), [](const Entry& e) { return e.result.feasible ? tr("yes") : tr("no"); },
       nullptr},
  };
  table_->clear();
  table_->setColumnCount(n);
  table_->setRowCount(static_cast<int>(rows.size()));
  QStringList heads;
  for (int c = 0; c < n; ++c) heads << QStringLiteral("%1.").arg(c + 1);
  table_->setHorizontalHeaderLabels(heads);
  QStringList names;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    names << rows[r].name;
    std::vector<QString> cells;
    for (const auto& e : entries) cells.push_back(rows[r].text(e));
    const bool differs = std::any_of(cells.begin(), cells.end(),
                                     [&](const QString& s) { return s != cells.front(); });
    int best = -1;
    if (rows[r].value && n > 1 && differs && sameWork) {
      for (int c = 0; c < n; ++c) {
        const double v = rows[r].value(entries[static_cast<std::size_t>(c)]);
        const double bv = best < 0 ? 0 : rows[r].value(entries[static_cast<std::size_t>(best)]);
        if (best < 0 || (rows[r].higherIsBetter ? v > bv : v < bv)) best = c;
      }
    }
    for (int c = 0; c < n; ++c) {
      auto* item = new QTableWidgetItem(cells[static_cast<std::size_t>(c)]);
      if (differs && n > 1) item->setBackground(theme::highlight());
      if (c == best) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      table_->setItem(static_cast<int>(r), c, item);
    }
  }
  table_->setVerticalHeaderLabels(names);

  // Grouped bars: decode step time per bounding resource, one colour per design.
  bars_->clearPlottables();
  const int resources = static_cast<int>(perf::kResources);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int k = 0; k < resources; ++k)
    ticker->addTick(k + 1, resourceLabel(static_cast<perf::Resource>(k)));
  bars_->xAxis->setTicker(ticker);
  bars_->xAxis->setTickLabelRotation(35);
  bars_->axisRect()->setMinimumMargins(QMargins(10, 10, 40, 10));  // rotated labels fit
  bars_->xAxis->setRange(0.3, resources + 0.7);
  double top = 0;
  const double width = 0.8 / std::max(1, n);
  for (int c = 0; c < n; ++c) {
    const auto& r = entries[static_cast<std::size_t>(c)].result;
    auto* b = new QCPBars(bars_->xAxis, bars_->yAxis);
    b->setName(QStringLiteral("%1.").arg(c + 1));
    b->setWidth(width);
    b->setPen(Qt::NoPen);
    b->setBrush(kColours[c % kMaxDesigns]);
    QVector<double> x, y;
    for (int k = 0; k < resources; ++k) {
      // Per decode step (the phase holds max(m, pp) stage passes).
      const double passes = std::max(1e-30, r.decode.time_s / std::max(1e-30, r.metrics.tpot_s));
      x << k + 1 - 0.4 + width * (c + 0.5);
      y << r.decode.resource_s[static_cast<std::size_t>(k)] / passes * 1e3;
      top = std::max(top, y.back());
    }
    b->setData(x, y);
  }
  bars_->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
  bars_->replot();
}

ReviewSection CompareView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Compare");
  s.missing = tr("No designs were added to Compare (Design ▸ Add to Compare).");
  if (count() == 0) return s;
  s.tables << table_;
  s.figures << bars_;
  return s;
}

}  // namespace stackscope::ui
