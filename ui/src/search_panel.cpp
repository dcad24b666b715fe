// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/search_panel.hpp"

#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <algorithm>
#include <cmath>
#include <map>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/plot_export.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/space_editor.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

// Points kept for the faint cloud; the frontier is always complete.
constexpr std::size_t kMaxShown = 100000;
constexpr int kDrainMs = 100;

// Axis choices beyond the space's objectives (value, label with unit).
enum Extra { kStps, kUtps, kTpotMs, kTtftS, kEnergy, kPower, kDramC, kDevices, kBatch, kExtras };
const char* const kExtraLabels[kExtras] = {"STPS (tokens/s, system)",
                                           "UTPS (tokens/s per user)",
                                           "TPOT (ms)",
                                           "TTFT (s)",
                                           "Energy per token (J)",
                                           "Power per device (W)",
                                           "Peak DRAM temperature (°C)",
                                           "Devices",
                                           "Batch per replica"};

// Receives the engine's batches on its worker threads: copies into the shared inbox only.
class InboxSink final : public search::ResultSink {
 public:
  explicit InboxSink(std::shared_ptr<SearchPanel::Inbox> inbox) : inbox_(std::move(inbox)) {}
  void on_batch(std::span<const search::PointRecord> points) override {
    std::lock_guard lock(inbox_->mutex);
    for (const auto& p : points)
      if (p.feasible) inbox_->points.push_back(p);
  }
  void on_progress(const search::Progress& p) override {
    std::lock_guard lock(inbox_->mutex);
    inbox_->progress = p;
  }

 private:
  std::shared_ptr<SearchPanel::Inbox> inbox_;
};

// The search uses every core; the UI thread must still get the CPU the moment it has work.
// Linux keeps a nice value per thread and threads inherit their creator's, so niceness set on
// the runner thread (the pool's own thread, used only for searches) carries to the engine's
// workers. No-op elsewhere.
void lowerThreadPriority() {
#ifdef __linux__
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
#endif
}

const QColor kPalette[] = {QColor(0x4C, 0x72, 0xB0), QColor(0xDD, 0x84, 0x52),
                           QColor(0x55, 0xA8, 0x68), QColor(0x81, 0x72, 0xB3),
                           QColor(0x93, 0x78, 0x60), QColor(0xDA, 0x8B, 0xC3),
                           QColor(0x8C, 0x8C, 0x8C), QColor(0xCC, 0xB9, 0x74)};

}  // namespace

SearchPanel::SearchPanel(const io::PresetRegistry& presets, QWidget* parent)
    : QWidget(parent), presets_(presets) {
  setObjectName(QStringLiteral("searchPanel"));
  pool_.setMaxThreadCount(1);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout();
  auto* title = new QLabel(tr("Design-space search"), this);
  title->setObjectName(QStringLiteral("sectionTitle"));
  top->addWidget(title);
  top->addSpacing(12);
  top->addWidget(new QLabel(tr("Space:"), this));
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("searchPreset"));
  // Elided past 24 characters (the whole name is in the tooltip): the longest preset name must not
  // set the window's minimum width.
  preset_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  preset_->setMinimumContentsLength(24);
  for (const auto& p : presets_.list(io::PresetKind::search)) {
    preset_->addItem(QString::fromStdString(p.name), QString::fromStdString(p.id));
    std::vector<std::string> models;
    try {
      const io::SearchProject sp = io::resolve_search_project(p.id, presets_);
      models.push_back(sp.space.base.model.id);
      for (const auto& m : sp.space.models) models.push_back(m.id);
    } catch (const std::exception&) {
      // a preset that does not parse is refused when it is loaded, with the reason
    }
    presetModels_.push_back(std::move(models));
  }
  const auto presetTip = [this] {
    preset_->setToolTip(tr("%1\npreset id: %2\nSearch spaces of presets/search/ (hardware axes × "
                           "parallelism × batch)")
                            .arg(preset_->currentText(), preset_->currentData().toString()));
  };
  presetTip();
  top->addWidget(preset_, 1);
  spaceSize_ = new QLabel(this);
  spaceSize_->setObjectName(QStringLiteral("searchSpaceSize"));
  top->addWidget(spaceSize_);
  auto* editButton = new QPushButton(tr("Edit space…"), this);
  editButton->setObjectName(QStringLiteral("searchEditSpace"));
  editButton->setCheckable(true);
  editButton->setToolTip(
      tr("Edit the search space in a form: hardware axes and their values or ranges, schedule "
         "axes, constraints, objectives; save it for stackscope-cli search"));
  top->addWidget(editButton);
  run_ = new QPushButton(tr("&Run"), this);
  run_->setObjectName(QStringLiteral("searchRun"));
  run_->setToolTip(tr("Search the space on all cores; the frontier is exact when it completes"));
  stop_ = new QPushButton(tr("S&top"), this);
  stop_->setObjectName(QStringLiteral("searchStop"));
  stop_->setEnabled(false);
  top->addWidget(run_);
  top->addWidget(stop_);
  box->addLayout(top);

  // The form in a window of its own: the panel is a short dock tab, the form needs height.
  formWindow_ = new QDialog(this);
  formWindow_->setObjectName(QStringLiteral("searchSpaceWindow"));
  formWindow_->setWindowTitle(tr("Search space"));
  formWindow_->resize(1060, 760);
  auto* windowBox = new QVBoxLayout(formWindow_);
  form_ = new SpaceEditor(presets_, formWindow_);
  windowBox->addWidget(form_, 1);
  auto* windowButtons = new QDialogButtonBox(QDialogButtonBox::Close, formWindow_);
  runFromForm_ = windowButtons->addButton(tr("Run this space"), QDialogButtonBox::ActionRole);
  runFromForm_->setObjectName(QStringLiteral("searchRunFromForm"));
  windowBox->addWidget(windowButtons);
  connect(windowButtons, &QDialogButtonBox::rejected, formWindow_, &QDialog::hide);
  connect(runFromForm_, &QPushButton::clicked, this, [this] {
    if (run_->isEnabled()) run_->click();
  });
  connect(formWindow_, &QDialog::finished, editButton,
          [editButton] { editButton->setChecked(false); });
  connect(editButton, &QPushButton::toggled, this, [this](bool on) {
    formWindow_->setVisible(on);
    if (on) formWindow_->raise();
  });
  connect(form_, &SpaceEditor::spaceChanged, this, &SearchPanel::spaceChanged);
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    // Nothing the user made is lost: a preset picked in the box over an edited space asks first.
    if (form_->edited() && !quietPresetChange_ &&
        QMessageBox::question(this, tr("Discard the edited space?"),
                              tr("The search space was edited. Load the preset '%1' instead and "
                                 "discard the edits? (Save… in the space window keeps them.)")
                                  .arg(preset_->itemText(index))) != QMessageBox::Yes) {
      const QSignalBlocker block(preset_);
      preset_->setCurrentIndex(shownPreset_);
      return;
    }
    shownPreset_ = index;
    QString err;
    if (!form_->loadPreset(preset_->currentData().toString(), &err)) status_->setText(err);
  });
  // After the load (or its refusal, which restores the box): the name of the shown preset.
  connect(preset_, &QComboBox::currentIndexChanged, this, presetTip);
  auto* prog = new QHBoxLayout();
  bar_ = new QProgressBar(this);
  bar_->setRange(0, 1000);
  bar_->setTextVisible(false);
  bar_->setMaximumHeight(10);
  prog->addWidget(bar_, 1);
  box->addLayout(prog);
  status_ = new QLabel(tr("Pick a space and press Run."), this);
  status_->setObjectName(QStringLiteral("searchStatus"));
  box->addWidget(status_);
  if (preset_->count() > 0) {
    QString err;
    if (!form_->loadPreset(preset_->currentData().toString(), &err)) status_->setText(err);
  }

  auto* axes = new QHBoxLayout();
  axes->addWidget(new QLabel(tr("x:"), this));
  xAxis_ = new QComboBox(this);
  xAxis_->setObjectName(QStringLiteral("paretoX"));
  axes->addWidget(xAxis_, 1);
  axes->addWidget(new QLabel(tr("y:"), this));
  yAxis_ = new QComboBox(this);
  yAxis_->setObjectName(QStringLiteral("paretoY"));
  axes->addWidget(yAxis_, 1);
  axes->addWidget(new QLabel(tr("colour:"), this));
  colourBy_ = new QComboBox(this);
  colourBy_->setObjectName(QStringLiteral("paretoColour"));
  colourBy_->setToolTip(tr("Colour the faint points by a third parameter"));
  // Knob descriptions can be long: the combo keeps a modest width (its popup shows them whole).
  colourBy_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  colourBy_->setMinimumContentsLength(18);
  axes->addWidget(colourBy_);
  auto* reset = new QPushButton(tr("Reset view"), this);
  axes->addWidget(reset);
  exportCsv_ = new QPushButton(tr("Export CSV…"), this);
  exportCsv_->setToolTip(tr("Every point shown (and whether it is on the frontier) as CSV"));
  exportCsv_->setEnabled(false);
  axes->addWidget(exportCsv_);
  box->addLayout(axes);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("paretoPlot"));
  plot_->setMinimumHeight(260);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMouseTracking(true);
  plot_->legend->setVisible(true);
  plot_->legend->setFont(font());
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  box->addWidget(plot_, 1);
  attachExportMenu(plot_, QStringLiteral("pareto"));
  setPlotHint(plot_, tr("Run a search to see the Pareto frontier: pick a space above and press "
                        "Run (Edit space… changes what is searched)"));
  auto* hint =
      new QLabel(tr("Faint: every feasible point evaluated, coloured as chosen. "
                    "Joined by a line: the Pareto frontier. Hover for a design, click to load it; "
                    "drag to pan, wheel to zoom."),
                 this);
  hint->setObjectName(QStringLiteral("hint"));
  hint->setWordWrap(true);
  box->addWidget(hint);

  connect(run_, &QPushButton::clicked, this, [this] {
    QString err;
    if (!start(preset_->currentData().toString(), &err)) status_->setText(err);
  });
  connect(stop_, &QPushButton::clicked, this, &SearchPanel::stop);
  connect(exportCsv_, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getSaveFileName(
        this, tr("Export search results"), QStringLiteral("search-results.csv"), tr("CSV (*.csv)"));
    if (f.isEmpty()) return;
    QString err;
    if (!exportCsv(f, &err)) QMessageBox::warning(this, tr("Cannot export"), err);
  });
  connect(reset, &QPushButton::clicked, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(xAxis_, &QComboBox::currentIndexChanged, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(yAxis_, &QComboBox::currentIndexChanged, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(colourBy_, &QComboBox::currentIndexChanged, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &SearchPanel::hover);
  connect(plot_, &QCustomPlot::mousePress, this, &SearchPanel::click);
  drainTimer_.setInterval(kDrainMs);
  connect(&drainTimer_, &QTimer::timeout, this, &SearchPanel::drain);
}

// The space in the form changed: its size beside the preset, Run only for a valid space.
void SearchPanel::spaceChanged() {
  QString text = form_->valid() ? pointsText(form_->compiled()->size()) : tr("space has problems");
  if (form_->edited())
    text += tr(" · edited");
  else if (form_->origin() != preset_->currentData().toString())
    text += tr(" · %1").arg(QFileInfo(form_->origin()).fileName());
  spaceSize_->setText(text);
  const QString origin = form_->origin().isEmpty() ? tr("new space") : form_->origin();
  formWindow_->setWindowTitle(form_->edited() ? tr("Search space — %1 (edited)").arg(origin)
                                              : tr("Search space — %1").arg(origin));
  spaceSize_->setToolTip(form_->valid() ? form_->sizeText()
                                        : form_->problems().join(QLatin1Char('\n')));
  if (!running_) {
    run_->setEnabled(form_->valid());
    runFromForm_->setEnabled(form_->valid());
    run_->setToolTip(form_->valid() ? tr("Search the space on all cores; the frontier is exact "
                                         "when it completes")
                                    : tr("The space has problems (Edit space… shows them):\n%1")
                                          .arg(form_->problems().join(QLatin1Char('\n'))));
    if (!form_->valid())
      status_->setText(tr("The search space has problems: %1").arg(form_->problems().value(0)));
    else if (status_->text().startsWith(tr("The search space has problems")))
      status_->setText(tr("Pick a space and press Run."));
    // The frontier on show belongs to the space it was run on: another space clears it rather
    // than leave another space's designs under this one's name.
    if (space_ && form_->projectText() != runText_) {
      space_.reset();
      points_.clear();
      frontier_ = search::Archive();
      progress_ = {};
      exportCsv_->setEnabled(false);
      plot_->clearPlottables();
      cloud_.clear();
      front_ = nullptr;
      chosenMark_ = nullptr;
      chosen_.reset();
      plotted_ = 0;
      plot_->replot();
      setPlotHint(plot_, tr("The space changed since the last run: press Run to search it"));
      if (form_->valid()) status_->setText(tr("Pick a space and press Run."));
    }
  }
}

SearchPanel::~SearchPanel() {
  stopSource_.request_stop();
  pool_.waitForDone();
}

bool SearchPanel::suggestFor(const perf::Design& design) {
  if (running_ || !points_.empty() || form_->edited()) return false;
  for (std::size_t i = 0; i < presetModels_.size(); ++i) {
    const auto& models = presetModels_[i];
    if (std::find(models.begin(), models.end(), design.model.id) == models.end()) continue;
    if (static_cast<int>(i) != preset_->currentIndex()) {
      quietPresetChange_ = true;
      preset_->setCurrentIndex(static_cast<int>(i));  // loads the preset into the form
      quietPresetChange_ = false;
    }
    return true;
  }
  return false;
}

bool SearchPanel::start(const QString& id, QString* error, int threads, std::uint64_t max_evals) {
  if (running_) return false;
  if (!id.isEmpty() && id != preset_->currentData().toString()) {
    QString err;
    if (const int i = preset_->findData(id); i >= 0) {
      quietPresetChange_ = true;    // a caller's explicit choice
      preset_->setCurrentIndex(i);  // loads the preset into the form
      quietPresetChange_ = false;
    } else if (!form_->loadFile(id, &err)) {
      if (error) *error = err;
      return false;
    }
  }
  form_->flush();
  if (!form_->valid()) {
    if (error)
      *error =
          tr("The search space has problems:\n%1").arg(form_->problems().join(QLatin1Char('\n')));
    return false;
  }
  const std::shared_ptr<const search::CompiledSpace> space = form_->compiled();
  search::RunOptions opt = form_->runOptions();
  opt.threads = threads;
  if (max_evals > 0) opt.max_evals = max_evals;
  space_ = space;
  runText_ = form_->projectText();
  chosen_.reset();
  points_.clear();
  // All the room the cloud may take, once: growing a vector of 1e5 records inside a drain
  // would copy megabytes on the UI thread.
  points_.reserve(kMaxShown);
  frontier_ = search::Archive(space_->space().objectives);
  progress_ = {};
  setAxesChoices();
  setPlotHint(plot_, tr("Searching… the feasible designs appear here as they are found"));
  replot();
  inbox_ = std::make_shared<Inbox>();
  stopSource_ = std::stop_source();
  running_ = true;
  run_->setEnabled(false);
  runFromForm_->setEnabled(false);
  stop_->setEnabled(true);
  preset_->setEnabled(false);
  status_->setText(
      tr("Searching %1 points…").arg(QString::fromStdString(search::to_string(space_->size()))));
  auto inbox = inbox_;
  const auto token = stopSource_.get_token();
  // Only value types and shared immutable state cross to the runner thread.
  (void)QtConcurrent::run(&pool_, [space, opt, inbox, token] {
    lowerThreadPriority();
    InboxSink sink(inbox);
    search::Summary sum;
    QString err;
    try {
      sum = search::run(*space, opt, sink, token);
    } catch (const std::exception& e) {
      err = QString::fromLocal8Bit(e.what());
    }
    std::lock_guard lock(inbox->mutex);
    inbox->summary = std::move(sum);
    inbox->error = err;
    inbox->done = true;
  });
  drainTimer_.start();
  return true;
}

void SearchPanel::stop() {
  stopSource_.request_stop();
  stop_->setEnabled(false);
  status_->setText(tr("Stopping…"));
}

void SearchPanel::drain() {
  if (!inbox_) return;
  std::vector<search::PointRecord> fresh;
  bool done = false;
  search::Summary summary;
  QString err;
  {
    std::lock_guard lock(inbox_->mutex);
    fresh.swap(inbox_->points);
    progress_ = inbox_->progress;
    if (inbox_->done) {
      done = true;
      summary = std::move(inbox_->summary);
      err = inbox_->error;
    }
  }
  for (const auto& p : fresh) {
    if (frontier_.insert(p)) dirty_ = true;
    if (points_.size() < kMaxShown) {
      points_.push_back(p);
      dirty_ = true;
    }
  }
  const bool first = done && plotted_ == 0 && front_ == nullptr;
  if (done) {
    progress_ = summary.progress;
    frontier_ = std::move(summary.archive);  // the engine's exact frontier
    dirty_ = true;
  }
  const double total = search::to_double(progress_.total);
  const double doneFrac =
      total > 0
          ? static_cast<double>(progress_.evaluated + progress_.pruned + progress_.resumed) / total
          : 0.0;
  bar_->setValue(static_cast<int>(std::clamp(doneFrac, 0.0, 1.0) * 1000));
  QString text = tr("%1 of %2 points · evaluated %3 · pruned %4 · %5 points/s")
                     .arg(QString::number(100.0 * doneFrac, 'f', 1) + QStringLiteral(" %"))
                     .arg(QString::fromStdString(search::to_string(progress_.total)))
                     .arg(readable(static_cast<double>(progress_.evaluated)))
                     .arg(readable(static_cast<double>(progress_.pruned)))
                     .arg(readable(progress_.rate_per_s));
  // The engine's ETA comes from the recent rate of finished work units, visited in a random
  // order of strata (search/eta.hpp, search/visit_order.hpp); 0 while it has too few samples or
  // the promising points are still running, shown as a dash rather than a guess.
  if (!done)
    text += progress_.eta_s > 0 ? tr(" · ETA %1 s").arg(readable(progress_.eta_s))
                                : tr(" · ETA —");
  text += tr(" · frontier %1").arg(frontier_.size());
  if (points_.size() >= kMaxShown) text += tr(" · showing the first %1 points").arg(kMaxShown);
  if (done) {
    text += summary.complete ? tr(" · complete: exact frontier") : tr(" · stopped");
    if (!err.isEmpty()) text = tr("Search failed: %1").arg(err);
  }
  status_->setText(text);
  if (first || plot_->plottableCount() == 0)
    replot();
  else
    update_plot();
  if (done) {
    drainTimer_.stop();
    inbox_.reset();
    running_ = false;
    run_->setEnabled(true);
    stop_->setEnabled(false);
    preset_->setEnabled(true);
    spaceChanged();
    exportCsv_->setEnabled(!points_.empty());
    if (points_.empty())
      setPlotHint(plot_, !err.isEmpty() ? tr("The search failed (the reason is above): fix the "
                                             "space and press Run again")
                         : summary.complete
                             ? tr("No feasible design in this space: relax its constraints or "
                                  "widen its ranges (Edit space…)")
                             : tr("Stopped before the first feasible design: press Run to "
                                  "search again"));
    emit finished();
  }
}

void SearchPanel::setAxesChoices() {
  QSignalBlocker bx(xAxis_), by(yAxis_), bc(colourBy_);
  colourBy_->clear();
  colourBy_->addItem(tr("devices"), -1);
  colourBy_->addItem(tr("batch"), -2);
  int variant = -1;
  for (std::size_t a = 0; a < space_->space().hardware.size(); ++a) {
    const auto& knob = space_->space().hardware[a].knob;
    if (knob == "devices") continue;
    // The knob's description and unit, its name (the space file's key) in the tooltip.
    const search::Knob* k = search::find_knob(knob);
    const QString label =
        knob == "variant" ? tr("hardware / system variant")
        : k == nullptr    ? QString::fromStdString(knob)
        : k->unit.empty()
            ? QString::fromUtf8(k->description.data(), static_cast<int>(k->description.size()))
            : tr("%1 (%2)").arg(
                  QString::fromUtf8(k->description.data(), static_cast<int>(k->description.size())),
                  QString::fromUtf8(k->unit.data(), static_cast<int>(k->unit.size())));
    colourBy_->addItem(label, static_cast<int>(a));
    colourBy_->setItemData(colourBy_->count() - 1, QString::fromStdString(knob), Qt::ToolTipRole);
    if (knob == "variant") variant = colourBy_->count() - 1;
  }
  // A variant axis (e.g. GPUs vs stacked chips) is the most telling colour when present.
  if (variant >= 0) colourBy_->setCurrentIndex(variant);
  xAxis_->clear();
  yAxis_->clear();
  const auto& objs = space_->space().objectives;
  for (std::size_t k = 0; k < objs.size(); ++k) {
    const QString l = metricLabel(objs[k].metric) +
                      (objs[k].direction == search::Direction::maximize ? tr(" ↑") : tr(" ↓"));
    xAxis_->addItem(l, static_cast<int>(k));
    yAxis_->addItem(l, static_cast<int>(k));
  }
  for (int e = 0; e < kExtras; ++e) {
    xAxis_->addItem(tr(kExtraLabels[e]), 100 + e);
    yAxis_->addItem(tr(kExtraLabels[e]), 100 + e);
  }
  // Default: the second objective across, the first up (e.g. UTPS vs STPS per mm²).
  xAxis_->setCurrentIndex(objs.size() > 1 ? 1 : static_cast<int>(objs.size()) + kUtps);
  yAxis_->setCurrentIndex(0);
}

double SearchPanel::axisValue(const search::PointRecord& p, int choice) const {
  if (choice < 100) return p.objectives[static_cast<std::size_t>(choice)];
  switch (choice - 100) {
    case kStps: return p.stps;
    case kUtps: return p.utps;
    case kTpotMs: return p.tpot_s * 1e3;
    case kTtftS: return p.ttft_s;
    case kEnergy: return p.energy_per_token_j;
    case kPower: return p.power_w;
    case kDramC: return p.dram_peak_C;
    case kDevices: return p.devices;
    case kBatch: return p.batch;
    default: return 0;
  }
}

// Full rebuild (axes changed, reset, new search): the cloud graphs from every shown point.
void SearchPanel::replot() {
  if (!space_) return;
  plot_->clearPlottables();
  cloud_.clear();
  front_ = nullptr;
  chosenMark_ = nullptr;
  plotted_ = 0;
  lo_ = QPointF(1e300, 1e300);
  hi_ = QPointF(-1e300, -1e300);
  dirty_ = true;
  update_plot();
}

// Incremental: appends the points shown since the last call to their device-count graphs and
// redraws the frontier; rescales only when the data outgrows the axes.
void SearchPanel::update_plot() {
  if (!dirty_ || !space_) return;
  dirty_ = false;
  const int cx = xAxis_->currentData().toInt(), cy = yAxis_->currentData().toInt();
  std::map<double, std::pair<QVector<double>, QVector<double>>> fresh;
  auto track = [&](double x, double y) {
    lo_.setX(std::min(lo_.x(), x));
    hi_.setX(std::max(hi_.x(), x));
    lo_.setY(std::min(lo_.y(), y));
    hi_.setY(std::max(hi_.y(), y));
  };
  for (; plotted_ < points_.size(); ++plotted_) {
    const auto& p = points_[plotted_];
    const double x = axisValue(p, cx), y = axisValue(p, cy);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    auto& c = fresh[colourKey(p)];
    c.first.push_back(x);
    c.second.push_back(y);
    track(x, y);
  }
  for (auto& [key, xy] : fresh) {
    QCPGraph*& g = cloud_[key];
    if (!g) {
      g = plot_->addGraph();
      QColor c = kPalette[static_cast<std::size_t>(colourIndex(key)) % std::size(kPalette)];
      g->setName(colourName(key));
      c.setAlpha(110);
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 5));
      g->setAdaptiveSampling(true);
    }
    g->addData(xy.first, xy.second);
  }
  // The frontier, connected in x order, drawn over the cloud.
  QVector<double> fx, fy;
  std::vector<std::pair<double, double>> f;
  for (const auto& p : frontier_.points()) {
    const double x = axisValue(p, cx), y = axisValue(p, cy);
    if (std::isfinite(x) && std::isfinite(y)) f.emplace_back(x, y);
  }
  std::sort(f.begin(), f.end());
  for (const auto& [x, y] : f) {
    fx.push_back(x);
    fy.push_back(y);
    track(x, y);
  }
  if (!front_) {
    // Dark on a light plot, light on a dark one (theme::ink()); hollow in the plot's colour.
    front_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    front_->setPen(QPen(theme::ink(), 1.6));
    front_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme::ink(),
                                            palette().color(QPalette::Base), 7));
  }
  front_->setName(tr("Pareto frontier (%1)").arg(frontier_.size()));
  front_->setData(fx, fy);
  front_->setLayer(QStringLiteral("main"));
  if (chosen_) {
    for (const auto& p : frontier_.points())
      if (p.id == *chosen_) markChosen(p);
  }
  plot_->xAxis->setLabel(xAxis_->currentText());
  plot_->yAxis->setLabel(yAxis_->currentText());
  // Log scale where the data spans more than two decades and is positive.
  auto scale = [](QCPAxis* a, double lo, double hi) {
    const bool log = lo > 0 && hi / lo > 100;
    const auto type = log ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
    if (a->scaleType() != type) {
      a->setScaleType(type);
      if (log)
        a->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
      else
        a->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    if (hi < lo) return;
    QCPRange want;
    if (log) {
      want = QCPRange(lo / 1.3, hi * 1.3);
    } else {
      const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(1.0, std::abs(hi)) * 0.1;
      want = QCPRange(lo - pad, hi + pad);
    }
    const QCPRange have = a->range();
    if (want.lower < have.lower || want.upper > have.upper || have.size() > 3 * want.size())
      a->setRange(want);
  };
  scale(plot_->xAxis, lo_.x(), hi_.x());
  scale(plot_->yAxis, lo_.y(), hi_.y());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

// Colour groups: the value of the "Colour by" choice for a point (devices, batch, or one
// hardware axis's value index).
double SearchPanel::colourKey(const search::PointRecord& p) const {
  const int by = colourBy_->currentData().toInt();
  if (by == -1) return p.devices;
  if (by == -2) return p.batch;
  return static_cast<double>(space_->hardware_digits(p.id.hw)[static_cast<std::size_t>(by)]);
}

int SearchPanel::colourIndex(double key) const {
  const int by = colourBy_->currentData().toInt();
  if (by < 0) return static_cast<int>(std::lround(std::log2(std::max(1.0, key))));
  return static_cast<int>(key);
}

QString SearchPanel::colourName(double key) const {
  const int by = colourBy_->currentData().toInt();
  if (by == -1) return tr("%1 devices").arg(key);
  if (by == -2) return tr("batch %1").arg(key);
  const auto& axis = space_->space().hardware[static_cast<std::size_t>(by)];
  const double v = axis.values[static_cast<std::size_t>(key)];
  if (const auto name = search::axis_value_name(space_->space(), static_cast<std::size_t>(by), v);
      !name.empty())
    return QString::fromStdString(name);
  const auto dot = axis.knob.rfind('.');
  const std::string shortName = dot == std::string::npos ? axis.knob : axis.knob.substr(dot + 1);
  return QStringLiteral("%1 %2").arg(QString::fromStdString(shortName)).arg(v);
}

const search::PointRecord* SearchPanel::nearest(const QPoint& px) const {
  if (!space_) return nullptr;
  const int cx = xAxis_->currentData().toInt(), cy = yAxis_->currentData().toInt();
  const search::PointRecord* best = nullptr;
  double bestD = 10.0 * 10.0;  // within 10 px
  auto consider = [&](const search::PointRecord& p) {
    const double x = plot_->xAxis->coordToPixel(axisValue(p, cx));
    const double y = plot_->yAxis->coordToPixel(axisValue(p, cy));
    const double d = (x - px.x()) * (x - px.x()) + (y - px.y()) * (y - px.y());
    if (d < bestD) {
      bestD = d;
      best = &p;
    }
  };
  for (const auto& p : frontier_.points()) consider(p);
  if (best) return best;
  for (const auto& p : points_) consider(p);
  return best;
}

QString SearchPanel::describe(const search::PointRecord& p) const {
  const perf::Design d = space_->decode(p.id);
  QString s = QStringLiteral("<b>%1</b><br>").arg(tr("Design %1/%2").arg(p.id.hw).arg(p.id.inner));
  const auto values = space_->hardware_values(p.id.hw);
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto& knob = space_->space().hardware[k].knob;
    const auto name = search::axis_value_name(space_->space(), k, values[k]);
    const QString v =
        !name.empty() ? QString::fromStdString(name) : QString::number(values[k], 'g', 6);
    s += QStringLiteral("%1 = %2<br>").arg(QString::fromStdString(knob), v);
  }
  const auto& pl = d.parallel;
  s += tr("TP %1 · PP %2 · EP %3 · DP %4 · CP %5%6 · batch %7<br>")
           .arg(pl.tp)
           .arg(pl.pp)
           .arg(pl.ep)
           .arg(pl.dp)
           .arg(pl.cp)
           .arg(pl.sequence_parallel ? tr(" · SP") : QString())
           .arg(p.batch);
  s += tr("STPS %1 tok/s · UTPS %2 tok/s · TPOT %3 ms<br>")
           .arg(readable(p.stps), readable(p.utps), QString::number(p.tpot_s * 1e3, 'f', 2));
  s += tr("%1 J/token · %2 W/device").arg(readable(p.energy_per_token_j), readable(p.power_w));
  if (p.dram_peak_C > 0) s += tr(" · DRAM %1 °C").arg(p.dram_peak_C, 0, 'f', 1);
  return s;
}

void SearchPanel::hover(QMouseEvent* e) {
  if (const auto* p = nearest(e->pos()))
    QToolTip::showText(e->globalPosition().toPoint(), describe(*p), plot_);
  else
    QToolTip::hideText();
}

void SearchPanel::click(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  if (const auto* p = nearest(e->pos())) {
    const search::PointRecord chosen = *p;
    markChosen(chosen);
    plot_->replot();
    emit designChosen(space_->decode(chosen.id));
  }
}

void SearchPanel::markChosen(const search::PointRecord& p) {
  chosen_ = p.id;
  const int cx = xAxis_->currentData().toInt(), cy = yAxis_->currentData().toInt();
  if (!chosenMark_) {
    chosenMark_ = new QCPGraph(plot_->xAxis, plot_->yAxis);
    chosenMark_->setObjectName(QStringLiteral("chosenPoint"));
    chosenMark_->setLineStyle(QCPGraph::lsNone);
    chosenMark_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(theme::ink(), 2.5), Qt::NoBrush, 16));
    chosenMark_->setName(tr("In the editor"));
  }
  chosenMark_->setData({axisValue(p, cx)}, {axisValue(p, cy)});
  chosenMark_->setLayer(QStringLiteral("main"));
}

bool SearchPanel::exportCsv(const QString& file, QString* error) const {
  if (!space_) {
    if (error) *error = tr("no search has run");
    return false;
  }
  try {
    io::save_text_atomic(file.toStdString(), io::points_to_csv(*space_, points_, &frontier_));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromLocal8Bit(e.what());
    return false;
  }
}

void SearchPanel::choose(std::size_t i) {
  const auto pts = frontier_.sorted();
  if (!space_ || i >= pts.size()) return;
  markChosen(pts[i]);
  plot_->replot();
  emit designChosen(space_->decode(pts[i].id));
}

ReviewSection SearchPanel::reviewSection() const {
  ReviewSection s;
  s.title = tr("Search");
  s.missing = tr("No search was run.");
  if (pointCount() == 0) return s;
  // What the run covered, without its rate (the same run gives the same review).
  const double total = search::to_double(progress_.total);
  const double done =
      static_cast<double>(progress_.evaluated + progress_.pruned + progress_.resumed);
  s.paragraphs << tr("%1 of %2 points · evaluated %3 · pruned %4 · frontier %5%6")
                      .arg(QString::number(total > 0 ? 100.0 * done / total : 0.0, 'f', 1) +
                           QStringLiteral(" %"))
                      .arg(QString::fromStdString(search::to_string(progress_.total)))
                      .arg(readable(static_cast<double>(progress_.evaluated)))
                      .arg(readable(static_cast<double>(progress_.pruned)))
                      .arg(frontier_.size())
                      .arg(running_ ? tr(" · still running") : QString());
  s.figures << plot_;
  return s;
}

}  // namespace stackscope::ui
