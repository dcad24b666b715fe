// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/main_window.hpp"

#include <QAbstractButton>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QWhatsThis>
#include <QMessageBox>
#include <QPainter>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QThread>
#include <QToolBox>
#include <QVBoxLayout>
#include <exception>
#include <functional>
#include <iterator>

#include "main_window_detail.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/ui/breakdown_chart.hpp"
#include "stackscope/ui/compare_view.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/device_panel.hpp"
#include "stackscope/ui/experts_view.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/link_view.hpp"
#include "stackscope/ui/result_pane.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/serving_view.hpp"
#include "stackscope/ui/summary_panel.hpp"
#include "stackscope/ui/theme.hpp"
#include "stackscope/ui/thermal_view.hpp"
#include "stackscope/ui/throughput_plot.hpp"
#include "stackscope/ui/wafer_view.hpp"

// Resources of a static library are registered by hand (the linker may drop the
// initialiser otherwise); Q_INIT_RESOURCE must be used outside any namespace.
static void initStackScopeResources() {
  Q_INIT_RESOURCE(stackscope);
}

namespace stackscope::ui {
namespace {

using detail::describeError;
using detail::qs;
using detail::renderIcon;
using detail::tabPage;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), presets_(std::make_unique<io::PresetRegistry>()) {
  initStackScopeResources();
  setObjectName(QStringLiteral("mainWindow"));
  // Every 30 s while there are unsaved edits (enableSessionState starts it).
  autosave_.setInterval(30000);
  setWindowIcon(QIcon(renderIcon(256)));
  if (QFile qss(QStringLiteral(":/stackscope/stackscope.qss")); qss.open(QIODevice::ReadOnly))
    baseStyleSheet_ = QString::fromUtf8(qss.readAll());
  setStyleSheet(theme::styleSheet(baseStyleSheet_));
  try {
    presets_->register_builtins();
    design_ = presets_->project("default");
  } catch (const std::exception& e) {
    startupError_ = describeError(e);
  }
  buildUi();
  wafer_->setDocument(&doc_);    // its runs replay the project's serving settings
  serving_->setDocument(&doc_);  // the Serving form edits the project's "serving" section
  buildMenus();
  debounce_.setSingleShot(true);
  debounce_.setInterval(50);
  connect(&debounce_, &QTimer::timeout, this, &MainWindow::evaluateNow);
  connect(editor_, &DesignEditor::fieldEdited, this, [this](int field, const QString& name) {
    // Record the edit for undo; a form state that does not compose (an invalid preset
    // combination) is still evaluated and reported, just not recorded.
    try {
      doc_.edit(editor_->compose(), tr("Edit %1").arg(name), field);
    } catch (const std::exception&) {
    }
    debounce_.start();
  });
  connect(&doc_, &ConfigDocument::changed, this, [this](bool fromHistory) {
    if (fromHistory) {
      editor_->setBase(doc_.design());
      debounce_.start();
    }
  });
  connect(doc_.undoStack(), &QUndoStack::cleanChanged, this,
          [this](bool clean) { setWindowModified(!clean); });
  resize(1440, 940);
  theme::restyle(this);
  setDesign(design_);
  if (!startupError_.isEmpty()) statusBar()->showMessage(tr("Presets: %1").arg(startupError_));
}

MainWindow::~MainWindow() = default;

// buildUi(): main_window_views.cpp

void MainWindow::buildMenus() {
  buildFileMenu();  // main_window_files.cpp
  QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = doc_.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = doc_.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  editMenu->addAction(undo);
  editMenu->addAction(redo);
  QMenu* designMenu = menuBar()->addMenu(tr("&Design"));
  QAction* pin = designMenu->addAction(tr("&Pin as Baseline"), this, &MainWindow::pinBaseline);
  pin->setShortcut(QKeySequence(tr("Ctrl+B")));
  pin->setToolTip(tr("Keep the current design's metrics: every card then shows its change"));
  QAction* compare = designMenu->addAction(tr("Add to C&ompare"), this, &MainWindow::addToCompare);
  compare->setShortcut(QKeySequence(tr("Ctrl+D")));
  designMenu->addAction(tr("&Clear Baseline"), this, [this] {
    summary_->setBaseline(std::nullopt);
    evaluateNow();
    statusBar()->showMessage(tr("Baseline cleared"));
  });
  designMenu->addSeparator();
  // Refresh (F5): evaluate now, without waiting for the debounce after an edit.
  QAction* evaluate = designMenu->addAction(tr("&Evaluate Now"), this, [this] {
    evaluateNow();
  });
  evaluate->setShortcut(QKeySequence::Refresh);
  evaluate->setObjectName(QStringLiteral("evaluateNow"));
  QMenu* view = menuBar()->addMenu(tr("&View"));
  QMenu* themeMenu = view->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  for (const auto& [mode, label] :
       {std::pair{theme::Mode::system, tr("&System")}, std::pair{theme::Mode::light, tr("&Light")},
        std::pair{theme::Mode::dark, tr("&Dark")}}) {
    QAction* a = themeMenu->addAction(label, this, [this, mode = mode] {
      setTheme(mode);
      theme::save(mode);
    });
    a->setCheckable(true);
    a->setChecked(mode == theme::current());
    a->setObjectName(QStringLiteral("theme_") + theme::name(mode));
    themes->addAction(a);
  }
  view->addSeparator();
  // Tabs as KDE's and Qt's tabbed documents switch them (Ctrl+PgDown / Ctrl+PgUp, Ctrl+Tab).
  const auto stepTab = [this](int step) {
    const int n = views_->count();
    if (n > 0) views_->setCurrentIndex((views_->currentIndex() + step + n) % n);
  };
  QAction* next = view->addAction(tr("&Next View"), this, [stepTab] { stepTab(1); });
  next->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_PageDown), QKeySequence::NextChild});
  next->setObjectName(QStringLiteral("nextView"));
  QAction* previous = view->addAction(tr("&Previous View"), this, [stepTab] { stepTab(-1); });
  previous->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_PageUp), QKeySequence::PreviousChild});
  previous->setObjectName(QStringLiteral("previousView"));
  QAction* full = view->addAction(tr("&Full Screen"), this, [this](bool on) {
    setWindowState(on ? windowState() | Qt::WindowFullScreen
                      : windowState() & ~Qt::WindowFullScreen);
  });
  full->setCheckable(true);
  full->setShortcut(QKeySequence::FullScreen);
  full->setObjectName(QStringLiteral("fullScreen"));
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* guide =
      help->addAction(tr("&User Guide"), this, [this] { showHelp(HelpWindow::kGuide); });
  // (the guide opens at its workbench section)
  guide->setShortcut(QKeySequence::HelpContents);
  guide->setObjectName(QStringLiteral("helpGuide"));
  help->addAction(tr("&Model Reference"), this, [this] { showHelp(HelpWindow::kModel); })
      ->setObjectName(QStringLiteral("helpModel"));
  help->addAction(tr("&Validation Report"), this, [this] {
        showHelp(HelpWindow::kValidation);
      })->setObjectName(QStringLiteral("helpValidation"));
  help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        showHelp(HelpWindow::kGuide)->showDoc(HelpWindow::kGuide,
                                              QStringLiteral("Keyboard shortcuts"));
      })->setObjectName(QStringLiteral("helpShortcuts"));
  // What's This? (Shift+F1), then a click on a field: its meaning, unit and source.
  help->addAction(QWhatsThis::createAction(this));
  help->addSeparator();
  help->addAction(tr("&About StackScope"), this, &MainWindow::about);
}

void MainWindow::setNameBasis(const perf::Design& d) {
  nameBasis_ = {d.name, d.hardware.id, d.model.id, d.system.devices};
}

std::string MainWindow::followedName(const perf::Design& d) const {
  const auto& b = nameBasis_;
  if (d.hardware.id == b.hardware && d.model.id == b.model && d.system.devices == b.devices)
    return b.name;
  return perf::described_name(d);
}

void MainWindow::setDesign(const perf::Design& design) {
  design_ = design;
  setNameBasis(design_);
  editor_->setProject(design_);
  doc_.reset(design_);
  setWindowModified(false);
  evaluateNow();
}

void MainWindow::evaluateNow() {
  debounce_.stop();
  QElapsedTimer timer;
  timer.start();
  std::vector<Issue> issues;
  try {
    design_ = editor_->compose();
    design_.name = followedName(design_);
    issues = perf::validate(design_);
  } catch (const ConfigError& e) {
    issues = e.issues();
  }
  if (!issues.empty()) {
    result_.reset();
    summary_->showIssues(issues);
    editor_->showIssues(issues);
    chart_->clear();
    plot_->clear();
    thermal_->clear();
    thermalStale_ = false;
    links_->clear();
    linksStale_ = false;
    serving_->clearDesign();
    experts_->clearDesign();
    wafer_->clearDesign();
    statusBar()->showMessage(
        tr("%n problem(s) in the design", nullptr, static_cast<int>(issues.size())));
  } else {
    editor_->showIssues({});
    result_ = perf::evaluate(design_);
    const double evalMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;
    summary_->showResult(design_, *result_);
    chart_->showResult(*result_);
    plot_->showDesign(design_, result_->batch);
    serving_->setDesign(design_);
    experts_->setDesign(design_);  // runs while its tab is shown
    wafer_->setDesign(design_);
    thermalStale_ = true;
    linksStale_ = true;
    refreshLazyViews();
    statusBar()->showMessage(tr("Evaluated in %1 ms (batch sweep: %2 points)")
                                 .arg(QString::number(evalMs, 'f', 2))
                                 .arg(plot_->pointCount()));
  }
  device_->showDesign(design_);
  updateHeader();
}

void MainWindow::setTheme(theme::Mode mode) {
  theme::apply(mode);
  setStyleSheet(theme::styleSheet(baseStyleSheet_));
  theme::restyle(this);
  if (auto* a = findChild<QAction*>(QStringLiteral("theme_") + theme::name(mode)))
    a->setChecked(true);
  // Views that paint their own colours (labels, frontier, deltas) redraw from the palette.
  evaluateNow();
  if (viewShown(thermal_) && result_) thermal_->showDesign(design_, *result_);
  links_->update();
  search_->replotNow();
  compare_->refresh();
}

void MainWindow::enableSessionState() {
  sessionState_ = true;
  if (const theme::Mode saved = theme::saved(); saved != theme::current()) setTheme(saved);
  // Autosave while there are unsaved edits; a crash loses at most one interval of work.
  connect(&autosave_, &QTimer::timeout, this, [this] { autosaveNow(); });
  autosave_.start();
  if (QFileInfo::exists(autosavePath())) {
    const auto answer = QMessageBox::question(
        this, tr("Recover unsaved edits?"),
        tr("StackScope did not close cleanly last time. Restore the unsaved design from %1?")
            .arg(QFileInfo(autosavePath()).lastModified().toString()),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    QString err;
    if (answer == QMessageBox::Yes && !recoverAutosave(&err))
      QMessageBox::warning(this, tr("Cannot recover"), err);
    if (answer != QMessageBox::Yes) dropAutosave();
  }
  QSettings s;
  lastSaveDir_ = s.value(QStringLiteral("files/lastSaveDir")).toString();
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  for (const char* name : {"mainSplitter", "resultSplitter"})
    if (auto* split = findChild<QSplitter*>(QString::fromLatin1(name))) {
      const QByteArray state =
          s.value(QStringLiteral("window/") + QString::fromLatin1(name)).toByteArray();
      if (split->restoreState(state) && split == mainSplit_) splitChosen_ = true;
    }
  const int tab = s.value(QStringLiteral("window/tab"), 0).toInt();
  if (tab >= 0 && tab < views_->count()) views_->setCurrentIndex(tab);
  // Maximised and detached views as they were left.
  area_->setRemembered(true);
}

void MainWindow::addToCompare() {
  if (!result_) {
    statusBar()->showMessage(tr("Nothing to compare: the design is not valid"));
    return;
  }
  compare_->add(design_, *result_);
  views_->setCurrentWidget(tabPage(compare_));
  statusBar()->showMessage(tr("%n design(s) in Compare", nullptr, compare_->count()));
}

void MainWindow::pinBaseline() {
  if (!result_) {
    statusBar()->showMessage(tr("Nothing to pin: the design is not valid"));
    return;
  }
  const QString name = design_.name.empty() ? tr("Untitled design") : qs(design_.name);
  summary_->setBaseline(result_, name, design_.system.devices);
  summary_->showResult(design_, *result_);
  statusBar()->showMessage(tr("Pinned %1 as the baseline").arg(name));
}

void MainWindow::updateHeader() {
  const auto& d = design_;
  title_->setText(d.name.empty() ? tr("Untitled design") : qs(d.name));
  title_->setToolTip(title_->text());
  const auto& p = d.parallel;
  const auto& n = d.workload.numerics;
  QString sub = tr("%1 × %2  ·  %3  ·  %4  ·  TP %5 · PP %6 · DP %7 · EP %8")
                    .arg(qs(d.hardware.name.empty() ? d.hardware.id : d.hardware.name))
                    .arg(d.system.devices)
                    .arg(qs(d.model.name.empty() ? d.model.id : d.model.name))
                    .arg(n.weights == n.activations && n.weights == n.kv_cache
                             ? QString::fromLatin1(to_string(n.weights).data())
                             : tr("mixed precision"))
                    .arg(p.tp)
                    .arg(p.pp)
                    .arg(p.dp)
                    .arg(p.ep);
  // Which software the figures assume (core/runtime): two designs are comparable as hardware
  // only under one profile.
  sub += tr("  ·  runtime %1").arg(qs(d.runtime.id));
  // The file's name only (the whole path on hover): a deep path made a long line.
  sub += file_.isEmpty() ? tr("  ·  builtin project")
                         : QStringLiteral("  ·  ") + QFileInfo(file_).fileName();
  editor_->setProjectDir(file_.isEmpty() ? QString() : QFileInfo(file_).absolutePath());
  subtitle_->setText(sub);
  subtitle_->setToolTip(file_.isEmpty() ? sub : file_);
  setWindowTitle(tr("%1[*] — StackScope").arg(title_->text()));
}

// exportReport(), exportReportDialog(): main_window_review.cpp

void MainWindow::about() {
  QMessageBox::about(
      this, tr("About StackScope"),
      tr("<h3>StackScope %1</h3>"
         "<p>Design-space exploration of LLM-inference hardware: 3D DRAM-stacked accelerators, "
         "wafer-scale chips and near-memory MoE accelerators.</p>"
         "<p>Licensed under the GNU General Public License v3.0 or later. "
         "Built with Qt %2, Qt Charts and QCustomPlot.</p>")
          .arg(QStringLiteral(STACKSCOPE_VERSION), QString::fromLatin1(qVersion())));
}

HelpWindow* MainWindow::showHelp(HelpWindow::Doc doc) {
  if (!help_) {
    help_ = new HelpWindow(this);
    help_->setWindowFlags(Qt::Window);
  }
  help_->showDoc(doc, doc == HelpWindow::kGuide ? QStringLiteral("The workbench") : QString());
  help_->show();
  help_->raise();
  help_->activateWindow();
  return help_;
}

QStringList MainWindow::saveScreenshots(const QString& dir, QString* error) {
  if (!QDir().mkpath(dir)) {
    if (error) *error = tr("cannot create directory %1").arg(dir);
    return {};
  }
  if (!isVisible()) show();
  QStringList written;
  // Lets layouts settle and charts paint, then writes DIR/<name>.png.
  auto grab = [&](const QString& name, QWidget* widget) {
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
    if (!widget->grab().save(path)) {
      if (error) *error = tr("cannot write %1").arg(path);
      return false;
    }
    written << path;
    return true;
  };
  // A tab of the view stack, shown while it is grabbed.
  auto grabTab = [&](const QString& name, QWidget* tab, const std::function<void()>& prepare) {
    const int was = views_->currentIndex();
    views_->setCurrentWidget(tabPage(tab));
    prepare();
    const bool ok = grab(name, tab);
    views_->setCurrentIndex(was);
    return ok;
  };
  const QList<QPair<QString, QWidget*>> views = {
      {QStringLiteral("main-window"), this}, {QStringLiteral("summary"), summary_},
      {QStringLiteral("editor"), editor_},   {QStringLiteral("breakdown"), chart_},
      {QStringLiteral("throughput"), plot_},
  };
  for (const auto& [name, widget] : views)
    if (!grab(name, widget)) return {};
  if (result_) {
    if (!grabTab(QStringLiteral("thermal"), thermal_, [this] { thermal_->waitForIdle(); }) ||
        !grabTab(QStringLiteral("links"), links_, [this] { links_->waitForIdle(); }))
      return {};
    // Expert placement: the DeepSeek-V3 preset with Zipf routing and one redundant expert per
    // EP rank, so the token share differs between devices; in a view of its own, large enough
    // for the numbers in the device squares to be drawn.
    try {
      perf::Design moe = presets_->project("deepseek-v3-deepstack");
      moe.workload.routing.kind = workload::RoutingKind::zipf;
      moe.parallel.redundant_experts_per_rank = 1;
      LinkView view(this);  // a child window: it keeps the window's style sheet
      view.setWindowFlags(Qt::Window);
      view.setAttribute(Qt::WA_DontShowOnScreen);
      view.resize(1100, 760);
      view.show();
      view.showDesign(moe, perf::evaluate(moe));
      view.setDeviceColouring(LinkView::kExperts);
      view.waitForIdle();
      if (!grab(QStringLiteral("links-moe"), &view)) return {};
    } catch (const std::exception&) {
      // no such preset: the list just lacks that picture
    }
    // The current design next to the same design at half its batch.
    const auto fillCompare = [this] {
      if (compare_->count() > 0) return;
      compare_->add(design_, *result_);
      perf::Design half = design_;
      half.workload.batch_auto = false;
      half.workload.batch = std::max(1, result_->batch / 2);
      half.name = "Same design at half the batch";
      if (perf::validate(half).empty()) compare_->add(half, perf::evaluate(half));
    };
    if (!grabTab(QStringLiteral("compare"), compare_, fillCompare)) return {};
  }
  // A finished search (a small preset unless one already ran).
  const auto runSearch = [this] {
    if (search_->pointCount() > 0 || search_->running()) return;
    QString err;
    if (!search_->start(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &err)) return;
    QElapsedTimer t;
    t.start();
    while (search_->running() && t.elapsed() < 60000) {
      QApplication::processEvents(QEventLoop::AllEvents, 50);
      QThread::msleep(10);
    }
  };
  if (!grabTab(QStringLiteral("search"), search_, runSearch)) return {};
  // A finished run of the project's serving settings; without any, a closed benchmark with a
  // chat SLO (2 s TTFT, 100 ms TPOT).
  const auto runServing = [this] {
    if (serving_->result() == nullptr && !serving_->running()) {
      if (doc_.serving() == serving::ServingSpec{}) {
        serving_->setSource(ServingView::Source::benchmark);
        serving_->setRequests(300);
        serving_->setSlo(2, 0.1);
      }
      serving_->run();
    }
    serving_->waitForIdle();
  };
  if (result_ && !grabTab(QStringLiteral("serving"), serving_, runServing)) return {};
  // Expert placement on a mesh: the mixtral-hdmoe project (HD-MoE's 8 × 4 mesh), a few layers
  // and a short GLPK limit, in a view of its own at the size of a maximised result view.
  try {
    const perf::Design moe = presets_->project("mixtral-hdmoe");
    ExpertsView view(this);  // a child window: it keeps the window's style sheet
    view.setWindowFlags(Qt::Window);
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1100, 820);
    ExpertsView::Settings s;
    s.batches = 1;
    s.time_limit_s = 0.5;
    s.layer_stride = 8;
    view.setSettings(s);
    view.show();
    view.setDesign(moe);
    view.waitForIdle();
    if (!grab(QStringLiteral("experts"), &view)) return {};
  } catch (const std::exception&) {
    // no such preset: the list just lacks that picture
  }
  // The search-space form (a window of its own, opened from the Search tab) on the space the
  // Search tab shows.
  if (auto* edit = search_->findChild<QAbstractButton*>(QStringLiteral("searchEditSpace"))) {
    edit->click();
    QWidget* form = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w->objectName() == QStringLiteral("searchSpaceWindow") && w->isVisible()) form = w;
    if (form) {
      form->setAttribute(Qt::WA_DontShowOnScreen);
      form->resize(std::max(form->width(), 1100), std::max(form->height(), 800));
      const bool ok = grab(QStringLiteral("search-form"), form);
      form->close();
      if (!ok) return {};
    }
  }
  // Each page of the form editors; a device without a 3D stack also shows the Memory page of
  // the 3D-stacked preset (its vertical links and layers), and a dense model the Model page of
  // an MoE preset (its routing).
  const QString pageNames[] = {QStringLiteral("model"), QStringLiteral("parallel"),
                               QStringLiteral("stack"), QStringLiteral("compute"),
                               QStringLiteral("mesh"),  QStringLiteral("system"),
                               QStringLiteral("power"), QStringLiteral("runtime")};
  // A page's form at its full height (the scroll area shows part of a long one).
  const auto grabPage = [&](const QString& name, DesignEditor::Page page) {
    editor_->showPage(page);
    // Layout requests of a page that was hidden arrive in a chain (form, page, scroll area).
    for (int i = 0; i < 10; ++i) {
      QApplication::processEvents();
      QThread::msleep(5);
    }
    QWidget* form = editor_->pageContents(page);
    // Word-wrapped labels make the form's height depend on its width.
    const int needed =
        form->hasHeightForWidth() ? form->heightForWidth(form->width()) : form->sizeHint().height();
    form->resize(form->width(), std::max(form->height(), needed));
    return grab(name, form);
  };
  const int wasPage = editor_->pages()->currentIndex();
  for (int page = 0; page < static_cast<int>(std::size(pageNames)); ++page)
    if (!grabPage(QStringLiteral("editor-") + pageNames[page],
                  static_cast<DesignEditor::Page>(page)))
      return {};
  if (design_.hardware.memory.kind != hw::MemoryKind::stacked_3d ||
      design_.model.moe.experts == 0) {
    try {
      perf::Design other = presets_->project("deepseek-v3-deepstack");
      other.workload.routing.kind = workload::RoutingKind::zipf;  // a skew worth reading
      editor_->setBase(other);
      bool ok = true;
      if (design_.hardware.memory.kind != hw::MemoryKind::stacked_3d)
        ok = grabPage(QStringLiteral("editor-stack-3d"), DesignEditor::kStackPage) &&
             grabPage(QStringLiteral("editor-power-3d"), DesignEditor::kPowerPage) &&
             grabPage(QStringLiteral("editor-runtime-3d"), DesignEditor::kRuntimePage);
      if (ok && design_.model.moe.experts == 0)
        ok = grabPage(QStringLiteral("editor-model-moe"), DesignEditor::kModelPage);
      editor_->setBase(doc_.design());
      if (!ok) return {};
    } catch (const std::exception&) {
      editor_->setBase(doc_.design());  // no such preset: the list just lacks those pictures
    }
  }
  editor_->pages()->setCurrentIndex(wasPage);
  // The whole window once more in the dark palette, and the views that draw their own plots.
  {
    const theme::Mode was = theme::current();
    setTheme(theme::Mode::dark);
    bool ok = grab(QStringLiteral("main-window-dark"), this);
    // The views that draw their own plots, in the dark palette too.
    const auto idle = [] {};
    if (ok && result_)
      ok = grabTab(QStringLiteral("thermal-dark"), thermal_, [this] { thermal_->waitForIdle(); }) &&
           grabTab(QStringLiteral("links-dark"), links_, [this] { links_->waitForIdle(); }) &&
           grabTab(QStringLiteral("compare-dark"), compare_, idle);
    ok = ok && grabTab(QStringLiteral("search-dark"), search_, idle);
    if (ok && result_)
      ok = grabTab(QStringLiteral("serving-dark"), serving_, [this] { serving_->waitForIdle(); });
    setTheme(was);
    if (!ok) return {};
  }
  // The breakdown's other scales are further views of the same widget.
  if (auto* mode = chart_->findChild<QComboBox*>(QStringLiteral("breakdownMode"))) {
    const int was = mode->currentIndex();
    for (const auto& [index, name] :
         {std::pair{1, "breakdown-ms"}, std::pair{2, "breakdown-power"},
          std::pair{3, "breakdown-area"}, std::pair{4, "breakdown-ops"}}) {
      mode->setCurrentIndex(index);
      if (!grab(QString::fromLatin1(name), chart_)) return {};
    }
    mode->setCurrentIndex(was);
  }
  // Enlarged views: the throughput curve maximised in place, the thermal view in a
  // window of its own; empty plots as hints (a fresh Compare and Search, an invalid design).
  if (ResultPane* p = area_->pane(QStringLiteral("throughput"))) {
    p->maximise();
    const bool ok = grab(QStringLiteral("maximised"), this);
    p->restore();
    if (!ok) return {};
  }
  if (ResultPane* p = area_->pane(QStringLiteral("thermal")); p && result_) {
    p->detach();
    thermal_->waitForIdle();
    const bool ok = grab(QStringLiteral("detached"), p->detachedWindow());
    p->restore();
    if (!ok) return {};
  }
  const auto grabAlone = [&](const QString& name, QWidget* view, QSize size) {
    view->setWindowFlags(Qt::Window);  // a child window: it keeps the window's style sheet
    view->setAttribute(Qt::WA_DontShowOnScreen);
    view->resize(size);
    view->show();
    return grab(name, view);
  };
  {
    CompareView compare(this);
    SearchPanel search(*presets_, this);
    ThroughputPlot invalid(this);
    invalid.clear();
    if (!grabAlone(QStringLiteral("compare-empty"), &compare, QSize(1000, 520)) ||
        !grabAlone(QStringLiteral("search-empty"), &search, QSize(1000, 520)) ||
        !grabAlone(QStringLiteral("throughput-empty"), &invalid, QSize(520, 400)))
      return {};
  }
  return written;
}

}  // namespace stackscope::ui
