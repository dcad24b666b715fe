// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/result_pane.hpp"

#include <qcustomplot.h>

#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QCursor>
#include <QHBoxLayout>
#include <QIconEngine>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>

#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

enum class Glyph { maximise, restore, detach, dock };

// The buttons' glyphs, drawn when painted in the theme's ink (light on a dark palette).
class GlyphEngine : public QIconEngine {
 public:
  explicit GlyphEngine(Glyph g) : glyph_(g) {}
  QIconEngine* clone() const override { return new GlyphEngine(glyph_); }
  QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State state) override {
    QPixmap pm(size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    paint(&p, QRect(QPoint(0, 0), size), mode, state);
    return pm;
  }
  void paint(QPainter* p, const QRect& rect, QIcon::Mode mode, QIcon::State) override {
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    QColor ink = theme::ink();
    if (mode == QIcon::Disabled) ink.setAlphaF(0.4f);
    // A 16-unit square grid scaled to the icon.
    const double s = std::min(rect.width(), rect.height()) / 16.0;
    p->translate(rect.center() - QPointF(8 * s, 8 * s) + QPointF(0.5, 0.5));
    p->scale(s, s);
    p->setPen(QPen(ink, 1.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p->setBrush(Qt::NoBrush);
    const auto corners = [p](double in, double len, bool outward) {
      // Four corner brackets pointing out (enlarge) or in (shrink back).
      for (int cx : {0, 1})
        for (int cy : {0, 1}) {
          const double x = cx ? 16 - in : in, y = cy ? 16 - in : in;
          const double dx = (cx ? -1 : 1) * len, dy = (cy ? -1 : 1) * len;
          QPainterPath path;
          if (outward) {
            path.moveTo(x + dx, y);
            path.lineTo(x, y);
            path.lineTo(x, y + dy);
          } else {
            const double ix = x + dx, iy = y + dy;
            path.moveTo(x, iy);
            path.lineTo(ix, iy);
            path.lineTo(ix, y);
          }
          p->drawPath(path);
        }
    };
    switch (glyph_) {
      case Glyph::maximise: corners(2.5, 4.5, true); break;
      case Glyph::restore: corners(1.5, 4.5, false); break;
      case Glyph::detach:
      case Glyph::dock: {
        p->drawRoundedRect(QRectF(2, 5.5, 8.5, 8.5), 1.2, 1.2);
        const QPointF tip = glyph_ == Glyph::detach ? QPointF(14, 2) : QPointF(7.5, 8.5);
        const QPointF tail = glyph_ == Glyph::detach ? QPointF(7.5, 8.5) : QPointF(14, 2);
        p->drawLine(tail, tip);
        const QPointF back = glyph_ == Glyph::detach ? QPointF(-1, 1) : QPointF(1, -1);
        p->drawLine(tip, tip + QPointF(back.x() * 4.5, 0));
        p->drawLine(tip, tip + QPointF(0, back.y() * 4.5));
        break;
      }
    }
    p->restore();
  }

 private:
  Glyph glyph_;
};

QIcon glyphIcon(Glyph g) {
  return QIcon(new GlyphEngine(g));
}

QToolButton* toolButton(QWidget* parent, const QString& name) {
  auto* b = new QToolButton(parent);
  b->setObjectName(name);
  b->setAutoRaise(true);
  b->setIconSize(QSize(16, 16));
  b->setFocusPolicy(Qt::TabFocus);
  return b;
}

// A detached view's window: closing it docks the view again, unless the main window has gone
// (the application quitting closes every window: the view then stays detached next time).
class DetachedWindow : public QWidget {
 public:
  DetachedWindow(QWidget* parent, std::function<void()> onClose, std::function<void()> onMove)
      : QWidget(parent, Qt::Window), onClose_(std::move(onClose)), onMove_(std::move(onMove)) {}

 protected:
  void closeEvent(QCloseEvent* e) override {
    e->accept();
    if (parentWidget() && parentWidget()->isVisible()) onClose_();
  }
  void moveEvent(QMoveEvent* e) override {
    QWidget::moveEvent(e);
    onMove_();
  }
  void resizeEvent(QResizeEvent* e) override {
    QWidget::resizeEvent(e);
    onMove_();
  }

 private:
  std::function<void()> onClose_, onMove_;
};

// Puts `buttons` at the end of the view's first row: its layout's first item if that is a
// horizontal box, or a single widget (a title, a banner) made into a row with them. False if
// the view has no such row.
bool joinFirstRow(QWidget* view, QWidget* buttons) {
  auto* top = qobject_cast<QBoxLayout*>(view->layout());
  if (!top || top->count() == 0) return false;
  QLayoutItem* first = top->itemAt(0);
  if (auto* row = qobject_cast<QHBoxLayout*>(first->layout())) {
    // Centred on a row of one line; at the top of a row holding a form of several.
    bool nested = false;
    for (int i = 0; i < row->count(); ++i) nested = nested || row->itemAt(i)->layout() != nullptr;
    row->addWidget(buttons, 0, nested ? Qt::AlignTop : Qt::AlignVCenter);
    return true;
  }
  QWidget* lead = first->widget();
  if (!lead || top->direction() != QBoxLayout::TopToBottom) return false;
  top->removeWidget(lead);
  auto* row = new QHBoxLayout();
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(lead, 1);
  // Centred on a line of text; at the top of anything taller (a form).
  row->addWidget(buttons, 0, qobject_cast<QLabel*>(lead) ? Qt::AlignVCenter : Qt::AlignTop);
  top->insertLayout(0, row);
  return true;
}

}  // namespace

ResultPane::ResultPane(const QString& id, const QString& title, QWidget* view, QWidget* parent)
    : QWidget(parent), id_(id), title_(title), view_(view) {
  setObjectName(id + QStringLiteral("Pane"));
  frame_ = new QVBoxLayout(this);
  frame_->setContentsMargins(0, 0, 0, 0);
  frame_->setSpacing(0);
  body_ = new QWidget(this);
  body_->setObjectName(id + QStringLiteral("PaneBody"));
  auto* bodyBox = new QVBoxLayout(body_);
  bodyBox->setContentsMargins(0, 0, 0, 0);
  bodyBox->setSpacing(2);

  auto* buttons = new QWidget(body_);
  buttons->setObjectName(QStringLiteral("paneButtons"));
  auto* buttonBox = new QHBoxLayout(buttons);
  buttonBox->setContentsMargins(4, 0, 0, 0);
  buttonBox->setSpacing(0);
  maximise_ = toolButton(buttons, QStringLiteral("paneMaximise"));
  detach_ = toolButton(buttons, QStringLiteral("paneDetach"));
  buttonBox->addWidget(maximise_);
  buttonBox->addWidget(detach_);
  if (!joinFirstRow(view, buttons)) {
    auto* bar = new QWidget(body_);
    bar->setObjectName(QStringLiteral("paneTitleBar"));
    auto* barBox = new QHBoxLayout(bar);
    barBox->setContentsMargins(0, 0, 0, 0);
    auto* name = new QLabel(title, bar);
    name->setObjectName(QStringLiteral("sectionTitle"));
    barBox->addWidget(name, 1);
    barBox->addWidget(buttons);
    bodyBox->addWidget(bar);
  }
  bodyBox->addWidget(view, 1);
  frame_->addWidget(body_, 1);

  // Where a detached view was: what happened and the way back.
  placeholder_ = new QWidget(this);
  placeholder_->setObjectName(QStringLiteral("panePlaceholder"));
  auto* ph = new QVBoxLayout(placeholder_);
  ph->addStretch(1);
  placeholderText_ = new QLabel(tr("%1 is in a window of its own.").arg(title), placeholder_);
  placeholderText_->setObjectName(QStringLiteral("hint"));
  placeholderText_->setAlignment(Qt::AlignCenter);
  placeholderText_->setWordWrap(true);
  ph->addWidget(placeholderText_);
  auto* back = new QPushButton(tr("Dock it back"), placeholder_);
  back->setObjectName(QStringLiteral("paneDockBack"));
  ph->addWidget(back, 0, Qt::AlignHCenter);
  ph->addStretch(1);
  placeholder_->hide();
  frame_->addWidget(placeholder_, 1);

  connect(maximise_, &QToolButton::clicked, this, &ResultPane::toggleMaximised);
  connect(detach_, &QToolButton::clicked, this, [this] {
    if (state_ == State::detached)
      restore();
    else
      detach();
  });
  connect(back, &QPushButton::clicked, this, &ResultPane::restore);
  updateButtons();
}

ResultPane::~ResultPane() {
  // The view is the pane's wherever it is shown.
  if (window_) delete window_.data();
  if (body_ && body_->parent() != this) delete body_.data();
}

ResultArea* ResultPane::area() const {
  if (!area_)
    for (QWidget* w = parentWidget(); w && !area_; w = w->parentWidget())
      area_ = qobject_cast<ResultArea*>(w);
  return area_;
}

void ResultPane::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (!area_ && area()) updateButtons();
}

QString ResultPane::stateName(State state) {
  switch (state) {
    case State::maximised: return QStringLiteral("maximised");
    case State::detached: return QStringLiteral("detached");
    case State::normal: break;
  }
  return QStringLiteral("normal");
}

QString ResultPane::key(const char* name) const {
  return QStringLiteral("resultPanes/%1/%2").arg(id_, QString::fromLatin1(name));
}

void ResultPane::maximise() {
  ResultArea* a = area();
  if (!a || state_ == State::maximised) return;
  if (state_ == State::detached) restore();
  a->showMaximised(this);
  setState(State::maximised);
}

void ResultPane::toggleMaximised() {
  if (state_ == State::maximised)
    restore();
  else
    maximise();
}

void ResultPane::detach() {
  if (state_ == State::detached || !body_) return;
  if (state_ == State::maximised) restore();
  // A window of the main window's (not of another detached one, which may dock and go).
  QWidget* main = area() ? area()->window() : window();
  auto* w = new DetachedWindow(
      main, [this] { restore(); }, [this] { saveGeometry(); });
  w->setObjectName(id_ + QStringLiteral("Window"));
  w->setWindowTitle(tr("%1 — StackScope").arg(title_));
  w->setAttribute(Qt::WA_DeleteOnClose, false);
  auto* box = new QVBoxLayout(w);
  box->setContentsMargins(8, 8, 8, 8);
  box->addWidget(body_);
  body_->show();
  placeholder_->show();
  window_ = w;
  bool placed = false;
  if (const ResultArea* a = area(); a && a->remembered())
    placed = w->restoreGeometry(QSettings().value(key("geometry")).toByteArray());
  if (!placed) {
    // Larger than its place in the layout, centred over the main window.
    w->resize(std::max(body_->width() + 16, 960), std::max(body_->height() + 16, 640));
    const QRect over = main->frameGeometry();
    w->move(over.center() - QPoint(w->width() / 2, w->height() / 2));
  }
  w->show();
  w->raise();
  setState(State::detached);
}

void ResultPane::restore() {
  if (state_ == State::normal) return;
  if (state_ == State::maximised) {
    if (ResultArea* a = area()) a->takeBack(this);
  }
  dockBody();
  if (window_) {
    QWidget* w = window_;
    window_ = nullptr;
    w->hide();
    w->deleteLater();
  }
  setState(State::normal);
}

void ResultPane::dockBody() {
  if (!body_) return;
  placeholder_->hide();
  frame_->insertWidget(0, body_, 1);
  body_->show();
}

void ResultPane::setState(State state) {
  state_ = state;
  updateButtons();
  saveState();
  if (ResultArea* a = area()) a->lastUsed_ = this;
  Q_EMIT stateChanged(state);
}

void ResultPane::updateButtons() {
  const QString keys = ResultArea::shortcut().toString(QKeySequence::NativeText);
  const bool max = state_ == State::maximised;
  maximise_->setIcon(glyphIcon(max ? Glyph::restore : Glyph::maximise));
  maximise_->setText(max ? tr("Restore") : tr("Maximise"));
  maximise_->setToolTip(
      max ? tr("Restore the layout (Esc or %1)").arg(keys)
          : tr("Maximise %1 to fill the results area (%2; Esc restores)").arg(title_, keys));
  maximise_->setVisible(state_ != State::detached && area_);
  const bool away = state_ == State::detached;
  detach_->setIcon(glyphIcon(away ? Glyph::dock : Glyph::detach));
  detach_->setText(away ? tr("Dock") : tr("Detach"));
  detach_->setToolTip(away ? tr("Dock %1 back into the main window").arg(title_)
                           : tr("Detach %1 into a window of its own (closing the window docks "
                                "it again)")
                                 .arg(title_));
}

void ResultPane::saveState() const {
  const ResultArea* a = area();
  if (!a || !a->remembered_ || a->restoring_) return;
  QSettings s;
  s.setValue(key("state"), stateName(state_));
}

void ResultPane::saveGeometry() const {
  const ResultArea* a = area();
  if (!a || !a->remembered_ || !window_ || !window_->isVisible()) return;
  QSettings().setValue(key("geometry"), window_->saveGeometry());
}

ResultArea::ResultArea(QWidget* normal, QWidget* parent) : QStackedWidget(parent), normal_(normal) {
  setObjectName(QStringLiteral("resultArea"));
  addWidget(normal);
  maxPage_ = new QScrollArea(this);
  maxPage_->setObjectName(QStringLiteral("resultAreaMaximised"));
  maxPage_->setWidgetResizable(true);
  maxPage_->setFrameShape(QFrame::NoFrame);
  maxPage_->setAutoFillBackground(false);
  maxPage_->viewport()->setAutoFillBackground(false);
  auto* holder = new QWidget(maxPage_);
  maxBox_ = new QVBoxLayout(holder);
  maxBox_->setContentsMargins(4, 4, 4, 4);
  maxPage_->setWidget(holder);
  addWidget(maxPage_);
  setCurrentIndex(0);
  // Window-wide: Esc restores wherever the focus is (only while a view is maximised).
  escape_ = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, [this] {
    if (maximised_) maximised_->restore();
  });
  escape_->setContext(Qt::WindowShortcut);
  escape_->setEnabled(false);
  auto* toggle = new QShortcut(shortcut(), this, this, [this] {
    if (ResultPane* p = currentPane()) p->toggleMaximised();
  });
  toggle->setContext(Qt::WindowShortcut);
  toggle->setObjectName(QStringLiteral("resultAreaShortcut"));
}

QKeySequence ResultArea::shortcut() {
  return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M);
}

QList<ResultPane*> ResultArea::panes() const {
  const QList<ResultPane*> all = findChildren<ResultPane*>();
  for (ResultPane* p : all)
    if (!p->area_) {
      p->area_ = const_cast<ResultArea*>(this);
      p->updateButtons();
    }
  return all;
}

ResultPane* ResultArea::pane(const QString& id) const {
  for (ResultPane* p : panes())
    if (p->id() == id) return p;
  return nullptr;
}

void ResultArea::setRemembered(bool on) {
  remembered_ = on;
  if (!on) return;
  restoring_ = true;
  QSettings s;
  for (ResultPane* p : panes()) {
    const QString state = s.value(p->key("state")).toString();
    if (state == ResultPane::stateName(ResultPane::State::maximised))
      p->maximise();
    else if (state == ResultPane::stateName(ResultPane::State::detached))
      p->detach();
  }
  restoring_ = false;
  for (ResultPane* p : panes()) p->saveState();
}

ResultPane* ResultArea::currentPane() const {
  if (maximised_) return maximised_;
  const auto paneOf = [this](QWidget* w) -> ResultPane* {
    for (; w; w = w->parentWidget())
      if (auto* p = qobject_cast<ResultPane*>(w); p && isAncestorOf(p)) return p;
    return nullptr;
  };
  const QPoint cursor = QCursor::pos();
  if (QWidget* under = QApplication::widgetAt(cursor); under && under->window() == window())
    if (ResultPane* p = paneOf(under)) return p;
  if (ResultPane* p = paneOf(QApplication::focusWidget())) return p;
  if (lastUsed_ && lastUsed_->isVisible() && lastUsed_->state() == ResultPane::State::normal)
    return lastUsed_;
  const QList<ResultPane*> all = panes();
  const auto shown = [](const ResultPane* p) {
    return p->isVisible() && p->state() == ResultPane::State::normal;
  };
  for (ResultPane* p : all)
    if (shown(p) && (p->view()->findChild<QCustomPlot*>() || p->view()->findChild<QChartView*>()))
      return p;
  for (ResultPane* p : all)
    if (shown(p)) return p;
  return nullptr;
}

void ResultArea::showMaximised(ResultPane* pane) {
  if (maximised_ && maximised_ != pane) maximised_->restore();
  maximised_ = pane;
  maxBox_->addWidget(pane->body(), 1);
  pane->body()->show();
  setCurrentIndex(1);
  escape_->setEnabled(true);
  if (!pane->body()->isAncestorOf(QApplication::focusWidget())) pane->maximiseButton()->setFocus();
  if (auto* bar = window()->findChild<QStatusBar*>())
    bar->showMessage(tr("%1 fills the results area: Esc or %2 restores the layout")
                         .arg(pane->title(), shortcut().toString(QKeySequence::NativeText)),
                     6000);
}

void ResultArea::takeBack(ResultPane* pane) {
  if (maximised_ != pane) return;
  maximised_ = nullptr;
  setCurrentIndex(0);
  escape_->setEnabled(false);
}

}  // namespace stackscope::ui
