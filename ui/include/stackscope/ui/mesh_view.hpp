// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// On-die mesh view: one device's core mesh with every link coloured
// and sized by its utilisation in one decode step or prefill pass, from the evaluator's mesh
// traffic (compute/noc.hpp: GEMM row multicasts and column reductions, attention re-layouts,
// DRAM bytes from the die edges on HBM devices) at the clock the design runs at; hover gives
// both directions' bytes and utilisation. Meshes wider than kMaxDrawn cores are drawn in
// blocks (each square a block of cores, the links between blocks shown). It reads the result
// the window already evaluated: no evaluation of its own.
#include <QWidget>
#include <memory>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"

class QLabel;

namespace stackscope::ui {

class MeshCanvas;

class MeshView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxDrawn = 32;  // blocks per side at most

  explicit MeshView(QWidget* parent = nullptr);
  ~MeshView() override;
  // `result` is perf::evaluate(design).
  void showResult(const perf::Design& design, const perf::Result& result);
  void clear();
  void setPhase(int phase);  // 0 decode step, 1 prefill pass
  // Busiest link utilisation (0..1) of the shown phase, and links drawn (directed, between
  // blocks) — for tests.
  double busiest() const;
  int drawnLinks() const;
  // The hover text of the drawn link nearest to the centre of the link between blocks
  // (bx, by) and (bx + 1, by) (horizontal) or (bx, by + 1) (vertical).
  QString linkToolTip(int bx, int by, bool horizontal) const;

  struct Computed;

 private:
  void redraw();
  static QString invalidHint();

  QLabel* stats_ = nullptr;
  MeshCanvas* canvas_ = nullptr;
  std::shared_ptr<Computed> computed_;
  int phase_ = 0;
};

}  // namespace stackscope::ui
