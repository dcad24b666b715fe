// SPDX-License-Identifier: GPL-3.0-or-later
// File ▸ Export Design Review and `stackscope-cli report`: the review document (provenance, key
// metrics, power per die and layer, every result view's section: its figures without their
// controls, its tables and text, or what was not computed; review_section.hpp, and the project
// JSON) written as one HTML page and a 16:9 PDF (review_report.hpp).
#include <qcustomplot.h>

#include <QApplication>
#include <QChartView>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <functional>
#include <utility>

#include "main_window_detail.hpp"
#include "stackscope/io/project_file.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/ui/breakdown_chart.hpp"
#include "stackscope/ui/compare_view.hpp"
#include "stackscope/ui/experts_view.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/link_view.hpp"
#include "stackscope/ui/main_window.hpp"
#include "stackscope/ui/review_report.hpp"
#include "stackscope/ui/review_section.hpp"
#include "stackscope/ui/search_panel.hpp"
#include "stackscope/ui/serving_view.hpp"
#include "stackscope/ui/thermal_view.hpp"
#include "stackscope/ui/throughput_plot.hpp"
#include "stackscope/ui/wafer_view.hpp"
#include "stackscope/validate/envelope.hpp"

namespace stackscope::ui {

using detail::describeError;
using detail::qs;
using detail::tabPage;

namespace {

QString ms(double s, int decimals) {
  return QString::number(s * 1e3, 'f', decimals) + QStringLiteral(" ms");
}

QString sourced(const std::string& id, const std::string& name, const std::string& source) {
  QString t = qs(name.empty() ? id : name);
  if (!id.empty() && !name.empty()) t += QStringLiteral(" (%1)").arg(qs(id));
  if (!source.empty()) t += QStringLiteral(": ") + qs(source);
  return t;
}

}  // namespace

ReviewDocument MainWindow::reviewDocument() {
  if (debounce_.isActive()) evaluateNow();
  ReviewDocument doc;
  if (!result_) return doc;
  const auto& r = *result_;
  const auto& m = r.metrics;
  // Every view of the current design, the thermal and link views solved for it first.
  thermal_->showDesign(design_, r);
  links_->showDesign(design_, r);
  thermal_->waitForIdle();
  links_->waitForIdle();
  QApplication::processEvents();
  doc.title = design_.name.empty() ? tr("Untitled design") : qs(design_.name);
  doc.subtitle = subtitle_->text();
  doc.version = QStringLiteral(STACKSCOPE_VERSION);
  auto& p = doc.provenance;
  if (origin_.id || !file_.isEmpty())
    p << qMakePair(tr("Project"),
                   origin_.id ? qs(*origin_.id) + (origin_.source ? QStringLiteral(": ") +
                                                                         qs(*origin_.source)
                                                                   : QString())
                              : QFileInfo(file_).fileName());
  p << qMakePair(tr("Device"), sourced(design_.hardware.id, design_.hardware.name,
                                       design_.hardware.source));
  p << qMakePair(tr("System"),
                 sourced(design_.system.id, design_.system.name, std::string()) +
                     tr(" (%1 devices)").arg(design_.system.devices));
  p << qMakePair(tr("Model"),
                 sourced(design_.model.id, design_.model.name, design_.model.source));
  p << qMakePair(tr("Runtime profile"), sourced(design_.runtime.id, design_.runtime.name,
                                                design_.runtime.source));
  p << qMakePair(tr("Kernels"), qs(perf::kernel_source_text(design_, r)));
  p << qMakePair(tr("Validation table"),
                 tr("presets/validation/envelope.json (written by stackscope-cli validate)"));
  p << qMakePair(tr("Tool"), tr("StackScope %1").arg(doc.version));
  auto& k = doc.metrics;
  k << qMakePair(tr("Feasible"), r.feasible ? tr("yes") : tr("no"));
  k << qMakePair(tr("Validation"), qs(validate::match_envelope(io::builtin_envelope(), design_).text));
  for (const auto& reason : perf::describe(r.reasons)) k << qMakePair(tr("Note"), qs(reason));
  k << qMakePair(tr("Batch per replica"), QString::number(r.batch));
  k << qMakePair(tr("TTFT"), ms(m.ttft_s, 2));
  k << qMakePair(tr("TPOT"), ms(m.tpot_s, 3));
  k << qMakePair(tr("UTPS"), readable(m.utps) + QStringLiteral(" tok/s"));
  k << qMakePair(tr("STPS"), readable(m.stps) + QStringLiteral(" tok/s"));
  k << qMakePair(tr("End-to-end output tokens/s"), readable(m.e2e_output_tokens_per_s));
  k << qMakePair(tr("Energy per output token"), readable(m.energy_per_token_j) + QStringLiteral(" J"));
  k << qMakePair(tr("Power per device (run mean)"), readable(m.power_w) + QStringLiteral(" W"));
  k << qMakePair(tr("Memory per device"), tr("%1 of %2 GiB")
                                              .arg(readable(r.memory.total() / 1073741824.0),
                                                   readable(r.memory.capacity / 1073741824.0)));
  k << qMakePair(tr("Die area used / die / reticle"),
                 tr("%1 / %2 / %3 mm²")
                     .arg(readable(r.area.used), readable(r.area.die), readable(r.area.reticle)));
  if (r.thermal.modelled)
    k << qMakePair(tr("Peak DRAM temperature (compact)"),
                   QString::number(r.thermal.dram_peak_C, 'f', 1) + QStringLiteral(" °C"));
  doc.powerTitle = tr("Decode power per die and layer");
  const auto& pw = r.power;
  doc.power << qMakePair(tr("Logic die"), readable(pw.logic_die_W()) + QStringLiteral(" W"));
  for (int i = 1; i <= pw.dram_layers; ++i) {
    doc.power << qMakePair(tr("bond%1").arg(i), readable(pw.bond_W(i)) + QStringLiteral(" W"));
    doc.power << qMakePair(tr("dram%1").arg(i), readable(pw.dram_die_W(i)) + QStringLiteral(" W"));
  }
  if (pw.dram_layers == 0)
    doc.power << qMakePair(tr("DRAM (beside the die)"),
                           readable(pw.dram_access_W) + QStringLiteral(" W"));
  doc.power << qMakePair(tr("Total"), readable(pw.total_W) + QStringLiteral(" W"));
  // Every result view in tab order, each shown in turn so that its figures are laid out at
  // their size on screen (a tab never opened has none); the tab that was shown comes back.
  // A view with nothing computed says so.
  const auto performance = [this] {
    ReviewSection s;
    s.title = tr("Performance");
    s.paragraphs << tr("Time by bounding resource and the throughput-interactivity batch sweep.");
    s.figures << chart_->chartView() << plot_->plot();
    return s;
  };
  const std::pair<QWidget*, std::function<ReviewSection()>> views[] = {
      {chart_, performance},
      {thermal_, [this] { return thermal_->reviewSection(); }},
      {links_, [this] { return links_->reviewSection(); }},
      {compare_, [this] { return compare_->reviewSection(); }},
      {search_, [this] { return search_->reviewSection(); }},
      {serving_, [this] { return serving_->reviewSection(); }},
      {experts_, [this] { return experts_->reviewSection(); }},
      {wafer_, [this] { return wafer_->reviewSection(); }},
  };
  const int shownTab = views_->currentIndex();
  for (const auto& [view, section] : views) {
    views_->setCurrentWidget(tabPage(view));
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    // A lazy view starts its solve when shown: its section is taken once that has finished.
    if (view == thermal_) thermal_->waitForIdle();
    if (view == links_) links_->waitForIdle();
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    doc.sections << section();
  }
  views_->setCurrentIndex(shownTab);
  doc.projectJson = qs(io::project_file_to_json(design_, doc_.serving(), origin_));
  return doc;
}

bool MainWindow::exportReport(const QString& file, QString* error, QStringList* pages) {
  const ReviewDocument doc = reviewDocument();
  if (doc.sections.isEmpty()) {
    if (error) *error = tr("the design is not valid: nothing to report");
    return false;
  }
  // The sections hold the views' figures, which the writers draw while the views still show
  // this design.
  try {
    io::save_text_atomic(file.toStdString(), reviewHtml(doc).toStdString());
  } catch (const std::exception& e) {
    if (error) *error = describeError(e);
    return false;
  }
  const QFileInfo info(file);
  const QString pdf = info.dir().filePath(info.completeBaseName() + QStringLiteral(".pdf"));
  return writeReviewPdf(doc, pdf, pages, error);
}

bool MainWindow::runForReview(const QString& searchSpace, std::uint64_t searchEvals,
                              QString* error) {
  if (debounce_.isActive()) evaluateNow();
  if (!result_) {
    if (error) *error = tr("the design is not valid: nothing to report");
    return false;
  }
  // Each run as its view's Run button starts it, on the project's own settings; a view whose
  // run does not apply to this design (no MoE layers, no wafer) is left to say so.
  const auto settle = [] {
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
  };
  views_->setCurrentWidget(tabPage(serving_));
  settle();
  if (serving_->run()) serving_->waitForIdle();
  settle();
  QString why;
  if (ExpertsView::meshOf(design_, &why)) {
    views_->setCurrentWidget(tabPage(experts_));
    settle();
    if (experts_->run()) experts_->waitForIdle();
    settle();
  }
  if (design_.wafer) {
    views_->setCurrentWidget(tabPage(wafer_));
    settle();
    if (wafer_->runMap()) wafer_->waitForIdle();
    settle();
    if (wafer_->runSweep()) wafer_->waitForIdle();
    settle();
  }
  if (!searchSpace.isEmpty()) {
    views_->setCurrentWidget(tabPage(search_));
    settle();
    // One thread: the points a capped run reaches, and so its frontier, do not depend on
    // thread timing.
    if (!search_->start(searchSpace, error, 1, searchEvals)) return false;
    while (search_->running()) QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    settle();
  }
  views_->setCurrentIndex(0);
  settle();
  return true;
}

void MainWindow::exportReportDialog() {
  QString suggested = QFileInfo(file_).completeBaseName();
  if (suggested.isEmpty()) suggested = QStringLiteral("design-review");
  const QDir folder = QFileInfo(saveAsSuggestion()).absoluteDir();
  const QString f = QFileDialog::getSaveFileName(
      this, tr("Export design review"), folder.filePath(suggested + QStringLiteral(".html")),
      tr("HTML report (*.html)"));
  if (f.isEmpty()) return;
  // The dialog asked about the HTML file only; the slides beside it are asked about here.
  const QFileInfo info(f);
  const QString pdf = info.dir().filePath(info.completeBaseName() + QStringLiteral(".pdf"));
  if (QFileInfo::exists(pdf) &&
      QMessageBox::question(this, tr("Replace the slides?"),
                            tr("%1 already exists beside the review. Replace it with this "
                               "review's slides?")
                                .arg(QFileInfo(pdf).fileName())) != QMessageBox::Yes)
    return;
  QString err;
  if (!exportReport(f, &err))
    QMessageBox::warning(this, tr("Cannot export the report"), err);
  else
    statusBar()->showMessage(tr("Design review written to %1 and its slides (16:9 PDF) beside it")
                                 .arg(f));
}

}  // namespace stackscope::ui
