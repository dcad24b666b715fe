// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's layout: the header, the what-if editors and the result views, each view in
// a ResultPane so that it can be maximised in place or detached.
#include <QApplication>
#include <QResizeEvent>
#include <QDir>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>

#include "main_window_detail.hpp"
#include "stackscope/ui/breakdown_chart.hpp"
#include "stackscope/ui/compare_view.hpp"
#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/device_panel.hpp"
#include "stackscope/ui/experts_view.hpp"
#include "stackscope/ui/link_view.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/result_pane.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/serving_view.hpp"
#include "stackscope/ui/summary_panel.hpp"
#include "stackscope/ui/thermal_view.hpp"
#include "stackscope/ui/throughput_plot.hpp"
#include "stackscope/ui/wafer_view.hpp"

namespace stackscope::ui {

void MainWindow::buildUi() {
  auto* central = new QWidget(this);
  auto* outer = new QVBoxLayout(central);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->setSpacing(0);

  auto* header = new QFrame(central);
  header->setObjectName(QStringLiteral("header"));
  auto* hbox = new QHBoxLayout(header);
  hbox->setContentsMargins(16, 10, 16, 10);
  hbox->setSpacing(12);
  auto* icon = new QLabel(header);
  icon->setPixmap(detail::renderIcon(40));
  hbox->addWidget(icon);
  auto* titles = new QVBoxLayout();
  titles->setSpacing(2);
  title_ = new QLabel(header);
  title_->setObjectName(QStringLiteral("designTitle"));
  subtitle_ = new QLabel(header);
  subtitle_->setObjectName(QStringLiteral("designSubtitle"));
  subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // A label is as wide as its text: a long design or device name must not set the window's
  // minimum width (the window keeps its default 1440 px; the end of such a line is cut).
  for (QLabel* l : {title_, subtitle_})
    l->setSizePolicy(QSizePolicy::Ignored, l->sizePolicy().verticalPolicy());
  titles->addWidget(title_);
  titles->addWidget(subtitle_);
  hbox->addLayout(titles, 1);
  outer->addWidget(header);

  auto* body = new QWidget(central);
  auto* bodyBox = new QHBoxLayout(body);
  bodyBox->setContentsMargins(8, 4, 4, 4);
  auto* split = new QSplitter(Qt::Horizontal, body);
  bodyBox->addWidget(split);
  split->setObjectName(QStringLiteral("mainSplitter"));
  split->setChildrenCollapsible(false);
  mainSplit_ = split;
  connect(split, &QSplitter::splitterMoved, this, [this] { splitChosen_ = true; });

  auto* leftCol = new QWidget(split);
  auto* leftBox = new QVBoxLayout(leftCol);
  leftBox->setContentsMargins(0, 4, 4, 4);
  auto* left = new QGroupBox(tr("What if…"), leftCol);
  leftBox->addWidget(left, 1);
  left->setObjectName(QStringLiteral("editorBox"));
  auto* lbox = new QVBoxLayout(left);
  editor_ = new DesignEditor(*presets_, left);
  lbox->addWidget(editor_, 1);
  auto* hint = new QLabel(tr("Every change re-evaluates the design (Ctrl+Z undoes it). A field in "
                             "red has a problem: its page says which, and so does its tooltip."),
                          left);
  hint->setObjectName(QStringLiteral("hint"));
  hint->setWordWrap(true);
  lbox->addWidget(hint);
  // The device summary is the last page of the editors: the pages get the column's height.
  device_ = new DevicePanel();
  device_->setContentsMargins(6, 6, 6, 6);
  editor_->addPage(device_, tr("Device at a glance"));
  left->setMinimumWidth(340);

  // The result views, each in a pane of its own (maximise in place, detach into a window), in
  // the ResultArea: the right-hand column, which a maximised view fills.
  auto* right = new QWidget();
  area_ = new ResultArea(right, split);
  auto* rbox = new QVBoxLayout(right);
  rbox->setContentsMargins(4, 4, 4, 4);
  rbox->setSpacing(12);
  // A stale Thermal or Links view recomputes when it is shown: in its tab, maximised or detached.
  const auto pane = [this](const char* id, const QString& title, QWidget* view) {
    auto* p = new ResultPane(QString::fromLatin1(id), title, view);
    connect(p, &ResultPane::stateChanged, this, [this] { refreshLazyViews(); });
    return p;
  };
  // Summary above the tabbed views, in a splitter: the views get at least half of a small
  // screen's height by default (the summary scrolls when it has less than it needs), and the
  // user can move the split.
  auto* resultSplit = new QSplitter(Qt::Vertical, right);
  resultSplit->setObjectName(QStringLiteral("resultSplitter"));
  resultSplit->setChildrenCollapsible(false);
  auto* summaryScroll = new QScrollArea(resultSplit);
  summaryScroll->setObjectName(QStringLiteral("summaryScroll"));
  summaryScroll->setWidgetResizable(true);
  summaryScroll->setFrameShape(QFrame::NoFrame);
  summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  summaryScroll->setAutoFillBackground(false);
  summaryScroll->viewport()->setAutoFillBackground(false);
  summaryScroll->setMinimumHeight(120);
  auto* summaryBox = new QGroupBox(tr("Summary"));
  summaryBox->setObjectName(QStringLiteral("summaryBox"));
  auto* sbox = new QVBoxLayout(summaryBox);
  summary_ = new SummaryPanel(summaryBox);
  sbox->addWidget(pane("summary", tr("Summary"), summary_));
  summaryScroll->setWidget(summaryBox);
  resultSplit->addWidget(summaryScroll);
  rbox->addWidget(resultSplit, 1);

  views_ = new QTabWidget(resultSplit);
  views_->setObjectName(QStringLiteral("views"));
  // A tab stack is as large as its largest page, shown or not: each view sits in a scroll area
  // of its own, so no view's minimum size can push the window past its default 1440 × 940 (a
  // view needing more than its tab gets scrolls instead).
  const auto addView = [this](QWidget* view, const QString& title) {
    auto* area = new QScrollArea(views_);
    const auto* p = qobject_cast<ResultPane*>(view);
    area->setObjectName((p ? p->view() : view)->objectName() + QStringLiteral("Scroll"));
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(view);
    // Transparent, like the editor pages: the tab pane's background shows through.
    area->setAutoFillBackground(false);
    area->viewport()->setAutoFillBackground(false);
    views_->addTab(area, title);
  };
  auto* charts = new QSplitter(Qt::Horizontal, views_);
  charts->setObjectName(QStringLiteral("performanceSplit"));
  charts->setChildrenCollapsible(false);
  chart_ = new BreakdownChart();
  plot_ = new ThroughputPlot();
  charts->addWidget(pane("breakdown", tr("Breakdown"), chart_));
  charts->addWidget(pane("throughput", tr("Throughput vs interactivity"), plot_));
  charts->setStretchFactor(0, 1);
  charts->setStretchFactor(1, 1);
  addView(charts, tr("&Performance"));
  thermal_ = new ThermalView();
  addView(pane("thermal", tr("Thermal"), thermal_), tr("&Thermal"));
  views_->setTabToolTip(1, tr("Per-layer temperature maps of the stack (grid solver, off the UI "
                              "thread)"));
  links_ = new LinkView();
  addView(pane("links", tr("Links"), links_), tr("&Links"));
  views_->setTabToolTip(2, tr("The system network with each link coloured by its utilisation"));
  compare_ = new CompareView();
  addView(pane("compare", tr("Compare"), compare_), tr("C&ompare"));
  search_ = new SearchPanel(*presets_);
  addView(pane("search", tr("Search"), search_), tr("&Search"));
  serving_ = new ServingView();
  addView(pane("serving", tr("Serving"), serving_), tr("Se&rving"));
  experts_ = new ExpertsView();
  addView(pane("experts", tr("Experts"), experts_), tr("E&xperts"));
  wafer_ = new WaferView();
  addView(pane("wafer", tr("Wafer"), wafer_), tr("&Wafer"));
  views_->setTabToolTip(3, tr("Up to four designs side by side"));
  views_->setTabToolTip(4, tr("Search a design space on all cores and watch the Pareto frontier "
                              "grow; click a point to load it"));
  views_->setTabToolTip(5, tr("Replay a request stream (benchmark, Poisson or a trace) on "
                              "instances of the design: TTFT/TPOT CDFs, goodput, KV use"));
  views_->setTabToolTip(7, tr("A wafer project's dies by role and load, its D2D links by KV "
                              "traffic, and a co-exploration sweep of one wafer knob"));
  views_->setTabToolTip(6, tr("MoE expert placement on the design's 2D mesh: every strategy "
                              "(TP, EP, EPLB, balanced, HD-MoE) scored by one simulator"));
  connect(search_, &SearchPanel::designChosen, this, [this](const perf::Design& d) {
    // An undoable edit: Ctrl+Z returns to the design before the click. The point keeps the
    // project's name while it has the project's device, model and device count.
    design_ = d;
    design_.name = followedName(d);
    editor_->setBase(design_);
    doc_.edit(design_, tr("Load search point"));
    evaluateNow();
    statusBar()->showMessage(
        tr("Loaded a design from the search frontier into the editor (Ctrl+Z to go back)"));
  });
  // The grid solve (~0.1 s) runs only when its tab is shown.
  connect(views_, &QTabWidget::currentChanged, this, [this] { refreshLazyViews(); });
  views_->setMinimumHeight(200);
  resultSplit->addWidget(views_);
  resultSplit->setStretchFactor(0, 2);
  resultSplit->setStretchFactor(1, 3);
  // 40 : 60 of the column to begin with, kept in proportion as the window is resized.
  resultSplit->setSizes({400, 600});

  split->addWidget(leftCol);
  split->addWidget(area_);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  outer->addWidget(body, 1);
  setCentralWidget(central);
  statusBar()->setSizeGripEnabled(true);
}

QStringList MainWindow::saveWindowShots(const QString& dir, QSize size, QString* error) {
  if (!QDir().mkpath(dir)) {
    if (error) *error = tr("cannot create directory %1").arg(dir);
    return {};
  }
  if (!isVisible()) show();
  resize(size);
  QStringList written;
  const int was = views_->currentIndex();
  for (int i = 0; i < views_->count(); ++i) {
    views_->setCurrentIndex(i);
    thermal_->waitForIdle();  // a lazy view solves when shown: its picture waits for it
    links_->waitForIdle();
    // A wafer project's Wafer tab with its run (dies by role, links, temperature map), not the
    // line asking for one.
    if (views_->currentWidget() == detail::tabPage(wafer_) && design_.wafer &&
        wafer_->mapRun() == nullptr && wafer_->runMap())
      wafer_->waitForIdle();
    // The Serving and Experts tabs with their run on the project's settings, as the design
    // review shows them (runForReview), not the line asking for one.
    if (views_->currentWidget() == detail::tabPage(serving_) && result_ &&
        serving_->result() == nullptr && !serving_->running() && serving_->run())
      serving_->waitForIdle();
    QString why;
    if (views_->currentWidget() == detail::tabPage(experts_) && experts_->outcome() == nullptr &&
        !experts_->running() && ExpertsView::meshOf(design_, &why) && experts_->run())
      experts_->waitForIdle();
    for (int k = 0; k < 10; ++k) {
      QApplication::processEvents();
      QThread::msleep(5);
    }
    const QString tab = views_->tabText(i).remove(QLatin1Char('&')).toLower();
    const QString path = QDir(dir).filePath(QStringLiteral("window-%1x%2-%3.png")
                                                .arg(size.width())
                                                .arg(size.height())
                                                .arg(tab));
    if (!grab().save(path)) {
      if (error) *error = tr("cannot write %1").arg(path);
      views_->setCurrentIndex(was);
      return {};
    }
    written << path;
  }
  views_->setCurrentIndex(was);
  return written;
}

void MainWindow::resizeEvent(QResizeEvent* e) {
  QMainWindow::resizeEvent(e);
  if (splitChosen_ || !mainSplit_) return;
  // The editor column: its minimum on a 1280-pixel screen, more on a wide one; the result
  // views get the rest.
  const int total = mainSplit_->width();
  const int left = std::clamp(width() * 27 / 100, 340, 480);
  if (total > left) mainSplit_->setSizes({left, total - left});
}

bool MainWindow::viewShown(QWidget* view) const {
  return views_->isAncestorOf(view) ? views_->currentWidget() == detail::tabPage(view) : true;
}

void MainWindow::refreshLazyViews() {
  if (!result_) return;
  if (thermalStale_ && viewShown(thermal_)) {
    thermalStale_ = false;
    thermal_->showDesign(design_, *result_);
  }
  if (linksStale_ && viewShown(links_)) {
    linksStale_ = false;
    links_->showDesign(design_, *result_);
  }
}

}  // namespace stackscope::ui
