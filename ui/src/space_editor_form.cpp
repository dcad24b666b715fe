// SPDX-License-Identifier: GPL-3.0-or-later
// The space editor's form: its groups (built once), axis and objective rows, and loading a
// space into it.
#include "stackscope/ui/space_editor.hpp"

#include "space_editor_detail.hpp"

namespace stackscope::ui {

using namespace space_editor_detail;

QGroupBox* SpaceEditor::buildHardwareAxes(QWidget* form) {
  // Hardware axes.
  auto* hwGroup = new QGroupBox(tr("Hardware axes (outer loop)"), form);
  auto* hwBox = new QVBoxLayout(hwGroup);
  auto* hwGridHost = new QWidget(hwGroup);
  hwGrid_ = new QGridLayout(hwGridHost);
  hwGrid_->setContentsMargins(0, 0, 0, 0);
  hwGrid_->setColumnStretch(2, 1);
  int column = 0;
  for (const QString& h : {tr("Knob (unit)"), tr("Given as"), tr("Values"), tr("Count")}) {
    auto* head = new QLabel(h, hwGridHost);
    head->setObjectName(QStringLiteral("hint"));
    hwGrid_->addWidget(head, 0, column, column == 3 ? Qt::AlignRight : Qt::Alignment());
    ++column;
  }
  hwBox->addWidget(hwGridHost);
  auto* addRow = new QHBoxLayout();
  addRow->addWidget(new QLabel(tr("Add axis:"), hwGroup));
  addKnob_ = new QComboBox(hwGroup);
  addKnob_->setObjectName(QStringLiteral("addKnob"));
  addKnob_->setToolTip(
      tr("Knobs of the core's registry not yet in the space. Variant and model "
         "axes list whole devices or models: add them in the JSON."));
  addRow->addWidget(addKnob_, 1);
  addAxis_ = new QPushButton(tr("Add"), hwGroup);
  addAxis_->setObjectName(QStringLiteral("addAxis"));
  addAxis_->setToolTip(tr("Add the chosen knob as an axis (fill in its values)"));
  addRow->addWidget(addAxis_);
  hwBox->addLayout(addRow);
  connect(addAxis_, &QPushButton::clicked, this, [this] {
    if (addKnob_->currentIndex() >= 0) addAxis(addKnob_->currentData().toString());
  });
  return hwGroup;
}

QGroupBox* SpaceEditor::buildScheduleAxes(QWidget* form) {
  // Schedule axes.
  auto* schedGroup = new QGroupBox(tr("Schedule axes (inner loop, per hardware point)"), form);
  auto* schedGrid = new QGridLayout(schedGroup);
  schedGrid->setColumnStretch(2, 1);
  int r = 0;
  for (const auto& s : kSchedule) {
    AxisRow* row = makeAxisRow(schedGrid, r++, QString::fromLatin1(s.key), false);
    row->integer = true;
    row->name->setText(tr("%1 (%2)").arg(tr(s.label), tr(s.unit)));
    const QString allowed =
        tr("whole numbers >= %1").arg(s.min) +
        (s.empty ? tr("; empty = %1").arg(tr(s.empty)) : tr("; at least one value"));
    const QString key = QString::fromLatin1(s.key) == QLatin1String("batch")
                            ? QStringLiteral("/search/batch")
                            : QStringLiteral("/search/parallel/") + QString::fromLatin1(s.key);
    row->baseTip = tipHtml(tr(s.label), tr(s.tip), tr(s.unit), allowed, key);
    if (s.empty) row->list->setPlaceholderText(tr("empty: %1 value").arg(tr(s.empty)));
    sched_.emplace_back(row);
  }
  // Sequence parallelism and overlap: sets of switches.
  const auto switches = [&](int which, const QString& label, const QStringList& names,
                            QCheckBox** boxes, QLabel*& count, const QString& tip) {
    auto* name = new QLabel(label, schedGroup);
    name->setToolTip(tip);
    switchLabel_[which] = name;
    switchTip_[which] = tip;
    schedGrid->addWidget(name, r, 0);
    auto* host = new QWidget(schedGroup);
    auto* h = new QHBoxLayout(host);
    h->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < names.size(); ++i) {
      boxes[i] = new QCheckBox(names[i], host);
      boxes[i]->setObjectName(
          QStringLiteral("%1_%2")
              .arg(which == 0 ? QStringLiteral("sp") : QStringLiteral("overlap"))
              .arg(i));
      boxes[i]->setToolTip(tip);
      h->addWidget(boxes[i]);
      connect(boxes[i], &QCheckBox::toggled, this,
              [this, which] { edit(QLatin1String(which == 0 ? "sequence_parallel" : "overlap")); });
    }
    h->addStretch(1);
    schedGrid->addWidget(host, r, 1, 1, 2);
    count = new QLabel(schedGroup);
    count->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    count->setToolTip(tr("Values on this axis"));
    schedGrid->addWidget(count, r, 3);
    ++r;
  };
  switches(0, tr("Sequence parallel"), {tr("off"), tr("on")}, sp_, spCount_,
           tipHtml(tr("Sequence parallelism"),
                   tr("Try the plan without and/or with SP (TP all-reduces become "
                      "reduce-scatter + all-gather)."),
                   {}, tr("at least one"), QStringLiteral("/search/parallel/sequence_parallel")));
  switches(1, tr("Overlap"), {tr("off"), tr("fixed"), tr("auto")}, overlap_, overlapCount_,
           tipHtml(tr("Compute/communication overlap"),
                   tr("Overlap modes to try: none, a fixed tiling, or the best tiling."), {},
                   tr("at least one"), QStringLiteral("/search/overlap")));
  return schedGroup;
}

QGroupBox* SpaceEditor::buildConstraints(QWidget* form) {
  // Constraints.
  auto* consGroup = new QGroupBox(tr("Constraints (points beyond them are infeasible)"), form);
  auto* consGrid = new QGridLayout(consGroup);
  consGrid->setColumnStretch(2, 1);
  int r = 0;
  for (const auto& c : kConstraints) {
    ConstraintRow row;
    row.key = QString::fromLatin1(c.key);
    row.scale = c.scale;
    row.on = new QCheckBox(tr(c.label), consGroup);
    row.on->setObjectName(QStringLiteral("constraint_") + row.key);
    row.spin = new QDoubleSpinBox(consGroup);
    row.spin->setObjectName(QStringLiteral("constraintValue_") + row.key);
    row.spin->setDecimals(c.decimals);
    row.spin->setRange(c.min, c.max);
    row.spin->setSuffix(tr(c.suffix));
    row.spin->setValue(c.fallback);
    row.spin->setKeyboardTracking(false);
    row.spin->setEnabled(false);
    const QString tip = tipHtml(tr(c.label), tr(c.tip), tr(c.suffix).trimmed(),
                                tr("> 0; unchecked = no constraint"),
                                QStringLiteral("/search/constraints/") + row.key);
    row.on->setToolTip(tip);
    row.spin->setToolTip(tip);
    row.spin->setProperty("baseTip", tip);
    consGrid->addWidget(row.on, r, 0);
    consGrid->addWidget(row.spin, r, 1);
    QCheckBox* on = row.on;
    QDoubleSpinBox* spin = row.spin;
    connect(on, &QCheckBox::toggled, this, [this, spin, key = row.key](bool b) {
      spin->setEnabled(b);
      edit(key);
    });
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key = row.key] { edit(key); });
    if (row.key == QLatin1String("tpot_slo_s")) {
      tpotHint_ = new QLabel(consGroup);
      tpotHint_->setObjectName(QStringLiteral("hint"));
      consGrid->addWidget(tpotHint_, r, 2);
    }
    constraints_.push_back(row);
    ++r;
  }
  return consGroup;
}

QGroupBox* SpaceEditor::buildObjectives(QWidget* form) {
  // Objectives.
  auto* objGroup = new QGroupBox(tr("Objectives (the Pareto frontier trades these off)"), form);
  auto* objOuter = new QVBoxLayout(objGroup);
  objectiveBox_ = new QVBoxLayout();
  objOuter->addLayout(objectiveBox_);
  objectivesProblem_ = new QLabel(objGroup);
  objectivesProblem_->setWordWrap(true);
  objectivesProblem_->setVisible(false);
  objOuter->addWidget(objectivesProblem_);
  addObjective_ = new QPushButton(tr("Add objective"), objGroup);
  addObjective_->setObjectName(QStringLiteral("addObjective"));
  addObjective_->setToolTip(tr("At most %1 objectives").arg(search::kMaxObjectives));
  auto* objButtons = new QHBoxLayout();
  objButtons->addWidget(addObjective_);
  objButtons->addStretch(1);
  objOuter->addLayout(objButtons);
  connect(addObjective_, &QPushButton::clicked, this, [this] {
    addObjective(search::objective(search::Metric::energy_per_token_j));
    edit(QStringLiteral("+objectives"), tr("add objective"), false);
  });
  return objGroup;
}

QGroupBox* SpaceEditor::buildRunOptions(QWidget* form) {
  // Run options and limits.
  auto* runGroup = new QGroupBox(tr("Run"), form);
  auto* runGrid = new QGridLayout(runGroup);
  strategy_ = new QComboBox(runGroup);
  strategy_->setObjectName(QStringLiteral("searchStrategy"));
  strategy_->addItem(tr("exhaustive (exact frontier)"),
                     static_cast<int>(search::Strategy::exhaustive));
  strategy_->addItem(tr("random sampling"), static_cast<int>(search::Strategy::random));
  strategy_->addItem(tr("NSGA-II (genetic)"), static_cast<int>(search::Strategy::nsga2));
  strategy_->setToolTip(tipHtml(tr("Strategy"),
                                tr("Exhaustive visits every point (with pruning); random draws "
                                   "samples uniformly; NSGA-II evolves a population."),
                                {}, tr("exhaustive, random, nsga2"),
                                QStringLiteral("/search/strategy")));
  // `field`: the key in the file (an undo step's name); nullptr for run-only limits.
  const auto spin = [&](const char* object, const char* field, int min, int max,
                        const QString& suffix, const QString& tip) {
    auto* s = new QSpinBox(runGroup);
    s->setObjectName(QString::fromLatin1(object));
    s->setRange(min, max);
    s->setSuffix(suffix);
    s->setGroupSeparatorShown(true);
    s->setKeyboardTracking(false);
    s->setToolTip(tip);
    connect(s, &QSpinBox::valueChanged, this,
            [this, field] { edit(field ? QString::fromLatin1(field) : QString()); });
    return s;
  };
  seed_ = spin("searchSeed", "seed", 0, std::numeric_limits<int>::max(), {},
               tipHtml(tr("Seed"), tr("Random seed (random and NSGA-II)"), {}, tr(">= 0"),
                       QStringLiteral("/search/seed")));
  samples_ = spin("searchSamples", "samples", 1, std::numeric_limits<int>::max(), tr(" points"),
                  tipHtml(tr("Samples"), tr("Points drawn by random sampling"), tr("points"),
                          tr(">= 1"), QStringLiteral("/search/samples")));
  population_ = spin("searchPopulation", "population", 2, 1'000'000, {},
                     tipHtml(tr("Population"), tr("NSGA-II individuals per generation"),
                             tr("individuals"), tr(">= 1"), QStringLiteral("/search/population")));
  generations_ = spin("searchGenerations", "generations", 1, 1'000'000, {},
                      tipHtml(tr("Generations"), tr("NSGA-II generations"), tr("generations"),
                              tr(">= 1"), QStringLiteral("/search/generations")));
  maxEvals_ =
      spin("searchMaxEvals", nullptr, 0, std::numeric_limits<int>::max(), tr(" evaluations"),
           tr("Stop after this many evaluations (0 = no limit). For this run only: the "
              "file format has no limit (stackscope-cli search --max-evals)."));
  maxEvals_->setSpecialValueText(tr("no limit"));
  timeLimit_ = new QDoubleSpinBox(runGroup);
  timeLimit_->setObjectName(QStringLiteral("searchTimeLimit"));
  timeLimit_->setRange(0, 1e7);
  timeLimit_->setDecimals(1);
  timeLimit_->setSuffix(tr(" s"));
  timeLimit_->setSpecialValueText(tr("no limit"));
  timeLimit_->setToolTip(
      tr("Stop after this many seconds (0 = no limit). For this run only "
         "(stackscope-cli search --time-limit)."));
  runGrid->addWidget(new QLabel(tr("Strategy:"), runGroup), 0, 0);
  runGrid->addWidget(strategy_, 0, 1);
  runGrid->addWidget(new QLabel(tr("Seed:"), runGroup), 0, 2);
  runGrid->addWidget(seed_, 0, 3);
  runGrid->addWidget(new QLabel(tr("Samples:"), runGroup), 1, 0);
  runGrid->addWidget(samples_, 1, 1);
  runGrid->addWidget(new QLabel(tr("Population:"), runGroup), 1, 2);
  runGrid->addWidget(population_, 1, 3);
  runGrid->addWidget(new QLabel(tr("Generations:"), runGroup), 2, 2);
  runGrid->addWidget(generations_, 2, 3);
  runGrid->addWidget(new QLabel(tr("Max evaluations:"), runGroup), 3, 0);
  runGrid->addWidget(maxEvals_, 3, 1);
  runGrid->addWidget(new QLabel(tr("Time limit:"), runGroup), 3, 2);
  runGrid->addWidget(timeLimit_, 3, 3);
  runGrid->setColumnStretch(1, 1);
  runGrid->setColumnStretch(3, 1);
  const auto strategyFields = [this] {
    const auto s = static_cast<search::Strategy>(strategy_->currentData().toInt());
    samples_->setEnabled(s == search::Strategy::random);
    population_->setEnabled(s == search::Strategy::nsga2);
    generations_->setEnabled(s == search::Strategy::nsga2);
    seed_->setEnabled(s != search::Strategy::exhaustive);
  };
  connect(strategy_, &QComboBox::currentIndexChanged, this, [this, strategyFields] {
    strategyFields();
    edit(QStringLiteral("strategy"));
  });
  strategyFields();
  return runGroup;
}

void SpaceEditor::buildFooter(QWidget* left, QVBoxLayout* leftBox) {
  total_ = new QLabel(left);
  total_->setObjectName(QStringLiteral("spaceTotal"));
  QFont big = total_->font();
  big.setBold(true);
  big.setPointSizeF(big.pointSizeF() * 1.15);
  total_->setFont(big);
  leftBox->addWidget(total_);
  problemText_ = new QLabel(left);
  problemText_->setObjectName(QStringLiteral("spaceProblems"));
  problemText_->setWordWrap(true);
  problemText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problemText_->setVisible(false);
  leftBox->addWidget(problemText_);
  auto* buttons = new QHBoxLayout();
  auto* load = new QPushButton(tr("Load…"), left);
  load->setObjectName(QStringLiteral("spaceLoad"));
  load->setToolTip(tr("Load a search project (a project JSON with a \"search\" section)"));
  auto* save = new QPushButton(tr("Save…"), left);
  save->setObjectName(QStringLiteral("spaceSave"));
  save->setToolTip(tr("Save the space as a search project; `stackscope-cli search FILE` runs it"));
  buttons->addWidget(load);
  buttons->addWidget(save);
  // Undo and redo: buttons beside the file ones, shortcuts anywhere in the form's window (a
  // focused text field keeps Ctrl+Z for its own text).
  undo_ = new QUndoStack(this);
  undoAction_ = new QAction(tr("Undo"), this);
  undoAction_->setShortcut(QKeySequence::Undo);
  redoAction_ = new QAction(tr("Redo"), this);
  QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
  if (const QKeySequence z(Qt::CTRL | Qt::SHIFT | Qt::Key_Z); !redoKeys.contains(z))
    redoKeys.prepend(z);
  redoAction_->setShortcuts(redoKeys);
  for (QAction* a : {undoAction_, redoAction_}) {
    a->setShortcutContext(Qt::WindowShortcut);
    addAction(a);
  }
  connect(undoAction_, &QAction::triggered, this, &SpaceEditor::undo);
  connect(redoAction_, &QAction::triggered, this, &SpaceEditor::redo);
  undoButton_ = new QPushButton(tr("Undo"), left);
  undoButton_->setObjectName(QStringLiteral("spaceUndo"));
  redoButton_ = new QPushButton(tr("Redo"), left);
  redoButton_->setObjectName(QStringLiteral("spaceRedo"));
  connect(undoButton_, &QPushButton::clicked, this, &SpaceEditor::undo);
  connect(redoButton_, &QPushButton::clicked, this, &SpaceEditor::redo);
  connect(undo_, &QUndoStack::indexChanged, this, [this] {
    edited_ = !undo_->isClean() || !pending_.field.isEmpty();
    refreshUndo();
  });
  buttons->addSpacing(12);
  buttons->addWidget(undoButton_);
  buttons->addWidget(redoButton_);
  buttons->addStretch(1);
  jsonToggle_ = new QPushButton(tr("Edit space as JSON (advanced)"), left);
  jsonToggle_->setObjectName(QStringLiteral("spaceJsonToggle"));
  jsonToggle_->setCheckable(true);
  jsonToggle_->setToolTip(
      tr("Show the project JSON the form stands for; edits to it reload the "
         "form whenever it parses"));
  buttons->addWidget(jsonToggle_);
  leftBox->addLayout(buttons);
  connect(load, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Load search space"), QString(),
                                                   tr("Search projects (*.json)"));
    if (f.isEmpty()) return;
    QString err;
    if (!loadFile(f, &err)) QMessageBox::warning(this, tr("Cannot load"), err);
  });
  connect(save, &QPushButton::clicked, this, [this] {
    flush();
    const QString f = QFileDialog::getSaveFileName(this, tr("Save search space"),
                                                   QStringLiteral("search-space.json"),
                                                   tr("Search projects (*.json)"));
    if (f.isEmpty()) return;
    QString err;
    if (!saveFile(f, &err)) QMessageBox::warning(this, tr("Cannot save"), err);
  });
}

void SpaceEditor::buildJsonView(QSplitter* split) {
  auto* right = new QWidget(split);
  auto* rightBox = new QVBoxLayout(right);
  rightBox->setContentsMargins(0, 0, 0, 0);
  jsonStatus_ = new QLabel(tr("The project JSON of the space (presets by id)."), right);
  jsonStatus_->setWordWrap(true);
  rightBox->addWidget(jsonStatus_);
  json_ = new QPlainTextEdit(right);
  json_->setObjectName(QStringLiteral("searchSpaceEditor"));
  json_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  json_->setLineWrapMode(QPlainTextEdit::NoWrap);
  json_->setMinimumWidth(320);
  json_->setVisible(false);
  rightBox->addWidget(json_, 1);
  right->setVisible(false);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  connect(jsonToggle_, &QPushButton::toggled, this, [this, right, split](bool on) {
    flush();
    // The JSON view takes room of its own: a window of its own grows by it (within the screen).
    constexpr int kJsonWidth = 460;
    const int formWidth = split->widget(0)->width();
    QWidget* top = window();
    if (top != this && top->isWindow()) {
      int w = top->width() + (on ? kJsonWidth : -kJsonWidth);
      if (const QScreen* screen = top->screen(); screen && on)
        w = std::max(top->width(), std::min(w, screen->availableGeometry().width()));
      if (on || widened_) top->resize(std::max(w, top->minimumWidth()), top->height());
      widened_ = on;
    }
    right->setVisible(on);
    json_->setVisible(on);
    if (on) split->setSizes({formWidth, kJsonWidth});
  });
  connect(json_, &QPlainTextEdit::textChanged, this, &SpaceEditor::jsonEdited);
}

SpaceEditor::AxisRow* SpaceEditor::makeAxisRow(QGridLayout* grid, int r, const QString& key,
                                               bool removable) {
  auto* row = new AxisRow;
  QWidget* host = grid->parentWidget();
  row->key = key;
  row->name = new QLabel(key, host);
  row->mode = new QComboBox(host);
  row->mode->addItem(tr("list"), kList);
  row->mode->addItem(tr("range +step"), kLinear);
  row->mode->addItem(tr("range ×factor"), kGeometric);
  row->mode->setToolTip(
      tr("A list of values (\"1, 2, 4, 8\"), or a range from..to in equal "
         "steps or by a constant factor"));
  row->pages = new QStackedWidget(host);
  row->list = new QLineEdit(row->pages);
  row->list->setPlaceholderText(tr("values, e.g. 1, 2, 4, 8"));
  row->pages->addWidget(row->list);
  auto* range = new QWidget(row->pages);
  auto* h = new QHBoxLayout(range);
  h->setContentsMargins(0, 0, 0, 0);
  row->from = new QLineEdit(range);
  row->from->setPlaceholderText(tr("from"));
  row->to = new QLineEdit(range);
  row->to->setPlaceholderText(tr("to"));
  row->step = new QLineEdit(range);
  row->stepLabel = new QLabel(tr("step"), range);
  row->stepLabel->setAlignment(Qt::AlignCenter);
  row->stepLabel->setMinimumWidth(row->stepLabel->fontMetrics().horizontalAdvance(tr("step")) + 6);
  h->addWidget(row->from, 1);
  h->addWidget(new QLabel(tr("to"), range));
  h->addWidget(row->to, 1);
  h->addWidget(row->stepLabel);
  h->addWidget(row->step, 1);
  row->pages->addWidget(range);
  row->count = new QLabel(host);
  row->count->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  row->count->setMinimumWidth(
      row->count->fontMetrics().horizontalAdvance(QStringLiteral("0000 values")));
  row->count->setToolTip(tr("Values on this axis"));
  row->rowWidgets[0] = row->name;
  row->rowWidgets[1] = row->mode;
  row->rowWidgets[2] = row->pages;
  row->rowWidgets[3] = row->count;
  if (removable) {
    row->remove = new QPushButton(tr("Remove"), host);
    row->remove->setToolTip(tr("Remove this axis: every point keeps the base design's value"));
    row->rowWidgets[4] = row->remove;
  }
  for (int c = 0; c < 5; ++c)
    if (row->rowWidgets[c]) grid->addWidget(row->rowWidgets[c], r, c);
  for (QLineEdit* e : {row->list, row->from, row->to, row->step})
    connect(e, &QLineEdit::textEdited, this, [this, row] { edit(row->key); });
  connect(row->mode, &QComboBox::currentIndexChanged, this, [this, row](int index) {
    row->stepLabel->setText(index == kGeometric ? tr("×") : tr("step"));
    row->step->setPlaceholderText(index == kGeometric ? tr("factor > 1") : tr("step > 0"));
    if (loading_) {
      row->pages->setCurrentIndex(index == kList ? 0 : 1);
      row->current = index;
      return;
    }
    // Carry the values over to the new form (read in the form they were entered in).
    std::vector<double> v;
    const bool ok = rowValues(*row, v);
    row->current = index;
    row->problem.clear();
    row->pages->setCurrentIndex(index == kList ? 0 : 1);
    if (ok && !v.empty()) {
      const bool was = loading_;
      loading_ = true;
      if (index == kList) {
        row->list->setText(listText(v));
      } else {
        row->from->setText(number(v.front()));
        row->to->setText(number(v.back()));
        if (index == kGeometric)
          row->step->setText(v.size() > 1 && v[0] > 0 && v[1] > v[0] ? number(v[1] / v[0])
                                                                     : QStringLiteral("2"));
        else
          row->step->setText(v.size() > 1 && v[1] > v[0] ? number(v[1] - v[0])
                                                         : QStringLiteral("1"));
      }
      loading_ = was;
    }
    edit(row->key);
  });
  if (row->remove)
    connect(row->remove, &QPushButton::clicked, this, [this, row] {
      for (std::size_t i = 0; i < hw_.size(); ++i)
        if (hw_[i].get() == row) removeAxis(static_cast<int>(i));
    });
  return row;
}

void SpaceEditor::setRowValues(AxisRow& row, const std::vector<double>& values) {
  const bool was = loading_;
  loading_ = true;
  if (const auto r = io::as_range(values)) {
    row.mode->setCurrentIndex(r->geometric() ? kGeometric : kLinear);
    row.from->setText(number(r->min));
    row.to->setText(number(r->max));
    row.step->setText(number(r->geometric() ? r->factor : r->step));
    row.list->setText(listText(values));
  } else {
    row.mode->setCurrentIndex(kList);
    row.list->setText(listText(values));
    row.from->clear();
    row.to->clear();
    row.step->clear();
  }
  row.current = row.mode->currentIndex();
  row.pages->setCurrentIndex(row.current == kList ? 0 : 1);
  loading_ = was;
}

bool SpaceEditor::rowValues(AxisRow& row, std::vector<double>& out) {
  out.clear();
  if (row.indexAxis) {
    out = row.fixedValues;
    return true;
  }
  const QLocale c = QLocale::c();
  const auto parse = [&](QLineEdit* e, const QString& what, double& v) {
    bool ok = false;
    v = c.toDouble(e->text().trimmed(), &ok);
    if (!ok) {
      row.problem = e->text().trimmed().isEmpty()
                        ? tr("the range needs its %1").arg(what)
                        : tr("'%1' is not a number (%2)").arg(e->text().trimmed(), what);
      return false;
    }
    return true;
  };
  const int mode = row.current;
  if (mode == kList) {
    static const QRegularExpression sep(QStringLiteral("[,;\\s]+"));
    for (const QString& t : row.list->text().split(sep, Qt::SkipEmptyParts)) {
      bool ok = false;
      const double v = c.toDouble(t, &ok);
      if (!ok || !std::isfinite(v)) {
        row.problem = tr("'%1' is not a number (allowed: numbers separated by commas)").arg(t);
        return false;
      }
      out.push_back(v);
    }
  } else {
    io::ValueRange r;
    double s = 0;
    if (!parse(row.from, tr("start"), r.min) || !parse(row.to, tr("end"), r.max) ||
        !parse(row.step, mode == kGeometric ? tr("factor") : tr("step"), s))
      return false;
    (mode == kGeometric ? r.factor : r.step) = s;
    const double n =
        mode == kLinear
            ? (s > 0 ? (r.max - r.min) / s + 1 : 0)
            : (s > 1 && r.min > 0 && r.max > r.min ? std::log(r.max / r.min) / std::log(s) + 1 : 0);
    if (n > kMaxRangeValues) {
      row.problem = tr("the range has %1 values (allowed: at most %2)")
                        .arg(QString::number(n, 'g', 3))
                        .arg(static_cast<int>(kMaxRangeValues));
      return false;
    }
    try {
      out = io::expand(r);
    } catch (const std::invalid_argument& e) {
      row.problem = QString::fromLocal8Bit(e.what()) +
                    (mode == kGeometric ? tr(" (allowed: 0 < from <= to, factor > 1)")
                                        : tr(" (allowed: from <= to, step > 0)"));
      return false;
    }
  }
  if (row.integer)
    for (double v : out)
      if (v != std::floor(v) || std::abs(v) > std::numeric_limits<int>::max()) {
        row.problem = tr("%1 is not a whole number (allowed: whole numbers)").arg(number(v));
        return false;
      }
  return true;
}

void SpaceEditor::layoutHardware() {
  for (std::size_t i = 0; i < hw_.size(); ++i)
    for (QWidget* w : hw_[i]->rowWidgets)
      if (w) hwGrid_->removeWidget(w);
  for (std::size_t i = 0; i < hw_.size(); ++i)
    for (int c = 0; c < 5; ++c)
      if (QWidget* w = hw_[i]->rowWidgets[c]) hwGrid_->addWidget(w, static_cast<int>(i) + 1, c);
}

QString SpaceEditor::axisKnob(int row) const {
  return row >= 0 && row < axisCount() ? hw_[static_cast<std::size_t>(row)]->key : QString();
}

void SpaceEditor::addAxis(const QString& knobName) {
  const search::Knob* k = search::find_knob(knobName.toStdString());
  if (!k) return;
  auto* row = makeAxisRow(hwGrid_, axisCount() + 1, knobName, true);
  row->integer = false;  // the compiler checks integer knobs (with the knob's own message)
  const QString unit = unitText(k->unit);
  const QString desc =
      QString::fromUtf8(k->description.data(), static_cast<qsizetype>(k->description.size()));
  row->name->setText(tr("%1 (%2)").arg(knobName, unit));
  const QString allowed =
      (k->integer ? tr("whole numbers >= %1") : tr("numbers >= %1")).arg(k->min);
  row->baseTip = tipHtml(knobName, desc, unit, allowed,
                         QStringLiteral("/search/hardware/%1").arg(axisCount()));
  row->indexAxis = knobName == QLatin1String("variant") || knobName == QLatin1String("model");
  hw_.emplace_back(row);
  if (!loading_) {
    // A start that needs only checking: the network multipliers around 1, devices as the base.
    if (unit == QLatin1String("x"))
      row->list->setText(QStringLiteral("0.5, 1, 2"));
    else if (knobName == QLatin1String("devices"))
      row->list->setText(QString::number(base_.space.base.system.devices));
    row->list->setFocus();
    // Once the grid has laid the row out: scroll it into view.
    QTimer::singleShot(0, row->list,
                       [this, edit = row->list] { scroll_->ensureWidgetVisible(edit); });
    refreshAddCombo();
    edit(QStringLiteral("+") + knobName, tr("add axis %1").arg(knobName), false);
  }
}

void SpaceEditor::removeAxis(int index) {
  if (index < 0 || index >= axisCount()) return;
  auto it = hw_.begin() + index;
  const QString knob = (*it)->key;
  for (QWidget* w : (*it)->rowWidgets)
    if (w) {
      hwGrid_->removeWidget(w);
      w->deleteLater();
    }
  hw_.erase(it);
  layoutHardware();
  refreshAddCombo();
  edit(QStringLiteral("-") + knob, tr("remove axis %1").arg(knob), false);
}

void SpaceEditor::refreshAddCombo() {
  const QSignalBlocker block(addKnob_);
  addKnob_->clear();
  for (const search::Knob& k : search::knobs()) {
    const QString name = QString::fromUtf8(k.name.data(), static_cast<qsizetype>(k.name.size()));
    if (name == QLatin1String("variant") || name == QLatin1String("model")) continue;
    const bool used =
        std::any_of(hw_.begin(), hw_.end(), [&](const auto& r) { return r->key == name; });
    if (used) continue;
    const QString desc =
        QString::fromUtf8(k.description.data(), static_cast<qsizetype>(k.description.size()));
    const QString unit = unitText(k.unit);
    addKnob_->addItem(tr("%1 — %2 (%3)").arg(name, desc, unit), name);
    addKnob_->setItemData(
        addKnob_->count() - 1,
        tipHtml(name, desc, unit,
                (k.integer ? tr("whole numbers >= %1") : tr("numbers >= %1")).arg(k.min),
                QStringLiteral("/search/hardware/N/knob")),
        Qt::ToolTipRole);
  }
  addAxis_->setEnabled(addKnob_->count() > 0);
}

void SpaceEditor::addObjective(search::Objective o) {
  ObjectiveRow row;
  auto* host = new QWidget(this);
  auto* h = new QHBoxLayout(host);
  h->setContentsMargins(0, 0, 0, 0);
  row.metric = new QComboBox(host);
  for (search::Metric m : kMetrics) row.metric->addItem(metricLabel(m), static_cast<int>(m));
  row.metric->setCurrentIndex(row.metric->findData(static_cast<int>(o.metric)));
  row.metric->setToolTip(tipHtml(tr("Objective"), tr("A metric the frontier trades off"), {},
                                 tr("stps, stps_per_device, stps_per_mm2, stps_per_W, utps, "
                                    "energy_per_token_j, area_mm2, ttft_s, tpot_s"),
                                 QStringLiteral("/search/objectives/N/metric")));
  row.direction = new QComboBox(host);
  row.direction->addItem(tr("maximize ↑"), static_cast<int>(search::Direction::maximize));
  row.direction->addItem(tr("minimize ↓"), static_cast<int>(search::Direction::minimize));
  row.direction->setCurrentIndex(o.direction == search::Direction::maximize ? 0 : 1);
  row.direction->setToolTip(
      tr("Whether more or less of the metric is better (throughputs are "
         "maximised, times, energy and area minimised by default)"));
  row.remove = new QPushButton(tr("Remove"), host);
  row.remove->setToolTip(tr("Remove this objective (at least one is needed)"));
  h->addWidget(row.metric, 1);
  h->addWidget(row.direction);
  h->addWidget(row.remove);
  objectiveBox_->addWidget(host);
  QComboBox* metric = row.metric;
  QComboBox* direction = row.direction;
  connect(metric, &QComboBox::currentIndexChanged, this, [this, metric, direction] {
    const auto m = static_cast<search::Metric>(metric->currentData().toInt());
    if (!loading_)
      direction->setCurrentIndex(search::default_direction(m) == search::Direction::maximize ? 0
                                                                                             : 1);
    edit(QStringLiteral("objectives"));
  });
  connect(direction, &QComboBox::currentIndexChanged, this,
          [this] { edit(QStringLiteral("objectives")); });
  connect(row.remove, &QPushButton::clicked, this, [this, host, metric] {
    for (std::size_t i = 0; i < objectives_.size(); ++i)
      if (objectives_[i].metric == metric)
        objectives_.erase(objectives_.begin() + static_cast<std::ptrdiff_t>(i));
    host->hide();
    host->deleteLater();
    addObjective_->setEnabled(objectives_.size() < search::kMaxObjectives);
    edit(QStringLiteral("-objectives"), tr("remove objective"), false);
  });
  objectives_.push_back(row);
  addObjective_->setEnabled(objectives_.size() < search::kMaxObjectives);
}

void SpaceEditor::loadForm(const io::SearchProject& sp) {
  const bool was = loading_;
  loading_ = true;
  const auto& s = sp.space;
  while (!hw_.empty()) {
    for (QWidget* w : hw_.back()->rowWidgets)
      if (w) {
        hwGrid_->removeWidget(w);
        delete w;
      }
    hw_.pop_back();
  }
  for (std::size_t a = 0; a < s.hardware.size(); ++a) {
    const auto& axis = s.hardware[a];
    const QString knob = QString::fromStdString(axis.knob);
    addAxis(knob);
    if (hw_.size() != a + 1) {  // unknown knob: a plain row the compiler will flag
      auto* row = makeAxisRow(hwGrid_, static_cast<int>(a) + 1, knob, true);
      hw_.emplace_back(row);
    }
    AxisRow& row = *hw_.back();
    if (row.indexAxis) {
      row.fixedValues = axis.values;
      QStringList names;
      for (double v : axis.values)
        names << QString::fromStdString(search::axis_value_name(s, a, v));
      row.mode->setEnabled(false);
      row.list->setText(names.join(QStringLiteral(", ")));
      row.list->setReadOnly(true);
      row.baseTip += tr("<p>The %1 list is defined in the JSON (Edit space as JSON).</p>")
                         .arg(knob == QLatin1String("variant") ? tr("variant") : tr("model"));
    } else {
      setRowValues(row, axis.values);
    }
  }
  layoutHardware();
  for (auto& row : sched_) {
    search::InnerAxes in = s.inner;
    const std::vector<int>* v = scheduleRef(in, row->key);
    setRowValues(*row, std::vector<double>(v->begin(), v->end()));
  }
  const auto has = [](const auto& list, auto value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  sp_[0]->setChecked(has(s.inner.sequence_parallel, 0));
  sp_[1]->setChecked(has(s.inner.sequence_parallel, 1));
  overlap_[0]->setChecked(has(s.inner.overlap, parallel::Overlap::off));
  overlap_[1]->setChecked(has(s.inner.overlap, parallel::Overlap::fixed));
  overlap_[2]->setChecked(has(s.inner.overlap, parallel::Overlap::auto_tiles));
  search::Constraints c = s.constraints;
  for (auto& row : constraints_) {
    const double v = constraintRef(c, row.key);
    row.on->setChecked(!std::isinf(v));
    row.spin->setEnabled(!std::isinf(v));
    if (!std::isinf(v)) row.spin->setValue(v * row.scale);
    row.loaded = row.spin->value();
  }
  for (auto& o : objectives_) {
    o.metric->parentWidget()->hide();
    o.metric->parentWidget()->deleteLater();
  }
  objectives_.clear();
  for (const auto& o : s.objectives) addObjective(o);
  strategy_->setCurrentIndex(strategy_->findData(static_cast<int>(sp.run.strategy)));
  seed_->setValue(
      static_cast<int>(std::min<std::uint64_t>(sp.run.seed, std::numeric_limits<int>::max())));
  samples_->setValue(
      static_cast<int>(std::min<std::uint64_t>(sp.run.samples, std::numeric_limits<int>::max())));
  population_->setValue(static_cast<int>(std::min<std::size_t>(sp.run.population, 1'000'000)));
  generations_->setValue(static_cast<int>(std::min<std::size_t>(sp.run.generations, 1'000'000)));
  refreshAddCombo();
  loading_ = was;
}

}  // namespace stackscope::ui
