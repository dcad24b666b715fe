// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/experts_view.hpp"

#include "stackscope/ui/review_section.hpp"

#include "expert_mesh_canvas.hpp"
#include "experts_view_detail.hpp"

namespace stackscope::ui {

using namespace experts_view_detail;

ExpertsView::ExpertsView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("expertsView"));
  pool_.setMaxThreadCount(1);  // a stopped run ends before the next one starts
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(4, 4, 4, 4);

  // ---- the run row first (a result pane adds its buttons at its end), then the settings ----
  auto* head = new QHBoxLayout();
  run_ = new QPushButton(tr("&Run"), this);
  run_->setObjectName(QStringLiteral("expertsRun"));
  run_->setToolTip(tr("Compare the placement strategies on the design (stackscope-cli moe "
                      "--compare)"));
  stop_ = new QPushButton(tr("S&top"), this);
  stop_->setObjectName(QStringLiteral("expertsStop"));
  stop_->setEnabled(false);
  stop_->setToolTip(tr("Stop after the layer being compared; the layers done are shown"));
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("hint"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setSizePolicy(QSizePolicy::Ignored, status_->sizePolicy().verticalPolicy());
  strategy_ = new QComboBox(this);
  strategy_->setObjectName(QStringLiteral("expertsStrategy"));
  for (const Strategy s : experts::all_strategies()) {
    strategy_->addItem(strategyName(s), static_cast<int>(s));
    strategy_->setItemData(strategy_->count() - 1, strategyTip(s), Qt::ToolTipRole);
  }
  strategy_->setCurrentIndex(strategy_->findData(static_cast<int>(Strategy::hd)));
  strategy_->setToolTip(tr("The strategy whose placement and link loads are drawn"));
  layer_ = new QComboBox(this);
  layer_->setObjectName(QStringLiteral("expertsLayer"));
  layer_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  layer_->setToolTip(tr("The evaluated MoE layer drawn (its placement and first eval batch)"));
  auto* strategyLabel = new QLabel(tr("Strategy:"), this);
  strategyLabel->setBuddy(strategy_);
  auto* layerLabel = new QLabel(tr("Layer:"), this);
  layerLabel->setBuddy(layer_);
  head->addWidget(run_);
  head->addWidget(stop_);
  head->addWidget(status_, 1);
  head->addWidget(strategyLabel);
  head->addWidget(strategy_);
  head->addWidget(layerLabel);
  head->addWidget(layer_);
  box->addLayout(head);

  auto* form = new QHBoxLayout();
  const auto field = [&](const QString& label, QWidget* w, const QString& tip) {
    auto* l = new QLabel(label, this);
    l->setBuddy(w);
    w->setToolTip(tip);
    form->addWidget(l);
    form->addWidget(w);
    form->addSpacing(8);
  };
  batch_ = new QSpinBox(this);
  batch_->setObjectName(QStringLiteral("expertsBatch"));
  batch_->setRange(0, 65536);
  batch_->setSpecialValueText(tr("design's"));
  batch_->setSuffix(tr(" tok"));
  field(tr("Batch:"), batch_,
        tr("Tokens per batch scored per layer; \"design's\" takes the workload's batch"));
  batches_ = new QSpinBox(this);
  batches_->setObjectName(QStringLiteral("expertsBatches"));
  batches_->setRange(1, 1024);
  field(tr("Batches:"), batches_, tr("Eval batches per layer; the layer time is their mean"));
  limit_ = new QDoubleSpinBox(this);
  limit_->setObjectName(QStringLiteral("expertsTimeLimit"));
  limit_->setRange(0.01, 3600);
  limit_->setDecimals(2);
  limit_->setSingleStep(0.5);
  limit_->setSuffix(tr(" s"));
  field(tr("GLPK limit:"), limit_,
        tr("Time limit per layer of HD-MoE's node-balance MILP (GLPK); a MILP that does not "
           "close keeps its best solution, never worse than its warm starts"));
  eplb_ = new QSpinBox(this);
  eplb_->setObjectName(QStringLiteral("expertsEplbSlots"));
  eplb_->setRange(-1, 65536);
  eplb_->setSpecialValueText(tr("auto"));
  field(tr("EPLB slots:"), eplb_,
        tr("Redundant expert slots of EPLB; auto: the fewest >= 1 making experts + slots a "
           "multiple of the nodes"));
  stride_ = new QSpinBox(this);
  stride_->setObjectName(QStringLiteral("expertsStride"));
  stride_->setRange(1, 4096);
  stride_->setPrefix(tr("every "));
  field(tr("Layers:"), stride_,
        tr("Evaluate every k-th MoE layer (0, k, 2k, ...); each costs one GLPK solve"));
  form->addStretch(1);
  box->addLayout(form);

  info_ = new QLabel(this);
  info_->setObjectName(QStringLiteral("expertsInfo"));
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->addWidget(info_);

  // ---- results: placement and links on top, compute and the table below ----
  results_ = new QWidget(this);
  results_->setObjectName(QStringLiteral("expertsResults"));
  auto* grid = new QGridLayout(results_);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(8);

  heat_ = makePlot(results_, QStringLiteral("experts-placement"));
  heat_->axisRect()->setupFullAxesBox(true);
  map_ = new QCPColorMap(heat_->xAxis, heat_->yAxis);
  map_->setInterpolate(false);
  scale_ = new QCPColorScale(heat_);
  heat_->plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  scale_->axis()->setLabel(tr("column share (copies summed)"));
  scale_->setBarWidth(12);
  map_->setColorScale(scale_);
  auto* group = new QCPMarginGroup(heat_);
  heat_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  heat_->xAxis->setLabel(tr("mesh node (id = y · X + x)"));
  heat_->yAxis->setLabel(tr("routed expert"));
  heat_->yAxis->setRangeReversed(true);  // expert 0 at the top, as a table reads
  for (QCPAxis* a : {heat_->xAxis, heat_->yAxis}) a->grid()->setVisible(false);
  theme::stylePlot(heat_);
  grid->addWidget(heat_, 0, 0);
  compute_ = makePlot(results_, QStringLiteral("experts-compute"));
  compute_->xAxis->setLabel(tr("mesh node"));
  compute_->yAxis->setLabel(tr("expert compute (µs)"));
  {
    // The legend in rows of its own under the axes, so it never covers the bars; set before
    // any item is added (the wrap applies as items are placed).
    compute_->axisRect()->insetLayout()->take(compute_->legend);
    compute_->plotLayout()->addElement(2, 0, compute_->legend);
    compute_->legend->setWrap(4);
    compute_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    compute_->legend->setBorderPen(Qt::NoPen);
    compute_->legend->setMargins(QMargins(4, 0, 4, 2));
    compute_->plotLayout()->setRowStretchFactor(2, 0.001);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
    compute_->legend->setFont(small);
    compute_->legend->setIconSize(18, 10);
    compute_->legend->setVisible(false);
  }
  grid->addWidget(compute_, 0, 1);

  auto* meshBox = new QVBoxLayout();
  meshBox->setSpacing(2);
  meshTitle_ = new QLabel(results_);
  meshTitle_->setObjectName(QStringLiteral("sectionTitle"));
  meshTitle_->setWordWrap(true);
  meshTitle_->setAlignment(Qt::AlignHCenter);
  meshBox->addWidget(meshTitle_);
  mesh_ = new ExpertMeshCanvas(results_);
  mesh_->setObjectName(QStringLiteral("expertsMesh"));
  attachExportMenu(mesh_, QStringLiteral("experts-links"));
  meshBox->addWidget(mesh_, 1);
  grid->addLayout(meshBox, 0, 2);

  auto* tableBox = new QVBoxLayout();
  tableBox->setSpacing(4);
  auto* tableTitle = new QLabel(tr("Speedups of the end-to-end time between tokens and of the "
                                   "MoE layers alone; times per strategy"),
                                results_);
  tableTitle->setObjectName(QStringLiteral("sectionTitle"));
  tableTitle->setWordWrap(true);
  tableBox->addWidget(tableTitle);
  const auto strategies = experts::all_strategies();
  table_ = new QTableWidget(static_cast<int>(strategies.size()), kColumns, results_);
  table_->setObjectName(QStringLiteral("expertsSpeedups"));
  // Two-line labels: ten columns share the view's width down to 1280-px screens.
  table_->setHorizontalHeaderLabels({tr("over\nTP"), tr("over\nEP"), tr("over\nbalanced"),
                                     tr("MoE over\nTP"), tr("MoE over\nEP"),
                                     tr("MoE over\nbalanced"), tr("µs /\ntoken"),
                                     tr("MoE µs\n/ layer"), tr("imbalance"),
                                     tr("busiest\nlink")});
  for (int c = 0; c < 3; ++c) {
    table_->horizontalHeaderItem(c)->setToolTip(
        tr("Speedup of the end-to-end time between tokens (MoE layers + non-MoE time)"));
    table_->horizontalHeaderItem(c + 3)->setToolTip(tr("Speedup of the MoE layers alone"));
  }
  QStringList rows;
  for (const Strategy s : strategies) rows << strategyName(s);
  table_->setVerticalHeaderLabels(rows);
  table_->horizontalHeaderItem(6)->setToolTip(
      tr("End-to-end time between tokens: MoE layers plus the non-MoE (attention) time, µs"));
  table_->horizontalHeaderItem(7)->setToolTip(tr("Mean simulated MoE layer time, µs"));
  table_->horizontalHeaderItem(8)->setToolTip(tr("Max / mean node compute, mean over layers"));
  table_->horizontalHeaderItem(9)->setToolTip(
      tr("The busiest directed link's busy time / layer time, mean over layers and batches"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setMinimumSectionSize(48);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setToolTip(tr("Click a row to draw that strategy"));
  tableBox->addWidget(table_);
  solve_ = new QLabel(results_);
  solve_->setObjectName(QStringLiteral("hint"));
  solve_->setWordWrap(true);
  solve_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  solve_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tableBox->addWidget(solve_);
  grid->addLayout(tableBox, 1, 0, 1, 3);
  for (int c = 0; c < 3; ++c) grid->setColumnStretch(c, 1);
  grid->setRowStretch(0, 1);
  box->addWidget(results_, 1);

  {
    // Form values from the defaults, before the signals are connected.
    batch_->setValue(settings_.batch);
    batches_->setValue(settings_.batches);
    limit_->setValue(settings_.time_limit_s);
    eplb_->setValue(settings_.eplb_redundant);
    stride_->setValue(settings_.layer_stride);
  }

  debounce_.setSingleShot(true);
  debounce_.setInterval(kDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, [this] { run(); });
  progress_.setInterval(100);
  connect(&progress_, &QTimer::timeout, this, [this] {
    if (!running_ || !layersDone_) return;
    status_->setText(tr("Running… %1 of %2 layers compared (GLPK up to %3 s per layer)")
                         .arg(layersDone_->load())
                         .arg(layersPlanned_)
                         .arg(readable(settings_.time_limit_s)));
  });
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(stop_, &QPushButton::clicked, this, &ExpertsView::stop);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<const Outcome>>::finished, this,
          &ExpertsView::onFinished);
  connect(strategy_, &QComboBox::currentIndexChanged, this, [this] { showSelection(); });
  connect(layer_, &QComboBox::currentIndexChanged, this, [this] { showSelection(); });
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (!shown_ || row < 0 || static_cast<std::size_t>(row) >= shown_->result.strategies.size())
      return;
    setStrategy(shown_->result.strategies[static_cast<std::size_t>(row)].strategy);
  });
  for (QSpinBox* s : {batch_, batches_, eplb_, stride_})
    connect(s, &QSpinBox::valueChanged, this, [this] { readForm(); });
  connect(limit_, &QDoubleSpinBox::valueChanged, this, [this] { readForm(); });
  showOutcome();
}

ExpertsView::~ExpertsView() {
  stopSource_.request_stop();
  pool_.waitForDone();
}

QWidget* ExpertsView::meshCanvas() const {
  return mesh_;
}

std::optional<experts::MeshConfig> ExpertsView::meshOf(const perf::Design& d, QString* why) {
  const hw::NetworkLevel* level = nullptr;
  for (const auto& l : d.system.levels)
    if (l.topology == hw::Topology::mesh2d) {
      level = &l;
      break;
    }
  if (!level) {
    if (why) *why = tr("the system %1 has no mesh2d level").arg(qs(d.system.id));
    return std::nullopt;
  }
  experts::MeshConfig m;
  m.x = level->dims_x;
  m.y = level->dims_y;
  if (m.x < 1 || m.y < 1) {
    // 0 = squarest (hardware.hpp): the largest divisor of the size up to its square root.
    m.y = 1;
    for (int k = 1; k * k <= level->size; ++k)
      if (level->size % k == 0) m.y = k;
    m.x = std::max(1, level->size / m.y);
  }
  m.link_Bps = level->link_GBps * 1e9;
  m.alpha_s = level->latency_us * 1e-6;
  m.node_flops = hw::matrix_peak_flops(d.hardware.compute, Precision::bf16);
  m.mem_Bps = memory::effective_bandwidth(d.hardware.memory, d.hardware.compute, {}).peak_Bps;
  if (!(m.node_flops > 0) || !(m.mem_Bps > 0) || !(m.link_Bps > 0)) {
    if (why) *why = tr("the device gives no BF16 compute, memory or link rate");
    return std::nullopt;
  }
  return m;
}

std::optional<ExpertsView::Job> ExpertsView::snapshot(const perf::Design& d,
                                                      const Settings& s, QString* why) {
  const auto fail = [&](const QString& reason) {
    if (why) *why = notApplicable() + tr(" (here %1).").arg(reason);
    return std::optional<Job>();
  };
  if (d.model.moe.experts < 1)
    return fail(tr("the model %1 has no routed experts").arg(qs(d.model.name)));
  QString meshWhy;
  const auto mesh = meshOf(d, &meshWhy);
  if (!mesh) return fail(meshWhy);
  Job j;
  j.model = d.model;
  j.routing = d.workload.routing;
  j.config.mesh = *mesh;
  j.config.batch = std::clamp(s.batch > 0 ? s.batch : d.workload.batch, 1, 65536);
  j.config.batches = std::clamp(s.batches, 1, 1024);
  j.config.hd_time_limit_s = std::max(1e-3, s.time_limit_s);
  j.config.eplb_redundant = s.eplb_redundant;
  j.config.capacity_bytes = hw::memory_capacity_bytes(d.hardware.memory);
  if (!(j.config.capacity_bytes > 0)) j.config.capacity_bytes = lp::kInf;
  j.layer_stride = std::max(1, s.layer_stride);
  return j;
}

ExpertsView::Outcome ExpertsView::execute(const Job& job) {
  Outcome o;
  QElapsedTimer timer;
  timer.start();
  o.mesh = job.config.mesh;
  o.batch = job.config.batch;
  o.batches = job.config.batches;
  try {
    const auto& model = job.model;
    const int E = model.moe.experts, K = model.moe.top_k;
    const int moeLayers = model.layers - model.moe.first_dense_layers;
    std::vector<moe::RoutingTrace> fit, eval;
    const auto& r = job.routing;
    if (r.kind == workload::RoutingKind::trace && !r.trace.empty()) {
      // As `stackscope-cli moe --trace FILE`: fitted on its first half of tokens, scored on
      // the second.
      auto t = io::load_moe_trace(r.trace, E, K);
      t.source = std::filesystem::path(r.trace).stem().string();
      std::size_t fewest = t.tokens(0);
      for (std::size_t l = 0; l < t.layers.size(); ++l) fewest = std::min(fewest, t.tokens(l));
      if (fewest < 2)
        throw std::invalid_argument("trace " + r.trace + " has fewer than 2 tokens in a layer");
      fit.push_back(experts::token_range(t, 0, fewest / 2));
      eval.push_back(experts::token_range(t, fewest / 2, fewest));
      o.fit = tr("%1 (first half of its tokens)").arg(qs(t.source));
      o.eval = tr("its second half");
    } else {
      // As the CLI: fitted on one seeded draw, scored on the next.
      const std::size_t tokens =
          static_cast<std::size_t>(job.config.batch) * static_cast<std::size_t>(job.config.batches);
      const std::size_t fitTokens = std::max<std::size_t>(tokens, 4096);
      fit.push_back(moe::synthetic_trace(r, E, K, moeLayers, fitTokens, r.seed));
      eval.push_back(moe::synthetic_trace(r, E, K, moeLayers, tokens, r.seed + 1));
      o.fit = tr("%1 (%2 tokens)").arg(qs(fit.front().source)).arg(fitTokens);
      o.eval = qs(eval.front().source);
    }
    std::size_t traceLayers = SIZE_MAX;
    for (const auto* v : {&fit, &eval})
      for (const auto& t : *v) traceLayers = std::min(traceLayers, t.layers.size());
    std::vector<int> layers;
    for (std::size_t l = 0; l < traceLayers; l += static_cast<std::size_t>(job.layer_stride))
      layers.push_back(static_cast<int>(l));
    o.layers_planned = static_cast<int>(layers.size());

    // One layer per call (each layer's outcome depends on that layer alone, compare.hpp), so a
    // stop takes effect between layers and every layer keeps its first batch for the views.
    std::vector<experts::CompareResult> parts;
    experts::CompareConfig cfg = job.config;
    for (const int l : layers) {
      if (job.stop.stop_requested()) {
        o.stopped = true;
        break;
      }
      cfg.layers = {l};
      parts.push_back(experts::compare(model, cfg, fit, eval));
      if (job.layers_done) ++*job.layers_done;
    }
    if (parts.empty()) {
      o.error = tr("Stopped before the first layer");
      o.wall_s = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
      return o;
    }
    // Merged as compare() merges its layers: mean layer time × MoE layers, plus the non-MoE
    // time per MoE layer; imbalance, busiest link and surrogate error as means over layers.
    auto& m = o.result;
    m = parts.front();
    m.layers.clear();
    m.hd.clear();
    for (auto& s : m.strategies) {
      s.layers.clear();
      s.placements.clear();
    }
    for (const auto& p : parts) {
      m.layers.insert(m.layers.end(), p.layers.begin(), p.layers.end());
      m.hd.insert(m.hd.end(), p.hd.begin(), p.hd.end());
      std::vector<experts::LayerResult> first;
      for (std::size_t s = 0; s < m.strategies.size(); ++s) {
        auto& ms = m.strategies[s];
        const auto& ps = p.strategies[s];
        ms.layers.insert(ms.layers.end(), ps.layers.begin(), ps.layers.end());
        ms.placements.insert(ms.placements.end(), ps.placements.begin(), ps.placements.end());
        first.push_back(ps.first);
      }
      o.firsts.push_back(std::move(first));
    }
    experts::summarise(m);
  } catch (const std::exception& e) {
    o.error = QString::fromLocal8Bit(e.what());
  }
  o.wall_s = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
  return o;
}

void ExpertsView::readForm() {
  Settings s;
  s.batch = batch_->value();
  s.batches = batches_->value();
  s.time_limit_s = limit_->value();
  s.eplb_redundant = eplb_->value();
  s.layer_stride = stride_->value();
  if (s == settings_) return;
  settings_ = s;
  schedule();
}

void ExpertsView::setSettings(const Settings& s) {
  {
    const QSignalBlocker b1(batch_), b2(batches_), b3(limit_), b4(eplb_), b5(stride_);
    batch_->setValue(s.batch);
    batches_->setValue(s.batches);
    limit_->setValue(s.time_limit_s);
    eplb_->setValue(s.eplb_redundant);
    stride_->setValue(s.layer_stride);
  }
  readForm();
}

void ExpertsView::setStrategy(Strategy s) {
  const int i = strategy_->findData(static_cast<int>(s));
  if (i >= 0) strategy_->setCurrentIndex(i);
}

Strategy ExpertsView::strategy() const {
  return static_cast<Strategy>(strategy_->currentData().toInt());
}

void ExpertsView::setLayerIndex(int index) {
  if (index >= 0 && index < layer_->count()) layer_->setCurrentIndex(index);
}

int ExpertsView::layerIndex() const {
  return std::max(0, layer_->currentIndex());
}

QString ExpertsView::hint() const {
  return hint_;
}

QString ExpertsView::status() const {
  return status_->text();
}

void ExpertsView::schedule() {
  if (!design_) return;
  if (isVisible()) {
    stale_ = false;
    debounce_.start();
  } else {
    stale_ = true;
  }
}

void ExpertsView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (stale_ && design_) {
    stale_ = false;
    debounce_.start();
  }
}

void ExpertsView::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::PaletteChange && heat_ != nullptr) {
    theme::stylePlot(heat_);
    theme::stylePlot(compute_);
    showSelection();
  }
}

void ExpertsView::setDesign(const perf::Design& design) {
  design_ = design;
  updateHint();
  schedule();
}

void ExpertsView::clearDesign() {
  design_.reset();
  debounce_.stop();
  stopSource_.request_stop();
  stale_ = false;
  updateHint();
}

void ExpertsView::updateHint() {
  QString why;
  if (!design_)
    hint_ = tr("No valid design: fix the fields marked in red on the left to compare expert "
               "placements");
  else if (!snapshot(*design_, settings_, &why))
    hint_ = why;
  else if (!shown_)
    hint_ = running_ ? tr("Comparing the placement strategies…")
                     : tr("Press Run (or show this tab) to compare the placement strategies");
  else
    hint_.clear();
  if (!hint_.isEmpty()) {
    showHint(results_, hint_);
    info_->setText(QString());
  } else {
    hideHint(results_);
  }
  run_->setEnabled(design_ && snapshot(*design_, settings_, nullptr).has_value());
}

bool ExpertsView::run() {
  debounce_.stop();
  stale_ = false;
  QString why;
  auto job = design_ ? snapshot(*design_, settings_, &why) : std::nullopt;
  if (!job) {
    updateHint();
    return false;
  }
  stopSource_.request_stop();  // a run in flight ends after its layer; its result is dropped
  stopSource_ = std::stop_source();
  job->stop = stopSource_.get_token();
  layersDone_ = std::make_shared<std::atomic<int>>(0);
  job->layers_done = layersDone_;
  // The layers the worker will plan (its traces have the model's MoE layers, or the file's).
  const int moeLayers = job->model.layers - job->model.moe.first_dense_layers;
  layersPlanned_ = std::max(1, (moeLayers + job->layer_stride - 1) / job->layer_stride);
  running_ = true;
  stop_->setEnabled(true);
  status_->setText(tr("Running… comparing %1 layers").arg(layersPlanned_));
  progress_.start();
  updateHint();
  // A newer run waits for the older one's current layer (one thread); only values cross.
  watcher_.setFuture(QtConcurrent::run(
      &pool_, [j = std::move(*job)] { return std::make_shared<const Outcome>(execute(j)); }));
  return true;
}

void ExpertsView::stop() {
  debounce_.stop();
  stopSource_.request_stop();
  stop_->setEnabled(false);
  if (running_) status_->setText(tr("Stopping after the current layer…"));
}

void ExpertsView::waitForIdle() {
  if (debounce_.isActive() || (stale_ && design_)) run();
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
  if (running_ && watcher_.isFinished()) onFinished();
}

void ExpertsView::onFinished() {
  if (!running_ || !watcher_.isFinished() || watcher_.future().resultCount() == 0) return;
  std::shared_ptr<const Outcome> o = watcher_.result();
  running_ = false;
  progress_.stop();
  stop_->setEnabled(false);
  if (!o->error.isEmpty()) {
    status_->setText(tr("Run failed: %1").arg(o->error));
    status_->setToolTip(o->error);
    updateHint();
    emit finished();
    return;
  }
  status_->setToolTip(QString());
  shown_ = std::move(o);
  showOutcome();
  emit finished();
}

ReviewSection ExpertsView::reviewSection() const {
  ReviewSection s;
  s.title = tr("Expert placement");
  s.missing = tr("No expert placement was computed (an MoE model on a mesh system).");
  if (outcome() == nullptr) return s;
  // A placement of an earlier design is not this design's (the tab recomputes when shown).
  if (stale_ || running_ || debounce_.isActive()) {
    s.missing = tr("Not computed for this design yet: the Experts tab recomputes its placement "
                   "when it is shown.");
    return s;
  }
  if (const QString t = plainText(info_); !t.isEmpty()) s.paragraphs << t;
  // The status line less its wall time (the same design gives the same review).
  const Outcome& o = *outcome();
  s.paragraphs << (o.stopped ? tr("Stopped after %1 of %2 layers: partial")
                                   .arg(o.result.layers.size())
                                   .arg(o.layers_planned)
                             : tr("Compared %1 strategies on %2 layers")
                                   .arg(o.result.strategies.size())
                                   .arg(o.result.layers.size()));
  s.tables << table_;
  for (QWidget* w : {static_cast<QWidget*>(mesh_), static_cast<QWidget*>(heat_),
                     static_cast<QWidget*>(compute_)})
    if (w != nullptr) s.figures << w;
  return s;
}

}  // namespace stackscope::ui
