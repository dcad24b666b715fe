// SPDX-License-Identifier: GPL-3.0-or-later
// The link view's expert placement: for an MoE design every device
// reports the routed experts it hosts under the design's placement, the "Colour devices by"
// selector changes the picture, and a dense model disables the selector. The on-die mesh below
// it shows one device's mesh links with the evaluator's loads (compute/noc.hpp).
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QtTest>

#include "stackscope/compute/noc.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/link_view.hpp"
#include "stackscope/ui/mesh_view.hpp"

using stackscope::ui::LinkView;
using stackscope::ui::MeshView;

class LinkViewTest : public QObject {
  Q_OBJECT

  stackscope::io::PresetRegistry presets_;

  static void show(LinkView& view, const stackscope::perf::Design& d) {
    view.showDesign(d, stackscope::perf::evaluate(d));
    view.waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(view.linkCount() > 0, 10000);
  }

  static QImage canvas(LinkView& view) {
    QCoreApplication::processEvents();
    return view.findChild<QWidget*>(QStringLiteral("linkCanvas"))->grab().toImage();
  }

 private slots:
  void initTestCase() { presets_.register_builtins(); }

  // DeepSeek-V3 preset: 64 chips = TP 2 x EP 32. 256 routed experts (arXiv 2412.19437 §2.1.2)
  // / 32 EP ranks = 8 per rank; both chips of a TP pair hold a half of each of the same 8.
  void deepSeekDevicesHostTheirShareOfExperts() {
    auto d = presets_.project("deepseek-v3-deepstack");
    LinkView view;
    view.resize(1100, 700);
    view.show();
    show(view, d);
    QVERIFY(view.deviceColouringAvailable());
    for (int dev = 0; dev < 64; ++dev) QCOMPARE(view.expertsOnDevice(dev), 8);
    QCOMPARE(view.expertsOnDevice(64), -1);
    const QString tip = view.deviceToolTip(5);
    QVERIFY2(tip.contains(QStringLiteral("Device 5")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("routed experts hosted: 8 (0 redundant)")),
             qPrintable(tip));
    // Uniform routing: 512 tokens x top-8 / 32 ranks = 128 selections on every device.
    QVERIFY2(tip.contains(QStringLiteral("MoE layer: 128.0")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("100.0 % of the busiest")), qPrintable(tip));

    // One redundant slot per EP rank (DeepSeek-V3's EPLB): 32 replicas, one on every rank.
    d.parallel.redundant_experts_per_rank = 1;
    d.workload.routing.kind = stackscope::workload::RoutingKind::zipf;
    show(view, d);
    for (int dev = 0; dev < 64; ++dev) QCOMPARE(view.expertsOnDevice(dev), 9);
    QVERIFY(view.deviceToolTip(0).contains(QStringLiteral("(1 redundant)")));
  }

  // Each selector position draws the devices differently; "none" is the plain link picture.
  void selectorChangesTheRendering() {
    auto d = presets_.project("deepseek-v3-deepstack");
    d.workload.routing.kind = stackscope::workload::RoutingKind::zipf;
    LinkView view;
    view.resize(1100, 700);
    view.show();
    show(view, d);
    QCOMPARE(view.deviceColouring(), int{LinkView::kNone});
    const QImage none = canvas(view);
    view.setDeviceColouring(LinkView::kExperts);
    const QImage experts = canvas(view);
    view.setDeviceColouring(LinkView::kEpGroup);
    const QImage groups = canvas(view);
    QCOMPARE(view.deviceColouring(), int{LinkView::kEpGroup});
    QVERIFY(none != experts);
    QVERIFY(none != groups);
    QVERIFY(experts != groups);
    view.setDeviceColouring(LinkView::kNone);
    QCOMPARE(canvas(view), none);
  }

  // A dense model has no routed experts: the selector is disabled and says why.
  void denseModelDisablesTheSelector() {
    LinkView view;
    view.resize(900, 600);
    view.show();
    const auto dense = presets_.project("llama-2-70b-h100-tp4");
    view.showDesign(dense, stackscope::perf::evaluate(dense));
    view.waitForIdle();
    QVERIFY(!view.deviceColouringAvailable());
    auto* box = view.findChild<QComboBox*>(QStringLiteral("linkDeviceColour"));
    QVERIFY(box && !box->isEnabled());
    QVERIFY2(box->toolTip().contains(QStringLiteral("dense model")), qPrintable(box->toolTip()));
    QCOMPARE(view.expertsOnDevice(0), -1);
    // Back to an MoE design: enabled again.
    const auto moe = presets_.project("deepseek-v3-deepstack");
    view.showDesign(moe, stackscope::perf::evaluate(moe));
    view.waitForIdle();
    QVERIFY(view.deviceColouringAvailable());
  }

  // DeepSeek-V3 on DeepStack's 16 x 8 core mesh: every neighbour pair drawn in both directions
  // (2 x (15 x 8 + 16 x 7) = 464), the busiest link's utilisation is the core's
  // max_link_bytes / (phase time x link bandwidth at the run's clock), and hovering a link
  // names it with both directions' bytes.
  void meshShowsTheEvaluatorsLinkLoads() {
    namespace compute = stackscope::compute;
    const auto d = presets_.project("deepseek-v3-deepstack");
    LinkView view;
    view.resize(1100, 900);
    view.show();
    show(view, d);
    MeshView* mesh = view.meshView();
    QVERIFY(mesh);
    QCOMPARE(mesh->drawnLinks(), 464);
    const auto r = stackscope::perf::evaluate(d);
    const auto rates = compute::mesh_rates(d.hardware, r.clock_scale);
    const double decode =
        compute::max_link_bytes(rates, r.decode.noc) / (r.decode.time_s * rates.link_Bps);
    QVERIFY(decode > 0 && decode < 1);
    QVERIFY2(std::abs(mesh->busiest() / decode - 1) < 1e-9,
             qPrintable(QString::number(mesh->busiest()) + " vs " + QString::number(decode)));
    const QString tip = mesh->linkToolTip(7, 3, true);
    QVERIFY2(tip.contains(QStringLiteral("X-link between core columns 7 and 8")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("eastward")) && tip.contains(QStringLiteral("westward")),
             qPrintable(tip));
    // The prefill pass: the combo switches both pictures.
    view.findChild<QComboBox*>(QStringLiteral("linkPhase"))->setCurrentIndex(1);
    const double prefill =
        compute::max_link_bytes(rates, r.prefill.noc) / (r.prefill.time_s * rates.link_Bps);
    QVERIFY(std::abs(mesh->busiest() / prefill - 1) < 1e-9);
    QVERIFY(std::abs(prefill - decode) > 1e-6);
    auto* stats = view.findChild<QLabel*>(QStringLiteral("meshStats"));
    QVERIFY2(stats->text().contains(QStringLiteral("16 × 8 mesh")), qPrintable(stats->text()));
  }

  // A GPU's 1 x 1 "mesh" is its crossbar to L2: no links drawn, the stats say how busy the
  // crossbar is. A wafer-scale core mesh (750 x 1200) is drawn as 32 x 32 blocks.
  void crossbarAndWaferMeshes() {
    LinkView view;
    view.resize(1100, 900);
    view.show();
    const auto h100 = presets_.project("llama-2-70b-h100-tp4");
    view.showDesign(h100, stackscope::perf::evaluate(h100));
    view.waitForIdle();
    MeshView* mesh = view.meshView();
    QCOMPARE(mesh->drawnLinks(), 0);
    QVERIFY(mesh->busiest() > 0 && mesh->busiest() < 1);
    auto* stats = view.findChild<QLabel*>(QStringLiteral("meshStats"));
    QVERIFY2(stats->text().contains(QStringLiteral("crossbar to L2")), qPrintable(stats->text()));

    auto wafer = presets_.project("default");
    wafer.hardware = presets_.hardware("wafer-scale");
    wafer.parallel = {};
    wafer.system.devices = 1;
    wafer.system.levels.clear();
    mesh->showResult(wafer, stackscope::perf::evaluate(wafer));
    QVERIFY(mesh->busiest() > 0);
    // 750 / 24 columns and 1200 / 38 rows per block -> 32 x 32 blocks.
    QCOMPARE(mesh->drawnLinks(), 2 * (31 * 32 + 32 * 31));
    QVERIFY2(stats->text().contains(QStringLiteral("block of 24 × 38 cores")),
             qPrintable(stats->text()));
  }
};

QTEST_MAIN(LinkViewTest)
#include "link_view_test.moc"
