// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/review_section.hpp"

#include <qcustomplot.h>

#include <QBuffer>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTextDocumentFragment>

namespace stackscope::ui {

QString plainText(const QLabel* label) {
  if (label == nullptr || label->text().isEmpty()) return {};
  const QString t = label->text();
  return Qt::mightBeRichText(t) ? QTextDocumentFragment::fromHtml(t).toPlainText().trimmed()
                                : t.trimmed();
}

QString figureDataUri(QWidget* figure) {
  QPixmap pixmap;
  if (auto* plot = qobject_cast<QCustomPlot*>(figure)) {
    const QSize size = plot->size().expandedTo(QSize(480, 300));
    pixmap = plot->toPixmap(size.width(), size.height(), 2.0);
  } else {
    pixmap = figure->grab();
  }
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  pixmap.save(&buf, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}

QString tableHtml(const QTableWidget* table) {
  const auto header = [](const QTableWidgetItem* item) {
    return item ? item->text().toHtmlEscaped() : QString();
  };
  // Row labels when the table has its own (a hidden tab's header is not "visible", so the
  // header's own hidden state decides).
  bool rowHeads = false;
  if (!table->verticalHeader()->isHidden())
    for (int r = 0; r < table->rowCount() && !rowHeads; ++r)
      rowHeads = table->verticalHeaderItem(r) != nullptr;
  QString html = QStringLiteral("<table>\n<tr>");
  if (rowHeads) html += QStringLiteral("<th></th>");
  for (int c = 0; c < table->columnCount(); ++c)
    html += QStringLiteral("<th>%1</th>").arg(header(table->horizontalHeaderItem(c)));
  html += QStringLiteral("</tr>\n");
  for (int r = 0; r < table->rowCount(); ++r) {
    html += QStringLiteral("<tr>");
    if (rowHeads) html += QStringLiteral("<th>%1</th>").arg(header(table->verticalHeaderItem(r)));
    for (int c = 0; c < table->columnCount(); ++c) {
      const QTableWidgetItem* item = table->item(r, c);
      html += QStringLiteral("<td>%1</td>").arg(item ? item->text().toHtmlEscaped() : QString());
    }
    html += QStringLiteral("</tr>\n");
  }
  return html + QStringLiteral("</table>\n");
}

QString sectionHtml(const ReviewSection& s) {
  QString html = QStringLiteral("<h2>%1</h2>\n").arg(s.title.toHtmlEscaped());
  if (!s.shown())
    return html + QStringLiteral("<p class=\"missing\">%1</p>\n").arg(s.missing.toHtmlEscaped());
  for (const QString& p : s.paragraphs)
    html += QStringLiteral("<p>%1</p>\n").arg(p.toHtmlEscaped().replace(
        QLatin1Char('\n'), QStringLiteral("<br>")));
  for (const QTableWidget* t : s.tables) html += tableHtml(t);
  for (QWidget* f : s.figures)
    html += QStringLiteral("<img alt=\"%1\" src=\"%2\">\n")
                .arg(s.title.toHtmlEscaped(), figureDataUri(f));
  return html;
}

}  // namespace stackscope::ui
