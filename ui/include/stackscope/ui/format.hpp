// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Number formatting shared by the views, so every panel shows a quantity the same way.
#include <QColor>
#include <QString>

class QPainter;
class QRectF;

#include "stackscope/perf/result.hpp"

namespace stackscope::ui {

// 3-4 significant digits, thousands grouped ("12,345", "812.4", "3.27", "0.0412").
QString readable(double value);
// Value and unit, "n/a" for non-finite values.
QString withUnit(double value, const QString& unit);

// One colour per resource, fixed, so the chart and legends agree across views.
QColor resourceColor(perf::Resource r);
// Link utilisation 0..1 -> colour: idle grey, then blue, amber, red (the link views' scale).
QColor utilisationColor(double utilisation);
// The utilisation colour key along the bottom of `area` (a widget's rect): a 0-100 % gradient
// and `legend` word-wrapped beside it, in `text` colour.
void drawUtilisationKey(QPainter& painter, const QRectF& area, const QString& legend,
                        const QColor& text);
// One colour per operator class (12 distinct hues), and "Attention", "Routed experts", ...
QColor opClassColor(perf::OpClass c);
QString opClassLabel(perf::OpClass c);
QString opClassShortLabel(perf::OpClass c);  // "Attention", "QKV proj.", "EP a2a", ...
// "Compute", "DRAM", "Vertical links", ... for legends.
QString resourceLabel(perf::Resource r);

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace stackscope::ui
