// SPDX-License-Identifier: GPL-3.0-or-later
// The Experts tab: on the mixtral-hdmoe project it runs the placement
// comparison off the UI thread to the end, its per-layer runs merged equal experts::compare
// called once over the same layers (the deterministic strategies), the table has a row per
// strategy with finite positive speedups and TP over TP 1.00, the heat map has experts × nodes
// cells whose shares sum to one per copy, the per-node compute and the mesh links are the
// layer's first batch; a dense model or a system without a mesh gets the hint; Stop ends a run
// between layers. Writes the view to screenshots/experts.png.
#include <qcustomplot.h>

#include <QDir>
#include <QElapsedTimer>
#include <QTableWidget>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "stackscope/experts/compare.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/moe/trace.hpp"
#include "stackscope/ui/experts_view.hpp"

using namespace stackscope;
using stackscope::experts::Strategy;
using stackscope::ui::ExpertsView;

namespace {

// Few layers, one batch and a short GLPK limit: the test stays within seconds.
ExpertsView::Settings quick() {
  ExpertsView::Settings s;
  s.batch = 32;
  s.batches = 1;
  s.time_limit_s = 0.3;
  s.layer_stride = 16;  // layers 0 and 16 of Mixtral's 32
  return s;
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

class ExpertsViewTest : public QObject {
  Q_OBJECT
  io::PresetRegistry presets_;

 private slots:
  void initTestCase() { presets_.register_builtins(); }

  void comparesTheMixtralMeshProject() {
    const perf::Design design = presets_.project("mixtral-hdmoe");
    ExpertsView view;
    view.resize(1100, 820);
    view.setSettings(quick());
    view.show();
    view.setDesign(design);
    view.waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 30000);
    const auto* o = view.outcome();
    QVERIFY(o != nullptr);
    QVERIFY2(o->error.isEmpty(), qPrintable(o->error));
    QVERIFY(view.hint().isEmpty());
    const auto& r = o->result;
    const auto all = experts::all_strategies();
    QCOMPARE(r.strategies.size(), all.size());
    QCOMPARE(r.layers, (std::vector<int>{0, 16}));
    QCOMPARE(o->mesh.x, 8);
    QCOMPARE(o->mesh.y, 4);
    QCOMPARE(o->firsts.size(), r.layers.size());

    // The table: one row per strategy, TP over TP 1.00, finite positive speedups.
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), static_cast<int>(all.size()));
    QCOMPARE(t->verticalHeaderItem(0)->text(), QStringLiteral("TP"));
    QVERIFY(t->item(0, 0)->text().startsWith(QStringLiteral("1.00")));
    for (const auto& s : r.strategies)
      for (const Strategy over : {Strategy::tp, Strategy::ep, Strategy::balanced}) {
        const auto x = r.speedup(s.strategy, over);
        QVERIFY(x && std::isfinite(*x) && *x > 0);
      }
    QCOMPARE(*r.speedup(Strategy::tp, Strategy::tp), 1.0);
    for (int row = 0; row < t->rowCount(); ++row)
      for (int c = 0; c < t->columnCount(); ++c)
        QVERIFY2(t->item(row, c) && !t->item(row, c)->text().isEmpty() &&
                     t->item(row, c)->text() != QStringLiteral("–"),
                 qPrintable(QStringLiteral("cell %1,%2").arg(row).arg(c)));

    // The layers run one by one and merged equal compare() over both layers at once (the
    // strategies without a time-limited MILP are deterministic).
    {
      QString why;
      auto job = ExpertsView::snapshot(design, quick(), &why);
      QVERIFY2(job, qPrintable(why));
      const auto& m = design.model;
      const int layers = m.layers - m.moe.first_dense_layers;
      const auto& routing = design.workload.routing;
      const std::vector<moe::RoutingTrace> fit = {moe::synthetic_trace(
          routing, m.moe.experts, m.moe.top_k, layers, 4096, routing.seed)};
      const std::vector<moe::RoutingTrace> eval = {moe::synthetic_trace(
          routing, m.moe.experts, m.moe.top_k, layers, 32, routing.seed + 1)};
      experts::CompareConfig cfg = job->config;
      cfg.layers = {0, 16};
      cfg.strategies = {Strategy::tp, Strategy::ep, Strategy::eplb, Strategy::balanced};
      const auto direct = experts::compare(m, cfg, fit, eval);
      QVERIFY(close(direct.non_moe_s, r.non_moe_s));
      for (const auto& d : direct.strategies) {
        const auto* v = r.find(d.strategy);
        QVERIFY(v != nullptr);
        QVERIFY2(close(d.end_to_end_s, v->end_to_end_s), experts::to_string(d.strategy).data());
        QVERIFY(close(d.moe_s, v->moe_s));
        QVERIFY(close(d.imbalance, v->imbalance));
        QVERIFY(close(d.link_utilisation, v->link_utilisation));
        QVERIFY(close(d.first.time_s, v->first.time_s));
      }
    }

    // The heat map: experts × nodes cells of the drawn strategy's placement, each expert's
    // shares summing to its copies.
    view.setStrategy(Strategy::hd);
    QCPColorMap* map = view.heatMapData();
    QCOMPARE(map->data()->keySize(), 32);
    QCOMPARE(map->data()->valueSize(), 8);
    const auto& hd = *r.find(Strategy::hd);
    for (int e = 0; e < 8; ++e) {
      double sum = 0;
      for (int n = 0; n < 32; ++n) sum += map->data()->cell(n, e);
      QVERIFY(std::abs(sum - static_cast<double>(hd.placements[0].experts[e].copies.size())) <
              1e-9);
    }
    // TP: 1/32 of every expert on every node.
    view.setStrategy(Strategy::tp);
    QVERIFY(std::abs(map->data()->cell(5, 3) - 1.0 / 32) < 1e-12);
    // Per-node compute: the selected strategy's bars plus a line per other strategy.
    QCustomPlot* compute = view.computePlot();
    QCOMPARE(compute->plottableCount(), static_cast<int>(all.size()));
    auto* bars = qobject_cast<QCPBars*>(compute->plottable(0));
    QVERIFY(bars != nullptr);
    QCOMPARE(bars->data()->size(), 32);
    QVERIFY(std::abs(bars->data()->at(0)->value - o->firsts[0][0].nodes[0].compute_s * 1e6) <
            1e-9);
    // The second layer drawn: its own first batch.
    view.setLayerIndex(1);
    bars = qobject_cast<QCPBars*>(compute->plottable(0));
    QVERIFY(bars != nullptr);
    QVERIFY(std::abs(bars->data()->at(3)->value - o->firsts[1][0].nodes[3].compute_s * 1e6) <
            1e-9);
    view.setLayerIndex(0);
    view.setStrategy(Strategy::hd);

    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();  // layouts settle
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("experts.png"))));
  }

  void hintsWhenTheDesignDoesNotApply() {
    ExpertsView view;
    view.resize(900, 600);
    view.show();
    view.setDesign(presets_.project("default"));  // a dense model
    QVERIFY(view.hint().contains(QStringLiteral("places MoE experts on a 2D mesh")));
    QVERIFY(!view.run());
    QVERIFY(!view.running());
    QVERIFY(view.outcome() == nullptr);
    // An MoE model on a system without a mesh2d level.
    perf::Design moe = presets_.project("deepseek-v3-deepstack");
    bool mesh = false;
    for (const auto& l : moe.system.levels) mesh |= l.topology == hw::Topology::mesh2d;
    if (!mesh) {
      view.setDesign(moe);
      QVERIFY(view.hint().contains(QStringLiteral("mesh2d")));
    }
    view.clearDesign();
    QVERIFY(view.hint().contains(QStringLiteral("No valid design")));
  }

  void stopEndsARunBetweenLayers() {
    ExpertsView view;
    ExpertsView::Settings s = quick();
    s.layer_stride = 1;  // 32 layers: far longer than the test waits
    view.setSettings(s);
    view.setDesign(presets_.project("mixtral-hdmoe"));
    QVERIFY(view.run());
    QVERIFY(view.running());
    view.stop();
    QElapsedTimer t;
    t.start();
    view.waitForIdle();
    QVERIFY(!view.running());
    QVERIFY(t.elapsed() < 15000);
    // Either stopped before its first layer (an error saying so) or with a partial result.
    if (const auto* o = view.outcome()) {
      QVERIFY(o->stopped);
      QVERIFY(o->result.layers.size() < 32);
    } else {
      QVERIFY(view.status().contains(QStringLiteral("Stopped")));
    }
  }
};

QTEST_MAIN(ExpertsViewTest)
#include "experts_view_test.moc"
