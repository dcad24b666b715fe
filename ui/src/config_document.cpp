// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/config_document.hpp"

#include <QUndoCommand>

namespace stackscope::ui {
namespace {

// Serving fields are numbered from here, so they never merge with a design field's edits
// (DesignEditor numbers its fields from 0).
constexpr int kServingFields = 1 << 20;

}  // namespace

// One edit of the project: the design and the serving settings before and after (an edit
// changes one of them; undo restores both, which is the same).
class DesignEditCommand : public QUndoCommand {
 public:
  struct State {
    perf::Design design;
    serving::ServingSpec serving;
  };
  DesignEditCommand(ConfigDocument* doc, State before, State after, const QString& text, int id)
      : QUndoCommand(text),
        doc_(doc),
        before_(std::move(before)),
        after_(std::move(after)),
        id_(id) {}
  void undo() override { doc_->set(before_.design, before_.serving, true); }
  void redo() override {
    // The first redo() runs inside push(): the document already holds `after`.
    if (first_) {
      first_ = false;
      return;
    }
    doc_->set(after_.design, after_.serving, true);
  }
  int id() const override { return id_; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const DesignEditCommand*>(other);
    if (o->id_ != id_ || id_ < 0) return false;
    after_ = o->after_;
    return true;
  }

 private:
  ConfigDocument* doc_;
  State before_, after_;
  int id_;
  bool first_ = true;
};

ConfigDocument::ConfigDocument(QObject* parent) : QObject(parent) {}

void ConfigDocument::set(const perf::Design& d, const serving::ServingSpec& s, bool fromHistory) {
  design_ = d;
  serving_ = s;
  Q_EMIT changed(fromHistory);
}

void ConfigDocument::edit(const perf::Design& next, const QString& text, int field) {
  DesignEditCommand::State before{design_, serving_};
  set(next, serving_, false);
  stack_.push(new DesignEditCommand(this, std::move(before), {next, serving_}, text, field));
}

void ConfigDocument::editServing(const serving::ServingSpec& next, const QString& text, int field) {
  DesignEditCommand::State before{design_, serving_};
  set(design_, next, false);
  stack_.push(new DesignEditCommand(this, std::move(before), {design_, next}, text,
                                    field < 0 ? -1 : kServingFields + field));
}

void ConfigDocument::reset(const perf::Design& design, const serving::ServingSpec& serving) {
  stack_.clear();
  set(design, serving, false);
  stack_.setClean();
}

}  // namespace stackscope::ui
