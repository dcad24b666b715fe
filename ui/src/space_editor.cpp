// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/space_editor.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/search_writer.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

enum Mode { kList, kLinear, kGeometric };

constexpr int kFormDebounceMs = 150;
constexpr int kJsonDebounceMs = 400;
// The reader's limit on a range's length (search_json.cpp), checked before expanding so a tiny
// step cannot allocate gigabytes.
constexpr double kMaxRangeValues = 1u << 20;

constexpr search::Metric kMetrics[] = {
    search::Metric::stps,         search::Metric::stps_per_device,
    search::Metric::stps_per_mm2, search::Metric::stps_per_W,
    search::Metric::utps,         search::Metric::energy_per_token_j,
    search::Metric::area_mm2,     search::Metric::ttft_s,
    search::Metric::tpot_s};

// Schedule axes: key in the file, label, unit, smallest value, what an empty list means.
struct ScheduleSpec {
  const char* key;
  const char* label;
  const char* unit;
  int min;
  const char* empty;  // nullptr: a value is required
  const char* tip;
};
const ScheduleSpec kSchedule[] = {
    {"tp", "TP", "ways", 1, nullptr,
     "Tensor-parallel degrees to try. A parallel plan is a point only if "
     "tp × pp × ep × dp × cp equals the hardware point's device count."},
    {"pp", "PP", "stages", 1, nullptr, "Pipeline-parallel degrees (stages) to try."},
    {"ep", "EP", "ways", 1, nullptr, "Expert-parallel degrees to try (MoE models)."},
    {"dp", "DP", "replicas", 1, nullptr, "Data-parallel degrees (model replicas) to try."},
    {"cp", "CP", "ways", 1, nullptr, "Context-parallel degrees (prompt split) to try."},
    {"attention_tp", "Attention TP", "ways", 0, "the base plan's",
     "Tensor-parallel degree of the attention blocks (0 = the plan's TP)."},
    {"moe_ep", "MoE EP", "ways", 0, "the base plan's",
     "Expert-parallel degree of the MoE blocks (0 = derived from the plan)."},
    {"batch", "Batch", "requests", 1, "the base workload's",
     "Requests per replica decoded together."},
};

struct ConstraintSpec {
  const char* key;
  const char* label;
  const char* suffix;
  double scale;  // shown = file value × scale
  double min, max, fallback;
  int decimals;
  const char* tip;
};
const ConstraintSpec kConstraints[] = {
    {"max_power_W", "Max power per device", " W", 1, 0.1, 1e6, 700, 1,
     "Mean power of one device (compute die, memory, links); points above it are infeasible."},
    {"max_die_area_mm2", "Max die area", " mm²", 1, 0.1, 1e5, 800, 1,
     "Logic-die area of one device."},
    {"max_dram_C", "Max DRAM temperature", " °C", 1, 1, 500, 95, 1,
     "Peak DRAM temperature of the compact thermal model."},
    {"ttft_slo_s", "TTFT SLO", " s", 1, 0.001, 1e5, 2, 3,
     "Time to first token of one request: points slower than this are infeasible."},
    {"tpot_slo_s", "TPOT SLO", " ms", 1000, 0.01, 1e7, 50, 2,
     "Time per output token (decode step) seen by one request; 1/TPOT is the minimum UTPS."},
};

double& constraintRef(search::Constraints& c, const QString& key) {
  if (key == QLatin1String("max_power_W")) return c.max_power_W;
  if (key == QLatin1String("max_die_area_mm2")) return c.max_die_area_mm2;
  if (key == QLatin1String("max_dram_C")) return c.max_dram_C;
  if (key == QLatin1String("ttft_slo_s")) return c.ttft_slo_s;
  return c.tpot_slo_s;
}

std::vector<int>* scheduleRef(search::InnerAxes& in, const QString& key) {
  if (key == QLatin1String("tp")) return &in.tp;
  if (key == QLatin1String("pp")) return &in.pp;
  if (key == QLatin1String("ep")) return &in.ep;
  if (key == QLatin1String("dp")) return &in.dp;
  if (key == QLatin1String("cp")) return &in.cp;
  if (key == QLatin1String("attention_tp")) return &in.attention_tp;
  if (key == QLatin1String("moe_ep")) return &in.moe_ep;
  if (key == QLatin1String("batch")) return &in.batch;
  return nullptr;
}

QString valuesText(std::size_t n) {
  return n == 1 ? QObject::tr("1 value") : QObject::tr("%1 values").arg(n);
}

// Units of the knob registry as shown ("um" -> "µm", "mm2" -> "mm²").
QString unitText(std::string_view unit) {
  QString u = QString::fromUtf8(unit.data(), static_cast<qsizetype>(unit.size()));
  if (u == QLatin1String("um")) return QStringLiteral("µm");
  if (u == QLatin1String("mm2")) return QStringLiteral("mm²");
  return u;
}

QString number(double v) {
  return QString::number(v, 'g', 15);
}

QString listText(const std::vector<double>& values) {
  QStringList parts;
  for (double v : values) parts << number(v);
  return parts.join(QStringLiteral(", "));
}

// The value shown in a spin box rounded to what a person typed (12 digits), so 50 ms is
// 0.05 s and not 0.05000000000000001 s.
double typed(double v) {
  return QString::number(v, 'g', 12).toDouble();
}

QString tipHtml(const QString& title, const QString& text, const QString& unit,
                const QString& allowed, const QString& key) {
  QString t = QStringLiteral("<p><b>%1</b> — %2</p><p><small>")
                  .arg(title.toHtmlEscaped(), text.toHtmlEscaped());
  if (!unit.isEmpty()) t += QObject::tr("Unit: %1 · ").arg(unit.toHtmlEscaped());
  if (!allowed.isEmpty()) t += QObject::tr("Allowed: %1 · ").arg(allowed.toHtmlEscaped());
  t += QObject::tr("Key: <code>%1</code></small></p>").arg(key.toHtmlEscaped());
  return t;
}

QColor problemInk() {
  return theme::isDark() ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
}

QString issueText(const Issue& i) {
  QString s = QString::fromStdString(i.message);
  QStringList extra;
  if (!i.value.empty()) extra << QObject::tr("got %1").arg(QString::fromStdString(i.value));
  if (!i.allowed.empty())
    extra << QObject::tr("allowed: %1").arg(QString::fromStdString(i.allowed));
  if (!extra.isEmpty()) s += QStringLiteral(" (") + extra.join(QStringLiteral("; ")) + ')';
  return s;
}

// One step of the space's history: the project text before and after (both parse), shown again
// by `show` on undo and redo.
class SpaceTextCommand : public QUndoCommand {
 public:
  SpaceTextCommand(std::function<void(const QString&)> show, QString before, QString after,
                   const QString& text, int id)
      : QUndoCommand(text),
        show_(std::move(show)),
        before_(std::move(before)),
        after_(std::move(after)),
        id_(id) {}
  void undo() override { show_(before_); }
  void redo() override {
    // The first redo() runs inside push(): the form already shows `after`.
    if (first_) {
      first_ = false;
      return;
    }
    show_(after_);
  }
  int id() const override { return id_; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const SpaceTextCommand*>(other);
    if (id_ < 0 || o->id_ != id_) return false;
    after_ = o->after_;
    setObsolete(after_ == before_);  // typed back to where it was: no step
    return true;
  }

 private:
  std::function<void(const QString&)> show_;
  QString before_, after_;
  int id_;
  bool first_ = true;
};

}  // namespace

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
  formBox->addWidget(hwGroup);
  connect(addAxis_, &QPushButton::clicked, this, [this] {
    if (addKnob_->currentIndex() >= 0) addAxis(addKnob_->currentData().toString());
  });

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
  formBox->addWidget(schedGroup);

  // Constraints.
  auto* consGroup = new QGroupBox(tr("Constraints (points beyond them are infeasible)"), form);
  auto* consGrid = new QGridLayout(consGroup);
  consGrid->setColumnStretch(2, 1);
  r = 0;
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
  formBox->addWidget(consGroup);

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
  formBox->addWidget(objGroup);

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
  formBox->addWidget(runGroup);
  formBox->addStretch(1);

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

  // Right: the JSON view.
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
