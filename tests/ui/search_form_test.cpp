// SPDX-License-Identifier: GPL-3.0-or-later
// The search-space form: every search preset loads with the core's
// point count; range edits change the count; bad values are reported on their row and Run is
// refused; form -> JSON -> parse and JSON -> form agree; a saved space loads again and runs in
// `stackscope-cli search`; a search of a form-edited space finds a frontier; edits undo and redo
// (one step per edit, same-field edits merge, loads clear the history). Also renders the form
// (light, dark, with problems) to PNG for a look.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <sstream>

#include "stackscope/cli/command.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/plot_hint.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/space_editor.hpp"
#include "stackscope/ui/theme.hpp"

using stackscope::ui::SearchPanel;
using stackscope::ui::SpaceEditor;
namespace io = stackscope::io;
namespace search = stackscope::search;

class SearchFormTest : public QObject {
  Q_OBJECT

  io::PresetRegistry presets_;

  static int row(const SpaceEditor& e, const char* knob) {
    for (int r = 0; r < e.axisCount(); ++r)
      if (e.axisKnob(r) == QLatin1String(knob)) return r;
    return -1;
  }
  search::Count coreCount(const QString& text) {
    const auto sp = io::parse_search_project(text.toStdString(), presets_);
    return search::CompiledSpace(sp.space).size();
  }

 private slots:
  void initTestCase() { presets_.register_builtins(); }

  void everyPresetShowsTheCoresPointCount() {
    SpaceEditor e(presets_);
    const auto list = presets_.list(io::PresetKind::search);
    QVERIFY(!list.empty());
    for (const auto& p : list) {
      QString error;
      QVERIFY2(e.loadPreset(QString::fromStdString(p.id), &error), qPrintable(error));
      QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
      const auto sp = io::resolve_search_project(p.id, presets_);
      const search::CompiledSpace core(sp.space);
      QCOMPARE(search::to_string(e.compiled()->size()), search::to_string(core.size()));
      QCOMPARE(e.axisCount(), static_cast<int>(sp.space.hardware.size()));
      for (int r = 0; r < e.axisCount(); ++r)
        QCOMPARE(e.axisCountShown(r),
                 static_cast<int>(sp.space.hardware[static_cast<std::size_t>(r)].values.size()));
      QVERIFY(e.sizeText().contains(stackscope::ui::pointsText(core.size())));
      // Unedited, the JSON view shows the preset as written.
      QCOMPARE(e.jsonEditor()->toPlainText(),
               QString::fromStdString(presets_.json_text(io::PresetKind::search, p.id)));
    }
    QCOMPARE(stackscope::ui::pointsText(search::Count{4752}), QStringLiteral("4,752 points"));
    QCOMPARE(stackscope::ui::pointsText(search::Count{1790470656000}),
             QStringLiteral("1.79·10¹² points"));
  }

  void changingARangeChangesTheCount() {
    SpaceEditor e(presets_);
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("mixtral-hdmoe-mesh"), &error));
    const search::Count before = e.compiled()->size();
    const int clock = row(e, "memory.clock_MHz");
    QVERIFY(clock >= 0);
    QCOMPARE(e.axisCountShown(clock), 3);
    e.setAxisRange(clock, 800, 2000, 400, 0);  // 800, 1200, 1600, 2000
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QCOMPARE(e.axisCountShown(clock), 4);
    // The clock leaves the schedules of a hardware point alone: the count grows by 4/3.
    QCOMPARE(search::to_string(e.compiled()->size()), search::to_string(before / 3 * 4));
    QCOMPARE(search::to_string(coreCount(e.projectText())),
             search::to_string(e.compiled()->size()));
    // A geometric range, and removing and adding axes.
    const int bw = row(e, "system.link_bw_scale");
    e.setAxisRange(bw, 0.25, 4, 0, 2);  // 0.25 .. 4: 5 values
    e.flush();
    QCOMPARE(e.axisCountShown(bw), 5);
    e.removeAxis(row(e, "system.latency_scale"));
    e.flush();
    QCOMPARE(row(e, "system.latency_scale"), -1);
    e.addAxis(QStringLiteral("compute.cores"));
    e.setAxisList(row(e, "compute.cores"), QStringLiteral("32, 64"));
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    const auto sp = io::parse_search_project(e.projectText().toStdString(), presets_);
    QCOMPARE(sp.space.hardware.back().knob, std::string("compute.cores"));
    QCOMPARE(sp.space.hardware.back().values, (std::vector<double>{32, 64}));
    QCOMPARE(search::to_string(coreCount(e.projectText())),
             search::to_string(e.compiled()->size()));
  }

  void badValuesAreReportedOnTheirRowAndRunIsRefused() {
    SearchPanel panel(presets_);
    SpaceEditor& e = *panel.spaceEditor();
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("deepseek-v3-deepstack"), &error));
    auto* run = panel.findChild<QPushButton*>(QStringLiteral("searchRun"));
    QVERIFY(run && run->isEnabled());
    const int cores = row(e, "compute.cores");
    e.setAxisList(cores, QStringLiteral("64, -2"));  // a negative core count
    e.flush();
    QVERIFY(!e.valid());
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("out of range for compute.cores")),
             qPrintable(e.axisProblem(cores)));
    // The knob's allowed range with its unit (upper bound: perf::limits::kMaxCores).
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("integer in [1, ")) &&
                 e.axisProblem(cores).contains(QStringLiteral("] (cores)")),
             qPrintable(e.axisProblem(cores)));
    const QString all = e.problems().join('\n');
    QVERIFY2(all.contains(QStringLiteral("/search/hardware/%1/values/1").arg(cores)),
             qPrintable(all));
    QVERIFY(!run->isEnabled());
    QVERIFY(!panel.findChild<QPushButton*>(QStringLiteral("searchRunFromForm"))->isEnabled());
    QVERIFY(!panel.start(QString(), &error));
    QVERIFY2(error.contains(QStringLiteral("compute.cores")), qPrintable(error));
    auto* text = e.findChild<QLabel*>(QStringLiteral("spaceProblems"));
    QVERIFY(text && !text->isHidden() && text->text().contains(QStringLiteral("compute.cores")));
    // A fraction for an integer knob; something that is not a number.
    e.setAxisList(cores, QStringLiteral("64, 96.5"));
    e.flush();
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("integer in [1, ")),
             qPrintable(e.axisProblem(cores)));
    e.setAxisList(cores, QStringLiteral("64, x"));
    e.flush();
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("'x' is not a number")),
             qPrintable(e.axisProblem(cores)));
    // An empty range.
    e.setAxisRange(cores, 128, 64, 32, 0);
    e.flush();
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("min <= max")) ||
                 e.axisProblem(cores).contains(QStringLiteral("from <= to")),
             qPrintable(e.axisProblem(cores)));
    // Ranges too long to expand are refused before they allocate.
    e.setAxisRange(cores, 1, 1e9, 1e-3, 0);
    e.flush();
    QVERIFY2(e.axisProblem(cores).contains(QStringLiteral("at most 1048576")),
             qPrintable(e.axisProblem(cores)));
    e.setAxisRange(cores, 1, 1e9, 0, 1.0000001);
    e.flush();
    QVERIFY(e.axisProblem(cores).contains(QStringLiteral("at most 1048576")));
    e.setAxisList(cores, QStringLiteral("64, 128"));
    // Schedule axes: a fraction (form) and a degree below 1 (the parser).
    e.setScheduleList(QStringLiteral("tp"), QStringLiteral("1, 2.5"));
    e.flush();
    QVERIFY(e.scheduleProblem(QStringLiteral("tp")).contains(QStringLiteral("whole number")));
    e.setScheduleList(QStringLiteral("tp"), QStringLiteral("0, 2"));
    e.flush();
    QVERIFY2(e.scheduleProblem(QStringLiteral("tp")).contains(QStringLiteral("in [1, ")),
             qPrintable(e.scheduleProblem(QStringLiteral("tp"))));
    QVERIFY(e.axisProblem(cores).isEmpty());
    e.setScheduleList(QStringLiteral("tp"), QStringLiteral("1, 2, 4"));
    // No overlap mode at all.
    QList<QCheckBox*> overlap;
    for (int i = 0; i < 3; ++i)
      overlap << e.findChild<QCheckBox*>(QStringLiteral("overlap_%1").arg(i));
    for (auto* b : overlap) b->setChecked(false);
    e.flush();
    QVERIFY(!e.valid());
    QVERIFY2(e.problems().join('\n').contains(QStringLiteral("Overlap, /search/overlap")),
             qPrintable(e.problems().join('\n')));
    overlap[0]->setChecked(true);
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QVERIFY(run->isEnabled());
  }

  void formAndJsonStayInSync() {
    SpaceEditor e(presets_);
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("1, 8, 64"));
    e.addAxis(QStringLiteral("system.link_bw_scale"));  // 0.5, 1, 2 to start with
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    // Form -> JSON: the view shows the text, the text parses to the form's space.
    QCOMPARE(e.jsonEditor()->toPlainText(), e.projectText());
    const auto sp = io::parse_search_project(e.projectText().toStdString(), presets_);
    QCOMPARE(sp.space.inner.batch, (std::vector<int>{1, 8, 64}));
    QCOMPARE(sp.space.hardware.back().values, (std::vector<double>{0.5, 1, 2}));
    QCOMPARE(sp.space.variants.size(), std::size_t{2});
    QVERIFY(e.projectText().contains(QStringLiteral("\"hardware\": \"h100-sxm\"")));
    QCOMPARE(search::to_string(search::CompiledSpace(sp.space).size()),
             search::to_string(e.compiled()->size()));
    // JSON -> form: an edited constraint and objective reach the form when the text parses.
    QString text = e.projectText();
    text.replace(QStringLiteral("\"tpot_slo_s\": 0.05"), QStringLiteral("\"tpot_slo_s\": 0.1"));
    text.replace(QStringLiteral("\"energy_per_token_j\""), QStringLiteral("\"ttft_s\""));
    e.jsonEditor()->setPlainText(text);
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QCOMPARE(e.compiled()->space().constraints.tpot_slo_s, 0.1);
    QCOMPARE(e.compiled()->space().objectives.back().metric, search::Metric::ttft_s);
    auto* tpot = e.findChild<QDoubleSpinBox*>(QStringLiteral("constraintValue_tpot_slo_s"));
    QVERIFY(tpot);
    QCOMPARE(tpot->value(), 100.0);  // shown in ms
    // A text that does not parse: the form keeps its state, the problem has its path.
    e.jsonEditor()->setPlainText(QString(text).replace(QStringLiteral("\"batch\": [1, 8, 64]"),
                                                       QStringLiteral("\"bacth\": [1, 8, 64]")));
    e.flush();
    QVERIFY(!e.valid());
    QVERIFY2(e.problems().join('\n').contains(QStringLiteral("/search/bacth")),
             qPrintable(e.problems().join('\n')));
    // An edit of the form writes the JSON again from the last text that parsed.
    tpot->setValue(40);
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QCOMPARE(e.compiled()->space().constraints.tpot_slo_s, 0.04);
    QVERIFY(e.projectText().contains(QStringLiteral("\"tpot_slo_s\": 0.04")));
  }

  // Values the form shows rounded (spin boxes) keep the file's exact number until edited.
  void untouchedValuesKeepTheirExactNumbers() {
    SpaceEditor e(presets_);
    QString text = QString::fromStdString(
        presets_.json_text(io::PresetKind::search, "llama-3-70b-gpu-vs-stacked"));
    text.replace(QStringLiteral("\"tpot_slo_s\": 0.05"),
                 QStringLiteral("\"tpot_slo_s\": 0.0123456"));
    QString error;
    QVERIFY2(e.setProjectText(text, QStringLiteral("test"), &error), qPrintable(error));
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("4, 16"));
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QCOMPARE(e.compiled()->space().constraints.tpot_slo_s, 0.0123456);
    QVERIFY(e.projectText().contains(QStringLiteral("\"tpot_slo_s\": 0.0123456")));
  }

  void savedSpaceLoadsAndRunsInTheCli() {
    SpaceEditor e(presets_);
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    e.setAxisList(row(e, "devices"), QStringLiteral("8"));
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("16, 64"));
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    const std::string size = search::to_string(e.compiled()->size());
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("space.json"));
    QVERIFY2(e.saveFile(file, &error), qPrintable(error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("space.json")});
    SpaceEditor again(presets_);
    QVERIFY2(again.loadFile(file, &error), qPrintable(error));
    QCOMPARE(search::to_string(again.compiled()->size()), size);
    QCOMPARE(again.projectText(), e.projectText());
    // stackscope-cli search FILE (in-process: the CLI is a library).
    stackscope::cli::CommandRegistry commands;
    stackscope::cli::register_builtins(commands);
    const std::vector<std::string> args{"search", file.toStdString(), "--threads", "1", "--json"};
    std::ostringstream out, err;
    QCOMPARE(stackscope::cli::run(commands, args, out, err), 0);
    QVERIFY2(out.str().find("\"space_size\": \"" + size + "\"") != std::string::npos,
             out.str().c_str());
    QVERIFY(out.str().find("\"complete\": true") != std::string::npos);
    // A space with problems is not saved.
    e.setScheduleList(QStringLiteral("tp"), QStringLiteral("0"));
    QVERIFY(!e.saveFile(dir.filePath(QStringLiteral("bad.json")), &error));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("bad.json"))));
  }

  void searchOfAFormEditedSpaceFindsAFrontier() {
    SearchPanel panel(presets_);
    SpaceEditor& e = *panel.spaceEditor();
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    e.setAxisList(row(e, "devices"), QStringLiteral("8, 16"));
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("8, 32, 128"));
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    const search::Count size = e.compiled()->size();
    QVERIFY2(panel.start(QString(), &error, 2), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.running(), 60000);
    QCOMPARE(search::to_string(panel.progress().total), search::to_string(size));
    QCOMPARE(panel.progress().evaluated + panel.progress().pruned,
             static_cast<std::uint64_t>(size));
    QVERIFY(panel.frontier().size() > 0);
    for (const auto& p : panel.frontier().points()) {
      QVERIFY(p.batch == 8 || p.batch == 32 || p.batch == 128);
      QVERIFY(p.devices == 8 || p.devices == 16);
    }
  }

  // A chosen frontier point is ringed on the plot; the frontier on show is the searched space's:
  // editing the space (or loading another) clears it and says to run again, so no frontier
  // stands under a space it was not found in.
  void changingTheSpaceClearsTheLastRunsFrontier() {
    SearchPanel panel(presets_);
    SpaceEditor& e = *panel.spaceEditor();
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    e.setAxisList(row(e, "devices"), QStringLiteral("8"));
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("8, 32"));
    e.flush();
    QVERIFY2(panel.start(QString(), &error, 2), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.running(), 60000);
    QVERIFY(panel.frontier().size() > 0);
    // Choosing a frontier point loads it (designChosen) and rings it on the plot.
    QSignalSpy chosen(&panel, &SearchPanel::designChosen);
    panel.choose(0);
    QCOMPARE(chosen.count(), 1);
    auto* mark = panel.plot()->findChild<QCPGraph*>(QStringLiteral("chosenPoint"));
    QVERIFY(mark);
    QCOMPARE(mark->dataCount(), 1);
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("8, 64"));
    e.flush();
    QCOMPARE(panel.frontier().size(), std::size_t{0});
    QVERIFY(!panel.plot()->findChild<QCPGraph*>(QStringLiteral("chosenPoint")));
    QVERIFY(stackscope::ui::shownHint(panel.plot()).contains(QStringLiteral("space changed")));
  }

  // Picking another preset over an edited space asks first; "No" keeps the edits.
  void anEditedSpaceIsNotDiscardedUnasked() {
    SearchPanel panel(presets_);
    SpaceEditor& e = *panel.spaceEditor();
    auto* box = panel.findChild<QComboBox*>(QStringLiteral("searchPreset"));
    QVERIFY(box && box->count() > 1);
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("4"));
    e.flush();
    QVERIFY(e.edited());
    const QString text = e.projectText();
    const int was = box->currentIndex();
    const auto answer = [](QMessageBox::StandardButton b) {
      QTimer::singleShot(0, [b] {
        if (auto* m = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
          m->button(b)->click();
      });
    };
    answer(QMessageBox::No);
    box->setCurrentIndex((was + 1) % box->count());
    QCOMPARE(box->currentIndex(), was);
    QCOMPARE(e.projectText(), text);
    answer(QMessageBox::Yes);
    box->setCurrentIndex((was + 1) % box->count());
    QCOMPARE(box->currentIndex(), (was + 1) % box->count());
    QVERIFY(!e.edited());
    QCOMPARE(e.origin(), box->currentData().toString());
  }

  // Undo and redo of the form (docs/architecture.md §6: forms bound to a document with undo).
  void formEditsUndoAndRedo() {
    SearchPanel panel(presets_);
    SpaceEditor& e = *panel.spaceEditor();
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("mixtral-hdmoe-mesh"), &error));
    QUndoStack* stack = e.undoStack();
    QVERIFY(stack);
    QCOMPARE(stack->count(), 0);
    auto* undo = e.findChild<QPushButton*>(QStringLiteral("spaceUndo"));
    auto* redo = e.findChild<QPushButton*>(QStringLiteral("spaceRedo"));
    auto* run = panel.findChild<QPushButton*>(QStringLiteral("searchRun"));
    QVERIFY(undo && redo && run);
    QVERIFY(!undo->isEnabled() && !redo->isEnabled());
    const QString preset = e.projectText();
    const std::string presetSize = search::to_string(e.compiled()->size());
    const auto size = [&] { return search::to_string(e.compiled()->size()); };

    // A range edit is one step; undo brings back the preset's text, form and count.
    const int clock = row(e, "memory.clock_MHz");
    e.setAxisRange(clock, 800, 2000, 400, 0);
    e.flush();
    QCOMPARE(stack->count(), 1);
    QCOMPARE(stack->undoText(), QStringLiteral("change to memory.clock_MHz"));
    QVERIFY(undo->isEnabled() && !redo->isEnabled());
    QVERIFY2(undo->toolTip().startsWith(QStringLiteral("Undo change to memory.clock_MHz (")),
             qPrintable(undo->toolTip()));
    const QString edited = e.projectText();
    const std::string editedSize = size();
    QVERIFY(edited != preset);
    QVERIFY(editedSize != presetSize);
    QCOMPARE(e.axisCountShown(clock), 4);
    undo->click();
    QCOMPARE(e.projectText(), preset);
    QCOMPARE(e.jsonEditor()->toPlainText(), preset);
    QCOMPARE(size(), presetSize);
    QCOMPARE(e.axisCountShown(clock), 3);
    QVERIFY(!e.edited());
    QVERIFY(!undo->isEnabled() && redo->isEnabled());
    QVERIFY(redo->toolTip().startsWith(QStringLiteral("Redo change to memory.clock_MHz")));
    QCOMPARE(stack->count(), 1);  // undo and redo make no steps of their own
    redo->click();
    QCOMPARE(e.projectText(), edited);
    QCOMPARE(e.jsonEditor()->toPlainText(), edited);
    QCOMPARE(size(), editedSize);
    QCOMPARE(e.axisCountShown(clock), 4);
    QVERIFY(e.edited());
    QCOMPARE(stack->count(), 1);

    // Two more edits of the same row merge into that step; another field is a step of its own.
    e.setAxisList(clock, QStringLiteral("800, 1600"));
    e.flush();
    e.setAxisList(clock, QStringLiteral("800"));
    e.flush();
    QCOMPARE(stack->count(), 1);
    QCOMPARE(e.axisCountShown(clock), 1);
    e.setScheduleList(QStringLiteral("batch"), QStringLiteral("4, 16"));
    e.flush();
    QCOMPARE(stack->count(), 2);
    QCOMPARE(stack->undoText(), QStringLiteral("change to batch"));
    const QString twoSteps = e.projectText();
    stack->undo();
    stack->undo();
    QCOMPARE(e.projectText(), preset);
    QCOMPARE(e.axisCountShown(clock), 3);
    stack->redo();
    stack->redo();
    QCOMPARE(e.projectText(), twoSteps);
    QCOMPARE(e.axisCountShown(clock), 1);

    // An edit with problems is in no step (its text does not parse): Run is refused, and undo
    // returns to the last space without problems.
    e.setScheduleList(QStringLiteral("tp"), QStringLiteral("0"));
    e.flush();
    QVERIFY(!e.valid());
    QVERIFY(!run->isEnabled());
    QCOMPARE(stack->count(), 2);
    QVERIFY(undo->isEnabled());
    QVERIFY2(undo->toolTip().contains(QStringLiteral("problems")), qPrintable(undo->toolTip()));
    undo->click();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QVERIFY(run->isEnabled());
    QCOMPARE(e.projectText(), twoSteps);
    QVERIFY(e.scheduleProblem(QStringLiteral("tp")).isEmpty());
    QCOMPARE(stack->index(), 2);

    // Adding an axis (values typed right after) is one step; undo removes the row.
    const int axes = e.axisCount();
    e.addAxis(QStringLiteral("compute.cores"));
    e.setAxisList(row(e, "compute.cores"), QStringLiteral("32, 64"));
    e.flush();
    QVERIFY2(e.valid(), qPrintable(e.problems().join('\n')));
    QCOMPARE(stack->count(), 3);
    QCOMPARE(stack->undoText(), QStringLiteral("add axis compute.cores"));
    const std::string withCores = size();
    undo->click();
    QCOMPARE(e.axisCount(), axes);
    QCOMPARE(row(e, "compute.cores"), -1);
    QCOMPARE(e.projectText(), twoSteps);
    redo->click();
    QCOMPARE(e.axisCount(), axes + 1);
    QCOMPARE(e.axisCountShown(row(e, "compute.cores")), 2);
    QCOMPARE(size(), withCores);
    // Removing one is a step too.
    e.removeAxis(row(e, "compute.cores"));
    e.flush();
    QCOMPARE(stack->undoText(), QStringLiteral("remove axis compute.cores"));
    stack->undo();
    QCOMPARE(row(e, "compute.cores"), axes);

    // A constraint and a run option: steps named by their keys.
    auto* power = e.findChild<QCheckBox*>(QStringLiteral("constraint_max_power_W"));
    QVERIFY(power);
    const bool had = power->isChecked();
    power->setChecked(!had);
    e.flush();
    QCOMPARE(stack->undoText(), QStringLiteral("change to max_power_W"));
    stack->undo();
    QCOMPARE(power->isChecked(), had);
    auto* strategy = e.findChild<QComboBox*>(QStringLiteral("searchStrategy"));
    strategy->setCurrentIndex((strategy->currentIndex() + 1) % strategy->count());
    e.flush();
    QCOMPARE(stack->undoText(), QStringLiteral("change to strategy"));

    // Loading another preset clears the history.
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    QCOMPARE(stack->count(), 0);
    QVERIFY(!undo->isEnabled() && !redo->isEnabled());
    QVERIFY(!e.edited());
  }

  // A JSON edit that parses is a step; its undo reloads the form.
  void jsonEditsUndo() {
    SpaceEditor e(presets_);
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("llama-3-70b-gpu-vs-stacked"), &error));
    const QString preset = e.projectText();
    auto* tpot = e.findChild<QDoubleSpinBox*>(QStringLiteral("constraintValue_tpot_slo_s"));
    QVERIFY(tpot);
    QCOMPARE(tpot->value(), 50.0);
    const int batchRows = e.axisCount();
    QString text = preset;
    text.replace(QStringLiteral("\"tpot_slo_s\": 0.05"), QStringLiteral("\"tpot_slo_s\": 0.1"));
    QVERIFY(text != preset);
    e.jsonEditor()->setPlainText(text);
    e.flush();
    QCOMPARE(tpot->value(), 100.0);
    QCOMPARE(e.undoStack()->count(), 1);
    QCOMPARE(e.undoStack()->undoText(), QStringLiteral("edit of the JSON"));
    // A text that does not parse is no step.
    e.jsonEditor()->setPlainText(text + QStringLiteral("}"));
    e.flush();
    QVERIFY(!e.valid());
    QCOMPARE(e.undoStack()->count(), 1);
    e.jsonEditor()->setPlainText(text);
    e.flush();
    QCOMPARE(e.undoStack()->count(), 1);
    e.undoStack()->undo();
    QCOMPARE(tpot->value(), 50.0);
    QCOMPARE(e.projectText(), preset);
    QCOMPARE(e.jsonEditor()->toPlainText(), preset);
    QCOMPARE(e.axisCount(), batchRows);
    QVERIFY(e.valid());
    e.undoStack()->redo();
    QCOMPARE(tpot->value(), 100.0);
    QCOMPARE(e.jsonEditor()->toPlainText(), text);
    // Ctrl+Z in the form's window (focus outside a text field) undoes; Ctrl+Shift+Z redoes.
    e.show();
    QVERIFY(QTest::qWaitForWindowActive(&e));
    auto* strategy = e.findChild<QComboBox*>(QStringLiteral("searchStrategy"));
    strategy->setFocus();
    QTest::keyClick(strategy, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(tpot->value(), 50.0);
    QTest::keyClick(strategy, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(tpot->value(), 100.0);
  }

  // The form in its window, as the user sees it: light, dark, and with a problem on a row.
  void rendersInBothThemes() {
    stackscope::ui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    auto* panel = w.findChild<SearchPanel*>(QStringLiteral("searchPanel"));
    QVERIFY(panel);
    auto* edit = panel->findChild<QPushButton*>(QStringLiteral("searchEditSpace"));
    QVERIFY(edit);
    edit->setChecked(true);
    auto* window = panel->findChild<QWidget*>(QStringLiteral("searchSpaceWindow"));
    QVERIFY(window && window->isVisible());
    SpaceEditor& e = *panel->spaceEditor();
    QString error;
    QVERIFY(e.loadPreset(QStringLiteral("deepseek-v3-deepstack"), &error));
    const QString out = QStringLiteral(STACKSCOPE_BINARY_DIR "/search-form");
    QDir().mkpath(out);
    const auto grab = [&](const QString& name) {
      for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
      const QImage img = window->grab().toImage();
      QVERIFY(!img.isNull() && img.width() > 600 && img.height() > 400);
      QVERIFY(img.save(out + '/' + name));
    };
    grab(QStringLiteral("search-form.png"));
    // The whole form at its full height (the window shows part of it).
    const auto grabAll = [&](const QString& name) {
      auto* contents = e.findChild<QWidget*>(QStringLiteral("spaceFormContents"));
      QVERIFY(contents);
      contents->resize(contents->width(), contents->sizeHint().height());
      QVERIFY(contents->grab().toImage().save(out + '/' + name));
    };
    grabAll(QStringLiteral("search-form-all.png"));
    e.setAxisList(row(e, "compute.cores"), QStringLiteral("64, -2, 128"));
    e.flush();
    grab(QStringLiteral("search-form-problem.png"));
    e.addAxis(QStringLiteral("memory.stacks"));  // a new axis waits for its values
    e.flush();
    grab(QStringLiteral("search-form-new-axis.png"));
    e.removeAxis(row(e, "memory.stacks"));
    w.setTheme(stackscope::ui::theme::Mode::dark);
    grab(QStringLiteral("search-form-dark-problem.png"));
    grabAll(QStringLiteral("search-form-all-dark.png"));
    e.setAxisList(row(e, "compute.cores"), QStringLiteral("64, 128"));
    auto* json = e.findChild<QPushButton*>(QStringLiteral("spaceJsonToggle"));
    json->setChecked(true);
    window->resize(1520, 760);  // as on a real screen (the offscreen one is 800 px wide)
    e.flush();
    grab(QStringLiteral("search-form-dark-json.png"));
    w.setTheme(stackscope::ui::theme::Mode::light);
  }
};

QTEST_MAIN(SearchFormTest)
#include "search_form_test.moc"
