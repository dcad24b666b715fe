// SPDX-License-Identifier: GPL-3.0-or-later
// DesignEditor's device pages (memory, compute die, mesh, power/area/thermal): one builder per
// page, each binding its fields to the document by JSON pointer (design_editor.cpp has the
// binding, undo and derived figures; design_editor_pages.cpp the design's other pages).
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
#include <QStyledItemDelegate>
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
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/thermal/compact.hpp"
#include "stackscope/ui/format.hpp"
#include "stackscope/ui/theme.hpp"

#include "design_editor_detail.hpp"

namespace stackscope::ui {

using namespace design_editor_detail;

namespace {

// Edits a per-layer value in a spin box held to validate()'s range for its column (0 = the
// stack's value), so a typed value is in range before it reaches the design.
class LayerDelegate : public QStyledItemDelegate {
 public:
  using Range = std::function<std::pair<double, double>(int column)>;
  LayerDelegate(Range range, QObject* parent)
      : QStyledItemDelegate(parent), range_(std::move(range)) {}

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override {
    if (index.column() < kThicknessColumn)
      return QStyledItemDelegate::createEditor(parent, option, index);
    auto* spin = new QDoubleSpinBox(parent);
    const auto [lo, hi] = range_(index.column());
    spin->setRange(lo, hi);
    spin->setDecimals(index.column() == kThicknessColumn ? 1 : 3);
    spin->setSpecialValueText(tr("stack"));
    spin->setFrame(false);
    spin->setButtonSymbols(QAbstractSpinBox::NoButtons);
    spin->setToolTip(
        tr("Allowed: %1 – %2 (0 = the stack's value)").arg(readable(lo), readable(hi)));
    return spin;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(editor))
      spin->setValue(index.data(Qt::EditRole).toDouble());
    else
      QStyledItemDelegate::setEditorData(editor, index);
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override {
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(editor)) {
      spin->interpretText();
      model->setData(index, spin->value(), Qt::EditRole);
    } else {
      QStyledItemDelegate::setModelData(editor, model, index);
    }
  }

 private:
  Range range_;
};

}  // namespace

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
             "resistance (DeepStack, docs/model.md §4, §14)."),
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
             "docs/model.md §4)"),
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
                "HBM3 timings)")},
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
                "die area left after the vertical-link field (docs/model.md §4.7). 0 = use "
                "Capacity / layer."),
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
  form->addRow(sectionLabel(tr("Timings (DRAMsim3, Ramulator2)"), dramFields_));
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
  addDouble(
      form, tr("Supply links per layer:"),
      {"supplyLinksSpin", "/hardware/memory/vertical/supply_links_per_layer", 0, 1e9, 0, QString(),
       tr("Power/ground links through the logic die for every DRAM layer, connected or "
          "not: a taller stack costs vertical-field area even where layers share a data "
          "link (0 = supply counted in the signal fraction only)")},
      [=](perf::Design& d) { return &mem(d).vertical.supply_links_per_layer; });
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
  layerTitle_ = sectionLabel(tr("Layers (top of the stack first)"), stackFields_);
  col->addWidget(layerTitle_);
  layerTable_ = new QTableWidget(stackFields_);
  layerTable_->setObjectName(QStringLiteral("layerTable"));
  layerTable_->setColumnCount(kLayerColumns);
  // Short headers (the editor column is narrow); the units are in them, the rest in tooltips.
  const QString headers[kLayerColumns] = {tr("Die"), tr("Own\nlink"), tr("Thick.\nµm"),
                                          tr("GiB /\nstack"), tr("Pitch\nµm")};
  const QString headerTips[kLayerColumns] = {
      tr("DRAM die; DRAM 1 is bonded on the logic die, the first row is the top of the stack."),
      tr("Checked: the die owns a vertical link (its channels add to the peak bandwidth). "
         "Unchecked: it shares a connected die's link round-robin (#n), adding capacity but no "
         "bandwidth (DeepStack; docs/model.md §4.8)."),
      tr("Thinned die thickness in µm, 0 – %1 (0 = the stack's %2 µm): sets the die's layer in "
         "the thermal grid and adds t/(k·A) to the compact model's resistance (docs/model.md "
         "§4.8).")
          .arg(readable(perf::limits::kMaxDramDieThicknessUm), readable(hw::kDramDieThicknessUm)),
      tr("Capacity of this die in each stack in GiB (0 = Capacity / layer, or the bit-density "
         "value); the stack holds the sum."),
      tr("Pitch of this die's vertical links in µm, 0 – %1 (0 = the Pitch above): its links' "
         "share of the vertical-link field area (docs/model.md §4.8).")
          .arg(readable(perf::limits::kMaxVerticalPitchUm))};
  for (int c = 0; c < kLayerColumns; ++c) {
    auto* h = new QTableWidgetItem(headers[c]);
    h->setToolTip(headerTips[c]);
    layerTable_->setHorizontalHeaderItem(c, h);
  }
  layerTable_->setItemDelegate(new LayerDelegate(
      [this](int column) {
        const char* key = column == kThicknessColumn  ? "thickness_um"
                          : column == kCapacityColumn ? "capacity_GiB"
                                                      : "pitch_um";
        // Every die has the same range (perf::field_ranges records die 0's).
        const perf::FieldRange* r =
            rangeFor(QStringLiteral("/hardware/memory/layers/0/") + QLatin1String(key));
        return r ? std::pair{r->min, r->max} : std::pair{0.0, perf::limits::kMaxQuantity};
      },
      layerTable_));
  layerTable_->setEditTriggers(QAbstractItemView::DoubleClicked |
                               QAbstractItemView::EditKeyPressed |
                               QAbstractItemView::AnyKeyPressed);
  layerTable_->setSelectionMode(QAbstractItemView::SingleSelection);
  layerTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  layerTable_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layerTable_->verticalHeader()->setVisible(false);
  layerTable_->verticalHeader()->setDefaultSectionSize(22);
  // The die's name and the link column take their contents' width, the numbers share the rest.
  layerTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  layerTable_->horizontalHeader()->setSectionResizeMode(kDieColumn, QHeaderView::ResizeToContents);
  layerTable_->horizontalHeader()->setSectionResizeMode(kConnectedColumn,
                                                        QHeaderView::ResizeToContents);
  layerTable_->horizontalHeader()->setMinimumSectionSize(24);
  layerTable_->setToolTip(
      tr("<p>Each DRAM die of the stack, the top first. Double-click a value to edit it; a value "
         "in grey is the stack's (0 sets it back). Each edit is one undo step.</p>"));
  col->addWidget(layerTable_);
  bind(QStringLiteral("/hardware/memory/layers"), layerTable_, [] {});
  connect(layerTable_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!refreshing_ && item) layerCellEdited(item->row(), item->column());
  });
  auto* buttons = new QHBoxLayout;
  buttons->setSpacing(4);
  const auto button = [&](const char* object, const QString& text, const QString& tip) {
    auto* b = new QPushButton(text, stackFields_);
    b->setObjectName(QString::fromLatin1(object));
    // Narrower than a push button's usual 80 px: four share the editor column.
    b->setMinimumWidth(b->fontMetrics().horizontalAdvance(text) + 16);
    b->setToolTip(tip);
    buttons->addWidget(b);
    return b;
  };
  addLayer_ = button("addLayerButton", tr("Add"),
                     tr("Add a DRAM die above the selected one (on top if none is selected), a "
                        "copy of it"));
  removeLayer_ = button("removeLayerButton", tr("Remove"), tr("Remove the selected DRAM die"));
  layerUp_ = button("layerUpButton", tr("Up"),
                    tr("Move the selected die one place up, away from the logic die"));
  layerDown_ = button("layerDownButton", tr("Down"),
                      tr("Move the selected die one place down, towards the logic die"));
  col->addLayout(buttons);
  connect(addLayer_, &QPushButton::clicked, this, [this] {
    const int k = selectedDie();
    editLayers(tr("add DRAM layer"), k < 0 ? INT_MAX : k + 1, [k](std::vector<hw::DramLayer>& l) {
      const std::size_t at = k < 0 ? l.size() : static_cast<std::size_t>(k) + 1;
      const hw::DramLayer copy = l.empty() ? hw::DramLayer{} : l[at - 1];
      l.insert(l.begin() + static_cast<std::ptrdiff_t>(at), copy);
    });
  });
  connect(removeLayer_, &QPushButton::clicked, this, [this] {
    const int k = selectedDie();
    if (k < 0) return;
    editLayers(tr("remove DRAM layer"), k, [k](std::vector<hw::DramLayer>& l) {
      if (l.size() > 1) l.erase(l.begin() + k);
    });
  });
  const auto move = [this](int by) {
    const int k = selectedDie();
    if (k < 0) return;
    editLayers(by > 0 ? tr("move DRAM layer up") : tr("move DRAM layer down"), k + by,
               [k, by](std::vector<hw::DramLayer>& l) {
                 const int to = k + by;
                 if (to >= 0 && to < static_cast<int>(l.size()))
                   std::swap(l[static_cast<std::size_t>(k)], l[static_cast<std::size_t>(to)]);
               });
  };
  connect(layerUp_, &QPushButton::clicked, this, [move] { move(1); });
  connect(layerDown_, &QPushButton::clicked, this, [move] { move(-1); });
  connect(layerTable_, &QTableWidget::currentCellChanged, this, [this] {
    const int k = selectedDie(), n = layerTable_->rowCount();
    removeLayer_->setEnabled(k >= 0 && n > 1);
    layerUp_->setEnabled(k >= 0 && k + 1 < n);
    layerDown_->setEnabled(k > 0);
  });
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
                "fit (docs/model.md §13.3); the reticle is 858 mm²")},
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
                "(docs/model.md §4)")},
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
  addDouble(form, tr("Dispatch per kernel:"),
            {"dispatchSpin", "/hardware/compute/op_dispatch_ns", 0, 1e9, 0, tr(" ns"),
             tr("Time for the device's front end to start one kernel and retire it when the host "
                "is out of the loop (graph replay, an on-die sequencer); the barrier over the "
                "on-die mesh is added from the mesh. Launch costs and kernel efficiencies are "
                "the runtime profile's (Runtime page).")},
            [=](perf::Design& d) { return &die(d).op_dispatch_ns; });
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
  addInt(form, tr("MMA min. N (swap-AB):"),
         {"mmaMinNSpin",
          "/hardware/compute/mma_min_n",
          0,
          65536,
          tr(" cols"),
          tr("Smallest N one matrix instruction takes (8 on Hopper wgmma). A GEMM with fewer "
             "rows than the tile runs transposed and pads its rows to this instead; 0 = the "
             "tile columns (no transposed mapping)"),
          {}},
         [=](perf::Design& d) { return &die(d).mma_min_n; });
  // Measured kernel times (docs/model.md §3.5): none, a built-in table, or the file the project
  // or the command line named (kept as it is; a file is chosen in the project JSON).
  const std::vector<std::string> tables = io::builtin_kernel_tables();
  QStringList tableItems{tr("none (roofline)")};
  for (const std::string& id : tables)
    tableItems << tr("%1 (built in)").arg(QString::fromStdString(id));
  tableItems << tr("a CSV file (set in the project)");
  const int fileIndex = static_cast<int>(tableItems.size()) - 1;
  addCombo(
      form, tr("Measured &kernels:"), "kernelTableCombo", "/hardware/kernel_table",
      tr("A table of measured GEMM and attention times for this device; the kernels it covers "
         "take their interpolated time instead of the roofline's (the summary says how many). "
         "A CSV of your own (stackscope-cli kernels checks it; tools/profile-gpu writes one) "
         "is named by \"kernel_table\" in the project's hardware."),
      tableItems,
      [tables, fileIndex](perf::Design& d) {
        if (d.hardware.kernel_table.empty()) return 0;
        const auto it = std::find(tables.begin(), tables.end(), d.hardware.kernel_table);
        return it == tables.end() ? fileIndex : 1 + static_cast<int>(it - tables.begin());
      },
      [tables, fileIndex](perf::Design& d, int i) {
        if (i == fileIndex) return;  // a file is named in the project, not picked here
        d.hardware.kernel_table = i == 0 ? std::string() : tables.at(i - 1);
        d.hardware.kernel_times = io::resolve_kernel_table(d.hardware.kernel_table, {}, "");
      });
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

QWidget* DesignEditor::buildPowerPage() {
  auto* page = new QWidget;
  page->setObjectName(QStringLiteral("powerPage"));
  auto* form = newForm(page);
  form->addRow(sectionLabel(tr("Energy (docs/model.md §13.1)"), page));
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
  addDouble(form, tr("Idle power:"),
            {"staticPowerSpin", "/hardware/energy/static_power_W", 0, 100'000, 0, tr(" W"),
             tr("Idle board power: drawn all the time, also between serving iterations (must "
                "stay below the TDP)")},
            [](perf::Design& d) { return &d.hardware.energy.static_power_W; });
  energy(tr("Memory path:"), "memoryPathSpin", "/hardware/energy/memory_path_pJ_per_bit",
         tr(" pJ/bit"),
         tr("The die's share of each DRAM bit moved: PHY, memory controller, L2/crossbar and the "
            "cores' load path (the DRAM side is the memory page's figure); 0 on a 3D stack"),
         &hw::Energy::memory_path_pJ_per_bit);
  addDouble(form, tr("Busy floor:"),
            {"busyPowerSpin", "/hardware/energy/busy_power_W", 0, 100'000, 0, tr(" W"),
             tr("What running kernels at the top clock adds to the idle power before any work "
                "(clock tree, leakage at the top voltage); scales as clock × voltage²")},
            [](perf::Design& d) { return &d.hardware.energy.busy_power_W; });
  addDouble(form, tr("TDP:"),
            {"tdpSpin", "/hardware/energy/tdp_W", 1, 100'000, 0, tr(" W"),
             tr("Power cap: a phase (prefill, decode, a serving iteration) above it runs at the "
                "clock that meets it (DVFS, docs/model.md §13.2)")},
            [](perf::Design& d) { return &d.hardware.energy.tdp_W; });
  addDouble(form, tr("DVFS lowest clock:"),
            {"dvfsMinClockSpin", "/hardware/energy/dvfs_min_clock", 0.01, 0.99, 3, QString(),
             tr("The lowest clock of the DVFS range relative to the top one (the V/f curve's "
                "lower end)")},
            [](perf::Design& d) { return &d.hardware.energy.dvfs_min_clock; });
  addDouble(form, tr("Voltage there:"),
            {"dvfsMinVoltageSpin", "/hardware/energy/dvfs_min_voltage", 0.01, 1, 3, QString(),
             tr("The supply voltage at the lowest DVFS clock relative to the top one; equal to "
                "the lowest clock gives V ∝ f (the cubic law)")},
            [](perf::Design& d) { return &d.hardware.energy.dvfs_min_voltage; });
  addDouble(form, tr("Top clock:"),
            {"topClockSpin", "/hardware/energy/dvfs_top_clock_MHz", 0, 100'000, 0, tr(" MHz"),
             tr("The top DVFS clock as the device reports it (nvidia-smi's max SM clock), for "
                "the clock each phase is reported at; 0 = the compute clock")},
            [](perf::Design& d) { return &d.hardware.energy.dvfs_top_clock_MHz; });
  powerInfo_ = derivedLabel(page, "powerInfo");
  column(page)->addWidget(powerInfo_);

  form = appendForm(page, "areaFields");
  form->addRow(sectionLabel(tr("Area (docs/model.md §13.3)"), page));
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
  addCheck(form, tr("Fit cores to the die:"), "fitCoresCheck", "/hardware/area/fit_cores",
           tr("On: the die holds as many cores as fit in the area the uncore, PHYs and "
              "vertical-link field leave, at most the Compute page's count (DeepStack's area "
              "model), so a taller or more connected stack leaves fewer cores. Off: the core "
              "count as given; a design that does not fit is infeasible."),
           [](perf::Design& d) { return &d.hardware.area.fit_cores; });
  areaInfo_ = derivedLabel(page, "areaInfo");
  column(page)->addWidget(areaInfo_);

  form = appendForm(page, "thermalFields");
  form->addRow(sectionLabel(tr("Thermal package (docs/model.md §14)"), page));
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

}  // namespace stackscope::ui
