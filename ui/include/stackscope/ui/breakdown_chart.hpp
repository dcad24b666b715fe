// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stacked bars of the time each resource bounds, for the prefill pass and one decode step.
// Prefill and a decode step differ by orders of magnitude, so the default view shows each
// phase as shares of its own time (absolute times in the labels); "Time (ms)" shows both on
// one absolute axis.
#include <QWidget>

#include "stackscope/perf/result.hpp"

class QChart;
class QChartView;
class QComboBox;
class QLabel;

namespace stackscope::ui {

class BreakdownChart : public QWidget {
  Q_OBJECT
 public:
  explicit BreakdownChart(QWidget* parent = nullptr);

  void showResult(const perf::Result& result);
  void clear();
  QChartView* chartView() const { return view_; }

 private:
  void rebuild();

  QComboBox* mode_ = nullptr;
  QLabel* title_ = nullptr;
  QChartView* view_ = nullptr;
  perf::Result result_;
  bool hasResult_ = false;
};

}  // namespace stackscope::ui
