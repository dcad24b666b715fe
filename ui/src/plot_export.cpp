// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/plot_export.hpp"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace stackscope::ui {

bool saveView(QWidget* view, const QString& file, QString* error) {
  const QString suffix = QFileInfo(file).suffix().toLower();
  bool ok = false;
  auto* plot = qobject_cast<QCustomPlot*>(view);
  if (suffix == QStringLiteral("png")) {
    ok = plot ? plot->savePng(file, 0, 0, 2.0) : view->grab().save(file, "PNG");
  } else if (suffix == QStringLiteral("pdf")) {
    if (plot) {
      ok = plot->savePdf(file);
    } else {
      QPdfWriter pdf(file);
      pdf.setPageSize(QPageSize(view->size(), QPageSize::Point));
      pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
      pdf.setResolution(72);
      QPainter p;
      ok = p.begin(&pdf);
      if (ok) {
        view->render(&p);
        ok = p.end();
      }
    }
  } else if (suffix == QStringLiteral("svg")) {
    QSvgGenerator svg;
    svg.setFileName(file);
    svg.setSize(view->size());
    svg.setViewBox(QRect(QPoint(0, 0), view->size()));
    svg.setTitle(QStringLiteral("StackScope"));
    if (plot) {  // vector output through QCustomPlot's own painter
      QCPPainter p;
      ok = p.begin(&svg);
      if (ok) {
        plot->toPainter(&p, view->width(), view->height());
        ok = p.end();
      }
    } else {
      QPainter p;
      ok = p.begin(&svg);
      if (ok) {
        view->render(&p);
        ok = p.end();
      }
    }
  } else {
    if (error)
      *error = QObject::tr("unknown image format '.%1' (allowed: .png, .pdf, .svg)").arg(suffix);
    return false;
  }
  if (!ok && error) *error = QObject::tr("cannot write %1").arg(file);
  return ok && QFileInfo(file).size() > 0;
}

void attachExportMenu(QWidget* view, const QString& baseName) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, baseName](QPoint at) {
    QMenu menu(view);
    QAction* save = menu.addAction(QObject::tr("Save plot as…"));
    if (menu.exec(view->mapToGlobal(at)) != save) return;
    const QString f = QFileDialog::getSaveFileName(
        view, QObject::tr("Save plot"), baseName + QStringLiteral(".png"),
        QObject::tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
    if (f.isEmpty()) return;
    QString err;
    if (!saveView(view, f, &err))
      QMessageBox::warning(view, QObject::tr("Cannot save the plot"), err);
  });
}

}  // namespace stackscope::ui
