// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Experts view: the expert-placement comparison of an MoE design on
// its 2D mesh — what `stackscope-cli moe --compare` runs (experts/compare.hpp): every strategy
// (TP, EP, EPLB, the compute-balanced hybrid, HD-MoE and its dynamic variants) fitted on the
// design's routing and scored by the one MoE-layer simulator. Shows, for the chosen strategy
// and evaluated layer, the experts × nodes heat map of its placement, the per-node compute
// time of the layer's first eval batch beside every other strategy's, and the per-link
// utilisation drawn on the mesh; and the speedups table of all strategies.
//
// The mesh comes from the design's first mesh2d system level (shape, link GB/s, latency as α)
// and its device (BF16 matrix peak, memory bandwidth and capacity per node), as the CLI takes
// it. Routing: the workload's trace file (fitted on its first half of tokens, scored on the
// second), else a synthetic trace of the workload's routing fitted on draw `seed` and scored
// on draw `seed + 1`. The solver limits (batch, GLPK time limit, EPLB slots, layer stride)
// are settings of the view, not of the project file.
//
// The comparison runs on a thread pool of its own (one thread) from a value snapshot, one
// compare() call per evaluated layer so that Stop (and a newer run) ends it between layers
// and the status shows the layers done; results are merged as compare() merges its layers. It
// runs only while the view is shown: a design change while hidden marks it stale.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "stackscope/experts/compare.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace stackscope::ui {

class ExpertMeshCanvas;

class ExpertsView : public QWidget {
  Q_OBJECT
 public:
  // The view's solver limits (defaults: short enough to follow edits).
  struct Settings {
    int batch = 0;               // tokens per batch; 0: the design's workload batch
    int batches = 2;             // eval batches per layer (1..1024)
    double time_limit_s = 1;     // GLPK per layer for HD-MoE's node balance
    int eplb_redundant = -1;     // -1: the fewest >= 1 making E + R a multiple of N
    int layer_stride = 4;        // every k-th MoE layer is evaluated (0, k, 2k, ...)
    bool operator==(const Settings&) const = default;
  };

  // Value snapshot of a run: nothing of the UI.
  struct Job {
    workload::Model model;
    workload::Routing routing;
    experts::CompareConfig config;  // mesh, batch, limits; layers empty (set per call)
    int layer_stride = 4;
    std::stop_token stop;
    std::shared_ptr<std::atomic<int>> layers_done;  // progress, written by the worker
  };
  struct Outcome {
    experts::CompareResult result;  // merged over the layers evaluated
    // Per evaluated layer, per strategy (as result.strategies): its first eval batch.
    std::vector<std::vector<experts::LayerResult>> firsts;
    experts::MeshConfig mesh;
    int batch = 0, batches = 0;
    int layers_planned = 0;
    QString fit, eval;  // what the strategies were fitted on and scored on
    QString error;
    bool stopped = false;  // Stop ended it before its last layer (result holds the rest)
    double wall_s = 0;
  };

  explicit ExpertsView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~ExpertsView() override;

  // The mesh of `design` (its first mesh2d level and its device), or nullopt and why not.
  static std::optional<experts::MeshConfig> meshOf(const perf::Design& design, QString* why);
  // The job for `design` with `settings`, or nullopt and the hint shown instead.
  static std::optional<Job> snapshot(const perf::Design& design, const Settings& settings,
                                     QString* why);
  // What the worker runs: the traces, then experts::compare per layer.
  static Outcome execute(const Job& job);

  // Starts a run on the current design (stopping any run in flight); false with the reason
  // shown when the design does not apply.
  bool run();
  // Returns at once; the run ends after its current layer and keeps the layers done.
  void stop();
  // Starts any pending run, then blocks until the current one has been shown.
  void waitForIdle();
  bool running() const { return running_; }

  Settings settings() const { return settings_; }
  // Settings for tests and screenshots, as the form would set them (re-runs when shown).
  void setSettings(const Settings& settings);
  void setStrategy(experts::Strategy strategy);
  experts::Strategy strategy() const;
  void setLayerIndex(int index);  // into outcome()->result.layers
  int layerIndex() const;

  // The last finished run (nullptr before the first), and the hint shown over the results
  // (empty when results are shown).
  const Outcome* outcome() const { return shown_.get(); }
  QString hint() const;
  QString status() const;
  QTableWidget* table() const { return table_; }
  QCustomPlot* heatMap() const { return heat_; }
  QCPColorMap* heatMapData() const { return map_; }
  QCustomPlot* computePlot() const { return compute_; }
  QWidget* meshCanvas() const;

 public slots:
  // The design the comparison runs on: re-runs (debounced) when shown, else marks it stale.
  void setDesign(const stackscope::perf::Design& design);
  // No valid design: stops any run and says so.
  void clearDesign();

 signals:
  void finished();

 protected:
  void showEvent(QShowEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  void schedule();
  void onFinished();
  void showOutcome();
  void showSelection();
  void drawHeatMap();
  void drawCompute();
  void fillTable();
  void updateHint();
  void readForm();

  std::optional<perf::Design> design_;
  Settings settings_;
  QPushButton* run_ = nullptr;
  QPushButton* stop_ = nullptr;
  QLabel* status_ = nullptr;
  QComboBox* strategy_ = nullptr;
  QComboBox* layer_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* batches_ = nullptr;
  QDoubleSpinBox* limit_ = nullptr;
  QSpinBox* eplb_ = nullptr;
  QSpinBox* stride_ = nullptr;
  QLabel* info_ = nullptr;
  QWidget* results_ = nullptr;
  QCustomPlot* heat_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCustomPlot* compute_ = nullptr;
  QLabel* meshTitle_ = nullptr;
  ExpertMeshCanvas* mesh_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* solve_ = nullptr;
  QString hint_;

  QTimer debounce_;
  QTimer progress_;
  QThreadPool pool_;
  QFutureWatcher<std::shared_ptr<const Outcome>> watcher_;
  std::stop_source stopSource_;
  std::shared_ptr<std::atomic<int>> layersDone_;
  int layersPlanned_ = 0;
  std::shared_ptr<const Outcome> shown_;
  bool running_ = false;
  bool stale_ = false;
};

}  // namespace stackscope::ui
