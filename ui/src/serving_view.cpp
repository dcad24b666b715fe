// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/serving_view.hpp"

#include <qcustomplot.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/request.hpp"
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
  plot->setMinimumSize(280, 320);
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

QString routerName(serving::Router r) {
  switch (r) {
    case serving::Router::round_robin: return QObject::tr("round-robin");
    case serving::Router::join_shortest_queue: return QObject::tr("join shortest queue");
    case serving::Router::least_kv: return QObject::tr("least KV load");
  }
  return {};
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

  // ---- settings ----
  auto* form = new QGridLayout();
  form->setHorizontalSpacing(8);
  form->setVerticalSpacing(4);
  const auto label = [this](const QString& text, QWidget* buddy) {
    auto* l = new QLabel(text, this);
    l->setBuddy(buddy);
    return l;
  };
  const auto add = [&](int row, int col, const QString& text, QWidget* field) {
    form->addWidget(label(text, field), row, 2 * col, Qt::AlignRight);
    form->addWidget(field, row, 2 * col + 1);
  };
  source_ = new QComboBox(this);
  source_->setObjectName(QStringLiteral("servingSource"));
  source_->addItem(tr("Benchmark"), static_cast<int>(Source::benchmark));
  source_->addItem(tr("Poisson"), static_cast<int>(Source::poisson));
  source_->addItem(tr("Trace file"), static_cast<int>(Source::trace));
  source_->setToolTip(
      tr("Benchmark: N identical requests all arriving at t = 0, an infinite rate "
         "(trtllm-bench); Poisson: N requests at a mean rate; Trace: an Azure "
         "TIMESTAMP,ContextTokens,GeneratedTokens or "
         "arrival_s,input_tokens,output_tokens CSV"));
  requests_ = new QSpinBox(this);
  requests_->setObjectName(QStringLiteral("servingRequests"));
  requests_->setRange(1, 10'000'000);
  requests_->setValue(500);
  requests_->setGroupSeparatorShown(true);
  rate_ = new QDoubleSpinBox(this);
  rate_->setObjectName(QStringLiteral("servingRate"));
  rate_->setRange(0.001, 1e6);
  rate_->setDecimals(3);
  rate_->setValue(10);
  rate_->setToolTip(tr("Mean arrival rate of the Poisson process"));
  seed_ = new QSpinBox(this);
  seed_->setObjectName(QStringLiteral("servingSeed"));
  seed_->setRange(0, 1'000'000'000);
  seed_->setValue(1);
  seed_->setToolTip(tr("Seed of the generated arrivals and lengths"));
  add(0, 0, tr("Re&quests from:"), source_);
  add(0, 1, tr("Requests:"), requests_);
  add(0, 2, tr("Rate (req/s):"), rate_);
  add(0, 3, tr("Seed:"), seed_);

  trace_ = new QLineEdit(this);
  trace_->setObjectName(QStringLiteral("servingTrace"));
  trace_->setPlaceholderText(tr("CSV trace file"));
  browse_ = new QPushButton(tr("Browse…"), this);
  browse_->setObjectName(QStringLiteral("servingBrowse"));
  auto* traceRow = new QHBoxLayout();
  traceRow->addWidget(trace_, 1);
  traceRow->addWidget(browse_);
  form->addWidget(label(tr("Trace file:"), trace_), 1, 0, Qt::AlignRight);
  form->addLayout(traceRow, 1, 1, 1, 5);
  timeScale_ = new QDoubleSpinBox(this);
  timeScale_->setObjectName(QStringLiteral("servingTimeScale"));
  timeScale_->setRange(1e-6, 1e6);
  timeScale_->setDecimals(3);
  timeScale_->setValue(1);
  timeScale_->setToolTip(tr("Trace arrivals this many times faster (2 = twice the request rate)"));
  add(1, 3, tr("Time scale (×):"), timeScale_);

  const QString lengthTip =
      tr("Tokens per request: N, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA (a benchmark needs "
         "a fixed N)");
  input_ = new QLineEdit(QStringLiteral("1024"), this);
  input_->setObjectName(QStringLiteral("servingInput"));
  input_->setToolTip(lengthTip);
  output_ = new QLineEdit(QStringLiteral("256"), this);
  output_->setObjectName(QStringLiteral("servingOutput"));
  output_->setToolTip(lengthTip);
  instances_ = new QSpinBox(this);
  instances_->setObjectName(QStringLiteral("servingInstances"));
  instances_->setRange(0, 65'536);
  instances_->setSpecialValueText(tr("design dp"));
  instances_->setToolTip(tr("Co-located instances, each a replica of the design's plan"));
  router_ = new QComboBox(this);
  router_->setObjectName(QStringLiteral("servingRouter"));
  for (auto r : {serving::Router::round_robin, serving::Router::join_shortest_queue,
                 serving::Router::least_kv})
    router_->addItem(routerName(r), static_cast<int>(r));
  router_->setCurrentIndex(1);  // the CLI's default
  add(2, 0, tr("Input length (tok):"), input_);
  add(2, 1, tr("Output length (tok):"), output_);
  add(2, 2, tr("Instances:"), instances_);
  add(2, 3, tr("Router:"), router_);

  const serving::SchedulerConfig defaults;
  maxSeqs_ = new QSpinBox(this);
  maxSeqs_->setObjectName(QStringLiteral("servingMaxSeqs"));
  maxSeqs_->setRange(1, 1 << 20);
  maxSeqs_->setValue(defaults.max_num_seqs);
  maxSeqs_->setToolTip(tr("Running sequences per instance (vLLM max_num_seqs)"));
  maxTokens_ = new QSpinBox(this);
  maxTokens_->setObjectName(QStringLiteral("servingMaxTokens"));
  maxTokens_->setRange(1, 100'000'000);
  maxTokens_->setValue(defaults.max_num_batched_tokens);
  maxTokens_->setGroupSeparatorShown(true);
  maxTokens_->setToolTip(tr("Token budget of one iteration (vLLM max_num_batched_tokens)"));
  chunked_ = new QCheckBox(tr("on"), this);
  chunked_->setObjectName(QStringLiteral("servingChunked"));
  chunked_->setChecked(defaults.chunked_prefill);
  chunked_->setToolTip(tr("Split prompts over iterations within the token budget"));
  kvPolicy_ = new QComboBox(this);
  kvPolicy_->setObjectName(QStringLiteral("servingKvPolicy"));
  kvPolicy_->addItem(tr("max utilization"), static_cast<int>(serving::KvPolicy::max_utilization));
  kvPolicy_->addItem(tr("no evict"), static_cast<int>(serving::KvPolicy::guaranteed_no_evict));
  kvPolicy_->setToolTip(
      tr("max utilization: allocate KV blocks as tokens are scheduled and preempt on a shortage "
         "(vLLM); no evict: reserve each request's whole length at admission (TensorRT-LLM "
         "GUARANTEED_NO_EVICT)"));
  add(3, 0, tr("max_num_seqs:"), maxSeqs_);
  add(3, 1, tr("max_num_batched_tokens:"), maxTokens_);
  add(3, 2, tr("Chunked prefill:"), chunked_);
  add(3, 3, tr("KV policy:"), kvPolicy_);

  sloTtft_ = new QDoubleSpinBox(this);
  sloTtft_->setObjectName(QStringLiteral("servingSloTtft"));
  sloTtft_->setRange(0, 1e6);
  sloTtft_->setDecimals(3);
  sloTtft_->setSpecialValueText(tr("none"));
  sloTtft_->setValue(2);
  sloTpot_ = new QDoubleSpinBox(this);
  sloTpot_->setObjectName(QStringLiteral("servingSloTpot"));
  sloTpot_->setRange(0, 1e6);
  sloTpot_->setDecimals(1);
  sloTpot_->setSpecialValueText(tr("none"));
  sloTpot_->setValue(100);
  add(4, 0, tr("SLO TTFT (s):"), sloTtft_);
  add(4, 1, tr("SLO TPOT (ms):"), sloTpot_);
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
  auto* runRow = new QHBoxLayout();
  runRow->addWidget(run_);
  runRow->addWidget(stop_);
  runRow->addWidget(error_, 1);
  form->addLayout(runRow, 4, 4, 1, 4);
  for (int c = 1; c < 8; c += 2) form->setColumnStretch(c, 1);
  box->addLayout(form);

  // ---- results ----
  auto* head = new QHBoxLayout();
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("hint"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  head->addWidget(status_, 1);
  timelineOf_ = new QComboBox(this);
  timelineOf_->setObjectName(QStringLiteral("servingTimelineOf"));
  timelineOf_->setToolTip(tr("Timeline of one instance, or of all of them summed"));
  timelineOf_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  head->addWidget(label(tr("Timeline of:"), timelineOf_));
  head->addWidget(timelineOf_);
  box->addLayout(head);

  auto* plots = new QHBoxLayout();
  ttft_ = makePlot(this, tr("Time to first token"), QStringLiteral("serving-ttft"));
  tpot_ = makePlot(this, tr("Time per output token"), QStringLiteral("serving-tpot"));
  timeline_ =
      makePlot(this, tr("Sequences and KV cache over time"), QStringLiteral("serving-timeline"));
  plots->addWidget(ttft_, 1);
  plots->addWidget(tpot_, 1);
  plots->addWidget(timeline_, 1);
  box->addLayout(plots, 1);

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
  box->addLayout(bottom);

  debounce_.setSingleShot(true);
  debounce_.setInterval(kDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, [this] {
    QString err;
    if (snapshot(&err)) run();
  });
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(stop_, &QPushButton::clicked, this, &ServingView::stop);
  connect(browse_, &QPushButton::clicked, this, &ServingView::browseTrace);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<const Outcome>>::finished, this,
          &ServingView::onFinished);
  connect(timelineOf_, &QComboBox::currentIndexChanged, this, [this] { drawTimeline(); });
  const auto changed = [this] { settingsChanged(); };
  connect(source_, &QComboBox::currentIndexChanged, this, changed);
  for (QLineEdit* e : {trace_, input_, output_}) connect(e, &QLineEdit::textChanged, this, changed);
  for (QSpinBox* s : {requests_, seed_, instances_, maxSeqs_, maxTokens_})
    connect(s, &QSpinBox::valueChanged, this, changed);
  for (QDoubleSpinBox* s : {rate_, timeScale_, sloTtft_, sloTpot_})
    connect(s, &QDoubleSpinBox::valueChanged, this, changed);
  settingsChanged();
  showOutcome();
}

ServingView::~ServingView() {
  stopSource_.request_stop();
  pool_.waitForDone();
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

void ServingView::setSource(Source source) {
  source_->setCurrentIndex(source_->findData(static_cast<int>(source)));
}

void ServingView::setRequests(int requests) {
  requests_->setValue(requests);
}

void ServingView::setLengths(const QString& input, const QString& output) {
  input_->setText(input);
  output_->setText(output);
}

void ServingView::setSlo(double ttft_s, double tpot_s) {
  sloTtft_->setValue(ttft_s);
  sloTpot_->setValue(tpot_s * 1e3);
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
  const auto src = static_cast<Source>(source_->currentData().toInt());
  requests_->setEnabled(src != Source::trace);
  rate_->setEnabled(src == Source::poisson);
  seed_->setEnabled(src == Source::poisson);
  trace_->setEnabled(src == Source::trace);
  browse_->setEnabled(src == Source::trace);
  timeScale_->setEnabled(src == Source::trace);
  input_->setEnabled(src != Source::trace);
  output_->setEnabled(src != Source::trace);
  QString err;
  const bool ok = snapshot(&err).has_value();
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
  j.source = static_cast<Source>(source_->currentData().toInt());
  j.requests = static_cast<std::size_t>(requests_->value());
  j.rate_per_s = rate_->value();
  j.seed = static_cast<std::uint64_t>(seed_->value());
  if (j.source == Source::trace) {
    j.trace = trace_->text().trimmed().toStdString();
    if (j.trace.empty()) return fail(tr("Trace file: choose a CSV file (Browse…)"));
    const QFileInfo fi(trace_->text().trimmed());
    if (!fi.isFile() || !fi.isReadable())
      return fail(tr("Trace file: %1 is not a readable file").arg(trace_->text().trimmed()));
    j.time_scale = timeScale_->value();
  } else {
    try {
      j.input = serving::parse_length_dist(input_->text().trimmed().toStdString(), "input length");
      j.output =
          serving::parse_length_dist(output_->text().trimmed().toStdString(), "output length");
    } catch (const ConfigError& e) {
      return fail(issueText(e));
    }
    if (j.source == Source::benchmark && (j.input.kind != serving::LengthDist::Kind::fixed ||
                                          j.output.kind != serving::LengthDist::Kind::fixed))
      return fail(
          tr("A benchmark needs fixed lengths (a whole number of tokens, as "
             "trtllm-bench's synthetic datasets)"));
  }
  j.scheduler.max_num_seqs = maxSeqs_->value();
  j.scheduler.max_num_batched_tokens = maxTokens_->value();
  j.scheduler.chunked_prefill = chunked_->isChecked();
  j.scheduler.kv_policy = static_cast<serving::KvPolicy>(kvPolicy_->currentData().toInt());
  j.options.router = static_cast<serving::Router>(router_->currentData().toInt());
  if (sloTtft_->value() > 0) j.options.slo_ttft_s = sloTtft_->value();
  if (sloTpot_->value() > 0) j.options.slo_tpot_s = sloTpot_->value() / 1e3;
  j.instances = instances_->value() > 0 ? instances_->value() : std::max(1, design_->parallel.dp);
  return j;
}

ServingView::Outcome ServingView::execute(const Job& job) {
  Outcome o;
  o.instances = job.instances;
  o.slo_ttft_s = job.options.slo_ttft_s;
  o.slo_tpot_s = job.options.slo_tpot_s;
  QElapsedTimer timer;
  timer.start();
  try {
    std::vector<serving::Request> reqs;
    switch (job.source) {
      case Source::benchmark:
        reqs = serving::benchmark(job.requests, static_cast<int>(job.input.a),
                                  static_cast<int>(job.output.a));
        o.source = QObject::tr("benchmark of %1 requests at an infinite rate")
                       .arg(QLocale().toString(static_cast<qulonglong>(job.requests)));
        break;
      case Source::poisson: {
        serving::GeneratorSpec g;
        g.arrivals.rate_per_s = job.rate_per_s;
        g.requests = job.requests;
        g.seed = job.seed;
        g.input = job.input;
        g.output = job.output;
        reqs = serving::generate(g);
        o.source = QObject::tr("%1 Poisson arrivals at %2/s")
                       .arg(QLocale().toString(static_cast<qulonglong>(job.requests)))
                       .arg(readable(job.rate_per_s));
        break;
      }
      case Source::trace: {
        serving::TraceStats st;
        reqs = io::load_trace(job.trace, serving::TraceFormat::automatic, &st);
        if (job.time_scale != 1) reqs = serving::scale_time(std::move(reqs), job.time_scale);
        o.source = QObject::tr("trace %1 (%2 requests over %3 s%4)")
                       .arg(QFileInfo(qs(job.trace)).fileName())
                       .arg(QLocale().toString(static_cast<qulonglong>(st.rows)))
                       .arg(QString::number(st.duration_s, 'f', 0))
                       .arg(job.time_scale != 1 ? QObject::tr(", ×%1").arg(readable(job.time_scale))
                                                : QString());
        break;
      }
    }
    o.requests = reqs.size();
    auto inst = serving::colocated_instances(job.design, job.scheduler, job.instances);
    o.kv_blocks = inst.front().kv_blocks;
    o.devices = inst.front().devices;
    o.result = serving::simulate(reqs, std::move(inst), job.options);
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
  job->options.stop = stopSource_.get_token();
  ++generation_;
  running_ = true;
  everRun_ = true;
  runError_.clear();
  error_->clear();
  stop_->setEnabled(true);
  status_->setText(job->source == Source::trace
                       ? tr("Replaying the trace…")
                       : tr("Simulating %1 requests…")
                             .arg(QLocale().toString(static_cast<qulonglong>(job->requests))));
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
  instances_->setSpecialValueText(tr("design dp (%1)").arg(std::max(1, design.parallel.dp)));
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

void ServingView::browseTrace() {
  const QString start = trace_->text().isEmpty() ? QString() : QFileInfo(trace_->text()).path();
  const QString f = QFileDialog::getOpenFileName(this, tr("Request trace"), start,
                                                 tr("CSV traces (*.csv);;All files (*)"));
  if (!f.isEmpty()) trace_->setText(f);
}

void ServingView::drawEmpty() {
  const QString hint = tr("Press Run to replay requests on this design");
  for (QCustomPlot* p : {ttft_, tpot_, timeline_}) showHint(p, hint);
  for (int r = 0; r < table_->rowCount(); ++r)
    for (int c = 0; c < table_->columnCount(); ++c)
      table_->setItem(r, c, new QTableWidgetItem(QStringLiteral("–")));
  summary_->setText(
      tr("Replays a request stream on co-located instances of the design with continuous "
         "batching as vLLM and TensorRT-LLM do it (a token budget and a sequence cap per "
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
  if (r.rejected > 0) text += tr(" (<b>%1 rejected</b>: they can never fit)").arg(r.rejected);
  if (r.stopped) text += tr(" — <b>stopped</b> before the end");
  text += tr(" · makespan %1 s, %2 iterations<br>")
              .arg(QString::number(r.makespan_s, 'f', 2))
              .arg(QLocale().toString(static_cast<qulonglong>(r.iterations)));
  text += tr("Throughput <b>%1 output tok/s</b>, %2 input tok/s, %3 req/s<br>")
              .arg(readable(r.output_tokens_per_s), readable(r.input_tokens_per_s),
                   QString::number(r.requests_per_s, 'f', 2));
  if (slo)
    text += tr("Goodput <b>%1 req/s</b> meeting TTFT ≤ %2 and TPOT ≤ %3 (<b>%4 %</b> of requests)"
               "<br>")
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
  text += tr("%1 instance(s) × %2 devices, KV cache %3 blocks each · %4 preemptions · KV peak "
             "%5 %<br>Requests: %6")
              .arg(o.instances)
              .arg(o.devices)
              .arg(QLocale().toString(static_cast<qlonglong>(o.kv_blocks)))
              .arg(QLocale().toString(static_cast<qulonglong>(preempt)))
              .arg(QString::number(100 * kvPeak, 'f', 0))
              .arg(o.source.toHtmlEscaped());
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

}  // namespace stackscope::ui
