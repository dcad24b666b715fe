// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/space_editor.hpp"

#include "space_editor_detail.hpp"

namespace stackscope::ui {

using namespace space_editor_detail;


QString metricLabel(search::Metric m) {
  switch (m) {
    case search::Metric::stps: return QObject::tr("STPS (tokens/s, system)");
    case search::Metric::stps_per_device: return QObject::tr("STPS per device (tokens/s)");
    case search::Metric::stps_per_mm2: return QObject::tr("STPS per mm² of silicon (tokens/s/mm²)");
    case search::Metric::stps_per_W: return QObject::tr("STPS per watt (tokens/s/W)");
    case search::Metric::utps: return QObject::tr("UTPS (tokens/s per user)");
    case search::Metric::energy_per_token_j: return QObject::tr("Energy per token (J)");
    case search::Metric::area_mm2: return QObject::tr("Silicon area (mm²)");
    case search::Metric::ttft_s: return QObject::tr("TTFT (s)");
    case search::Metric::tpot_s: return QObject::tr("TPOT (s)");
  }
  return {};
}

QString pointsText(search::Count n) {
  return QObject::tr("%1 points").arg(countText(n));
}

QString countText(search::Count n) {
  if (n < 1'000'000)
    return QLocale(QLocale::English)
        .toString(static_cast<qulonglong>(static_cast<std::uint64_t>(n)));
  const double d = search::to_double(n);
  int e = static_cast<int>(std::floor(std::log10(d)));
  double m = d / std::pow(10.0, e);
  if (std::round(m * 100) >= 1000) {
    m /= 10;
    ++e;
  }
  static const QString sup[] = {QStringLiteral("⁰"), QStringLiteral("¹"), QStringLiteral("²"),
                                QStringLiteral("³"), QStringLiteral("⁴"), QStringLiteral("⁵"),
                                QStringLiteral("⁶"), QStringLiteral("⁷"), QStringLiteral("⁸"),
                                QStringLiteral("⁹")};
  QString exp;
  for (QChar c : QString::number(e)) exp += sup[c.digitValue()];
  return QStringLiteral("%1·10%2").arg(QString::number(m, 'f', 2), exp);
}

SpaceEditor::SpaceEditor(const io::PresetRegistry& presets, QWidget* parent)
    : QWidget(parent), presets_(presets) {
  setObjectName(QStringLiteral("searchSpaceForm"));
  debounce_.setSingleShot(true);
  connect(&debounce_, &QTimer::timeout, this, &SpaceEditor::flush);

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Horizontal, this);
  outer->addWidget(split, 1);

  // Left: the form, the total and the problems, the file buttons.
  auto* left = new QWidget(split);
  auto* leftBox = new QVBoxLayout(left);
  leftBox->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(left);
  scroll_ = scroll;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* form = new QWidget(scroll);
  form->setObjectName(QStringLiteral("spaceFormContents"));
  auto* formBox = new QVBoxLayout(form);
  scroll->setWidget(form);
  leftBox->addWidget(scroll, 1);

  formBox->addWidget(buildHardwareAxes(form));
  formBox->addWidget(buildScheduleAxes(form));
  formBox->addWidget(buildConstraints(form));
  formBox->addWidget(buildObjectives(form));
  formBox->addWidget(buildRunOptions(form));
  formBox->addStretch(1);
  buildFooter(left, leftBox);

  // Right: the JSON view.
  buildJsonView(split);
  refreshAddCombo();
  showProblems();
  refreshUndo();
}

SpaceEditor::~SpaceEditor() {
  // The stack (a child) outlives the buttons: its last signals must not reach refreshUndo().
  undo_->disconnect(this);
}

void SpaceEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  const auto t = event->type();
  if ((t == QEvent::PaletteChange || t == QEvent::ApplicationPaletteChange) && !repainting_) {
    repainting_ = true;  // the tints set below are palette changes of the children only
    showProblems();
    repainting_ = false;
  }
}

void SpaceEditor::edit(const QString& field, const QString& label, bool mergeable) {
  if (loading_) return;
  if (!field.isEmpty()) {
    if (pending_.field.isEmpty())
      pending_ = {field, label.isEmpty() ? tr("change to %1").arg(field) : label, mergeable};
    else if (pending_.field != field && pending_.field != QLatin1Char('+') + field)  // a new
      pending_ = {QStringLiteral("*"), tr("edits of the space"), false};  // axis keeps its name
  }
  formEdited();
  refreshUndo();
}

void SpaceEditor::formEdited() {
  if (loading_) return;
  formDirty_ = true;
  edited_ = true;
  debounce_.start(kFormDebounceMs);
}

void SpaceEditor::jsonEdited() {
  if (loading_) return;
  if (pending_.field.isEmpty())
    pending_ = {QStringLiteral("json"), tr("edit of the JSON"), true};
  else if (pending_.field != QLatin1String("json"))
    pending_ = {QStringLiteral("*"), tr("edits of the space"), false};
  jsonDirty_ = true;
  edited_ = true;
  debounce_.start(kJsonDebounceMs);
}

void SpaceEditor::flush() {
  debounce_.stop();
  if (jsonDirty_) {
    jsonDirty_ = formDirty_ = false;
    applyJson();
  } else if (formDirty_) {
    formDirty_ = false;
    applyForm();
  }
  refreshUndo();
}

void SpaceEditor::undo() {
  flush();
  if (!pending_.field.isEmpty())
    restore(baseText_);  // edits with problems are in no step: back to the last text that parsed
  else
    undo_->undo();
}

void SpaceEditor::redo() {
  flush();
  undo_->redo();
}

void SpaceEditor::record(const QString& before) {
  const Pending p = std::exchange(pending_, Pending{});
  if (baseText_ == before) return;
  int id = -1;
  if (p.mergeable && !p.field.isEmpty()) {
    auto it = fieldIds_.find(p.field);
    if (it == fieldIds_.end()) it = fieldIds_.insert(p.field, static_cast<int>(fieldIds_.size()));
    id = *it;
  }
  undo_->push(new SpaceTextCommand([this](const QString& t) { restore(t); }, before, baseText_,
                                   p.field.isEmpty() ? tr("edits of the space") : p.label, id));
}

void SpaceEditor::restore(const QString& text) {
  io::SearchProject sp;
  try {
    sp = io::parse_search_project(text.toStdString(), presets_);
  } catch (const ConfigError&) {
    return;  // not reached: a step's texts parsed when it was recorded (same presets)
  }
  pending_ = {};
  showText(text, sp);
  edited_ = !undo_->isClean();  // (during undo() the stack's index moves after this)
}

void SpaceEditor::refreshUndo() {
  if (!redoButton_) return;  // still in the constructor
  const bool uncommitted = !pending_.field.isEmpty();
  const QString undoTip =
      uncommitted && (formDirty_ || jsonDirty_) ? tr("Undo %1").arg(pending_.label)
      : uncommitted      ? tr("Undo the edits with problems (back to the last space that parsed)")
      : undo_->canUndo() ? tr("Undo %1").arg(undo_->undoText())
                         : tr("Nothing to undo");
  const QString redoTip =
      undo_->canRedo() ? tr("Redo %1").arg(undo_->redoText()) : tr("Nothing to redo");
  const auto keys = [](const QAction* a) {
    return a->shortcut().toString(QKeySequence::NativeText);
  };
  undoAction_->setEnabled(uncommitted || undo_->canUndo());
  redoAction_->setEnabled(undo_->canRedo());
  undoAction_->setToolTip(QStringLiteral("%1 (%2)").arg(undoTip, keys(undoAction_)));
  redoAction_->setToolTip(QStringLiteral("%1 (%2)").arg(redoTip, keys(redoAction_)));
  for (auto [button, action] :
       {std::pair{undoButton_, undoAction_}, std::pair{redoButton_, redoAction_}}) {
    button->setEnabled(action->isEnabled());
    button->setToolTip(action->toolTip());
  }
}

QString SpaceEditor::sizeText() const {
  if (!compiled_)
    return problems_.isEmpty()     ? tr("no space loaded")
           : problems_.size() == 1 ? tr("no count: 1 problem (below)")
                                   : tr("no count: %1 problems (below)").arg(problems_.size());
  return tr("%1 (%2 hardware points)")
      .arg(pointsText(compiled_->size()), countText(compiled_->hardware_points()));
}

search::RunOptions SpaceEditor::runOptions() const {
  search::RunOptions o = base_.run;
  o.max_evals = static_cast<std::uint64_t>(maxEvals_->value());
  o.time_limit_s = timeLimit_->value();
  return o;
}

bool SpaceEditor::setProjectText(const QString& text, const QString& origin, QString* error) {
  io::SearchProject sp;
  try {
    sp = io::parse_search_project(text.toStdString(), presets_);
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(format_issues(e.issues()));
    return false;
  }
  // A fresh load: its history starts here (undo never leads into another file's edits).
  pending_ = {};
  undo_->clear();
  undo_->setClean();
  origin_ = origin;
  edited_ = false;
  showText(text, sp);
  return true;
}

void SpaceEditor::showText(const QString& text, const io::SearchProject& sp) {
  debounce_.stop();
  formDirty_ = jsonDirty_ = false;
  loadForm(sp);
  base_ = sp;
  baseText_ = text_ = text;
  {
    const bool was = loading_;
    loading_ = true;
    json_->setPlainText(text);
    loading_ = was;
  }
  problems_.clear();
  for (auto& o : objectives_) o.problem.clear();
  for (auto& c : constraints_) c.problem.clear();
  switchProblem_[0].clear();
  switchProblem_[1].clear();
  for (auto* rows : {&hw_, &sched_})
    for (auto& r : *rows) {
      r->problem.clear();
      std::vector<double> v;
      rowValues(*r, v);
      r->count->setText(v.empty() ? tr("base") : valuesText(v.size()));
    }
  spCount_->setText(valuesText(sp.space.inner.sequence_parallel.size()));
  overlapCount_->setText(valuesText(sp.space.inner.overlap.size()));
  if (const double t = sp.space.constraints.tpot_slo_s; !std::isinf(t))
    tpotHint_->setText(tr("= at least %1 tokens/s per user (UTPS)").arg(typed(1.0 / t)));
  else
    tpotHint_->clear();
  jsonStatus_->setText(tr("The project JSON of the space (presets by id)."));
  compile(sp);
  showProblems();
  refreshUndo();
  emit spaceChanged();
}

bool SpaceEditor::loadPreset(const QString& id, QString* error) {
  const std::string key = id.toStdString();
  if (!presets_.contains(io::PresetKind::search, key)) {
    if (error) *error = tr("no search preset '%1'").arg(id);
    return false;
  }
  return setProjectText(QString::fromStdString(presets_.json_text(io::PresetKind::search, key)), id,
                        error);
}

bool SpaceEditor::loadFile(const QString& file, QString* error) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot read %1: %2").arg(file, f.errorString());
    return false;
  }
  return setProjectText(QString::fromUtf8(f.readAll()), file, error);
}

bool SpaceEditor::saveFile(const QString& file, QString* error) {
  flush();
  if (!valid()) {
    if (error) *error = tr("The space has problems:\n%1").arg(problems_.join(QLatin1Char('\n')));
    return false;
  }
  try {
    io::save_text_atomic(file.toStdString(), text_.toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromLocal8Bit(e.what());
    return false;
  }
  origin_ = file;
  undo_->setClean();
  edited_ = false;
  return true;
}

void SpaceEditor::setAxisList(int row, const QString& text) {
  if (row < 0 || row >= axisCount()) return;
  AxisRow& r = *hw_[static_cast<std::size_t>(row)];
  r.mode->setCurrentIndex(kList);
  r.list->setText(text);
  edit(r.key);
}

void SpaceEditor::setAxisRange(int row, double min, double max, double step, double factor) {
  if (row < 0 || row >= axisCount()) return;
  AxisRow& r = *hw_[static_cast<std::size_t>(row)];
  const bool was = loading_;
  loading_ = true;
  r.mode->setCurrentIndex(factor > 0 ? kGeometric : kLinear);
  loading_ = was;
  r.from->setText(number(min));
  r.to->setText(number(max));
  r.step->setText(number(factor > 0 ? factor : step));
  edit(r.key);
}

QString SpaceEditor::axisProblem(int row) const {
  return row >= 0 && row < axisCount() ? hw_[static_cast<std::size_t>(row)]->problem : QString();
}

int SpaceEditor::axisCountShown(int row) const {
  if (row < 0 || row >= axisCount()) return -1;
  return hw_[static_cast<std::size_t>(row)]->count->text().section(QLatin1Char(' '), 0, 0).toInt();
}

void SpaceEditor::setScheduleList(const QString& key, const QString& text) {
  for (auto& r : sched_)
    if (r->key == key) {
      r->mode->setCurrentIndex(kList);
      r->list->setText(text);
      edit(r->key);
    }
}

QString SpaceEditor::scheduleProblem(const QString& key) const {
  for (const auto& r : sched_)
    if (r->key == key) return r->problem;
  return {};
}

}  // namespace stackscope::ui
