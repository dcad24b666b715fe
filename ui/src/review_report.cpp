// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/review_report.hpp"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCryptographicHash>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QImage>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTableWidget>
#include <algorithm>
#include <exception>
#include <numeric>
#include <optional>

#include "stackscope/io/project.hpp"

namespace stackscope::ui {

namespace {

QString rowsHtml(const ReviewRows& rows) {
  QString html = QStringLiteral("<table>\n");
  for (const auto& [name, value] : rows)
    html += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n")
                .arg(name.toHtmlEscaped(), value.toHtmlEscaped());
  return html + QStringLiteral("</table>\n");
}

// ---- PDF --------------------------------------------------------------------------------------

// A page of 254 mm x 142.875 mm (10 in x 5.625 in, 16:9) at 96 units per inch: 960 x 540 units,
// the size of a plot on a 96-dpi screen, so plots and their fonts keep their on-screen
// proportions.
constexpr double kPageWmm = 254.0;
constexpr double kPageHmm = 142.875;
constexpr int kUnitsPerInch = 96;
constexpr double kMargin = 36;
const QColor kInk(0x1c, 0x2f, 0x4a);
const QColor kMuted(0x6b, 0x77, 0x85);
const QColor kRule(0xd5, 0xda, 0xe1);
const QColor kHeadFill(0xf3, 0xf5, 0xf8);

struct Table {
  QStringList header;  // empty: no header row
  QList<QStringList> rows;
};

Table fromRows(const ReviewRows& rows) {
  Table t;
  for (const auto& [name, value] : rows) t.rows << QStringList{name, value};
  return t;
}

Table fromWidget(const QTableWidget* w) {
  Table t;
  // Row labels when the table has its own (a hidden tab's header is not "visible", so the
  // header's own hidden state decides).
  bool rowHeads = false;
  if (!w->verticalHeader()->isHidden())
    for (int r = 0; r < w->rowCount() && !rowHeads; ++r)
      rowHeads = w->verticalHeaderItem(r) != nullptr;
  const auto text = [](const QTableWidgetItem* item) { return item ? item->text() : QString(); };
  if (rowHeads) t.header << QString();
  for (int c = 0; c < w->columnCount(); ++c) t.header << text(w->horizontalHeaderItem(c));
  for (int r = 0; r < w->rowCount(); ++r) {
    QStringList row;
    if (rowHeads) row << text(w->verticalHeaderItem(r));
    for (int c = 0; c < w->columnCount(); ++c) row << text(w->item(r, c));
    t.rows << row;
  }
  return t;
}

class PdfPages {
 public:
  PdfPages(QPdfWriter& writer, QString footer, QStringList* titles)
      : writer_(writer), footer_(std::move(footer)), titles_(titles) {}

  bool begin() { return painter_.begin(&writer_); }
  bool end() { return painter_.end(); }
  QCPPainter& painter() { return painter_; }
  QRectF page() const { return {0, 0, width(), height()}; }
  double width() const { return kPageWmm / 25.4 * kUnitsPerInch; }
  double height() const { return kPageHmm / 25.4 * kUnitsPerInch; }

  // Starts a page with `title` at the top and the footer; returns the area left for content.
  QRectF newPage(const QString& title, double titlePt = 18) {
    if (count_ > 0) writer_.newPage();
    ++count_;
    if (titles_) *titles_ << title;
    painter_.save();
    painter_.setPen(kInk);
    QFont f = font(titlePt, true);
    painter_.setFont(f);
    const QRectF titleBox(kMargin, kMargin * 0.7, width() - 2 * kMargin, height());
    const QRectF used = painter_.boundingRect(titleBox, Qt::TextWordWrap, title);
    painter_.drawText(titleBox, Qt::TextWordWrap, title);
    painter_.setPen(QPen(kRule, 1));
    const double ruleY = used.bottom() + 6;
    painter_.drawLine(QPointF(kMargin, ruleY), QPointF(width() - kMargin, ruleY));
    painter_.setFont(font(7, false));
    painter_.setPen(kMuted);
    painter_.drawText(QRectF(kMargin, height() - kMargin * 0.75, width() - 2 * kMargin,
                             kMargin * 0.5),
                      Qt::AlignLeft | Qt::AlignVCenter, footer_);
    painter_.drawText(QRectF(kMargin, height() - kMargin * 0.75, width() - 2 * kMargin,
                             kMargin * 0.5),
                      Qt::AlignRight | Qt::AlignVCenter, QString::number(count_));
    painter_.restore();
    return {kMargin, ruleY + 10, width() - 2 * kMargin, height() - kMargin - ruleY - 14};
  }

  QFont font(double pt, bool bold) const {
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(pt);
    f.setBold(bold);
    return f;
  }

  // Wrapped paragraph at the top of `box`; returns the height used.
  double paragraph(const QRectF& box, const QString& text, double pt = 10,
                   const QColor& colour = kInk) {
    painter_.save();
    painter_.setFont(font(pt, false));
    painter_.setPen(colour);
    const QRectF used = painter_.boundingRect(box, Qt::TextWordWrap, text);
    painter_.drawText(box, Qt::TextWordWrap, text);
    painter_.restore();
    return std::min(used.height(), box.height());
  }

  // Draws rows [first, ...) of `t` from the top of `box` until the box is full; returns the
  // first row not drawn (t.rows.size() when all fit) and the height used in `used`. Columns
  // take their widest cell at 9 pt; when they do not fit the width, the wide columns share
  // what the narrow ones leave and their cells wrap; only when the narrow ones alone do not
  // fit does the font shrink (to 6 pt) and, past that, cells are elided.
  qsizetype table(const QRectF& box, const Table& t, qsizetype first, double* used) {
    const int cols = static_cast<int>(std::max<qsizetype>(
        t.header.size(), t.rows.isEmpty() ? 0 : t.rows.front().size()));
    *used = 0;
    if (cols == 0) return t.rows.size();
    constexpr double kPad = 12;
    double pt = 9;
    QVector<double> natural(cols, 0.0), widths(cols, 0.0);
    const auto measure = [&](double size) {
      const QFontMetricsF head(font(size, true), &writer_), body(font(size, false), &writer_);
      // A cell's widest line (two-line headers such as "MoE over\nEP").
      const auto widest = [](const QFontMetricsF& m, const QString& text) {
        double w = 0;
        for (const QString& line : text.split(QLatin1Char('\n')))
          w = std::max(w, m.horizontalAdvance(line));
        return w;
      };
      std::fill(natural.begin(), natural.end(), 0.0);
      for (int c = 0; c < t.header.size(); ++c)
        natural[c] = std::max(natural[c], widest(head, t.header[c]) + kPad);
      for (const QStringList& row : t.rows)
        for (int c = 0; c < row.size() && c < cols; ++c)
          natural[c] = std::max(natural[c], widest(body, row[c]) + kPad);
      widths = natural;
      double sum = 0;
      for (double w : natural) sum += w;
      if (sum <= box.width()) return true;
      // Water-filling: narrowest first, each column takes its natural width or an equal share
      // of what is left, whichever is less, so short columns (labels) stay whole and the wide
      // ones wrap; at least 60 units each.
      QVector<int> order(cols);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](int a, int b) { return natural[a] < natural[b]; });
      double left = box.width();
      for (int i = 0; i < cols; ++i) {
        const int c = order[i];
        widths[c] = std::max(60.0, std::min(natural[c], left / (cols - i)));
        left -= widths[c];
      }
      return left >= -0.5;
    };
    while (!measure(pt) && pt > 6) pt -= 0.5;
    double total = 0;
    for (double w : widths) total += w;
    if (total > box.width())
      for (double& w : widths) w *= box.width() / total;
    total = std::min(total, box.width());
    const QFont headFont = font(pt, true), bodyFont = font(pt, false);
    const QFontMetricsF fm(bodyFont, &writer_);
    const double lineH = fm.height();
    // A row's height: its tallest wrapped cell (at most four lines; longer cells are cut).
    const auto heightOf = [&](const QStringList& cells, bool head) {
      const QFontMetricsF m(head ? headFont : bodyFont, &writer_);
      double h = lineH;
      for (int c = 0; c < cols && c < cells.size(); ++c)
        h = std::max(h, m.boundingRect(QRectF(0, 0, widths[c] - kPad, 1e6), Qt::TextWordWrap,
                                       cells[c])
                            .height());
      return std::min(h, 4 * lineH) + lineH * 0.45;
    };
    double y = box.top();
    painter_.save();
    const auto drawRow = [&](const QStringList& cells, bool head, double rowH) {
      double x = box.left();
      if (head) painter_.fillRect(QRectF(x, y, total, rowH), kHeadFill);
      painter_.setFont(head ? headFont : bodyFont);
      painter_.setPen(kInk);
      for (int c = 0; c < cols; ++c) {
        const QString cell = c < cells.size() ? cells[c] : QString();
        const QRectF r(x + kPad / 2, y + lineH * 0.2, widths[c] - kPad, rowH - lineH * 0.4);
        const bool fits = !cell.contains(QLatin1Char('\n')) &&
                          QFontMetricsF(painter_.font(), &writer_).horizontalAdvance(cell) <=
                              r.width();
        painter_.save();
        painter_.setClipRect(r.adjusted(0, -2, 0, 2));
        painter_.drawText(r, (fits ? Qt::AlignVCenter : Qt::AlignTop) | Qt::AlignLeft |
                                 Qt::TextWordWrap,
                          cell);
        painter_.restore();
        x += widths[c];
      }
      painter_.setPen(QPen(kRule, 0.75));
      painter_.drawLine(QPointF(box.left(), y + rowH), QPointF(box.left() + total, y + rowH));
      y += rowH;
    };
    if (!t.header.isEmpty()) drawRow(t.header, true, heightOf(t.header, true));
    qsizetype r = first;
    for (; r < t.rows.size(); ++r) {
      const double h = heightOf(t.rows[r], false);
      if (y + h > box.bottom() && r > first) break;
      drawRow(t.rows[r], false, h);
    }
    painter_.restore();
    *used = y - box.top();
    return r;
  }

  // A figure scaled to fit `box` and centred in it: a QCustomPlot laid out at the box's size
  // and drawn as vectors, any other widget rendered at twice its on-screen pixel density.
  void figure(QWidget* w, const QRectF& box) {
    painter_.save();
    if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
      const int pw = static_cast<int>(box.width());
      const int ph = static_cast<int>(box.height());
      painter_.translate(box.topLeft());
      painter_.setClipRect(QRectF(0, 0, pw, ph));
      plot->toPainter(&painter_, pw, ph);
      // Back to its on-screen layout (toPainter lays the plot out at the size it draws).
      plot->replot(QCustomPlot::rpImmediateRefresh);
    } else {
      const QSize size = w->size().expandedTo(QSize(1, 1));
      QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
      image.setDevicePixelRatio(2);
      image.fill(Qt::white);
      w->render(&image);
      const double s = std::min(box.width() / size.width(), box.height() / size.height());
      const QSizeF drawn(size.width() * s, size.height() * s);
      const QRectF target(box.left() + (box.width() - drawn.width()) / 2, box.top(),
                          drawn.width(), drawn.height());
      painter_.setRenderHint(QPainter::SmoothPixmapTransform);
      painter_.drawImage(target, image);
    }
    painter_.restore();
  }

  int count() const { return count_; }
  // Height of the paragraphs as paragraph() draws them in a box `width` wide, 8 units apart.
  double measure(const QStringList& paragraphs, double width, double pt = 10) const {
    const QFontMetricsF m(font(pt, false), &writer_);
    double h = 0;
    for (const QString& p : paragraphs)
      h += m.boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap, p).height() + 8;
    return h;
  }
  // The content area newPage() leaves under a one-line title.
  QRectF contentArea() const {
    const double title = QFontMetricsF(font(18, true), &writer_).height();
    return {kMargin, kMargin * 0.7 + title + 16, width() - 2 * kMargin,
            height() - kMargin - (kMargin * 0.7 + title + 6) - 14};
  }
  // Renames the last page in the page list (its drawn title stays): a page that was to hold
  // a figure and ended up holding only text.
  void retitle(const QString& title) {
    if (titles_ && !titles_->isEmpty()) titles_->last() = title;
  }

 private:
  QPdfWriter& writer_;
  QCPPainter painter_;
  QString footer_;
  QStringList* titles_;
  int count_ = 0;
};

// Text, then the tables over as many pages as they need; `title` heads the first page and
// "(continued)" the next ones.
void textAndTables(PdfPages& pdf, const QString& title, const QStringList& paragraphs,
                   const QList<Table>& tables) {
  QRectF box = pdf.newPage(title);
  for (const QString& p : paragraphs) {
    const double h = pdf.paragraph(box, p);
    box.setTop(box.top() + h + 8);
  }
  for (const Table& t : tables) {
    qsizetype next = 0;
    while (true) {
      double used = 0;
      next = pdf.table(box, t, next, &used);
      box.setTop(box.top() + used + 12);
      if (next >= t.rows.size()) break;
      box = pdf.newPage(title + QObject::tr(" (continued)"));
    }
  }
}

// Qt's PDF engine stamps the creation time and random XMP identifiers into every file; they
// are overwritten in place by fixed values of the same length (the cross-reference table holds
// byte offsets), so equal documents give equal bytes.
QByteArray reproducible(QByteArray pdf, const QByteArray& seed) {
  const QByteArray uuid =
      QCryptographicHash::hash(seed, QCryptographicHash::Sha1).toHex().left(32);
  const QByteArray uuidText = uuid.left(8) + '-' + uuid.mid(8, 4) + '-' + uuid.mid(12, 4) + '-' +
                              uuid.mid(16, 4) + '-' + uuid.mid(20, 12);
  const auto overwrite = [&pdf](const QRegularExpression& re, const auto& replace) {
    const QString text = QString::fromLatin1(pdf);
    auto it = re.globalMatch(text);
    while (it.hasNext()) {
      const auto m = it.next();
      const QByteArray by = replace(m.captured(1).toLatin1());
      if (by.size() == m.capturedLength(1)) pdf.replace(m.capturedStart(1), by.size(), by);
    }
  };
  // "/CreationDate (D:20261207101500+01'00')" and XMP's "2026-12-07T10:15:00+01:00".
  overwrite(QRegularExpression(QStringLiteral("/CreationDate \\(D:([0-9+\\-Z']+)\\)")),
            [](const QByteArray& s) {
              QByteArray out = "19700101000000";
              out += s.mid(14).isEmpty() ? QByteArray() : QByteArray("Z");
              while (out.size() < s.size()) out += ' ';
              return out.left(s.size());
            });
  overwrite(QRegularExpression(QStringLiteral(
                "(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:[+\\-]\\d\\d:\\d\\d|Z)?)")),
            [](const QByteArray& s) {
              QByteArray out = "1970-01-01T00:00:00";
              if (s.size() > out.size()) out += QByteArray("+00:00").left(s.size() - out.size());
              return out.left(s.size());
            });
  overwrite(QRegularExpression(QStringLiteral(
                "uuid:([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                "[0-9a-fA-F]{12})")),
            [&uuidText](const QByteArray&) { return uuidText; });
  // The trailer's /ID [<hex> <hex>] pair.
  overwrite(QRegularExpression(QStringLiteral("/ID \\[\\s*<([0-9a-fA-F]+)>")),
            [&uuid](const QByteArray& s) { return uuid.repeated(4).left(s.size()); });
  overwrite(QRegularExpression(QStringLiteral("/ID \\[\\s*<[0-9a-fA-F]+>\\s*<([0-9a-fA-F]+)>")),
            [&uuid](const QByteArray& s) { return uuid.repeated(4).left(s.size()); });
  return pdf;
}

}  // namespace

QString reviewHtml(const ReviewDocument& doc) {
  QString html = QStringLiteral(
                     "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title><style>"
                     "body{font-family:sans-serif;margin:24px;color:#1c2f4a}table{border-collapse:"
                     "collapse;margin:8px 0 16px}th,td{border:1px solid #d5dae1;padding:3px 8px;"
                     "text-align:left}th{background:#f3f5f8}img{max-width:100%;border:1px solid "
                     "#d5dae1;margin:6px 0}.missing{color:#6b7785;font-style:italic}pre{background:"
                     "#f7f8fa;padding:8px;font-size:9pt;overflow:auto}"
                     "</style></head><body>\n")
                     .arg(doc.title.toHtmlEscaped());
  html += QStringLiteral("<h1>%1</h1>\n<p>%2</p>\n")
              .arg(doc.title.toHtmlEscaped(), doc.subtitle.toHtmlEscaped());
  html += QStringLiteral("<h2>%1</h2>\n").arg(QObject::tr("Key metrics")) + rowsHtml(doc.metrics);
  html += QStringLiteral("<h2>%1</h2>\n").arg(doc.powerTitle.toHtmlEscaped()) + rowsHtml(doc.power);
  for (const ReviewSection& s : doc.sections) html += sectionHtml(s);
  html += QStringLiteral("<h2>%1</h2>\n").arg(QObject::tr("Provenance")) +
          rowsHtml(doc.provenance);
  html += QStringLiteral("<h2>%1</h2><p>%2</p><pre id=\"project\">%3</pre>\n")
              .arg(QObject::tr("Project"),
                   QObject::tr("The design as a StackScope project (save it as .json to load it "
                               "in the workbench or stackscope-cli)."),
                   doc.projectJson.toHtmlEscaped());
  html += QStringLiteral("<p><small>StackScope %1</small></p></body></html>\n").arg(doc.version);
  return html;
}

bool writeReviewPdf(const ReviewDocument& doc, const QString& file, QStringList* pages,
                    QString* error) {
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setPageSize(QPageSize(QSizeF(kPageWmm, kPageHmm), QPageSize::Millimeter,
                                 QStringLiteral("16:9"), QPageSize::ExactMatch));
    writer.setPageOrientation(QPageLayout::Portrait);
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(kUnitsPerInch);
    writer.setTitle(doc.title);
    writer.setCreator(QStringLiteral("StackScope %1").arg(doc.version));
    if (pages) pages->clear();
    PdfPages pdf(writer, doc.title, pages);
    if (!pdf.begin()) {
      if (error) *error = QObject::tr("cannot start the PDF writer");
      return false;
    }
    // Title page: the design, its header line and where everything comes from.
    QRectF box = pdf.newPage(doc.title, 24);
    box.setTop(box.top() + pdf.paragraph(box, doc.subtitle, 12, kMuted) + 14);
    double used = 0;
    pdf.table(box, fromRows(doc.provenance), 0, &used);
    // Key metrics beside the power per die and layer.
    box = pdf.newPage(QObject::tr("Key metrics"));
    const double left = (box.width() - 24) * 0.6;
    Table metrics = fromRows(doc.metrics);
    qsizetype next = pdf.table(QRectF(box.left(), box.top(), left, box.height()), metrics, 0,
                               &used);
    Table power = fromRows(doc.power);
    power.header = QStringList{doc.powerTitle, QString()};
    const auto rightOf = [left](const QRectF& b) {
      return QRectF(b.left() + left + 24, b.top(), b.width() - left - 24, b.height());
    };
    qsizetype nextPower = pdf.table(rightOf(box), power, 0, &used);
    while (next < metrics.rows.size() || nextPower < power.rows.size()) {
      box = pdf.newPage(QObject::tr("Key metrics (continued)"));
      if (next < metrics.rows.size())
        next = pdf.table(QRectF(box.left(), box.top(), left, box.height()), metrics, next, &used);
      if (nextPower < power.rows.size())
        nextPower = pdf.table(rightOf(box), power, nextPower, &used);
    }
    QStringList missing;
    for (const ReviewSection& s : doc.sections) {
      if (!s.shown()) {
        missing << s.title + QStringLiteral(": ") + s.missing;
        continue;
      }
      QList<Table> tables;
      for (const QTableWidget* t : s.tables) tables << fromWidget(t);
      const auto figureTitle = [&s](qsizetype i) {
        return s.figures.size() == 1
                   ? s.title
                   : QObject::tr("%1 (figure %2 of %3)").arg(s.title).arg(i + 1).arg(
                         s.figures.size());
      };
      // Text without tables heads the first figure's page when it leaves the figure most of
      // the page; otherwise text and tables get pages of their own.
      std::optional<QRectF> firstBox;
      if (!tables.isEmpty()) {
        textAndTables(pdf, s.title, s.paragraphs, tables);
      } else if (!s.paragraphs.isEmpty()) {
        const QRectF area = pdf.contentArea();
        const bool shared = !s.figures.isEmpty() &&
                            pdf.measure(s.paragraphs, area.width()) <= 0.4 * area.height();
        box = pdf.newPage(shared ? figureTitle(0) : s.title);
        for (const QString& p : s.paragraphs) box.setTop(box.top() + pdf.paragraph(box, p) + 8);
        if (shared) firstBox = box;
      }
      for (qsizetype i = 0; i < s.figures.size(); ++i)
        pdf.figure(s.figures[i], i == 0 && firstBox ? *firstBox : pdf.newPage(figureTitle(i)));
    }
    if (!missing.isEmpty()) {
      box = pdf.newPage(QObject::tr("Not in this review"));
      for (const QString& m : missing) box.setTop(box.top() + pdf.paragraph(box, m) + 8);
    }
    if (!pdf.end()) {
      if (error) *error = QObject::tr("the PDF writer failed");
      return false;
    }
  }
  bytes = reproducible(bytes, doc.title.toUtf8() + doc.projectJson.toUtf8());
  try {
    io::save_text_atomic(file.toStdString(), std::string_view(bytes.constData(), bytes.size()));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

}  // namespace stackscope::ui
