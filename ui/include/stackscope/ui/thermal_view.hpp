// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Thermal view: the design's 3D stack (perf::thermal_model) solved on
// the grid solver off the UI thread, one layer at a time as a QCPColorMap heatmap with a colour
// scale in deg C, the floorplan blocks outlined, the layer's hottest cell marked, and the DRAM
// limits (85 C: refresh doubles; 95 C: throttle / infeasible) as labelled ticks on the scale.
#include <QFutureWatcher>
#include <QWidget>
#include <memory>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/perf/thermal_map.hpp"
#include "stackscope/thermal/solver.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

namespace stackscope::ui {

class ThermalView : public QWidget {
  Q_OBJECT
 public:
  explicit ThermalView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~ThermalView() override;

  // Starts the solve of this design (replacing any solve in flight); the view updates when it
  // finishes. `design` must be valid and `result` its evaluation.
  void showDesign(const perf::Design& design, const perf::Result& result);
  void clear();
  // Blocks until the current solve (if any) has been shown (screenshots, tests).
  void waitForIdle();
  bool hasSolution() const { return solved_ != nullptr; }
  // Stack layer shown, and its statistics (for tests).
  int currentLayer() const;
  const thermal::Solution* solution() const;

 signals:
  void solved();

 private:
  struct Solved {
    perf::ThermalDesign design;
    thermal::Solution solution;
    double compact_dram_C = 0;
    bool compact = false;
  };
  void onFinished();
  void showLayer(int layer);
  void fitDie();
  // The cross-section: each layer's hottest and mean temperature (drawProfile, after a solve).
  void drawProfile();
  void resizeEvent(QResizeEvent* e) override;

  QComboBox* layer_ = nullptr;
  QLabel* stats_ = nullptr;
  QString statsWithoutTime_;  // the stats line less its solve time, for the review
  QLabel* note_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCustomPlot* profile_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QFutureWatcher<std::shared_ptr<Solved>> watcher_;
  std::shared_ptr<Solved> solved_;
  double die_w_mm_ = 0, die_h_mm_ = 0;
  int generation_ = 0;
  int pending_generation_ = 0;
};

}  // namespace stackscope::ui
