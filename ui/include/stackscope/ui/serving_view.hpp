// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Serving view: a request stream (closed benchmark, generated Poisson
// or Gamma arrivals, or a trace file) replayed on co-located or prefill/decode-disaggregated
// instances of the design by the core serving simulator, the run `stackscope-cli serve` does
// with the same settings. The settings are the project's serving section (serving/spec.hpp),
// held by a ConfigDocument and edited by the form (ui/src/serving_form.cpp) as undoable steps.
// Shows the TTFT and TPOT CDFs with their SLOs, the running/waiting sequences and KV-cache use
// over simulated time, and the percentile table with throughput, goodput and energy. The
// simulation runs on a thread pool of its own (one thread) from a value snapshot of the
// document; Stop and a newer run stop it through SimOptions::stop. Once a run has been made,
// changes of the design or of the settings re-run it (debounced).
#include <QFutureWatcher>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>
#include <stop_token>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/ui/config_document.hpp"
#include "stackscope/ui/review_section.hpp"

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace stackscope::ui {

class ServingForm;

class ServingView : public QWidget {
  Q_OBJECT
 public:
  using Source = serving::SourceKind;

  // A view with a document of its own (tests, a view on its own); setDocument() binds it to the
  // project's.
  explicit ServingView(QWidget* parent = nullptr);
  // Its part of the design review (review_section.hpp).
  ReviewSection reviewSection() const;
  ~ServingView() override;

  // Binds the view to `doc` (not owned; it must outlive the view): its serving settings are what
  // the form edits and the runs replay.
  void setDocument(ConfigDocument* doc);
  ConfigDocument* document() const { return doc_; }

  // Starts a run of the document's settings on the current design (stopping any run in flight).
  // False, with the reason shown beside Run, when there is no valid design or the settings are
  // invalid; nothing runs then.
  bool run();
  // Returns at once; the run ends within a few ms and keeps what it simulated so far.
  void stop();
  // Starts any pending (debounced) run, then blocks until the current run has been shown.
  void waitForIdle();
  bool running() const { return running_; }

  // Settings for tests and screenshots, each one undoable edit of the document (as the form's).
  void setSource(Source source);
  void setRequests(int requests);
  void setLengths(const QString& input, const QString& output);  // as typed into the form
  void setSlo(double ttft_s, double tpot_s);                     // 0 = none

  // The last finished run (nullptr before the first), its error (empty when none), and the
  // settings error shown beside Run (empty when the settings are valid).
  const serving::SimResult* result() const;
  QString runError() const;
  QString settingsError() const;
  int completedRuns() const { return completedRuns_; }
  QCustomPlot* ttftPlot() const { return ttft_; }
  QCustomPlot* tpotPlot() const { return tpot_; }
  QCustomPlot* timelinePlot() const { return timeline_; }

  // Value snapshot of a run: what the worker needs, nothing of the UI.
  struct Job {
    perf::Design design;        // batch fixed at 1 (the static batch is not used by the simulator)
    serving::ServingSpec spec;  // the document's
    std::stop_token stop;       // set at start
  };
  struct Outcome {
    serving::SimResult result;
    std::size_t requests = 0;
    long long kv_blocks = 0;
    int devices = 0;  // per instance
    int instances = 0;
    QString layout;  // "4 instances" (co-located), "1 prefill + 3 decode"
    // "4 instances × 2 devices, KV 31,705 blocks each"; per pool when disaggregated
    // ("2 prefill × 2 devices (tp2), KV 31,705 blocks each + 1 decode × 4 devices (tp4), ...").
    QString pools;
    double slo_ttft_s = 0, slo_tpot_s = 0;
    double wall_s = 0;
    QString source;  // "benchmark of 500 requests at an infinite rate"
    QString error;
  };
  // The document's settings on the current design; nullopt and the reason (the first issue)
  // when the design or the settings are invalid or a form field holds text that does not parse.
  std::optional<Job> snapshot(QString* error) const;
  // What the worker runs: the serve operation (runs/serve.hpp) on the job.
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
  void showOutcome();
  void drawEmpty();
  void drawCdf(QCustomPlot* plot, std::vector<double> values_ms, double slo_ms);
  void drawTimeline();
  void styleError();
  void changeEvent(QEvent* e) override;
  // One edit of the document's settings (the form refreshes from the document).
  void editSpec(const serving::ServingSpec& next, const QString& what, int field);

  std::optional<perf::Design> design_;
  ConfigDocument own_;  // the document until setDocument()
  ConfigDocument* doc_ = &own_;
  ServingForm* form_ = nullptr;
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
