// SPDX-License-Identifier: GPL-3.0-or-later
// The space editor's validation: the form or the JSON applied, the space compiled, its problems
// placed on their rows.
#include "stackscope/ui/space_editor.hpp"

#include "space_editor_detail.hpp"

namespace stackscope::ui {

using namespace space_editor_detail;

void SpaceEditor::clearProblems() {
  compiled_.reset();
  problems_.clear();
  for (auto* rows : {&hw_, &sched_})
    for (auto& r : *rows) r->problem.clear();
  for (auto& o : objectives_) o.problem.clear();
  for (auto& c : constraints_) c.problem.clear();
  switchProblem_[0].clear();
  switchProblem_[1].clear();
}

void SpaceEditor::applyForm() {
  const QString before = baseText_;
  clearProblems();

  io::SearchProject sp = base_;
  auto& s = sp.space;
  s.hardware.clear();
  bool formOk = true;
  for (std::size_t a = 0; a < hw_.size(); ++a) {
    AxisRow& row = *hw_[a];
    search::HardwareAxis axis{row.key.toStdString(), {}};
    if (!rowValues(row, axis.values)) {
      formOk = false;
      problems_ << tr("Hardware axis %1 (%2): %3").arg(a).arg(row.key, row.problem);
    }
    row.count->setText(row.problem.isEmpty() ? valuesText(axis.values.size())
                                             : QStringLiteral("—"));
    s.hardware.push_back(std::move(axis));
  }
  for (auto& row : sched_) {
    std::vector<double> v;
    if (!rowValues(*row, v)) {
      formOk = false;
      problems_ << tr("%1: %2").arg(row->name->text(), row->problem);
    }
    std::vector<int>* out = scheduleRef(s.inner, row->key);
    out->clear();
    for (double x : v) out->push_back(static_cast<int>(x));
    row->count->setText(!row->problem.isEmpty() ? QStringLiteral("—")
                        : v.empty()             ? tr("base")
                                                : valuesText(v.size()));
  }
  s.inner.sequence_parallel.clear();
  for (int i = 0; i < 2; ++i)
    if (sp_[i]->isChecked()) s.inner.sequence_parallel.push_back(i);
  spCount_->setText(valuesText(s.inner.sequence_parallel.size()));
  s.inner.overlap.clear();
  const parallel::Overlap modes[] = {parallel::Overlap::off, parallel::Overlap::fixed,
                                     parallel::Overlap::auto_tiles};
  for (int i = 0; i < 3; ++i)
    if (overlap_[i]->isChecked()) s.inner.overlap.push_back(modes[i]);
  overlapCount_->setText(valuesText(s.inner.overlap.size()));
  for (auto& row : constraints_) {
    double& v = constraintRef(s.constraints, row.key);
    // An untouched value keeps the file's exact number (the spin box rounds to its decimals).
    if (!row.on->isChecked())
      v = std::numeric_limits<double>::infinity();
    else if (std::isinf(v) || row.spin->value() != row.loaded)
      v = typed(row.spin->value() / row.scale);
  }
  s.objectives.clear();
  for (const auto& o : objectives_)
    s.objectives.push_back({static_cast<search::Metric>(o.metric->currentData().toInt()),
                            static_cast<search::Direction>(o.direction->currentData().toInt())});
  sp.run.strategy = static_cast<search::Strategy>(strategy_->currentData().toInt());
  sp.run.seed = static_cast<std::uint64_t>(seed_->value());
  sp.run.samples = static_cast<std::uint64_t>(samples_->value());
  sp.run.population = static_cast<std::size_t>(population_->value());
  sp.run.generations = static_cast<std::size_t>(generations_->value());
  if (const double t = constraintRef(s.constraints, QStringLiteral("tpot_slo_s")); !std::isinf(t))
    tpotHint_->setText(tr("= at least %1 tokens/s per user (UTPS)").arg(typed(1.0 / t)));
  else
    tpotHint_->clear();

  if (formOk) {
    try {
      const std::string text =
          io::replace_search_section(baseText_.toStdString(), s, sp.run, presets_);
      text_ = QString::fromStdString(text);
      {
        const bool was = loading_;
        loading_ = true;
        if (json_->toPlainText() != text_) json_->setPlainText(text_);
        loading_ = was;
      }
      io::SearchProject parsed = io::parse_search_project(text, presets_);
      baseText_ = text_;
      base_ = parsed;
      compile(parsed);
      record(before);
    } catch (const ConfigError& e) {
      place(e.issues());
    } catch (const std::exception& e) {
      problems_ << QString::fromLocal8Bit(e.what());
    }
  }
  jsonStatus_->setText(tr("The project JSON of the space, written from the form."));
  showProblems();
  emit spaceChanged();
}

void SpaceEditor::applyJson() {
  const QString before = baseText_;
  clearProblems();
  text_ = json_->toPlainText();
  try {
    io::SearchProject sp = io::parse_search_project(text_.toStdString(), presets_);
    loadForm(sp);
    base_ = sp;
    baseText_ = text_;
    jsonStatus_->setText(tr("The JSON parses; the form shows it."));
    compile(sp);
    // Counts on the rows.
    for (auto* rows : {&hw_, &sched_})
      for (auto& r : *rows) {
        std::vector<double> v;
        rowValues(*r, v);
        r->count->setText(v.empty() ? tr("base") : valuesText(v.size()));
      }
    record(before);
  } catch (const ConfigError& e) {
    place(e.issues());
    jsonStatus_->setText(
        tr("The JSON has problems (below); the form shows the last text that "
           "parsed."));
  }
  showProblems();
  emit spaceChanged();
}

void SpaceEditor::compile(const io::SearchProject& sp) {
  try {
    compiled_ = std::make_shared<const search::CompiledSpace>(sp.space);
  } catch (const ConfigError& e) {
    compiled_.reset();
    place(e.issues());
  } catch (const std::exception& e) {
    compiled_.reset();
    problems_ << QString::fromLocal8Bit(e.what());
  }
}

// Puts each issue on the row its JSON path names, and into the text list.
void SpaceEditor::place(const std::vector<Issue>& issues) {
  for (const Issue& i : issues) {
    const QString path = QString::fromStdString(i.path);
    const QString what = issueText(i);
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString where = path.isEmpty() ? tr("project") : path;
    const auto add = [](QString& p, const QString& w) {
      p += (p.isEmpty() ? QString() : QStringLiteral("\n")) + w;
    };
    if (parts.size() >= 3 && parts[0] == QLatin1String("search") &&
        parts[1] == QLatin1String("hardware")) {
      bool ok = false;
      const int n = parts[2].toInt(&ok);
      if (ok && n >= 0 && n < axisCount()) {
        AxisRow& row = *hw_[static_cast<std::size_t>(n)];
        add(row.problem, what);
        where = tr("hardware axis %1 (%2), %3").arg(n).arg(row.key, path);
      }
    } else if (parts.size() >= 2 && parts[0] == QLatin1String("search")) {
      const QString key =
          parts[1] == QLatin1String("parallel") && parts.size() >= 3 ? parts[2] : parts[1];
      for (int k = 0; k < 2; ++k)
        if (key == QLatin1String(k == 0 ? "sequence_parallel" : "overlap")) {
          add(switchProblem_[k], what);
          where = tr("%1, %2").arg(switchLabel_[k]->text(), path);
        }
      for (auto& row : sched_)
        if (row->key == key) {
          add(row->problem, what);
          where = tr("%1, %2").arg(row->name->text(), path);
        }
      if (parts[1] == QLatin1String("constraints") && parts.size() >= 3)
        for (auto& c : constraints_)
          if (c.key == parts[2]) {
            add(c.problem, what);
            where = tr("%1, %2").arg(c.on->text(), path);
          }
      if (parts[1] == QLatin1String("objectives")) {
        bool ok = false;
        const int n = parts.size() >= 3 ? parts[2].toInt(&ok) : -1;
        if (ok && n >= 0 && n < static_cast<int>(objectives_.size()))
          add(objectives_[static_cast<std::size_t>(n)].problem, what);
        else
          objectivesProblem_->setText(what);
        where = tr("objectives, %1").arg(path);
      }
    }
    problems_ << tr("%1: %2").arg(where, what);
  }
}

void SpaceEditor::paintRow(QWidget* w, bool bad, const QString& problem, const QString& baseTip) {
  const QString tip =
      bad ? QStringLiteral("<p><b>%1</b></p>%2")
                .arg(problem.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")),
                     baseTip)
          : baseTip;
  w->setToolTip(tip);
  const QString tint = theme::isDark() ? QStringLiteral("#5a2626") : QStringLiteral("#ffdfdc");
  if (qobject_cast<QAbstractSpinBox*>(w)) {
    // A style sheet would replace the spin box's arrows: tint its palette (as DesignEditor).
    QPalette p;  // empty: inherit again
    if (bad) {
      p = w->palette();
      p.setColor(QPalette::Base, QColor(tint));
    }
    w->setPalette(p);
    for (auto* edit : w->findChildren<QLineEdit*>()) edit->setPalette(p);
    return;
  }
  // Style sheets of the widget itself: they win over the window's (the dark theme styles
  // group boxes, which would hide a palette tint).
  QString sheet;
  if (bad && qobject_cast<QLabel*>(w))
    sheet = QStringLiteral("color: %1;").arg(problemInk().name());
  else if (bad && qobject_cast<QLineEdit*>(w))
    sheet = QStringLiteral(
                "QLineEdit { background: %1; border: 1px solid %2; border-radius: 2px; "
                "padding: 1px 2px; }")
                .arg(tint, problemInk().name());
  else if (bad)
    sheet = QStringLiteral("border: 1px solid %1; border-radius: 2px;").arg(problemInk().name());
  if (w->styleSheet() != sheet) w->setStyleSheet(sheet);
}

void SpaceEditor::showProblems() {
  for (auto* rows : {&hw_, &sched_})
    for (auto& r : *rows) {
      const bool bad = !r->problem.isEmpty();
      for (QWidget* w : {static_cast<QWidget*>(r->name), static_cast<QWidget*>(r->list),
                         static_cast<QWidget*>(r->from), static_cast<QWidget*>(r->to),
                         static_cast<QWidget*>(r->step)})
        paintRow(w, bad, r->problem, r->baseTip);
    }
  for (int k = 0; k < 2; ++k)
    paintRow(switchLabel_[k], !switchProblem_[k].isEmpty(), switchProblem_[k], switchTip_[k]);
  for (auto& c : constraints_)
    paintRow(c.spin, !c.problem.isEmpty(), c.problem, c.spin->property("baseTip").toString());
  for (auto& o : objectives_)
    paintRow(o.metric, !o.problem.isEmpty(), o.problem, tr("A metric the frontier trades off"));
  objectivesProblem_->setVisible(!objectivesProblem_->text().isEmpty() && !valid());
  if (valid()) objectivesProblem_->clear();
  const QString ink = QStringLiteral("color: %1;").arg(problemInk().name());
  problemText_->setStyleSheet(ink);
  objectivesProblem_->setStyleSheet(ink);
  if (problems_.isEmpty()) {
    problemText_->clear();
    problemText_->setVisible(false);
  } else {
    QStringList lines;
    for (const QString& p : problems_) lines << QStringLiteral("• ") + p;
    problemText_->setText(lines.join(QLatin1Char('\n')));
    problemText_->setVisible(true);
  }
  total_->setText(tr("Space: %1").arg(sizeText()));
  total_->setToolTip(compiled_
                         ? tr("%1 points exactly; %2 hardware points, each with its valid "
                              "parallel plans × sequence parallelism × batch × overlap")
                               .arg(QString::fromStdString(search::to_string(compiled_->size())))
                               .arg(compiled_->hardware_points())
                         : QString());
}

}  // namespace stackscope::ui
