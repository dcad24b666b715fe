// SPDX-License-Identifier: GPL-3.0-or-later
// The link view's expert placement (issue 6, deliverable 6): for an MoE design every device
// reports the routed experts it hosts under the design's placement, the "Colour devices by"
// selector changes the picture, and a dense model disables the selector.
#include <QComboBox>
#include <QImage>
#include <QtTest>

#include "stackscope/io/project.hpp"
#include "stackscope/ui/link_view.hpp"

using stackscope::ui::LinkView;

class LinkViewTest : public QObject {
  Q_OBJECT

  stackscope::io::PresetRegistry presets_;

  static void show(LinkView& view, const stackscope::perf::Design& d) {
    view.showDesign(d);
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
    view.showDesign(dense);
    view.waitForIdle();
    QVERIFY(!view.deviceColouringAvailable());
    auto* box = view.findChild<QComboBox*>(QStringLiteral("linkDeviceColour"));
    QVERIFY(box && !box->isEnabled());
    QVERIFY2(box->toolTip().contains(QStringLiteral("dense model")), qPrintable(box->toolTip()));
    QCOMPARE(view.expertsOnDevice(0), -1);
    // Back to an MoE design: enabled again.
    view.showDesign(presets_.project("deepseek-v3-deepstack"));
    view.waitForIdle();
    QVERIFY(view.deviceColouringAvailable());
  }
};

QTEST_MAIN(LinkViewTest)
#include "link_view_test.moc"
