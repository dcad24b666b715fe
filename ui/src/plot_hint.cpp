// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/plot_hint.hpp"

#include <qcustomplot.h>

#include <QEvent>
#include <QPainter>
#include <QPointer>
#include <QWidget>
#include <algorithm>

#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

const QString kHintName = QStringLiteral("plotHint");

// Covers its parent view; mouse events pass through to the view (its export menu, its drags).
class PlotHint : public QWidget {
  Q_OBJECT
 public:
  PlotHint(QWidget* view, QCustomPlot* plot) : QWidget(view), plot_(plot) {
    setObjectName(kHintName);
    setAttribute(Qt::WA_TransparentForMouseEvents);
    view->installEventFilter(this);
    setGeometry(view->rect());
  }
  void setText(const QString& text) {
    text_ = text;
    setAccessibleName(text);
    update();
  }
  QString text() const { return text_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (watched == parent() && e->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return false;
  }

  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QColor quiet = theme::quietInk();
    QRect inner = rect().adjusted(16, 12, -16, -12);
    if (plot_) {
      // A faint frame where the axes will be, labelled as the plot's axes are.
      QFont small = font();
      small.setPointSizeF(std::max(7.0, small.pointSizeF() - 0.5));
      p.setFont(small);
      const int line = QFontMetrics(small).height();
      const QString xLabel = plot_->xAxis->label(), yLabel = plot_->yAxis->label();
      const QRect frame = rect().adjusted(yLabel.isEmpty() ? 24 : 20 + line, 16, -20,
                                          -(xLabel.isEmpty() ? 24 : 20 + line));
      QColor faint = quiet;
      faint.setAlphaF(0.35f);
      p.setPen(QPen(faint, 1));
      p.drawLine(frame.bottomLeft(), frame.topLeft());
      p.drawLine(frame.bottomLeft(), frame.bottomRight());
      QColor label = quiet;
      label.setAlphaF(0.75f);
      p.setPen(label);
      if (!xLabel.isEmpty())
        p.drawText(QRect(frame.left(), frame.bottom() + 4, frame.width(), line),
                   Qt::AlignHCenter | Qt::AlignTop, xLabel);
      if (!yLabel.isEmpty()) {
        p.save();
        p.translate(frame.left() - 4 - line, frame.bottom());
        p.rotate(-90);
        p.drawText(QRect(0, 0, frame.height(), line), Qt::AlignHCenter | Qt::AlignTop, yLabel);
        p.restore();
      }
      inner = frame.adjusted(12, 8, -12, -8);
    }
    // The sentence: a little larger than the body text, wrapped to a readable measure.
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.15);
    p.setFont(big);
    p.setPen(quiet);
    const int width = std::min(inner.width(), QFontMetrics(big).averageCharWidth() * 56);
    const QRect box(inner.center().x() - width / 2, inner.top(), width, inner.height());
    p.drawText(box, Qt::AlignCenter | Qt::TextWordWrap, text_);
  }

 private:
  QPointer<QCustomPlot> plot_;
  QString text_;
};

PlotHint* hintOf(const QWidget* view) {
  return view ? view->findChild<PlotHint*>(kHintName, Qt::FindDirectChildrenOnly) : nullptr;
}

PlotHint* ensureHint(QWidget* view, QCustomPlot* plot) {
  PlotHint* hint = hintOf(view);
  if (!hint) {
    hint = new PlotHint(view, plot);
    hint->hide();
  }
  return hint;
}

void showOver(PlotHint* hint, bool on) {
  if (on) {
    hint->raise();  // above a chart view's viewport
    hint->show();
  } else {
    hint->hide();
  }
}

}  // namespace

bool plotHasData(const QCustomPlot* plot) {
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = const_cast<QCustomPlot*>(plot)->plottable(i);
    if (!p->visible()) continue;
    if (QCPPlottableInterface1D* data = p->interface1D()) {
      if (data->dataCount() > 0) return true;
    } else if (auto* map = qobject_cast<QCPColorMap*>(p)) {
      if (!map->data()->isEmpty()) return true;
    } else {
      return true;  // a plottable of another kind: assume it shows something
    }
  }
  return false;
}

void setPlotHint(QCustomPlot* plot, const QString& text) {
  const bool installed = hintOf(plot) != nullptr;
  PlotHint* hint = ensureHint(plot, plot);
  hint->setText(text);
  if (!installed)
    QObject::connect(plot, &QCustomPlot::afterReplot, hint,
                     [plot, hint] { showOver(hint, !plotHasData(plot)); });
  showOver(hint, !plotHasData(plot));
}

void showHint(QWidget* view, const QString& text) {
  PlotHint* hint = ensureHint(view, nullptr);
  hint->setText(text);
  showOver(hint, true);
}

void hideHint(QWidget* view) {
  if (PlotHint* hint = hintOf(view)) hint->hide();
}

QString shownHint(const QWidget* view) {
  const PlotHint* hint = hintOf(view);
  return hint && !hint->isHidden() ? hint->text() : QString();
}

}  // namespace stackscope::ui

#include "plot_hint.moc"
