// SPDX-License-Identifier: GPL-3.0-or-later
// File ▸ Export Design Review: one HTML file with the key metrics, power per die and layer,
// every result view's section (its figures without their controls, its tables and text, or
// what was not computed; review_section.hpp) and the project JSON.
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

QString row(const QString& name, const QString& value) {
  return QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(name.toHtmlEscaped(), value);
}

}  // namespace

bool MainWindow::exportReport(const QString& file, QString* error) {
  if (debounce_.isActive()) evaluateNow();
  if (!result_) {
    if (error) *error = tr("the design is not valid: nothing to report");
    return false;
  }
  const auto& r = *result_;
  const auto& m = r.metrics;
  // Every view of the current design, the thermal and link views solved for it first.
  thermal_->showDesign(design_, r);
  links_->showDesign(design_, r);
  thermal_->waitForIdle();
  links_->waitForIdle();
  QApplication::processEvents();
  const QString name = design_.name.empty() ? tr("Untitled design") : qs(design_.name);
  QString html;
  html += QStringLiteral(
              "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title><style>"
              "body{font-family:sans-serif;margin:24px;color:#1c2f4a}table{border-collapse:"
              "collapse;margin:8px 0 16px}th,td{border:1px solid #d5dae1;padding:3px 8px;"
              "text-align:left}th{background:#f3f5f8}img{max-width:100%;border:1px solid #d5dae1;"
              "margin:6px 0}.missing{color:#6b7785;font-style:italic}pre{background:#f7f8fa;padding:8px;font-size:9pt;overflow:auto}"
              "</style></head><body>\n")
              .arg(name.toHtmlEscaped());
  html += QStringLiteral("<h1>%1</h1>\n<p>%2</p>\n")
              .arg(name.toHtmlEscaped(), subtitle_->text().toHtmlEscaped());
  html += QStringLiteral("<h2>%1</h2><table>\n").arg(tr("Key metrics"));
  html += row(tr("Feasible"), r.feasible ? tr("yes") : tr("no"));
  html += row(tr("Validation"),
              qs(validate::match_envelope(io::builtin_envelope(), design_).text).toHtmlEscaped());
  html += row(tr("Kernels"), qs(perf::kernel_source_text(design_, r)).toHtmlEscaped());
  for (const auto& reason : perf::describe(r.reasons))
    html += row(tr("Note"), qs(reason).toHtmlEscaped());
  html += row(tr("Batch per replica"), QString::number(r.batch));
  html += row(tr("TTFT"), QString::number(m.ttft_s * 1e3, 'f', 2) + QStringLiteral(" ms"));
  html += row(tr("TPOT"), QString::number(m.tpot_s * 1e3, 'f', 3) + QStringLiteral(" ms"));
  html += row(tr("UTPS"), readable(m.utps) + QStringLiteral(" tok/s"));
  html += row(tr("STPS"), readable(m.stps) + QStringLiteral(" tok/s"));
  html += row(tr("End-to-end output tokens/s"), readable(m.e2e_output_tokens_per_s));
  html += row(tr("Energy per output token"), readable(m.energy_per_token_j) + QStringLiteral(" J"));
  html += row(tr("Power per device (run mean)"), readable(m.power_w) + QStringLiteral(" W"));
  html += row(tr("Memory per device"), tr("%1 of %2 GiB")
                                           .arg(readable(r.memory.total() / 1073741824.0),
                                                readable(r.memory.capacity / 1073741824.0)));
  html += row(tr("Die area used / die / reticle"),
              tr("%1 / %2 / %3 mm²")
                  .arg(readable(r.area.used), readable(r.area.die), readable(r.area.reticle)));
  if (r.thermal.modelled)
    html += row(tr("Peak DRAM temperature (compact)"),
                QString::number(r.thermal.dram_peak_C, 'f', 1) + QStringLiteral(" °C"));
  html +=
      QStringLiteral("</table>\n<h2>%1</h2><table>\n").arg(tr("Decode power per die and layer"));
  const auto& pw = r.power;
  html += row(tr("Logic die"), readable(pw.logic_die_W()) + QStringLiteral(" W"));
  for (int k = 1; k <= pw.dram_layers; ++k) {
    html += row(tr("bond%1").arg(k), readable(pw.bond_W(k)) + QStringLiteral(" W"));
    html += row(tr("dram%1").arg(k), readable(pw.dram_die_W(k)) + QStringLiteral(" W"));
  }
  if (pw.dram_layers == 0)
    html += row(tr("DRAM (beside the die)"), readable(pw.dram_access_W) + QStringLiteral(" W"));
  html += row(tr("Total"), readable(pw.total_W) + QStringLiteral(" W"));
  html += QStringLiteral("</table>\n");
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
    html += sectionHtml(section());
  }
  views_->setCurrentIndex(shownTab);
  html += QStringLiteral("<h2>%1</h2><p>%2</p><pre id=\"project\">%3</pre>\n")
              .arg(tr("Project"),
                   tr("The design as a StackScope project (save it as .json to load it in the "
                      "workbench or stackscope-cli)."),
                   qs(io::project_file_to_json(design_, doc_.serving(), origin_)).toHtmlEscaped());
  html += QStringLiteral("<p><small>StackScope %1</small></p></body></html>\n")
              .arg(QStringLiteral(STACKSCOPE_VERSION));
  try {
    io::save_text_atomic(file.toStdString(), html.toStdString());
  } catch (const std::exception& e) {
    if (error) *error = describeError(e);
    return false;
  }
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
  QString err;
  if (!exportReport(f, &err))
    QMessageBox::warning(this, tr("Cannot export the report"), err);
  else
    statusBar()->showMessage(tr("Design review written to %1").arg(f));
}

}  // namespace stackscope::ui
