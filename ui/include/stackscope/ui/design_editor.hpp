// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small what-if form of the first window: device and model presets, number format,
// batch, tensor parallelism and sequence lengths. The full form editors are a later issue.
#include <QWidget>

#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/design.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace stackscope::ui {

class DesignEditor : public QWidget {
  Q_OBJECT
 public:
  // `presets` must outlive the editor.
  explicit DesignEditor(const io::PresetRegistry& presets, QWidget* parent = nullptr);

  // Shows `base` (a loaded project); widgets are refreshed without emitting edited().
  void setBase(const perf::Design& base);
  // `base` with the form's values applied. Preset combos resolve through the registry; the
  // "(project)" entries keep the base's own hardware/model. Devices follow the plan.
  perf::Design compose() const;
  // Marks the fields that validation issues point at (JSON-pointer paths such as
  // "/parallel/tp"): a red frame and the message as tooltip; an empty list clears the marks.
  // Returns how many issues were placed on a field.
  int showIssues(const std::vector<Issue>& issues);

 Q_SIGNALS:
  void edited();
  // Which field changed (stable id for undo merging, and a name for the undo text).
  void fieldEdited(int field, const QString& name);

 private:
  void fillCombo(QComboBox* combo, io::PresetKind kind, const std::string& currentId,
                 const std::string& currentName);
  void updateDevices();
  void showStack(const hw::Hardware& h);

  const io::PresetRegistry& presets_;
  perf::Design base_;
  QComboBox* hardware_ = nullptr;
  QComboBox* model_ = nullptr;
  QComboBox* precision_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* tp_ = nullptr;
  QSpinBox* inputLen_ = nullptr;
  QSpinBox* outputLen_ = nullptr;
  QSpinBox* pp_ = nullptr;
  QSpinBox* ep_ = nullptr;
  QSpinBox* layers_ = nullptr;
  QSpinBox* connected_ = nullptr;
  QLabel* devices_ = nullptr;
};

}  // namespace stackscope::ui
