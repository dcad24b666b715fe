// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Summary view: the key metrics of the current design as cards (value with unit), memory use
// against capacity, and a banner that says whether the design is feasible and why not.
#include <QWidget>
#include <optional>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"

class QGridLayout;
class QLabel;
class QProgressBar;

namespace stackscope::ui {

class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(QWidget* parent = nullptr);

  void showResult(const perf::Design& design, const perf::Result& result);
  // A pinned baseline: every card then shows its change against it (green = better). Empty
  // clears it. Applies from the next showResult.
  void setBaseline(const std::optional<perf::Result>& baseline, const QString& name = {},
                   int devices = 1);
  bool hasBaseline() const { return baseline_.has_value(); }
  // The design did not validate: metrics are cleared, the banner lists the problems.
  void showIssues(const std::vector<Issue>& issues);

 private:
  struct Card {
    QLabel* value = nullptr;
    QLabel* detail = nullptr;
    QLabel* delta = nullptr;  // change against the pinned baseline
  };
  void showDelta(Card& card, double value, double base, bool higherIsBetter);
  Card addCard(int row, int col, const QString& key, const QString& title, const QString& tip);
  void clearMetrics();

  QGridLayout* grid_ = nullptr;
  QLabel* banner_ = nullptr;
  QLabel* validation_ = nullptr;  // how well the design's class is validated (the envelope)
  QLabel* kernels_ = nullptr;     // where the kernel times come from (measured table or roofline)
  Card ttft_, tpot_, utps_, stps_, e2e_, perDevice_, energy_, power_, memory_, batch_;
  QProgressBar* memoryBar_ = nullptr;
  std::optional<perf::Result> baseline_;
  QString baselineName_;
  double baselineDevices_ = 1;
};

}  // namespace stackscope::ui
