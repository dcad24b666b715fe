// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to ui/: the helpers DesignEditor's translation units share (design_editor.cpp: the
// editor, binding, undo and derived figures; design_editor_pages.cpp: the pages' fields).
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
#include <string_view>

#include "stackscope/common/precision.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::ui::design_editor_detail {

inline constexpr int kMaxDegree = 65536;        // parallel degrees: far past any real system
inline constexpr int kMaxTokens = 10'000'000;   // sequence lengths
inline constexpr int kMaxLevels = 3;            // perf::validate(): at most 3 network levels
inline constexpr int kLevelFieldStride = 1000;  // undo ids of level fields: per level, never merged
// The 3D stack's per-layer table (hw::Memory::layers): its columns.
inline constexpr int kLayerColumns = 5;
inline constexpr int kDieColumn = 0;
inline constexpr int kConnectedColumn = 1;
inline constexpr int kThicknessColumn = 2;
inline constexpr int kCapacityColumn = 3;
inline constexpr int kPitchColumn = 4;

// Precisions in the order of the combos (index = position).
inline constexpr Precision kPrecisions[] = {Precision::fp32, Precision::fp16, Precision::bf16,
                                            Precision::fp8,  Precision::int8, Precision::fp4};

inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

// "parallel.tp" for "/parallel/tp": the key as it reads in a project file. Tooltips show it
// dotted so an issue's JSON pointer is never mistaken for the field's own description.
inline QString projectKey(const QString& path) {
  QString k = path.mid(1);
  k.replace(QLatin1Char('/'), QLatin1Char('.'));
  k.replace(QStringLiteral("{L}"), QStringLiteral("N"));
  return k;
}

// Rich-text tooltip: meaning and source, then unit, allowed range and project key.
inline QString fieldTip(const QString& tip, const QString& unit, const QString& range,
                        const QString& path) {
  QString t = QStringLiteral("<p>%1</p><p><small>").arg(tip.toHtmlEscaped());
  if (!unit.isEmpty()) t += QObject::tr("Unit: %1 · ").arg(unit.toHtmlEscaped());
  if (!range.isEmpty()) t += QObject::tr("Allowed: %1 · ").arg(range.toHtmlEscaped());
  t += QObject::tr("Project key: <code>%1</code></small></p>").arg(projectKey(path));
  return t;
}

// A preset combo's tooltip: the whole name (elided in the box) and the preset id. Also the
// tooltip showIssues() restores when the combo has no issue.
inline void presetTip(QComboBox* combo) {
  const QString id = combo->currentData().toString();
  const QString tip = id.isEmpty() ? combo->currentText()
                                   : QObject::tr("%1\npreset id: %2").arg(combo->currentText(), id);
  combo->setToolTip(tip);
  combo->setProperty("baseTip", tip);
}

inline QString plainLabel(QString label) {
  label.remove(QLatin1Char('&'));
  if (label.endsWith(QLatin1Char(':'))) label.chop(1);
  return label.toLower();
}

// A page: a column holding a form of fields, then any wrapped text (kept out of the form:
// QFormLayout underestimates the height of word-wrapped rows, which a scroll area trusts).
inline QVBoxLayout* column(QWidget* page) {
  return qobject_cast<QVBoxLayout*>(page->layout());
}

// Another form below what the page's column holds so far (a section with its own wrapped
// text after it); alignFormLabels() lines its labels up with the page's other forms.
inline QFormLayout* appendForm(QWidget* page, const char* name = "") {
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

inline QFormLayout* newForm(QWidget* page) {
  auto* col = new QVBoxLayout(page);
  col->setContentsMargins(6, 6, 6, 6);
  return appendForm(page);
}

// One label column for all forms of a page: each label as wide as the widest.
inline void alignFormLabels(QWidget* page) {
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

inline QLabel* derivedLabel(QWidget* parent, const char* name) {
  auto* l = new QLabel(parent);
  l->setObjectName(QString::fromLatin1(name));
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

inline QLabel* sectionLabel(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setObjectName(QStringLiteral("sectionTitle"));
  l->setWordWrap(true);  // a long title wraps in a narrow column
  return l;
}

inline QString topologyName(hw::Topology t) {
  switch (t) {
    case hw::Topology::switch_fabric: return QObject::tr("switch");
    case hw::Topology::ring: return QObject::tr("ring");
    case hw::Topology::mesh2d: return QObject::tr("2D mesh");
    case hw::Topology::torus2d: return QObject::tr("2D torus");
    case hw::Topology::fully_connected: return QObject::tr("fully connected");
  }
  return {};
}

}  // namespace stackscope::ui::design_editor_detail
