// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Read-only facts of the current device and system (peaks, capacity, bandwidth), so the
// metrics can be read against what the hardware could do at best.
#include <QWidget>

#include "stackscope/perf/design.hpp"

class QLabel;

namespace stackscope::ui {

class DevicePanel : public QWidget {
  Q_OBJECT
 public:
  explicit DevicePanel(QWidget* parent = nullptr);
  void showDesign(const perf::Design& design);

 private:
  QLabel* compute_ = nullptr;
  QLabel* memoryKind_ = nullptr;
  QLabel* bandwidth_ = nullptr;
  QLabel* capacity_ = nullptr;
  QLabel* sram_ = nullptr;
  QLabel* power_ = nullptr;
  QLabel* network_ = nullptr;
  QLabel* source_ = nullptr;
};

}  // namespace stackscope::ui
