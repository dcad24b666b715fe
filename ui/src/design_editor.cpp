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
#include <QKeyEvent>
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
#include <cmath>
#include <climits>
#include <map>
#include <string_view>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/compute/noc.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/expert_placement.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/thermal/compact.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"

#include "design_editor_detail.hpp"

namespace stackscope::ui {

using namespace design_editor_detail;

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
      {tr("Power, area && thermal"), &DesignEditor::buildPowerPage},
      {tr("Runtime (software)"), &DesignEditor::buildRuntimePage}};
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
    // A runtime the design did not choose (its device class's default) follows a device of
    // another class, as the CLI's --hardware does; a chosen one stays.
    const bool runtimeDefaulted =
        cur_.runtime.id == runtime::default_profile_id(runtime::device_class_of(cur_.hardware));
    try {
      cur_.hardware = id.isEmpty() ? custom_ : presets_.hardware(id.toStdString());
      const std::string rt = runtime::default_profile_id(runtime::device_class_of(cur_.hardware));
      if (runtimeDefaulted && rt != cur_.runtime.id &&
          presets_.contains(io::PresetKind::runtime, rt)) {
        cur_.runtime = presets_.runtime(rt);
        const QSignalBlocker block(runtime_);
        runtime_->setCurrentIndex(runtime_->findData(QString::fromStdString(rt)));
      }
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
      cur_.parallel.experts.strategy = parallel::ExpertStrategy::plan;
    }
    cur_.system.devices = parallel::devices(cur_.parallel);
    refreshAll();
    commit(-1, tr("model"));
  });
  // Ctrl+Z and Ctrl+Shift+Z reach the document's history from a number or text field whose own
  // text has nothing to undo (a line edit claims them otherwise, and the window's Undo never
  // fires while the cursor is in a field).
  // A spin box takes the key events of its inner line edit first (QAbstractSpinBox::event).
  for (QLineEdit* e : findChildren<QLineEdit*>()) e->installEventFilter(this);
  for (QAbstractSpinBox* b : findChildren<QAbstractSpinBox*>()) b->installEventFilter(this);
  // A combo is as wide as its longest item unless told otherwise; preset and device names
  // would then set the column's width. They shrink to a dozen characters (the popup still
  // shows each item whole, and the tooltip names the choice).
  for (QComboBox* c : findChildren<QComboBox*>()) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(12);
  }
  // Number fields need room for their numbers, not for the longest text their range allows;
  // and a row whose label and field do not fit the column puts the field under its label
  // rather than push the column into horizontal scrolling.
  for (QAbstractSpinBox* b : findChildren<QAbstractSpinBox*>()) b->setMinimumWidth(110);
  for (QFormLayout* f : findChildren<QFormLayout*>())
    f->setRowWrapPolicy(QFormLayout::WrapLongRows);
  // Help ▸ What's This? on a field says what its tooltip says: meaning, unit, range and source.
  for (QWidget* w : findChildren<QWidget*>())
    if (w->whatsThis().isEmpty() && !w->toolTip().isEmpty()) w->setWhatsThis(w->toolTip());
}

bool DesignEditor::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride) {
    auto* edit = qobject_cast<QLineEdit*>(watched);
    if (auto* box = qobject_cast<QAbstractSpinBox*>(watched))
      edit = box->findChild<QLineEdit*>(QString(), Qt::FindDirectChildrenOnly);
    const auto* key = static_cast<QKeyEvent*>(event);
    if (edit && ((key->matches(QKeySequence::Undo) && !edit->isUndoAvailable()) ||
                 (key->matches(QKeySequence::Redo) && !edit->isRedoAvailable()))) {
      event->ignore();
      return true;  // not the field's: the window's shortcut takes it
    }
  }
  return QWidget::eventFilter(watched, event);
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
  const int index = bind(path, spin, [this, spin, ref, s, path] {
    int* v = ref(cur_);
    // The range validate() holds the field to (perf::field_ranges), never narrower than the
    // value shown: a value out of range stays visible, and is marked, rather than clamped.
    if (const perf::FieldRange* r = rangeFor(path); r && v) {
      const bool keepMin = !s.special.isEmpty();  // the minimum means "unset" here
      const double lo = keepMin ? s.min : std::ceil(r->min_exclusive ? r->min + 1 : r->min);
      const double hi = std::min(r->max, 2147483647.0);
      const int min = std::min(*v, static_cast<int>(lo));
      const int max = std::max(*v, static_cast<int>(hi));
      if (spin->minimum() != min || spin->maximum() != max) {
        spin->setRange(min, max);
        QString range = QStringLiteral("%1 – %2").arg(min).arg(max);
        if (!s.special.isEmpty()) range += tr(" (%1 = %2)").arg(min).arg(s.special);
        spin->setProperty("baseTip", fieldTip(s.tip, s.suffix.trimmed(), range, path));
        spin->setToolTip(spin->property("baseTip").toString());
        spin->setWhatsThis(spin->toolTip());
      }
    }
    if (v) spin->setValue(*v);
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
  const int index = bind(path, spin, [this, spin, ref, s, path] {
    double* v = ref(cur_);
    // As addInt(): validate()'s range, widened to the value shown; a lower bound the spin box
    // cannot show at its decimals rounds up to one it can.
    if (const perf::FieldRange* r = rangeFor(path); r && v && std::isfinite(*v)) {
      const double step = std::pow(10.0, -s.decimals);
      double lo = s.special.isEmpty() ? r->min : s.min;
      if (s.special.isEmpty()) {
        if (r->min_exclusive) lo = std::max(lo, step);
        lo = std::ceil(lo / step - 1e-9) * step;
      }
      const double min = std::min(*v, lo), max = std::max(*v, r->max);
      if (spin->minimum() != min || spin->maximum() != max) {
        spin->setRange(min, max);
        QString range = QStringLiteral("%1 – %2").arg(readable(min), readable(max));
        if (!s.special.isEmpty()) range += tr(" (%1 = %2)").arg(readable(min), s.special);
        spin->setProperty("baseTip", fieldTip(s.tip, s.suffix.trimmed(), range, path));
        spin->setToolTip(spin->property("baseTip").toString());
        spin->setWhatsThis(spin->toolTip());
      }
    }
    if (v) spin->setValue(*v);
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
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(12);
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

void DesignEditor::setProject(const perf::Design& project) {
  try {
    projectHardware_ = io::hardware_to_json(project.hardware);
  } catch (const std::exception&) {
    projectHardware_.clear();
  }
  setBase(project);
}

void DesignEditor::setBase(const perf::Design& base) {
  base_ = base;
  cur_ = base;
  traceError_.clear();      // a loaded design's trace was read by core/io (or validate() says why)
  custom_ = base.hardware;  // the network level selected stays (undo of a level edit)
  refreshing_ = true;
  {
    const QSignalBlocker b1(hardware_), b2(model_), b3(runtime_);
    // A device is shown as its preset only while its contents equal the preset's (compared
    // as project JSON); an edited or inline one is the first, "(edited)" entry.
    bool asPreset = false, asProject = false;
    try {
      const std::string shown = io::hardware_to_json(base.hardware);
      asPreset = presets_.contains(io::PresetKind::hardware, base.hardware.id) &&
                 io::hardware_to_json(presets_.hardware(base.hardware.id)) == shown;
      asProject = shown == projectHardware_;
    } catch (const std::exception&) {
    }
    fillCombo(hardware_, io::PresetKind::hardware, asPreset ? base.hardware.id : std::string(),
              QString());
    if (!asPreset)
      showCustomHardware(presets_.contains(io::PresetKind::hardware, base.hardware.id) &&
                                 !asProject
                             ? tr("(edited) ")
                             : tr("(from project) "));
    fillCombo(model_, io::PresetKind::model, base.model.id,
              (base.model.name.empty() ? tr("custom") : QString::fromStdString(base.model.name)) +
                  tr("  (from project)"));
    fillCombo(
        runtime_, io::PresetKind::runtime, base.runtime.id,
        (base.runtime.name.empty() ? tr("custom") : QString::fromStdString(base.runtime.name)) +
            tr("  (from project)"));
  }
  refreshing_ = false;
  refreshAll();
}

const perf::FieldRange* DesignEditor::rangeFor(const QString& path) const {
  const QString p = levelPath(path);
  const auto it = ranges_.find(p.toStdString());
  return it == ranges_.end() ? nullptr : &it->second;
}

void DesignEditor::refreshAll() {
  refreshing_ = true;
  ranges_ = perf::field_ranges(cur_);
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
    // A per-layer list describes a 3D stack only: another memory kind drops it (one undo step
    // with the kind brings it back).
    if (path == QStringLiteral("/hardware/memory/kind") &&
        cur_.hardware.memory.kind != hw::MemoryKind::stacked_3d &&
        !cur_.hardware.memory.layers.empty()) {
      cur_.hardware.memory.layers.clear();
      refreshAll();
    }
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
  if (m.sliding_window > 0) {
    const int sliding = parallel::sliding_layers(m, 0, m.layers);
    info += tr("; %1 of %2 layers attend to a %3-token window")
                .arg(sliding)
                .arg(m.layers)
                .arg(m.sliding_window);
  }
  if (m.moe.experts > 0) info += tr("; MoE %1 experts, top-%2").arg(m.moe.experts).arg(m.moe.top_k);
  modelInfo_->setText(info);
  modelInfo_->setToolTip(QString::fromStdString(m.source));
  const bool moe = m.moe.experts > 0;
  for (const char* path : {"/parallel/ep", "/parallel/moe/tp", "/parallel/moe/ep",
                           "/parallel/redundant_experts_per_rank", "/parallel/experts/strategy"})
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(moe);
  {
    using parallel::ExpertStrategy;
    const auto s = p.experts.strategy;
    const bool hd =
        s == ExpertStrategy::hd || s == ExpertStrategy::hd_dynamic || s == ExpertStrategy::shadow;
    const std::pair<const char*, bool> expert_fields[] = {
        {"/parallel/experts/eplb_groups", s == ExpertStrategy::eplb},
        {"/parallel/experts/hd_time_limit_s", hd},
        {"/parallel/experts/hd_max_sets", hd},
        {"/parallel/experts/link_iterations", hd},
        {"/parallel/experts/fit_tokens",
         parallel::mesh_only(s) || (s != ExpertStrategy::plan && simulated_on_mesh(d))}};
    for (const auto& [path, on] : expert_fields)
      if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(moe && on);
  }
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
        tr("core/memory effective_bandwidth() at 50 °C (docs/model.md §4): min(row-cycle, "
           "tFAW/tRRD activation, Little's-law buffering, SRAM staging) × utilisation cap × "
           "(1 − tRFC / tREFI)."));
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
      tr("Derived (core/power_area, docs/model.md §13.3): a hybrid bond occupies pitch², a TSV the "
         "larger of pitch² and its keep-out. Links = connected channels × channel rate / link "
         "rate / signal share."));
  refreshLayerTable();
  const double channelBps = mem.bytes_per_transfer * mem.transfers_per_clock * mem.clock_MHz * 1e6;
  const double linkPeakGBps =
      std::max(1, mem.stacks) * mem.channels_per_layer * channelBps / units::kGiga;
  // A per-layer stack sets the layer counts from its rows.
  for (const char* path : {"/hardware/memory/layers_total", "/hardware/memory/layers_connected"})
    if (QWidget* w = fieldFor(QString::fromLatin1(path))) w->setEnabled(mem.layers.empty());
  if (stacked) {
    const auto bw = memory::effective_bandwidth(mem, h.compute, memory::AccessPattern{});
    const double totalGiB =
        std::max(1, mem.stacks) * hw::stack_raw_bytes(mem, area.dram_layer_capacity_bytes) / kGiB;
    stackTotals_->setText(
        tr("Device total: %1 GiB; peak %2 GB/s over %3 connected of %4 layers (%5 GB/s per "
           "link), streaming %6 GB/s (row-cycle efficiency %7 %)")
            .arg(readable(totalGiB), readable(bw.peak_Bps / units::kGiga))
            .arg(hw::stack_connected_count(mem))
            .arg(hw::stack_layer_count(mem))
            .arg(readable(linkPeakGBps), readable(bw.effective_Bps / units::kGiga),
                 readable(100.0 * bw.eta)));
  } else {
    stackTotals_->clear();
  }

  // Compute die and mesh: peaks and area from the core model.
  const Precision prec = wider(d.workload.numerics.weights, d.workload.numerics.activations);
  {
    // What the profile costs on this device (core/runtime), and whether it was sourced for it.
    const auto& r = cur_.runtime;
    const double dispatch_ns = cur_.hardware.compute.op_dispatch_ns;
    const double barrier_ns = runtime::mesh_barrier_s(cur_.hardware.noc) * 1e9;
    const double op_us = runtime::op_overhead_s(r, cur_.hardware.compute, cur_.hardware.noc) * 1e6;
    const double coll_us =
        runtime::collective_overhead_s(r, cur_.hardware.compute, cur_.hardware.noc) * 1e6;
    const auto cls = runtime::device_class_of(cur_.hardware);
    QString extra;
    if (r.kernel_gap_us > 0) extra += tr(" + kernel gap %1 µs").arg(readable(r.kernel_gap_us));
    if (!r.graph_capture) extra += tr(" + host launch %1 µs").arg(readable(r.host_launch_us));
    QString text =
        tr("On this device: %1 µs per operator = %2 kernel(s) × (dispatch %3 ns + mesh barrier "
           "%4 ns%5); %6 µs per collective on top of its network time.")
            .arg(readable(op_us), readable(r.kernels_per_op), readable(dispatch_ns),
                 readable(barrier_ns), extra, readable(coll_us));
    if (r.eager_launch_us > 0)
      text += tr(" A serving iteration with a prefill chunk takes at least %1 µs per kernel "
                 "(launched eagerly by the host).")
                  .arg(readable(r.eager_launch_us));
    if (r.device_class != runtime::DeviceClass::any && r.device_class != cls)
      text += tr(" This profile was sourced for class %1 and this device is class %2: right for "
                 "a like-for-like comparison; say so when you report it.")
                  .arg(QString::fromLatin1(runtime::to_string(r.device_class)),
                       QString::fromLatin1(runtime::to_string(cls)));
    runtimeInfo_->setText(text);
  }
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
      tr("Derived at the top clock: one %1 matrix FLOP costs %2 pJ; a DRAM byte %3 pJ on the "
         "DRAM side (with the vertical link on a 3D stack), %4 pJ on the die's memory path and "
         "%5 pJ more for its SRAM staging; idle power is %6 % of the TDP.")
          .arg(qs(to_string(prec)), readable(rates.matrix_J_per_flop * 1e12),
               readable(rates.dram_J_per_byte * 1e12), readable(rates.path_J_per_byte * 1e12),
               readable(rates.sram_J_per_byte * 1e12),
               readable(100.0 * h.energy.static_power_W / std::max(1e-9, h.energy.tdp_W))));
  areaInfo_->setText(
      tr("Derived: cores %1 (%12 of them) + shared SRAM %2 + mesh %3 + PHYs %4 + vertical "
         "links %5 + other %6 = %7 of %8 mm² die%9; reticle %10 mm²%11.")
          .arg(readable(area.cores_mm2), readable(area.shared_sram_mm2), readable(area.noc_mm2),
               readable(area.phy_mm2), readable(area.vertical_mm2), readable(area.other_mm2),
               readable(area.used_mm2()), readable(area.die_mm2),
               area.fits_die() ? QString() : tr(" (does not fit)"))
          .arg(readable(area.reticle_mm2),
               area.fits_reticle() ? QString() : tr(" (the die is larger)"))
          .arg(area.cores));
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
  refreshLayerTable();  // clears the cells' marks
  markLayerCells(issues);
  // Only widgets whose state changes are restyled (a style sheet change re-polishes).
  const auto mark = [&marks](QWidget* w) {
    const auto it = marks.find(w);
    theme::markField(w, it != marks.end() ? it->second : QStringList());
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

// Rows list the dies top first: row r is die n - 1 - r (die 0 is bonded on the logic die).
void DesignEditor::refreshLayerTable() {
  const QSignalBlocker block(layerTable_);
  const auto& mem = cur_.hardware.memory;
  const bool stacked = mem.kind == hw::MemoryKind::stacked_3d;
  const int n = stacked ? std::clamp(hw::stack_layer_count(mem), 0, perf::limits::kMaxMemoryLayers) : 0;
  const int keep = selectedDie();
  const double uniformGiB = power_area::area(cur_.hardware).dram_layer_capacity_bytes / kGiB;
  layerTable_->setRowCount(n);
  const QColor inherited = palette().color(QPalette::Disabled, QPalette::Text);
  for (int r = 0; r < n; ++r) {
    const int k = n - 1 - r;
    const hw::DramLayer* own =
        mem.layers.empty() ? nullptr : &mem.layers[static_cast<std::size_t>(k)];
    const bool connected = hw::layer_connected(mem, k);
    const int link = hw::layer_link(mem, k);
    const auto cell = [&](int c) {
      QTableWidgetItem* item = layerTable_->item(r, c);
      if (!item) {
        item = new QTableWidgetItem;
        layerTable_->setItem(r, c, item);
      }
      return item;
    };
    QTableWidgetItem* die = cell(kDieColumn);
    die->setText(tr("DRAM %1").arg(k + 1));
    die->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    die->setToolTip(k == 0 ? tr("DRAM 1, bonded on the logic die") : tr("DRAM %1").arg(k + 1));
    QTableWidgetItem* conn = cell(kConnectedColumn);
    conn->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    conn->setCheckState(connected ? Qt::Checked : Qt::Unchecked);
    conn->setText(connected ? tr("#%1").arg(link) : tr("→#%1").arg(link));
    conn->setToolTip(connected ? tr("Owns vertical link #%1").arg(link)
                               : tr("Shares vertical link #%1 (round-robin)").arg(link));
    const struct {
      int column;
      double set, value;
      QString what;
    } values[] = {
        {kThicknessColumn, own ? own->thickness_um : 0.0, hw::layer_thickness_um(mem, k),
         tr("thickness %1 µm")},
        {kCapacityColumn, own ? own->capacity_GiB : 0.0, hw::layer_capacity_GiB(mem, k, uniformGiB),
         tr("capacity %1 GiB per stack")},
        {kPitchColumn, own ? own->pitch_um : 0.0, hw::layer_pitch_um(mem, k),
         tr("link pitch %1 µm")},
    };
    for (const auto& v : values) {
      QTableWidgetItem* item = cell(v.column);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable);
      item->setData(Qt::EditRole, v.value);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      const bool set = v.set > 0;
      QFont f = item->font();
      f.setItalic(!set);
      item->setFont(f);
      item->setData(Qt::ForegroundRole, set ? QVariant() : QVariant(inherited));
      const QString what = v.what.arg(readable(v.value));
      item->setToolTip(set ? tr("DRAM %1: %2").arg(k + 1).arg(what)
                           : tr("DRAM %1: %2, the stack's value (edit to set this die's own)")
                                 .arg(k + 1)
                                 .arg(what));
      item->setData(Qt::BackgroundRole, QVariant());
    }
  }
  if (keep >= 0 && keep < n) layerTable_->setCurrentCell(n - 1 - keep, 0);
  const int k = selectedDie();
  addLayer_->setEnabled(stacked && n < perf::limits::kMaxMemoryLayers);
  removeLayer_->setEnabled(k >= 0 && n > 1);
  layerUp_->setEnabled(k >= 0 && k + 1 < n);
  layerDown_->setEnabled(k > 0);
  for (QPushButton* b : {addLayer_, removeLayer_, layerUp_, layerDown_}) b->setVisible(stacked);
  // Every layer visible up to 16; a taller stack scrolls inside the table.
  layerTable_->setFixedHeight(layerTable_->horizontalHeader()->sizeHint().height() +
                              22 * std::clamp(n, 1, 16) + 2 * layerTable_->frameWidth());
}

int DesignEditor::selectedDie() const {
  const int r = layerTable_->currentRow();
  const int n = layerTable_->rowCount();
  return r >= 0 && r < n ? n - 1 - r : -1;
}

void DesignEditor::editLayers(const QString& name, int selectDie,
                              const std::function<void(std::vector<hw::DramLayer>&)>& change) {
  auto& mem = cur_.hardware.memory;
  if (mem.kind != hw::MemoryKind::stacked_3d) return;
  // The first edit writes the uniform stack out as layers; the counts follow the rows.
  std::vector<hw::DramLayer> layers = hw::explicit_layers(mem);
  change(layers);
  if (layers.empty()) return;
  mem.layers = std::move(layers);
  hw::sync_layer_counts(mem);
  showCustomHardware(tr("(edited) "));
  refreshAll();
  const int n = layerTable_->rowCount();
  const int k = std::clamp(selectDie, 0, std::max(0, n - 1));
  if (n > 0) {
    const QSignalBlocker block(layerTable_);
    layerTable_->setCurrentCell(n - 1 - k, 0);
  }
  refreshLayerTable();
  commit(-1, name, false);
}

void DesignEditor::layerCellEdited(int row, int column) {
  const int n = layerTable_->rowCount();
  QTableWidgetItem* item = layerTable_->item(row, column);
  if (!item || row < 0 || row >= n) return;
  const int k = n - 1 - row;
  const auto idx = static_cast<std::size_t>(k);
  if (column == kConnectedColumn) {
    const bool on = item->checkState() == Qt::Checked;
    if (on == hw::layer_connected(cur_.hardware.memory, k)) return;  // the text changed
    editLayers(on ? tr("connect DRAM %1").arg(k + 1) : tr("disconnect DRAM %1").arg(k + 1), k,
               [idx, on](std::vector<hw::DramLayer>& l) { l[idx].connected = on; });
    return;
  }
  if (column < kThicknessColumn) return;
  bool ok = false;
  const double v = item->data(Qt::EditRole).toDouble(&ok);
  if (!ok) return;
  // Unchanged (the cell shows the effective value): no edit. Otherwise the typed value becomes
  // the die's own; validate() marks a value out of its range on the cell.
  const auto& mem = cur_.hardware.memory;
  const double uniformGiB = power_area::area(cur_.hardware).dram_layer_capacity_bytes / kGiB;
  const double shown = column == kThicknessColumn  ? hw::layer_thickness_um(mem, k)
                       : column == kCapacityColumn ? hw::layer_capacity_GiB(mem, k, uniformGiB)
                                                   : hw::layer_pitch_um(mem, k);
  if (v == shown) return;
  const QString what = column == kThicknessColumn  ? tr("thickness")
                       : column == kCapacityColumn ? tr("capacity")
                                                   : tr("link pitch");
  editLayers(tr("DRAM %1 %2").arg(k + 1).arg(what), k,
             [idx, column, v](std::vector<hw::DramLayer>& l) {
               hw::DramLayer& d = l[idx];
               (column == kThicknessColumn  ? d.thickness_um
                : column == kCapacityColumn ? d.capacity_GiB
                                            : d.pitch_um) = v;
             });
}

// Issues of one die's value (/hardware/memory/layers/<k>/<key>) mark its cell; showIssues()
// frames the table itself.
void DesignEditor::markLayerCells(const std::vector<Issue>& issues) {
  static const QRegularExpression re(
      QStringLiteral("^/hardware/memory/layers/(\\d+)/(connected|thickness_um|capacity_GiB|"
                     "pitch_um)$"));
  const QSignalBlocker block(layerTable_);
  const int n = layerTable_->rowCount();
  for (const auto& i : issues) {
    const auto m = re.match(QString::fromStdString(i.path));
    if (!m.hasMatch()) continue;
    const int k = m.captured(1).toInt();
    const QString key = m.captured(2);
    const int column = key == QLatin1String("connected")      ? kConnectedColumn
                       : key == QLatin1String("thickness_um") ? kThicknessColumn
                       : key == QLatin1String("capacity_GiB") ? kCapacityColumn
                                                              : kPitchColumn;
    if (k < 0 || k >= n) continue;
    if (QTableWidgetItem* item = layerTable_->item(n - 1 - k, column)) {
      item->setData(Qt::BackgroundRole, QColor(0xc6, 0x28, 0x28, 0x50));
      item->setToolTip(QString::fromStdString(format_issue(i)));
    }
  }
}

}  // namespace stackscope::ui
