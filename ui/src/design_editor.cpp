// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/design_editor.hpp"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QTableWidget>
#include <QToolBox>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <map>
#include <string_view>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/compute/noc.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/thermal/compact.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"

namespace stackscope::ui {
namespace {

constexpr int kMaxDegree = 65536;        // parallel degrees: far past any real system
constexpr int kMaxTokens = 10'000'000;   // sequence lengths
constexpr int kMaxLevels = 3;            // perf::validate(): at most 3 network levels
constexpr int kLevelFieldStride = 1000;  // undo ids of level fields: per level, never merged

// Precisions in the order of the combos (index = position).
constexpr Precision kPrecisions[] = {Precision::fp32, Precision::fp16, Precision::bf16,
                                     Precision::fp8,  Precision::int8, Precision::fp4};

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

// "parallel.tp" for "/parallel/tp": the key as it reads in a project file. Tooltips show it
// dotted so an issue's JSON pointer is never mistaken for the field's own description.
QString projectKey(const QString& path) {
  QString k = path.mid(1);
  k.replace(QLatin1Char('/'), QLatin1Char('.'));
  k.replace(QStringLiteral("{L}"), QStringLiteral("N"));
  return k;
}

// Rich-text tooltip: meaning and source, then unit, allowed range and project key.
QString fieldTip(const QString& tip, const QString& unit, const QString& range,
                 const QString& path) {
  QString t = QStringLiteral("<p>%1</p><p><small>").arg(tip.toHtmlEscaped());
  if (!unit.isEmpty()) t += QObject::tr("Unit: %1 · ").arg(unit.toHtmlEscaped());
  if (!range.isEmpty()) t += QObject::tr("Allowed: %1 · ").arg(range.toHtmlEscaped());
  t += QObject::tr("Project key: <code>%1</code></small></p>").arg(projectKey(path));
  return t;
}

// A preset combo's tooltip: the whole name (elided in the box) and the preset id. Also the
// tooltip showIssues() restores when the combo has no issue.
void presetTip(QComboBox* combo) {
  const QString id = combo->currentData().toString();
  const QString tip = id.isEmpty() ? combo->currentText()
                                   : QObject::tr("%1\npreset id: %2").arg(combo->currentText(), id);
  combo->setToolTip(tip);
  combo->setProperty("baseTip", tip);
}

QString plainLabel(QString label) {
  label.remove(QLatin1Char('&'));
  if (label.endsWith(QLatin1Char(':'))) label.chop(1);
  return label.toLower();
}

// A page: a column holding a form of fields, then any wrapped text (kept out of the form:
// QFormLayout underestimates the height of word-wrapped rows, which a scroll area trusts).
QVBoxLayout* column(QWidget* page) {
  return qobject_cast<QVBoxLayout*>(page->layout());
}

// Another form below what the page's column holds so far (a section with its own wrapped
// text after it); alignFormLabels() lines its labels up with the page's other forms.
QFormLayout* appendForm(QWidget* page, const char* name = "") {
  auto* fields = new QWidget(page);
  if (*name) fields->setObjectName(QString::fromLatin1(name));
  auto* form = new QFormLayout(fields);
  form->setContentsMargins(0, 0, 0, 0);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::DontWrapRows);
  column(page)->addWidget(fields);
  return form;
}

QFormLayout* newForm(QWidget* page) {
  auto* col = new QVBoxLayout(page);
  col->setContentsMargins(6, 6, 6, 6);
  return appendForm(page);
}

// One label column for all forms of a page: each label as wide as the widest.
void alignFormLabels(QWidget* page) {
  const auto forms = page->findChildren<QFormLayout*>();
  int width = 0;
  std::vector<QWidget*> labels;
  for (QFormLayout* form : forms)
    for (int r = 0; r < form->rowCount(); ++r)
      if (QLayoutItem* item = form->itemAt(r, QFormLayout::LabelRole))
        if (QWidget* label = item->widget()) {
          label->setMinimumWidth(0);
          width = std::max(width, label->sizeHint().width());
          labels.push_back(label);
        }
  for (QWidget* label : labels) label->setMinimumWidth(width);
}

QLabel* derivedLabel(QWidget* parent, const char* name) {
  auto* l = new QLabel(parent);
  l->setObjectName(QString::fromLatin1(name));
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

QLabel* sectionLabel(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setObjectName(QStringLiteral("sectionTitle"));
  return l;
}

QString topologyName(hw::Topology t) {
  switch (t) {
    case hw::Topology::switch_fabric: return QObject::tr("switch");
    case hw::Topology::ring: return QObject::tr("ring");
    case hw::Topology::mesh2d: return QObject::tr("2D mesh");
    case hw::Topology::torus2d: return QObject::tr("2D torus");
    case hw::Topology::fully_connected: return QObject::tr("fully connected");
  }
  return {};
}

}  // namespace

DesignEditor::DesignEditor(const io::PresetRegistry& presets, QWidget* parent)
    : QWidget(parent), presets_(presets) {
  setObjectName(QStringLiteral("designEditor"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  auto* top = new QFormLayout();
  top->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  top->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  hardware_ = new QComboBox(this);
  hardware_->setMinimumContentsLength(24);
  hardware_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  hardware_->setObjectName(QStringLiteral("hardwareCombo"));
  hardware_->setToolTip(
      tr("Device preset (one chip or package): sets the stack, compute die "
         "and mesh pages below"));
  devices_ = derivedLabel(this, "devicesLabel");
  devices_->setWordWrap(false);
  top->addRow(tr("&Hardware:"), hardware_);
  top->addRow(tr("Devices:"), devices_);
  box->addLayout(top);

  pages_ = new QToolBox(this);
  pages_->setObjectName(QStringLiteral("editorPages"));
  box->addWidget(pages_, 1);
  const std::pair<QString, QWidget* (DesignEditor::*)()> pages[] = {
      {tr("Model && workload"), &DesignEditor::buildModelPage},
      {tr("Parallelism && batch"), &DesignEditor::buildParallelPage},
      {tr("Memory (DRAM, 3D stack)"), &DesignEditor::buildStackPage},
      {tr("Compute die"), &DesignEditor::buildComputePage},
      {tr("On-die mesh (NoC)"), &DesignEditor::buildMeshPage},
      {tr("System network"), &DesignEditor::buildSystemPage},
      {tr("Power, area && thermal"), &DesignEditor::buildPowerPage}};
  for (const auto& [title, build] : pages) {
    page_ = static_cast<int>(pageTitles_.size());
    QWidget* page = (this->*build)();
    if (QVBoxLayout* col = column(page)) {
      // The page's problems in words, above its fields (hidden while there are none).
      auto* problems = new QLabel(page);
      problems->setObjectName(QStringLiteral("pageProblems"));
      problems->setWordWrap(true);
      problems->setTextFormat(Qt::RichText);
      problems->setVisible(false);
      col->insertWidget(0, problems);
      col->addStretch(1);
      pageProblems_.push_back(problems);
    }
    pageTitles_.push_back(title);  // "&&" shows one "&" (a lone one marks a shortcut)
    addPage(page, title);
    alignFormLabels(page);
  }

  connect(hardware_, &QComboBox::currentIndexChanged, this, [this] {
    if (refreshing_) return;
    const QString id = hardware_->currentData().toString();
    presetTip(hardware_);
    try {
      cur_.hardware = id.isEmpty() ? custom_ : presets_.hardware(id.toStdString());
    } catch (const std::exception&) {
      return;  // the registry lists only ids it holds
    }
    refreshAll();
    commit(-1, tr("hardware"));
  });
  connect(model_, &QComboBox::currentIndexChanged, this, [this] {
    if (refreshing_) return;
    const QString id = model_->currentData().toString();
    presetTip(model_);
    try {
      cur_.model = id.isEmpty() ? base_.model : presets_.model(id.toStdString());
    } catch (const std::exception&) {
      return;
    }
    // Same rules as the CLI's --model: expert statistics and EP belong to the old model.
    loadRoutingTrace();
    if (cur_.model.moe.experts == 0) {
      cur_.parallel.ep = 1;
      cur_.parallel.moe = {};
      cur_.parallel.redundant_experts_per_rank = 0;
    }
    cur_.system.devices = parallel::devices(cur_.parallel);
    refreshAll();
    commit(-1, tr("model"));
  });
}

void DesignEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::StyleChange || event->type() == QEvent::FontChange)
    for (int i = 0; i < static_cast<int>(pageTitles_.size()); ++i)
      alignFormLabels(pages_->widget(i));
}

int DesignEditor::bind(const QString& path, QWidget* w, std::function<void()> refresh) {
  w->setProperty("jsonPath", path);
  bindings_.push_back({path, w, page_, std::move(refresh)});
  return static_cast<int>(bindings_.size()) - 1;
}

QString DesignEditor::levelPath(const QString& path) const {
  QString p = path;
  p.replace(QStringLiteral("{L}"), QString::number(level_));
  return p;
}

void DesignEditor::addInt(QFormLayout* form, const QString& label, const IntSpec& s, IntRef ref) {
  auto* spin = new QSpinBox(form->parentWidget());
  spin->setObjectName(QString::fromLatin1(s.object));
  spin->setRange(s.min, s.max);
  spin->setSuffix(s.suffix);
  spin->setGroupSeparatorShown(true);
  spin->setAccelerated(true);
  // Typing "2048" must not evaluate 2, 20 and 204 on the way; arrows still apply at once.
  spin->setKeyboardTracking(false);
  if (!s.special.isEmpty()) spin->setSpecialValueText(s.special);
  const QString path = QString::fromLatin1(s.path);
  QString range = QStringLiteral("%1 – %2").arg(s.min).arg(s.max);
  if (!s.special.isEmpty()) range += tr(" (%1 = %2)").arg(s.min).arg(s.special);
  spin->setToolTip(fieldTip(s.tip, s.suffix.trimmed(), range, path));
  form->addRow(label, spin);
  const int index = bind(path, spin, [this, spin, ref] {
    if (int* v = ref(cur_)) spin->setValue(*v);
  });
  const bool perLevel = path.contains(QStringLiteral("{L}"));
  connect(spin, &QSpinBox::valueChanged, this,
          [this, index, ref, perLevel, name = plainLabel(label)](int v) {
            if (refreshing_) return;
            int* p = ref(cur_);
            if (!p) return;
            *p = v;
            commit(perLevel ? index + kLevelFieldStride * (level_ + 1) : index, name);
          });
}

void DesignEditor::addDouble(QFormLayout* form, const QString& label, const DoubleSpec& s,
                             DoubleRef ref) {
  auto* spin = new QDoubleSpinBox(form->parentWidget());
  spin->setObjectName(QString::fromLatin1(s.object));
  spin->setDecimals(s.decimals);
  spin->setRange(s.min, s.max);
  spin->setSuffix(s.suffix);
  spin->setGroupSeparatorShown(true);
  spin->setAccelerated(true);
  spin->setKeyboardTracking(false);
  if (!s.special.isEmpty()) spin->setSpecialValueText(s.special);
  const QString path = QString::fromLatin1(s.path);
  QString range = QStringLiteral("%1 – %2").arg(readable(s.min), readable(s.max));
  if (!s.special.isEmpty()) range += tr(" (%1 = %2)").arg(readable(s.min), s.special);
  spin->setToolTip(fieldTip(s.tip, s.suffix.trimmed(), range, path));
  form->addRow(label, spin);
  const int index = bind(path, spin, [this, spin, ref] {
    if (double* v = ref(cur_)) spin->setValue(*v);
  });
  const bool perLevel = path.contains(QStringLiteral("{L}"));
  connect(spin, &QDoubleSpinBox::valueChanged, this,
          [this, index, ref, perLevel, name = plainLabel(label)](double v) {
            if (refreshing_) return;
            double* p = ref(cur_);
            if (!p) return;
            *p = v;
            commit(perLevel ? index + kLevelFieldStride * (level_ + 1) : index, name);
          });
}

void DesignEditor::addCombo(QFormLayout* form, const QString& label, const char* object,
                            const char* path, const QString& tip, const QStringList& items,
                            std::function<int(perf::Design&)> get,
                            std::function<void(perf::Design&, int)> set) {
  auto* combo = new QComboBox(form->parentWidget());
  combo->setObjectName(QString::fromLatin1(object));
  combo->addItems(items);
  const QString p = QString::fromLatin1(path);
  combo->setToolTip(fieldTip(tip, QString(), items.join(QStringLiteral(", ")), p));
  form->addRow(label, combo);
  const int index = bind(p, combo, [this, combo, get] { combo->setCurrentIndex(get(cur_)); });
  const bool perLevel = p.contains(QStringLiteral("{L}"));
  connect(combo, &QComboBox::currentIndexChanged, this,
          [this, index, set, perLevel, name = plainLabel(label)](int i) {
            if (refreshing_ || i < 0) return;
            set(cur_, i);
            commit(perLevel ? index + kLevelFieldStride * (level_ + 1) : index, name);
          });
}

void DesignEditor::addCheck(QFormLayout* form, const QString& label, const char* object,
                            const char* path, const QString& tip,
                            std::function<bool*(perf::Design&)> ref) {
  auto* check = new QCheckBox(form->parentWidget());
  check->setObjectName(QString::fromLatin1(object));
  const QString p = QString::fromLatin1(path);
  check->setToolTip(fieldTip(tip, QString(), tr("on / off"), p));
  form->addRow(label, check);
  const int index = bind(p, check, [this, check, ref] {
    if (bool* v = ref(cur_)) check->setChecked(*v);
  });
  const bool perLevel = p.contains(QStringLiteral("{L}"));
  connect(check, &QCheckBox::toggled, this,
          [this, index, ref, perLevel, name = plainLabel(label)](bool on) {
            if (refreshing_) return;
            bool* v = ref(cur_);
            if (!v) return;
            *v = on;
            commit(perLevel ? index + kLevelFieldStride * (level_ + 1) : index, name);
          });
}

QWidget* DesignEditor::buildModelPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("modelPage"));
  auto* form = newForm(page);
  model_ = new QComboBox(page);
  model_->setMinimumContentsLength(20);
  model_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  model_->setObjectName(QStringLiteral("modelCombo"));
  model_->setToolTip(tr("Model preset (architecture from its published config)"));
  form->addRow(tr("&Model:"), model_);
  bind(QStringLiteral("/model"), model_, [] {});
  QStringList names;
  for (Precision p : kPrecisions) names << qs(to_string(p));
  const auto precisionIndex = [](Precision p) {
    return static_cast<int>(std::find(std::begin(kPrecisions), std::end(kPrecisions), p) -
                            std::begin(kPrecisions));
  };
  const auto precisionAt = [](int i) {
    return kPrecisions[static_cast<std::size_t>(std::clamp(i, 0, 5))];
  };
  addCombo(
      form, tr("&Weights:"), "weightsCombo", "/workload/numerics/weights",
      tr("Storage format of the weights: sets weight bytes in memory and per decode step, "
         "and with the activations the matrix-unit rate used (MODEL.md §3)"),
      names, [=](perf::Design& d) { return precisionIndex(d.workload.numerics.weights); },
      [=](perf::Design& d, int i) { d.workload.numerics.weights = precisionAt(i); });
  addCombo(
      form, tr("&Activations:"), "activationsCombo", "/workload/numerics/activations",
      tr("Format of activations: GEMMs run at the wider of weights and activations"), names,
      [=](perf::Design& d) { return precisionIndex(d.workload.numerics.activations); },
      [=](perf::Design& d, int i) { d.workload.numerics.activations = precisionAt(i); });
  addCombo(
      form, tr("&KV cache:"), "kvCombo", "/workload/numerics/kv_cache",
      tr("Format of the stored keys and values: sets KV-cache bytes per token and what "
         "decode attention reads from DRAM"),
      names, [=](perf::Design& d) { return precisionIndex(d.workload.numerics.kv_cache); },
      [=](perf::Design& d, int i) { d.workload.numerics.kv_cache = precisionAt(i); });
  addInt(form, tr("&Input length:"),
         {"inputLenSpin",
          "/workload/input_len",
          1,
          kMaxTokens,
          tr(" tok"),
          tr("Prompt tokens per request, processed in the prefill pass (sets TTFT)"),
          {}},
         [](perf::Design& d) { return &d.workload.input_len; });
  addInt(form, tr("&Output length:"),
         {"outputLenSpin",
          "/workload/output_len",
          1,
          kMaxTokens,
          tr(" tok"),
          tr("Generated tokens per request (the first comes from prefill); decode steps see "
             "the context grow to input + output"),
          {}},
         [](perf::Design& d) { return &d.workload.output_len; });
  modelInfo_ = derivedLabel(page, "modelInfo");
  column(page)->addWidget(modelInfo_);

  // MoE routing (workload.routing): how tokens spread over the routed experts.
  auto* routing = appendForm(page, "routingFields");
  routing->addRow(sectionLabel(tr("MoE routing"), page));
  using workload::RoutingKind;
  addCombo(
      routing, tr("&Routing:"), "routingKindCombo", "/workload/routing/kind",
      tr("How tokens spread over the routed experts (MODEL.md §4): the busiest expert-parallel "
         "rank sets an MoE layer's time. Uniform = perfectly balanced; Zipf and Dirichlet are "
         "seeded skews; trace = recorded per-layer frequencies from a file."),
      {tr("uniform"), tr("Zipf (power law)"), tr("Dirichlet (random)"), tr("trace file")},
      [](perf::Design& d) { return static_cast<int>(d.workload.routing.kind); },
      [this](perf::Design& d, int i) {
        d.workload.routing.kind = static_cast<RoutingKind>(i);
        loadRoutingTrace();
      });
  addDouble(routing, tr("Zipf exponent s:"),
            {"zipfSpin", "/workload/routing/zipf_s", 0.01, 10, 2, QString(),
             tr("Skew of Zipf routing: the expert of rank r gets a share ∝ 1 / r^s (0 → uniform, "
                "1 = classic Zipf, larger = hotter hot experts)")},
            [](perf::Design& d) { return &d.workload.routing.zipf_s; });
  addDouble(routing, tr("Dirichlet α:"),
            {"dirichletSpin", "/workload/routing/dirichlet_alpha", 0.001, 1000, 3, QString(),
             tr("Concentration of Dirichlet routing: expert shares drawn from Dirichlet(α); "
                "small α = a few hot experts, large α → uniform")},
            [](perf::Design& d) { return &d.workload.routing.dirichlet_alpha; });
  addInt(routing, tr("Seed:"),
         {"routingSeedSpin",
          "/workload/routing/seed",
          0,
          INT_MAX,
          QString(),
          tr("Random seed of the Zipf rank permutation and the Dirichlet draw (results are "
             "deterministic for a seed)"),
          {}},
         [this](perf::Design& d) {
           // The spin edits a copy (the design holds a 64-bit seed); commit() applies it.
           seedEdit_ = static_cast<int>(std::min<std::uint64_t>(d.workload.routing.seed, INT_MAX));
           return &seedEdit_;
         });
  auto* trace = new QLineEdit(page);
  trace->setObjectName(QStringLiteral("traceEdit"));
  trace->setPlaceholderText(tr("path to a routing trace"));
  trace->setToolTip(fieldTip(
      tr("Recorded expert frequencies per MoE layer (reference/moe-traces format), used when "
         "the routing is 'trace file'. A relative path resolves against the project file's "
         "folder."),
      QString(), tr("a readable trace file with one row of experts per MoE layer"),
      QStringLiteral("/workload/routing/trace")));
  routing->addRow(tr("&Trace file:"), trace);
  const int traceIndex = bind(QStringLiteral("/workload/routing/trace"), trace, [this, trace] {
    trace->setText(QString::fromStdString(cur_.workload.routing.trace));
  });
  connect(trace, &QLineEdit::editingFinished, this, [this, trace, traceIndex] {
    const std::string text = trace->text().trimmed().toStdString();
    if (refreshing_ || text == cur_.workload.routing.trace) return;
    cur_.workload.routing.trace = text;
    loadRoutingTrace();
    commit(traceIndex, tr("routing trace"));
  });
  routingInfo_ = derivedLabel(page, "routingInfo");
  column(page)->addWidget(routingInfo_);
  return page;
}

void DesignEditor::loadRoutingTrace() {
  auto& r = cur_.workload.routing;
  traceError_.clear();
  if (r.kind != workload::RoutingKind::trace || cur_.model.moe.experts <= 0) {
    r.expert_frequency.clear();  // generated from kind and seed
    return;
  }
  r.expert_frequency.clear();
  if (r.trace.empty()) return;  // validate() asks for a file
  try {
    io::load_routing_trace(r, cur_.model.moe.experts, projectDir_.toStdString());
  } catch (const std::exception& e) {
    r.expert_frequency.clear();
    traceError_ = QString::fromUtf8(e.what());
  }
}

QWidget* DesignEditor::buildParallelPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("parallelPage"));
  auto* form = newForm(page);
  addInt(form, tr("&Batch / replica:"),
         {"batchSpin", "/workload/batch", 0, 1'000'000, tr(" req"),
          tr("Requests per replica, prefilled together then decoded (static batching). "
             "0 = auto: the largest batch that fits device memory."),
          tr("auto (fits memory)")},
         [this](perf::Design& d) {
           // The spin edits a copy: 0 stands for batch_auto, and the stored batch is kept for
           // when auto is turned off again (commit() applies it).
           batchEdit_ = d.workload.batch_auto ? 0 : d.workload.batch;
           return &batchEdit_;
         });
  addInt(form, tr("&Tensor parallel:"),
         {"tpSpin",
          "/parallel/tp",
          1,
          kMaxDegree,
          QString(),
          tr("TP: attention heads and FFN columns split over TP devices (Megatron), two "
             "all-reduces per layer"),
          {}},
         [](perf::Design& d) { return &d.parallel.tp; });
  addInt(form, tr("P&ipeline parallel:"),
         {"ppSpin",
          "/parallel/pp",
          1,
          kMaxDegree,
          QString(),
          tr("PP: the layers split evenly into PP stages (at most one stage per layer)"),
          {}},
         [](perf::Design& d) { return &d.parallel.pp; });
  addInt(form, tr("&Data parallel:"),
         {"dpSpin",
          "/parallel/dp",
          1,
          kMaxDegree,
          QString(),
          tr("DP: independent replicas of the whole model; STPS scales with DP"),
          {}},
         [](perf::Design& d) { return &d.parallel.dp; });
  addInt(form, tr("E&xpert parallel:"),
         {"epSpin",
          "/parallel/ep",
          1,
          kMaxDegree,
          QString(),
          tr("EP (MoE models): routed experts spread over EP devices; attention runs "
             "data-parallel over them (DeepSeek-style). Must divide the expert count."),
          {}},
         [](perf::Design& d) { return &d.parallel.ep; });
  addInt(form, tr("&Context parallel:"),
         {"cpSpin",
          "/parallel/cp",
          1,
          kMaxDegree,
          QString(),
          tr("CP: ring attention over CP ranks for long prompts (Liu et al. 2023); must divide "
             "the input length. In decode the ranks act as extra attention-DP groups."),
          {}},
         [](perf::Design& d) { return &d.parallel.cp; });
  addCheck(form, tr("&Sequence parallel:"), "spCheck", "/parallel/sequence_parallel",
           tr("SP: TP all-reduces become reduce-scatter + all-gather and norms/residuals are "
              "sharded over the sequence (Korthikanti et al. 2022)"),
           [](perf::Design& d) { return &d.parallel.sequence_parallel; });
  addInt(form, tr("&Micro-batches:"),
         {"microBatchSpin", "/parallel/micro_batches", 0, 1'000'000, QString(),
          tr("Micro-batches in flight through the pipeline; 0 = auto (PP micro-batches in "
             "decode, so every stage is busy)"),
          tr("auto")},
         [](perf::Design& d) { return &d.parallel.micro_batches; });
  form->addRow(sectionLabel(tr("Per-module plans (0 = from the global plan)"), page));
  addInt(form, tr("Attention TP:"),
         {"attentionTpSpin", "/parallel/attention/tp", 0, kMaxDegree, QString(),
          tr("Tensor-parallel degree of attention inside a stage of TP × EP × CP devices; the "
             "rest of the stage runs attention data-parallel. Must divide the stage."),
          tr("global TP")},
         [](perf::Design& d) { return &d.parallel.attention.tp; });
  addInt(form, tr("Dense FFN TP:"),
         {"ffnTpSpin", "/parallel/dense_ffn/tp", 0, kMaxDegree, QString(),
          tr("Tensor-parallel degree of dense FFN layers inside a stage; must divide the stage "
             "and the FFN width"),
          tr("global TP")},
         [](perf::Design& d) { return &d.parallel.dense_ffn.tp; });
  addInt(form, tr("MoE TP:"),
         {"moeTpSpin", "/parallel/moe/tp", 0, kMaxDegree, QString(),
          tr("MoE layers: each expert split this many ways (must divide the expert FFN width)"),
          tr("global TP")},
         [](perf::Design& d) { return &d.parallel.moe.tp; });
  addInt(form, tr("MoE EP:"),
         {"moeEpSpin", "/parallel/moe/ep", 0, kMaxDegree, QString(),
          tr("MoE layers: expert-parallel degree; MoE TP × MoE EP must equal the stage's "
             "devices"),
          tr("stage / MoE TP")},
         [](perf::Design& d) { return &d.parallel.moe.ep; });
  addInt(form, tr("Redundant experts:"),
         {"redundantSpin",
          "/parallel/redundant_experts_per_rank",
          0,
          4096,
          tr(" / rank"),
          tr("Extra expert slots per EP rank holding replicas of the hottest experts "
             "(DeepSeek-V3 EPLB); a replicated expert's tokens split over its copies"),
          {}},
         [](perf::Design& d) { return &d.parallel.redundant_experts_per_rank; });
  form->addRow(sectionLabel(tr("Compute / communication overlap"), page));
  addCombo(
      form, tr("&Overlap:"), "overlapCombo", "/parallel/overlap",
      tr("Tile-level overlap of compute and communication (MODEL.md §7): off, a fixed "
         "tile count, or the best tile count per operator"),
      {tr("off"), tr("fixed tiles"), tr("auto (best per operator)")},
      [](perf::Design& d) { return static_cast<int>(d.parallel.overlap); },
      [](perf::Design& d, int i) { d.parallel.overlap = static_cast<parallel::Overlap>(i); });
  addInt(form, tr("Overlap tiles:"),
         {"overlapTilesSpin",
          "/parallel/overlap_tiles",
          1,
          1024,
          tr(" tiles"),
          tr("Tiles per operator when overlap is fixed; past ~1000 tiles the per-tile sync "
             "cost dominates any gain (MODEL.md §7)"),
          {}},
         [](perf::Design& d) { return &d.parallel.overlap_tiles; });
  auto* placement = new QLineEdit(page);
  placement->setObjectName(QStringLiteral("placementEdit"));
  placement->setToolTip(fieldTip(
      tr("Rank placement, innermost first: consecutive ranks of the first dimension sit on "
         "consecutive devices (and share the fastest network level)"),
      QString(), tr("a permutation of tp, ep, cp, pp, dp"), QStringLiteral("/parallel/placement")));
  form->addRow(tr("P&lacement:"), placement);
  const int index = bind(QStringLiteral("/parallel/placement"), placement, [this, placement] {
    placement->setText(QString::fromStdString(cur_.parallel.placement));
  });
  connect(placement, &QLineEdit::editingFinished, this, [this, placement, index] {
    const std::string text = placement->text().trimmed().toStdString();
    if (refreshing_ || text == cur_.parallel.placement) return;
    cur_.parallel.placement = text;
    commit(index, tr("placement"));
  });
  return page;
}

QWidget* DesignEditor::buildStackPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("stackPage"));
  auto* outer = new QVBoxLayout(page);
  outer->setContentsMargins(0, 0, 0, 0);
  stackNote_ = derivedLabel(page, "stackNote");
  stackNote_->setProperty("hint", true);
  stackNote_->setContentsMargins(6, 6, 6, 0);
  outer->addWidget(stackNote_);
  using M = hw::Memory;
  const auto mem = [](perf::Design& d) -> M& { return d.hardware.memory; };

  // What every kind of memory has (SRAM-only devices too).
  auto* kindFields = new QWidget(page);
  kindFields->setObjectName(QStringLiteral("memoryKindFields"));
  outer->addWidget(kindFields);
  auto* top = newForm(kindFields);
  addCombo(
      top, tr("Memory &kind:"), "memoryKindCombo", "/hardware/memory/kind",
      tr("HBM stacks beside the die on an interposer (2.5D), DRAM stacked on the logic die "
         "(3D, vertical links), or no DRAM at all (on-die SRAM only, e.g. wafer-scale)"),
      {tr("HBM (2.5D)"), tr("3D stacked on the logic die"), tr("SRAM only (no DRAM)")},
      [](perf::Design& d) { return static_cast<int>(d.hardware.memory.kind); },
      [](perf::Design& d, int i) { d.hardware.memory.kind = static_cast<hw::MemoryKind>(i); });
  addDouble(top, tr("Reserved memory:"),
            {"reservedSpin", "/hardware/memory/reserved_GiB", 0, 1e6, 2, tr(" GiB"),
             tr("Device memory the model cannot use (firmware, ECC, driver)")},
            [=](perf::Design& d) { return &mem(d).reserved_GiB; });
  addDouble(top, tr("Runtime reserve:"),
            {"runtimeReservedSpin", "/hardware/runtime_reserved_GiB", 0, 1e6, 2, tr(" GiB"),
             tr("Framework / runtime workspace per device (CUDA context, allocator slack)")},
            [](perf::Design& d) { return &d.hardware.runtime_reserved_GiB; });

  // DRAM organisation and timings: HBM and 3D stacks alike.
  dramFields_ = new QWidget(page);
  dramFields_->setObjectName(QStringLiteral("dramFields"));
  outer->addWidget(dramFields_);
  auto* form = newForm(dramFields_);
  form->addRow(sectionLabel(tr("DRAM organisation"), dramFields_));
  addInt(form, tr("DRAM &layers:"),
         {"layersSpin",
          "/hardware/memory/layers_total",
          1,
          64,
          tr(" dies"),
          tr("DRAM dies per stack (an 8-high HBM stack has 8). 3D: more layers, more capacity "
             "and, with more layers per vertical connection, row recharge hidden; more thermal "
             "resistance (DeepStack, MODEL.md §2, §9)."),
          {}},
         [=](perf::Design& d) { return &mem(d).layers_total; });
  addInt(form, tr("&Connected layers:"),
         {"connectedSpin",
          "/hardware/memory/layers_connected",
          1,
          64,
          tr(" dies"),
          tr("DRAM dies with active vertical links (3D) or carrying channels (HBM), at most the "
             "stacked dies. Peak bandwidth scales with them; DeepStack's rule: up to half the "
             "layers, recharge hides behind the others."),
          {}},
         [=](perf::Design& d) { return &mem(d).layers_connected; });
  addInt(form, tr("Stacks:"),
         {"stacksSpin",
          "/hardware/memory/stacks",
          1,
          64,
          QString(),
          tr("DRAM stacks per device (HBM sites on the interposer; one for DRAM bonded over the "
             "whole logic die)"),
          {}},
         [=](perf::Design& d) { return &mem(d).stacks; });
  addInt(form, tr("Channels / layer:"),
         {"channelsSpin",
          "/hardware/memory/channels_per_layer",
          1,
          4096,
          tr(" ch"),
          tr("Independent (pseudo-)channels per connected die; each carries bytes per transfer × "
             "transfers per clock × clock"),
          {}},
         [=](perf::Design& d) { return &mem(d).channels_per_layer; });
  addInt(form, tr("Banks / channel:"),
         {"banksSpin",
          "/hardware/memory/banks_per_channel",
          1,
          1024,
          tr(" banks"),
          tr("Banks per channel: more banks overlap more row cycles (row-cycle efficiency, "
             "MODEL.md §2)"),
          {}},
         [=](perf::Design& d) { return &mem(d).banks_per_channel; });
  addDouble(form, tr("Channel width:"),
            {"busBytesSpin", "/hardware/memory/bytes_per_transfer", 0.125, 1024, 3, tr(" B"),
             tr("Data bytes a channel moves per transfer (HBM3 pseudo-channel: 32 bit = 4 B)")},
            [=](perf::Design& d) { return &mem(d).bytes_per_transfer; });
  addDouble(form, tr("Transfers / clock:"),
            {"transfersSpin", "/hardware/memory/transfers_per_clock", 0.5, 16, 1, tr(" T/clk"),
             tr("Data transfers per DRAM clock (DDR: 2)")},
            [=](perf::Design& d) { return &mem(d).transfers_per_clock; });
  addDouble(form, tr("DRAM clock:"),
            {"dramClockSpin", "/hardware/memory/clock_MHz", 1, 100'000, 0, tr(" MHz"),
             tr("DRAM I/O clock; DDR moves two transfers per clock (preset: Ramulator2 "
                "timings, reference/dram-timings.md)")},
            [=](perf::Design& d) { return &mem(d).clock_MHz; });
  addDouble(
      form, tr("Capacity / layer:"),
      {"layerCapacitySpin", "/hardware/memory/capacity_per_layer_GiB", 0.01, 4096, 2, tr(" GiB"),
       tr("Capacity of one DRAM die of one stack; derived from the bit density instead "
          "when that is set (3D)")},
      [=](perf::Design& d) { return &mem(d).capacity_per_layer_GiB; });
  addDouble(form, tr("Bit density:"),
            {"bitDensitySpin", "/hardware/memory/bit_density_Gb_per_mm2", 0, 100, 3, tr(" Gb/mm²"),
             tr("3D stacks: DRAM bits per mm² of a layer; > 0 derives a layer's capacity from the "
                "die area left after the vertical-link field (MODEL.md §8). 0 = use Capacity / "
                "layer."),
             tr("off (use capacity)")},
            [=](perf::Design& d) { return &mem(d).bit_density_Gb_per_mm2; });
  form->addRow(sectionLabel(tr("Access and efficiency"), dramFields_));
  addDouble(form, tr("Row (page) size:"),
            {"rowBytesSpin", "/hardware/memory/row_bytes", 1, 1e6, 0, tr(" B"),
             tr("Bytes one row activation opens per channel; a stream reads a whole row per "
                "activation")},
            [=](perf::Design& d) { return &mem(d).row_bytes; });
  addDouble(form, tr("Sector size:"),
            {"sectorBytesSpin", "/hardware/memory/sector_bytes", 1, 1e6, 0, tr(" B"),
             tr("Minimum access granularity (one burst); at most a row")},
            [=](perf::Design& d) { return &mem(d).sector_bytes; });
  addDouble(form, tr("Cycles / sector:"),
            {"cyclesSectorSpin", "/hardware/memory/cycles_per_sector", 0.25, 1024, 2, tr(" clk"),
             tr("DRAM clock cycles to transfer one sector on a channel")},
            [=](perf::Design& d) { return &mem(d).cycles_per_sector; });
  addDouble(form, tr("Round-trip latency:"),
            {"roundTripSpin", "/hardware/memory/round_trip_latency_ns", 0, 1e5, 0, tr(" ns"),
             tr("Load-to-use latency seen by a core: with the on-die buffers it caps bandwidth "
                "by Little's law (buffer / latency)")},
            [=](perf::Design& d) { return &mem(d).round_trip_latency_ns; });
  addDouble(form, tr("Utilisation cap:"),
            {"utilCapSpin", "/hardware/memory/utilisation_cap", 0.01, 1, 2, QString(),
             tr("Achievable fraction of peak for ideal streams (controller and protocol "
                "overheads)")},
            [=](perf::Design& d) { return &mem(d).utilisation_cap; });
  addDouble(form, tr("DRAM energy:"),
            {"dramEnergySpin", "/hardware/memory/energy_pJ_per_bit", 0, 1000, 2, tr(" pJ/b"),
             tr("DRAM core + I/O energy per bit read or written (3D adds the vertical link's)")},
            [=](perf::Design& d) { return &mem(d).energy_pJ_per_bit; });
  form->addRow(sectionLabel(tr("Timings (reference/dram-timings.md)"), dramFields_));
  const auto timing = [&](const QString& label, const char* object, const char* path, double min,
                          double max, const QString& tip, double hw::DramTiming::*member) {
    addDouble(form, label, {object, path, min, max, 1, tr(" ns"), tip},
              [=](perf::Design& d) { return &(mem(d).timing.*member); });
  };
  timing(tr("tRCD:"), "tRCDSpin", "/hardware/memory/timing/tRCD_ns", 0.1, 1e4,
         tr("Activate to read/write: row open time before the first column access"),
         &hw::DramTiming::tRCD_ns);
  timing(tr("tRP:"), "tRPSpin", "/hardware/memory/timing/tRP_ns", 0.1, 1e4,
         tr("Precharge: closing a row before the bank can open another"), &hw::DramTiming::tRP_ns);
  timing(tr("tRAS:"), "tRASSpin", "/hardware/memory/timing/tRAS_ns", 0.1, 1e4,
         tr("Activate to precharge: minimum time a row stays open (tRAS + tRP = row cycle)"),
         &hw::DramTiming::tRAS_ns);
  timing(tr("tRRD:"), "tRRDSpin", "/hardware/memory/timing/tRRD_ns", 0.1, 1e4,
         tr("Activate to activate in different banks of a channel (activation-rate cap)"),
         &hw::DramTiming::tRRD_ns);
  timing(tr("tFAW:"), "tFAWSpin", "/hardware/memory/timing/tFAW_ns", 0.1, 1e5,
         tr("Four-activation window: at most four activates per channel in this time (caps "
            "bandwidth when few bytes are read per activation)"),
         &hw::DramTiming::tFAW_ns);
  timing(tr("tREFI:"), "tREFISpin", "/hardware/memory/timing/tREFI_ns", 1, 1e6,
         tr("Refresh interval; halved above 85 °C (JEDEC extended temperature range)"),
         &hw::DramTiming::tREFI_ns);
  timing(tr("tRFC:"), "tRFCSpin", "/hardware/memory/timing/tRFC_ns", 0, 1e6,
         tr("Refresh cycle time: the channel is busy this long every tREFI (overhead tRFC / "
            "tREFI); must stay below tREFI"),
         &hw::DramTiming::tRFC_ns);
  timing(tr("tWTR:"), "tWTRSpin", "/hardware/memory/timing/tWTR_ns", 0, 1e4,
         tr("Write-to-read turnaround (read/write mixes)"), &hw::DramTiming::tWTR_ns);
  timing(tr("tCCD:"), "tCCDSpin", "/hardware/memory/timing/tCCD_ns", 0, 1e4,
         tr("Column-to-column delay within a bank group"), &hw::DramTiming::tCCD_ns);
  dramInfo_ = derivedLabel(dramFields_, "dramInfo");
  column(dramFields_)->addWidget(dramInfo_);

  // Only DRAM stacked on the logic die has vertical links and per-layer rows.
  stackFields_ = new QWidget(page);
  stackFields_->setObjectName(QStringLiteral("stackFields"));
  outer->addWidget(stackFields_);
  form = newForm(stackFields_);
  form->addRow(sectionLabel(tr("Vertical links (3D stack)"), stackFields_));
  addCombo(
      form, tr("Link &kind:"), "verticalKindCombo", "/hardware/memory/vertical/kind",
      tr("Through-silicon vias (each blocks a keep-out zone) or Cu-Cu hybrid bonds (one "
         "pitch² cell each)"),
      {tr("TSV"), tr("hybrid bond")},
      [](perf::Design& d) { return static_cast<int>(d.hardware.memory.vertical.kind); },
      [](perf::Design& d, int i) {
        d.hardware.memory.vertical.kind = static_cast<hw::VerticalLinkKind>(i);
      });
  addDouble(form, tr("&Pitch:"),
            {"pitchSpin", "/hardware/memory/vertical/pitch_um", 0.1, 1000, 1, tr(" µm"),
             tr("Centre-to-centre spacing of vertical links: ~9 µm for Cu-Cu hybrid bonds, "
                "~40 µm for micro-bump TSVs; sets link density and the field's die area")},
            [=](perf::Design& d) { return &mem(d).vertical.pitch_um; });
  addDouble(form, tr("Keep-out:"),
            {"keepoutSpin", "/hardware/memory/vertical/keepout_um2", 0, 100'000, 0, tr(" µm²"),
             tr("Die area a TSV blocks (keep-out zone); a TSV occupies the larger of this and "
                "pitch²")},
            [=](perf::Design& d) { return &mem(d).vertical.keepout_um2; });
  addDouble(form, tr("Link rate:"),
            {"linkRateSpin", "/hardware/memory/vertical/gbps_per_link", 0.01, 1000, 2, tr(" Gb/s"),
             tr("Data rate of one vertical signal link")},
            [=](perf::Design& d) { return &mem(d).vertical.gbps_per_link; });
  addDouble(
      form, tr("Signal share:"),
      {"signalFractionSpin", "/hardware/memory/vertical/signal_fraction", 0.01, 1, 2, QString(),
       tr("Fraction of vertical links carrying data; the rest are supply, ground and "
          "spares")},
      [=](perf::Design& d) { return &mem(d).vertical.signal_fraction; });
  addDouble(form, tr("Link energy:"),
            {"verticalEnergySpin", "/hardware/memory/vertical/energy_pJ_per_bit", 0, 100, 3,
             tr(" pJ/b"), tr("Energy per bit crossing a vertical link (hybrid bonds < 0.1)")},
            [=](perf::Design& d) { return &mem(d).vertical.energy_pJ_per_bit; });
  density_ = derivedLabel(stackFields_, "verticalDensity");
  QVBoxLayout* col = column(stackFields_);
  col->addWidget(density_);
  layerTitle_ = sectionLabel(tr("Layers (derived by the model)"), stackFields_);
  col->addWidget(layerTitle_);
  layerTable_ = new QTableWidget(stackFields_);
  layerTable_->setObjectName(QStringLiteral("layerTable"));
  layerTable_->setColumnCount(4);
  layerTable_->setHorizontalHeaderLabels(
      {tr("Layer"), tr("Capacity"), tr("Vertical link"), tr("Link peak")});
  layerTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  layerTable_->setSelectionMode(QAbstractItemView::NoSelection);
  layerTable_->verticalHeader()->setVisible(false);
  layerTable_->verticalHeader()->setDefaultSectionSize(20);
  layerTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  layerTable_->setToolTip(
      tr("<p>Each DRAM die of the stack, DRAM 1 bonded on the logic die. Capacity per device (all "
         "stacks); the layers share the connected dies' vertical links round-robin (DeepStack), "
         "and each link carries its channels at the peak shown.</p>"));
  col->addWidget(layerTable_);
  stackTotals_ = derivedLabel(stackFields_, "stackTotals");
  col->addWidget(stackTotals_);
  return page;
}

QWidget* DesignEditor::buildComputePage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("computePage"));
  auto* form = newForm(page);
  const auto die = [](perf::Design& d) -> hw::ComputeDie& { return d.hardware.compute; };
  addInt(form, tr("C&ores:"),
         {"coresSpin",
          "/hardware/compute/cores",
          1,
          1'000'000,
          QString(),
          tr("Cores (SMs / PEs) on the die, each with its matrix unit and SRAM"),
          {}},
         [=](perf::Design& d) { return &die(d).cores; });
  addDouble(form, tr("C&lock:"),
            {"clockSpin", "/hardware/compute/clock_GHz", 0.001, 20, 3, tr(" GHz"),
             tr("Sustained clock under load (not the boost clock)")},
            [=](perf::Design& d) { return &die(d).clock_GHz; });
  addDouble(form, tr("Die &area:"),
            {"dieAreaSpin", "/hardware/compute/die_area_mm2", 1, 100'000, 0, tr(" mm²"),
             tr("Logic die area; cores, SRAM, NoC, PHYs, vertical-link field and uncore must "
                "fit (MODEL.md §8); the reticle is 858 mm²")},
            [=](perf::Design& d) { return &die(d).die_area_mm2; });
  addDouble(form, tr("Area / core:"),
            {"coreAreaSpin", "/hardware/compute/area_per_core_mm2", 0.001, 1000, 3, tr(" mm²"),
             tr("Area of one core including its own SRAM")},
            [=](perf::Design& d) { return &die(d).area_per_core_mm2; });
  addDouble(form, tr("&SRAM / core:"),
            {"sramSpin", "/hardware/compute/sram_per_core_KiB", 1, 1'000'000, 0, tr(" KiB"),
             tr("Scratchpad / L1 per core; with the shared buffer it stages DRAM traffic")},
            [=](perf::Design& d) { return &die(d).sram_per_core_KiB; });
  addDouble(form, tr("SRAM bandwidth:"),
            {"sramBwSpin", "/hardware/compute/sram_bw_bytes_per_cycle_per_core", 1, 1'000'000, 0,
             tr(" B/cycle"),
             tr("SRAM bytes per cycle per core; half of the total caps DRAM streaming "
                "(MODEL.md §2)")},
            [=](perf::Design& d) { return &die(d).sram_bw_bytes_per_cycle_per_core; });
  addDouble(form, tr("Shared buffer:"),
            {"sharedBufferSpin", "/hardware/compute/shared_buffer_MiB", 0, 1'000'000, 1, tr(" MiB"),
             tr("On-die shared SRAM (L2 / global buffer)")},
            [=](perf::Design& d) { return &die(d).shared_buffer_MiB; });
  form->addRow(sectionLabel(tr("Matrix and vector units (FLOP / cycle / core)"), page));
  const auto flops = [&](const QString& label, const char* object, const char* path,
                         const QString& tip, double hw::ComputeDie::*member) {
    addDouble(form, label, {object, path, 0, 1e9, 0, tr(" FLOP/c"), tip},
              [=](perf::Design& d) { return &(die(d).*member); });
  };
  flops(tr("FP16 / BF16:"), "fp16FlopsSpin", "/hardware/compute/matrix_flops_per_cycle_fp16",
        tr("Dense matrix FLOP per cycle per core at 16 bit; 0 = not supported (the next wider "
           "format is used)"),
        &hw::ComputeDie::matrix_flops_per_cycle_fp16);
  flops(tr("FP8 / INT8:"), "fp8FlopsSpin", "/hardware/compute/matrix_flops_per_cycle_fp8",
        tr("Dense matrix FLOP per cycle per core at 8 bit; 0 = not supported"),
        &hw::ComputeDie::matrix_flops_per_cycle_fp8);
  flops(tr("FP4:"), "fp4FlopsSpin", "/hardware/compute/matrix_flops_per_cycle_fp4",
        tr("Dense matrix FLOP per cycle per core at 4 bit; 0 = not supported"),
        &hw::ComputeDie::matrix_flops_per_cycle_fp4);
  flops(tr("FP32 matrix:"), "fp32FlopsSpin", "/hardware/compute/matrix_flops_per_cycle_fp32",
        tr("Dense matrix FLOP per cycle per core at 32 bit; 0 = the vector unit does fp32"),
        &hw::ComputeDie::matrix_flops_per_cycle_fp32);
  addDouble(
      form, tr("Vector:"),
      {"vectorFlopsSpin", "/hardware/compute/vector_flops_per_cycle", 1, 1e9, 0, tr(" FLOP/c"),
       tr("fp32 FLOP per cycle per core of the vector unit (an FMA counts 2); the "
          "fallback for every unsupported matrix format")},
      [=](perf::Design& d) { return &die(d).vector_flops_per_cycle; });
  addDouble(form, tr("GEMM efficiency:"),
            {"matmulEffSpin", "/hardware/compute/matmul_efficiency", 0.01, 1, 2, QString(),
             tr("Achieved fraction of peak on large GEMMs (calibrated on the reference rows)")},
            [=](perf::Design& d) { return &die(d).matmul_efficiency; });
  addDouble(form, tr("Attention efficiency:"),
            {"attentionEffSpin", "/hardware/compute/attention_efficiency", 0.01, 1, 2, QString(),
             tr("Achieved fraction of peak for FlashAttention-style kernels")},
            [=](perf::Design& d) { return &die(d).attention_efficiency; });
  addDouble(form, tr("Launch overhead:"),
            {"launchSpin", "/hardware/compute/kernel_launch_us", 0, 10'000, 2, tr(" µs"),
             tr("Fixed time per operator (launch + sync)")},
            [=](perf::Design& d) { return &die(d).kernel_launch_us; });
  addInt(form, tr("MMA tile rows:"),
         {"mmaTileMSpin",
          "/hardware/compute/mma_tile_m",
          1,
          65536,
          tr(" rows"),
          tr("Output rows of the smallest matrix-instruction tile a core computes; smaller "
             "GEMMs are padded to it (tile quantisation)"),
          {}},
         [=](perf::Design& d) { return &die(d).mma_tile_m; });
  addInt(form, tr("MMA tile columns:"),
         {"mmaTileNSpin",
          "/hardware/compute/mma_tile_n",
          1,
          65536,
          tr(" cols"),
          tr("Output columns of the smallest matrix-instruction tile"),
          {}},
         [=](perf::Design& d) { return &die(d).mma_tile_n; });
  addDouble(form, tr("KV re-read share:"),
            {"kvRereadSpin", "/hardware/compute/decode_kv_reread_fraction", 0, 1, 2, QString(),
             tr("Decode attention without GQA packing: the share of a KV head's re-reads (one per "
                "query head of its group) that miss the on-die cache. 0 = one read per group "
                "(XQA / FlashDecoding), 1 = every query head re-reads from DRAM.")},
            [=](perf::Design& d) { return &die(d).decode_kv_reread_fraction; });
  computeInfo_ = derivedLabel(page, "computeInfo");
  column(page)->addWidget(computeInfo_);
  return page;
}

QWidget* DesignEditor::buildMeshPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("meshPage"));
  auto* form = newForm(page);
  auto* note =
      new QLabel(tr("The mesh carries each operator's on-die traffic: GEMM activation panels "
                    "multicast along rows and partial sums reduced along columns, attention "
                    "queries/outputs re-laid out, and on HBM devices the DRAM bytes from the "
                    "die edges. Its busiest link is a third roofline term beside compute and "
                    "DRAM; each operator also waits for the mesh fill (diameter × hop latency). "
                    "The Links tab shows the per-link loads."),
                 page);
  note->setObjectName(QStringLiteral("hint"));
  note->setWordWrap(true);
  column(page)->insertWidget(0, note);
  addInt(form, tr("Mesh &columns:"),
         {"meshXSpin",
          "/hardware/noc/mesh_x",
          1,
          4096,
          QString(),
          tr("Routers along x of the on-die 2D mesh (1 × 1 = no mesh: a crossbar/L2 fabric)"),
          {}},
         [](perf::Design& d) { return &d.hardware.noc.mesh_x; });
  addInt(form, tr("Mesh &rows:"),
         {"meshYSpin",
          "/hardware/noc/mesh_y",
          1,
          4096,
          QString(),
          tr("Routers along y of the on-die 2D mesh"),
          {}},
         [](perf::Design& d) { return &d.hardware.noc.mesh_y; });
  addDouble(form, tr("&Link bandwidth:"),
            {"nocLinkSpin", "/hardware/noc/link_GBps", 0.1, 1e6, 1, tr(" GB/s"),
             tr("Per mesh link and direction (bytes per cycle × clock; scales with the logic "
                "clock under the power wall or thermal throttle). An operator needs at least "
                "its busiest link's bytes / this bandwidth.")},
            [](perf::Design& d) { return &d.hardware.noc.link_GBps; });
  addDouble(form, tr("&Hop latency:"),
            {"nocHopSpin", "/hardware/noc/hop_latency_ns", 0, 1e4, 2, tr(" ns"),
             tr("Router + wire delay per hop. Every GEMM and attention operator waits for the "
                "mesh fill, (columns − 1 + rows − 1) × this latency.")},
            [](perf::Design& d) { return &d.hardware.noc.hop_latency_ns; });
  addDouble(form, tr("Hop energy:"),
            {"nocEnergySpin", "/hardware/energy/noc_pJ_per_bit_per_hop", 0, 100, 3, tr(" pJ/b"),
             tr("Energy per bit per mesh hop")},
            [](perf::Design& d) { return &d.hardware.energy.noc_pJ_per_bit_per_hop; });
  addDouble(form, tr("Router area:"),
            {"routerAreaSpin", "/hardware/area/router_mm2", 0, 1000, 3, tr(" mm²"),
             tr("Die area of one mesh router")},
            [](perf::Design& d) { return &d.hardware.area.router_mm2; });
  meshInfo_ = derivedLabel(page, "meshInfo");
  column(page)->addWidget(meshInfo_);
  return page;
}

QWidget* DesignEditor::buildSystemPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("systemPage"));
  auto* outer = new QVBoxLayout(page);
  outer->setContentsMargins(6, 6, 6, 6);
  auto* top = new QFormLayout();
  top->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  systemDevices_ = derivedLabel(page, "systemDevices");
  systemDevices_->setWordWrap(false);
  systemDevices_->setToolTip(
      tr("<p>Devices in the system = TP × PP × DP × EP × CP of the plan: change DP on the "
         "Parallelism page to add replicas.</p><p><small>Project key: "
         "<code>system.devices</code></small></p>"));
  top->addRow(tr("Devices:"), systemDevices_);
  bind(QStringLiteral("/system/devices"), systemDevices_, [] {});
  outer->addLayout(top);
  outer->addWidget(sectionLabel(tr("Network levels (innermost first)"), page));
  levels_ = new QTableWidget(page);
  levels_->setObjectName(QStringLiteral("levelTable"));
  levels_->setColumnCount(4);
  levels_->setHorizontalHeaderLabels({tr("Level"), tr("Topology"), tr("Size"), tr("Link")});
  levels_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  levels_->setSelectionBehavior(QAbstractItemView::SelectRows);
  levels_->setSelectionMode(QAbstractItemView::SingleSelection);
  levels_->verticalHeader()->setVisible(false);
  levels_->verticalHeader()->setDefaultSectionSize(20);
  levels_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  levels_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  levels_->setFixedHeight(24 + 20 * kMaxLevels + 4);
  levels_->setToolTip(
      tr("<p>Level 0 is innermost (e.g. NVSwitch in a node). Select a level to edit it "
         "below.</p>"));
  bind(QStringLiteral("/system/levels"), levels_, [] {});
  outer->addWidget(levels_);
  auto* buttons = new QHBoxLayout();
  addLevel_ = new QPushButton(tr("Add level"), page);
  addLevel_->setObjectName(QStringLiteral("addLevelButton"));
  addLevel_->setToolTip(tr("Adds an outer level (at most %1 are modelled)").arg(kMaxLevels));
  removeLevel_ = new QPushButton(tr("Remove level"), page);
  removeLevel_->setObjectName(QStringLiteral("removeLevelButton"));
  buttons->addWidget(addLevel_);
  buttons->addWidget(removeLevel_);
  buttons->addStretch(1);
  outer->addLayout(buttons);

  levelForm_ = new QWidget(page);
  levelForm_->setObjectName(QStringLiteral("levelForm"));
  outer->addWidget(levelForm_);
  auto* form = newForm(levelForm_);
  column(levelForm_)->setContentsMargins(0, 0, 0, 0);
  form->setContentsMargins(0, 0, 0, 0);
  using L = hw::NetworkLevel;
  // The selected level, or nullptr when there is none.
  const auto level = [this](perf::Design& d) -> L* {
    if (level_ < 0 || level_ >= static_cast<int>(d.system.levels.size())) return nullptr;
    return &d.system.levels[static_cast<std::size_t>(level_)];
  };
  const auto intOf = [level](int L::*m) {
    return [level, m](perf::Design& d) -> int* {
      L* l = level(d);
      return l ? &(l->*m) : nullptr;
    };
  };
  const auto doubleOf = [level](double L::*m) {
    return [level, m](perf::Design& d) -> double* {
      L* l = level(d);
      return l ? &(l->*m) : nullptr;
    };
  };
  auto* name = new QLineEdit(levelForm_);
  name->setObjectName(QStringLiteral("levelNameEdit"));
  name->setPlaceholderText(tr("e.g. NVLink switch"));
  name->setToolTip(fieldTip(tr("A name for the level, shown in the table above, the Links view "
                               "and reports (the model does not use it)"),
                            QString(), tr("any text"), QStringLiteral("/system/levels/{L}/name")));
  form->addRow(tr("&Name:"), name);
  const int nameIndex = bind(QStringLiteral("/system/levels/{L}/name"), name, [this, name, level] {
    L* l = level(cur_);
    name->setText(l ? QString::fromStdString(l->name) : QString());
  });
  connect(name, &QLineEdit::editingFinished, this, [this, name, level, nameIndex] {
    L* l = level(cur_);
    const std::string text = name->text().trimmed().toStdString();
    if (refreshing_ || !l || text == l->name) return;
    l->name = text;
    commit(nameIndex + kLevelFieldStride * (level_ + 1), tr("level name"));
  });
  addCombo(
      form, tr("&Topology:"), "levelTopologyCombo", "/system/levels/{L}/topology",
      tr("How the devices (or units of the level below) of one group connect"),
      {topologyName(hw::Topology::switch_fabric), topologyName(hw::Topology::ring),
       topologyName(hw::Topology::mesh2d), topologyName(hw::Topology::torus2d),
       topologyName(hw::Topology::fully_connected)},
      [level](perf::Design& d) {
        L* l = level(d);
        return l ? static_cast<int>(l->topology) : -1;
      },
      [level](perf::Design& d, int i) {
        if (L* l = level(d)) l->topology = static_cast<hw::Topology>(i);
      });
  addInt(form, tr("Si&ze:"),
         {"levelSizeSpin", "/system/levels/{L}/size", 0, 1 << 20, QString(),
          tr("Devices (or units of the level below) in one group; 0 on the outermost level = "
             "as many as needed"),
          tr("as needed")},
         intOf(&L::size));
  addInt(form, tr("Grid x:"),
         {"levelDimsXSpin", "/system/levels/{L}/dims_x", 0, 1 << 20, QString(),
          tr("Mesh/torus shape: dims x × dims y must equal the size; 0 and 0 = squarest"),
          tr("squarest")},
         intOf(&L::dims_x));
  addInt(form, tr("Grid y:"),
         {"levelDimsYSpin", "/system/levels/{L}/dims_y", 0, 1 << 20, QString(),
          tr("Mesh/torus shape, second dimension"), tr("squarest")},
         intOf(&L::dims_y));
  addDouble(form, tr("Lin&k bandwidth:"),
            {"levelLinkSpin", "/system/levels/{L}/link_GBps", 0.01, 1e6, 1, tr(" GB/s"),
             tr("Per link (ring, mesh, torus, fully connected) or per device port (switch), "
                "per direction")},
            doubleOf(&L::link_GBps));
  addDouble(form, tr("Step latency:"),
            {"levelLatencySpin", "/system/levels/{L}/latency_us", 0, 1e6, 2, tr(" µs"),
             tr("Per collective algorithm step at this level (alpha: software + sync)")},
            doubleOf(&L::latency_us));
  addDouble(form, tr("Hop latency:"),
            {"levelHopSpin", "/system/levels/{L}/hop_latency_ns", 0, 1e7, 0, tr(" ns"),
             tr("Per link traversed (wire + router / switch)")},
            doubleOf(&L::hop_latency_ns));
  addDouble(form, tr("Efficiency:"),
            {"levelEffSpin", "/system/levels/{L}/efficiency", 0.01, 1, 2, QString(),
             tr("Achievable fraction of line rate (protocol overhead)")},
            doubleOf(&L::efficiency));
  addDouble(form, tr("Energy:"),
            {"levelEnergySpin", "/system/levels/{L}/energy_pJ_per_bit", 0, 1000, 2, tr(" pJ/b"),
             tr("Energy per bit sent over this level")},
            doubleOf(&L::energy_pJ_per_bit));
  addCheck(form, tr("In-network reduce:"), "levelReduceCheck",
           "/system/levels/{L}/in_network_reduction",
           tr("Switch-side reduction (e.g. NVLink SHARP) for all-reduces at this level"),
           [level](perf::Design& d) -> bool* {
             L* l = level(d);
             return l ? &l->in_network_reduction : nullptr;
           });

  connect(levels_, &QTableWidget::currentCellChanged, this, [this](int row) {
    if (refreshing_ || row < 0) return;
    level_ = row;
    refreshAll();
  });
  connect(addLevel_, &QPushButton::clicked, this, [this] {
    auto& lv = cur_.system.levels;
    if (static_cast<int>(lv.size()) >= kMaxLevels) return;
    hw::NetworkLevel l;
    l.name = tr("level %1").arg(lv.size()).toStdString();
    // The new outermost level takes "as many as needed"; the old one gets a fixed size.
    if (!lv.empty() && lv.back().size == 0) lv.back().size = 1;
    l.size = 0;
    lv.push_back(l);
    level_ = static_cast<int>(lv.size()) - 1;
    refreshAll();
    commit(-1, tr("add network level"), false);
  });
  connect(removeLevel_, &QPushButton::clicked, this, [this] {
    auto& lv = cur_.system.levels;
    if (lv.empty()) return;
    lv.erase(lv.begin() + std::clamp(level_, 0, static_cast<int>(lv.size()) - 1));
    level_ = std::max(0, std::min(level_, static_cast<int>(lv.size()) - 1));
    refreshAll();
    commit(-1, tr("remove network level"), false);
  });
  return page;
}

QWidget* DesignEditor::buildPowerPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("powerPage"));
  auto* form = newForm(page);
  form->addRow(sectionLabel(tr("Energy (MODEL.md §8)"), page));
  const auto energy = [&](const QString& label, const char* object, const char* path,
                          const QString& suffix, const QString& tip, double hw::Energy::*member) {
    addDouble(form, label, {object, path, 0, 1000, 3, suffix, tip},
              [=](perf::Design& d) { return &(d.hardware.energy.*member); });
  };
  energy(tr("Matrix FP16 / BF16:"), "pjFp16Spin", "/hardware/energy/pJ_per_flop_fp16",
         tr(" pJ/FLOP"), tr("Energy per dense matrix FLOP at 16 bit"),
         &hw::Energy::pJ_per_flop_fp16);
  energy(tr("Matrix FP8 / INT8:"), "pjFp8Spin", "/hardware/energy/pJ_per_flop_fp8", tr(" pJ/FLOP"),
         tr("Energy per dense matrix FLOP at 8 bit"), &hw::Energy::pJ_per_flop_fp8);
  energy(tr("Matrix FP4:"), "pjFp4Spin", "/hardware/energy/pJ_per_flop_fp4", tr(" pJ/FLOP"),
         tr("Energy per dense matrix FLOP at 4 bit"), &hw::Energy::pJ_per_flop_fp4);
  energy(tr("FP32 / vector:"), "pjFp32Spin", "/hardware/energy/pJ_per_flop_fp32", tr(" pJ/FLOP"),
         tr("Energy per FP32 FLOP (matrix or vector unit: norms, softmax, activations)"),
         &hw::Energy::pJ_per_flop_fp32);
  energy(tr("SRAM access:"), "sramEnergySpin", "/hardware/energy/sram_pJ_per_byte", tr(" pJ/B"),
         tr("Energy per byte read or written in on-die SRAM (each DRAM byte is staged twice)"),
         &hw::Energy::sram_pJ_per_byte);
  addDouble(form, tr("Static power:"),
            {"staticPowerSpin", "/hardware/energy/static_power_W", 0, 100'000, 0, tr(" W"),
             tr("Leakage and idle power, drawn all the time (must stay below the TDP)")},
            [](perf::Design& d) { return &d.hardware.energy.static_power_W; });
  addDouble(form, tr("TDP:"),
            {"tdpSpin", "/hardware/energy/tdp_W", 1, 100'000, 0, tr(" W"),
             tr("Thermal design power: above it clocks scale down as (P / TDP)^(-1/3) (power "
                "wall, MODEL.md §8)")},
            [](perf::Design& d) { return &d.hardware.energy.tdp_W; });
  powerInfo_ = derivedLabel(page, "powerInfo");
  column(page)->addWidget(powerInfo_);

  form = appendForm(page, "areaFields");
  form->addRow(sectionLabel(tr("Area (MODEL.md §8)"), page));
  const auto area = [&](const QString& label, const char* object, const char* path,
                        const QString& suffix, double min, const QString& tip,
                        double hw::Area::*member) {
    addDouble(form, label, {object, path, min, 100'000, 2, suffix, tip},
              [=](perf::Design& d) { return &(d.hardware.area.*member); });
  };
  area(tr("Shared SRAM:"), "sramAreaSpin", "/hardware/area/sram_mm2_per_MiB", tr(" mm²/MiB"), 0,
       tr("Die area per MiB of the shared buffer, periphery included (cores carry their own "
          "SRAM in their area)"),
       &hw::Area::sram_mm2_per_MiB);
  area(tr("Memory PHY:"), "memoryPhySpin", "/hardware/area/memory_phy_mm2", tr(" mm²"), 0,
       tr("Die area per HBM stack interface (2.5D); 0 for DRAM stacked on the die"),
       &hw::Area::memory_phy_mm2);
  area(tr("Network PHYs:"), "ioPhySpin", "/hardware/area/io_phy_mm2", tr(" mm²"), 0,
       tr("Chip-to-chip / network PHYs (NVLink, SerDes)"), &hw::Area::io_phy_mm2);
  area(tr("Other uncore:"), "otherAreaSpin", "/hardware/area/other_mm2", tr(" mm²"), 0,
       tr("Control, clocking and miscellaneous uncore"), &hw::Area::other_mm2);
  area(tr("Reticle limit:"), "reticleSpin", "/hardware/area/reticle_mm2", tr(" mm²"), 1,
       tr("Largest die the lithography field allows (26 mm × 33 mm = 858 mm²); a larger die "
          "is infeasible"),
       &hw::Area::reticle_mm2);
  areaInfo_ = derivedLabel(page, "areaInfo");
  column(page)->addWidget(areaInfo_);

  form = appendForm(page, "thermalFields");
  form->addRow(sectionLabel(tr("Thermal package (MODEL.md §9)"), page));
  addDouble(form, tr("Ambient:"),
            {"ambientSpin", "/hardware/thermal/ambient_C", -60, 94.9, 1, tr(" °C"),
             tr("Coolant / inlet air temperature; must lie below the 95 °C DRAM limit")},
            [](perf::Design& d) { return &d.hardware.thermal.ambient_C; });
  addCombo(
      form, tr("Compact model:"), "compactCombo", "/hardware/thermal/compact",
      tr("Where the compact model's resistances come from: as given (a measured package) or "
         "fitted to the grid solver for this die area (HotSpot-default package)"),
      {tr("fixed (R as given)"), tr("geometry (fit to die area)")},
      [](perf::Design& d) { return static_cast<int>(d.hardware.thermal.compact); },
      [](perf::Design& d, int i) {
        d.hardware.thermal.compact = static_cast<hw::CompactSource>(i);
      });
  addDouble(form, tr("R base:"),
            {"rBaseSpin", "/hardware/thermal/r_base_K_per_W", 0, 100, 3, tr(" K/W"),
             tr("Package resistance from the logic die to ambient (DeepStack: 0.56 K/W)")},
            [](perf::Design& d) { return &d.hardware.thermal.r_base_K_per_W; });
  addDouble(form, tr("R per layer:"),
            {"rLayerSpin", "/hardware/thermal/r_layer_K_per_W", 0, 10, 4, tr(" K/W"),
             tr("Added resistance per stacked DRAM layer (DeepStack: 0.01 K/W)")},
            [](perf::Design& d) { return &d.hardware.thermal.r_layer_K_per_W; });
  addCheck(form, tr("Throttle at 95 °C:"), "throttleCheck", "/hardware/thermal/throttle",
           tr("On: a stack whose DRAM would pass 95 °C runs with logic clock and DRAM command "
              "rate scaled down until it sits at the limit. Off: such a design is infeasible."),
           [](perf::Design& d) { return &d.hardware.thermal.throttle; });
  thermalInfo_ = derivedLabel(page, "thermalInfo");
  column(page)->addWidget(thermalInfo_);
  return page;
}

void DesignEditor::fillCombo(QComboBox* combo, io::PresetKind kind, const std::string& currentId,
                             const QString& customName) {
  combo->clear();
  int current = -1;
  for (const auto& p : presets_.list(kind)) {
    combo->addItem(QString::fromStdString(p.name), QString::fromStdString(p.id));
    // The id is what the CLI and project files use; show it on hover.
    combo->setItemData(combo->count() - 1, tr("preset id: %1").arg(QString::fromStdString(p.id)),
                       Qt::ToolTipRole);
    if (p.id == currentId) current = combo->count() - 1;
  }
  if (current < 0) {
    // Inline or edited hardware/model of the project: keep it selectable, first in the list.
    combo->insertItem(0, customName, QString());
    current = 0;
  }
  combo->setCurrentIndex(current);
  presetTip(combo);
}

void DesignEditor::showCustomHardware(const QString& prefix) {
  custom_ = cur_.hardware;
  const auto& h = cur_.hardware;
  // The mark goes first: a long device name is elided at its end.
  const QString name =
      prefix + (h.name.empty() ? h.id.empty() ? tr("custom") : QString::fromStdString(h.id)
                               : QString::fromStdString(h.name));
  const QSignalBlocker block(hardware_);
  if (hardware_->count() > 0 && hardware_->itemData(0).toString().isEmpty())
    hardware_->setItemText(0, name);
  else
    hardware_->insertItem(0, name, QString());
  hardware_->setCurrentIndex(0);
  presetTip(hardware_);
}

void DesignEditor::setBase(const perf::Design& base) {
  base_ = base;
  cur_ = base;
  traceError_.clear();      // a loaded design's trace was read by core/io (or validate() says why)
  custom_ = base.hardware;  // the network level selected stays (undo of a level edit)
  refreshing_ = true;
  {
    const QSignalBlocker b1(hardware_), b2(model_);
    // A device is shown as its preset only while its contents equal the preset's (compared
    // as project JSON); an edited or inline one is the first, "(edited)" entry.
    bool asPreset = false;
    try {
      asPreset = presets_.contains(io::PresetKind::hardware, base.hardware.id) &&
                 io::hardware_to_json(presets_.hardware(base.hardware.id)) ==
                     io::hardware_to_json(base.hardware);
    } catch (const std::exception&) {
    }
    fillCombo(hardware_, io::PresetKind::hardware, asPreset ? base.hardware.id : std::string(),
              QString());
    if (!asPreset)
      showCustomHardware(presets_.contains(io::PresetKind::hardware, base.hardware.id)
                             ? tr("(edited) ")
                             : tr("(from project) "));
    fillCombo(model_, io::PresetKind::model, base.model.id,
              (base.model.name.empty() ? tr("custom") : QString::fromStdString(base.model.name)) +
                  tr("  (from project)"));
  }
  refreshing_ = false;
  refreshAll();
}

void DesignEditor::refreshAll() {
  refreshing_ = true;
  refreshLevels();
  for (const auto& b : bindings_) {
    const QSignalBlocker block(b.widget);
    b.refresh();
  }
  refreshing_ = false;
  refreshDerived();
}

void DesignEditor::refreshLevels() {
  const QSignalBlocker block(levels_);
  const auto& lv = cur_.system.levels;
  levels_->setRowCount(static_cast<int>(lv.size()));
  for (int r = 0; r < static_cast<int>(lv.size()); ++r) {
    const auto& l = lv[static_cast<std::size_t>(r)];
    const QString cells[] = {
        l.name.empty() ? tr("level %1").arg(r) : QString::fromStdString(l.name),
        topologyName(l.topology), l.size == 0 ? tr("as needed") : QString::number(l.size),
        tr("%1 GB/s").arg(readable(l.link_GBps))};
    for (int c = 0; c < 4; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(
          tr("%1: %2, %3 µs per step, %4 ns per hop")
              .arg(cells[0], cells[1], readable(l.latency_us), readable(l.hop_latency_ns)));
      levels_->setItem(r, c, item);
    }
  }
  level_ = std::clamp(level_, 0, std::max(0, static_cast<int>(lv.size()) - 1));
  if (!lv.empty()) levels_->setCurrentCell(level_, 0);
  levelForm_->setEnabled(!lv.empty());
  addLevel_->setEnabled(static_cast<int>(lv.size()) < kMaxLevels);
  removeLevel_->setEnabled(!lv.empty());
}

QWidget* DesignEditor::fieldFor(const QString& path) const {
  for (const auto& b : bindings_)
    if (levelPath(b.path) == path) return b.widget;
  return nullptr;
}

QWidget* DesignEditor::pageContents(Page page) const {
  return pages_->widget(page);
}

void DesignEditor::addPage(QWidget* page, const QString& title) {
  // QToolBox puts each page in a scroll area of its own, which paints the page and its
  // viewport opaque; transparent, they show the group box's background like the rest.
  pages_->addItem(page, title);
  page->setAutoFillBackground(false);
  if (QWidget* viewport = page->parentWidget()) viewport->setAutoFillBackground(false);
}

void DesignEditor::showPage(Page page) {
  pages_->setCurrentIndex(page);
}

void DesignEditor::commit(int index, const QString& name, bool mergeable) {
  if (index >= 0 && index < static_cast<int>(bindings_.size())) {
    static const QString degrees[] = {
        QStringLiteral("/parallel/tp"), QStringLiteral("/parallel/pp"),
        QStringLiteral("/parallel/dp"), QStringLiteral("/parallel/ep"),
        QStringLiteral("/parallel/cp")};
    const QString& path = bindings_[static_cast<std::size_t>(index)].path;
    if (std::find(std::begin(degrees), std::end(degrees), path) != std::end(degrees))
      cur_.system.devices = parallel::devices(cur_.parallel);
    // An edited device is no longer its preset: the combo says so (and keeps the edits).
    if (path.startsWith(QStringLiteral("/hardware/"))) showCustomHardware(tr("(edited) "));
    if (path == QStringLiteral("/workload/routing/seed"))
      cur_.workload.routing.seed = static_cast<std::uint64_t>(seedEdit_);
    if (path == QStringLiteral("/workload/batch")) {
      // The spin's 0 is batch_auto; any other value is a fixed batch.
      cur_.workload.batch_auto = batchEdit_ == 0;
      if (batchEdit_ > 0) cur_.workload.batch = batchEdit_;
    }
  }
  refreshLevels();
  refreshDerived();
  Q_EMIT fieldEdited(mergeable ? index : -1, name);
  Q_EMIT edited();
}

void DesignEditor::refreshDerived() {
  const auto& d = cur_;
  const auto& p = d.parallel;
  const QString plan = tr("%1  (TP %2 × PP %3 × DP %4 × EP %5 × CP %6)")
                           .arg(d.system.devices)
                           .arg(p.tp)
                           .arg(p.pp)
                           .arg(p.dp)
                           .arg(p.ep)
                           .arg(p.cp);
  devices_->setText(plan);
  systemDevices_->setText(plan);

  const auto& m = d.model;
  QString info = tr("%1 layers, hidden %2, %3 heads / %4 KV heads (%5)")
                     .arg(m.layers)
                     .arg(m.hidden)
                     .arg(m.heads)
                     .arg(m.kv_heads)
                     .arg(m.attention == workload::AttentionKind::mla   ? tr("MLA")
                          : m.attention == workload::AttentionKind::gqa ? tr("GQA")
                                                                        : tr("MHA"));
  if (m.moe.experts > 0) info += tr("; MoE %1 experts, top-%2").arg(m.moe.experts).arg(m.moe.top_k);
  modelInfo_->setText(info);
  modelInfo_->setToolTip(QString::fromStdString(m.source));
  const bool moe = m.moe.experts > 0;
  for (const char* path : {"/parallel/ep", "/parallel/moe/tp", "/parallel/moe/ep",
                           "/parallel/redundant_experts_per_rank"})
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(moe);
  refreshRouting();
  if (QWidget* w = fieldFor(QStringLiteral("/parallel/overlap_tiles")))
    w->setEnabled(p.overlap == parallel::Overlap::fixed);
  // Grid dimensions apply to mesh and torus levels only (perf::validate()).
  if (level_ < static_cast<int>(d.system.levels.size())) {
    const auto t = d.system.levels[static_cast<std::size_t>(level_)].topology;
    const bool grid = t == hw::Topology::mesh2d || t == hw::Topology::torus2d;
    for (const char* f : {"/system/levels/{L}/dims_x", "/system/levels/{L}/dims_y"})
      for (const auto& b : bindings_)
        if (b.path == QString::fromLatin1(f)) b.widget->setEnabled(grid);
  }

  // Memory: HBM and 3D stacks share the DRAM fields; only a 3D stack has vertical links.
  const auto& h = d.hardware;
  const auto& mem = h.memory;
  const bool stacked = mem.kind == hw::MemoryKind::stacked_3d;
  const bool dram = mem.kind != hw::MemoryKind::sram_only;
  dramFields_->setEnabled(dram);
  stackFields_->setEnabled(stacked);
  // HBM and SRAM-only devices have no per-layer rows: the empty table is left out.
  layerTitle_->setVisible(stacked);
  layerTable_->setVisible(stacked);
  stackNote_->setText(
      stacked ? tr("3D DRAM stacked on the logic die: %1 layers, %2 with active vertical links.")
                    .arg(mem.layers_total)
                    .arg(mem.layers_connected)
      : dram ? tr("HBM beside the die on an interposer (2.5D): %1 stacks of %2 dies. Its "
                  "organisation and timings are below; vertical links and the per-layer table "
                  "apply to DRAM stacked on the logic die only (pick 3D or a device such as "
                  "DeepStack).")
                   .arg(mem.stacks)
                   .arg(mem.layers_total)
             : tr("No DRAM (on-die SRAM only, e.g. wafer-scale): weights and KV cache live in "
                  "SRAM, so the DRAM fields below do not apply."));
  if (dram) {
    using memory::PatternKind;
    const auto stream = memory::effective_bandwidth(mem, h.compute, memory::AccessPattern{});
    const auto random =
        memory::effective_bandwidth(mem, h.compute, memory::AccessPattern{PatternKind::random});
    const auto bound = [](memory::DramBound b) {
      QString t = qs(memory::to_string(b));
      t.replace(QLatin1Char('_'), QLatin1Char(' '));
      return t;
    };
    dramInfo_->setText(
        tr("Derived: peak %1 GB/s; streaming %2 GB/s (%3-bound, row-cycle efficiency %4 %); "
           "random %5 B sectors %6 GB/s (%7-bound, activation cap %8 GB/s); refresh takes %9 % "
           "of the time.")
            .arg(readable(stream.peak_Bps / units::kGiga),
                 readable(stream.effective_Bps / units::kGiga), bound(stream.bound),
                 readable(100.0 * stream.eta), readable(mem.sector_bytes),
                 readable(random.effective_Bps / units::kGiga), bound(random.bound),
                 readable(random.activation_Bps / units::kGiga),
                 readable(100.0 * stream.refresh_overhead)));
    dramInfo_->setToolTip(
        tr("core/memory effective_bandwidth() at 50 °C (MODEL.md §2): min(row-cycle, tFAW/tRRD "
           "activation, Little's-law buffering, SRAM staging) × utilisation cap × (1 − "
           "tRFC / tREFI)."));
  } else {
    dramInfo_->setText(QStringLiteral("—"));
  }
  if (QWidget* w = fieldFor(QStringLiteral("/hardware/memory/bit_density_Gb_per_mm2")))
    w->setEnabled(stacked);
  if (QWidget* w = fieldFor(QStringLiteral("/hardware/memory/capacity_per_layer_GiB")))
    w->setEnabled(!stacked || mem.bit_density_Gb_per_mm2 <= 0);
  if (QWidget* w = fieldFor(QStringLiteral("/hardware/memory/vertical/keepout_um2")))
    w->setEnabled(mem.vertical.kind == hw::VerticalLinkKind::tsv);
  const power_area::AreaBreakdown area = power_area::area(h);
  const double cell_um2 =
      mem.vertical.kind == hw::VerticalLinkKind::hybrid_bond
          ? mem.vertical.pitch_um * mem.vertical.pitch_um
          : std::max(mem.vertical.keepout_um2, mem.vertical.pitch_um * mem.vertical.pitch_um);
  density_->setText(
      stacked ? tr("Link density %1 /mm²: %2 links need %3 mm² (%4 % of the die).")
                    .arg(readable(cell_um2 > 0 ? 1e6 / cell_um2 : 0.0),
                         readable(area.vertical_links), readable(area.vertical_mm2),
                         readable(100.0 * area.vertical_mm2 / std::max(1e-9, area.die_mm2)))
              : QStringLiteral("—"));
  density_->setToolTip(
      tr("Derived (core/power_area, MODEL.md §8): a hybrid bond occupies pitch², a TSV the "
         "larger of pitch² and its keep-out. Links = connected channels × channel rate / link "
         "rate / signal share."));
  const int layers = stacked ? std::clamp(mem.layers_total, 0, 64) : 0;
  const int connected = std::max(1, mem.layers_connected);
  const double layerGiB = area.dram_layer_capacity_bytes * std::max(1, mem.stacks) / kGiB;
  const double channelBps = mem.bytes_per_transfer * mem.transfers_per_clock * mem.clock_MHz * 1e6;
  const double linkPeakGBps =
      std::max(1, mem.stacks) * mem.channels_per_layer * channelBps / units::kGiga;
  layerTable_->setRowCount(layers);
  for (int k = 0; k < layers; ++k) {
    const int link = k % connected + 1;
    const bool own = k < connected;
    const QString cells[] = {tr("DRAM %1").arg(k + 1), tr("%1 GiB").arg(readable(layerGiB)),
                             own ? tr("#%1 (own)").arg(link) : tr("#%1 (shared)").arg(link),
                             tr("%1 GB/s").arg(readable(linkPeakGBps))};
    for (int c = 0; c < 4; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter
                                    : Qt::AlignRight | Qt::AlignVCenter);
      layerTable_->setItem(k, c, item);
    }
  }
  // Every layer visible up to 16; a taller stack scrolls inside the table.
  layerTable_->setFixedHeight(layerTable_->horizontalHeader()->sizeHint().height() +
                              20 * std::clamp(layers, 1, 16) + 2 * layerTable_->frameWidth());
  if (stacked) {
    const auto bw = memory::effective_bandwidth(mem, h.compute, memory::AccessPattern{});
    stackTotals_->setText(
        tr("Stack total: %1 GiB; peak %2 GB/s over %3 connected of %4 layers, streaming %5 "
           "GB/s (row-cycle efficiency %6 %)")
            .arg(readable(layerGiB * mem.layers_total), readable(bw.peak_Bps / units::kGiga))
            .arg(mem.layers_connected)
            .arg(mem.layers_total)
            .arg(readable(bw.effective_Bps / units::kGiga), readable(100.0 * bw.eta)));
  } else {
    stackTotals_->clear();
  }

  // Compute die and mesh: peaks and area from the core model.
  const Precision prec = wider(d.workload.numerics.weights, d.workload.numerics.activations);
  computeInfo_->setText(tr("Derived: %1 TFLOP/s dense %2, %3 TFLOP/s vector; SRAM %4 MiB; die "
                           "area used %5 of %6 mm².")
                            .arg(readable(hw::matrix_peak_flops(h.compute, prec) / 1e12),
                                 qs(to_string(prec)),
                                 readable(hw::vector_peak_flops(h.compute) / 1e12),
                                 readable(hw::total_sram_bytes(h.compute) / (1024.0 * 1024.0)),
                                 readable(area.used_mm2()), readable(area.die_mm2)));
  const auto& noc = h.noc;
  const int routers = noc.mesh_x * noc.mesh_y;
  // Mean XY distance between two uniformly random cores: the byte-hops of one byte of
  // uniform traffic.
  compute::NocTraffic one_byte;
  one_byte.uniform_bytes = 1.0;
  const double hops = compute::byte_hops(compute::mesh_rates(h), one_byte);
  meshInfo_->setText(tr("Derived: %1 router(s), %2 mm²; mean path %3 hops = %4 pJ per bit "
                        "between random cores; bisection %5 GB/s per "
                        "direction.")
                         .arg(routers)
                         .arg(readable(area.noc_mm2), readable(hops),
                              readable(hops * h.energy.noc_pJ_per_bit_per_hop),
                              readable(std::min(noc.mesh_x, noc.mesh_y) * noc.link_GBps)));

  // Power, area and thermal: rates, the die's area budget and the compact model from core.
  const auto rates = power_area::energy_rates(h, prec);
  powerInfo_->setText(
      tr("Derived: one %1 matrix FLOP costs %2 pJ; a DRAM byte %3 pJ (with the vertical link "
         "on a 3D stack) and %4 pJ more for its SRAM staging; static power is %5 % of the TDP.")
          .arg(qs(to_string(prec)), readable(rates.matrix_J_per_flop * 1e12),
               readable(rates.dram_J_per_byte * 1e12), readable(rates.sram_J_per_byte * 1e12),
               readable(100.0 * h.energy.static_power_W / std::max(1e-9, h.energy.tdp_W))));
  areaInfo_->setText(
      tr("Derived: cores %1 + shared SRAM %2 + mesh %3 + PHYs %4 + vertical links %5 + other "
         "%6 = %7 of %8 mm² die%9; reticle %10 mm²%11.")
          .arg(readable(area.cores_mm2), readable(area.shared_sram_mm2), readable(area.noc_mm2),
               readable(area.phy_mm2), readable(area.vertical_mm2), readable(area.other_mm2),
               readable(area.used_mm2()), readable(area.die_mm2),
               area.fits_die() ? QString() : tr(" (does not fit)"))
          .arg(readable(area.reticle_mm2),
               area.fits_reticle() ? QString() : tr(" (the die is larger)")));
  const bool geometry = h.thermal.compact == hw::CompactSource::geometry;
  for (const char* path : {"/hardware/thermal/r_base_K_per_W", "/hardware/thermal/r_layer_K_per_W"})
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(stacked && !geometry);
  for (const char* path :
       {"/hardware/thermal/ambient_C", "/hardware/thermal/compact", "/hardware/thermal/throttle"})
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(stacked);
  if (stacked) {
    const auto rc = thermal::compact_resistances(h.thermal, area.die_mm2);
    const double r = rc.r_base_K_per_W + rc.r_layer_K_per_W * mem.layers_total;
    thermalInfo_->setText(
        tr("Derived: R = %1 + %2 × %3 layers = %4 K/W%5; at the TDP the DRAM would reach %6 °C "
           "(limit %7 °C).")
            .arg(readable(rc.r_base_K_per_W), readable(rc.r_layer_K_per_W))
            .arg(mem.layers_total)
            .arg(readable(r),
                 geometry ? tr(" (fitted to %1 mm²)").arg(readable(area.die_mm2)) : QString(),
                 readable(h.thermal.ambient_C + h.energy.tdp_W * r),
                 readable(memory::kDramLimitC)));
  } else {
    thermalInfo_->setText(
        tr("The compact thermal model covers DRAM stacked on the logic die; this device's memory "
           "is not, so its package fields do not apply."));
  }
}

void DesignEditor::refreshRouting() {
  const auto& m = cur_.model;
  const auto& r = cur_.workload.routing;
  using workload::RoutingKind;
  const bool moe = m.moe.experts > 0;
  const std::pair<const char*, bool> fields[] = {
      {"/workload/routing/kind", moe},
      {"/workload/routing/zipf_s", moe && r.kind == RoutingKind::zipf},
      {"/workload/routing/dirichlet_alpha", moe && r.kind == RoutingKind::dirichlet},
      {"/workload/routing/seed",
       moe && (r.kind == RoutingKind::zipf || r.kind == RoutingKind::dirichlet)},
      {"/workload/routing/trace", moe && r.kind == RoutingKind::trace}};
  for (const auto& [path, on] : fields)
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(on);
  if (!moe) {
    routingInfo_->setText(
        tr("Dense model: every token uses the whole FFN, so there are no "
           "experts to route. Pick an MoE model (e.g. DeepSeek-V3) to edit "
           "the routing."));
    return;
  }
  const int experts = m.moe.experts;
  QString text = tr("%1 routed experts, top-%2, %3 shared.")
                     .arg(experts)
                     .arg(m.moe.top_k)
                     .arg(m.moe.shared_experts);
  if (experts <= moe::kMaxExperts && m.moe.top_k >= 1) {
    std::vector<double> f(static_cast<std::size_t>(experts));
    moe::expert_frequency(r, experts, m.moe.top_k, 0, f.data());
    const double hot = *std::max_element(f.begin(), f.end());
    text += tr(" First MoE layer: the hottest expert is chosen by %1 % of tokens (%2 % if uniform)")
                .arg(readable(100.0 * hot), readable(100.0 * m.moe.top_k / experts));
    int ep = 1;
    try {
      ep = parallel::Placement(cur_.parallel).moe_ep();
    } catch (const std::exception&) {
    }
    if (ep > 1 && experts % ep == 0)
      text += tr("; the busiest of %1 EP ranks gets %2× the mean tokens before redundant experts")
                  .arg(ep)
                  .arg(readable(moe::imbalance(f.data(), experts, ep)));
    text += QLatin1Char('.');
  }
  if (r.kind == RoutingKind::trace)
    text += !r.expert_frequency.empty()
                ? tr(" Trace: %1 layer(s) loaded.").arg(r.expert_frequency.size())
            : !traceError_.isEmpty() ? tr(" Trace not loaded: %1").arg(traceError_)
                                     : tr(" No trace loaded: give a file.");
  routingInfo_->setText(text);
}

int DesignEditor::showIssues(const std::vector<Issue>& issues) {
  std::map<QWidget*, QStringList> marks;
  std::map<int, QStringList> perPage;
  std::map<int, QStringList> levelRows;
  int placed = 0;
  static const QRegularExpression levelRe(QStringLiteral("^/system/levels/(\\d+)(/|$)"));
  for (const auto& i : issues) {
    const QString path = QString::fromStdString(i.path);
    const QString message = QString::fromStdString(format_issue(i));
    const auto lm = levelRe.match(path);
    const int issueLevel = lm.hasMatch() ? lm.captured(1).toInt() : -1;
    if (issueLevel >= 0) levelRows[issueLevel] << message;
    // The longest bound path that is the issue's path or a prefix of it; the selected level's
    // form shows its own issues, the table row those of the other levels.
    const Binding* best = nullptr;
    qsizetype bestLen = 0;
    for (const auto& b : bindings_) {
      QString bp = b.path;
      if (bp.contains(QStringLiteral("{L}"))) {
        if (issueLevel != level_) continue;
        bp = levelPath(bp);
      }
      if ((path == bp || path.startsWith(bp + QLatin1Char('/'))) && bp.size() > bestLen) {
        best = &b;
        bestLen = bp.size();
      }
    }
    QWidget* w = best ? best->widget : nullptr;
    int page = best ? best->page : -1;
    if (!w && path.startsWith(QStringLiteral("/hardware"))) {
      w = hardware_;  // a device parameter without a form field: the device preset owns it
    } else if (!w) {
      // A plan that does not match the device count belongs to TP (the usual edit).
      const std::pair<const char*, const char*> fallbacks[] = {{"/parallel", "/parallel/tp"},
                                                               {"/system", "/system/devices"},
                                                               {"/workload", "/workload/batch"}};
      for (const auto& [prefix, field] : fallbacks)
        if (path.startsWith(QString::fromLatin1(prefix)))
          for (const auto& b : bindings_)
            if (b.path == QString::fromLatin1(field)) {
              w = b.widget;
              page = b.page;
            }
    }
    if (!w) continue;
    marks[w] << message;
    if (page >= 0) perPage[page] << message;
    ++placed;
  }
  // Only widgets whose state changes are restyled (a style sheet change re-polishes).
  const auto mark = [&marks](QWidget* w) {
    const auto it = marks.find(w);
    const bool bad = it != marks.end();
    if (!w->property("baseTip").isValid()) w->setProperty("baseTip", w->toolTip());
    if (!bad && !w->property("invalid").toBool()) return;
    const QString base = w->property("baseTip").toString();
    QStringList lines;
    if (bad)
      for (const QString& m : it->second) lines << m.toHtmlEscaped();
    w->setToolTip(
        bad ? QStringLiteral("<p><b>%1</b></p>%2").arg(lines.join(QStringLiteral("<br>")), base)
            : base);
    if (qobject_cast<QAbstractSpinBox*>(w)) {
      // A red field: a style-sheet border would replace the spin box's arrows.
      QPalette tint;  // empty: inherit again
      if (bad) {
        tint = w->palette();
        tint.setColor(QPalette::Base,
                      theme::isDark() ? QColor(0x5a, 0x26, 0x26) : QColor(0xff, 0xdf, 0xdc));
      }
      w->setPalette(tint);
      for (auto* edit : w->findChildren<QLineEdit*>()) edit->setPalette(tint);
    } else {
      w->setStyleSheet(bad ? QStringLiteral("border: 2px solid #c62828; border-radius: 3px;")
                           : QString());
    }
    w->setProperty("invalid", bad);
  };
  for (const auto& b : bindings_) mark(b.widget);
  mark(hardware_);
  for (int r = 0; r < levels_->rowCount(); ++r) {
    const auto it = levelRows.find(r);
    for (int c = 0; c < levels_->columnCount(); ++c)
      if (auto* item = levels_->item(r, c))
        item->setData(Qt::ForegroundRole,
                      it != levelRows.end() ? QVariant(QColor(0xc6, 0x28, 0x28)) : QVariant());
  }
  for (int pg = 0; pg < static_cast<int>(pageTitles_.size()); ++pg) {
    const auto it = perPage.find(pg);
    const bool bad = it != perPage.end();
    const int n = bad ? static_cast<int>(it->second.size()) : 0;
    pages_->setItemIcon(pg, bad ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
    const QString& title = pageTitles_[static_cast<std::size_t>(pg)];
    pages_->setItemText(pg, !bad     ? title
                            : n == 1 ? tr("%1  (1 problem)").arg(title)
                                     : tr("%1  (%2 problems)").arg(title).arg(n));
    if (pg < static_cast<int>(pageProblems_.size())) {
      QLabel* label = pageProblems_[static_cast<std::size_t>(pg)];
      QStringList lines;
      if (bad)
        for (const QString& m : it->second) lines << QStringLiteral("• ") + m.toHtmlEscaped();
      label->setText(lines.join(QStringLiteral("<br>")));
      // The Summary banner's warning colours, for either palette.
      label->setStyleSheet(
          theme::isDark() ? QStringLiteral("background: #43381a; color: #f3dfa6; border: 1px "
                                           "solid #6e5a23; border-radius: 4px; padding: 4px;")
                          : QStringLiteral("background: #fff6e0; color: #6b4a00; border: 1px "
                                           "solid #f0d48a; border-radius: 4px; padding: 4px;"));
      label->setVisible(bad);
    }
  }
  return placed;
}

}  // namespace stackscope::ui
