// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The wafer's temperature map (ui/include/stackscope/ui/wafer_view.hpp): wafer::thermal's grid
// solve drawn as a heat map in °C over the die grid in mm, each die outlined, the hottest one
// marked and named in the title. Without a map it says why in words, never an empty plot.
#include <QWidget>
#include <memory>

#include "stackscope/wafer/thermal.hpp"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QLabel;

namespace stackscope::ui {

class WaferHeatMap : public QWidget {
  Q_OBJECT
 public:
  explicit WaferHeatMap(QWidget* parent = nullptr);
  // Null shows `empty` (why there is no map) in place of the plot.
  void show(std::shared_ptr<const wafer::WaferThermalMap> map, QString empty = {});
  const wafer::WaferThermalMap* map() const { return map_.get(); }
  QCustomPlot* plot() const { return plot_; }
  // The title's text ("Wafer temperature\nhottest: die 7 at (2, 1), 81.3 °C"); empty without a map.
  QString title() const;
  // What the widget says while it shows no map (empty while it shows one), for tests.
  QString emptyText() const;
  QSize minimumSizeHint() const override { return {300, 300}; }
  QSize sizeHint() const override { return {560, 460}; }

 protected:
  void changeEvent(QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void draw();
  void fit();

  std::shared_ptr<const wafer::WaferThermalMap> map_;
  QCustomPlot* plot_ = nullptr;
  QLabel* empty_ = nullptr;
  QCPColorMap* colours_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPTextElement* title_ = nullptr;
};

}  // namespace stackscope::ui
