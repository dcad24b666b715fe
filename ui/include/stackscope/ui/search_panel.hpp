// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Search panel: pick a search preset and edit its space in a form
// (SpaceEditor, in a window of its own: axes, ranges, constraints, objectives), Run / Stop, a
// progress bar
// with rate and ETA, and the live Pareto view (QCustomPlot): any two objectives or metrics on the
// axes (log scale when the data spans decades), every evaluated point faint, the frontier
// highlighted and connected, points coloured by a chosen parameter, a tooltip with the design's key
// parameters on hover and a click that loads the design. The search runs on the core engine
// (its own worker threads) started from a dedicated QThreadPool; results cross to the UI thread
// as value batches drained every 100 ms, so the event loop never waits for the engine.
#include <QPointF>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/search/archive.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/search/space.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QDialog;
class QCPCurve;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace stackscope::ui {

class SpaceEditor;

class SearchPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SearchPanel(const io::PresetRegistry& presets, QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~SearchPanel() override;

  // Starts a search of the space in the form. A non-empty `id` different from the current preset
  // (a preset id or a search project file) is loaded first. False + reason if the space has
  // problems. `threads` 0 = all cores; `max_evals` 0 = the form's limit.
  bool start(const QString& id, QString* error, int threads = 0, std::uint64_t max_evals = 0);
  SpaceEditor* spaceEditor() const { return form_; }
  // Shows the first space preset that searches `design`'s model (its base design's or one of
  // its model axis), so a project opens on a space about its own model, not on whichever
  // preset sorts first. Nothing changes while a search runs or has points, when the user edited
  // the space, or when no preset searches that model. True when a preset was chosen.
  bool suggestFor(const perf::Design& design);
  void stop();  // returns at once; the run ends within ~100 ms
  bool running() const { return running_; }
  // Points shown so far, and the current frontier (UI-side copies).
  std::size_t pointCount() const { return points_.size(); }
  const search::Archive& frontier() const { return frontier_; }
  const search::Progress& progress() const { return progress_; }
  // Loads frontier point `i` (sorted order) as if clicked.
  void choose(std::size_t i);
  // Writes every shown point (with an on_frontier column) as CSV, atomically.
  bool exportCsv(const QString& file, QString* error) const;
  QCustomPlot* plot() const { return plot_; }
  // Redraws every point and the frontier (e.g. in the colours of a new theme).
  void replotNow() { replot(); }

  // Filled by the engine's sink on worker threads; drained on the UI thread.
  struct Inbox {
    std::mutex mutex;
    std::vector<search::PointRecord> points;
    search::Progress progress;
    bool done = false;
    search::Summary summary;
    QString error;
  };

 signals:
  void designChosen(const stackscope::perf::Design& design);
  void finished();

 private:
  void drain();
  void replot();
  void update_plot();
  void setAxesChoices();
  double axisValue(const search::PointRecord& p, int choice) const;
  void hover(QMouseEvent* e);
  void click(QMouseEvent* e);
  const search::PointRecord* nearest(const QPoint& px) const;
  QString describe(const search::PointRecord& p) const;

  const io::PresetRegistry& presets_;
  void spaceChanged();

  QComboBox* preset_ = nullptr;
  QLabel* spaceSize_ = nullptr;
  SpaceEditor* form_ = nullptr;  // the space Run searches
  QDialog* formWindow_ = nullptr;
  QPushButton* runFromForm_ = nullptr;
  int shownPreset_ = 0;  // the preset the form was loaded from (restored when a switch is declined)
  bool quietPresetChange_ = false;
  QPushButton* run_ = nullptr;
  QPushButton* stop_ = nullptr;
  QPushButton* exportCsv_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QLabel* status_ = nullptr;
  QComboBox* xAxis_ = nullptr;
  QComboBox* yAxis_ = nullptr;
  QComboBox* colourBy_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QTimer drainTimer_;
  QThreadPool pool_;  // the engine's runner thread; the engine starts its own workers
  std::shared_ptr<Inbox> inbox_;
  std::stop_source stopSource_;
  std::shared_ptr<const search::CompiledSpace> space_;  // the space of the results on show
  QString runText_;  // its project text (the form's when the run started)
  std::vector<search::PointRecord> points_;  // shown points (capped)
  search::Archive frontier_;
  search::Progress progress_;
  bool running_ = false;
  // Per item of preset_: the model ids its space searches (empty when it did not parse).
  std::vector<std::vector<std::string>> presetModels_;
  bool dirty_ = false;
  std::map<double, QCPGraph*> cloud_;  // faint points per colour group
  double colourKey(const search::PointRecord& p) const;
  int colourIndex(double key) const;
  QString colourName(double key) const;
  QCPCurve* front_ = nullptr;
  // The point last loaded into the editor (click or choose), ringed on the plot while its run
  // is on show.
  std::optional<search::PointId> chosen_;
  QCPGraph* chosenMark_ = nullptr;
  void markChosen(const search::PointRecord& p);
  std::size_t plotted_ = 0;  // points_ already in the cloud graphs
  QPointF lo_, hi_;          // data extent on the current axes
};

}  // namespace stackscope::ui
