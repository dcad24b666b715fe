// SPDX-License-Identifier: GPL-3.0-or-later
// The Wafer view against the core: its map is the central
// scheduler's partition run by wafer::run_on_wafer on the project's requests, its dies carry
// their roles and its tooltips name them; its sweep is coexplore::run over the knob, plotted
// (one point per feasible value) and exported as the CLI's CSV; its temperature map is
// wafer::wafer_thermal_map of the run. Screenshots of all three.
#include <qcustomplot.h>
#include <algorithm>
#include <cmath>
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QTest>

#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/wafer_view.hpp"
#include "wafer_heat_map.hpp"
#include "wafer_map.hpp"
#include "stackscope/wafer/run.hpp"
#include "stackscope/wafer/thermal.hpp"

using namespace stackscope;

class WaferViewTest : public QObject {
  Q_OBJECT

  static perf::Design project() {
    return io::builtin_presets().project("llama-3-70b-wafer-serving");
  }
  static serving::ServingSpec spec(std::size_t requests) {
    auto s = *io::parse_serving_section(
        io::builtin_presets().json_text(io::PresetKind::project, "llama-3-70b-wafer-serving"));
    s.requests = requests;
    return s;
  }
  static perf::Design served(perf::Design d) {
    d.workload.batch_auto = false;
    d.workload.batch = 1;
    return d;
  }
  static QString shots() {
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir;
  }

 private slots:
  void mapIsTheCentralSchedulersRunOnTheWafer() {
    ui::ConfigDocument doc;
    doc.reset(project(), spec(300));
    ui::WaferView view;
    view.setDocument(&doc);
    view.setDesign(project());
    QVERIFY(view.runMap());
    view.waitForIdle();
    QVERIFY2(view.error().isEmpty(), qPrintable(view.error()));
    const wafer::WaferRun* got = view.mapRun();
    QVERIFY(got != nullptr);

    const perf::Design d = served(project());
    const auto s = spec(300);
    const auto reqs = io::serving_requests(s);
    wafer::SchedulerOptions so;
    so.threads = 1;
    const auto choice = wafer::choose_partition(d, s, reqs, so);
    QVERIFY(choice.best.feasible);
    const auto want = wafer::run_on_wafer(d, s, choice.best.partition, reqs);
    QCOMPARE(got->result.goodput_rps, want.result.goodput_rps);
    QCOMPARE(got->power_W, want.power_W);
    QCOMPARE(got->role.size(), std::size_t{20});
    QCOMPARE(got->used_dies, want.used_dies);
    int prefill = 0, decode = 0;
    for (auto r : got->role) {
      prefill += r == wafer::DieRole::prefill;
      decode += r == wafer::DieRole::decode;
    }
    const auto& p = choice.best.partition;
    QCOMPARE(prefill, p.prefill * p.prefill_pool.tp * p.prefill_pool.pp);
    QCOMPARE(decode, p.decode * p.decode_pool.tp * p.decode_pool.pp);
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("waferSummary"));
    QVERIFY2(summary->text().contains(QString::fromStdString(choice.best.text)),
             qPrintable(summary->text()));
    // KV moved over the mesh: some link carried bytes.
    double busy = 0;
    for (double u : got->link_utilisation) busy += u;
    QVERIFY(got->result.kv_transfer_bytes > 0);
    QVERIFY(busy > 0);
    view.resize(1200, 1000);
    QVERIFY(view.grab().save(QDir(shots()).filePath(QStringLiteral("wafer-map.png"))));
  }

  void sweepIsTheCoExplorationOfTheKnob() {
    ui::ConfigDocument doc;
    perf::Design d = project();
    d.wafer->dies_x = 0;  // the grid refits the usable area: DRAM per die trades against dies
    d.wafer->dies_y = 0;
    hw::apply_wafer(*d.wafer, d.hardware, d.system);
    doc.reset(d, spec(300));
    ui::WaferView view;
    view.setDocument(&doc);
    view.setDesign(d);
    view.setSweep(QStringLiteral("dram_GB"), QStringLiteral("16, 48, 128, 192"), 6, 300);
    QVERIFY(view.runSweep());
    view.waitForIdle();
    QVERIFY2(view.error().isEmpty(), qPrintable(view.error()));
    const auto& recs = view.sweepRecords();
    QCOMPARE(recs.size(), std::size_t{4});

    coexplore::Space space;
    space.base.design = served(d);
    space.base.spec = spec(300);
    space.axes = {{"dram_GB", {16, 48, 128, 192}}, {"load", {6}}};
    const coexplore::CompiledSpace c(space);
    const auto reqs = io::serving_requests(space.base.spec);
    int feasible = 0;
    for (std::size_t i = 0; i < recs.size(); ++i) {
      const auto want = coexplore::evaluate(c, i, reqs, 1);
      QCOMPARE(recs[i].partition, want.partition);
      QCOMPARE(recs[i].goodput_rps, want.goodput_rps);
      QCOMPARE(recs[i].usable_dies, want.usable_dies);
      feasible += want.feasible;
    }
    QVERIFY(recs.front().usable_dies > recs.back().usable_dies);  // more DRAM, fewer dies
    QCustomPlot* plot = view.sweepPlot();
    QCOMPARE(plot->graphCount(), 3);  // goodput, per kW, infeasible values on the axis
    QCOMPARE(plot->graph(0)->dataCount(), feasible);
    QCOMPARE(plot->graph(2)->dataCount(), 4 - feasible);
    // The summary names the knob by its description, never its key.
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("waferSweepSummary"));
    QVERIFY(summary != nullptr);
    QVERIFY2(summary->text().contains(QStringLiteral("DRAM capacity per die =")) &&
                 !summary->text().contains(QStringLiteral("dram_GB")),
             qPrintable(summary->text()));
    QVERIFY(plot->yAxis->label().contains(QStringLiteral("goodput")));
    QVERIFY(plot->xAxis->label().contains(QStringLiteral("GB")));
    const QString csv = view.sweepCsv();
    QVERIFY(csv.startsWith(QStringLiteral("index,dram_GB,load,on_frontier,feasible")));
    QCOMPARE(csv.count(QLatin1Char('\n')), 5);
    // Bad values are refused with the reason, nothing runs.
    view.setSweep(QStringLiteral("dram_GB"), QStringLiteral("16, lots"), 1, 300);
    QVERIFY(!view.runSweep());
    QVERIFY(view.error().contains(QStringLiteral("lots")));
    view.setSweep(QStringLiteral("dram_GB"), QStringLiteral("16, 5000"), 1, 300);
    QVERIFY(!view.runSweep());
    QVERIFY2(view.error().contains(QStringLiteral("out of range")), qPrintable(view.error()));
    view.resize(1200, 1000);
    QVERIFY(view.grab().save(QDir(shots()).filePath(QStringLiteral("wafer-sweep.png"))));
  }

  // A wafer design says what it has before its first run, and a run shown for one design is
  // gone when another comes (the map never shows a run of inputs that changed).
  void aWaferDesignSaysHowToSeeItAndANewDesignClearsTheRun() {
    ui::ConfigDocument doc;
    doc.reset(project(), spec(100));
    ui::WaferView view;
    view.setDocument(&doc);
    auto* map = view.findChild<ui::WaferMap*>(QStringLiteral("waferMap"));
    QVERIFY(map);
    view.setDesign(io::builtin_presets().project("default"));
    QVERIFY(map->emptyText().contains(QStringLiteral("has no wafer")));
    view.setDesign(project());
    QVERIFY2(map->emptyText().contains(QStringLiteral("A wafer of")) &&
                 !map->emptyText().contains(QStringLiteral("no wafer")),
             qPrintable(map->emptyText()));
    QVERIFY(view.runMap());
    view.waitForIdle();
    QVERIFY(view.mapRun() != nullptr);
    QVERIFY(map->emptyText().isEmpty());
    view.setDesign(project());  // the same design again (a re-evaluation): the run stays
    QVERIFY(view.mapRun() != nullptr);
    perf::Design other = project();
    other.workload.input_len /= 2;
    view.setDesign(other);
    QVERIFY(view.mapRun() == nullptr);
    QVERIFY(map->emptyText().contains(QStringLiteral("A wafer of")));
  }

  // The temperature map follows each run: before one it says how to get it; after one it shows
  // the dies' mean powers solved on the die grid (a heat map in °C, every die outlined, the
  // hottest named in the title and on the plot), and the design review carries it.
  void temperatureMapFollowsTheRun() {
    ui::ConfigDocument doc;
    doc.reset(project(), spec(300));
    ui::WaferView view;
    view.setDocument(&doc);
    view.resize(1280, 800);
    view.show();
    auto* heat = view.findChild<ui::WaferHeatMap*>(QStringLiteral("waferHeatMap"));
    QVERIFY(heat);
    view.setDesign(io::builtin_presets().project("default"));
    QVERIFY2(heat->emptyText().contains(QStringLiteral("no wafer")), qPrintable(heat->emptyText()));
    view.setDesign(project());
    QVERIFY(view.thermalMap() == nullptr);
    QVERIFY2(heat->emptyText().contains(QStringLiteral("Run wafer")), qPrintable(heat->emptyText()));
    QVERIFY(view.runMap());
    view.waitForIdle();
    QVERIFY2(view.error().isEmpty(), qPrintable(view.error()));
    const wafer::WaferThermalMap* m = view.thermalMap();
    QVERIFY(m != nullptr);
    const wafer::WaferRun* run = view.mapRun();
    QVERIFY(run != nullptr);
    QCOMPARE(m->die_peak_C.size(), std::size_t{20});
    QCOMPARE(m->temperature_C.size(), static_cast<std::size_t>(m->rows * m->cols));
    QVERIFY(m->rows >= 4 * 8 && m->cols >= 5 * 8);
    QVERIFY2(m->peak_C > m->ambient_C + 1, qPrintable(QString::number(m->peak_C)));
    QVERIFY(std::abs(m->total_power_W - run->power_W) <= 1e-6 * run->power_W);
    QVERIFY(std::abs(m->heat_to_ambient_W - m->total_power_W) <= 1e-4 * m->total_power_W);
    QVERIFY(m->hottest_die >= 0 && m->hottest_die < 20);
    QVERIFY(run->wafer.placement.die_owner[static_cast<std::size_t>(m->hottest_die)] >= 0);
    // What the widget shows: the plot, not the message; a colour map over the whole grid with a
    // scale in °C; 20 die outlines; the hottest die named in the title and labelled on the plot.
    QVERIFY(heat->emptyText().isEmpty());
    QCustomPlot* plot = heat->plot();
    QVERIFY(plot->isVisible());
    auto* colours = qobject_cast<QCPColorMap*>(plot->plottable(0));
    QVERIFY(colours);
    QCOMPARE(colours->data()->keySize(), m->cols);
    QCOMPARE(colours->data()->valueSize(), m->rows);
    QVERIFY(colours->colorScale() != nullptr);
    QVERIFY(colours->colorScale()->axis()->label().contains(QStringLiteral("°C")));
    QVERIFY(colours->dataRange().upper >= m->peak_C);
    QVERIFY(plot->xAxis->label().contains(QStringLiteral("mm")));
    QVERIFY(plot->yAxis->label().contains(QStringLiteral("mm")));
    int outlines = 0;
    bool hottestLabel = false;
    for (int i = 0; i < plot->itemCount(); ++i) {
      outlines += qobject_cast<QCPItemRect*>(plot->item(i)) != nullptr;
      if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)))
        hottestLabel |= t->text().contains(QStringLiteral("hottest")) &&
                        t->text().contains(QString::number(m->peak_C, 'f', 1));
    }
    QCOMPARE(outlines, 20);
    QVERIFY(hottestLabel);
    const QString name = QString::fromStdString(wafer::die_name(*m, m->hottest_die));
    QVERIFY2(heat->title().contains(name), qPrintable(heat->title()));
    QVERIFY2(view.thermalSummary().contains(QStringLiteral("Hottest die: ") + name),
             qPrintable(view.thermalSummary()));
    // The design review carries the map and its text.
    const ui::ReviewSection review = view.reviewSection();
    QVERIFY(review.figures.contains(plot));
    QVERIFY(std::any_of(review.paragraphs.begin(), review.paragraphs.end(),
                        [&](const QString& p) { return p.contains(name); }));
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
      view.resize(size);
      QApplication::processEvents();
      QVERIFY(view.grab().save(QDir(shots()).filePath(
          QStringLiteral("wafer-thermal-%1x%2.png").arg(size.width()).arg(size.height()))));
    }
    // Another design: the map of the old run is gone and the widget says how to get one.
    perf::Design other = project();
    other.workload.input_len /= 2;
    view.setDesign(other);
    QVERIFY(view.thermalMap() == nullptr);
    QVERIFY(heat->emptyText().contains(QStringLiteral("Run wafer")));
  }

  void aDesignWithoutAWaferSaysSo() {
    ui::WaferView view;
    view.setDesign(io::builtin_presets().project("default"));
    QVERIFY(!view.runMap());
    QVERIFY(view.error().contains(QStringLiteral("no wafer")));
  }
};

QTEST_MAIN(WaferViewTest)
#include "wafer_view_test.moc"
