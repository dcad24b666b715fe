// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab: its runs equal serving::simulate called directly with the same settings (what
// `stackscope-cli serve` runs), its plots fill, bad settings are reported and never run.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "stackscope/io/project.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/ui/serving_view.hpp"

using namespace stackscope;
using stackscope::ui::ServingView;

namespace {

// The design as `stackscope-cli serve` replays it: the static batch is not used.
perf::Design servingDesign(perf::Design d) {
  d.workload.batch_auto = false;
  d.workload.batch = 1;
  return d;
}

serving::SimResult direct(const perf::Design& design, const std::vector<serving::Request>& reqs,
                          double slo_ttft_s, double slo_tpot_s) {
  serving::SimOptions opt;
  opt.slo_ttft_s = slo_ttft_s;
  opt.slo_tpot_s = slo_tpot_s;
  const perf::Design d = servingDesign(design);
  return serving::simulate(
      reqs, serving::colocated_instances(d, serving::SchedulerConfig{}, std::max(1, d.parallel.dp)),
      opt);
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

class ServingViewTest : public QObject {
  Q_OBJECT
 private slots:
  void benchmarkMatchesTheCore() {
    const perf::Design design = io::builtin_presets().project("default");
    ServingView view;
    view.resize(1000, 860);
    view.show();
    view.setDesign(design);
    QVERIFY(view.result() == nullptr);
    view.setSource(ServingView::Source::benchmark);
    view.setRequests(200);
    view.setLengths(QStringLiteral("1024"), QStringLiteral("256"));
    view.setSlo(2.0, 0.1);
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY(!view.running());
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    QCOMPARE(view.completedRuns(), 1);
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);
    const auto want = direct(design, serving::benchmark(200, 1024, 256), 2.0, 0.1);
    QCOMPARE(r->completed, want.completed);
    QCOMPARE(r->completed, std::size_t{200});
    QCOMPARE(r->rejected, want.rejected);
    QCOMPARE(r->iterations, want.iterations);
    QVERIFY(close(r->output_tokens_per_s, want.output_tokens_per_s));
    QVERIFY(close(r->goodput_rps, want.goodput_rps));
    QVERIFY(close(r->ttft.p99, want.ttft.p99));
    QVERIFY(r->output_tokens_per_s > 0);

    // Both CDFs and the three timeline series have data.
    for (QCustomPlot* p : {view.ttftPlot(), view.tpotPlot()}) {
      QCOMPARE(p->graphCount(), 1);
      QVERIFY(p->graph(0)->dataCount() > 1);
      QVERIFY(p->xAxis->visible());
    }
    QCOMPARE(view.timelinePlot()->graphCount(), 3);
    QVERIFY(view.timelinePlot()->graph(0)->dataCount() > 1);

    // A picture to look at, beside the program's own screenshots (build/screenshots).
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("serving.png"))));
  }

  void poissonAndTraceMatchTheCore() {
    const perf::Design design = io::builtin_presets().project("default");
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::poisson);
    view.setRequests(120);
    view.setLengths(QStringLiteral("lognormal:512:0.8"), QStringLiteral("uniform:64:256"));
    view.setSlo(0, 0);  // none
    auto* rate = view.findChild<QDoubleSpinBox*>(QStringLiteral("servingRate"));
    QVERIFY(rate != nullptr);
    rate->setValue(4);
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    serving::GeneratorSpec g;
    g.arrivals.rate_per_s = 4;
    g.requests = 120;
    g.seed = 1;
    g.input = serving::parse_length_dist("lognormal:512:0.8", "input");
    g.output = serving::parse_length_dist("uniform:64:256", "output");
    const double inf = std::numeric_limits<double>::infinity();
    const auto want = direct(design, serving::generate(g), inf, inf);
    QVERIFY(view.result() != nullptr);
    QCOMPARE(view.result()->completed, want.completed);
    QVERIFY(close(view.result()->output_tokens_per_s, want.output_tokens_per_s));

    // A plain trace file read on the worker, twice as fast.
    QTemporaryDir tmp;
    const QString file = QDir(tmp.path()).filePath(QStringLiteral("trace.csv"));
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("arrival_s,input_tokens,output_tokens\n");
      for (int i = 0; i < 60; ++i)
        f.write(QByteArray::number(0.25 * i) + ',' + QByteArray::number(200 + 37 * i) + ',' +
                QByteArray::number(20 + 5 * (i % 7)) + '\n');
    }
    view.setSource(ServingView::Source::trace);
    auto* trace = view.findChild<QLineEdit*>(QStringLiteral("servingTrace"));
    auto* scale = view.findChild<QDoubleSpinBox*>(QStringLiteral("servingTimeScale"));
    QVERIFY(trace != nullptr && scale != nullptr);
    trace->setText(file);
    scale->setValue(2);
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const auto reqs = serving::scale_time(io::load_trace(file.toStdString()), 2);
    const auto t = direct(design, reqs, inf, inf);
    QCOMPARE(view.result()->completed, t.completed);
    QCOMPARE(view.result()->completed, std::size_t{60});
    QVERIFY(close(view.result()->output_tokens_per_s, t.output_tokens_per_s));
  }

  void invalidSettingsShowAnErrorAndDoNotRun() {
    ServingView view;
    QVERIFY(!view.settingsError().isEmpty());  // no design yet
    QVERIFY(!view.run());
    view.setDesign(io::builtin_presets().project("default"));
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    view.setLengths(QStringLiteral("uniform:64"), QStringLiteral("256"));
    QVERIFY(view.settingsError().contains(QStringLiteral("input length")));
    QVERIFY(!view.run());
    view.waitForIdle();
    QCOMPARE(view.completedRuns(), 0);
    QVERIFY(view.result() == nullptr);
    // A benchmark needs fixed lengths; a Poisson stream takes distributions.
    view.setLengths(QStringLiteral("lognormal:512:0.8"), QStringLiteral("256"));
    QVERIFY(!view.settingsError().isEmpty());
    QVERIFY(!view.run());
    view.setSource(ServingView::Source::poisson);
    QVERIFY(view.settingsError().isEmpty());
    // A missing trace file.
    view.setSource(ServingView::Source::trace);
    QVERIFY(!view.settingsError().isEmpty());
    QVERIFY(!view.run());
    QCOMPARE(view.completedRuns(), 0);
    // Before a run, the plots show the hint instead of axes.
    QCOMPARE(view.ttftPlot()->graphCount(), 0);
    QVERIFY(!view.ttftPlot()->xAxis->visible());
    view.resize(1000, 620);
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("serving-empty.png"))));
  }

  void designChangesRerunAndStopEndsARun() {
    perf::Design design = io::builtin_presets().project("default");
    ServingView view;
    view.setDesign(design);
    view.setRequests(100);
    QVERIFY(view.run());
    view.waitForIdle();
    QCOMPARE(view.completedRuns(), 1);
    const double before = view.result()->output_tokens_per_s;
    design.parallel.tp = 2;  // two TP2 replicas on the system's four devices: two instances
    design.parallel.dp = 2;
    view.setDesign(design);  // debounced re-run
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QCOMPARE(view.completedRuns(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(view.completedRuns(), 2, 10000);
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    QCOMPARE(view.result()->instances.size(), std::size_t{2});
    QVERIFY(view.result()->output_tokens_per_s != before);
    // A long run stops early and keeps its partial result; the UI thread never waited.
    view.setRequests(300'000);
    QVERIFY(view.run());
    QVERIFY(view.running());
    view.stop();
    view.waitForIdle();
    QVERIFY(!view.running());
    QCOMPARE(view.completedRuns(), 3);
    QVERIFY(view.result()->stopped);
  }
};

QTEST_MAIN(ServingViewTest)
#include "serving_view_test.moc"
