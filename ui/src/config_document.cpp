// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/config_document.hpp"

#include <QUndoCommand>

namespace stackscope::ui {

class DesignEditCommand : public QUndoCommand {
 public:
  DesignEditCommand(ConfigDocument* doc, perf::Design before, perf::Design after,
                    const QString& text, int field)
      : QUndoCommand(text),
        doc_(doc),
        before_(std::move(before)),
        after_(std::move(after)),
        field_(field) {}
  void undo() override { doc_->set(before_, true); }
  void redo() override {
    // The first redo() runs inside push(): the document already holds `after`.
    if (first_) {
      first_ = false;
      return;
    }
    doc_->set(after_, true);
  }
  int id() const override { return field_; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const DesignEditCommand*>(other);
    if (o->field_ != field_ || field_ < 0) return false;
    after_ = o->after_;
    return true;
  }

 private:
  ConfigDocument* doc_;
  perf::Design before_, after_;
  int field_;
  bool first_ = true;
};

ConfigDocument::ConfigDocument(QObject* parent) : QObject(parent) {}

void ConfigDocument::set(const perf::Design& d, bool fromHistory) {
  design_ = d;
  Q_EMIT changed(fromHistory);
}

void ConfigDocument::edit(const perf::Design& next, const QString& text, int field) {
  perf::Design before = design_;
  set(next, false);
  stack_.push(new DesignEditCommand(this, std::move(before), next, text, field));
}

void ConfigDocument::reset(const perf::Design& design) {
  stack_.clear();
  set(design, false);
  stack_.setClean();
}

}  // namespace stackscope::ui
