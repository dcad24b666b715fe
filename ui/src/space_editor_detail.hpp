// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the space editor's files share (space_editor.cpp: the widget, its undo history and its
// public calls; space_editor_form.cpp: the form's groups and rows; space_editor_check.cpp:
// validation and problem display). Internal to ui/.
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


namespace stackscope::ui::space_editor_detail {


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

inline double& constraintRef(search::Constraints& c, const QString& key) {
  if (key == QLatin1String("max_power_W")) return c.max_power_W;
  if (key == QLatin1String("max_die_area_mm2")) return c.max_die_area_mm2;
  if (key == QLatin1String("max_dram_C")) return c.max_dram_C;
  if (key == QLatin1String("ttft_slo_s")) return c.ttft_slo_s;
  return c.tpot_slo_s;
}

inline std::vector<int>* scheduleRef(search::InnerAxes& in, const QString& key) {
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

inline QString valuesText(std::size_t n) {
  return n == 1 ? QObject::tr("1 value") : QObject::tr("%1 values").arg(n);
}

// Units of the knob registry as shown ("um" -> "µm", "mm2" -> "mm²").
inline QString unitText(std::string_view unit) {
  QString u = QString::fromUtf8(unit.data(), static_cast<qsizetype>(unit.size()));
  if (u == QLatin1String("um")) return QStringLiteral("µm");
  if (u == QLatin1String("mm2")) return QStringLiteral("mm²");
  return u;
}

inline QString number(double v) {
  return QString::number(v, 'g', 15);
}

inline QString listText(const std::vector<double>& values) {
  QStringList parts;
  for (double v : values) parts << number(v);
  return parts.join(QStringLiteral(", "));
}

// The value shown in a spin box rounded to what a person typed (12 digits), so 50 ms is
// 0.05 s and not 0.05000000000000001 s.
inline double typed(double v) {
  return QString::number(v, 'g', 12).toDouble();
}

inline QString tipHtml(const QString& title, const QString& text, const QString& unit,
                const QString& allowed, const QString& key) {
  QString t = QStringLiteral("<p><b>%1</b> — %2</p><p><small>")
                  .arg(title.toHtmlEscaped(), text.toHtmlEscaped());
  if (!unit.isEmpty()) t += QObject::tr("Unit: %1 · ").arg(unit.toHtmlEscaped());
  if (!allowed.isEmpty()) t += QObject::tr("Allowed: %1 · ").arg(allowed.toHtmlEscaped());
  t += QObject::tr("Key: <code>%1</code></small></p>").arg(key.toHtmlEscaped());
  return t;
}

inline QColor problemInk() {
  return theme::isDark() ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
}

inline QString issueText(const Issue& i) {
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

}  // namespace stackscope::ui::space_editor_detail
