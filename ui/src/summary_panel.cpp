// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/summary_panel.hpp"

#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "stackscope/io/validation.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("summaryPanel"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->setSpacing(10);

  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("feasibilityBanner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::RichText);
  outer->addWidget(banner_);

  // One-line notes under the banner: where the figures stand (validation, kernel source).
  const auto note = [&](const char* name, const QString& tip) {
    auto* l = new QLabel(this);
    l->setObjectName(QString::fromLatin1(name));
    l->setWordWrap(true);
    l->setContentsMargins(12, 0, 12, 0);
    l->setToolTip(tip);
    outer->addWidget(l);
    return l;
  };
  validation_ = note(
      "validationEnvelope",
      tr("How well designs of this kind are validated against measured deployments: the "
         "nearest measured partition (device, runtime profile, dense or MoE) and its mean "
         "absolute percentage error of TTFT and TPOT, held-out rows preferred "
         "(presets/validation/envelope.json, written by stackscope-cli validate)."));
  kernels_ = note(
      "kernelSource",
      tr("Where the GEMM and attention times come from: the device's measured kernel table "
         "(hardware field kernel_table: a built-in table such as h200, or CSV files; "
         "docs/model.md §3.5), interpolated between its measured shapes, or the roofline with "
         "the runtime profile's efficiencies for every kernel the table does not cover."));

  grid_ = new QGridLayout();
  grid_->setHorizontalSpacing(10);
  grid_->setVerticalSpacing(10);
  outer->addLayout(grid_);
  auto add = [&](int r, int c, const char* key, const QString& title, const QString& tip) {
    return addCard(r, c, QString::fromLatin1(key), title, tip);
  };
  // Rows: latency, throughput, efficiency, then memory across the whole width.
  ttft_ = add(0, 0, "ttft", tr("TTFT · time to first token"),
              tr("Prefill of the whole static batch: every request gets its first token."));
  tpot_ = add(0, 1, "tpot", tr("TPOT · time per output token"),
              tr("One decode step seen by a request, at the mean decode context."));
  utps_ = add(0, 2, "utps", tr("UTPS · tokens/s per user"), tr("1 / TPOT"));
  stps_ = add(1, 0, "stps", tr("STPS · system decode tokens/s"),
              tr("Decode tokens per second over all replicas."));
  e2e_ = add(1, 1, "e2e", tr("End-to-end output tokens/s"),
             tr("B requests prefilled, then decoded for output_len steps, over all devices."));
  perDevice_ = add(1, 2, "per_device", tr("End-to-end tokens/s per device"),
                   tr("End-to-end output tokens/s divided by the device count."));
  energy_ = add(2, 0, "energy", tr("Energy per output token"),
                tr("System energy over the static run divided by the output tokens."));
  power_ = add(2, 1, "power", tr("Power per device"),
               tr("Mean power of one device over the static run."));
  batch_ = add(2, 2, "batch", tr("Batch per replica"),
               tr("Requests per model replica actually evaluated."));
  memory_ = add(3, 0, "memory", tr("Memory per device · used / capacity"),
                tr("Weights + KV cache + activations + reserved, on the fullest device."));
  memoryBar_ = new QProgressBar(this);
  memoryBar_->setObjectName(QStringLiteral("memoryBar"));
  memoryBar_->setRange(0, 1000);
  memoryBar_->setTextVisible(false);
  memoryBar_->setFixedHeight(8);
  if (auto* box = qobject_cast<QVBoxLayout*>(memory_.value->parentWidget()->layout()))
    box->insertWidget(2, memoryBar_);
  // The memory card spans the row: its breakdown line is long.
  grid_->addWidget(memory_.value->parentWidget(), 3, 0, 1, 3);
  for (int c = 0; c < 3; ++c) grid_->setColumnStretch(c, 1);
  outer->addStretch(1);
  clearMetrics();
}

SummaryPanel::Card SummaryPanel::addCard(int row, int col, const QString& key, const QString& title,
                                         const QString& tip) {
  auto* frame = new QFrame(this);
  frame->setObjectName(QStringLiteral("metricCard"));
  frame->setToolTip(tip);
  auto* box = new QVBoxLayout(frame);
  box->setContentsMargins(12, 8, 12, 8);
  box->setSpacing(2);
  auto* t = new QLabel(title, frame);
  t->setObjectName(QStringLiteral("metricTitle"));
  Card card;
  card.value = new QLabel(frame);
  card.value->setObjectName(QStringLiteral("metric_") + key);
  card.value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  card.detail = new QLabel(frame);
  card.detail->setObjectName(QStringLiteral("metricDetail"));
  card.detail->setWordWrap(true);
  card.delta = new QLabel(frame);
  card.delta->setObjectName(QStringLiteral("delta_") + key);
  card.delta->setVisible(false);
  box->addWidget(t);
  box->addWidget(card.value);
  box->addWidget(card.detail);
  box->addWidget(card.delta);
  grid_->addWidget(frame, row, col);
  return card;
}

void SummaryPanel::clearMetrics() {
  for (Card* c :
       {&ttft_, &tpot_, &utps_, &stps_, &e2e_, &perDevice_, &energy_, &power_, &memory_, &batch_}) {
    c->value->setText(QStringLiteral("—"));
    c->detail->clear();
    c->delta->setVisible(false);
  }
  memoryBar_->setValue(0);
}

void SummaryPanel::showResult(const perf::Design& design, const perf::Result& r) {
  const auto& m = r.metrics;
  const int devices = std::max(1, design.system.devices);
  ttft_.value->setText(withUnit(m.ttft_s * 1e3, tr("ms")));
  ttft_.detail->setText(
      tr("%1 prompt tokens × %2 requests").arg(design.workload.input_len).arg(r.batch));
  tpot_.value->setText(withUnit(m.tpot_s * 1e3, tr("ms")));
  tpot_.detail->setText(tr("%1 output tokens per request").arg(design.workload.output_len));
  utps_.value->setText(withUnit(m.utps, tr("tok/s")));
  utps_.detail->setText(tr("per user (interactivity)"));
  stps_.value->setText(withUnit(m.stps, tr("tok/s")));
  stps_.detail->setText(tr("%1 replica(s), decode only").arg(design.parallel.dp));
  e2e_.value->setText(withUnit(m.e2e_output_tokens_per_s, tr("tok/s")));
  e2e_.detail->setText(
      tr("prefill + %1 decode steps").arg(std::max(0, design.workload.output_len - 1)));
  perDevice_.value->setText(withUnit(m.e2e_output_tokens_per_s / devices, tr("tok/s")));
  perDevice_.detail->setText(tr("over %1 device(s)").arg(devices));
  energy_.value->setText(withUnit(m.energy_per_token_j, tr("J")));
  energy_.detail->setText(
      tr("prefill %1 J per prompt token · decode step %2 J per token")
          .arg(readable(m.prefill_energy_per_token_j), readable(m.decode_energy_per_token_j)));
  power_.value->setText(withUnit(m.power_w, tr("W")));
  // Each phase's power and the clock DVFS ran it at under the cap (docs/model.md §13.2).
  const auto clock = [&](double s) {
    return QString::number(std::lround(power_area::reported_clock_MHz(design.hardware, s)));
  };
  QString phases = tr("prefill %1 W at %2 MHz · decode %3 W at %4 MHz · TDP %5 W")
                       .arg(readable(r.prefill.power_W), clock(r.prefill.clock_scale),
                            readable(r.decode.power_W), clock(r.decode.clock_scale),
                            readable(design.hardware.energy.tdp_W));
  if (r.thermal.throttle < 1.0)
    phases += tr(" · throttled to %1 % to hold DRAM at 95 °C")
                  .arg(std::lround(100.0 * r.thermal.throttle));
  power_.detail->setText(phases);
  batch_.value->setText(QString::number(r.batch));
  batch_.detail->setText(design.workload.batch_auto ? tr("auto: largest batch that fits memory")
                                                    : tr("requests per replica"));
  const auto& mem = r.memory;
  memory_.value->setText(
      tr("%1 / %2 GiB").arg(readable(mem.total() / kGiB), readable(mem.capacity / kGiB)));
  memory_.detail->setText(tr("weights %1 · KV cache %2 · activations %3 · reserved %4 GiB")
                              .arg(readable(mem.weights / kGiB), readable(mem.kv_cache / kGiB),
                                   readable(mem.activations / kGiB),
                                   readable(mem.reserved / kGiB)));
  const double used = mem.capacity > 0 ? mem.total() / mem.capacity : 0;
  memoryBar_->setValue(static_cast<int>(std::clamp(used, 0.0, 1.0) * 1000));
  memoryBar_->setProperty("over", used > 1.0);
  memoryBar_->style()->unpolish(memoryBar_);
  memoryBar_->style()->polish(memoryBar_);

  if (baseline_) {
    const auto& b = baseline_->metrics;
    const double bdev = std::max(1, design.system.devices);  // this design's devices
    showDelta(ttft_, m.ttft_s, b.ttft_s, false);
    showDelta(tpot_, m.tpot_s, b.tpot_s, false);
    showDelta(utps_, m.utps, b.utps, true);
    showDelta(stps_, m.stps, b.stps, true);
    showDelta(e2e_, m.e2e_output_tokens_per_s, b.e2e_output_tokens_per_s, true);
    showDelta(perDevice_, m.e2e_output_tokens_per_s / bdev,
              b.e2e_output_tokens_per_s / std::max(1.0, baselineDevices_), true);
    showDelta(energy_, m.energy_per_token_j, b.energy_per_token_j, false);
    showDelta(power_, m.power_w, b.power_w, false);
    showDelta(memory_, r.memory.total(), baseline_->memory.total(), false);
    showDelta(batch_, r.batch, baseline_->batch, true);
  } else {
    for (Card* c :
         {&ttft_, &tpot_, &utps_, &stps_, &e2e_, &perDevice_, &energy_, &power_, &memory_, &batch_})
      c->delta->setVisible(false);
  }

  validation_->setText(tr("Validation · %1")
                           .arg(QString::fromStdString(
                               validate::match_envelope(io::builtin_envelope(), design).text)));
  kernels_->setText(
      tr("Kernels · %1").arg(QString::fromStdString(perf::kernel_source_text(design, r))));

  if (r.feasible) {
    banner_->setProperty("state", QStringLiteral("ok"));
    banner_->setText(tr("<b>Feasible</b> — fits in memory at batch %1 per replica.").arg(r.batch));
  } else {
    QString reasons;
    for (const auto& s : perf::describe(r.reasons))
      reasons += QStringLiteral("<br>• ") + QString::fromStdString(s).toHtmlEscaped();
    banner_->setProperty("state", QStringLiteral("bad"));
    banner_->setText(tr("<b>Infeasible</b> (metrics are still shown to rank near-misses):") +
                     reasons);
  }
  banner_->style()->unpolish(banner_);
  banner_->style()->polish(banner_);
}

void SummaryPanel::setBaseline(const std::optional<perf::Result>& baseline, const QString& name,
                               int devices) {
  baseline_ = baseline;
  baselineName_ = name;
  baselineDevices_ = std::max(1, devices);
}

void SummaryPanel::showDelta(Card& card, double value, double base, bool higherIsBetter) {
  if (!baseline_ || !(std::abs(base) > 0) || !std::isfinite(value) || !std::isfinite(base)) {
    card.delta->setVisible(false);
    return;
  }
  const double rel = value / base - 1.0;
  const bool same = std::abs(rel) < 5e-4;
  const bool better = higherIsBetter ? rel > 0 : rel < 0;
  // Green better, red worse; lighter shades on a dark palette.
  const bool dark = theme::isDark();
  const QString colour = same     ? theme::quietInk().name()
                         : better ? QString::fromLatin1(dark ? "#7bc67e" : "#2e7d32")
                                  : QString::fromLatin1(dark ? "#f07470" : "#c62828");
  const QString text = same ? tr("= baseline")
                            : tr("%1%2 % vs baseline")
                                  .arg(rel > 0 ? QStringLiteral("+") : QString())
                                  .arg(100 * rel, 0, 'f', 1);
  card.delta->setText(QStringLiteral("<span style=\"color:%1\">%2</span>").arg(colour, text));
  card.delta->setToolTip(tr("Against the pinned baseline %1").arg(baselineName_));
  card.delta->setVisible(true);
}

void SummaryPanel::showIssues(const std::vector<Issue>& issues) {
  clearMetrics();
  QString text = tr("<b>The design is not valid</b> — fix these to evaluate it:");
  for (const auto& i : issues)
    text += QStringLiteral("<br>• ") + QString::fromStdString(format_issue(i)).toHtmlEscaped();
  banner_->setProperty("state", QStringLiteral("warn"));
  banner_->setText(text);
  banner_->style()->unpolish(banner_);
  banner_->style()->polish(banner_);
}

}  // namespace stackscope::ui
