// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The edited project (docs/architecture.md §6): owns the design, the serving
// settings (the project's "serving" section, serving/spec.hpp) and one QUndoStack for both.
// Every form edit is one undo command; consecutive edits of the same field merge into one step
// (typing "512" is one undo, not three). One `changed` signal tells every view.
#include <QObject>
#include <QUndoStack>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/spec.hpp"

namespace stackscope::ui {

class ConfigDocument : public QObject {
  Q_OBJECT
 public:
  explicit ConfigDocument(QObject* parent = nullptr);

  const perf::Design& design() const { return design_; }
  const serving::ServingSpec& serving() const { return serving_; }
  QUndoStack* undoStack() { return &stack_; }
  // True when the project differs from the last open or save.
  bool dirty() const { return !stack_.isClean(); }

  // Records `next` as one undoable step named `text`. Steps with the same `field` (>= 0) in a
  // row merge. Emits changed(false).
  void edit(const perf::Design& next, const QString& text, int field = -1);
  // The same for the serving settings; its fields are merged only with serving edits of the
  // same field (the design's field numbers are another set). Emits changed(false).
  void editServing(const serving::ServingSpec& next, const QString& text, int field = -1);
  // A new document (open, new): no history, clean; serving settings as given (the defaults for a
  // project without a "serving" section).
  void reset(const perf::Design& design, const serving::ServingSpec& serving = {});
  void markClean() { stack_.setClean(); }

 Q_SIGNALS:
  // fromHistory: the change came from undo/redo (forms must refresh from design() and
  // serving()).
  void changed(bool fromHistory);

 private:
  friend class DesignEditCommand;
  void set(const perf::Design& d, const serving::ServingSpec& s, bool fromHistory);
  perf::Design design_;
  serving::ServingSpec serving_;
  QUndoStack stack_;
};

}  // namespace stackscope::ui
