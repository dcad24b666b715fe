// SPDX-License-Identifier: GPL-3.0-or-later
// The search panel's ETA as a user reads it during a run (docs/model.md §16.4). The space is
// shaped like the shipped DeepStack one: its outermost hardware axis is the device count, and
// the larger device counts have more plans and prune less, so in index order the units' cost
// rises through the run and an ETA from the recent pace climbed with it (the bug a user saw:
// 157, then 207, then 269 s). The ordered pass now visits strata of the units in a random
// order, so the pace measured early holds for the rest.
//
// Timing is what is tested, so the bounds are ratios within one run (a uniformly slower
// machine moves both sides alike), the search runs on one thread, and ctest runs this test
// alone (RUN_SERIAL): another test's load starting or ending mid-run would change the pace.
#include <QLabel>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "stackscope/ui/format.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/search_panel.hpp"

using stackscope::ui::MainWindow;

class SearchEtaTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // From the first tenth of the run on, the finish time the shown ETA implies (elapsed + ETA)
  // stays within [0.75, 1.6] of the time the run takes, and it does not climb: its median over
  // the second half of the run is at most 10 % above that over the first. Measured here (75 s):
  // 0.94 to 1.27, medians 1.09 then 0.99 (high early, while the frontier is young, then
  // falling); with the panel forced to index order, 0.50 to 1.00, medians 0.70 then 0.91 (short
  // and climbing), which fails both checks.
  void etaSettlesOnTheTimeTheRunTakes() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    auto* panel = w.findChild<stackscope::ui::SearchPanel*>(QStringLiteral("searchPanel"));
    auto* status = w.findChild<QLabel*>(QStringLiteral("searchStatus"));
    QVERIFY(panel && status);
    QString error;
    QVERIFY2(panel->start(QStringLiteral(STACKSCOPE_SOURCE_DIR "/tests/data/search/eta-space.json"),
                          &error, 1),
             qPrintable(error));
    struct Report {
      double t_s, eta_s;
    };
    std::vector<Report> reports;
    int shown = 0;
    QTimer tick;
    tick.setInterval(100);
    QObject::connect(&tick, &QTimer::timeout, [&] {
      const auto& p = panel->progress();
      if (!panel->running() || !(p.eta_s > 0)) return;
      reports.push_back({p.elapsed_s, p.eta_s});
      // What the status line shows is the engine's ETA.
      shown += status->text().contains(QStringLiteral("ETA %1 s").arg(stackscope::ui::readable(p.eta_s)));
    });
    tick.start();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->running(), 600000);
    tick.stop();
    QVERIFY(panel->progress().total > 0);
    QCOMPARE(panel->progress().evaluated + panel->progress().pruned, panel->progress().total);
    const double end = panel->progress().elapsed_s;
    QVERIFY2(reports.size() > 50, "too few progress reports with an ETA");
    QVERIFY(shown > static_cast<int>(reports.size()) / 2);
    double low = 1e300, high = 0;
    std::vector<double> first_half, second_half;
    for (const Report& r : reports) {
      if (r.t_s < 0.1 * end) continue;
      const double finish = (r.t_s + r.eta_s) / end;
      low = std::min(low, finish);
      high = std::max(high, finish);
      (r.t_s < 0.5 * end ? first_half : second_half).push_back(finish);
    }
    std::printf("run of %.1f s; reports after the first tenth: %zu\n", end,
                first_half.size() + second_half.size());
    for (const double at : {0.1, 0.2, 0.3, 0.5, 0.7, 0.9}) {
      const auto it = std::lower_bound(reports.begin(), reports.end(), at * end,
                                       [](const Report& r, double t) { return r.t_s < t; });
      if (it == reports.end()) continue;
      std::printf("  at %4.1f s (%2.0f %%): ETA %6.1f s, time left %6.1f s\n", it->t_s, at * 100,
                  it->eta_s, end - it->t_s);
    }
    QVERIFY(first_half.size() > 10 && second_half.size() > 10);
    const auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    const double early = median(first_half), late = median(second_half);
    std::printf("implied finish / actual: %.2f to %.2f; median %.2f in the first half, %.2f in the "
                "second\n",
                low, high, early, late);
    QVERIFY2(low >= 0.75 && high <= 1.6,
             qPrintable(QStringLiteral("implied finish %1 to %2 of the run")
                            .arg(low, 0, 'f', 2)
                            .arg(high, 0, 'f', 2)));
    QVERIFY2(late <= 1.1 * early, qPrintable(QStringLiteral("the implied finish climbed from %1 to %2")
                                                 .arg(early, 0, 'f', 2)
                                                 .arg(late, 0, 'f', 2)));
  }
};

QTEST_MAIN(SearchEtaTest)
#include "search_eta_test.moc"
