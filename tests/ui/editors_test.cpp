// SPDX-License-Identifier: GPL-3.0-or-later
// The form editors: every page edits the design through the ConfigDocument (one undo step per
// field, merged while the same field is edited), derived stack quantities follow the model,
// validation issues land on the field their JSON pointer names, and the dark theme restyles
// the window and its plots.
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QToolBox>
#include <QtTest>

#include "stackscope/memory/dram.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/ui/design_editor.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/theme.hpp"

using stackscope::ui::DesignEditor;
using stackscope::ui::MainWindow;
namespace theme = stackscope::ui::theme;

class EditorsTest : public QObject {
  Q_OBJECT

 private:
  template <typename T>
  static T* field(MainWindow& w, const char* name) {
    auto* f = w.findChild<T*>(QString::fromLatin1(name));
    if (!f) qFatal("no field %s", name);
    return f;
  }

 private Q_SLOTS:
  void initTestCase() {
    // Settings written by the theme menu go to a throw-away test location.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("view/theme"));
  }
  void cleanupTestCase() {
    QSettings().remove(QStringLiteral("view/theme"));
    theme::apply(theme::Mode::system);
  }

  // Stack page: more DRAM layers -> more capacity rows, more memory per device and a hotter
  // stack; undo puts the layer count, the table and the metrics back.
  void stackLayersChangeTheMetricAndUndoRestores() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    auto* layers = field<QSpinBox>(w, "layersSpin");
    auto* table = field<QTableWidget>(w, "layerTable");
    auto* memory = field<QLabel>(w, "metric_memory");
    QVERIFY(layers->isEnabled());
    QCOMPARE(table->rowCount(), 8);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("DRAM 8"));     // the top of the stack first
    QCOMPARE(table->item(0, 3)->data(Qt::EditRole).toDouble(), 12.0);  // GiB per stack
    QVERIFY(field<QLabel>(w, "stackTotals")->text().contains(QStringLiteral(" GB/s per link")));
    const QString memory0 = memory->text();
    const double capacity0 = w.result()->memory.capacity;
    const double temp0 = w.result()->thermal.dram_peak_C;
    layers->setValue(10);
    layers->setValue(12);  // one field edited twice: one undo step
    QTRY_VERIFY_WITH_TIMEOUT(memory->text() != memory0, 2000);
    QCOMPARE(w.design().hardware.memory.layers_total, 12);
    QVERIFY(w.result()->memory.capacity > 1.4 * capacity0);
    QVERIFY(w.result()->thermal.dram_peak_C != temp0);
    QCOMPARE(table->rowCount(), 12);
    // Shown, the page lays the taller table out above the totals (nothing overlaps).
    field<QToolBox>(w, "editorPages")->setCurrentIndex(DesignEditor::kStackPage);
    auto* totals = field<QLabel>(w, "stackTotals");
    QTRY_VERIFY_WITH_TIMEOUT(totals->geometry().top() >= table->geometry().bottom(), 2000);
    QVERIFY(table->height() >= 12 * 20);
    // The device is no longer its preset; the combo says so and keeps the edit.
    auto* hardware = field<QComboBox>(w, "hardwareCombo");
    QVERIFY(hardware->currentText().startsWith(QStringLiteral("(edited)")));
    QVERIFY(hardware->currentData().toString().isEmpty());
    QCOMPARE(w.document().undoStack()->count(), 1);
    w.document().undoStack()->undo();
    QCOMPARE(hardware->currentData().toString(), QStringLiteral("deepstack-3d"));
    QCOMPARE(layers->value(), 8);
    QCOMPARE(table->rowCount(), 8);
    QTRY_COMPARE_WITH_TIMEOUT(memory->text(), memory0, 2000);
    QCOMPARE(w.design().hardware.memory.layers_total, 8);
    QCOMPARE(w.result()->thermal.dram_peak_C, temp0);

    // More connected layers: more peak bandwidth, so more decode throughput.
    const double stps0 = w.result()->metrics.stps;
    field<QSpinBox>(w, "connectedSpin")->setValue(6);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.stps != stps0, 2000);
  }

  // The per-layer table edits the stack through the document: adding a connected die raises
  // capacity, peak bandwidth and the peak temperature; disconnecting one lowers the peak
  // bandwidth by one link; a die's wider pitch grows the vertical field; a thicker die runs
  // hotter. Each edit is one undo step, and one Ctrl+Z takes back exactly the last one.
  void layerTableEditsTheStack() {
    using stackscope::hw::MemoryKind;
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    field<QToolBox>(w, "editorPages")->setCurrentIndex(DesignEditor::kStackPage);
    auto* table = field<QTableWidget>(w, "layerTable");
    auto& doc = w.document();
    const auto peak = [&] {
      const auto& h = doc.design().hardware;
      return stackscope::memory::effective_bandwidth(h.memory, h.compute, {}).peak_Bps;
    };
    QCOMPARE(doc.design().hardware.memory.kind, MemoryKind::stacked_3d);
    QCOMPARE(table->rowCount(), 8);
    QVERIFY(doc.design().hardware.memory.layers.empty());
    // The preset is throttled at 95 °C (its temperature held at the limit); unthrottled, the
    // compact model's peak temperature shows each edit.
    field<QCheckBox>(w, "throttleCheck")->setChecked(false);
    QVERIFY(!doc.design().hardware.thermal.throttle);
    doc.undoStack()->clear();
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->thermal.throttle == 1.0, 5000);
    const double capacity0 = w.result()->memory.capacity;
    const double temp0 = w.result()->thermal.dram_peak_C;
    const double vertical0 = w.result()->area.vertical;
    const double peak0 = peak();

    // Add: a copy of the selected connected DRAM 4 above it (rows list the top die first).
    table->setCurrentCell(8 - 4, 0);
    QCOMPARE(table->item(8 - 4, 0)->text(), QStringLiteral("DRAM 4"));
    QVERIFY(table->item(8 - 4, 1)->checkState() == Qt::Checked);
    field<QPushButton>(w, "addLayerButton")->click();
    QCOMPARE(table->rowCount(), 9);
    QCOMPARE(doc.design().hardware.memory.layers.size(), std::size_t{9});
    QCOMPARE(doc.design().hardware.memory.layers_total, 9);
    QCOMPARE(doc.design().hardware.memory.layers_connected, 5);
    QCOMPARE(doc.undoStack()->count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->memory.capacity > capacity0, 5000);
    QCOMPARE(w.result()->memory.capacity, capacity0 * 9 / 8);
    QVERIFY(w.result()->thermal.dram_peak_C > temp0);
    QCOMPARE(peak(), peak0 * 5 / 4);
    const double capacity1 = w.result()->memory.capacity;

    // Disconnect DRAM 1 (the bottom row): one link fewer, the same capacity.
    const double peak1 = peak();
    table->item(8, 1)->setCheckState(Qt::Unchecked);
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(doc.design().hardware.memory.layers_connected, 4);
    QVERIFY(!doc.design().hardware.memory.layers[0].connected);
    QCOMPARE(peak(), peak1 * 4 / 5);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->memory.capacity == capacity1, 5000);
    QVERIFY(table->item(8, 1)->text().startsWith(QStringLiteral("→")));

    // DRAM 2's links at twice the pitch: a larger vertical-link field.
    QTRY_VERIFY_WITH_TIMEOUT(w.result().has_value(), 5000);
    const double vertical2 = w.result()->area.vertical;
    const double pitch = table->item(7, 4)->data(Qt::EditRole).toDouble();
    QCOMPARE(pitch, doc.design().hardware.memory.vertical.pitch_um);
    table->item(7, 4)->setData(Qt::EditRole, 2 * pitch);
    QCOMPARE(doc.undoStack()->count(), 3);
    QCOMPARE(doc.design().hardware.memory.layers[1].pitch_um, 2 * pitch);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->area.vertical > vertical2, 5000);
    QVERIFY(w.result()->area.vertical > vertical0);

    // DRAM 1 eight times as thick: hotter.
    QTRY_VERIFY_WITH_TIMEOUT(w.result().has_value(), 5000);
    const double temp3 = w.result()->thermal.dram_peak_C;
    const auto before = doc.design();
    table->item(8, 2)->setData(Qt::EditRole, 400.0);
    QCOMPARE(doc.undoStack()->count(), 4);
    QCOMPARE(doc.design().hardware.memory.layers[0].thickness_um, 400.0);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->thermal.dram_peak_C > temp3 + 0.05, 5000);
    // An out-of-range value is marked on its cell with the allowed range.
    table->item(8, 2)->setData(Qt::EditRole, 5000.0);
    QTRY_VERIFY_WITH_TIMEOUT(table->item(8, 2)->toolTip().contains(QStringLiteral("[0, 1000]")),
                             5000);
    QCOMPARE(doc.undoStack()->count(), 5);

    // One Ctrl+Z: the last edit only.
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(doc.undoStack()->index(), 4);
    QCOMPARE(doc.design().hardware.memory.layers[0].thickness_um, 400.0);
    QTest::keyClick(table, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(doc.undoStack()->index(), 3);
    QCOMPARE(doc.design().hardware.memory.layers[0].thickness_um,
             before.hardware.memory.layers[0].thickness_um);
    QCOMPARE(doc.design().hardware.memory.layers[1].pitch_um, 2 * pitch);
    QCOMPARE(table->rowCount(), 9);
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->thermal.dram_peak_C, temp3, 5000);
    // Undo back to the start: the uniform stack again.
    while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
    QVERIFY(doc.design().hardware.memory.layers.empty());
    QCOMPARE(table->rowCount(), 8);
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->thermal.dram_peak_C, temp0, 5000);

    // Move: DRAM 1 up swaps it with DRAM 2 (one undo step); Remove drops a die.
    table->setCurrentCell(7, 0);  // DRAM 1
    field<QPushButton>(w, "layerUpButton")->click();
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(table->currentRow(), 6);  // the moved die stays selected
    field<QPushButton>(w, "removeLayerButton")->click();
    QCOMPARE(doc.design().hardware.memory.layers_total, 7);
    QCOMPARE(doc.undoStack()->count(), 2);
    // Another memory kind drops the list (it describes a 3D stack only); undo brings it back.
    field<QComboBox>(w, "memoryKindCombo")->setCurrentIndex(0);  // HBM
    QCOMPARE(doc.design().hardware.memory.kind, MemoryKind::hbm);
    QVERIFY(doc.design().hardware.memory.layers.empty());
    for (const auto& i : stackscope::perf::validate(doc.design()))
      QVERIFY2(i.path != "/hardware/memory/layers", i.message.c_str());
    doc.undoStack()->undo();
    QCOMPARE(doc.design().hardware.memory.layers.size(), std::size_t{7});
    QCOMPARE(table->rowCount(), 7);
  }

  // The vertical-link pitch sets link density and the bond field's die area.
  void pitchChangesDensityAndArea() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    auto* pitch = field<QDoubleSpinBox>(w, "pitchSpin");
    auto* density = field<QLabel>(w, "verticalDensity");
    QVERIFY(pitch->suffix().contains(QStringLiteral("µm")));
    QVERIFY(pitch->toolTip().contains(QStringLiteral("Unit: µm")));
    const QString d0 = density->text();
    const double area0 = w.result()->area.vertical;
    pitch->setValue(pitch->value() * 2);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->area.vertical > area0, 2000);
    QVERIFY(density->text() != d0);
    w.document().undoStack()->undo();
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->area.vertical, area0, 2000);
    QCOMPARE(density->text(), d0);
  }

  // An HBM device has DRAM but no 3D stack: its organisation and timings are editable, the
  // vertical links are disabled and the page says why; an SRAM-only device has no DRAM fields.
  void hbmDeviceEditsDramButNotTheStack() {
    MainWindow w;
    QVERIFY(w.openPreset(QStringLiteral("default")));  // H100 SXM, HBM3
    QVERIFY(field<QWidget>(w, "dramFields")->isEnabled());
    QVERIFY(field<QDoubleSpinBox>(w, "tFAWSpin")->isEnabled());
    QVERIFY(!field<QWidget>(w, "stackFields")->isEnabled());
    QVERIFY(field<QLabel>(w, "stackNote")->text().contains(QStringLiteral("HBM")));
    QVERIFY(field<QTableWidget>(w, "layerTable")->isHidden());
    auto* hardware = field<QComboBox>(w, "hardwareCombo");
    hardware->setCurrentIndex(hardware->findData(QStringLiteral("deepstack-3d")));
    QVERIFY(field<QWidget>(w, "stackFields")->isEnabled());
    QVERIFY(!field<QTableWidget>(w, "layerTable")->isHidden());
    field<QComboBox>(w, "memoryKindCombo")->setCurrentIndex(2);  // SRAM only
    QCOMPARE(w.document().design().hardware.memory.kind, stackscope::hw::MemoryKind::sram_only);
    QVERIFY(!field<QWidget>(w, "dramFields")->isEnabled());
    QVERIFY(field<QDoubleSpinBox>(w, "reservedSpin")->isEnabled());
  }

  // DRAM timings: a longer four-activation window caps the activation rate, so the derived
  // effective bandwidth falls and decode (weight streaming) slows; undo restores both. A
  // refresh cycle longer than the refresh interval is an issue on the tRFC field.
  void dramTimingsChangeBandwidthAndUndoRestores() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("default")));
    auto* tfaw = field<QDoubleSpinBox>(w, "tFAWSpin");
    auto* info = field<QLabel>(w, "dramInfo");
    QVERIFY(tfaw->suffix().contains(QStringLiteral("ns")));
    QVERIFY(tfaw->toolTip().contains(QStringLiteral("hardware.memory.timing.tFAW_ns")));
    const QString info0 = info->text();
    QVERIFY(info0.contains(QStringLiteral("GB/s")));
    const double tfaw0 = w.design().hardware.memory.timing.tFAW_ns;
    const double tpot0 = w.result()->metrics.tpot_s;
    tfaw->setValue(tfaw0 * 10);
    tfaw->setValue(tfaw0 * 20);  // one field edited twice: one undo step
    QCOMPARE(w.document().design().hardware.memory.timing.tFAW_ns, tfaw0 * 20);
    QVERIFY(info->text() != info0);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.tpot_s > tpot0 * 1.05, 2000);
    QCOMPARE(w.document().undoStack()->count(), 1);
    w.document().undoStack()->undo();
    QCOMPARE(tfaw->value(), tfaw0);
    QCOMPARE(info->text(), info0);
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->metrics.tpot_s, tpot0, 2000);

    auto* trfc = field<QDoubleSpinBox>(w, "tRFCSpin");
    auto* trefi = field<QDoubleSpinBox>(w, "tREFISpin");
    trfc->setValue(trefi->value() + 100);
    QTRY_VERIFY_WITH_TIMEOUT(!w.result().has_value(), 2000);
    QVERIFY(trfc->property("invalid").toBool());
    QVERIFY(!trefi->property("invalid").toBool());
    QVERIFY(trfc->toolTip().contains(QStringLiteral("/hardware/memory/timing/tRFC_ns")));
    auto* pages = field<QToolBox>(w, "editorPages");
    QVERIFY(pages->itemText(DesignEditor::kStackPage).contains(QStringLiteral("problem")));
    auto* hardware = field<QComboBox>(w, "hardwareCombo");
    QVERIFY(!hardware->property("invalid").toBool());  // the field owns it, not the device
  }

  // MoE routing: a dense model disables the section and says why; on an MoE preset a skewed
  // routing loads the busiest expert-parallel rank, so decode slows; undo restores it.
  void moeRoutingIsEditableForMoeModels() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("default")));  // a dense model
    auto* kind = field<QComboBox>(w, "routingKindCombo");
    auto* info = field<QLabel>(w, "routingInfo");
    QVERIFY(!kind->isEnabled());
    QVERIFY(info->text().contains(QStringLiteral("Dense")));
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    QVERIFY(kind->isEnabled());
    QCOMPARE(w.design().workload.routing.kind, stackscope::workload::RoutingKind::uniform);
    auto* zipf = field<QDoubleSpinBox>(w, "zipfSpin");
    QVERIFY(!zipf->isEnabled());
    const QString info0 = info->text();
    QVERIFY(info0.contains(QStringLiteral("EP ranks")));
    const double tpot0 = w.result()->metrics.tpot_s;
    kind->setCurrentIndex(1);  // Zipf
    QCOMPARE(w.document().design().workload.routing.kind, stackscope::workload::RoutingKind::zipf);
    QVERIFY(zipf->isEnabled());
    QVERIFY(field<QSpinBox>(w, "routingSeedSpin")->isEnabled());
    QVERIFY(info->text() != info0);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.tpot_s > tpot0, 2000);
    const double tpotZipf = w.result()->metrics.tpot_s;
    zipf->setValue(0.2);  // milder skew: faster than s = 1
    QCOMPARE(w.document().design().workload.routing.zipf_s, 0.2);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.tpot_s < tpotZipf, 2000);
    field<QSpinBox>(w, "routingSeedSpin")->setValue(7);
    QCOMPARE(w.document().design().workload.routing.seed, 7u);
    QCOMPARE(w.document().undoStack()->count(), 3);
    for (int i = 0; i < 3; ++i) w.document().undoStack()->undo();
    QCOMPARE(kind->currentIndex(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->metrics.tpot_s, tpot0, 2000);
    QCOMPARE(info->text(), info0);

    // A trace that cannot be read: the routing kind says so and the trace field has the issue.
    kind->setCurrentIndex(3);
    auto* trace = field<QLineEdit>(w, "traceEdit");
    QVERIFY(trace->isEnabled());
    trace->setText(QStringLiteral("/nonexistent/trace.json"));
    Q_EMIT trace->editingFinished();
    QCOMPARE(w.document().design().workload.routing.trace, std::string("/nonexistent/trace.json"));
    QVERIFY(info->text().contains(QStringLiteral("not loaded")));
    QTRY_VERIFY_WITH_TIMEOUT(trace->property("invalid").toBool(), 2000);
  }

  // Power, area & thermal: a low TDP puts the device on the power wall (clocks scaled down);
  // raising it lifts the design again; undo restores. Area and thermal fields reach the design
  // and the derived text.
  void powerAreaThermalFieldsEditTheDesign() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("default")));
    auto* tdp = field<QDoubleSpinBox>(w, "tdpSpin");
    QVERIFY(tdp->suffix().contains(QStringLiteral("W")));
    const double tdp0 = tdp->value();
    QCOMPARE(w.result()->clock_scale, 1.0);
    // A cap the prefill can meet above the lowest DVFS clock (the default project's prefill
    // draws about 640 W per H100 at the top clock).
    tdp->setValue(w.design().hardware.energy.static_power_W + 400);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->clock_scale < 1.0, 2000);
    const double ttftWalled = w.result()->metrics.ttft_s;
    auto* idle = field<QDoubleSpinBox>(w, "staticPowerSpin");
    idle->setValue(idle->value() + 25);  // less of the TDP left for work: deeper under the wall
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.ttft_s > ttftWalled, 2000);
    tdp->setValue(5000);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->clock_scale == 1.0, 2000);
    QVERIFY(w.result()->metrics.ttft_s < ttftWalled);
    QCOMPARE(w.document().undoStack()->count(), 3);  // TDP, static power, TDP again
    w.document().undoStack()->undo();
    w.document().undoStack()->undo();
    w.document().undoStack()->undo();
    QCOMPARE(tdp->value(), tdp0);
    QTRY_COMPARE_WITH_TIMEOUT(w.result()->clock_scale, 1.0, 2000);

    auto* areaInfo = field<QLabel>(w, "areaInfo");
    const QString area0 = areaInfo->text();
    auto* other = field<QDoubleSpinBox>(w, "otherAreaSpin");
    other->setValue(other->value() + 100);
    QCOMPARE(w.document().design().hardware.area.other_mm2, other->value());
    QVERIFY(areaInfo->text() != area0);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->area.other > 0, 2000);

    // Thermal package: a 3D stack only; more resistance per layer makes it hotter.
    QVERIFY(!field<QDoubleSpinBox>(w, "ambientSpin")->isEnabled());  // HBM: not modelled
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    auto* ambient = field<QDoubleSpinBox>(w, "ambientSpin");
    QVERIFY(ambient->isEnabled());
    QVERIFY(ambient->suffix().contains(QStringLiteral("°C")));
    // The preset is throttled to sit at the 95 C limit; without the throttle its peak follows
    // the package.
    field<QCheckBox>(w, "throttleCheck")->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->thermal.throttle == 1.0, 2000);
    const double temp0 = w.result()->thermal.dram_peak_C;
    ambient->setValue(ambient->value() + 5);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->thermal.dram_peak_C > temp0, 2000);
    auto* compact = field<QComboBox>(w, "compactCombo");
    compact->setCurrentIndex(0);  // fixed: r_base / r_layer apply
    QVERIFY(field<QDoubleSpinBox>(w, "rLayerSpin")->isEnabled());
    compact->setCurrentIndex(1);  // geometry: fitted, the given values are unused
    QVERIFY(!field<QDoubleSpinBox>(w, "rLayerSpin")->isEnabled());
    QVERIFY(field<QLabel>(w, "thermalInfo")->text().contains(QStringLiteral("K/W")));
  }

  // More connected layers than layers: the issue (/hardware/memory/layers_connected) marks the
  // connected-layers field and its page, not the field the user touched last.
  void validationIssueLandsOnTheRightField() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("deepseek-v3-deepstack")));
    auto* layers = field<QSpinBox>(w, "layersSpin");
    auto* connected = field<QSpinBox>(w, "connectedSpin");
    layers->setValue(3);  // 4 connected of 3
    QTRY_VERIFY_WITH_TIMEOUT(!w.result().has_value(), 2000);
    QVERIFY(connected->property("invalid").toBool());
    QVERIFY(!layers->property("invalid").toBool());
    QVERIFY(connected->toolTip().contains(QStringLiteral("/hardware/memory/layers_connected")));
    auto* pages = field<QToolBox>(w, "editorPages");
    QVERIFY(pages->itemText(DesignEditor::kStackPage).contains(QStringLiteral("problem")));
    QVERIFY(!pages->itemText(DesignEditor::kParallelPage).contains(QStringLiteral("problem")));
    // The page says it in words above its fields too.
    auto* problems =
        pages->widget(DesignEditor::kStackPage)->findChild<QLabel*>(QStringLiteral("pageProblems"));
    QVERIFY(problems && !problems->isHidden());
    QVERIFY(problems->text().contains(QStringLiteral("more connected layers")));
    layers->setValue(8);
    QTRY_VERIFY_WITH_TIMEOUT(w.result().has_value(), 2000);
    QVERIFY(!connected->property("invalid").toBool());
    QVERIFY(!pages->itemText(DesignEditor::kStackPage).contains(QStringLiteral("problem")));
    QVERIFY(problems->isHidden());

    // Parallelism page: CP must divide the prompt (2048 tokens).
    auto* cp = field<QSpinBox>(w, "cpSpin");
    cp->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(cp->property("invalid").toBool(), 2000);
    QVERIFY(cp->toolTip().contains(QStringLiteral("/parallel/cp")));
    QCOMPARE(w.design().parallel.cp, 3);
    QCOMPARE(w.design().system.devices, stackscope::parallel::devices(w.design().parallel));
  }

  // Compute die, mesh and plan fields reach the design; devices follow the plan.
  void computeMeshAndPlanFieldsEditTheDesign() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("default")));
    const double ttft0 = w.result()->metrics.ttft_s;
    auto* cores = field<QSpinBox>(w, "coresSpin");
    cores->setValue(cores->value() / 2);  // prefill is compute-bound: TTFT grows
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.ttft_s > ttft0, 2000);
    QCOMPARE(w.design().hardware.compute.cores, cores->value());
    auto* mesh = field<QSpinBox>(w, "meshXSpin");
    mesh->setValue(4);
    QCOMPARE(w.document().design().hardware.noc.mesh_x, 4);
    auto* dp = field<QSpinBox>(w, "dpSpin");
    dp->setValue(2);
    QCOMPARE(w.document().design().system.devices, 8);
    QVERIFY(field<QLabel>(w, "systemDevices")->text().startsWith(QStringLiteral("8")));
    auto* overlap = field<QComboBox>(w, "overlapCombo");
    auto* tiles = field<QSpinBox>(w, "overlapTilesSpin");
    overlap->setCurrentIndex(0);
    QVERIFY(!tiles->isEnabled());
    overlap->setCurrentIndex(1);  // fixed
    QVERIFY(tiles->isEnabled());
    QCOMPARE(w.document().design().parallel.overlap, stackscope::parallel::Overlap::fixed);
    auto* kv = field<QComboBox>(w, "kvCombo");
    kv->setCurrentIndex(kv->findText(QStringLiteral("bf16")));
    QCOMPARE(w.document().design().workload.numerics.kv_cache, stackscope::Precision::bf16);
    QCOMPARE(w.document().undoStack()->count(), 5);  // cores, mesh, dp, overlap, kv
  }

  // Expert placement: the strategy and HD-MoE's solver limits are undoable edits of
  // the design; the solver fields are live only for the HD-MoE strategies; the evaluation runs
  // the chosen placement (balanced on the Mixtral mesh costs decode differently from the
  // plan's TP 4 x EP 8).
  void expertPlacementIsEditable() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("mixtral-hdmoe")));
    QTRY_VERIFY_WITH_TIMEOUT(w.result().has_value(), 5000);
    const double tpot0 = w.result()->metrics.tpot_s;
    auto* strategy = field<QComboBox>(w, "expertStrategyCombo");
    auto* limit = field<QDoubleSpinBox>(w, "hdTimeLimitSpin");
    auto* groups = field<QSpinBox>(w, "eplbGroupsSpin");
    QVERIFY(strategy->isEnabled());
    QVERIFY(!limit->isEnabled());
    strategy->setCurrentIndex(static_cast<int>(stackscope::parallel::ExpertStrategy::balanced));
    QCOMPARE(w.document().design().parallel.experts.strategy,
             stackscope::parallel::ExpertStrategy::balanced);
    QTRY_VERIFY_WITH_TIMEOUT(w.result() && w.result()->metrics.tpot_s != tpot0, 10000);
    strategy->setCurrentIndex(static_cast<int>(stackscope::parallel::ExpertStrategy::hd));
    QVERIFY(limit->isEnabled());
    QVERIFY(!groups->isEnabled());
    limit->setValue(0.25);
    QCOMPARE(w.document().design().parallel.experts.hd_time_limit_s, 0.25);
    field<QSpinBox>(w, "linkIterationsSpin")->setValue(10);
    QCOMPARE(w.document().design().parallel.experts.link_iterations, 10);
    // Consecutive edits of one field merge into one step: strategy, limit, iterations.
    QCOMPARE(w.document().undoStack()->count(), 3);
    w.document().undoStack()->undo();
    w.document().undoStack()->undo();
    QCOMPARE(w.document().design().parallel.experts.hd_time_limit_s, 1.0);
    QCOMPARE(w.document().design().parallel.experts.link_iterations, 100);
    w.document().undoStack()->undo();
    QCOMPARE(w.document().design().parallel.experts.strategy,
             stackscope::parallel::ExpertStrategy::plan);
    QCOMPARE(strategy->currentIndex(), 0);
  }

  // System page: a level's link bandwidth and the level list are undoable edits.
  void systemLevelsAreEditable() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPreset(QStringLiteral("default")));
    auto* table = field<QTableWidget>(w, "levelTable");
    const int levels = table->rowCount();
    QVERIFY(levels >= 1);
    auto* link = field<QDoubleSpinBox>(w, "levelLinkSpin");
    const double bw = w.design().system.levels[0].link_GBps;
    QCOMPARE(link->value(), bw);
    link->setValue(bw / 2);
    QCOMPARE(w.document().design().system.levels[0].link_GBps, bw / 2);
    field<QPushButton>(w, "addLevelButton")->click();
    QCOMPARE(table->rowCount(), levels + 1);
    QCOMPARE(static_cast<int>(w.document().design().system.levels.size()), levels + 1);
    w.document().undoStack()->undo();
    QCOMPARE(table->rowCount(), levels);
    w.document().undoStack()->undo();
    QCOMPARE(w.document().design().system.levels[0].link_GBps, bw);
    QCOMPARE(link->value(), bw);

    // The level's name: in the design and the table; undo brings the old one back.
    auto* name = field<QLineEdit>(w, "levelNameEdit");
    const QString name0 = table->item(0, 0)->text();
    name->setText(QStringLiteral("scale-up switch"));
    Q_EMIT name->editingFinished();
    QCOMPARE(w.document().design().system.levels[0].name, std::string("scale-up switch"));
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("scale-up switch"));
    w.document().undoStack()->undo();
    QCOMPARE(table->item(0, 0)->text(), name0);
    QCOMPARE(name->text().isEmpty() ? table->item(0, 0)->text() : name->text(), name0);
  }

  // Every form field has a tooltip naming its project key; number fields carry a unit or are
  // counts, and their range starts where validate() starts.
  void everyFieldHasATooltip() {
    MainWindow w;
    auto* editor = w.findChild<DesignEditor*>(QStringLiteral("designEditor"));
    QVERIFY(editor);
    int fields = 0;
    for (QWidget* f : editor->findChildren<QWidget*>()) {
      if (!f->property("jsonPath").isValid()) continue;
      ++fields;
      QVERIFY2(!f->toolTip().isEmpty(), qPrintable(f->objectName()));
    }
    QVERIFY(fields >= 100);
    QCOMPARE(field<QSpinBox>(w, "tpSpin")->minimum(), 1);
    QCOMPARE(field<QSpinBox>(w, "overlapTilesSpin")->maximum(), 1024);
    QCOMPARE(field<QDoubleSpinBox>(w, "matmulEffSpin")->maximum(), 1.0);
    QVERIFY(field<QDoubleSpinBox>(w, "clockSpin")->suffix().contains(QStringLiteral("GHz")));
  }

  // Every number field offers the range validate() holds its path to (perf::field_ranges):
  // the same maximum, and a minimum no lower than validate()'s (rounded up to the field's
  // decimals), so the form never offers a value the validator refuses or refuses one it takes.
  void numberFieldsOfferTheValidatorsRanges() {
    MainWindow w;
    auto* editor = w.findChild<DesignEditor*>(QStringLiteral("designEditor"));
    QVERIFY(editor);
    const auto ranges = stackscope::perf::field_ranges(w.design());
    int checked = 0;
    for (QWidget* f : editor->findChildren<QWidget*>()) {
      const QVariant path = f->property("jsonPath");
      if (!path.isValid()) continue;
      const QString p = path.toString().replace(QStringLiteral("{L}"), QStringLiteral("0"));
      const auto it = ranges.find(p.toStdString());
      if (it == ranges.end()) continue;
      const auto& r = it->second;
      if (auto* d = qobject_cast<QDoubleSpinBox*>(f); d && d->specialValueText().isEmpty()) {
        QVERIFY2(d->maximum() >= r.max && d->maximum() <= std::max(r.max, d->value()),
                 qPrintable(p));
        QVERIFY2(d->minimum() >= r.min || d->minimum() == d->value(), qPrintable(p));
        if (!r.min_exclusive)
          QVERIFY2(d->minimum() - std::pow(10.0, -d->decimals()) < r.min ||
                       d->minimum() == d->value(),
                   qPrintable(p));
        ++checked;
      } else if (auto* i = qobject_cast<QSpinBox*>(f); i && i->specialValueText().isEmpty()) {
        const double hi = std::min(r.max, 2147483647.0);
        QVERIFY2(i->maximum() == std::max(static_cast<double>(i->value()), hi) ||
                     i->maximum() == static_cast<int>(hi),
                 qPrintable(p));
        QVERIFY2(i->minimum() >= r.min || i->minimum() == i->value(), qPrintable(p));
        ++checked;
      }
    }
    QVERIFY2(checked >= 40, qPrintable(QString::number(checked)));
    // A few by name, against perf/limits.hpp.
    QCOMPARE(field<QDoubleSpinBox>(w, "dramClockSpin")->maximum(),
             stackscope::perf::limits::kMaxMemoryClockMHz);
  }

  // View > Theme > Dark: a dark palette, dark plot backgrounds with light labels, and the
  // choice persisted; Light brings the light look back.
  void darkThemeApplies() {
    MainWindow w;
    w.show();
    auto* dark = w.findChild<QAction*>(QStringLiteral("theme_dark"));
    QVERIFY(dark);
    dark->trigger();
    QVERIFY(theme::isDark());
    QCOMPARE(theme::current(), theme::Mode::dark);
    QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
    for (QCustomPlot* plot : w.findChildren<QCustomPlot*>()) {
      QVERIFY(plot->xAxis->tickLabelColor().lightness() > 150);
      const QImage img = plot->toPixmap(200, 150).toImage();
      QVERIFY2(img.pixelColor(2, 2).lightness() < 80, qPrintable(plot->objectName()));
    }
    QVERIFY(w.styleSheet().contains(QStringLiteral("#262b33")));
    w.findChild<QAction*>(QStringLiteral("theme_light"))->trigger();
    QVERIFY(!theme::isDark());
    for (QCustomPlot* plot : w.findChildren<QCustomPlot*>())
      QVERIFY(plot->toPixmap(200, 150).toImage().pixelColor(2, 2).lightness() > 200);
    w.findChild<QAction*>(QStringLiteral("theme_system"))->trigger();
    QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("system"));
  }
};

QTEST_MAIN(EditorsTest)
#include "editors_test.moc"
