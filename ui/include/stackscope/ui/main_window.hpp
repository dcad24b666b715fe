// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The first workbench window: a header naming the design, a what-if form, the Summary of key
// metrics, the per-resource time breakdown and the throughput/interactivity curve. Every edit
// re-evaluates the design (debounced 50 ms; one evaluation is sub-millisecond, so it runs on
// the UI thread).
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <cstdint>
#include <memory>
#include <optional>

#include "stackscope/io/project.hpp"
#include "stackscope/io/project_file.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/ui/help_window.hpp"
#include "stackscope/ui/review_report.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/theme.hpp"

class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QSplitter;
class QTabWidget;

namespace stackscope::ui {

class BreakdownChart;
class DesignEditor;
class DevicePanel;
class SummaryPanel;
class CompareView;
class ExpertsView;
class WaferView;
class LinkView;
class ResultArea;
class SearchPanel;
class ServingView;
class ThermalView;
class ThroughputPlot;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Registers the builtin presets and opens the builtin project preset "default".
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a project file (its design, serving settings and origin: id, source, notes and the
  // sections the design does not hold); on failure keeps the current design and returns the
  // reason. Does not ask about unsaved edits (requestOpen() does); clears the undo history.
  bool openProject(const QString& file, QString* error);
  // Writes the project with its origin (io::project_file_to_json), so a saved copy of a shipped
  // project keeps its id, source and notes.
  bool saveProject(const QString& file, QString* error);
  // Opens a built-in project preset (io::PresetKind::project) as a new, unsaved design.
  bool openPreset(const QString& id);
  void setDesign(const perf::Design& design);
  // What the open project says about itself beyond the design (io/project_file.hpp).
  const io::ProjectOrigin& origin() const { return origin_; }
  const QString& file() const { return file_; }

  // Unsaved edits: asks Save / Discard / Cancel (a modal box named "unsavedChangesBox"). Save
  // saves as File > Save does (Save As for a document without a file of the user's); returns
  // true when the caller may go on: nothing unsaved, saved, or discarded.
  bool maybeSave();
  // Open, Open Recent and a dropped file: asks first (maybeSave), then opens `file`; a file
  // that cannot be opened is reported in a box. True when `file` was opened.
  bool requestOpen(const QString& file);
  // File > New: asks first, then the default project as a new design without a file or origin.
  bool newProject();
  // The file Save As proposes: the document's own file when it is the user's, else a file
  // named after the project in the folder of the last Save As or the user's documents folder,
  // never in a shipped presets folder.
  QString saveAsSuggestion() const;
  // A file of the shipped presets (in a "projects" or "search" folder of a "presets" folder,
  // as in the source tree): Save goes to Save As rather than overwriting it.
  static bool isShippedPreset(const QString& file);

  // Re-evaluates at once (the debounced path calls this too).
  void evaluateNow();
  const perf::Design& design() const { return design_; }
  ConfigDocument& document() { return doc_; }
  // The right-hand column of result views: each view's pane (maximise, detach) is in it.
  ResultArea* resultArea() const { return area_; }
  const std::optional<perf::Result>& result() const { return result_; }

  // Renders the window and each view to DIR/<view>.png. Returns the files written; on
  // failure an empty list and the reason.
  QStringList saveScreenshots(const QString& dir, QString* error);
  // Help ▸ User Guide (F1), Model Reference, Validation Report: the help window on `doc`.
  HelpWindow* showHelp(HelpWindow::Doc doc);
  // The whole window at `size` (logical pixels) once per result tab, to
  // DIR/window-<W>x<H>-<tab>.png: how the layout fits a screen of that size.
  QStringList saveWindowShots(const QString& dir, QSize size, QString* error);
  // The design review (review_report.hpp): provenance, key metrics, power per die and layer,
  // every result view's section in tab order and the project JSON. Empty (no sections) when
  // the design is not valid. Shows each view in turn so its figures are laid out.
  ReviewDocument reviewDocument();
  // Writes the review as `file` (HTML, figures embedded) and, beside it with the suffix .pdf,
  // as 16:9 slides; both atomically. `pages` gets the PDF's page titles.
  bool exportReport(const QString& file, QString* error, QStringList* pages = nullptr);
  // Runs what the review shows beyond the static evaluation, on the project's own settings,
  // and waits for it: the serving run, the expert placement of an MoE mesh, a wafer's map and
  // sweep; with `searchSpace` (a search preset id or file), that search capped at `searchEvals`
  // evaluations (0: the space's own cap) on one thread. False with `error` for a design that
  // does not evaluate or a search space that does not load.
  bool runForReview(const QString& searchSpace, std::uint64_t searchEvals, QString* error);

 private:
  void buildUi();
  void buildMenus();
  void updateHeader();
  // The Thermal and Links tabs recompute (off the UI thread) only when shown and stale.
  void refreshLazyViews();
  // Its tab is the current one, or it is out of the tabs (maximised or detached).
  bool viewShown(QWidget* view) const;

 public:
  // Applies a palette (View > Theme) to the application and restyles every view; the menu
  // also saves the choice, which interactive sessions restore (enableSessionState()).
  void setTheme(theme::Mode mode);
  // Pins the current result as the baseline the Summary compares against.
  void pinBaseline();
  // Adds the current design to the Compare tab (up to four) and shows it.
  void addToCompare();
  // Restores the last session's window geometry, splitters and tab (QSettings) and saves them
  // when the window closes. Off by default so tests and screenshots are reproducible.
  void enableSessionState();
  // Crash safety (enabled with the session state): the unsaved design is written atomically
  // to autosavePath() every 30 s; recoverAutosave() loads it back as unsaved edits.
  static QString autosavePath();
  bool autosaveNow();
  bool recoverAutosave(QString* error);
  // The autosave period (default 30 s); the kill-and-recover test shortens it.
  void setAutosaveInterval(int ms);

 Q_SIGNALS:
  // An autosave was written (the file at autosavePath() now holds the current design).
  void autosaved();

 protected:
  void closeEvent(QCloseEvent* e) override;
  // Until the user moves the editor/results split (or a session restores one), the editor
  // column is 27 % of the window's width within 340-480 px (main_window_views.cpp).
  void resizeEvent(QResizeEvent* e) override;
  // A project file dropped on the window opens as File > Open does (asking first).
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildFileMenu();
  // The document becomes `project`, read from `file` ("" for a preset or a new design).
  void adopt(const io::ProjectFile& project, const QString& file);
  void openDialog();
  // File > Save: to the document's file, or Save As when it has none of the user's. True when
  // the project was written.
  bool save();
  bool saveAsDialog();
  void exportReportDialog();
  void dropAutosave();
  void addRecent(const QString& file);
  void about();

  std::unique_ptr<io::PresetRegistry> presets_;
  ConfigDocument doc_;  // the edited design and its undo history
  perf::Design design_;
  // What the project's own name describes (its device, model and device count as loaded): while
  // an edit keeps them the name stays; once one changes, the name is perf::described_name's.
  struct NameBasis {
    std::string name, hardware, model;
    int devices = 0;
  } nameBasis_;
  void setNameBasis(const perf::Design& d);
  std::string followedName(const perf::Design& d) const;
  std::optional<perf::Result> result_;
  QString file_;
  io::ProjectOrigin origin_;  // written back on save
  QString lastSaveDir_;       // the folder of the last Save As (QSettings "files/lastSaveDir")
  QString startupError_;
  QString baseStyleSheet_;  // resources/stackscope.qss; the theme appends its overrides

  QLabel* title_ = nullptr;
  QLabel* subtitle_ = nullptr;
  DesignEditor* editor_ = nullptr;
  DevicePanel* device_ = nullptr;
  SummaryPanel* summary_ = nullptr;
  BreakdownChart* chart_ = nullptr;
  ThroughputPlot* plot_ = nullptr;
  QTabWidget* views_ = nullptr;
  QPointer<HelpWindow> help_;
  QSplitter* mainSplit_ = nullptr;
  bool splitChosen_ = false;  // the user (or a restored session) set the editor column's width
  ThermalView* thermal_ = nullptr;
  SearchPanel* search_ = nullptr;
  ServingView* serving_ = nullptr;
  ExpertsView* experts_ = nullptr;
  WaferView* wafer_ = nullptr;
  LinkView* links_ = nullptr;
  CompareView* compare_ = nullptr;
  ResultArea* area_ = nullptr;
  bool linksStale_ = false;
  bool sessionState_ = false;
  bool thermalStale_ = false;  // the thermal tab shows an older design
  QTimer debounce_;
  QTimer autosave_;
};

}  // namespace stackscope::ui
