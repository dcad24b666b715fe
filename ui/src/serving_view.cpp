// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/serving_view.hpp"

#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QFrame>
#include <QSplitter>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "serving_form.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

constexpr int kDebounceMs = 300;
constexpr std::size_t kMaxCdfPoints = 2000;  // quantiles drawn per CDF
constexpr int kSumPoints = 2000;             // common time grid of the summed timeline

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString issueText(const ConfigError& e) {
  return e.issues().empty() ? QString::fromLocal8Bit(e.what()) : qs(format_issue(e.issues()[0]));
}

// Data colours (the views' palette; legible on the light and the dark background).
const QColor kTtftColour(0x4c, 0x72, 0xb0);
const QColor kTpotColour(0x81, 0x72, 0xb3);
const QColor kRunningColour(0x4c, 0x72, 0xb0);
const QColor kWaitingColour(0xdd, 0x84, 0x52);
const QColor kKvColour(0x55, 0xa8, 0x68);
QColor sloColour() {
  return theme::isDark() ? QColor(0xff, 0x8a, 0x80) : QColor(0xc4, 0x2b, 0x2b);
}

QCustomPlot* makePlot(QWidget* parent, const QString& title, const QString& name) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(name);
  plot->setMinimumSize(240, 200);
  plot->plotLayout()->insertRow(0);
  auto* t = new QCPTextElement(
      plot, title, QFont(parent->font().family(), parent->font().pointSize(), QFont::Bold));
  plot->plotLayout()->addElement(0, 0, t);
  // Few x ticks: "12,500" wide labels on a third of the tab must not run together.
  plot->xAxis->ticker()->setTickCount(4);
  plot->yAxis->ticker()->setTickCount(5);
  plot->yAxis2->ticker()->setTickCount(5);
  theme::stylePlot(plot);
  attachExportMenu(plot, name);
  return plot;
}

// The hint drawn in place of the axes of a plot with nothing to show.
void showHint(QCustomPlot* plot, const QString& text) {
  plot->clearGraphs();
  plot->clearItems();
  for (QCPAxis* a : plot->axisRect()->axes()) a->setVisible(false);
  plot->legend->setVisible(false);
  auto* hint = new QCPItemText(plot);
  hint->setClipToAxisRect(false);
  hint->position->setType(QCPItemPosition::ptViewportRatio);
  hint->position->setCoords(0.5, 0.5);
  hint->setPositionAlignment(Qt::AlignCenter);
  hint->setText(text);
  hint->setColor(theme::quietInk());
  plot->replot();
}

// Up to kMaxCdfPoints evenly spaced order statistics of sorted `v`, the last one included.
std::vector<std::size_t> cdfIndices(std::size_t n) {
  std::vector<std::size_t> idx;
  if (n <= kMaxCdfPoints) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  for (std::size_t k = 0; k < kMaxCdfPoints; ++k) idx.push_back((n - 1) * k / (kMaxCdfPoints - 1));
  return idx;
}

QString ms(double s) {
  return readable(s * 1e3) + QStringLiteral(" ms");
}

}  // namespace

ServingView::ServingView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("servingView"));
  pool_.setMaxThreadCount(1);  // a stopped run ends before the next one starts
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(4, 4, 4, 4);

  // ---- the run row first (a result pane puts its own buttons at the end of a view's first
  // row), then the settings (serving_form.cpp) ----
  form_ = new ServingForm(doc_, this);
  auto* head = new QHBoxLayout();
  run_ = new QPushButton(tr("&Run"), this);
  run_->setObjectName(QStringLiteral("servingRun"));
  run_->setToolTip(tr("Replay the requests on the design (stackscope-cli serve)"));
  stop_ = new QPushButton(tr("S&top"), this);
  stop_->setObjectName(QStringLiteral("servingStop"));
  stop_->setEnabled(false);
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("servingError"));
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  styleError();
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("hint"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  timelineOf_ = new QComboBox(this);
  timelineOf_->setObjectName(QStringLiteral("servingTimelineOf"));
  timelineOf_->setToolTip(tr("Timeline of one instance, or of all of them summed"));
  timelineOf_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* timelineLabel = new QLabel(tr("Timeline of:"), this);
  timelineLabel->setBuddy(timelineOf_);
  head->addWidget(run_);
  head->addWidget(stop_);
  head->addWidget(error_, 2);
  head->addWidget(status_, 1);
  head->addWidget(timelineLabel);
  head->addWidget(timelineOf_);
  box->addLayout(head);
  // Settings above, results below, in a splitter: on a small screen both keep a share of the
  // height (each scrolls within it) and the user moves the split.
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("servingSplitter"));
  split->setChildrenCollapsible(false);
  auto* formScroll = new QScrollArea(split);
  formScroll->setObjectName(QStringLiteral("servingFormScroll"));
  formScroll->setWidgetResizable(true);
  formScroll->setFrameShape(QFrame::NoFrame);
  formScroll->setWidget(form_);
  formScroll->setMinimumHeight(80);
  auto* resultsScroll = new QScrollArea(split);
  resultsScroll->setObjectName(QStringLiteral("servingResultsScroll"));
  resultsScroll->setWidgetResizable(true);
  resultsScroll->setFrameShape(QFrame::NoFrame);
  resultsScroll->setMinimumHeight(120);
  auto* results = new QWidget();
  auto* rbox = new QVBoxLayout(results);
  rbox->setContentsMargins(0, 0, 0, 0);
  resultsScroll->setWidget(results);
  split->addWidget(formScroll);
  split->addWidget(resultsScroll);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  box->addWidget(split, 1);

  // ---- results ----
  auto* plots = new QHBoxLayout();
  ttft_ = makePlot(this, tr("Time to first token"), QStringLiteral("serving-ttft"));
  tpot_ = makePlot(this, tr("Time per output token"), QStringLiteral("serving-tpot"));
  timeline_ =
      makePlot(this, tr("Sequences and KV cache over time"), QStringLiteral("serving-timeline"));
  plots->addWidget(ttft_, 1);
  plots->addWidget(tpot_, 1);
  plots->addWidget(timeline_, 1);
  rbox->addLayout(plots, 1);

  auto* bottom = new QHBoxLayout();
  table_ = new QTableWidget(5, 5, this);
  table_->setObjectName(QStringLiteral("servingPercentiles"));
  table_->setHorizontalHeaderLabels({tr("mean"), tr("p50"), tr("p90"), tr("p99"), tr("max")});
  table_->setVerticalHeaderLabels(
      {tr("TTFT (ms)"), tr("TPOT (ms)"), tr("ITL (ms)"), tr("E2E (s)"), tr("Queue (ms)")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::ContiguousSelection);
  table_->setFocusPolicy(Qt::NoFocus);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->horizontalHeader()->setDefaultSectionSize(78);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setToolTip(
      tr("Over completed requests; TPOT over those with more than one output token; ITL over "
         "every gap between a request's tokens"));
  bottom->addWidget(table_);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("servingSummary"));
  summary_->setWordWrap(true);
  summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bottom->addWidget(summary_, 1);
  rbox->addLayout(bottom);
  // Half and half to begin with (each scrolls within its share); the user moves the split.
  split->setSizes({500, 500});

  debounce_.setSingleShot(true);
  debounce_.setInterval(kDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, [this] {
    QString err;
    if (snapshot(&err)) run();
  });
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(stop_, &QPushButton::clicked, this, &ServingView::stop);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<const Outcome>>::finished, this,
          &ServingView::onFinished);
  connect(timelineOf_, &QComboBox::currentIndexChanged, this, [this] { drawTimeline(); });
  connect(form_, &ServingForm::edited, this, [this] {
    settingsChanged();
    if (everRun_) debounce_.start();
  });
  settingsChanged();
  showOutcome();
}

ServingView::~ServingView() {
  stopSource_.request_stop();
  pool_.waitForDone();
}

void ServingView::setDocument(ConfigDocument* doc) {
  doc_ = doc ? doc : &own_;
  form_->setDocument(doc_);
}

void ServingView::styleError() {
  error_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(sloColour().name()));
}

void ServingView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange && error_ != nullptr) {
    styleError();
    for (QCustomPlot* p : {ttft_, tpot_, timeline_}) theme::stylePlot(p);
    showOutcome();
  }
}

void ServingView::editSpec(const serving::ServingSpec& next, const QString& what, int field) {
  if (next == doc_->serving()) return;
  doc_->editServing(next, tr("Edit %1").arg(what), field);
}

void ServingView::setSource(Source source) {
  serving::ServingSpec s = doc_->serving();
  s.source = source;
  editSpec(s, tr("Requests from"), ServingForm::kSource);
}

void ServingView::setRequests(int requests) {
  serving::ServingSpec s = doc_->serving();
  s.requests = static_cast<std::size_t>(std::max(requests, 0));
  editSpec(s, tr("Requests"), ServingForm::kRequests);
}

void ServingView::setLengths(const QString& input, const QString& output) {
  form_->setLengthTexts(input, output);
}

void ServingView::setSlo(double ttft_s, double tpot_s) {
  serving::ServingSpec s = doc_->serving();
  s.slo = {ttft_s, tpot_s};
  editSpec(s, tr("SLOs"), ServingForm::kSloTtft);
}

const serving::SimResult* ServingView::result() const {
  return shown_ ? &shown_->result : nullptr;
}

QString ServingView::runError() const {
  return runError_;
}

QString ServingView::settingsError() const {
  return error_->text();
}

void ServingView::settingsChanged() {
  QString err;
  const bool ok = snapshot(&err).has_value();
  form_->showIssues(serving::validate(doc_->serving()));
  error_->setText(ok ? runError_ : err);
  run_->setEnabled(ok);
  run_->setToolTip(ok ? tr("Replay the requests on the design (stackscope-cli serve)") : err);
}

std::optional<ServingView::Job> ServingView::snapshot(QString* error) const {
  const auto fail = [&](const QString& e) {
    if (error) *error = e;
    return std::optional<Job>();
  };
  if (!design_) return fail(tr("No valid design to replay requests on"));
  Job j;
  j.design = *design_;
  // As `stackscope-cli serve`: the static batch is not used; memory is checked per iteration.
  j.design.workload.batch_auto = false;
  j.design.workload.batch = 1;
  if (const auto issues = perf::validate(j.design); !issues.empty())
    return fail(tr("The design has problems: %1").arg(qs(format_issue(issues.front()))));
  if (const QString pending = form_->pendingError(); !pending.isEmpty()) return fail(pending);
  j.spec = doc_->serving();
  if (const auto issues = serving::validate(j.spec); !issues.empty())
    return fail(qs(format_issue(issues.front())));
  if (j.spec.source == Source::trace) {
    const QFileInfo fi(qs(j.spec.trace));
    if (!fi.isFile() || !fi.isReadable())
      return fail(tr("Trace file: %1 is not a readable file").arg(qs(j.spec.trace)));
  }
  return j;
}

namespace {

QString sourceText(const serving::ServingSpec& s, const serving::TraceStats& st,
                   std::size_t requests) {
  const QString n = QLocale().toString(static_cast<qulonglong>(requests));
  switch (s.source) {
    case serving::SourceKind::benchmark:
      return QObject::tr("benchmark of %1 requests at an infinite rate").arg(n);
    case serving::SourceKind::generated:
      return s.arrivals == serving::ArrivalProcess::Kind::poisson
                 ? QObject::tr("%1 Poisson arrivals at %2/s").arg(n, readable(s.rate_per_s))
                 : QObject::tr("%1 Gamma arrivals (CV %3) at %2/s")
                       .arg(n, readable(s.rate_per_s), readable(s.cv));
    case serving::SourceKind::trace:
      return QObject::tr("trace %1 (%2 requests over %3 s%4)")
          .arg(QFileInfo(qs(s.trace)).fileName())
          .arg(QLocale().toString(static_cast<qulonglong>(st.rows)))
          .arg(QString::number(st.duration_s, 'f', 0))
          .arg(s.time_scale != 1 ? QObject::tr(", ×%1").arg(readable(s.time_scale)) : QString());
  }
  return {};
}

}  // namespace

ServingView::Outcome ServingView::execute(const Job& job) {
  Outcome o;
  QElapsedTimer timer;
  timer.start();
  try {
    // The serve operation (runs/serve.hpp): on a wafer the project's split, or the central
    // scheduler's when it gives none, placed on the die mesh.
    serving::TraceStats st;
    const auto reqs = io::serving_requests(job.spec, &st);
    runs::ServeOptions so;
    so.central.threads = 1;  // this is already the view's worker thread
    const runs::ServeRun run = runs::serve(job.design, job.spec, reqs, so, {}, job.stop);
    o.source = sourceText(job.spec, st, run.requests);
    o.requests = run.requests;
    o.instances = 0;
    for (const auto& p : run.pools) o.instances += p.count;
    const int n = o.instances;
    const QString wafer_layout =
        run.wafer ? tr("wafer %1 × %2 dies: %3")
                        .arg(run.wafer->wafer.layout.dies_x)
                        .arg(run.wafer->wafer.layout.dies_y)
                        .arg(qs(run.partition_text))
                  : QString();
    o.layout = !wafer_layout.isEmpty()           ? wafer_layout
               : job.spec.disaggregate.enabled() ? tr("%1 prefill + %2 decode")
                                                       .arg(job.spec.disaggregate.prefill)
                                                       .arg(job.spec.disaggregate.decode)
               : n == 1 ? tr("1 instance")
                        : tr("%1 instances").arg(n);
    o.kv_blocks = run.pools.front().kv_blocks;
    o.devices = run.pools.front().devices;
    const auto blocks = [](long long b) { return QLocale().toString(static_cast<qlonglong>(b)); };
    if (run.pools.size() == 1) {
      o.pools = tr("%1 × %2 devices, KV %3 blocks each")
                    .arg(o.layout)
                    .arg(o.devices)
                    .arg(blocks(o.kv_blocks));
    } else {
      // One part per pool or group: "2 prefill × 2 devices (tp2), KV 31,705 blocks + ...";
      // the plan is named when the pools' or groups' plans differ.
      bool plans = false;
      for (const auto& p : run.pools) plans |= p.plan != run.pools.front().plan;
      QStringList parts;
      for (const auto& p : run.pools) {
        const QString role = p.role == serving::Role::prefill  ? tr(" prefill")
                             : p.role == serving::Role::decode ? tr(" decode")
                                                               : QString();
        parts << tr("%1%2 × %3 devices%4, KV %5 blocks")
                     .arg(p.count)
                     .arg(role)
                     .arg(p.devices)
                     .arg(plans ? QStringLiteral(" (%1)").arg(QString::fromStdString(p.plan))
                                : QString(),
                          blocks(p.kv_blocks));
      }
      o.pools = parts.join(QStringLiteral(" + "));
    }
    if (!wafer_layout.isEmpty()) o.pools = wafer_layout + QStringLiteral("<br>") + o.pools;
    else if (run.partition_chosen)
      o.pools = tr("%1, chosen by the central scheduler from %2 splits")
                    .arg(qs(run.partition_text))
                    .arg(run.partitions_screened) +
                QStringLiteral("<br>") + o.pools;
    o.slo_ttft_s = run.slo_ttft_s;
    o.slo_tpot_s = run.slo_tpot_s;
    o.result = run.result;
  } catch (const ConfigError& e) {
    o.error = issueText(e);
  } catch (const std::exception& e) {
    o.error = QString::fromLocal8Bit(e.what());
  }
  o.wall_s = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
  return o;
}

bool ServingView::run() {
  debounce_.stop();
  QString err;
  auto job = snapshot(&err);
  if (!job) {
    error_->setText(err);
    return false;
  }
  stopSource_.request_stop();  // a run in flight ends; its result is dropped
  stopSource_ = std::stop_source();
  job->stop = stopSource_.get_token();
  ++generation_;
  running_ = true;
  everRun_ = true;
  runError_.clear();
  error_->clear();
  stop_->setEnabled(true);
  status_->setText(job->spec.source == Source::trace
                       ? tr("Replaying the trace…")
                       : tr("Simulating %1 requests…")
                             .arg(QLocale().toString(static_cast<qulonglong>(job->spec.requests))));
  // Only the value snapshot crosses to the worker.
  watcher_.setFuture(QtConcurrent::run(
      &pool_, [j = std::move(*job)] { return std::make_shared<const Outcome>(execute(j)); }));
  return true;
}

void ServingView::stop() {
  debounce_.stop();
  stopSource_.request_stop();
  stop_->setEnabled(false);
  if (running_) status_->setText(tr("Stopping…"));
}

void ServingView::waitForIdle() {
  if (debounce_.isActive()) {
    debounce_.stop();
    QString err;
    if (snapshot(&err)) run();
  }
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
  if (running_ && watcher_.isFinished()) onFinished();
}

void ServingView::setDesign(const perf::Design& design) {
  design_ = design;
  form_->setDesignDp(std::max(1, design.parallel.dp));
  form_->setWafer(design.wafer.has_value());
  form_->setDesignPlan(design.parallel.tp, design.parallel.pp, design.parallel.ep,
                       design.parallel.cp);
  settingsChanged();
  if (everRun_) debounce_.start();
}

void ServingView::clearDesign() {
  design_.reset();
  debounce_.stop();
  stopSource_.request_stop();
  settingsChanged();
}

void ServingView::onFinished() {
  if (!running_ || !watcher_.isFinished() || watcher_.future().resultCount() == 0) return;
  std::shared_ptr<const Outcome> o = watcher_.result();
  running_ = false;
  stop_->setEnabled(false);
  if (!o->error.isEmpty()) {
    runError_ = tr("Run failed: %1").arg(o->error);
    error_->setText(runError_);
    status_->setText(shown_ ? tr("Showing the previous run") : QString());
    emit finished();
    return;
  }
  shown_ = std::move(o);
  ++completedRuns_;
  showOutcome();
  emit finished();
}

void ServingView::drawEmpty() {
  const QString hint = tr("Press Run to replay requests on this design");
  for (QCustomPlot* p : {ttft_, tpot_, timeline_}) showHint(p, hint);
  for (int r = 0; r < table_->rowCount(); ++r)
    for (int c = 0; c < table_->columnCount(); ++c)
      table_->setItem(r, c, new QTableWidgetItem(QStringLiteral("–")));
  summary_->setText(
      tr("Replays a request stream on co-located or prefill/decode-disaggregated instances of "
         "the design with continuous batching as vLLM and TensorRT-LLM do it (a token budget and a "
         "sequence cap per "
         "iteration, chunked prefill, a paged KV cache sized from the memory left after the "
         "weights, preemption by recompute); every iteration is costed by the evaluator's "
         "operator model. The same run as <tt>stackscope-cli serve</tt>."));
}

void ServingView::showOutcome() {
  // The table's height is its rows' (no scroll bar, no blank space).
  table_->resizeRowsToContents();
  int h = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth();
  for (int r = 0; r < table_->rowCount(); ++r) h += table_->rowHeight(r);
  table_->setFixedHeight(h);
  table_->setFixedWidth(table_->verticalHeader()->sizeHint().width() +
                        5 * table_->horizontalHeader()->defaultSectionSize() +
                        2 * table_->frameWidth());
  if (!shown_) {
    QSignalBlocker b(timelineOf_);
    timelineOf_->clear();
    timelineOf_->setEnabled(false);
    drawEmpty();
    return;
  }
  const auto& o = *shown_;
  const auto& r = o.result;
  std::vector<double> ttft, tpot;
  for (const auto& q : r.requests) {
    if (!q.done()) continue;
    ttft.push_back(q.ttft_s() * 1e3);
    if (q.output_tokens > 1) tpot.push_back(q.tpot_s() * 1e3);
  }
  drawCdf(ttft_, std::move(ttft), o.slo_ttft_s * 1e3);
  drawCdf(tpot_, std::move(tpot), o.slo_tpot_s * 1e3);
  {
    QSignalBlocker b(timelineOf_);
    const int was = timelineOf_->currentIndex();
    timelineOf_->clear();
    if (r.instances.size() > 1)
      timelineOf_->addItem(tr("all %1 instances (sum)").arg(r.instances.size()), -1);
    for (std::size_t i = 0; i < r.instances.size(); ++i)
      timelineOf_->addItem(tr("instance %1").arg(i), static_cast<int>(i));
    timelineOf_->setCurrentIndex(std::clamp(was, 0, timelineOf_->count() - 1));
    timelineOf_->setEnabled(timelineOf_->count() > 1);
  }
  drawTimeline();

  const serving::Percentiles* rows[] = {&r.ttft, &r.tpot, &r.itl, &r.e2e, &r.queue};
  const double scale[] = {1e3, 1e3, 1e3, 1.0, 1e3};
  for (int i = 0; i < 5; ++i) {
    const auto& p = *rows[i];
    const double v[] = {p.mean, p.p50, p.p90, p.p99, p.max};
    for (int c = 0; c < 5; ++c) {
      auto* item = new QTableWidgetItem(p.count > 0 ? readable(v[c] * scale[i]) : tr("n/a"));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(i, c, item);
    }
  }

  const bool slo = std::isfinite(o.slo_ttft_s) || std::isfinite(o.slo_tpot_s);
  QString text;
  text += tr("<b>%1</b> of %2 requests completed").arg(r.completed).arg(o.requests);
  if (r.rejected > 0)
    text += tr(" (<b>%1 rejected</b>: %2)")
                .arg(r.rejected)
                .arg(QString::fromStdString(serving::rejection_text(r)).toHtmlEscaped());
  if (r.stopped) text += tr(" — <b>stopped</b> before the end");
  text += tr(" · makespan %1 s, %2 iterations<br>")
              .arg(QString::number(r.makespan_s, 'f', 2))
              .arg(QLocale().toString(static_cast<qulonglong>(r.iterations)));
  text += tr("Throughput <b>%1 output tok/s</b>, %2 input tok/s, %3 req/s<br>")
              .arg(readable(r.output_tokens_per_s), readable(r.input_tokens_per_s),
                   QString::number(r.requests_per_s, 'f', 2));
  if (slo)
    text += tr("Goodput <b>%1 req/s</b> meeting TTFT ≤ %2 and TPOT ≤ %3 (<b>%4 %</b> of all "
               "requests, the rejected ones as misses)<br>")
                .arg(QString::number(r.goodput_rps, 'f', 2))
                .arg(std::isfinite(o.slo_ttft_s) ? readable(o.slo_ttft_s) + tr(" s") : tr("any"))
                .arg(std::isfinite(o.slo_tpot_s) ? ms(o.slo_tpot_s) : tr("any"))
                .arg(QString::number(100 * r.slo_attainment, 'f', 1));
  else
    text += tr("Goodput: no SLO set<br>");
  text += tr("Energy <b>%1 J</b> per output token<br>")
              .arg(QString::number(r.energy_per_output_token_J, 'f', 3));
  std::uint64_t preempt = 0;
  double kvPeak = 0;
  for (const auto& s : r.instances) {
    preempt += s.preemptions;
    kvPeak = std::max(kvPeak, s.kv_peak_utilisation);
  }
  // One line each at the default window size (the summary sits beside the table).
  text += tr("%1 (peak %2 %), %3 preemptions<br>")
              .arg(o.pools)
              .arg(QString::number(100 * kvPeak, 'f', 0))
              .arg(QLocale().toString(static_cast<qulonglong>(preempt)));
  if (r.kv_transfers > 0)
    text += tr("KV moves: %1 (%2 GB), mean %3, p99 %4 with queueing<br>")
                .arg(QLocale().toString(static_cast<qulonglong>(r.kv_transfers)))
                .arg(readable(r.kv_transfer_bytes / 1e9), ms(r.kv_transfer_s.mean),
                     ms(r.kv_transfer_s.p99));
  text += tr("Requests: %1").arg(o.source.toHtmlEscaped());
  summary_->setText(text);
  const QString wall = o.wall_s < 1 ? ms(o.wall_s) : readable(o.wall_s) + tr(" s");
  status_->setText(r.stopped ? tr("Stopped after %1 of wall time (partial results)").arg(wall)
                             : tr("Simulated in %1 of wall time").arg(wall));
}

void ServingView::drawCdf(QCustomPlot* plot, std::vector<double> v, double slo_ms) {
  if (v.empty()) {
    showHint(plot, tr("No completed requests"));
    return;
  }
  plot->clearGraphs();
  plot->clearItems();
  plot->xAxis->setVisible(true);
  plot->yAxis->setVisible(true);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  // Empirical CDF as steps: F rises to (i+1)/n at the i-th smallest value.
  QVector<double> x{v.front()}, y{0.0};
  for (std::size_t i : cdfIndices(n)) {
    x.push_back(v[i]);
    y.push_back(static_cast<double>(i + 1) / static_cast<double>(n));
  }
  auto* g = plot->addGraph();
  g->setData(x, y, true);
  g->setLineStyle(QCPGraph::lsStepLeft);
  g->setPen(QPen(plot == ttft_ ? kTtftColour : kTpotColour, 2));
  plot->xAxis->setLabel(plot == ttft_ ? tr("TTFT (ms)") : tr("TPOT (ms)"));
  plot->yAxis->setLabel(tr("fraction of requests"));
  plot->yAxis->setRange(0, 1.05);
  // The SLO inside the range unless it is far beyond the data (then noted at the right edge).
  const bool hasSlo = std::isfinite(slo_ms);
  const bool sloInside = hasSlo && slo_ms <= 3 * v.back();
  double hi = std::max(v.back(), sloInside ? slo_ms : 0.0);
  if (hi <= 0) hi = 1;
  plot->xAxis->setRange(0, hi * 1.06);
  if (hasSlo) {
    const double within =
        static_cast<double>(std::upper_bound(v.begin(), v.end(), slo_ms) - v.begin()) /
        static_cast<double>(n);
    const QString sloText = tr("SLO %1\n%2 % within")
                                .arg(readable(slo_ms) + QStringLiteral(" ms"))
                                .arg(QString::number(100 * within, 'f', 1));
    auto* label = new QCPItemText(plot);
    label->setText(sloText);
    label->setColor(sloColour());
    QColor behind = QApplication::palette().color(QPalette::Base);
    behind.setAlpha(215);  // readable where the text crosses the curve
    label->setBrush(behind);
    label->setPadding(QMargins(4, 2, 4, 2));
    label->setTextAlignment(Qt::AlignLeft);
    if (sloInside) {
      auto* line = new QCPItemStraightLine(plot);
      line->point1->setCoords(slo_ms, 0);
      line->point2->setCoords(slo_ms, 1);
      line->setPen(QPen(sloColour(), 1.5, Qt::DashLine));
      // Left of the line when it sits in the right part of the plot, so the text stays inside.
      const bool left = slo_ms > 0.6 * hi * 1.06;
      label->position->setType(QCPItemPosition::ptPlotCoords);
      label->position->setCoords(slo_ms, 0.08);
      label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    } else {
      label->position->setType(QCPItemPosition::ptAxisRectRatio);
      label->position->setCoords(0.98, 0.92);
      label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
      label->setText(tr("SLO %1 →\n(beyond the plot; %2 % within)")
                         .arg(readable(slo_ms) + QStringLiteral(" ms"))
                         .arg(QString::number(100 * within, 'f', 1)));
    }
  }
  plot->replot();
}

void ServingView::drawTimeline() {
  if (!shown_) return;
  const auto& r = shown_->result;
  QCustomPlot* p = timeline_;
  p->clearGraphs();
  p->clearItems();
  const int which = timelineOf_->currentIndex() >= 0 ? timelineOf_->currentData().toInt() : 0;
  QVector<double> t, running, waiting, kv;
  if (which >= 0 && static_cast<std::size_t>(which) < r.instances.size()) {
    for (const auto& pt : r.instances[static_cast<std::size_t>(which)].timeline) {
      t.push_back(pt.t_s);
      running.push_back(pt.running);
      waiting.push_back(pt.waiting);
      kv.push_back(100 * pt.kv_utilisation);
    }
  } else if (!r.instances.empty()) {
    // Summed on a common grid: each instance holds its last sample until its next one, and is
    // idle after its last iteration. KV use is the mean over the (equal) instances.
    double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
    for (const auto& s : r.instances)
      if (!s.timeline.empty()) {
        t0 = std::min(t0, s.timeline.front().t_s);
        t1 = std::max(t1, s.timeline.back().t_s);
      }
    if (std::isfinite(t0)) {
      std::vector<std::size_t> at(r.instances.size(), 0);
      const int g = t1 > t0 ? kSumPoints : 1;
      for (int k = 0; k < g; ++k) {
        const double tk = g > 1 ? t0 + (t1 - t0) * k / (g - 1) : t0;
        double run = 0, wait = 0, used = 0;
        for (std::size_t i = 0; i < r.instances.size(); ++i) {
          const auto& tl = r.instances[i].timeline;
          while (at[i] + 1 < tl.size() && tl[at[i] + 1].t_s <= tk) ++at[i];
          if (tl.empty() || tl[at[i]].t_s > tk) continue;
          if (at[i] + 1 == tl.size() && tk > tl.back().t_s) continue;
          run += tl[at[i]].running;
          wait += tl[at[i]].waiting;
          used += tl[at[i]].kv_utilisation;
        }
        t.push_back(tk);
        running.push_back(run);
        waiting.push_back(wait);
        kv.push_back(100 * used / static_cast<double>(r.instances.size()));
      }
    }
  }
  if (t.isEmpty()) {
    showHint(p, tr("No iterations ran"));
    return;
  }
  for (QCPAxis* a : {p->xAxis, p->yAxis, p->yAxis2}) a->setVisible(true);
  p->yAxis2->setTickLabels(true);
  p->xAxis->setLabel(tr("simulated time (s)"));
  p->yAxis->setLabel(tr("sequences"));
  p->yAxis2->setLabel(tr("KV cache used (%)"));
  const auto series = [&](const QVector<double>& y, const QColor& c, QCPAxis* axis,
                          const QString& name) {
    auto* g = p->addGraph(p->xAxis, axis);
    g->setData(t, y, true);
    g->setLineStyle(QCPGraph::lsStepLeft);
    g->setPen(QPen(c, 1.6));
    g->setName(name);
  };
  series(running, kRunningColour, p->yAxis, tr("running"));
  series(waiting, kWaitingColour, p->yAxis, tr("waiting"));
  series(kv, kKvColour, p->yAxis2, tr("KV cache used"));
  double top = 1;
  for (int i = 0; i < t.size(); ++i) top = std::max({top, running[i], waiting[i]});
  p->yAxis->setRange(0, top * 1.08);
  p->yAxis2->setRange(0, 105);
  p->xAxis->setRange(t.front(), std::max(t.back(), t.front() + 1e-9));
  // The legend in a row of its own under the axes, so it never covers the data.
  if (p->plotLayout()->rowCount() < 3) {
    p->axisRect()->insetLayout()->take(p->legend);
    p->plotLayout()->addElement(2, 0, p->legend);
    p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    p->legend->setBorderPen(Qt::NoPen);
    p->legend->setMargins(QMargins(4, 0, 4, 2));
    p->plotLayout()->setRowStretchFactor(2, 0.001);
  }
  p->legend->setVisible(true);
  theme::stylePlot(p);
  p->replot();
}

ReviewSection ServingView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Serving");
  s.missing = tr("No serving run (the Serving tab's Run replays the project's requests).");
  if (result() == nullptr) return s;
  // A run of an earlier design or setting is being replaced: its figures are not this one's.
  if (running_ || debounce_.isActive()) {
    s.missing = tr("A run of the current design is in progress; export again when it has "
                   "finished.");
    return s;
  }
  if (const QString t = plainText(summary_); !t.isEmpty()) s.paragraphs << t;
  s.figures << ttft_ << tpot_ << timeline_;
  s.tables << table_;
  return s;
}

}  // namespace stackscope::ui
