// SPDX-License-Identifier: GPL-3.0-or-later
// The form editors: every page edits the design through the ConfigDocument (one undo step per
// field, merged while the same field is edited), derived stack quantities follow the model,
// validation issues land on the field their JSON pointer names, and the dark theme restyles
// the window and its plots.
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QToolBox>
#include <QtTest>

#include "stackscope/parallel/plan.hpp"
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
    QVERIFY(table->item(0, 1)->text().endsWith(QStringLiteral(" GiB")));
    QVERIFY(table->item(0, 3)->text().endsWith(QStringLiteral(" GB/s")));
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

  // An HBM device has no stack: the page is disabled and says why.
  void hbmDeviceDisablesTheStackPage() {
    MainWindow w;
    QVERIFY(w.openPreset(QStringLiteral("default")));  // H100 SXM, HBM3
    QVERIFY(!field<QWidget>(w, "stackFields")->isEnabled());
    QVERIFY(field<QLabel>(w, "stackNote")->text().contains(QStringLiteral("HBM")));
    auto* hardware = field<QComboBox>(w, "hardwareCombo");
    hardware->setCurrentIndex(hardware->findData(QStringLiteral("deepstack-3d")));
    QVERIFY(field<QWidget>(w, "stackFields")->isEnabled());
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
    QVERIFY(fields >= 50);
    QCOMPARE(field<QSpinBox>(w, "tpSpin")->minimum(), 1);
    QCOMPARE(field<QSpinBox>(w, "overlapTilesSpin")->maximum(), 1024);
    QCOMPARE(field<QDoubleSpinBox>(w, "matmulEffSpin")->maximum(), 1.0);
    QVERIFY(field<QDoubleSpinBox>(w, "clockSpin")->suffix().contains(QStringLiteral("GHz")));
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
