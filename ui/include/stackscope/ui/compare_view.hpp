// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compare view: up to four designs side by side — their parameters
// (rows that differ are highlighted), metrics (best value in bold) and the decode step's time
// per bounding resource as grouped bars. By default every column runs under the first
// design's runtime profile (core/runtime), so the columns compare hardware, not two software
// stacks; unticking "Same runtime" shows each design under its own profile.
#include <QWidget>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/ui/review_section.hpp"

class QCheckBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace stackscope::ui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxDesigns = 4;
  explicit CompareView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;

  // Adds a column (the oldest is dropped beyond kMaxDesigns).
  void add(const perf::Design& design, const perf::Result& result);
  void clear();
  int count() const { return static_cast<int>(entries_.size()); }
  QTableWidget* table() const { return table_; }
  QCheckBox* sameRuntime() const { return sameRuntime_; }
  // Rebuilds table and chart (e.g. in the colours of a new theme).
  void refresh() { rebuild(); }

 private:
  struct Entry {
    perf::Design design;
    perf::Result result;
  };
  void rebuild();
  // The columns as shown: under the first design's runtime profile when sameRuntime_ is on
  // (re-evaluated where a design's own profile differs), else as added.
  std::vector<Entry> shown() const;
  std::vector<Entry> entries_;
  QCheckBox* sameRuntime_ = nullptr;
  QLabel* hint_ = nullptr;
  QTableWidget* table_ = nullptr;
  QCustomPlot* bars_ = nullptr;
};

}  // namespace stackscope::ui
