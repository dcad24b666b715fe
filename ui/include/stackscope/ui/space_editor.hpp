// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The search-space form: the space's hardware axes (knobs of the core's
// registry, search::knobs()), the schedule axes (parallel degrees, sequence parallelism, batch,
// overlap), constraints, objectives and run options, each axis an explicit list or a range.
// Every edit is checked by the real parser and compiler (io::parse_search_project, then
// search::CompiledSpace) a moment later; problems are shown on their row (red tint, tooltip)
// and as text with what, where and the allowed range. The JSON the form stands for is written
// by core/io (io::replace_search_section) and shown in an optional JSON view; editing that text
// reloads the form whenever it parses. Save writes the JSON atomically; the CLI reads it.
// Undo (docs/architecture.md §6): every edit that leaves a text that
// parses is one step of a QUndoStack holding the text before and after; edits of one field in a
// row merge; undo and redo reload the form from the text. Loading a preset or file clears it.
#include <QHash>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/search/space.hpp"

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QStackedWidget;
class QUndoStack;
class QVBoxLayout;

namespace stackscope::ui {

class SpaceEditor : public QWidget {
  Q_OBJECT
 public:
  explicit SpaceEditor(const io::PresetRegistry& presets, QWidget* parent = nullptr);
  ~SpaceEditor() override;

  // Loads a search project (a preset's text, a file's) into the form; the JSON view shows the
  // text as given. False, with the parser's issues in *error, when it does not parse (the form
  // keeps what it had).
  bool setProjectText(const QString& text, const QString& origin, QString* error);
  bool loadPreset(const QString& id, QString* error);
  bool loadFile(const QString& file, QString* error);
  // Writes projectText() atomically (io::save_text_atomic). Refuses an invalid space.
  bool saveFile(const QString& file, QString* error);

  // Applies pending edits (of the form or of the JSON text) and validates now; edits otherwise
  // validate after a short pause.
  void flush();
  // The project JSON the form stands for: what Run searches and Save writes.
  QString projectText() const { return text_; }
  // Where the space came from: a preset id, a file, or "" (plus whether it was edited since).
  QString origin() const { return origin_; }
  bool edited() const { return edited_; }
  // True when projectText() parses and compiles.
  bool valid() const { return compiled_ != nullptr && problems_.isEmpty(); }
  // "what (where; got; allowed)" lines, one per problem.
  QStringList problems() const { return problems_; }
  std::shared_ptr<const search::CompiledSpace> compiled() const { return compiled_; }
  // Options from the file (strategy, seed, samples...) plus the run-only limits of the form.
  search::RunOptions runOptions() const;
  // "1.79·10¹² points", or why there is no count.
  QString sizeText() const;

  // For tests: hardware axis rows, in order, and their value editors.
  int axisCount() const { return static_cast<int>(hw_.size()); }
  QString axisKnob(int row) const;
  // Sets the row's values as list text ("1, 2, 4") or as a range (factor > 0: geometric).
  void setAxisList(int row, const QString& text);
  void setAxisRange(int row, double min, double max, double step, double factor);
  // The row's problem text ("" when fine).
  QString axisProblem(int row) const;
  // The per-axis value count shown on the row.
  int axisCountShown(int row) const;
  void addAxis(const QString& knob);
  void removeAxis(int row);
  // Schedule-axis rows by key ("tp", "pp", ..., "batch").
  void setScheduleList(const QString& key, const QString& text);
  QString scheduleProblem(const QString& key) const;
  QPlainTextEdit* jsonEditor() const { return json_; }
  // The edit history of the loaded space (cleared by every load). Its steps' texts all parse.
  QUndoStack* undoStack() const { return undo_; }
  // The Undo and Redo buttons' actions (Ctrl+Z, Ctrl+Shift+Z in the form's window). Undo first
  // applies pending edits; edits with problems, which are in no step, are undone back to the
  // last text that parsed.
  void undo();
  void redo();

 signals:
  // After every validation (valid() or problems() may have changed).
  void spaceChanged();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  // One list-or-range editor (a hardware knob or a schedule axis).
  struct AxisRow {
    QString key;  // knob name, or "tp", "pp", ..., "batch"
    bool integer = false;
    bool indexAxis = false;  // variant / model: values fixed by the file
    int current = 0;         // the mode the editors hold values in (list, linear, geometric)
    QWidget* rowWidgets[5] = {};
    QLabel* name = nullptr;
    QComboBox* mode = nullptr;  // list, linear range, geometric range
    QStackedWidget* pages = nullptr;
    QLineEdit* list = nullptr;
    QLineEdit* from = nullptr;
    QLineEdit* to = nullptr;
    QLineEdit* step = nullptr;
    QLabel* stepLabel = nullptr;
    QLabel* count = nullptr;
    QPushButton* remove = nullptr;
    QString baseTip;
    QString problem;
    std::vector<double> fixedValues;  // index axes
  };
  struct ObjectiveRow {
    QComboBox* metric = nullptr;
    QComboBox* direction = nullptr;
    QPushButton* remove = nullptr;
    QString problem;
  };
  struct ConstraintRow {
    QString key;
    double scale = 1;   // shown value = file value x scale
    double loaded = 0;  // what the spin box showed after loading (the file value, rounded)
    QCheckBox* on = nullptr;
    QDoubleSpinBox* spin = nullptr;
    QString problem;
  };

  // The form's groups and panes (space_editor_form.cpp), each built once by the constructor.
  QGroupBox* buildHardwareAxes(QWidget* form);
  QGroupBox* buildScheduleAxes(QWidget* form);
  QGroupBox* buildConstraints(QWidget* form);
  QGroupBox* buildObjectives(QWidget* form);
  QGroupBox* buildRunOptions(QWidget* form);
  // The total, the problems and the file and undo buttons under the form.
  void buildFooter(QWidget* left, QVBoxLayout* leftBox);
  // The JSON view beside the form (hidden until asked for).
  void buildJsonView(QSplitter* split);
  AxisRow* makeAxisRow(QGridLayout* grid, int r, const QString& key, bool removable);
  void setRowValues(AxisRow& row, const std::vector<double>& values);
  // The row's values; false + row.problem when its text is not numbers or the range is empty.
  bool rowValues(AxisRow& row, std::vector<double>& out);
  void layoutHardware();
  void addObjective(search::Objective o);
  void refreshAddCombo();
  void loadForm(const io::SearchProject& sp);
  // A form edit of `field` (a knob, "tp", "max_power_W", ...; "" = not in the file): recorded
  // as one undo step when the text next parses. Edits of one mergeable field in a row merge.
  void edit(const QString& field, const QString& label = QString(), bool mergeable = true);
  void formEdited();
  void jsonEdited();
  // Forgets the compiled space and every row's problem (before a re-validation).
  void clearProblems();
  void applyForm();
  void applyJson();
  void compile(const io::SearchProject& sp);
  // Shows a text that parsed as `sp`: form, JSON view, counts, problems; emits spaceChanged.
  void showText(const QString& text, const io::SearchProject& sp);
  // Pushes the pending edits as one step from `before` to baseText_ (none when equal).
  void record(const QString& before);
  // Undo/redo: shows a text of the history without recording a step.
  void restore(const QString& text);
  void refreshUndo();
  void place(const std::vector<Issue>& issues);
  void showProblems();
  void paintRow(QWidget* w, bool bad, const QString& problem, const QString& baseTip);

  const io::PresetRegistry& presets_;
  io::SearchProject base_;  // the last space that parsed: base design, variants, models
  QString baseText_;        // its text
  QString text_;            // projectText()
  QString origin_;
  bool edited_ = false;
  bool loading_ = false;
  bool repainting_ = false;
  bool widened_ = false;
  bool formDirty_ = false, jsonDirty_ = false;
  QTimer debounce_;
  // The edits since the last recorded step: one field (mergeable), or "*" for several.
  struct Pending {
    QString field;
    QString label;
    bool mergeable = true;
  } pending_;
  QHash<QString, int> fieldIds_;  // undo command ids of the fields
  QUndoStack* undo_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;
  QPushButton* undoButton_ = nullptr;
  QPushButton* redoButton_ = nullptr;
  std::shared_ptr<const search::CompiledSpace> compiled_;
  QStringList problems_;

  std::vector<std::unique_ptr<AxisRow>> hw_;
  std::vector<std::unique_ptr<AxisRow>> sched_;
  std::vector<ObjectiveRow> objectives_;
  std::vector<ConstraintRow> constraints_;
  QGridLayout* hwGrid_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QComboBox* addKnob_ = nullptr;
  QPushButton* addAxis_ = nullptr;
  QCheckBox* sp_[2] = {};
  QCheckBox* overlap_[3] = {};
  QLabel* spCount_ = nullptr;
  QLabel* switchLabel_[2] = {};  // sequence parallel, overlap
  QString switchTip_[2];
  QString switchProblem_[2];
  QLabel* overlapCount_ = nullptr;
  QVBoxLayout* objectiveBox_ = nullptr;
  QPushButton* addObjective_ = nullptr;
  QLabel* tpotHint_ = nullptr;
  QComboBox* strategy_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* samples_ = nullptr;
  QSpinBox* population_ = nullptr;
  QSpinBox* generations_ = nullptr;
  QSpinBox* maxEvals_ = nullptr;
  QDoubleSpinBox* timeLimit_ = nullptr;
  QLabel* total_ = nullptr;
  QLabel* problemText_ = nullptr;
  QLabel* objectivesProblem_ = nullptr;
  QPlainTextEdit* json_ = nullptr;
  QPushButton* jsonToggle_ = nullptr;
  QLabel* jsonStatus_ = nullptr;
};

// "4,752", "1.79·10¹²" (exact, digits grouped, below a million), and the same + " points".
QString countText(search::Count n);
QString pointsText(search::Count n);
// "STPS per mm² of silicon (tokens/s/mm²)": a metric with its unit, for combos and plot axes.
QString metricLabel(search::Metric m);

}  // namespace stackscope::ui
