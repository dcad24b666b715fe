// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/design_editor.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <map>
#include <string_view>

namespace stackscope::ui {
namespace {

QSpinBox* makeSpin(QWidget* parent, const char* name, int min, int max, const QString& suffix,
                   const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(QString::fromLatin1(name));
  s->setRange(min, max);
  s->setSuffix(suffix);
  s->setGroupSeparatorShown(true);
  s->setAccelerated(true);
  s->setToolTip(tip);
  // Typing "2048" must not evaluate 2, 20 and 204 on the way; arrows still apply at once.
  s->setKeyboardTracking(false);
  return s;
}

}  // namespace

DesignEditor::DesignEditor(const io::PresetRegistry& presets, QWidget* parent)
    : QWidget(parent), presets_(presets) {
  setObjectName(QStringLiteral("designEditor"));
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

  hardware_ = new QComboBox(this);
  hardware_->setMinimumContentsLength(24);
  hardware_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  hardware_->setObjectName(QStringLiteral("hardwareCombo"));
  hardware_->setToolTip(tr("Device preset (one chip or package)"));
  model_ = new QComboBox(this);
  model_->setMinimumContentsLength(24);
  model_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  model_->setObjectName(QStringLiteral("modelCombo"));
  model_->setToolTip(tr("Model preset (architecture from its published config)"));
  precision_ = new QComboBox(this);
  precision_->setObjectName(QStringLiteral("precisionCombo"));
  precision_->setToolTip(tr("Number format of weights, activations and the KV cache"));
  for (Precision p : {Precision::fp16, Precision::bf16, Precision::fp8, Precision::fp4}) {
    const QString name =
        QString::fromLatin1(to_string(p).data(), static_cast<int>(to_string(p).size()));
    precision_->addItem(name, name);
  }
  batch_ = makeSpin(this, "batchSpin", 0, 1'000'000, tr(" req"),
                    tr("Requests per replica, prefilled together then decoded (static "
                       "batching). 0 = auto: the largest batch that fits memory."));
  batch_->setSpecialValueText(tr("auto (fits memory)"));
  tp_ = makeSpin(this, "tpSpin", 1, 1024, QString(),
                 tr("Tensor-parallel degree: heads and FFN columns split over TP devices"));
  inputLen_ =
      makeSpin(this, "inputLenSpin", 1, 10'000'000, tr(" tok"), tr("Prompt tokens per request"));
  outputLen_ = makeSpin(this, "outputLenSpin", 1, 10'000'000, tr(" tok"),
                        tr("Generated tokens per request (the first comes from prefill)"));
  pp_ = makeSpin(this, "ppSpin", 1, 1024, QString(),
                 tr("Pipeline-parallel degree: the layers split into PP stages"));
  ep_ = makeSpin(this, "epSpin", 1, 4096, QString(),
                 tr("Expert-parallel degree (MoE models): routed experts spread over EP devices"));
  layers_ = makeSpin(this, "layersSpin", 1, 64, tr(" dies"),
                     tr("DRAM dies stacked on the logic die (3D-stacked devices). More layers: "
                        "more capacity and bandwidth, more thermal resistance."));
  connected_ = makeSpin(this, "connectedSpin", 1, 64, tr(" dies"),
                        tr("DRAM dies with active vertical links (<= stacked dies); DeepStack's "
                           "rule: at most half the layers hide row recharge behind the others"));
  devices_ = new QLabel(this);
  devices_->setObjectName(QStringLiteral("devicesLabel"));

  form->addRow(tr("&Hardware:"), hardware_);
  form->addRow(tr("&Model:"), model_);
  form->addRow(tr("&Precision:"), precision_);
  form->addRow(tr("&Batch / replica:"), batch_);
  form->addRow(tr("&Tensor parallel:"), tp_);
  form->addRow(tr("P&ipeline parallel:"), pp_);
  form->addRow(tr("E&xpert parallel:"), ep_);
  form->addRow(tr("DRAM &layers:"), layers_);
  form->addRow(tr("&Connected layers:"), connected_);
  form->addRow(tr("&Input length:"), inputLen_);
  form->addRow(tr("&Output length:"), outputLen_);
  form->addRow(tr("Devices:"), devices_);

  for (QComboBox* c : {hardware_, model_}) {
    // Long preset names are elided in the closed box; the tooltip has the whole name and id.
    connect(c, &QComboBox::currentIndexChanged, c, [c] {
      const QString id = c->currentData().toString();
      c->setToolTip(id.isEmpty() ? c->currentText()
                                 : QStringLiteral("%1\npreset id: %2").arg(c->currentText(), id));
    });
  }
  const QString comboNames[] = {tr("hardware"), tr("model"), tr("precision")};
  int field = 0;
  for (QComboBox* c : {hardware_, model_, precision_}) {
    connect(c, &QComboBox::currentIndexChanged, this, [this, field, name = comboNames[field]] {
      updateDevices();
      Q_EMIT fieldEdited(field, name);
      Q_EMIT edited();
    });
    ++field;
  }
  // A different device: show its own stack.
  connect(hardware_, &QComboBox::currentIndexChanged, this, [this] {
    const std::string id = hardware_->currentData().toString().toStdString();
    const hw::Hardware h = id.empty() ? base_.hardware : presets_.hardware(id);
    showStack(h);
  });
  const QString spinNames[] = {tr("batch"),         tr("tensor parallel"),   tr("input length"),
                               tr("output length"), tr("pipeline parallel"), tr("expert parallel"),
                               tr("DRAM layers"),   tr("connected layers")};
  int k = 0;
  for (QSpinBox* s : {batch_, tp_, inputLen_, outputLen_, pp_, ep_, layers_, connected_}) {
    connect(s, &QSpinBox::valueChanged, this, [this, f = field + k, name = spinNames[k]] {
      updateDevices();
      Q_EMIT fieldEdited(f, name);
      Q_EMIT edited();
    });
    ++k;
  }
}

void DesignEditor::fillCombo(QComboBox* combo, io::PresetKind kind, const std::string& currentId,
                             const std::string& currentName) {
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
    // Inline (edited) hardware/model of the project: keep it selectable, first in the list.
    const QString name = currentName.empty() ? tr("custom") : QString::fromStdString(currentName);
    combo->insertItem(0, name + tr("  (from project)"), QString());
    current = 0;
  }
  combo->setCurrentIndex(current);
}

void DesignEditor::showStack(const hw::Hardware& h) {
  const QSignalBlocker b1(layers_), b2(connected_);
  const bool stacked = h.memory.kind == hw::MemoryKind::stacked_3d;
  layers_->setEnabled(stacked);
  connected_->setEnabled(stacked);
  layers_->setValue(h.memory.layers_total);
  connected_->setValue(h.memory.layers_connected);
  const QString off =
      tr("This device's DRAM is not stacked on its logic die (HBM beside it, or "
         "SRAM only)");
  layers_->setStatusTip(stacked ? QString() : off);
  if (!stacked) {
    layers_->setToolTip(off);
    connected_->setToolTip(off);
  }
}

void DesignEditor::setBase(const perf::Design& base) {
  base_ = base;
  const QSignalBlocker b1(hardware_), b2(model_), b3(precision_), b4(batch_), b5(tp_),
      b6(inputLen_), b7(outputLen_), b8(pp_), b9(ep_);
  // Only a preset whose contents are unchanged may be shown as that preset; an inline or
  // edited device keeps the "(from project)" entry. Comparing ids is the practical proxy.
  fillCombo(hardware_, io::PresetKind::hardware, base.hardware.id, base.hardware.name);
  fillCombo(model_, io::PresetKind::model, base.model.id, base.model.name);
  const auto& n = base.workload.numerics;
  const int pi = (n.weights == n.activations && n.weights == n.kv_cache)
                     ? precision_->findData(QString::fromLatin1(to_string(n.weights).data()))
                     : -1;
  if (precision_->count() > 4) precision_->removeItem(0);
  if (pi < 0) {
    precision_->insertItem(0,
                           tr("%1 / %2 / %3 (project)")
                               .arg(QString::fromLatin1(to_string(n.weights).data()),
                                    QString::fromLatin1(to_string(n.activations).data()),
                                    QString::fromLatin1(to_string(n.kv_cache).data())),
                           QString());
    precision_->setCurrentIndex(0);
  } else {
    precision_->setCurrentIndex(pi);
  }
  batch_->setValue(base.workload.batch_auto ? 0 : base.workload.batch);
  tp_->setValue(base.parallel.tp);
  pp_->setValue(base.parallel.pp);
  ep_->setValue(base.parallel.ep);
  showStack(base.hardware);
  inputLen_->setValue(base.workload.input_len);
  outputLen_->setValue(base.workload.output_len);
  updateDevices();
}

perf::Design DesignEditor::compose() const {
  perf::Design d = base_;
  const std::string hwId = hardware_->currentData().toString().toStdString();
  if (!hwId.empty() && hwId != d.hardware.id) d.hardware = presets_.hardware(hwId);
  const std::string modelId = model_->currentData().toString().toStdString();
  if (!modelId.empty() && modelId != d.model.id) {
    d.model = presets_.model(modelId);
    // Same rules as the CLI's --model: expert statistics and EP belong to the old model.
    if (d.workload.routing.kind != workload::RoutingKind::trace)
      d.workload.routing.expert_frequency.clear();
    if (d.model.moe.experts == 0) d.parallel.ep = 1;
  }
  const QString prec = precision_->currentData().toString();
  for (Precision p : {Precision::fp16, Precision::bf16, Precision::fp8, Precision::fp4}) {
    if (prec == QString::fromLatin1(to_string(p).data())) d.workload.numerics = {p, p, p};
  }
  d.workload.batch_auto = batch_->value() == 0;
  if (!d.workload.batch_auto) d.workload.batch = batch_->value();
  d.parallel.tp = tp_->value();
  d.parallel.pp = pp_->value();
  if (d.model.moe.experts > 0) d.parallel.ep = ep_->value();
  if (d.hardware.memory.kind == hw::MemoryKind::stacked_3d) {
    d.hardware.memory.layers_total = layers_->value();
    d.hardware.memory.layers_connected = connected_->value();
  }
  d.workload.input_len = inputLen_->value();
  d.workload.output_len = outputLen_->value();
  if (d.parallel.tp != base_.parallel.tp || d.parallel.ep != base_.parallel.ep ||
      d.parallel.pp != base_.parallel.pp)
    d.system.devices = parallel::devices(d.parallel);
  return d;
}

int DesignEditor::showIssues(const std::vector<Issue>& issues) {
  // The form field that owns a path (the longest matching prefix wins).
  const std::pair<const char*, QWidget*> fields[] = {
      {"/workload/batch", batch_},
      {"/parallel/tp", tp_},
      {"/parallel/pp", pp_},
      {"/parallel/ep", ep_},
      {"/parallel", tp_},
      {"/system/devices", tp_},
      {"/workload/input_len", inputLen_},
      {"/workload/output_len", outputLen_},
      {"/workload/numerics", precision_},
      {"/hardware/memory/layers_total", layers_},
      {"/hardware/memory/layers_connected", connected_},
      {"/hardware", hardware_},
      {"/model", model_},
  };
  std::map<QWidget*, QStringList> marks;
  int placed = 0;
  for (const auto& i : issues) {
    QWidget* best = nullptr;
    std::size_t bestLen = 0;
    for (const auto& [prefix, w] : fields) {
      const std::string_view p(prefix);
      if (i.path.rfind(p, 0) == 0 && p.size() > bestLen) {
        best = w;
        bestLen = p.size();
      }
    }
    if (!best) continue;
    marks[best] << QString::fromStdString(format_issue(i));
    ++placed;
  }
  for (QWidget* w :
       {static_cast<QWidget*>(hardware_), static_cast<QWidget*>(model_),
        static_cast<QWidget*>(precision_), static_cast<QWidget*>(batch_),
        static_cast<QWidget*>(tp_), static_cast<QWidget*>(pp_), static_cast<QWidget*>(ep_),
        static_cast<QWidget*>(layers_), static_cast<QWidget*>(connected_),
        static_cast<QWidget*>(inputLen_), static_cast<QWidget*>(outputLen_)}) {
    const auto it = marks.find(w);
    const bool bad = it != marks.end();
    if (!w->property("baseTip").isValid()) w->setProperty("baseTip", w->toolTip());
    w->setToolTip(bad ? it->second.join(QStringLiteral("\n")) : w->property("baseTip").toString());
    w->setStyleSheet(bad ? QStringLiteral("border: 2px solid #c62828; border-radius: 3px;")
                         : QString());
    w->setProperty("invalid", bad);
  }
  return placed;
}

void DesignEditor::updateDevices() {
  const perf::Design d = compose();
  const auto& p = d.parallel;
  devices_->setText(tr("%1  (TP %2 × PP %3 × DP %4 × EP %5)")
                        .arg(d.system.devices)
                        .arg(p.tp)
                        .arg(p.pp)
                        .arg(p.dp)
                        .arg(p.ep));
}

}  // namespace stackscope::ui
