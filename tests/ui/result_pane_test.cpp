// SPDX-License-Identifier: GPL-3.0-or-later
// Enlargeable result views and empty-plot hints: a view maximised in
// place fills the results area and hides the others until restored; a detached view lives in a
// window of its own until that window closes; the states outlive the window (temporary
// QSettings); an empty plot says what to do and stops saying it when data arrives.
#include <qcustomplot.h>

#include <QApplication>
#include <QChartView>
#include <QLabel>
#include <QPointer>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/breakdown_chart.hpp"
#include "stackscope/ui/compare_view.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/result_pane.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/thermal_view.hpp"
#include "stackscope/ui/throughput_plot.hpp"

using stackscope::ui::MainWindow;
using stackscope::ui::ResultArea;
using stackscope::ui::ResultPane;
using State = stackscope::ui::ResultPane::State;

class ResultPaneTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir settingsDir_;

  static ResultPane* pane(MainWindow& w, const char* id) {
    ResultPane* p = w.resultArea()->pane(QString::fromLatin1(id));
    if (!p) qFatal("no pane %s", id);
    return p;
  }

  static void showAndWait(MainWindow& w) {
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
  }

  // Pixels of `image` inside `r` that differ from its top-left background pixel.
  static int inkPixels(const QImage& image, const QRect& r) {
    const QRgb bg = image.pixel(1, 1);
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
      for (int x = r.left(); x <= r.right(); ++x)
        if (image.pixel(x, y) != bg) ++n;
    return n;
  }

 private Q_SLOTS:
  // Every run writes its settings into a directory of its own, never the user's.
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    QStandardPaths::setTestModeEnabled(true);  // the autosave file (AppDataLocation)
    QApplication::setOrganizationDomain(QStringLiteral("stackscope.io"));
    QApplication::setApplicationName(QStringLiteral("StackScopeResultPaneTest"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
    QVERIFY2(QSettings().fileName().startsWith(settingsDir_.path()),
             qPrintable(QSettings().fileName()));
    QFile::remove(MainWindow::autosavePath());
  }

  void init() { QSettings().clear(); }

  // Maximise: the throughput pane fills the results area, the Summary, the tab stack and the
  // breakdown beside it are hidden; restore puts it back where it was, at the same size.
  void maximiseFillsTheAreaAndRestoreBringsTheLayoutBack() {
    MainWindow w;
    showAndWait(w);
    ResultArea* area = w.resultArea();
    ResultPane* throughput = pane(w, "throughput");
    ResultPane* breakdown = pane(w, "breakdown");
    ResultPane* summary = pane(w, "summary");
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("views"));
    QVERIFY(throughput->isVisible() && breakdown->isVisible() && summary->isVisible());
    const QRect before = throughput->geometry();
    const int normalHeight = throughput->body()->height();
    QVERIFY(throughput->maximiseButton()->isVisible());

    throughput->maximiseButton()->click();
    QCoreApplication::processEvents();
    QCOMPARE(throughput->state(), State::maximised);
    QCOMPARE(area->maximisedPane(), throughput);
    QVERIFY(throughput->body()->isVisible());
    QVERIFY(throughput->view()->isVisible());
    QVERIFY(!breakdown->isVisible());
    QVERIFY(!summary->isVisible());
    QVERIFY(!tabs->isVisible());
    const QWidget* body = throughput->body();
    QVERIFY2(body->height() >= 0.8 * area->height(),
             qPrintable(QStringLiteral("%1 of %2 px").arg(body->height()).arg(area->height())));
    QVERIFY(body->width() >= 0.8 * area->width());
    // The tab stack holds 60 % of the column below the summary; maximised, the view gets it all.
    QVERIFY2(body->height() > 3 * normalHeight / 2,
             qPrintable(QStringLiteral("%1 px maximised, %2 px in its tab").arg(body->height()).arg(normalHeight)));
    QCOMPARE(throughput->maximiseButton()->text(), QStringLiteral("Restore"));

    // The button again (same place, now "Restore") gives the layout back.
    throughput->maximiseButton()->click();
    QCoreApplication::processEvents();
    QCOMPARE(throughput->state(), State::normal);
    QCOMPARE(area->maximisedPane(), nullptr);
    QCOMPARE(throughput->body()->parentWidget(), throughput);
    QVERIFY(breakdown->isVisible() && summary->isVisible() && tabs->isVisible());
    QCOMPARE(throughput->geometry(), before);
    QCOMPARE(throughput->body()->height(), normalHeight);

    // One maximised view at a time: maximising another restores the first.
    throughput->maximise();
    breakdown->maximise();
    QCOMPARE(throughput->state(), State::normal);
    QCOMPARE(breakdown->state(), State::maximised);
    QCOMPARE(area->maximisedPane(), breakdown);
    breakdown->restore();
    QCOMPARE(area->currentIndex(), 0);
  }

  // The keyboard: the shortcut (named in the tooltip) maximises the pane holding the focus, Esc
  // restores it.
  void shortcutMaximisesTheFocusedPaneAndEscapeRestores() {
    MainWindow w;
    showAndWait(w);
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    ResultPane* breakdown = pane(w, "breakdown");
    const QString keys = ResultArea::shortcut().toString(QKeySequence::NativeText);
    QVERIFY2(breakdown->maximiseButton()->toolTip().contains(keys),
             qPrintable(breakdown->maximiseButton()->toolTip()));
    QVERIFY(breakdown->maximiseButton()->toolTip().contains(QStringLiteral("Esc")));
    breakdown->maximiseButton()->setFocus();
    QCOMPARE(w.resultArea()->currentPane(), breakdown);
    QTest::keyClick(&w, Qt::Key_M, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(breakdown->state(), State::maximised);
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &w, Qt::Key_Escape);
    QCOMPARE(breakdown->state(), State::normal);
    QVERIFY(pane(w, "throughput")->isVisible());
  }

  // Detach: the view moves into a top-level window (a stale thermal view is solved there); the
  // pane's place says where it went; closing the window docks it again.
  void detachMovesTheViewIntoAWindowAndClosingItDocks() {
    MainWindow w;
    showAndWait(w);
    ResultPane* thermalPane = pane(w, "thermal");
    auto* thermal = qobject_cast<stackscope::ui::ThermalView*>(thermalPane->view());
    QVERIFY(thermal);
    QVERIFY(!thermal->hasSolution());  // its tab was never shown
    thermalPane->detachButton()->click();
    QCOMPARE(thermalPane->state(), State::detached);
    QPointer<QWidget> window = thermalPane->detachedWindow();
    QVERIFY(window);
    QVERIFY(window->isWindow());
    QVERIFY(window->isVisible());
    QVERIFY(window != &w);
    QCOMPARE(thermal->window(), window.data());
    QVERIFY(window->windowTitle().contains(QStringLiteral("Thermal")));
    QVERIFY(!thermalPane->maximiseButton()->isVisibleTo(thermalPane->body()));
    auto* placeholder = thermalPane->findChild<QWidget*>(QStringLiteral("panePlaceholder"));
    QVERIFY(placeholder && placeholder->isVisibleTo(thermalPane));
    // Shown out of its tab, the lazy view is solved for the current design.
    thermal->waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(thermal->hasSolution(), 10000);

    window->close();
    QCOMPARE(thermalPane->state(), State::normal);
    QCOMPARE(thermal->window(), &w);
    QCOMPARE(thermalPane->body()->parentWidget(), thermalPane);
    QVERIFY(!placeholder->isVisibleTo(thermalPane));
    QTRY_VERIFY(window.isNull());  // the empty window is gone

    // Detach and its "Dock" button, and a pane inside another (the mesh inside Links).
    ResultPane* mesh = pane(w, "mesh");
    mesh->detach();
    QVERIFY(mesh->detachedWindow());
    QCOMPARE(mesh->detachButton()->text(), QStringLiteral("Dock"));
    mesh->detachButton()->click();
    QCOMPARE(mesh->state(), State::normal);
    mesh->maximise();
    QCOMPARE(w.resultArea()->maximisedPane(), mesh);
    QVERIFY(mesh->view()->isVisible());
    mesh->restore();
  }

  // Remembered: with the session state on, a new window (same settings) comes back with the
  // same view maximised and the same view detached at its window's size; without it (tests,
  // screenshots) the saved states are ignored.
  void statesAreRememberedAcrossWindows() {
    QSize detachedSize;
    {
      MainWindow w;
      w.enableSessionState();
      showAndWait(w);
      pane(w, "throughput")->maximise();
      pane(w, "compare")->detach();
      QWidget* window = pane(w, "compare")->detachedWindow();
      window->resize(720, 480);
      QCoreApplication::processEvents();
      detachedSize = window->size();
      QCOMPARE(QSettings().value(QStringLiteral("resultPanes/throughput/state")).toString(),
               QStringLiteral("maximised"));
      QCOMPARE(QSettings().value(QStringLiteral("resultPanes/compare/state")).toString(),
               QStringLiteral("detached"));
    }
    {
      MainWindow w;
      w.enableSessionState();
      showAndWait(w);
      QCOMPARE(pane(w, "throughput")->state(), State::maximised);
      QCOMPARE(w.resultArea()->maximisedPane(), pane(w, "throughput"));
      QVERIFY(!pane(w, "summary")->isVisible());
      ResultPane* compare = pane(w, "compare");
      QCOMPARE(compare->state(), State::detached);
      QVERIFY(compare->detachedWindow() && compare->detachedWindow()->isVisible());
      QCOMPARE(compare->detachedWindow()->size(), detachedSize);
      QCOMPARE(pane(w, "thermal")->state(), State::normal);
      // Back to normal: remembered too.
      compare->detachedWindow()->close();
      pane(w, "throughput")->restore();
    }
    {
      MainWindow w;
      w.enableSessionState();
      showAndWait(w);
      for (ResultPane* p : w.resultArea()->panes())
        QVERIFY2(p->state() == State::normal, qPrintable(p->id()));
    }
    QSettings().setValue(QStringLiteral("resultPanes/search/state"), QStringLiteral("detached"));
    MainWindow plain;  // no session state
    showAndWait(plain);
    QCOMPARE(pane(plain, "search")->state(), State::normal);
    QSettings().remove(QStringLiteral("resultPanes/serving"));
    pane(plain, "serving")->detach();
    QCOMPARE(QSettings().value(QStringLiteral("resultPanes/serving/state")).toString(), QString());
  }

  // A plot with nothing to show says what to do (and paints it); data removes the hint, and
  // its loss brings it back.
  void emptyPlotShowsAHintAndDataRemovesIt() {
    QCustomPlot plot;
    plot.resize(500, 320);
    plot.xAxis->setLabel(QStringLiteral("x label"));
    stackscope::ui::setPlotHint(&plot, QStringLiteral("Press Run to see something"));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QCOMPARE(stackscope::ui::shownHint(&plot), QStringLiteral("Press Run to see something"));
    auto* hint = plot.findChild<QWidget*>(QStringLiteral("plotHint"));
    QVERIFY(hint && hint->isVisible());
    QCOMPARE(hint->geometry(), plot.rect());
    // The sentence is drawn in the middle of the plot.
    const QImage empty = plot.grab().toImage();
    QVERIFY(inkPixels(empty, QRect(150, 130, 200, 60)) > 50);

    QCPGraph* g = plot.addGraph();
    g->setData(QVector<double>{1, 2, 3}, QVector<double>{3, 1, 2});
    plot.replot();
    QVERIFY(stackscope::ui::shownHint(&plot).isEmpty());
    QVERIFY(!hint->isVisible());
    QVERIFY(stackscope::ui::plotHasData(&plot));
    g->data()->clear();
    plot.replot();
    QCOMPARE(stackscope::ui::shownHint(&plot), QStringLiteral("Press Run to see something"));
    // It follows the plot's size.
    plot.resize(640, 400);
    QCoreApplication::processEvents();
    QCOMPARE(hint->geometry(), plot.rect());
  }

  // Compare marks a best metric only among designs running the same workload, and says what
  // differs when they do not; its bar chart names the resources as the rest of the window does.
  void compareMarksBestOnlyForEqualWorkloads() {
    stackscope::io::PresetRegistry presets;
    presets.register_builtins();
    auto a = presets.project("default");
    auto b = a;
    b.parallel.tp = a.parallel.tp > 1 ? a.parallel.tp / 2 : a.parallel.tp;
    b.workload.batch = a.workload.batch * 2;
    auto boldCells = [](const QTableWidget* t) {
      int n = 0;
      for (int r = 0; r < t->rowCount(); ++r)
        for (int c = 0; c < t->columnCount(); ++c)
          if (t->item(r, c) && t->item(r, c)->font().bold()) ++n;
      return n;
    };
    stackscope::ui::CompareView compare;
    auto* table = compare.findChild<QTableWidget*>(QStringLiteral("compareTable"));
    QVERIFY(table);
    compare.add(a, stackscope::perf::evaluate(a));
    compare.add(b, stackscope::perf::evaluate(b));
    QVERIFY(boldCells(table) > 0);
    auto hintText = [&] {
      QString all;
      for (auto* l : compare.findChildren<QLabel*>()) all += l->text();
      return all;
    };
    QVERIFY(!hintText().contains(QStringLiteral("different workloads")));
    compare.clear();
    b = a;
    b.workload.input_len = a.workload.input_len / 2;
    compare.add(a, stackscope::perf::evaluate(a));
    compare.add(b, stackscope::perf::evaluate(b));
    QCOMPARE(boldCells(table), 0);
    QVERIFY2(hintText().contains(QStringLiteral("different workloads (input / output tokens)")),
             qPrintable(hintText()));
    auto* bars = compare.findChild<QCustomPlot*>();
    auto ticker = bars->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    const QStringList labels = ticker->ticks().values();
    QVERIFY(labels.contains(QStringLiteral("Inter-chip network")));
    QVERIFY(labels.contains(QStringLiteral("Vertical links")));
    for (const QString& l : labels) QVERIFY2(!l.contains(QLatin1Char('_')), qPrintable(l));
  }

  // The views: an invalid design's throughput curve and breakdown, an empty Compare and a
  // Search before its first run show hints; a valid design, an added design, no hint.
  void viewsShowHintsOnlyWhileEmpty() {
    stackscope::io::PresetRegistry presets;
    presets.register_builtins();
    const auto design = presets.project("default");
    const auto result = stackscope::perf::evaluate(design);

    stackscope::ui::ThroughputPlot throughput;
    throughput.clear();
    QVERIFY(stackscope::ui::shownHint(throughput.plot()).contains(QStringLiteral("not valid")));
    throughput.showDesign(design, result.batch);
    QVERIFY(stackscope::ui::shownHint(throughput.plot()).isEmpty());

    stackscope::ui::BreakdownChart breakdown;
    breakdown.clear();
    QVERIFY(!stackscope::ui::shownHint(breakdown.chartView()).isEmpty());
    breakdown.showResult(result);
    QVERIFY(stackscope::ui::shownHint(breakdown.chartView()).isEmpty());

    stackscope::ui::CompareView compare;
    auto* bars = compare.findChild<QCustomPlot*>();
    QVERIFY(stackscope::ui::shownHint(bars).contains(QStringLiteral("Add to Compare")));
    compare.add(design, result);
    QVERIFY(stackscope::ui::shownHint(bars).isEmpty());
    compare.clear();
    QVERIFY(!stackscope::ui::shownHint(bars).isEmpty());

    stackscope::ui::SearchPanel search(presets);
    QVERIFY(stackscope::ui::shownHint(search.plot()).contains(QStringLiteral("Pareto frontier")));

    // In the window: the default design's curve has no hint; Add to Compare removes that one.
    MainWindow w;
    showAndWait(w);
    auto* windowCompare = w.findChild<stackscope::ui::CompareView*>();
    auto* windowBars = windowCompare->findChild<QCustomPlot*>();
    QVERIFY(!stackscope::ui::shownHint(windowBars).isEmpty());
    w.addToCompare();
    QVERIFY(stackscope::ui::shownHint(windowBars).isEmpty());
    auto* windowThroughput = w.findChild<stackscope::ui::ThroughputPlot*>();
    QVERIFY(stackscope::ui::shownHint(windowThroughput->plot()).isEmpty());
  }
};

QTEST_MAIN(ResultPaneTest)
#include "result_pane_test.moc"
