// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab: its runs equal serving::simulate called directly with the same settings (what
// `stackscope-cli serve` runs), co-located and disaggregated; its plots fill; bad settings are
// reported and never run; every form edit is one undo step of the project document, undo
// restores the spec and the widget; a project's serving section survives open and save.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/serving_view.hpp"
#include "stackscope/wafer/partition.hpp"

using namespace stackscope;
using stackscope::ui::ConfigDocument;
using stackscope::ui::MainWindow;
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

template <class W>
W* field(QWidget& view, const char* name) {
  auto* w = view.findChild<W*>(QString::fromLatin1(name));
  if (!w) qWarning("no field %s", name);
  return w;
}

// The shipped serving example (1 prefill + 3 decode TP2 on 8 H100s) and its project file.
const char* kServingPreset = "llama-3-70b-h100-serving";
QString servingPresetFile() {
  return QStringLiteral(STACKSCOPE_SOURCE_DIR "/presets/projects/llama-3-70b-h100-serving.json");
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
    view.setSource(ServingView::Source::generated);
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
    // A benchmark needs fixed lengths; a generated stream takes distributions.
    view.setSource(ServingView::Source::benchmark);
    view.setLengths(QStringLiteral("lognormal:512:0.8"), QStringLiteral("256"));
    QVERIFY(view.settingsError().contains(QStringLiteral("/serving/input_len")));
    QVERIFY(!view.run());
    view.setSource(ServingView::Source::generated);
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    // Out of range: one instance of a disaggregated pair (validate()'s path and range).
    field<QSpinBox>(view, "servingPrefill")->setValue(1);
    QVERIFY(view.settingsError().contains(QStringLiteral("/serving/disaggregate/decode")));
    QVERIFY(view.settingsError().contains(QStringLiteral("[1, 65536]")));
    QVERIFY(!view.run());
    QVERIFY(field<QSpinBox>(view, "servingDecode")->property("invalid").toBool());
    field<QSpinBox>(view, "servingPrefill")->setValue(0);
    QVERIFY(view.settingsError().isEmpty());
    QVERIFY(!field<QSpinBox>(view, "servingDecode")->property("invalid").toBool());
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

  // Every form change is one undoable step of the document; consecutive changes of one field
  // merge; undo restores the spec and the widget, redo re-applies both.
  void formEditsAreUndoableSteps() {
    ServingView view;
    view.setDesign(io::builtin_presets().project("default"));
    ConfigDocument* doc = view.document();
    QUndoStack* undo = doc->undoStack();
    QCOMPARE(undo->count(), 0);
    auto* seqs = field<QSpinBox>(view, "servingMaxSeqs");
    auto* input = field<QLineEdit>(view, "servingInput");
    auto* router = field<QComboBox>(view, "servingRouter");
    auto* chunked = field<QCheckBox>(view, "servingChunked");
    QVERIFY(seqs && input && router && chunked);
    QCOMPARE(seqs->value(), 256);  // vLLM's max_num_seqs
    QCOMPARE(input->text(), QStringLiteral("1024"));
    // Typing "128" over 256: three values, one step.
    seqs->setValue(1);
    seqs->setValue(12);
    seqs->setValue(128);
    QCOMPARE(undo->count(), 1);
    QCOMPARE(doc->serving().scheduler.max_num_seqs, 128);
    QVERIFY(doc->dirty());
    // Typing a length: the texts that do not parse yet are not recorded, the rest merge.
    input->selectAll();
    QTest::keyClicks(input, QStringLiteral("lognormal:512:0.8"));
    QCOMPARE(undo->count(), 2);
    QVERIFY(doc->serving().input.kind == serving::LengthDist::Kind::lognormal);
    QCOMPARE(doc->serving().input.a, 512.0);
    QCOMPARE(doc->serving().input.b, 0.8);
    router->setCurrentIndex(router->findData(static_cast<int>(serving::Router::round_robin)));
    chunked->setChecked(false);
    QCOMPARE(undo->count(), 4);
    QCOMPARE(doc->serving().router, serving::Router::round_robin);

    undo->undo();  // chunked prefill
    QVERIFY(chunked->isChecked());
    QVERIFY(doc->serving().scheduler.chunked_prefill);
    undo->undo();  // router
    QCOMPARE(router->currentData().toInt(), static_cast<int>(serving::Router::join_shortest_queue));
    undo->undo();  // input length
    QCOMPARE(input->text(), QStringLiteral("1024"));
    QVERIFY(doc->serving().input.kind == serving::LengthDist::Kind::fixed);
    undo->undo();  // max sequences
    QCOMPARE(seqs->value(), 256);
    QVERIFY(doc->serving() == serving::ServingSpec{});
    QVERIFY(!doc->dirty());
    undo->redo();
    QCOMPARE(seqs->value(), 128);
    QCOMPARE(doc->serving().scheduler.max_num_seqs, 128);
    // The view's own setters are steps too.
    view.setRequests(77);
    QCOMPARE(undo->count(), 2);  // the redo stack was dropped
    QCOMPARE(field<QSpinBox>(view, "servingRequests")->value(), 77);

    // Bound to another document (the window's), the form shows and edits that one.
    ConfigDocument project;
    serving::ServingSpec s;
    s.instances = 3;
    s.disaggregate.prefill = 1;
    s.disaggregate.decode = 2;
    s.source = serving::SourceKind::trace;
    s.trace = "/some/trace.csv";
    project.reset(io::builtin_presets().project("default"), s);
    view.setDocument(&project);
    QCOMPARE(field<QSpinBox>(view, "servingInstances")->value(), 3);
    QCOMPARE(field<QSpinBox>(view, "servingDecode")->value(), 2);
    QVERIFY(!field<QSpinBox>(view, "servingInstances")->isEnabled());  // disaggregated
    QVERIFY(!field<QSpinBox>(view, "servingRequests")->isEnabled());   // a trace's
    QCOMPARE(field<QLineEdit>(view, "servingTrace")->text(), QStringLiteral("/some/trace.csv"));
    field<QSpinBox>(view, "servingDecode")->setValue(3);
    QCOMPARE(project.serving().disaggregate.decode, 3);
    QCOMPARE(project.undoStack()->count(), 1);
    QCOMPARE(undo->count(), 2);  // the view's own document is left alone
    // A design edit of the document leaves the settings (and the form) as they are.
    perf::Design d = project.design();
    d.workload.input_len = 999;
    project.edit(d, QStringLiteral("Edit input"), 3);
    QCOMPARE(field<QSpinBox>(view, "servingDecode")->value(), 3);
    QCOMPARE(project.undoStack()->count(), 2);
    project.undoStack()->undo();
    project.undoStack()->undo();
    QCOMPARE(field<QSpinBox>(view, "servingDecode")->value(), 2);
  }

  // A disaggregated run set up in the form equals serving::simulate on disaggregated_instances
  // called directly (the KV transfers priced by the system's network).
  void disaggregatedRunMatchesTheCore() {
    const perf::Design design = io::builtin_presets().project(kServingPreset);
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::generated);
    field<QSpinBox>(view, "servingRequests")->setValue(150);
    field<QDoubleSpinBox>(view, "servingRate")->setValue(6);
    view.setLengths(QStringLiteral("lognormal:1020:0.99"), QStringLiteral("lognormal:129:0.86"));
    field<QSpinBox>(view, "servingPrefill")->setValue(1);
    field<QSpinBox>(view, "servingDecode")->setValue(3);
    auto* router = field<QComboBox>(view, "servingRouter");
    router->setCurrentIndex(router->findData(static_cast<int>(serving::Router::least_kv)));
    field<QSpinBox>(view, "servingMaxTokens")->setValue(4096);
    field<QDoubleSpinBox>(view, "servingKvFraction")->setValue(0.9);
    view.setSlo(2, 0.1);
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);

    serving::SchedulerConfig sched;
    sched.max_num_batched_tokens = 4096;
    sched.kv_cache_fraction = 0.9;
    const perf::Design d = servingDesign(design);
    auto dis = serving::disaggregated_instances(d, sched, sched, 1, 3);
    serving::SimOptions opt;
    opt.router = serving::Router::least_kv;
    opt.slo_ttft_s = 2;
    opt.slo_tpot_s = 0.1;
    opt.kv_transfer = dis.transfer;
    serving::GeneratorSpec g;
    g.arrivals.rate_per_s = 6;
    g.requests = 150;
    g.seed = 1;
    g.input = serving::parse_length_dist("lognormal:1020:0.99", "input");
    g.output = serving::parse_length_dist("lognormal:129:0.86", "output");
    const auto want = serving::simulate(serving::generate(g), std::move(dis.instances), opt);
    QCOMPARE(r->instances.size(), std::size_t{4});
    QCOMPARE(r->instances.front().name, want.instances.front().name);
    QCOMPARE(r->completed, want.completed);
    // The lognormal tails draw a few requests longer than the model's context: those are
    // rejected for that reason only, and every other request completes.
    QCOMPARE(r->completed + r->rejected, std::size_t{150});
    QCOMPARE(r->rejected,
             r->rejected_by[static_cast<std::size_t>(serving::Rejection::over_max_model_len)]);
    QVERIFY(r->rejected < std::size_t{150} / 20);
    QCOMPARE(r->kv_transfers, want.kv_transfers);
    QVERIFY(r->kv_transfers > 0);
    QCOMPARE(r->iterations, want.iterations);
    QVERIFY(close(r->kv_transfer_bytes, want.kv_transfer_bytes));
    QVERIFY(close(r->output_tokens_per_s, want.output_tokens_per_s));
    QVERIFY(close(r->goodput_rps, want.goodput_rps));
    QVERIFY(close(r->ttft.p99, want.ttft.p99));
    QVERIFY(close(r->tpot.p50, want.tpot.p50));
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("servingSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("1 prefill × 2 devices, KV ")) &&
                 summary->text().contains(QStringLiteral(" + 3 decode × 2 devices, KV ")),
             qPrintable(summary->text()));
    QVERIFY(summary->text().contains(QStringLiteral("KV moves")));
    QCOMPARE(view.timelinePlot()->graphCount(), 3);
  }

  // The CLI's --partition auto and --scheduler trtllm-bench, as fields: the run equals the
  // serve operation on a spec saying the same, the summary names the chosen split, and under
  // trtllm-bench sizing the scheduler's own limits are disabled.
  void centralSchedulerAndTrtllmBenchSizingFromTheForm() {
    const perf::Design design = io::builtin_presets().project(kServingPreset);
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::benchmark);
    field<QSpinBox>(view, "servingRequests")->setValue(120);
    view.setLengths(QStringLiteral("1000"), QStringLiteral("200"));
    field<QSpinBox>(view, "servingConcurrency")->setValue(32);
    auto* split = field<QComboBox>(view, "servingSplit");
    split->setCurrentIndex(split->findData(static_cast<int>(serving::Partitioning::automatic)));
    auto* sizing = field<QComboBox>(view, "servingSizing");
    sizing->setCurrentIndex(
        sizing->findData(static_cast<int>(serving::SchedulerSizing::trtllm_bench)));
    QVERIFY(!field<QSpinBox>(view, "servingMaxSeqs")->isEnabled());
    QVERIFY(field<QSpinBox>(view, "servingConcurrency")->isEnabled());
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);

    serving::ServingSpec spec = view.document()->serving();
    QCOMPARE(spec.partitioning, serving::Partitioning::automatic);
    QCOMPARE(spec.sizing, serving::SchedulerSizing::trtllm_bench);
    runs::ServeOptions o;
    o.central.threads = 1;
    const runs::ServeRun want =
        runs::serve(servingDesign(design), spec, io::serving_requests(spec), o);
    QVERIFY(want.partition_chosen);
    QCOMPARE(r->completed, want.result.completed);
    QCOMPARE(r->iterations, want.result.iterations);
    QVERIFY(close(r->ttft.mean, want.result.ttft.mean));
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("servingSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("chosen by the central scheduler")),
             qPrintable(summary->text()));
    // Its part of the design review: the run's plots and percentiles; while a change of the
    // design is being re-run, not the earlier run passed off as this design's.
    QVERIFY(view.reviewSection().shown());
    QCOMPARE(view.reviewSection().figures.size(), 3);
    perf::Design other = design;
    other.hardware.memory.clock_MHz *= 0.9;
    view.setDesign(other);
    QVERIFY(!view.reviewSection().shown());
    QVERIFY(view.reviewSection().missing.contains(QStringLiteral("in progress")));
    view.waitForIdle();
    QVERIFY(view.reviewSection().shown());
    // Back to the given scheduler: its fields are editable again.
    sizing->setCurrentIndex(sizing->findData(static_cast<int>(serving::SchedulerSizing::as_given)));
    QVERIFY(field<QSpinBox>(view, "servingMaxSeqs")->isEnabled());
  }

  // A wafer project: without a given split the view runs the central scheduler and
  // the wafer deployment, as `serve` does; the run equals wafer::choose_partition +
  // wafer::deploy + serving::simulate on the same spec, and the summary names the partition.
  void waferRunMatchesTheCore() {
    const perf::Design design = io::builtin_presets().project("llama-3-70b-wafer-serving");
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::generated);
    field<QSpinBox>(view, "servingRequests")->setValue(120);
    field<QDoubleSpinBox>(view, "servingRate")->setValue(8);
    view.setLengths(QStringLiteral("lognormal:1020:0.99"), QStringLiteral("lognormal:129:0.86"));
    field<QSpinBox>(view, "servingPrefill")->setValue(0);
    field<QSpinBox>(view, "servingDecode")->setValue(0);
    view.setSlo(2, 0.1);
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);

    serving::ServingSpec spec;
    spec.source = serving::SourceKind::generated;
    spec.requests = 120;
    spec.rate_per_s = 8;
    spec.input = serving::parse_length_dist("lognormal:1020:0.99", "input");
    spec.output = serving::parse_length_dist("lognormal:129:0.86", "output");
    spec.slo = {2, 0.1};
    const perf::Design d = servingDesign(design);
    const auto reqs = serving::build_requests(spec);
    wafer::SchedulerOptions so;
    so.threads = 1;
    const auto choice = wafer::choose_partition(d, spec, reqs, so);
    QVERIFY(choice.best.feasible);
    auto wd = wafer::deploy(d, spec, choice.best.partition);
    const auto want =
        serving::simulate(reqs, std::move(wd.deployment.instances), wd.deployment.options);
    // The lognormal tails draw a few requests longer than the model's context: those are
    // rejected for that reason only, and every other request completes.
    QCOMPARE(r->completed + r->rejected, std::size_t{120});
    QCOMPARE(r->rejected,
             r->rejected_by[static_cast<std::size_t>(serving::Rejection::over_max_model_len)]);
    QVERIFY(r->rejected < std::size_t{120} / 20);
    QCOMPARE(r->instances.size(), want.instances.size());
    QCOMPARE(r->instances.front().name, want.instances.front().name);
    QCOMPARE(r->iterations, want.iterations);
    QVERIFY(r->kv_transfers > 0);
    QVERIFY(close(r->kv_transfer_bytes, want.kv_transfer_bytes));
    QVERIFY(close(r->goodput_rps, want.goodput_rps));
    QVERIFY(close(r->ttft.p90, want.ttft.p90));
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("servingSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("wafer 5 × 4 dies: ")) &&
                 summary->text().contains(
                     QString::fromStdString(wafer::partition_text(choice.best.partition, d))),
             qPrintable(summary->text()));
    for (QCustomPlot* p : {view.ttftPlot(), view.tpotPlot()}) {
      QCOMPARE(p->graphCount(), 1);
      QVERIFY(p->graph(0)->dataCount() > 1);
    }
    view.resize(1100, 800);
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("serving-wafer.png"))));
  }

  // Pools of their own plan (DistServe): the form's pool fields edit the spec one undoable step
  // each, enable only when disaggregated, and the run equals serving::deploy + simulate on the
  // same spec (2 TP2 prefill + 1 TP4 decode instance on the preset's 8 H100s).
  void poolsOfTheirOwnPlanRunAsTheCoreDeploysThem() {
    const perf::Design design = io::builtin_presets().project(kServingPreset);
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::generated);
    auto* tp = field<QSpinBox>(view, "servingDecodePool_tp");
    auto* seqs = field<QSpinBox>(view, "servingDecodePool_max_num_seqs");
    QCOMPARE(tp->specialValueText(), QStringLiteral("tp (%1)").arg(design.parallel.tp));
    field<QSpinBox>(view, "servingPrefill")->setValue(0);
    field<QSpinBox>(view, "servingDecode")->setValue(0);
    QVERIFY(!tp->isEnabled());  // co-located: no pools
    field<QSpinBox>(view, "servingRequests")->setValue(120);
    field<QDoubleSpinBox>(view, "servingRate")->setValue(6);
    view.setLengths(QStringLiteral("lognormal:1020:0.99"), QStringLiteral("lognormal:129:0.86"));
    field<QSpinBox>(view, "servingPrefill")->setValue(2);
    field<QSpinBox>(view, "servingDecode")->setValue(1);
    QVERIFY(tp->isEnabled());
    QUndoStack* undo = view.document()->undoStack();
    const int steps = undo->count();
    tp->setValue(4);
    seqs->setValue(512);
    QCOMPARE(undo->count(), steps + 2);
    QCOMPARE(view.document()->serving().disaggregate.decode_pool.tp, 4);
    QCOMPARE(view.document()->serving().disaggregate.decode_pool.max_num_seqs, 512);
    undo->undo();
    QCOMPARE(seqs->value(), 0);
    QCOMPARE(view.document()->serving().disaggregate.decode_pool.max_num_seqs, 0);
    undo->redo();
    QCOMPARE(seqs->value(), 512);
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);

    const serving::ServingSpec spec = view.document()->serving();
    auto dep = serving::deploy(servingDesign(design), spec);
    QCOMPARE(dep.instances.size(), std::size_t{3});
    QCOMPARE(dep.instances[2].devices, 4);
    const auto want =
        serving::simulate(io::serving_requests(spec), std::move(dep.instances), dep.options);
    QCOMPARE(r->completed, want.completed);
    // The lognormal tails draw a few requests longer than the model's context: those are
    // rejected for that reason only, and every other request completes.
    QCOMPARE(r->completed + r->rejected, std::size_t{120});
    QCOMPARE(r->rejected,
             r->rejected_by[static_cast<std::size_t>(serving::Rejection::over_max_model_len)]);
    QVERIFY(r->rejected < std::size_t{120} / 20);
    QCOMPARE(r->iterations, want.iterations);
    QVERIFY(close(r->kv_transfer_bytes, want.kv_transfer_bytes));
    QVERIFY(close(r->tpot.p50, want.tpot.p50));
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("servingSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("1 decode × 4 devices (tp4)")),
             qPrintable(summary->text()));
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QVERIFY(QDir().mkpath(dir));
    view.resize(1000, 860);
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("serving-pools.png"))));

    // A pool plan the model cannot take is the run's error, naming the pool.
    tp->setValue(3);
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().contains(QStringLiteral("/serving/disaggregate/decode_pool")),
             qPrintable(view.runError()));
  }

  // Co-located instances of their own plans: the form's instance-group text is one undoable
  // step that replaces the instance count, a text that does not parse is the settings' error
  // (the spec keeps its groups), groups beside disaggregation are an error marked on the field,
  // and the run equals
  // serving::deploy + simulate on the same spec (2 TP2 + 1 TP4 replicas on the 8 H100s).
  void instanceGroupsRunAsTheCoreDeploysThem() {
    const perf::Design design = io::builtin_presets().project(kServingPreset);
    ServingView view;
    view.setDesign(design);
    view.setSource(ServingView::Source::generated);
    auto* groups = field<QLineEdit>(view, "servingInstanceGroups");
    auto* instances = field<QSpinBox>(view, "servingInstances");
    QVERIFY(instances->isEnabled());  // the view's own spec: co-located
    field<QSpinBox>(view, "servingRequests")->setValue(120);
    field<QDoubleSpinBox>(view, "servingRate")->setValue(6);
    view.setLengths(QStringLiteral("lognormal:1020:0.99"), QStringLiteral("lognormal:129:0.86"));
    QUndoStack* undo = view.document()->undoStack();
    const int steps = undo->count();
    groups->setText(QStringLiteral("2:tp=2+1:tp=4,max-seqs=128"));
    QCOMPARE(undo->count(), steps + 1);
    const auto& g = view.document()->serving().instance_groups;
    QCOMPARE(g.size(), std::size_t{2});
    QCOMPARE(g[1].pool.tp, 4);
    QCOMPARE(g[1].pool.max_num_seqs, 128);
    QCOMPARE(view.document()->serving().instances, 0);
    QVERIFY(!instances->isEnabled());
    // Not parsed, not recorded: the error names the field and the allowed keys.
    groups->setText(QStringLiteral("2:dp=2"));
    QVERIFY2(view.settingsError().contains(QStringLiteral("unknown key 'dp'")),
             qPrintable(view.settingsError()));
    QCOMPARE(view.document()->serving().instance_groups.size(), std::size_t{2});
    groups->setText(QStringLiteral("2:tp=2+1:tp=4,max-seqs=128"));
    QVERIFY2(view.settingsError().isEmpty(), qPrintable(view.settingsError()));
    // Undo clears the groups (and the text), redo brings them back.
    undo->undo();
    QVERIFY(view.document()->serving().instance_groups.empty());
    QCOMPARE(groups->text(), QString());
    undo->redo();
    QCOMPARE(groups->text(), QStringLiteral("2:tp=2+1:tp=4,max-seqs=128"));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().isEmpty(), qPrintable(view.runError()));
    const serving::SimResult* r = view.result();
    QVERIFY(r != nullptr);

    const serving::ServingSpec spec = view.document()->serving();
    auto dep = serving::deploy(servingDesign(design), spec);
    QCOMPARE(dep.instances.size(), std::size_t{3});
    QCOMPARE(dep.instances[2].devices, 4);
    const auto want =
        serving::simulate(io::serving_requests(spec), std::move(dep.instances), dep.options);
    QCOMPARE(r->completed, want.completed);
    // The lognormal tails draw a few requests longer than the model's context: those are
    // rejected for that reason only, and every other request completes.
    QCOMPARE(r->completed + r->rejected, std::size_t{120});
    QCOMPARE(r->rejected,
             r->rejected_by[static_cast<std::size_t>(serving::Rejection::over_max_model_len)]);
    QVERIFY(r->rejected < std::size_t{120} / 20);
    QCOMPARE(r->iterations, want.iterations);
    QCOMPARE(r->instances.size(), std::size_t{3});
    QCOMPARE(r->instances[2].requests, want.instances[2].requests);
    QVERIFY(close(r->tpot.p50, want.tpot.p50));
    QVERIFY(close(r->ttft.p99, want.ttft.p99));
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("servingSummary"));
    QVERIFY2(summary->text().contains(QStringLiteral("2 × 2 devices (tp2), KV ")) &&
                 summary->text().contains(QStringLiteral(" + 1 × 4 devices (tp4), KV ")),
             qPrintable(summary->text()));
    const QString dir = QStringLiteral(STACKSCOPE_BINARY_DIR "/screenshots");
    QVERIFY(QDir().mkpath(dir));
    view.resize(1000, 860);
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("serving-groups.png"))));

    // A group plan the model cannot take is the run's error, naming the group.
    groups->setText(QStringLiteral("1:tp=2+1:tp=3"));
    QVERIFY(view.run());
    view.waitForIdle();
    QVERIFY2(view.runError().contains(QStringLiteral("/serving/instance_groups/1")),
             qPrintable(view.runError()));
    // Groups beside disaggregation: validate()'s error, on the groups field (still editable,
    // to clear), until they are cleared.
    field<QSpinBox>(view, "servingPrefill")->setValue(1);
    field<QSpinBox>(view, "servingDecode")->setValue(1);
    QVERIFY2(view.settingsError().contains(QStringLiteral("/serving/instance_groups")),
             qPrintable(view.settingsError()));
    QVERIFY(groups->isEnabled());
    QVERIFY(groups->toolTip().contains(QStringLiteral("instance groups are co-located")));
    groups->clear();
    QVERIFY(serving::validate(view.document()->serving()).empty());
    QVERIFY(!groups->toolTip().contains(QStringLiteral("instance groups are co-located")));
  }

  // A project's serving section is read into the document on open, edited through the form,
  // written on save (atomically, next to the design) and read back equal; a trace relative to
  // the project resolves against its folder.
  void projectServingSectionRoundTripsThroughTheDocument() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QDir dir(tmp.path());
    QVERIFY(dir.mkpath(QStringLiteral("traces")));
    {
      QFile f(dir.filePath(QStringLiteral("traces/t.csv")));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("arrival_s,input_tokens,output_tokens\n0,500,50\n0.5,700,40\n1,300,60\n");
    }
    // The example project with a trace source relative to its own folder.
    QFile preset(servingPresetFile());
    QVERIFY(preset.open(QIODevice::ReadOnly));
    QByteArray text = preset.readAll();
    text.replace("\"source\": \"generated\"",
                 "\"source\": \"trace\", \"trace\": \"traces/t.csv\", \"time_scale\": 2");
    const QString file = dir.filePath(QStringLiteral("serving.json"));
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    }
    MainWindow w;
    QString error;
    QVERIFY2(w.openProject(file, &error), qPrintable(error));
    ConfigDocument& doc = w.document();
    const serving::ServingSpec& s = doc.serving();
    QCOMPARE(s.source, serving::SourceKind::trace);
    QCOMPARE(QString::fromStdString(s.trace),
             QDir::cleanPath(dir.filePath(QStringLiteral("traces/t.csv"))));
    QCOMPARE(s.time_scale, 2.0);
    QCOMPARE(s.disaggregate.decode, 3);
    QCOMPARE(s.slo.tpot_s, 0.1);
    QVERIFY(!doc.dirty());
    auto* view = w.findChild<ServingView*>(QStringLiteral("servingView"));
    QVERIFY(view != nullptr);
    QCOMPARE(view->document(), &doc);
    QCOMPARE(field<QSpinBox>(*view, "servingDecode")->value(), 3);
    QCOMPARE(field<QDoubleSpinBox>(*view, "servingSloTpot")->value(), 100.0);
    // The opened settings run as they are (the trace read against the project's folder).
    QVERIFY2(view->run(), qPrintable(view->settingsError()));
    view->waitForIdle();
    QVERIFY2(view->runError().isEmpty(), qPrintable(view->runError()));
    QCOMPARE(view->result()->completed, std::size_t{3});
    QCOMPARE(view->result()->kv_transfers, std::uint64_t{3});

    // An edit in the form is an undoable, unsaved change of the project...
    field<QSpinBox>(*view, "servingBlockSize")->setValue(32);
    QVERIFY(doc.dirty());
    QCOMPARE(doc.serving().scheduler.block_size, 32);
    // ...that Save writes with the rest of the project.
    const QString saved = dir.filePath(QStringLiteral("saved.json"));
    QVERIFY2(w.saveProject(saved, &error), qPrintable(error));
    QVERIFY(!doc.dirty());
    const auto back = io::load_serving_section(saved.toStdString());
    QVERIFY(back.has_value());
    QVERIFY(*back == doc.serving());
    {
      QFile f(saved);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray json = f.readAll();
      QVERIFY(json.contains("\"trace\": \"traces/t.csv\""));  // still relative to the project
      QVERIFY(json.contains("\"block_size\": 32"));
    }
    MainWindow again;
    QVERIFY2(again.openProject(saved, &error), qPrintable(error));
    QVERIFY(again.document().serving() == doc.serving());
    QCOMPARE(io::project_to_json(again.document().design()), io::project_to_json(doc.design()));

    // A bad section refuses the open with its path and keeps the current project.
    text.replace("\"router\": \"jsq\"", "\"router\": \"fastest\"");
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    }
    QVERIFY(!again.openProject(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("/serving/router")), qPrintable(error));
    QVERIFY(again.document().serving() == doc.serving());

    // A preset with a serving section opens with it; one without has the defaults.
    QVERIFY(again.openPreset(QString::fromLatin1(kServingPreset)));
    QCOMPARE(again.document().serving().source, serving::SourceKind::generated);
    QCOMPARE(again.document().serving().requests, std::size_t{2000});
    QVERIFY(again.openPreset(QStringLiteral("default")));
    QVERIFY(again.document().serving() == serving::ServingSpec{});
  }
};

QTEST_MAIN(ServingViewTest)
#include "serving_view_test.moc"
