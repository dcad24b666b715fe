// SPDX-License-Identifier: GPL-3.0-or-later
// DesignEditor's design pages (model and workload, parallelism, system network, runtime): one
// builder per page, each binding its fields to the document by JSON pointer (design_editor.cpp
// has the binding, undo and derived figures; design_editor_hardware.cpp the device's pages).
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
#include "stackscope/experts/compare.hpp"
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

#include "design_editor_detail.hpp"

namespace stackscope::ui {

using namespace design_editor_detail;

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
         "and with the activations the matrix-unit rate used (docs/model.md §3)"),
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
      tr("How tokens spread over the routed experts (docs/model.md §6.1): the busiest "
         "expert-parallel rank sets an MoE layer's time. Uniform = perfectly balanced; Zipf and "
         "Dirichlet are seeded skews; trace = recorded per-layer frequencies from a file."),
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
      tr("Recorded expert frequencies per MoE layer (JSON as in data/mixtral-routing), used when "
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
  // The routed experts' placement (parallel::ExpertPlacement, perf/expert_placement.hpp); the
  // Experts view compares the strategies side by side.
  form->addRow(sectionLabel(tr("Expert placement (MoE)"), page));
  addCombo(
      form, tr("Strate&gy:"), "expertStrategyCombo", "/parallel/experts/strategy",
      tr("Where the routed experts live: the plan's own MoE TP × EP layout; EPLB (redundant "
         "slots packed to balance load) or the compute-balanced hybrid on any system; on a mesh "
         "system (first network level a mesh of one stage's devices) also TP, EP, HD-MoE, "
         "HD-MoE with pre-broadcast, or shadowing, every one scored by the mesh simulator"),
      {tr("plan (MoE TP × EP)"), tr("TP (mesh)"), tr("EP (mesh)"), tr("EPLB"),
       tr("compute-balanced"), tr("HD-MoE (mesh)"), tr("HD-MoE + pre-broadcast (mesh)"),
       tr("shadowing (mesh)")},
      [](perf::Design& d) { return static_cast<int>(d.parallel.experts.strategy); },
      [](perf::Design& d, int i) {
        d.parallel.experts.strategy = static_cast<parallel::ExpertStrategy>(i);
      });
  addInt(form, tr("EPLB groups:"),
         {"eplbGroupsSpin",
          "/parallel/experts/eplb_groups",
          1,
          4096,
          QString(),
          tr("EPLB: 1 = the global policy; more = hierarchical, experts packed group by group "
             "onto equal groups of ranks (must divide the ranks and the experts)"),
          {}},
         [](perf::Design& d) { return &d.parallel.experts.eplb_groups; });
  addDouble(form, tr("HD-MoE time limit:"),
            {"hdTimeLimitSpin", "/parallel/experts/hd_time_limit_s", 0.001, 100000, 3, tr(" s"),
             tr("GLPK's time limit for HD-MoE's node-balance MILP, per MoE layer; the placement "
                "is fitted once per design and layer")},
            [](perf::Design& d) { return &d.parallel.experts.hd_time_limit_s; });
  addInt(form, tr("HD-MoE top-k sets:"),
         {"hdMaxSetsSpin",
          "/parallel/experts/hd_max_sets",
          1,
          100000,
          QString(),
          tr("Most frequent top-k sets that enter the MILP's communication term (the rest of "
             "the tokens still count in the expert loads)"),
          {}},
         [](perf::Design& d) { return &d.parallel.experts.hd_max_sets; });
  addInt(form, tr("Link-balance iterations:"),
         {"linkIterationsSpin",
          "/parallel/experts/link_iterations",
          0,
          experts::kMaxLinkIterations,
          QString(),
          tr("Simulated-annealing swap proposals of HD-MoE's node → mesh position mapping, each "
             "scored by the mesh simulator (0 = identity mapping)"),
          {}},
         [](perf::Design& d) { return &d.parallel.experts.link_iterations; });
  addInt(form, tr("Fit batch:"),
         {"fitTokensSpin", "/parallel/experts/fit_tokens", 0, 65536, tr(" tokens"),
          tr("Tokens per batch the mesh placements are fitted on: the decode batch by default; "
             "a serving study may fit on its iterations' token budget instead"),
          tr("workload batch")},
         [](perf::Design& d) { return &d.parallel.experts.fit_tokens; });
  form->addRow(sectionLabel(tr("Compute / communication overlap"), page));
  addCombo(
      form, tr("&Overlap:"), "overlapCombo", "/parallel/overlap",
      tr("Tile-level overlap of compute and communication (docs/model.md §8): off, a fixed "
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
             "cost dominates any gain (docs/model.md §8)"),
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

QWidget* DesignEditor::buildRuntimePage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("runtimePage"));
  auto* form = newForm(page);
  auto* note = new QLabel(
      tr("What the serving software adds to the silicon: achieved kernel efficiencies, launch "
         "and dispatch per kernel, KV re-reads. Compare designs under one profile, or the "
         "comparison measures two software stacks instead of two chips."),
      page);
  note->setWordWrap(true);
  form->addRow(note);
  runtime_ = new QComboBox(page);
  runtime_->setObjectName(QStringLiteral("runtimeCombo"));
  runtime_->setToolTip(tr("Runtime profile preset (presets/runtimes/): sets the fields below"));
  form->addRow(tr("&Profile:"), runtime_);
  connect(runtime_, &QComboBox::currentIndexChanged, this, [this] {
    if (refreshing_) return;
    const QString id = runtime_->currentData().toString();
    presetTip(runtime_);
    if (id.isEmpty()) return;  // "custom": the fields below as edited
    try {
      cur_.runtime = presets_.runtime(id.toStdString());
    } catch (const std::exception&) {
      return;  // the registry lists only ids it holds
    }
    refreshAll();
    commit(-1, tr("runtime profile"));
  });
  const auto rt = [](perf::Design& d) -> runtime::Profile& { return d.runtime; };
  addDouble(form, tr("GEMM efficiency:"),
            {"matmulEffSpin", "/runtime/matmul_efficiency", 0.01, 1, 2, QString(),
             tr("Achieved fraction of the matrix peak on large GEMMs (the kernel library's)")},
            [=](perf::Design& d) { return &rt(d).matmul_efficiency; });
  addDouble(form, tr("GEMM efficiency, FP4:"),
            {"matmulEffFp4Spin", "/runtime/matmul_efficiency_fp4", 0, 1, 2, QString(),
             tr("Achieved fraction of the FP4 matrix peak (block-scaled NVFP4/MXFP4 GEMMs); "
                "0 = the matmul efficiency above")},
            [=](perf::Design& d) { return &rt(d).matmul_efficiency_fp4; });
  addDouble(form, tr("Attention efficiency:"),
            {"attentionEffSpin", "/runtime/attention_efficiency", 0.01, 1, 2, QString(),
             tr("Achieved fraction of the matrix peak for FlashAttention-style kernels")},
            [=](perf::Design& d) { return &rt(d).attention_efficiency; });
  addDouble(form, tr("KV re-read share:"),
            {"kvRereadSpin", "/runtime/decode_kv_reread_fraction", 0, 1, 2, QString(),
             tr("Decode attention without GQA packing: the share of a KV head's re-reads (one per "
                "query head of its group) that miss the on-die cache. 0 = one read per group "
                "(XQA / FlashDecoding), 1 = every query head re-reads from DRAM.")},
            [=](perf::Design& d) { return &rt(d).decode_kv_reread_fraction; });
  addDouble(form, tr("Kernels per operator:"),
            {"kernelsPerOpSpin", "/runtime/kernels_per_op", 0, 64, 1, QString(),
             tr("Kernels the runtime runs per modelled operator (2 when quantisation, RoPE or "
                "residual + norm are separate kernels, 1 when fused)")},
            [=](perf::Design& d) { return &rt(d).kernels_per_op; });
  addCheck(form, tr("Graph capture:"), "graphCaptureCheck", "/runtime/graph_capture",
           tr("The step's kernels are replayed by the device (CUDA graphs, an on-die sequencer): "
              "each pays only the device's dispatch and barrier, no host launch"),
           [=](perf::Design& d) { return &rt(d).graph_capture; });
  addDouble(form, tr("Host launch per kernel:"),
            {"hostLaunchSpin", "/runtime/host_launch_us", 0, 1e6, 2, tr(" µs"),
             tr("Host launch + synchronisation per kernel, paid when graph capture is off")},
            [=](perf::Design& d) { return &rt(d).host_launch_us; });
  addDouble(form, tr("Eager launch per kernel:"),
            {"eagerLaunchSpin", "/runtime/eager_launch_us", 0, 1e6, 2, tr(" µs"),
             tr("Host time per kernel of a serving iteration that carries a prefill chunk (run "
                "outside any CUDA graph): such an iteration takes at least its kernels times "
                "this; the serving model only. 0 = the host always keeps ahead")},
            [=](perf::Design& d) { return &rt(d).eager_launch_us; });
  addDouble(form, tr("Kernel gap:"),
            {"kernelGapSpin", "/runtime/kernel_gap_us", 0, 1e6, 2, tr(" µs"),
             tr("Device time every kernel costs beyond its own work (the gap between kernels, a "
                "small grid's ramp-up and tail), graph replay or not; fitted per backend on "
                "measured deployments")},
            [=](perf::Design& d) { return &rt(d).kernel_gap_us; });
  addDouble(form, tr("Iteration overhead:"),
            {"iterationOverheadSpin", "/runtime/iteration_overhead_us", 0, 1e6, 2, tr(" µs"),
             tr("Host time per serving-scheduler iteration (scheduling, sampling, "
                "detokenisation); the serving model only, not the static evaluation")},
            [=](perf::Design& d) { return &rt(d).iteration_overhead_us; });
  addDouble(form, tr("Request latency:"),
            {"requestLatencySpin", "/runtime/request_latency_us", 0, 1e6, 2, tr(" µs"),
             tr("Front-end time per request (HTTP, tokeniser, hand-off to the engine, the first "
                "token's way back); adds to TTFT in the serving model only")},
            [=](perf::Design& d) { return &rt(d).request_latency_us; });
  addDouble(form, tr("Runtime memory:"),
            {"runtimeMemorySpin", "/runtime/memory_reserved_GiB", 0, 1024, 2, tr(" GiB"),
             tr("Device memory the serving software holds besides weights, KV cache and "
                "activations (CUDA-graph pools, allocator slack, sampler buffers), per device")},
            [=](perf::Design& d) { return &rt(d).memory_reserved_GiB; });
  addDouble(form, tr("Mixed-iteration efficiency:"),
            {"mixedIterationEffSpin", "/runtime/mixed_iteration_efficiency", 0.01, 1, 2, QString(),
             tr("Share of a pure iteration's kernel efficiency that an iteration carrying both "
                "prefill chunks and decode steps reaches (the serving model only); 1 = no loss")},
            [=](perf::Design& d) { return &rt(d).mixed_iteration_efficiency; });
  addDouble(form, tr("Elementwise traffic:"),
            {"elementwiseTrafficSpin", "/runtime/elementwise_traffic", 1, 64, 2, tr(" ×"),
             tr("DRAM traffic of each norm and activation relative to one fused kernel (an "
                "unfused eager runtime moves the tensor once per small kernel); 1 = fused")},
            [=](perf::Design& d) { return &rt(d).elementwise_traffic; });
  addCheck(form, tr("Collectives are kernels:"), "collectiveKernelCheck",
           "/runtime/collective_is_kernel",
           tr("On: each collective is a kernel of its own (NCCL) and pays one kernel's overhead "
              "on top of its synchronisation. Off: the device issues it without a kernel "
              "boundary (DMA from the sequencer), only the network's own alpha is paid."),
           [=](perf::Design& d) { return &rt(d).collective_is_kernel; });
  addCheck(form, tr("Split-KV decode attention:"), "splitKvCheck",
           "/runtime/decode_attention_split_kv",
           tr("On: decode attention splits each context over many blocks (FlashDecoding, XQA), "
              "so the whole device streams KV at any batch. Off: one block per sequence and KV "
              "head (PyTorch SDPA), so a small batch streams KV on few cores."),
           [=](perf::Design& d) { return &rt(d).decode_attention_split_kv; });
  runtimeInfo_ = derivedLabel(page, "runtimeInfo");
  column(page)->addWidget(runtimeInfo_);
  return page;
}

}  // namespace stackscope::ui
