// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Wafer view: the die grid of a wafer project coloured by role
// (prefill, decode, lending KV memory, idle, spare) and shaded by each die's busy fraction, the
// D2D links drawn by the bytes the KV transfers put on them (share of the run), a tooltip per die
// and per link; and a co-exploration sweep of one wafer knob (DRAM capacity per die by default)
// plotting goodput and goodput per kW against it, exported as CSV.
//
// Beside the die map, the wafer's temperature map (wafer::wafer_thermal_map: each die's mean
// power over the run on the die grid, solved by core/thermal's grid solver), computed with every
// map run on the same worker: the Wafer view rather than the Thermal view, because the dies'
// powers come from this view's run and the Thermal view solves one device's 3D stack.
//
// Both runs use the project's serving settings (the document's "serving" section, as the
// Serving tab does) and the same core code as `stackscope-cli`: the map is the central
// scheduler's partition (or the project's given split) run by wafer::run_on_wafer, the sweep is
// coexplore::run over a one-axis space (plus the load multiplier). Work runs on a thread pool of
// the view's own from value snapshots; Stop and a newer run stop it.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/wafer/run.hpp"
#include "stackscope/wafer/thermal.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace stackscope::ui {

class WaferMap;
class WaferHeatMap;

class WaferView : public QWidget {
  Q_OBJECT
 public:
  explicit WaferView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~WaferView() override;

  // The project's document (not owned): its serving settings drive both runs.
  void setDocument(ConfigDocument* doc);

  // Runs the map (partition + serving on the wafer). False with the reason shown when the design
  // has no wafer or the settings are invalid.
  bool runMap();
  // Runs the sweep of `sweepKnob()` over the values typed (comma-separated).
  bool runSweep();
  void stop();
  // Blocks until the runs in flight have been shown.
  void waitForIdle();

  // For tests and screenshots.
  void setSweep(const QString& knob, const QString& values, double load, int requests);
  const wafer::WaferRun* mapRun() const { return map_ ? &map_->run : nullptr; }
  // The temperature map of the run on show (null before a run, or when it could not be solved).
  const wafer::WaferThermalMap* thermalMap() const { return map_ ? map_->thermal.get() : nullptr; }
  // The heat map widget (its title names the hottest die) and the text under it.
  QWidget* heatMap() const;
  QString thermalSummary() const;
  const std::vector<coexplore::Record>& sweepRecords() const { return sweep_; }
  QString error() const;
  QCustomPlot* sweepPlot() const { return plot_; }
  // CSV of the last sweep (io::coexplore_to_csv); empty before one.
  QString sweepCsv() const;

  struct MapOutcome {
    wafer::WaferRun run;
    perf::Design design;
    wafer::Partition partition;
    QString text, error;
    std::shared_ptr<const wafer::WaferThermalMap> thermal;
    QString thermalError;
  };

 public slots:
  void setDesign(const stackscope::perf::Design& design);
  void clearDesign();

 signals:
  void mapFinished();
  void sweepFinished();

 private:
  void showMap();
  void showThermal();
  void showSweep();
  void drawSweep();
  void changeEvent(QEvent* e) override;

  std::optional<perf::Design> design_;
  ConfigDocument own_;
  ConfigDocument* doc_ = &own_;
  WaferMap* mapWidget_ = nullptr;
  WaferHeatMap* heatMap_ = nullptr;
  QLabel* thermalSummary_ = nullptr;
  QLabel* mapSummary_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* runMap_ = nullptr;
  QPushButton* runSweep_ = nullptr;
  QPushButton* stop_ = nullptr;
  QPushButton* export_ = nullptr;
  QComboBox* knob_ = nullptr;
  QLineEdit* values_ = nullptr;
  QDoubleSpinBox* load_ = nullptr;
  QSpinBox* requests_ = nullptr;
  QLabel* sweepSummary_ = nullptr;
  QCustomPlot* plot_ = nullptr;

  QThreadPool pool_;
  std::stop_source stopMap_, stopSweep_;
  QFutureWatcher<std::shared_ptr<const MapOutcome>> mapWatcher_;
  std::shared_ptr<const MapOutcome> map_;
  std::string mapDesign_;  // io::project_to_json of the design the map's run is of
  struct SweepOutcome {
    std::optional<coexplore::CompiledSpace> space;
    std::vector<coexplore::Record> records;
    std::vector<coexplore::Record> frontier;
    QString error;
  };
  QFutureWatcher<std::shared_ptr<const SweepOutcome>> sweepWatcher_;
  std::shared_ptr<const SweepOutcome> sweepOut_;
  std::vector<coexplore::Record> sweep_;
  QString error_text_;
};

}  // namespace stackscope::ui
