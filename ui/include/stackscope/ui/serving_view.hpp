// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Serving view (issue 14, deliverable 3): a request stream (closed benchmark, Poisson arrivals or
// a trace file) replayed on co-located instances of the design by the core serving simulator,
// the run `stackscope-cli serve` does with the same settings. Shows the TTFT and TPOT CDFs with
// their SLOs, the running/waiting sequences and KV-cache use over simulated time, and the
// percentile table with throughput, goodput and energy. The simulation runs on a thread pool of
// its own (one thread) from a value snapshot of the form; Stop and a newer run stop it through
// SimOptions::stop.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>
#include <stop_token>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace stackscope::ui {

class ServingView : public QWidget {
  Q_OBJECT
 public:
  enum class Source { benchmark, poisson, trace };

  explicit ServingView(QWidget* parent = nullptr);
  ~ServingView() override;

  // Starts a run of the form's settings on the current design (stopping any run in flight).
  // False, with the reason shown beside Run, when there is no valid design or the settings are
  // invalid; nothing runs then.
  bool run();
  // Returns at once; the run ends within a few ms and keeps what it simulated so far.
  void stop();
  // Starts any pending (debounced) run, then blocks until the current run has been shown.
  void waitForIdle();
  bool running() const { return running_; }

  // The form, for tests and screenshots.
  void setSource(Source source);
  void setRequests(int requests);
  void setLengths(const QString& input, const QString& output);
  void setSlo(double ttft_s, double tpot_s);  // 0 = none

  // The last finished run (nullptr before the first), its error (empty when none), and the
  // settings error shown beside Run (empty when the form is valid).
  const serving::SimResult* result() const;
  QString runError() const;
  QString settingsError() const;
  int completedRuns() const { return completedRuns_; }
  QCustomPlot* ttftPlot() const { return ttft_; }
  QCustomPlot* tpotPlot() const { return tpot_; }
  QCustomPlot* timelinePlot() const { return timeline_; }

  // Value snapshot of a run: what the worker needs, nothing of the UI.
  struct Job {
    perf::Design design;  // batch fixed at 1 (the static batch is not used by the simulator)
    Source source = Source::benchmark;
    std::size_t requests = 500;
    double rate_per_s = 10;
    std::uint64_t seed = 1;
    std::string trace;
    double time_scale = 1;
    serving::LengthDist input, output;
    serving::SchedulerConfig scheduler;
    serving::SimOptions options;  // stop token set at start
    int instances = 1;
  };
  struct Outcome {
    serving::SimResult result;
    std::size_t requests = 0;
    long long kv_blocks = 0;
    int devices = 0;
    int instances = 0;
    double slo_ttft_s = 0, slo_tpot_s = 0;
    double wall_s = 0;
    QString source;  // "benchmark: 500 requests at an infinite rate"
    QString error;
  };
  // The form's settings on the current design; nullopt and the reason when they are invalid.
  std::optional<Job> snapshot(QString* error) const;
  // What the worker runs: the request stream, the instances and serving::simulate.
  static Outcome execute(const Job& job);

 public slots:
  // The design the runs replay on; re-runs (debounced 300 ms) once a run has been made.
  void setDesign(const stackscope::perf::Design& design);
  // No valid design: stops any run and says so.
  void clearDesign();

 signals:
  void finished();

 private:
  void settingsChanged();
  void onFinished();
  void browseTrace();
  void showOutcome();
  void drawEmpty();
  void drawCdf(QCustomPlot* plot, std::vector<double> values_ms, double slo_ms);
  void drawTimeline();
  void styleError();
  void changeEvent(QEvent* e) override;

  std::optional<perf::Design> design_;
  QComboBox* source_ = nullptr;
  QSpinBox* requests_ = nullptr;
  QDoubleSpinBox* rate_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QLineEdit* trace_ = nullptr;
  QPushButton* browse_ = nullptr;
  QDoubleSpinBox* timeScale_ = nullptr;
  QLineEdit* input_ = nullptr;
  QLineEdit* output_ = nullptr;
  QSpinBox* instances_ = nullptr;
  QComboBox* router_ = nullptr;
  QSpinBox* maxSeqs_ = nullptr;
  QSpinBox* maxTokens_ = nullptr;
  QCheckBox* chunked_ = nullptr;
  QComboBox* kvPolicy_ = nullptr;
  QDoubleSpinBox* sloTtft_ = nullptr;
  QDoubleSpinBox* sloTpot_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* stop_ = nullptr;
  QLabel* error_ = nullptr;
  QLabel* status_ = nullptr;
  QCustomPlot* ttft_ = nullptr;
  QCustomPlot* tpot_ = nullptr;
  QCustomPlot* timeline_ = nullptr;
  QComboBox* timelineOf_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* summary_ = nullptr;

  QTimer debounce_;
  QThreadPool pool_;
  QFutureWatcher<std::shared_ptr<const Outcome>> watcher_;
  std::stop_source stopSource_;
  std::shared_ptr<const Outcome> shown_;
  QString runError_;
  bool running_ = false;
  bool everRun_ = false;
  int generation_ = 0;
  int completedRuns_ = 0;
};

}  // namespace stackscope::ui
