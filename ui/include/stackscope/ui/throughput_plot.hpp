// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Throughput vs interactivity (docs/model.md §1.3): STPS against UTPS for a sweep of batch
// sizes of the current design, up to the largest batch that fits memory, with the current
// design marked. Drawn with QCustomPlot.
#include <QWidget>

#include "stackscope/perf/design.hpp"

class QCustomPlot;

namespace stackscope::ui {

class ThroughputPlot : public QWidget {
  Q_OBJECT
 public:
  explicit ThroughputPlot(QWidget* parent = nullptr);

  // Evaluates the sweep (each point is sub-millisecond) and redraws. `design` is validated.
  void showDesign(const perf::Design& design, int currentBatch);
  void clear();
  int pointCount() const { return points_; }
  QCustomPlot* plot() const { return plot_; }

 private:
  QCustomPlot* plot_ = nullptr;
  int points_ = 0;
};

}  // namespace stackscope::ui
