// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/ui/device_panel.hpp"

#include <QFormLayout>
#include <QLabel>

#include "stackscope/hw/derived.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/ui/format.hpp"

namespace stackscope::ui {

DevicePanel::DevicePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("devicePanel"));
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  auto make = [this](const char* name) {
    auto* l = new QLabel(this);
    l->setObjectName(QString::fromLatin1(name));
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
  };
  compute_ = make("deviceCompute");
  memoryKind_ = make("deviceMemoryKind");
  bandwidth_ = make("deviceBandwidth");
  capacity_ = make("deviceCapacity");
  sram_ = make("deviceSram");
  power_ = make("devicePower");
  network_ = make("deviceNetwork");
  source_ = make("deviceSource");
  source_->setObjectName(QStringLiteral("hint"));
  form->addRow(tr("Matrix peak:"), compute_);
  form->addRow(tr("Memory:"), memoryKind_);
  form->addRow(tr("Bandwidth:"), bandwidth_);
  form->addRow(tr("Capacity:"), capacity_);
  form->addRow(tr("On-die SRAM:"), sram_);
  form->addRow(tr("Power:"), power_);
  form->addRow(tr("Network:"), network_);
  form->addRow(tr("Source:"), source_);
}

void DevicePanel::showDesign(const perf::Design& d) {
  const auto& hw = d.hardware;
  const Precision p = d.workload.numerics.weights;
  compute_->setText(tr("%1 TFLOP/s dense %2 (%3 cores × %4 GHz)")
                        .arg(readable(hw::matrix_peak_flops(hw.compute, p) / 1e12),
                             QString::fromLatin1(to_string(p).data()))
                        .arg(hw.compute.cores)
                        .arg(readable(hw.compute.clock_GHz)));
  const auto& m = hw.memory;
  QString kind;
  switch (m.kind) {
    case hw::MemoryKind::hbm:
      kind = tr("2.5D HBM, %1 stacks × %2 dies").arg(m.stacks).arg(m.layers_total);
      break;
    case hw::MemoryKind::stacked_3d:
      kind = tr("3D DRAM on logic, %1 of %2 layers connected")
                 .arg(m.layers_connected)
                 .arg(m.layers_total);
      break;
    case hw::MemoryKind::sram_only: kind = tr("on-die SRAM only"); break;
  }
  memoryKind_->setText(kind);
  const auto bw = memory::effective_bandwidth(m, hw.compute, memory::AccessPattern{});
  bandwidth_->setText(tr("%1 GB/s peak, %2 GB/s streaming")
                          .arg(readable(bw.peak_Bps / 1e9), readable(bw.effective_Bps / 1e9)));
  capacity_->setText(withUnit(hw::memory_capacity_bytes(m) / kGiB, tr("GiB")));
  sram_->setText(withUnit(hw::total_sram_bytes(hw.compute) / (1024.0 * 1024.0), tr("MiB")));
  power_->setText(tr("TDP %1 W, static %2 W")
                      .arg(readable(hw.energy.tdp_W), readable(hw.energy.static_power_W)));
  if (d.system.levels.empty()) {
    network_->setText(tr("single device"));
  } else {
    const auto& l0 = d.system.levels.front();
    network_->setText(
        tr("%1: %2 GB/s per device, %3 µs")
            .arg(QString::fromStdString(l0.name.empty() ? std::string("level 0") : l0.name),
                 readable(l0.link_GBps), readable(l0.latency_us)));
  }
  source_->setText(QString::fromStdString(hw.source));
}

}  // namespace stackscope::ui
