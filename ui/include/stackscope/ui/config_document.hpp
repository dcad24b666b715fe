// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The edited project (STYLE.md "forms bind to a ConfigDocument"): owns the design and a
// QUndoStack. Every form edit is one undo command; consecutive edits of the same field merge
// into one step (typing "512" is one undo, not three). One `changed` signal tells every view.
#include <QObject>
#include <QUndoStack>

#include "stackscope/perf/design.hpp"

namespace stackscope::ui {

class ConfigDocument : public QObject {
  Q_OBJECT
 public:
  explicit ConfigDocument(QObject* parent = nullptr);

  const perf::Design& design() const { return design_; }
  QUndoStack* undoStack() { return &stack_; }
  // True when the design differs from the last open or save.
  bool dirty() const { return !stack_.isClean(); }

  // Records `next` as one undoable step named `text`. Steps with the same `field` (>= 0) in a
  // row merge. Emits changed(false).
  void edit(const perf::Design& next, const QString& text, int field = -1);
  // A new document (open, new): no history, clean.
  void reset(const perf::Design& design);
  void markClean() { stack_.setClean(); }

 Q_SIGNALS:
  // fromHistory: the change came from undo/redo (forms must refresh from design()).
  void changed(bool fromHistory);

 private:
  friend class DesignEditCommand;
  void set(const perf::Design& d, bool fromHistory);
  perf::Design design_;
  QUndoStack stack_;
};

}  // namespace stackscope::ui
