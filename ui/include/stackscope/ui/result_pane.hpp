// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Enlargeable result views: at the default 1440 × 940 window a plot
// gets about 250 px, so any result view can be maximised in place or detached into a window of
// its own.
//
// A ResultPane hosts one view (a plot, the Summary, a whole tab such as Serving) in its place in
// the layout and gives it two tool buttons: Maximise — the view fills the window's ResultArea,
// every other view hidden, until Esc, the shortcut or the button restores the layout — and
// Detach — the view moves into a window of its own; closing that window docks it again (the
// pane shows a "Dock it back" placeholder meanwhile). The buttons join the end of the view's own
// first row, so they cost no height: the first item of its box layout if that is a horizontal
// box, or a single widget (a title, the Summary's banner) made into a row with them; a view
// whose layout starts otherwise gets a title bar of its own with the pane's title.
//
// The ResultArea is a stack of two pages: the normal layout of the result views, and the one
// maximised view. With remembering on (setRemembered, the interactive session), every pane's
// state and its detached window's geometry are kept in QSettings under "resultPanes/<id>/" and
// restored; off (tests, screenshots), nothing is read or written.
#include <QKeySequence>
#include <QPointer>
#include <QStackedWidget>
#include <QWidget>

class QLabel;
class QScrollArea;
class QShortcut;
class QToolButton;
class QVBoxLayout;

namespace stackscope::ui {

class ResultArea;

class ResultPane : public QWidget {
  Q_OBJECT
 public:
  enum class State { normal, maximised, detached };

  // Takes `view` (reparented into the pane). `id` keys the remembered state; `title` names the
  // view in tooltips, its window and the placeholder.
  ResultPane(const QString& id, const QString& title, QWidget* view, QWidget* parent = nullptr);
  ~ResultPane() override;

  QString id() const { return id_; }
  QString title() const { return title_; }
  QWidget* view() const { return view_; }
  State state() const { return state_; }
  // The widget holding the view (and the pane's own title bar, if any): where it is, the view is.
  QWidget* body() const { return body_; }
  // The window of a detached pane, else null.
  QWidget* detachedWindow() const { return window_; }
  QToolButton* maximiseButton() const { return maximise_; }
  QToolButton* detachButton() const { return detach_; }
  // The nearest ResultArea above the pane's place, or null (then Maximise is unavailable).
  ResultArea* area() const;

  void maximise();
  void detach();
  // Back in its place in the layout, docked and not maximised.
  void restore();
  void toggleMaximised();

  static QString stateName(State state);

 Q_SIGNALS:
  void stateChanged(stackscope::ui::ResultPane::State state);

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  friend class ResultArea;
  void dockBody();
  void setState(State state);
  void updateButtons();
  void saveState() const;
  void saveGeometry() const;
  QString key(const char* name) const;

  QString id_, title_;
  QWidget* view_ = nullptr;
  QPointer<QWidget> body_;
  QVBoxLayout* frame_ = nullptr;  // the pane's own layout: the body or the placeholder
  QWidget* placeholder_ = nullptr;
  QLabel* placeholderText_ = nullptr;
  QToolButton* maximise_ = nullptr;
  QToolButton* detach_ = nullptr;
  QPointer<QWidget> window_;
  mutable QPointer<ResultArea> area_;  // found once: a pane inside a detached window has none above
  State state_ = State::normal;
};

class ResultArea : public QStackedWidget {
  Q_OBJECT
 public:
  // `normal` is the normal layout of the result views (page 0).
  explicit ResultArea(QWidget* normal, QWidget* parent = nullptr);

  QWidget* normalPage() const { return normal_; }
  ResultPane* maximisedPane() const { return maximised_; }
  // Every pane in the area (docked, maximised or detached), in tree order.
  QList<ResultPane*> panes() const;
  ResultPane* pane(const QString& id) const;

  // From now on keeps each pane's state in QSettings, after restoring the saved states.
  void setRemembered(bool on);
  bool remembered() const { return remembered_; }

  // The pane the shortcut acts on: the maximised one; else the pane under the mouse, else the
  // one holding the keyboard focus, else the last one used, else the first shown pane that holds
  // a plot, else the first shown.
  ResultPane* currentPane() const;
  // Maximise / restore the current pane (Ctrl+Shift+M); shown in the buttons' tooltips.
  static QKeySequence shortcut();

 private:
  friend class ResultPane;
  void showMaximised(ResultPane* pane);
  void takeBack(ResultPane* pane);

  QWidget* normal_ = nullptr;
  QScrollArea* maxPage_ = nullptr;  // a view's minimum size must not grow the window
  QVBoxLayout* maxBox_ = nullptr;
  QPointer<ResultPane> maximised_;
  QPointer<ResultPane> lastUsed_;
  QShortcut* escape_ = nullptr;
  bool remembered_ = false;
  bool restoring_ = false;
};

}  // namespace stackscope::ui
