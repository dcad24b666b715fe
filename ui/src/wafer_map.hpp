// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The die grid of a wafer run (ui/include/stackscope/ui/wafer_view.hpp): one square per die,
// coloured by role and shaded by busy fraction, with the D2D links between neighbours drawn by
// their share of the run spent moving KV; a tooltip names the die or link under the pointer.
#include <QWidget>
#include <memory>

#include "stackscope/wafer/run.hpp"

namespace stackscope::ui {

class WaferMap : public QWidget {
  Q_OBJECT
 public:
  explicit WaferMap(QWidget* parent = nullptr);
  // `run` from wafer::run_on_wafer; `prefill` = the partition's prefill instances (their indices
  // come first). Null clears the map.
  void show(std::shared_ptr<const wafer::WaferRun> run, int prefill, QString empty = {});
  QSize minimumSizeHint() const override { return {420, 300}; }
  QSize sizeHint() const override { return {640, 460}; }
  // Text of the tooltip at a widget position (empty outside any die or link), for tests.
  QString tipAt(QPointF pos) const;
  // What the map says while it shows no run (empty while it shows one), for tests.
  QString emptyText() const { return run_ ? QString() : empty_; }

 protected:
  void paintEvent(QPaintEvent* e) override;
  bool event(QEvent* e) override;

 private:
  struct Geometry {
    double cell = 0, gap = 0, x0 = 0, y0 = 0;
    QRectF die(int x, int y, int ny) const;
  };
  Geometry geometry() const;
  QString dieLabel(int die) const;

  std::shared_ptr<const wafer::WaferRun> run_;
  int prefill_ = 0;
  QString empty_;
};

}  // namespace stackscope::ui
